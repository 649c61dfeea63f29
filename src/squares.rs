//! Cutting the 64 square crops out of an image: the one crop function synth, train and infer
//! all call, so the classifier always sees squares cut the same way.

use image::{Rgb, RgbImage};
use serde::{Deserialize, Serialize};

use crate::quad::Quad;

pub mod plain;
pub use plain::{PLAIN_RANGE, is_plain_square, plain_squares};

/// How a square is cut and scaled.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct CropConfig {
    /// Side of a crop in pixels (the classifier's input size). Default 32.
    pub size: u32,
    /// Context added on each side of the square, as a fraction of a square's side: tall
    /// pieces reach into the square above, and a little context makes the crop tolerant of
    /// a board finder that is off by a few pixels. Range 0..=0.5; default 0.125.
    pub context: f32,
}

impl Default for CropConfig {
    fn default() -> Self {
        CropConfig {
            size: 32,
            context: 0.125,
        }
    }
}

impl CropConfig {
    /// Checks the ranges the cutting code relies on: a crop of at least 8 pixels and a
    /// context of 0..=0.5 squares (outside it a square's middle would not lie inside its
    /// crop). Checkpoints and training configs are read through this.
    pub fn validate(&self) -> Result<(), String> {
        if self.size < 8 {
            return Err(format!("crop.size {} is under 8 pixels", self.size));
        }
        if !(0.0..=0.5).contains(&self.context) {
            return Err(format!(
                "crop.context {} is outside 0..=0.5 (a share of a square)",
                self.context
            ));
        }
        Ok(())
    }
}

/// Why squares could not be cut.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum CutError {
    /// The corners do not form a usable quadrilateral.
    #[error("the board corners do not form a convex quadrilateral")]
    DegenerateQuad,
}

/// Cuts the 64 squares of the board whose corners are `quad` (image order, see [`Quad`]).
/// Crops come in reading order of the image: top-left square first, row by row. Pixels
/// outside the image are mid-grey.
pub fn cut(img: &RgbImage, quad: &Quad, cfg: &CropConfig) -> Result<Vec<RgbImage>, CutError> {
    let all: Vec<usize> = (0..64).collect();
    cut_shifted(img, quad, cfg, &all, &[(0.0, 0.0)])
}

/// The crops of the squares `which` (reading order, 0..64) with their windows moved by
/// each of `shifts` (in squares, along the board's columns and rows) from where [`cut`]
/// puts them: the same squares as a board finder a little off would cut them. Shift-major:
/// all of `which` for the first shift, then for the next.
pub fn cut_shifted(
    img: &RgbImage,
    quad: &Quad,
    cfg: &CropConfig,
    which: &[usize],
    shifts: &[(f32, f32)],
) -> Result<Vec<RgbImage>, CutError> {
    if !quad.is_convex() || !quad.0.iter().flatten().all(|v| v.is_finite()) {
        return Err(CutError::DegenerateQuad);
    }
    let src_per_dst = quad.mean_side() / 8.0 * (1.0 + 2.0 * cfg.context) / cfg.size as f32;
    // A board much larger than the crops is first shrunk by averaging whole blocks of
    // pixels (cheap, and no aliasing of thin outlines); the rest is supersampled. Once for
    // every shift: the region kept reaches as far as the largest.
    let factor = src_per_dst.floor().max(1.0) as u32;
    let reach = shifts
        .iter()
        .fold(0f32, |r, s| r.max(s.0.abs()).max(s.1.abs()));
    let (src, quad) = if factor >= 2 && img.width() > 0 && img.height() > 0 {
        let (small, q) = shrink_region(img, quad, cfg.context + reach, factor);
        (std::borrow::Cow::Owned(small), q)
    } else {
        (std::borrow::Cow::Borrowed(img), *quad)
    };
    let h = quad.homography().ok_or(CutError::DegenerateQuad)?;
    let m = h.0.map(|v| v as f32);
    // Up to 1.5 source pixels per crop pixel bilinear sampling is enough; above, 2x2.
    let k = if src_per_dst / factor as f32 > 1.5 {
        2
    } else {
        1
    };
    let mut out = Vec::with_capacity(which.len() * shifts.len());
    for &shift in shifts {
        out.extend(which.iter().map(|&i| {
            let (row, col) = ((i / 8) as u32, (i % 8) as u32);
            cut_one(&src, &m, row, col, cfg, k, shift)
        }));
    }
    Ok(out)
}

/// Averages `factor` x `factor` blocks of the part of `img` around the board; returns the
/// small image and the quad in its coordinates.
fn shrink_region(img: &RgbImage, quad: &Quad, context: f32, factor: u32) -> (RgbImage, Quad) {
    let pad = quad.mean_side() / 8.0 * (context + 0.1);
    let xs = quad.0.iter().map(|p| p[0]);
    let ys = quad.0.iter().map(|p| p[1]);
    let (min_x, max_x) = xs.fold((f32::MAX, f32::MIN), |a, v| (a.0.min(v), a.1.max(v)));
    let (min_y, max_y) = ys.fold((f32::MAX, f32::MIN), |a, v| (a.0.min(v), a.1.max(v)));
    let clamp_x = |v: f32| (v.max(0.0) as u32).min(img.width());
    let clamp_y = |v: f32| (v.max(0.0) as u32).min(img.height());
    let (x0, x1) = (clamp_x(min_x - pad), clamp_x(max_x + pad + 1.0));
    let (y0, y1) = (clamp_y(min_y - pad), clamp_y(max_y + pad + 1.0));
    let w = ((x1 - x0) / factor).max(1);
    let h = ((y1 - y0) / factor).max(1);
    let mut small = RgbImage::new(w, h);
    let inv = 1.0 / (factor * factor) as f32;
    let (iw, ih) = (img.width() as usize, img.height() as usize);
    let raw = img.as_raw();
    // Source column of each (output column, offset) pair, clamped at the image edge.
    let columns: Vec<usize> = (0..w * factor)
        .map(|i| (x0 + i).min(iw.saturating_sub(1) as u32) as usize)
        .collect();
    let mut acc = vec![0u32; 3 * w as usize];
    for (sy, out) in small.chunks_exact_mut(3 * w as usize).enumerate() {
        acc.fill(0);
        for dy in 0..factor {
            let y = ((y0 + sy as u32 * factor + dy) as usize).min(ih.saturating_sub(1));
            let line = &raw[y * iw * 3..(y + 1) * iw * 3];
            for (a, cols) in acc
                .chunks_exact_mut(3)
                .zip(columns.chunks_exact(factor as usize))
            {
                for &x in cols {
                    a[0] += u32::from(line[3 * x]);
                    a[1] += u32::from(line[3 * x + 1]);
                    a[2] += u32::from(line[3 * x + 2]);
                }
            }
        }
        for (o, &a) in out.iter_mut().zip(&acc) {
            *o = to_u8(a as f32 * inv);
        }
    }
    let f = factor as f32;
    let q = Quad(
        quad.0
            .map(|p| [(p[0] - x0 as f32) / f, (p[1] - y0 as f32) / f]),
    );
    (small, q)
}

fn cut_one(
    img: &RgbImage,
    m: &nalgebra::Matrix3<f32>,
    row: u32,
    col: u32,
    cfg: &CropConfig,
    k: u32,
    shift: (f32, f32),
) -> RgbImage {
    let n = cfg.size;
    let span = 1.0 + 2.0 * cfg.context; // crop side in squares
    let inv_k = 1.0 / k as f32;
    let kk = (k * k) as f32;
    let (ku, nu) = (k as usize, n as usize);
    // The homography's entries, named for the loops below.
    let [m00, m01, m02] = [m[(0, 0)], m[(0, 1)], m[(0, 2)]];
    let [m10, m11, m12] = [m[(1, 0)], m[(1, 1)], m[(1, 2)]];
    let [m20, m21, m22] = [m[(2, 0)], m[(2, 1)], m[(2, 2)]];
    // Along a row of samples only u changes: u per sample column, computed once.
    let us: Vec<f32> = (0..nu * ku)
        .map(|i| {
            let (x, sx) = ((i / ku) as f32, (i % ku) as f32);
            let fx = (x + (sx + 0.5) * inv_k) / n as f32;
            (col as f32 + shift.0 - cfg.context + fx * span) / 8.0
        })
        .collect();
    let (mut xs, mut ys) = (vec![0f32; us.len()], vec![0f32; us.len()]);
    let mut acc = vec![[0f32; 3]; nu];
    let mut crop = RgbImage::new(n, n);
    for (y, out_row) in crop.chunks_exact_mut(nu * 3).enumerate() {
        acc.fill([0.0; 3]);
        for sy in 0..k {
            let fy = (y as f32 + (sy as f32 + 0.5) * inv_k) / n as f32;
            let v = (row as f32 + shift.1 - cfg.context + fy * span) / 8.0;
            // Source positions of the whole sample row: no branches, so vector lanes.
            for ((&u, px), py) in us.iter().zip(xs.iter_mut()).zip(ys.iter_mut()) {
                let w = m20 * u + m21 * v + m22;
                *px = (m00 * u + m01 * v + m02) / w - 0.5;
                *py = (m10 * u + m11 * v + m12) / w - 0.5;
            }
            // Samples added in the order sy, then sx, for every pixel.
            for (i, (&px, &py)) in xs.iter().zip(&ys).enumerate() {
                let p = sample_bilinear(img, px, py);
                let a = &mut acc[i / ku];
                for c in 0..3 {
                    a[c] += p[c];
                }
            }
        }
        for (o, a) in out_row.chunks_exact_mut(3).zip(&acc) {
            for c in 0..3 {
                o[c] = to_u8(a[c] / kk);
            }
        }
    }
    crop
}

/// Rounds and clamps a channel value to `u8` (without `f32::round`, a libm call on the
/// baseline x86-64 target and a hot spot in per-pixel loops).
#[inline]
pub fn to_u8(v: f32) -> u8 {
    (v.clamp(0.0, 255.0) + 0.5) as u8
}

/// Where each of `m` equal blocks of `n` pixels starts, for shrinking by block averages:
/// block `k` is `starts[k]..starts[k + 1]`, `starts[k] = ceil(k n / m)` (pixel `x` falls in
/// block `x m / n`); `m + 1` entries, the last `n`. With `m <= n` no block is empty.
pub fn block_starts(n: usize, m: usize) -> Vec<usize> {
    let m = m.max(1);
    (0..=m).map(|k| (k * n).div_ceil(m)).collect()
}

/// Bilinear sample at continuous pixel coordinates (pixel centres at integers); outside the
/// image the colour fades to mid-grey.
#[inline]
pub fn sample_bilinear(img: &RgbImage, x: f32, y: f32) -> [f32; 3] {
    let (w, h) = (img.width() as i64, img.height() as i64);
    if !x.is_finite()
        || !y.is_finite()
        || x < -2.0
        || y < -2.0
        || x > (w + 2) as f32
        || y > (h + 2) as f32
    {
        return [128.0; 3];
    }
    // Floor without a libm call: the coordinates are bounded above.
    let (x0, y0) = ((x + 4.0) as i64 - 4, (y + 4.0) as i64 - 4);
    let (tx, ty) = (x - x0 as f32, y - y0 as f32);
    let raw = img.as_raw();
    if x0 >= 0 && y0 >= 0 && x0 + 1 < w && y0 + 1 < h {
        let i = ((y0 * w + x0) * 3) as usize;
        let j = i + (w * 3) as usize;
        // The two pixels above and the two below, each as one slice: one bounds check each.
        let (above, below) = (&raw[i..i + 6], &raw[j..j + 6]);
        let mut out = [0f32; 3];
        for c in 0..3 {
            let (a, b) = (above[c] as f32, above[3 + c] as f32);
            let (d0, d1) = (below[c] as f32, below[3 + c] as f32);
            let top = a + (b - a) * tx;
            let bottom = d0 + (d1 - d0) * tx;
            out[c] = top + (bottom - top) * ty;
        }
        return out;
    }
    let get = |xi: i64, yi: i64| -> [f32; 3] {
        if xi < 0 || yi < 0 || xi >= w || yi >= h {
            [128.0; 3]
        } else {
            let p = img.get_pixel(xi as u32, yi as u32).0;
            [p[0] as f32, p[1] as f32, p[2] as f32]
        }
    };
    let (a, b, c, d) = (
        get(x0, y0),
        get(x0 + 1, y0),
        get(x0, y0 + 1),
        get(x0 + 1, y0 + 1),
    );
    let mut out = [0f32; 3];
    for i in 0..3 {
        let top = a[i] + (b[i] - a[i]) * tx;
        let bottom = c[i] + (d[i] - c[i]) * tx;
        out[i] = top + (bottom - top) * ty;
    }
    out
}

/// Warps the board to an axis-aligned square image of `side` pixels (no context), for
/// display and debugging.
pub fn warp_board(img: &RgbImage, quad: &Quad, side: u32) -> Result<RgbImage, CutError> {
    let h = quad.homography().ok_or(CutError::DegenerateQuad)?;
    let mut out = RgbImage::new(side, side);
    for y in 0..side {
        for x in 0..side {
            let p = h.apply([
                (x as f32 + 0.5) / side as f32,
                (y as f32 + 0.5) / side as f32,
            ]);
            let px = sample_bilinear(img, p[0] - 0.5, p[1] - 0.5);
            out.put_pixel(x, y, Rgb(px.map(to_u8)));
        }
    }
    Ok(out)
}

/// Samples a side of each square for [`outside_shares`].
const SHARE_GRID: usize = 6;

/// The share of each square of the board at `quad` (reading order a8..h1 as seen in the
/// picture) that lies outside a picture of `width` x `height`, sampled on a 6 x 6 grid
/// inside the square. A board cropped too tightly (a user's crop, a photo cut at the
/// frame) leaves its edge squares partly unseen: their reading is a guess. All zero when
/// the outline is degenerate.
pub fn outside_shares(quad: &Quad, width: u32, height: u32) -> [f32; 64] {
    let mut shares = [0f32; 64];
    let Some(h) = quad.homography() else {
        return shares;
    };
    let (w, hh) = (width as f32, height as f32);
    let step = 1.0 / (8 * SHARE_GRID) as f32;
    for (i, share) in shares.iter_mut().enumerate() {
        let (row, col) = (i / 8, i % 8);
        let mut outside = 0;
        for a in 0..SHARE_GRID {
            for b in 0..SHARE_GRID {
                let u = (col * SHARE_GRID + b) as f32 * step + step / 2.0;
                let v = (row * SHARE_GRID + a) as f32 * step + step / 2.0;
                let [x, y] = h.apply([u, v]);
                let inside = (0.0..w).contains(&x) && (0.0..hh).contains(&y);
                outside += usize::from(!inside);
            }
        }
        *share = outside as f32 / (SHARE_GRID * SHARE_GRID) as f32;
    }
    shares
}

/// Crop pixels as the classifier's input: channel-first (3, size, size), values in 0..=1.
pub fn to_chw(crop: &RgbImage, out: &mut Vec<f32>) {
    let n = (crop.width() * crop.height()) as usize;
    let start = out.len();
    out.resize(start + 3 * n, 0.0);
    for (i, p) in crop.pixels().enumerate() {
        for c in 0..3 {
            out[start + c * n + i] = p.0[c] as f32 / 255.0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 160x160 board of 20 px squares whose square (r, c) has colour (r*30, c*30, 0).
    fn labelled_board() -> RgbImage {
        RgbImage::from_fn(160, 160, |x, y| {
            Rgb([(y / 20 * 30) as u8, (x / 20 * 30) as u8, 0])
        })
    }

    #[test]
    fn crops_land_on_their_squares() {
        let img = labelled_board();
        let cfg = CropConfig {
            size: 16,
            context: 0.0,
        };
        let crops = cut(&img, &Quad::square(0.0, 0.0, 160.0), &cfg).unwrap();
        assert_eq!(crops.len(), 64);
        for (i, crop) in crops.iter().enumerate() {
            let (r, c) = (i / 8, i % 8);
            let centre = crop.get_pixel(8, 8).0;
            assert_eq!(centre, [(r * 30) as u8, (c * 30) as u8, 0], "square {i}");
        }
    }

    #[test]
    fn a_shifted_window_is_the_window_of_a_shifted_board() {
        // A smooth picture, so a sub-pixel difference in where samples land stays small.
        let img = RgbImage::from_fn(200, 200, |x, y| {
            Rgb([(x + y) as u8, (x * 2 % 256) as u8, (y * 3 % 256) as u8])
        });
        let cfg = CropConfig {
            size: 20,
            context: 0.125,
        };
        let quad = Quad::square(20.0, 20.0, 160.0);
        let which = [0, 9, 27, 63];
        // 0.25 of a 20 px square right and 0.1 down = the board moved by (5, 2) pixels.
        let shifted = cut_shifted(&img, &quad, &cfg, &which, &[(0.25, 0.1)]).unwrap();
        let moved = cut(&img, &Quad::square(25.0, 22.0, 160.0), &cfg).unwrap();
        let unmoved = cut(&img, &quad, &cfg).unwrap();
        for (crop, &i) in shifted.iter().zip(&which) {
            let worst = crop
                .as_raw()
                .iter()
                .zip(moved[i].as_raw())
                .map(|(a, b)| a.abs_diff(*b))
                .max();
            assert!(worst <= Some(1), "square {i}: off by {worst:?} grey levels");
            assert_ne!(crop, &unmoved[i], "square {i}: the window did not move");
        }
        // No shift: exactly the crops of `cut`.
        let same = cut_shifted(&img, &quad, &cfg, &which, &[(0.0, 0.0)]).unwrap();
        for (crop, &i) in same.iter().zip(&which) {
            assert_eq!(crop, &unmoved[i]);
        }
    }

    #[test]
    fn degenerate_quad_is_an_error() {
        let img = labelled_board();
        let bad = Quad([[0.0, 0.0], [10.0, 10.0], [0.0, 10.0], [10.0, 0.0]]);
        assert_eq!(
            cut(&img, &bad, &CropConfig::default()),
            Err(CutError::DegenerateQuad)
        );
    }

    #[test]
    fn chw_layout() {
        let crop = RgbImage::from_fn(2, 2, |x, _| Rgb([255, x as u8 * 255, 0]));
        let mut v = Vec::new();
        to_chw(&crop, &mut v);
        assert_eq!(
            v,
            vec![1.0, 1.0, 1.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0]
        );
    }

    #[test]
    fn squares_cut_off_by_the_picture_edge_are_measured() {
        // A board of 10 px squares whose left half-file lies left of the picture.
        let quad = Quad::square(-5.0, 0.0, 80.0);
        let shares = outside_shares(&quad, 100, 100);
        for row in 0..8 {
            assert!((shares[row * 8] - 0.5).abs() < 0.01, "{}", shares[row * 8]);
            for col in 1..8 {
                assert_eq!(shares[row * 8 + col], 0.0);
            }
        }
        // The whole board inside.
        let inside = outside_shares(&Quad::square(10.0, 10.0, 80.0), 100, 100);
        assert!(inside.iter().all(|&s| s == 0.0));
    }
}
