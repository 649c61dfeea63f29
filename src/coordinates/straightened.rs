//! The board and a margin around it seen straight, for the label reader: grey levels at
//! straightened pixel coordinates, read from the picture's luma where it was taken up
//! front.

use image::RgbImage;

use super::{MARGIN, SQUARE};
use crate::quad::Quad;
use crate::squares::sample_bilinear;

/// Most picture pixels whose luma the reader takes up front (about three times the samples
/// it reads: 2 x 32 corners of 32 x 32 and 32 margin cells of 64 x 44 straightened pixels).
const MAX_LUMA_REGION: usize = 500_000;

/// The board and a margin around it, seen straight: grey level at straightened pixel
/// coordinates (`SQUARE` pixels a square, the board from `MARGIN` squares in).
pub(super) struct Straightened<'a> {
    img: &'a RgbImage,
    h: crate::quad::Homography,
    /// Luma of the picture's pixels under the board and its margin (grey is linear, so
    /// interpolating it is interpolating the colours: one channel to sample, not three).
    luma: Vec<f32>,
    /// `[x0, y0, x1, y1]`: the pixels `luma` holds (none for a large board).
    region: [usize; 4],
}

impl<'a> Straightened<'a> {
    pub(super) fn new(img: &'a RgbImage, quad: &Quad) -> Option<Straightened<'a>> {
        let h = quad.homography()?;
        let (w, hh) = (img.width() as usize, img.height() as usize);
        let m = MARGIN / 8.0;
        let corners =
            [[-m, -m], [1.0 + m, -m], [1.0 + m, 1.0 + m], [-m, 1.0 + m]].map(|p| h.apply(p));
        // The image of the square is the quadrilateral of its corners' images, unless the
        // homography's horizon crosses it. Converting costs a little per pixel, sampling the
        // colours a little more per sample: such a board, or a large one (squares over about
        // 75 px), is sampled directly (no region).
        let bounded = corners.iter().flatten().all(|v| v.is_finite()) && Quad(corners).is_convex();
        let clamp = |v: f32, hi: usize| (v.max(0.0) as usize).min(hi);
        let (xs, ys) = (corners.map(|p| p[0]), corners.map(|p| p[1]));
        let min = |v: [f32; 4]| v.into_iter().fold(f32::MAX, f32::min);
        let max = |v: [f32; 4]| v.into_iter().fold(f32::MIN, f32::max);
        let region = [
            clamp(min(xs) - 2.0, w),
            clamp(min(ys) - 2.0, hh),
            clamp(max(xs) + 3.0, w),
            clamp(max(ys) + 3.0, hh),
        ];
        let area = (region[2] - region[0]) * (region[3] - region[1]);
        let region = if bounded && area <= MAX_LUMA_REGION {
            region
        } else {
            [0; 4]
        };
        let [x0, y0, x1, y1] = region;
        let raw = img.as_raw();
        let mut luma = Vec::with_capacity((x1 - x0) * (y1 - y0));
        for y in y0..y1 {
            let row = &raw[(y * w + x0) * 3..(y * w + x1) * 3];
            luma.extend(
                row.chunks_exact(3)
                    .map(|p| luma_of([p[0], p[1], p[2]].map(f32::from))),
            );
        }
        Some(Straightened {
            img,
            h,
            luma,
            region,
        })
    }

    /// Grey at continuous pixel coordinates, as [`sample_bilinear`] of the colours would
    /// give it (pixel centres at integers, mid-grey outside the picture).
    pub(super) fn sample(&self, x: f32, y: f32) -> f32 {
        let [rx0, ry0, rx1, ry1] = self.region;
        if x.is_finite() && y.is_finite() && x >= 0.0 && y >= 0.0 {
            let (xi, yi) = (x as usize, y as usize);
            if xi >= rx0 && yi >= ry0 && xi + 1 < rx1 && yi + 1 < ry1 {
                return self.in_region(x, y);
            }
        }
        luma_of(sample_bilinear(self.img, x, y))
    }

    /// Whether the sample at pixel position `(px, py)` lies a pixel or more inside the luma
    /// region (so its four pixels, and those of points within a pixel of it, are there).
    fn well_inside(&self, (px, py): (f32, f32)) -> bool {
        let [rx0, ry0, rx1, ry1] = self.region;
        let (x, y) = (px - 0.5, py - 0.5);
        x.is_finite()
            && y.is_finite()
            && x >= rx0 as f32 + 1.0
            && y >= ry0 as f32 + 1.0
            && x + 2.0 < rx1 as f32
            && y + 2.0 < ry1 as f32
    }

    /// Grey at `(x, y)` from the luma region, which must hold the four pixels around it.
    #[inline(always)]
    fn in_region(&self, x: f32, y: f32) -> f32 {
        let [rx0, ry0, rx1, _] = self.region;
        let (xi, yi) = (x as usize, y as usize);
        let stride = rx1 - rx0;
        let i = (yi - ry0) * stride + xi - rx0;
        let (tx, ty) = (x - xi as f32, y - yi as f32);
        let (a, b) = (self.luma[i], self.luma[i + 1]);
        let (c, d) = (self.luma[i + stride], self.luma[i + stride + 1]);
        let top = a + (b - a) * tx;
        let bottom = c + (d - c) * tx;
        top + (bottom - top) * ty
    }

    /// The picture positions of straightened row `y` from `x0` to `x1` (exclusive): mapped
    /// through the homography at the two ends and interpolated between them (a label spot
    /// is far too small for perspective to bend a row).
    fn row_segment(&self, y: usize, x0: usize, x1: usize) -> RowSegment {
        let offset = MARGIN * SQUARE as f32;
        let board = (8 * SQUARE) as f32;
        let at = |x: usize| {
            self.h.apply([
                (x as f32 + 0.5 - offset) / board,
                (y as f32 + 0.5 - offset) / board,
            ])
        };
        RowSegment {
            a: at(x0),
            b: at(x1),
            n: (x1 - x0) as f32,
        }
    }

    /// Grey levels of straightened row `y` from `x0` to `x1` (exclusive), at the positions
    /// of [`Straightened::row_segment`].
    pub(super) fn gray_row(&self, y: usize, x0: usize, x1: usize, out: &mut Vec<u8>) {
        let segment = self.row_segment(y, x0, x1);
        let start = out.len();
        out.resize(start + (x1 - x0), 0);
        let out = &mut out[start..];
        // The row's samples lie on a segment. When both of its ends are a pixel inside the
        // luma region, every sample between is inside it too, and the loop steps along the
        // segment (no division a sample) and reads the region without testing each sample: a
        // fifth off the label reading, with the same readings (every `infer --json`
        // output of 4,594 pictures unchanged; BENCHMARKS.md, session 36).
        if !self.holds_row(&segment, out.len()) {
            for (k, o) in out.iter_mut().enumerate() {
                let (px, py) = segment.at(k);
                *o = self.sample(px - 0.5, py - 0.5).clamp(0.0, 255.0) as u8;
            }
            return;
        }
        let RowSegment { a, b, n } = segment;
        let (sx, sy) = ((b[0] - a[0]) / n, (b[1] - a[1]) / n);
        for (k, o) in out.iter_mut().enumerate() {
            let k = k as f32;
            let (x, y) = (a[0] - 0.5 + sx * k, a[1] - 0.5 + sy * k);
            *o = self.in_region(x, y).clamp(0.0, 255.0) as u8;
        }
    }

    /// Whether the first `len` samples of `segment` all lie inside the luma region (both
    /// ends a pixel inside it).
    fn holds_row(&self, segment: &RowSegment, len: usize) -> bool {
        len > 0 && self.well_inside(segment.at(0)) && self.well_inside(segment.at(len - 1))
    }
}

/// The picture positions of one straightened row's samples: `n` steps from `a` towards
/// `b`.
#[derive(Clone, Copy, Debug)]
struct RowSegment {
    a: [f32; 2],
    b: [f32; 2],
    n: f32,
}

impl RowSegment {
    /// Position of sample `k`.
    fn at(&self, k: usize) -> (f32, f32) {
        let (a, b) = (self.a, self.b);
        let t = k as f32 / self.n;
        (a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t)
    }
}

/// Rec. 709 luma of a colour (the labels' grey).
pub(super) fn luma_of([r, g, b]: [f32; 3]) -> f32 {
    0.2126 * r + 0.7152 * g + 0.0722 * b
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sampling the grey the straightened board keeps gives what sampling the colours and
    /// taking their grey gives, inside the picture, across its edges and beyond them; and
    /// for a board too large to keep the grey of, the same.
    #[test]
    fn grey_samples_match_colour_samples() {
        for scale in [1.0f32, 10.0] {
            let (w, h) = ((90.0 * scale) as u32, (70.0 * scale) as u32);
            let img = RgbImage::from_fn(w, h, |x, y| {
                image::Rgb([
                    (x * 37 % 256) as u8,
                    (y * 53 % 256) as u8,
                    ((x * y) % 256) as u8,
                ])
            });
            // A board tilted a little, its margin reaching past the picture's left and top.
            let quad = Quad(
                [[4.0, 2.0], [80.0, 8.0], [76.0, 66.0], [1.0, 60.0]]
                    .map(|p| [p[0] * scale, p[1] * scale]),
            );
            let board = Straightened::new(&img, &quad).unwrap();
            assert_eq!(board.luma.is_empty(), scale > 1.0);
            for i in 0..40 {
                for j in 0..30 {
                    let (x, y) = (i as f32 * 2.47 - 5.0, j as f32 * 2.71 - 4.0);
                    let (x, y) = (x * scale, y * scale);
                    let want = luma_of(sample_bilinear(&img, x, y));
                    let got = board.sample(x, y);
                    assert!((got - want).abs() < 1e-3, "({x}, {y}): {got} vs {want}");
                }
            }
        }
    }

    /// A straightened row reads what sampling each of its points reads, whether it lies
    /// inside the kept grey (the stepping loop) or runs off the picture (the checked one).
    #[test]
    fn straightened_rows_read_their_points() {
        let img = RgbImage::from_fn(300, 260, |x, y| {
            image::Rgb([
                (x * 7 % 256) as u8,
                (y * 11 % 256) as u8,
                ((x + y) % 256) as u8,
            ])
        });
        // Tilted, its margin inside the picture on the right and past its left edge.
        let quad = Quad([[20.0, 30.0], [250.0, 40.0], [240.0, 250.0], [5.0, 235.0]]);
        let board = Straightened::new(&img, &quad).unwrap();
        assert!(!board.luma.is_empty());
        let total = ((8.0 + 2.0 * MARGIN) * SQUARE as f32) as usize;
        let (mut fast, mut checked) = (0, 0);
        for y in (0..total).step_by(37) {
            for (x0, x1) in [(0, total), (total / 2, total), (300, 364)] {
                let mut row = Vec::new();
                board.gray_row(y, x0, x1, &mut row);
                assert_eq!(row.len(), x1 - x0);
                let segment = board.row_segment(y, x0, x1);
                if board.holds_row(&segment, row.len()) {
                    fast += 1;
                } else {
                    checked += 1;
                }
                for (k, &v) in row.iter().enumerate() {
                    let (px, py) = segment.at(k);
                    let want = board.sample(px - 0.5, py - 0.5).clamp(0.0, 255.0);
                    assert!(
                        (v as f32 - want).abs() <= 1.0,
                        "row {y}, {k}: {v} vs {want}"
                    );
                }
            }
        }
        assert!(fast > 0 && checked > 0, "{fast} {checked}");
    }
}
