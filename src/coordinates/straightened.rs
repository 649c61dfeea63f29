//! The board and a margin around it seen straight, for the label reader: grey levels at
//! straightened pixel coordinates, read from the picture's luma where it was taken up
//! front.

use image::RgbImage;

use super::{MARGIN, SQUARE, WIDE_CORNER_EIGHTHS};
use crate::quad::Quad;
use crate::squares::sample_bilinear;

/// Most picture pixels whose luma the reader takes up front. Converting a pixel costs about
/// a sixth of what sampling the colours directly adds to a sample (about 2 against 13 ns
/// here), and the reader takes 200,000-330,000 samples (the label spots, then the bands
/// along the edges): converting this many pays for itself with room to spare.
const MAX_LUMA_PIXELS: usize = 700_000;
/// The board's middle the reader never looks at: labels stand at most half a square inside
/// the board (the label spots' corners, `lined_up`'s bands), so the luma is not taken
/// where a square's width more than that is still board.
const HOLE_INSET: f32 = 0.6 / 8.0;
/// Side of the straightened canvas: the board and its margin.
pub(super) const CANVAS: usize = ((8.0 + 2.0 * MARGIN) * SQUARE as f32) as usize;
/// Width of the ring along the canvas's edges the readers look at: the margin and the
/// label spots' wider corners (`lined_up`'s bands take half a square), a pixel to spare.
const RING: usize = ((MARGIN + WIDE_CORNER_EIGHTHS as f32 / 8.0) * SQUARE as f32) as usize + 2;
/// Straightened pixels a ring sample run spans (a label spot's corner is 32).
const RUN: usize = 32;

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
    /// `[x0, y0, x1, y1]`: the pixels inside `region` whose luma was not taken (the
    /// board's middle, for a board seen nearly upright; empty otherwise).
    hole: [usize; 4],
    /// The straightened canvas (`CANVAS` x `CANVAS` grey levels), sampled once in the ring
    /// along its edges where the readers look (see [`in_ring`]); zero inside it.
    ring: Vec<u8>,
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
        let hole = if bounded {
            inner_rectangle(&h, region)
        } else {
            [0; 4]
        };
        let area = |r: [usize; 4]| (r[2] - r[0]) * (r[3] - r[1]);
        let (region, hole) = if bounded && area(region) - area(hole) <= MAX_LUMA_PIXELS {
            (region, hole)
        } else {
            ([0; 4], [0; 4])
        };
        let [x0, y0, x1, y1] = region;
        let raw = img.as_raw();
        let convert = |luma: &mut Vec<f32>, y: usize, xa: usize, xb: usize| {
            let row = &raw[(y * w + xa) * 3..(y * w + xb) * 3];
            luma.extend(
                row.chunks_exact(3)
                    .map(|p| luma_of([p[0], p[1], p[2]].map(f32::from))),
            );
        };
        let mut luma = Vec::with_capacity(area(region));
        for y in y0..y1 {
            if (hole[1]..hole[3]).contains(&y) {
                convert(&mut luma, y, x0, hole[0]);
                luma.resize(luma.len() + hole[2] - hole[0], 0.0);
                convert(&mut luma, y, hole[2], x1);
            } else {
                convert(&mut luma, y, x0, x1);
            }
        }
        let mut board = Straightened {
            img,
            h,
            luma,
            region,
            hole,
            ring: Vec::new(),
        };
        board.ring = board.sample_ring();
        Some(board)
    }

    /// The ring's grey levels, sampled in runs of `RUN` straightened pixels (each run maps
    /// its two ends through the homography exactly and steps in a straight line between).
    fn sample_ring(&self) -> Vec<u8> {
        let mut ring = vec![0u8; CANVAS * CANVAS];
        for (y, row) in ring.chunks_exact_mut(CANVAS).enumerate() {
            let spans = if in_ring(y, 0, CANVAS) {
                [(0, CANVAS), (CANVAS, CANVAS)]
            } else {
                [(0, RING), (CANVAS - RING, CANVAS)]
            };
            for (start, end) in spans {
                for x0 in (start..end).step_by(RUN) {
                    let x1 = (x0 + RUN).min(end);
                    self.sample_row(y, x0, x1, &mut row[x0..x1]);
                }
            }
        }
        ring
    }

    /// Whether the pixels `x0..=x1` x `y0..=y1` all hold their luma.
    fn holds_pixels(&self, [x0, y0, x1, y1]: [usize; 4]) -> bool {
        let [rx0, ry0, rx1, ry1] = self.region;
        let [hx0, hy0, hx1, hy1] = self.hole;
        let in_region = x0 >= rx0 && y0 >= ry0 && x1 < rx1 && y1 < ry1;
        let touches_hole = x1 >= hx0 && x0 < hx1 && y1 >= hy0 && y0 < hy1;
        in_region && !touches_hole
    }

    /// Grey at continuous pixel coordinates, as [`sample_bilinear`] of the colours would
    /// give it (pixel centres at integers, mid-grey outside the picture).
    pub(super) fn sample(&self, x: f32, y: f32) -> f32 {
        if x.is_finite() && y.is_finite() && x >= 0.0 && y >= 0.0 {
            let (xi, yi) = (x as usize, y as usize);
            if self.holds_pixels([xi, yi, xi + 1, yi + 1]) {
                return self.in_region(x, y);
            }
        }
        luma_of(sample_bilinear(self.img, x, y))
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

    /// Grey levels of straightened row `y` from `x0` to `x1` (exclusive): in the ring, those
    /// sampled for it run by run; elsewhere, sampled at the positions of
    /// [`Straightened::row_segment`].
    pub(super) fn gray_row(&self, y: usize, x0: usize, x1: usize, out: &mut Vec<u8>) {
        // The label spots overlap each other and `lined_up`'s bands cover them again: read
        // from the ring, every straightened pixel is sampled once (about 160,000 samples a
        // board instead of 200,000-330,000).
        if x0 <= x1 && in_ring(y, x0, x1) {
            out.extend_from_slice(&self.ring[y * CANVAS + x0..y * CANVAS + x1]);
            return;
        }
        let start = out.len();
        out.resize(start + (x1 - x0), 0);
        self.sample_row(y, x0, x1, &mut out[start..]);
    }

    /// Samples straightened row `y` from `x0` to `x1` (exclusive) into `out`.
    fn sample_row(&self, y: usize, x0: usize, x1: usize, out: &mut [u8]) {
        let segment = self.row_segment(y, x0, x1);
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

    /// Whether the first `len` samples of `segment` all have their four pixels' luma, and
    /// so do points within a pixel of them (the segment is straight: the pixels around the
    /// box of its two ends, widened by a pixel, hold it).
    fn holds_row(&self, segment: &RowSegment, len: usize) -> bool {
        if len == 0 {
            return false;
        }
        let ((ax, ay), (bx, by)) = (segment.at(0), segment.at(len - 1));
        // Pixel coordinates of the samples (centres at integers), a pixel either way.
        let lo = |a: f32, b: f32| a.min(b) - 1.5;
        let hi = |a: f32, b: f32| a.max(b) + 0.5;
        let (x0, y0, x1, y1) = (lo(ax, bx), lo(ay, by), hi(ax, bx), hi(ay, by));
        // (Not a number fails the first two; an infinite far end, the last two.)
        if !(x0 >= 0.0 && y0 >= 0.0 && x1.is_finite() && y1.is_finite()) {
            return false;
        }
        // The box's last pixels are those after its far ends' integer parts.
        let pixels = [x0 as usize, y0 as usize, x1 as usize + 1, y1 as usize + 1];
        self.holds_pixels(pixels)
    }
}

/// `[x0, y0, x1, y1]`: an upright rectangle of pixels in `region`, each farther than
/// [`HOLE_INSET`] of the board's side inside the board (and two pixels more), when the board
/// `h` is seen upright enough for one; else empty.
fn inner_rectangle(h: &crate::quad::Homography, region: [usize; 4]) -> [usize; 4] {
    let (a, b) = (HOLE_INSET, 1.0 - HOLE_INSET);
    let [tl, tr, br, bl] = [[a, a], [b, a], [b, b], [a, b]].map(|p| h.apply(p));
    let inner = Quad([tl, tr, br, bl]);
    // The upright rectangle between the inner square's corners, two pixels in; it lies in
    // the (convex) inner square when its four corners do.
    let x0 = tl[0].max(bl[0]) + 2.0;
    let x1 = tr[0].min(br[0]) - 2.0;
    let y0 = tl[1].max(tr[1]) + 2.0;
    let y1 = bl[1].min(br[1]) - 2.0;
    let corners = [[x0, y0], [x1, y0], [x1, y1], [x0, y1]];
    let fits = x0 < x1 && y0 < y1 && corners.iter().all(|&p| inner.contains(p));
    if !fits || x0 < region[0] as f32 || y0 < region[1] as f32 {
        return [0; 4];
    }
    // The pixels whose centres (at half-integers here) lie in the rectangle, give or take
    // half a pixel at its far sides: all still inside the inner square's two-pixel margin.
    // (Which pixels only decides which samples read the colours instead.)
    let hole = [
        x0.ceil() as usize,
        y0.ceil() as usize,
        (x1.floor() as usize + 1).min(region[2]),
        (y1.floor() as usize + 1).min(region[3]),
    ];
    if hole[0] < hole[2] && hole[1] < hole[3] {
        hole
    } else {
        [0; 4]
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

/// Whether straightened pixels `x0..x1` of row `y` lie in the ring along the canvas's edges.
pub(super) fn in_ring(y: usize, x0: usize, x1: usize) -> bool {
    let far = CANVAS - RING;
    y < CANVAS && x1 <= CANVAS && (y < RING || y >= far || x1 <= RING || x0 >= far)
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
        for scale in [1.0f32, 20.0] {
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
            // The board's middle, whose luma is not taken, is sampled from the colours.
            assert_eq!(board.hole == [0; 4], scale > 1.0, "{:?}", board.hole);
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

    /// A straightened row samples what sampling each of its points reads, whether it lies
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
        assert_ne!(board.hole, [0; 4]);
        let total = ((8.0 + 2.0 * MARGIN) * SQUARE as f32) as usize;
        let (mut fast, mut checked) = (0, 0);
        for y in (0..total).step_by(37) {
            for (x0, x1) in [(0, total), (total / 2, total), (300, 364)] {
                let mut row = vec![0; x1 - x0];
                board.sample_row(y, x0, x1, &mut row);
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

    /// Rows in the ring read the samples taken once for it, run by run; rows off it are
    /// sampled as asked.
    #[test]
    fn ring_rows_read_the_runs_sampled_once() {
        let img = RgbImage::from_fn(300, 260, |x, y| {
            image::Rgb([(x * 7 % 256) as u8, (y * 11 % 256) as u8, 90])
        });
        let quad = Quad([[20.0, 30.0], [250.0, 40.0], [240.0, 250.0], [5.0, 235.0]]);
        let board = Straightened::new(&img, &quad).unwrap();
        let run = |y: usize, x0: usize, x1: usize| {
            let mut row = vec![0; x1 - x0];
            board.sample_row(y, x0, x1, &mut row);
            row
        };
        // Top band, whole width: the runs of `RUN` pixels from the left.
        let mut row = Vec::new();
        board.gray_row(5, 0, CANVAS, &mut row);
        let runs: Vec<u8> = (0..CANVAS)
            .step_by(RUN)
            .flat_map(|x0| run(5, x0, (x0 + RUN).min(CANVAS)))
            .collect();
        assert_eq!(row, runs);
        // The right side's part of a middle row, from part way into a run.
        let (y, right) = (300, CANVAS - RING);
        row.clear();
        board.gray_row(y, right + 10, CANVAS, &mut row);
        let runs: Vec<u8> = (right..CANVAS)
            .step_by(RUN)
            .flat_map(|x0| run(y, x0, (x0 + RUN).min(CANVAS)))
            .collect();
        assert_eq!(row, runs[10..]);
        // The middle of a middle row is not in the ring: sampled as asked.
        row.clear();
        board.gray_row(y, 250, 330, &mut row);
        assert!(!in_ring(y, 250, 330));
        assert_eq!(row, run(y, 250, 330));
    }
}
