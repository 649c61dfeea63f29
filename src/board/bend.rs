//! Bent boards: a book page curling towards the spine, or a phone camera's barrel
//! distortion, bends a board's lines, so that no one homography puts every square where it
//! is: the squares at the edges, cut where the lattice's homography puts them, are cut a
//! good share of a square off. The inner corners found again tell how far each one lies
//! from the homography's place for it; a smooth field (a cubic in the board's coordinates)
//! fitted to those misses says where every point of the board really is. A flat board (a
//! screenshot, a page photographed flat) misses only by the noise of finding its corners
//! (about a hundredth of a square), which no smooth field explains: it gets none.

use nalgebra::{DMatrix, DVector};
use serde::Serialize;

use crate::quad::{Homography, Point, Quad};

use super::refine::refind;
use super::saddle::{Integral, Kernel};

/// Terms of the correction field: 1, x, y, x², xy, y², x³, x²y, xy², y³.
const TERMS: usize = 10;
/// A board counts as bent when the field moves one of its outer corners this far (squares)
/// ...
const BENT_FROM: f32 = 0.2;
/// ... and leaves at most this share of its inner corners' misses (root mean square) ...
const EXPLAINED_TO: f32 = 0.5;
/// ... and at most this much in squares.
const MAX_LEFT: f32 = 0.06;
/// Fewest inner corners found again to fit the field, strays left out ...
const MIN_CORNERS: usize = 36;
/// ... with at least this many in each outer row and column of the 7 x 7 inner corners,
/// so that the field is measured out to the board's edges, not extrapolated there.
const MIN_ON_EDGE: usize = 4;
/// Largest correction at the board's outer corners, in squares: more is another pattern
/// (a page curling by 50 degrees at the board's edge moves them up to ~1.2).
const MAX_SHIFT: f32 = 1.5;
/// Beyond the board (the context of its edge squares, labels outside it) the field is
/// taken as at this far out, in board units from the edge: a cubic grows fast.
const CLAMP_OUTSIDE: f32 = 0.1;

/// How a bent board departs from its outline's homography: an offset in picture pixels at
/// each point of the board.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Bend {
    /// The outline the bend was measured on (picture pixels, corners in the finder's
    /// order): the field's coordinates are this outline's.
    #[serde(skip)]
    outline: Quad,
    /// Coefficients of the x and y offsets (picture pixels), over [`TERMS`].
    #[serde(skip)]
    coefficients: [[f32; TERMS]; 2],
    /// The largest offset at the board's inner corners, in squares.
    pub largest: f32,
}

impl Bend {
    /// The board's four corners as the bend places them (picture pixels, in the order of
    /// the outline it was measured on).
    pub fn corners(&self) -> Quad {
        let unit = [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0f32]];
        Quad(std::array::from_fn(|k| {
            let (p, d) = (self.outline.0[k], self.offset(unit[k][0], unit[k][1]));
            [p[0] + d[0], p[1] + d[1]]
        }))
    }

    /// The offset (picture pixels) at board coordinates `(u, v)` (0 to 1 from the outline's
    /// first corner, as [`crate::quad::Quad::homography`]).
    pub fn offset(&self, u: f32, v: f32) -> Point {
        let t = |w: f32| (8.0 * w.clamp(-CLAMP_OUTSIDE, 1.0 + CLAMP_OUTSIDE) - 4.0) / 3.5;
        field_at(&self.coefficients, [t(u), t(v)])
    }
}

/// The board's bend, when its inner corners show one: `h` maps index coordinates to
/// detection pixels (inner corners at `offset + (0..7)`), `scale` detection pixels to the
/// picture's. `None` for a flat board or when too few corners are found to tell.
pub fn measure(
    integral: &Integral,
    h: &Homography,
    offset: [f32; 2],
    kernel: Kernel,
    min_score: f32,
    scale: (f32, f32),
    outline: Quad,
) -> Option<Bend> {
    let square = {
        let (a, b) = (
            h.apply([offset[0], offset[1]]),
            h.apply([offset[0] + 6.0, offset[1] + 6.0]),
        );
        crate::quad::dist(a, b) / (6.0 * 2f32.sqrt())
    };
    // Board coordinates of the field: inner corners at -6/7 .. 6/7.
    let t = |idx: Point| {
        [
            (idx[0] - offset[0] - 3.0) / 3.5,
            (idx[1] - offset[1] - 3.0) / 3.5,
        ]
    };
    // Each corner found: its field coordinates and how far it lies from the homography's
    // place for it.
    let misses_of = |found: &[(Point, Point)]| -> Vec<(Point, Point)> {
        found
            .iter()
            .map(|(idx, p)| {
                let q = h.apply(*idx);
                (t(*idx), [p[0] - q[0], p[1] - q[1]])
            })
            .collect()
    };
    let mut found = refind(integral, &|p| h.apply(p), offset, kernel, min_score);
    let mut field = None;
    // Corners far out on a bent board lie beyond the search around the homography's place
    // for them: a second search around the field's place finds them.
    for pass in 0..2 {
        if found.len() < MIN_CORNERS / 2 {
            return None;
        }
        let (fit, _) = fit_field(&misses_of(&found))?;
        // Most boards are flat: a first field that hardly moves the outer corners ends it.
        if pass == 0 && outer_shift(&fit, square) < BENT_FROM / 2.0 {
            return None;
        }
        let predict = |idx: Point| {
            let (q, d) = (h.apply(idx), field_at(&fit, t(idx)));
            [q[0] + d[0], q[1] + d[1]]
        };
        found = refind(integral, &predict, offset, kernel, min_score);
        field = Some(fit);
    }
    let field = field?;
    if found.len() < MIN_CORNERS {
        return None;
    }
    let on = |axis: usize, at: f32| {
        found
            .iter()
            .filter(|(idx, _)| idx[axis] - offset[axis] == at)
            .count()
    };
    if [on(0, 0.0), on(0, 6.0), on(1, 0.0), on(1, 6.0)]
        .iter()
        .any(|&n| n < MIN_ON_EDGE)
    {
        return None;
    }
    let misses = misses_of(&found);
    let (field, inliers) = fit_field(&misses).unwrap_or((field, vec![true; misses.len()]));
    // Corners found on a man's outline or an arrow are strays of any fit: judged without
    // them.
    let misses: Vec<(Point, Point)> = misses
        .into_iter()
        .zip(inliers)
        .filter_map(|(m, inlier)| inlier.then_some(m))
        .collect();
    // Nor do they count as found: a flat board's labels, hatching or arrows give corners a
    // cubic half explains (a widget and a LaTeX board with 33 and 35 left were bent so).
    if misses.len() < MIN_CORNERS {
        return None;
    }
    let rms = |f: &dyn Fn(Point, Point) -> f32| {
        (misses.iter().map(|(t, d)| f(*t, *d).powi(2)).sum::<f32>() / misses.len() as f32).sqrt()
    };
    let before = rms(&|_, d| d[0].hypot(d[1])) / square;
    let left = rms(&|t, d| {
        let f = field_at(&field, t);
        (d[0] - f[0]).hypot(d[1] - f[1])
    }) / square;
    let shift = outer_shift(&field, square);
    if shift < BENT_FROM || left > EXPLAINED_TO * before || left > MAX_LEFT || shift > MAX_SHIFT {
        return None;
    }
    let largest = misses
        .iter()
        .map(|(t, _)| {
            let f = field_at(&field, *t);
            f[0].hypot(f[1]) / square
        })
        .fold(0.0, f32::max);
    let (fx, fy) = scale;
    Some(Bend {
        outline,
        coefficients: [field[0].map(|c| c * fx), field[1].map(|c| c * fy)],
        largest,
    })
}

/// The field's largest move at the board's four outer corners, in squares of `square`
/// pixels.
fn outer_shift(field: &[[f32; TERMS]; 2], square: f32) -> f32 {
    let far = 8.0 / 7.0;
    [[-far, -far], [far, -far], [far, far], [-far, far]]
        .iter()
        .map(|c| {
            let f = field_at(field, *c);
            f[0].hypot(f[1]) / square
        })
        .fold(0.0, f32::max)
}

/// The field with coefficients `field` at field coordinates `t`.
fn field_at(field: &[[f32; TERMS]; 2], t: Point) -> Point {
    let terms = basis(t[0], t[1]);
    field.map(|c| c.iter().zip(&terms).map(|(a, b)| a * b).sum())
}

/// The terms of the field at `(x, y)`.
fn basis(x: f32, y: f32) -> [f32; TERMS] {
    [
        1.0,
        x,
        y,
        x * x,
        x * y,
        y * y,
        x * x * x,
        x * x * y,
        x * y * y,
        y * y * y,
    ]
}

/// Least-squares coefficients of the x and y misses `(t, miss)`, fitted again without the
/// corners far off the fit (over 2.5 times the median and over a pixel), each judged by
/// how far it lies from the fit of the others (its residual over one minus its leverage):
/// a cubic bends to reach strays at the lattice's edge, which their own residuals would
/// then hide.
fn fit_field(misses: &[(Point, Point)]) -> Option<([[f32; TERMS]; 2], Vec<bool>)> {
    // The coefficients, and each row's leverage (the diagonal of the hat matrix).
    let solve = |rows: &[&(Point, Point)]| -> Option<([[f32; TERMS]; 2], Vec<f64>)> {
        if rows.len() < 2 * TERMS {
            return None;
        }
        let a = DMatrix::from_fn(rows.len(), TERMS, |r, c| {
            f64::from(basis(rows[r].0[0], rows[r].0[1])[c])
        });
        let svd = a.svd(true, true);
        let mut out = [[0f32; TERMS]; 2];
        for (axis, coefficients) in out.iter_mut().enumerate() {
            let b = DVector::from_fn(rows.len(), |r, _| f64::from(rows[r].1[axis]));
            let x = svd.solve(&b, 1e-9).ok()?;
            for (o, v) in coefficients.iter_mut().zip(x.iter()) {
                *o = *v as f32;
            }
        }
        let u = svd.u.as_ref()?;
        let largest = svd.singular_values.max();
        let leverage = (0..rows.len())
            .map(|r| {
                (0..svd.singular_values.len())
                    .filter(|&k| svd.singular_values[k] > 1e-9 * largest)
                    .map(|k| u[(r, k)].powi(2))
                    .sum()
            })
            .collect();
        Some((out, leverage))
    };
    let all: Vec<&(Point, Point)> = misses.iter().collect();
    let (first, leverage) = solve(&all)?;
    let miss = |(t, d): &(Point, Point), h: f64| {
        let f = field_at(&first, *t);
        (d[0] - f[0]).hypot(d[1] - f[1]) / (1.0 - h).max(0.05) as f32
    };
    let left_out: Vec<f32> = misses
        .iter()
        .zip(&leverage)
        .map(|(m, h)| miss(m, *h))
        .collect();
    let mut sorted = left_out.clone();
    sorted.sort_by(f32::total_cmp);
    let cut = (2.5 * sorted[sorted.len() / 2]).max(1.0);
    let inliers: Vec<bool> = left_out.iter().map(|m| *m <= cut).collect();
    let kept: Vec<&(Point, Point)> = misses
        .iter()
        .zip(&inliers)
        .filter(|(_, i)| **i)
        .map(|(m, _)| m)
        .collect();
    if kept.len() == misses.len() {
        return Some((first, inliers));
    }
    Some((solve(&kept)?.0, inliers))
}

/// Margin kept around the straightened board, as a share of its side: the crops' context
/// and the coordinate labels outside the board (up to ~0.6 of a square) stay in it.
const MARGIN: f32 = 0.15;
/// Largest side of the straightened board in pixels.
const MAX_SIDE: f32 = 2048.0;
/// How far (squares) a bent board's corner may lie outside the picture for it to be
/// straightened: the corner's place is extrapolated from the inner corners, and a corner
/// square this far out still shows most of itself.
const OUTSIDE_SLACK: f32 = 0.5;
/// A board is straightened at twice its longest side up to this side in pixels.
const UPSAMPLED_UP_TO: f32 = 1024.0;

/// The board in `img` with its `bend` taken out: the picture resampled so that the board
/// is an upright square of at least its longest side in pixels (a small board drawn
/// larger) with a margin around it, its lines straight. `quad` is the board's outline in
/// the picture, the bend's own or its [`Bend::corners`], or either with its corners
/// relabelled (quarter turns); returns the picture and `quad` carried into it. `None`
/// when a corner of the board lies over half a square outside the picture (what lies
/// outside must stay outside: the squares it cuts off are reported as such) or
/// `quad` is not the bend's outline.
pub fn unbent(img: &image::RgbImage, bend: &Bend, quad: &Quad) -> Option<(image::RgbImage, Quad)> {
    use crate::squares::{sample_bilinear, to_u8};
    let corners = bend.corners();
    let corner = |p: &Point| (0..4).find(|&k| bend.outline.0[k] == *p || corners.0[k] == *p);
    let relabelled: Vec<usize> = quad.0.iter().map(corner).collect::<Option<_>>()?;
    let quad = &bend.outline;
    let (w, h) = (img.width() as f32, img.height() as f32);
    // Where the board's corners really are (the homography's places for them may lie
    // outside the picture when the board's edge curls in), give or take what the
    // pipeline would not report as cut off anyway.
    let slack = OUTSIDE_SLACK * quad.mean_side() / 8.0;
    if corners
        .0
        .iter()
        .any(|p| p[0] < -slack || p[1] < -slack || p[0] > w + slack || p[1] > h + slack)
    {
        return None;
    }
    let homography = quad.homography()?;
    let longest = (0..4)
        .map(|i| crate::quad::dist(quad.0[i], quad.0[(i + 1) % 4]))
        .fold(0.0, f32::max);
    // Small boards are drawn larger: cut again from this copy, their squares would
    // otherwise go through two resamplings at about their own size and come out soft.
    let side = longest
        .max((2.0 * longest).min(UPSAMPLED_UP_TO))
        .clamp(64.0, MAX_SIDE)
        .round();
    let margin = (side * MARGIN).round();
    let total = (side + 2.0 * margin) as u32;
    let mut out = image::RgbImage::new(total, total);
    for (y, row) in out.chunks_exact_mut(3 * total as usize).enumerate() {
        let v = (y as f32 + 0.5 - margin) / side;
        for (x, px) in row.chunks_exact_mut(3).enumerate() {
            let u = (x as f32 + 0.5 - margin) / side;
            let p = homography.apply([u, v]);
            let d = bend.offset(u, v);
            let c = sample_bilinear(img, p[0] + d[0] - 0.5, p[1] + d[1] - 0.5);
            for (o, v) in px.iter_mut().zip(c) {
                *o = to_u8(v);
            }
        }
    }
    let square = Quad::square(margin, margin, side);
    Some((out, Quad([0, 1, 2, 3].map(|k| square.0[relabelled[k]]))))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flat(outline: Quad, shift: f32) -> Bend {
        let mut coefficients = [[0.0; TERMS]; 2];
        coefficients[0][0] = shift;
        Bend {
            outline,
            coefficients,
            largest: 0.0,
        }
    }

    #[test]
    fn the_straight_outline_keeps_the_corners_relabelling() {
        let img = image::RgbImage::from_fn(200, 200, |x, y| {
            image::Rgb([(x % 256) as u8, (y % 256) as u8, 0])
        });
        let outline = Quad::square(50.0, 40.0, 100.0);
        let bend = flat(outline, 0.0);
        let (straight, square) = unbent(&img, &bend, &outline).unwrap();
        // Twice the side of a small board, with a margin of 0.15 of it.
        assert_eq!(straight.width(), 260);
        assert_eq!(square, Quad::square(30.0, 30.0, 200.0));
        // A quarter turn of the outline's corners comes out as the same turn of the square's.
        let turned = Quad([outline.0[1], outline.0[2], outline.0[3], outline.0[0]]);
        let (_, turned_square) = unbent(&img, &bend, &turned).unwrap();
        assert_eq!(
            turned_square.0,
            [square.0[1], square.0[2], square.0[3], square.0[0]]
        );
        // The picture under the outline's corner lands at the square's corner.
        let p = straight.get_pixel(30, 30).0;
        assert!(
            (i32::from(p[0]) - 50).abs() <= 1 && (i32::from(p[1]) - 40).abs() <= 1,
            "{p:?}"
        );
        // Another outline, or one reaching out of the picture, is not straightened.
        assert!(unbent(&img, &bend, &Quad::square(0.0, 0.0, 10.0)).is_none());
        let outside = Quad::square(150.0, 40.0, 100.0);
        assert!(unbent(&img, &flat(outside, 0.0), &outside).is_none());
    }

    #[test]
    fn strays_the_cubic_bends_towards_are_left_out() {
        // A flat screenshot's inner corners as found again (widget set 2's 0041, a
        // chessboard.js board; field coordinates and misses in detection pixels, squares
        // of 40.8): most within a pixel, but the last two of the bottom row 7 pixels up, at
        // the men there, and a few others off. A cubic through all of them bends to reach
        // the pair at the lattice's corner, where their own residuals then look small; the
        // field measured that way moved the board's corner 0.38 of a square and bent it.
        let misses: Vec<(Point, Point)> = vec![
            ([-0.8571, -0.8571], [-1.58, 0.43]),
            ([-0.5714, -0.8571], [0.87, 0.46]),
            ([-0.2857, -0.8571], [0.79, 0.24]),
            ([0.0000, -0.8571], [0.82, -0.40]),
            ([0.2857, -0.8571], [-0.37, -0.33]),
            ([0.5714, -0.8571], [-0.28, -0.05]),
            ([0.8571, -0.8571], [-0.17, -0.15]),
            ([-0.8571, -0.5714], [-1.20, -0.67]),
            ([-0.5714, -0.5714], [0.70, -0.57]),
            ([-0.2857, -0.5714], [0.73, -0.12]),
            ([0.0000, -0.5714], [-1.17, 0.07]),
            ([0.2857, -0.5714], [0.63, 0.93]),
            ([0.5714, -0.5714], [-0.21, -0.07]),
            ([0.8571, -0.5714], [0.00, -0.38]),
            ([-0.8571, -0.2857], [-1.35, -6.01]),
            ([-0.5714, -0.2857], [0.72, 0.28]),
            ([-0.2857, -0.2857], [0.60, 0.10]),
            ([0.0000, -0.2857], [-0.11, 0.05]),
            ([0.2857, -0.2857], [-0.36, 0.15]),
            ([0.5714, -0.2857], [0.12, 0.32]),
            ([0.8571, -0.2857], [-0.23, 0.26]),
            ([-0.8571, 0.0000], [0.65, 0.12]),
            ([-0.5714, 0.0000], [-2.43, 1.34]),
            ([-0.2857, 0.0000], [1.81, 2.04]),
            ([0.0000, 0.0000], [-0.81, 0.29]),
            ([0.2857, 0.0000], [-0.20, -2.38]),
            ([0.5714, 0.0000], [-0.13, -0.72]),
            ([0.8571, 0.0000], [0.21, -0.22]),
            ([-0.8571, 0.2857], [-0.03, -0.29]),
            ([-0.5714, 0.2857], [0.07, 0.38]),
            ([0.0000, 0.2857], [-0.63, 0.19]),
            ([0.5714, 0.2857], [-0.01, -0.36]),
            ([0.8571, 0.2857], [0.10, -0.09]),
            ([-0.8571, 0.5714], [-0.09, -0.15]),
            ([-0.5714, 0.5714], [0.02, -0.09]),
            ([-0.2857, 0.5714], [0.19, -0.04]),
            ([0.0000, 0.5714], [-0.08, 0.02]),
            ([0.2857, 0.5714], [-0.29, 0.07]),
            ([0.5714, 0.5714], [0.06, 0.12]),
            ([0.8571, 0.5714], [0.45, 0.18]),
            ([-0.8571, 0.8571], [-0.25, -0.59]),
            ([-0.5714, 0.8571], [0.20, 0.39]),
            ([-0.2857, 0.8571], [0.01, 0.14]),
            ([0.0000, 0.8571], [-0.34, -1.32]),
            ([0.2857, 0.8571], [-0.08, -1.37]),
            ([0.5714, 0.8571], [0.99, -7.59]),
            ([0.8571, 0.8571], [-0.66, -7.24]),
        ];
        let (field, inliers) = fit_field(&misses).unwrap();
        let at = |t: Point| misses.iter().position(|(u, _)| *u == t).unwrap();
        assert!(!inliers[at([0.5714, 0.8571])] && !inliers[at([0.8571, 0.8571])]);
        let shift = outer_shift(&field, 40.85);
        assert!(shift < BENT_FROM, "{shift}");
    }

    #[test]
    fn the_offset_is_the_field_and_stops_growing_off_the_board() {
        let bend = flat(Quad::square(0.0, 0.0, 80.0), 3.0);
        assert_eq!(bend.offset(0.5, 0.5), [3.0, 0.0]);
        // A cubic term: x^3 in the field's coordinates (the board's centre at 0, its edge
        // squares' outer edges at +-8/7).
        let mut cubic = bend.clone();
        cubic.coefficients[0] = [0.0; TERMS];
        cubic.coefficients[0][6] = 1.0;
        let edge = cubic.offset(1.0, 0.5)[0];
        assert!((edge - (8.0f32 / 7.0).powi(3)).abs() < 1e-4, "{edge}");
        assert_eq!(
            cubic.offset(3.0, 0.5),
            cubic.offset(1.0 + CLAMP_OUTSIDE, 0.5)
        );
    }
}
