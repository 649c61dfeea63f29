//! Board corners in an image and the homography that maps the board square onto them.

use nalgebra::{DMatrix, Matrix3, Vector3};
use serde::{Deserialize, Serialize};

/// A point in image pixels (x right, y down; pixel centres at +0.5).
pub type Point = [f32; 2];

/// The four corners of a board as drawn in an image, in image order: top-left, top-right,
/// bottom-right, bottom-left of the board *as it appears* (for a board seen from white's
/// side that is a8, h8, h1, a1; from black's side h1, a1, a8, h8).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Quad(pub [Point; 4]);

impl Quad {
    /// The axis-aligned square `[x, x+side] x [y, y+side]`.
    pub fn square(x: f32, y: f32, side: f32) -> Quad {
        Quad([[x, y], [x + side, y], [x + side, y + side], [x, y + side]])
    }

    /// The homography from board coordinates (`u, v` in `0..=1`, `u` to the right, `v` down)
    /// to image pixels.
    pub fn homography(&self) -> Option<Homography> {
        let unit = [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]];
        Homography::fit(&unit, &self.0)
    }

    /// Axis-aligned bounds: `(min_x, min_y, max_x, max_y)`.
    pub fn bounds(&self) -> (f32, f32, f32, f32) {
        self.0.iter().fold(
            (f32::MAX, f32::MAX, f32::MIN, f32::MIN),
            |(x0, y0, x1, y1), p| (x0.min(p[0]), y0.min(p[1]), x1.max(p[0]), y1.max(p[1])),
        )
    }

    /// Mean side length in pixels.
    pub fn mean_side(&self) -> f32 {
        let p = &self.0;
        (0..4).map(|i| dist(p[i], p[(i + 1) % 4])).sum::<f32>() / 4.0
    }

    /// Largest distance between corresponding corners of two quads, in pixels.
    pub fn max_corner_distance(&self, other: &Quad) -> f32 {
        (0..4)
            .map(|i| dist(self.0[i], other.0[i]))
            .fold(0.0, f32::max)
    }

    /// Whether the quad is convex with corners in clockwise image order (no fold-over).
    pub fn is_convex(&self) -> bool {
        let p = &self.0;
        (0..4).all(|i| {
            let (a, b, c) = (p[i], p[(i + 1) % 4], p[(i + 2) % 4]);
            let cross = (b[0] - a[0]) * (c[1] - b[1]) - (b[1] - a[1]) * (c[0] - b[0]);
            cross > 0.0
        })
    }

    /// The smallest interior angle in degrees (90 for a square; a board photographed at a
    /// steep angle keeps its corners above about 55).
    pub fn min_angle(&self) -> f32 {
        let p = &self.0;
        (0..4)
            .map(|i| {
                let (a, b, c) = (p[(i + 3) % 4], p[i], p[(i + 1) % 4]);
                let u = [a[0] - b[0], a[1] - b[1]];
                let v = [c[0] - b[0], c[1] - b[1]];
                let cos = (u[0] * v[0] + u[1] * v[1]) / (dist(a, b) * dist(b, c)).max(1e-6);
                cos.clamp(-1.0, 1.0).acos().to_degrees()
            })
            .fold(180.0, f32::min)
    }

    /// The mean of the four corners.
    pub fn centre(&self) -> Point {
        let [x, y] = self
            .0
            .iter()
            .fold([0.0, 0.0], |s, p| [s[0] + p[0], s[1] + p[1]]);
        [x / 4.0, y / 4.0]
    }

    /// The quad moved out from its centre by `margin` of its size on every side.
    pub fn grown(&self, margin: f32) -> Quad {
        let c = self.centre();
        let k = 1.0 + 2.0 * margin;
        Quad(
            self.0
                .map(|p| [c[0] + k * (p[0] - c[0]), c[1] + k * (p[1] - c[1])]),
        )
    }

    /// Whether `p` lies inside the quad, taken as convex (either winding).
    pub fn contains(&self, p: Point) -> bool {
        let q = &self.0;
        let sides: [f32; 4] = std::array::from_fn(|i| {
            let (a, b) = (q[i], q[(i + 1) % 4]);
            (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0])
        });
        sides.iter().all(|&s| s >= 0.0) || sides.iter().all(|&s| s <= 0.0)
    }

    /// The same quad with corners listed starting from the opposite corner: what the board
    /// looks like once turned 180 degrees in the reading order.
    pub fn rotated_180(&self) -> Quad {
        let p = self.0;
        Quad([p[2], p[3], p[0], p[1]])
    }
}

/// Distance between two points.
pub fn dist(a: Point, b: Point) -> f32 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2)).sqrt()
}

/// A plane projective transform.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Homography(pub Matrix3<f64>);

impl Homography {
    /// Least-squares fit (direct linear transform, normalised) mapping `src[i]` to `dst[i]`;
    /// exact for 4 points in general position. `None` when degenerate.
    pub fn fit(src: &[Point], dst: &[Point]) -> Option<Homography> {
        if src.len() != dst.len() || src.len() < 4 {
            return None;
        }
        let (ts, ps) = normalise(src);
        let (td, pd) = normalise(dst);
        let n = src.len();
        let mut a = DMatrix::<f64>::zeros(2 * n, 9);
        for i in 0..n {
            let (x, y) = (ps[i][0], ps[i][1]);
            let (u, v) = (pd[i][0], pd[i][1]);
            let r = 2 * i;
            a.row_mut(r)
                .copy_from_slice(&[-x, -y, -1.0, 0.0, 0.0, 0.0, u * x, u * y, u]);
            a.row_mut(r + 1)
                .copy_from_slice(&[0.0, 0.0, 0.0, -x, -y, -1.0, v * x, v * y, v]);
        }
        // The solution is the right singular vector of the smallest singular value; for a
        // 2n x 9 matrix with 2n = 8 we pad to square so SVD returns all 9 vectors.
        let ata = a.transpose() * &a;
        let eig = ata.symmetric_eigen();
        let (idx, _) = eig
            .eigenvalues
            .iter()
            .enumerate()
            .min_by(|x, y| x.1.total_cmp(y.1))?;
        let h = eig.eigenvectors.column(idx);
        let hn = Matrix3::new(h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7], h[8]);
        let full = td.try_inverse()? * hn * ts;
        if !full.iter().all(|v| v.is_finite()) || full[(2, 2)].abs() < 1e-12 {
            return None;
        }
        Some(Homography(full / full[(2, 2)]))
    }

    /// Maps a point.
    pub fn apply(&self, p: Point) -> Point {
        let v = self.0 * Vector3::new(p[0] as f64, p[1] as f64, 1.0);
        [(v[0] / v[2]) as f32, (v[1] / v[2]) as f32]
    }

    /// The inverse transform.
    pub fn inverse(&self) -> Option<Homography> {
        self.0.try_inverse().map(Homography)
    }
}

/// Hartley normalisation: centre on the mean, scale mean distance to sqrt(2).
fn normalise(points: &[Point]) -> (Matrix3<f64>, Vec<[f64; 2]>) {
    let n = points.len() as f64;
    let mx = points.iter().map(|p| p[0] as f64).sum::<f64>() / n;
    let my = points.iter().map(|p| p[1] as f64).sum::<f64>() / n;
    let md = points
        .iter()
        .map(|p| ((p[0] as f64 - mx).powi(2) + (p[1] as f64 - my).powi(2)).sqrt())
        .sum::<f64>()
        / n;
    let s = if md > 1e-12 {
        std::f64::consts::SQRT_2 / md
    } else {
        1.0
    };
    let t = Matrix3::new(s, 0.0, -s * mx, 0.0, s, -s * my, 0.0, 0.0, 1.0);
    let out = points
        .iter()
        .map(|p| [(p[0] as f64 - mx) * s, (p[1] as f64 - my) * s])
        .collect();
    (t, out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn four_point_fit_is_exact() {
        let quad = Quad([[10.0, 20.0], [300.0, 40.0], [280.0, 310.0], [30.0, 260.0]]);
        let h = quad.homography().unwrap();
        for (u, p) in [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]]
            .iter()
            .zip(quad.0)
        {
            let q = h.apply(*u);
            assert!(
                (q[0] - p[0]).abs() < 1e-3 && (q[1] - p[1]).abs() < 1e-3,
                "{q:?} vs {p:?}"
            );
        }
        let inv = h.inverse().unwrap();
        let back = inv.apply(h.apply([0.3, 0.7]));
        assert!((back[0] - 0.3).abs() < 1e-5 && (back[1] - 0.7).abs() < 1e-5);
        assert!(quad.is_convex());
        assert!(!Quad([quad.0[0], quad.0[2], quad.0[1], quad.0[3]]).is_convex());
    }

    #[test]
    fn degenerate_fit_is_none() {
        let p = [[1.0, 1.0]; 4];
        assert!(Homography::fit(&p, &p).is_none() || Quad(p).homography().is_none());
        assert!(Homography::fit(&p[..3], &p[..3]).is_none());
    }
}
