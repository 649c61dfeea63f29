//! X-corner (saddle) detection: where four squares meet, diagonally opposite quadrants agree
//! and neighbouring ones differ. Box means from an integral image make each scale O(pixels)
//! and blur away hatching, dots and thin piece outlines.

use image::GrayImage;

/// Integral image of a greyscale picture (one extra row and column of zeros).
pub struct Integral {
    w: usize,
    h: usize,
    sums: Vec<u64>,
}

impl Integral {
    /// Builds the integral image.
    pub fn new(img: &GrayImage) -> Integral {
        let (w, h) = (img.width() as usize, img.height() as usize);
        let stride = w + 1;
        let mut sums = vec![0u64; stride * (h + 1)];
        let raw = img.as_raw();
        for y in 0..h {
            // Row y + 1 is row y plus the running sum of image row y (slices, so the loop
            // carries no index arithmetic or bounds checks).
            let (done, rest) = sums.split_at_mut((y + 1) * stride);
            let above = &done[y * stride + 1..];
            let here = &mut rest[1..stride];
            let mut row = 0u64;
            for ((out, &up), &v) in here.iter_mut().zip(above).zip(&raw[y * w..(y + 1) * w]) {
                row += u64::from(v);
                *out = up + row;
            }
        }
        Integral { w, h, sums }
    }

    /// Width of the image.
    pub fn width(&self) -> usize {
        self.w
    }

    /// Height of the image.
    pub fn height(&self) -> usize {
        self.h
    }

    /// Sums of every `q` x `q` box, indexed by its top-left corner (row length `w + 1 - q`).
    pub fn box_sums(&self, q: usize) -> Vec<u32> {
        let (bw, bh) = (
            (self.w + 1).saturating_sub(q),
            (self.h + 1).saturating_sub(q),
        );
        let stride = self.w + 1;
        let mut out = Vec::with_capacity(bw * bh);
        for y in 0..bh {
            let (top, bottom) = (&self.sums[y * stride..], &self.sums[(y + q) * stride..]);
            let left = top[..bw].iter().zip(&bottom[..bw]);
            let right = top[q..q + bw].iter().zip(&bottom[q..q + bw]);
            out.extend(
                left.zip(right)
                    .map(|((&tl, &bl), (&tr, &br))| (br + tl - bl - tr) as u32),
            );
        }
        out
    }

    /// Mean of the box `[x0, x1) x [y0, y1)` (caller keeps it inside the image).
    #[inline]
    pub fn mean(&self, x0: usize, y0: usize, x1: usize, y1: usize) -> f32 {
        let s = |x: usize, y: usize| self.sums[y * (self.w + 1) + x];
        let total = s(x1, y1) + s(x0, y0) - s(x1, y0) - s(x0, y1);
        total as f32 / ((x1 - x0) * (y1 - y0)) as f32
    }
}

/// A candidate X-corner.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Saddle {
    /// Position (pixel corner coordinates: the point between pixels).
    pub x: f32,
    /// Position.
    pub y: f32,
    /// Strength (grey levels).
    pub score: f32,
    /// +1 when the top-left/bottom-right quadrants are the brighter pair, -1 otherwise.
    pub parity: i8,
}

/// How the four regions around a candidate corner are placed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kernel {
    /// Four quadrants (top-left, top-right, bottom-right, bottom-left): boards within about
    /// 30 degrees of upright.
    Upright,
    /// Four regions above, right, below and left: boards turned by about 45 degrees, where
    /// every upright quadrant straddles two squares.
    Diagonal,
}

/// The saddle response at `(x, y)` (caller keeps the boxes inside the image) and its
/// parity; `square(x0, y0)` is the mean of the `q` x `q` box with that top-left corner.
pub(crate) fn kernel_response(
    kernel: Kernel,
    q: usize,
    x: usize,
    y: usize,
    square: &impl Fn(usize, usize) -> f32,
) -> (f32, i8) {
    response_with(box_offsets(kernel, q), x, y, square)
}

/// [`kernel_response`] for boxes at the given offsets (see [`box_offsets`]).
pub(crate) fn response_with(
    offsets: [(isize, isize); 4],
    x: usize,
    y: usize,
    square: &impl Fn(usize, usize) -> f32,
) -> (f32, i8) {
    // (a, c) and (b, d) are the two pairs that should agree.
    saddle_score(
        offsets.map(|(dx, dy)| square((x as isize + dx) as usize, (y as isize + dy) as usize)),
    )
}

/// The X-corner score of four quadrant means in the order top-left, top-right,
/// bottom-right, bottom-left (or along a turned lattice's axes): the contrast between the
/// two diagonal pairs, less how much each pair disagrees within itself; and which pair is
/// the brighter (the checker's phase).
pub(crate) fn saddle_score([a, b, c, d]: [f32; 4]) -> (f32, i8) {
    let diff = (a + c - b - d) / 2.0;
    let r = diff.abs() - (a - c).abs() - (b - d).abs();
    (r, if diff > 0.0 { 1 } else { -1 })
}

/// Top-left corners of the four boxes `(a, b, c, d)` of [`kernel_response`], relative to
/// the point, as offsets to add (they are never below `-margin`).
pub(crate) fn box_offsets(kernel: Kernel, q: usize) -> [(isize, isize); 4] {
    let (q, gap, half) = (q as isize, (q / 6) as isize, (q / 2) as isize);
    match kernel {
        Kernel::Upright => [
            (-q - gap, -q - gap),
            (gap, -q - gap),
            (gap, gap),
            (-q - gap, gap),
        ],
        Kernel::Diagonal => [
            (-half, -q - half),
            (half, -half),
            (-half, half),
            (-q - half, -half),
        ],
    }
}

/// The clipped response on the `gw` x `gh` grid of step `step` starting at
/// `(margin, margin)`, from the tabulated box sums: the same arithmetic as
/// [`kernel_response`], written over whole rows of sums so it vectorises (the finest
/// scales, where this runs, are most of the finder's time).
fn dense_grid(
    table: &[u32],
    table_w: usize,
    kernel: Kernel,
    q: usize,
    margin: usize,
    step: usize,
    (gw, gh): (usize, usize),
) -> Vec<f32> {
    let area = (q * q) as f32;
    let offsets = box_offsets(kernel, q);
    let mut grid = vec![0f32; gw * gh];
    if gw == 0 {
        return grid;
    }
    let response = |a: u32, b: u32, c: u32, d: u32| {
        let (a, b, c, d) = (
            a as f32 / area,
            b as f32 / area,
            c as f32 / area,
            d as f32 / area,
        );
        let diff = (a + c - b - d) / 2.0;
        (diff.abs() - (a - c).abs() - (b - d).abs()).max(0.0)
    };
    for (j, out) in grid.chunks_exact_mut(gw).enumerate() {
        let y = margin + j * step;
        let row = |k: usize| {
            let (dx, dy) = offsets[k];
            let start = (y as isize + dy) as usize * table_w + (margin as isize + dx) as usize;
            &table[start..start + (gw - 1) * step + 1]
        };
        let (ra, rb, rc, rd) = (row(0), row(1), row(2), row(3));
        if step == 1 {
            // Plain slices (a strided iterator does not vectorise).
            for ((((o, &a), &b), &c), &d) in out.iter_mut().zip(ra).zip(rb).zip(rc).zip(rd) {
                *o = response(a, b, c, d);
            }
        } else {
            let (ra, rb, rc, rd) = (
                ra.iter().step_by(step),
                rb.iter().step_by(step),
                rc.iter().step_by(step),
                rd.iter().step_by(step),
            );
            for ((((o, &a), &b), &c), &d) in out.iter_mut().zip(ra).zip(rb).zip(rc).zip(rd) {
                *o = response(a, b, c, d);
            }
        }
    }
    grid
}

/// Saddle points at quadrant size `q` pixels: response on a grid of step `q/4`, non-maximum
/// suppression there, each maximum refined to the best pixel around it; the `limit`
/// strongest above `min_score`. The coarse grid keeps large scales cheap: a square is at
/// least 2q pixels, so a corner cannot hide between grid points.
pub fn saddles(
    integral: &Integral,
    q: usize,
    min_score: f32,
    limit: usize,
    kernel: Kernel,
) -> Vec<Saddle> {
    let (w, h) = (integral.w, integral.h);
    let gap = q / 6;
    let half = q / 2;
    let margin = match kernel {
        Kernel::Upright => q + gap,
        Kernel::Diagonal => q + half,
    };
    if w < 2 * margin + 2 || h < 2 * margin + 2 {
        return Vec::new();
    }
    let step = (q / 4).max(1);
    // Every response reads four q x q boxes. At the fine scales, where responses are taken
    // at every pixel or every other one, the box sums are tabulated once (4 reads a
    // response instead of 16).
    let table = (step <= 2).then(|| integral.box_sums(q));
    let table_w = w + 1 - q;
    let area = (q * q) as f32;
    let square = |x0: usize, y0: usize| -> f32 {
        match &table {
            Some(t) => t[y0 * table_w + x0] as f32 / area,
            None => integral.mean(x0, y0, x0 + q, y0 + q),
        }
    };
    let response = |x: usize, y: usize| kernel_response(kernel, q, x, y, &square);
    let xs: Vec<usize> = (margin..w - margin).step_by(step).collect();
    let ys: Vec<usize> = (margin..h - margin).step_by(step).collect();
    let (gw, gh) = (xs.len(), ys.len());
    let grid = match &table {
        Some(t) => dense_grid(t, table_w, kernel, q, margin, step, (gw, gh)),
        None => {
            let mut grid = vec![0f32; gw * gh];
            for (j, &y) in ys.iter().enumerate() {
                for (i, &x) in xs.iter().enumerate() {
                    grid[j * gw + i] = response(x, y).0.max(0.0);
                }
            }
            grid
        }
    };
    let radius = ((q / 2) / step).max(1);
    let mut out = Vec::new();
    for j in 0..gh {
        for i in 0..gw {
            let v = grid[j * gw + i];
            if v < min_score * 0.5 {
                continue;
            }
            let mut is_max = true;
            'nms: for jj in j.saturating_sub(radius)..(j + radius + 1).min(gh) {
                for ii in i.saturating_sub(radius)..(i + radius + 1).min(gw) {
                    let o = grid[jj * gw + ii];
                    if o > v || (o == v && (jj, ii) < (j, i)) {
                        is_max = false;
                        break 'nms;
                    }
                }
            }
            if !is_max {
                continue;
            }
            // Refine at full resolution around the grid point.
            let (cx, cy) = (xs[i], ys[j]);
            let (mut best_r, mut bx, mut by, mut bs) = (f32::MIN, cx, cy, 0i8);
            for y in cy.saturating_sub(step).max(margin)..(cy + step + 1).min(h - margin) {
                for x in cx.saturating_sub(step).max(margin)..(cx + step + 1).min(w - margin) {
                    let (r, sign) = response(x, y);
                    if r > best_r {
                        (best_r, bx, by, bs) = (r, x, y, sign);
                    }
                }
            }
            if best_r >= min_score {
                out.push(Saddle {
                    x: bx as f32,
                    y: by as f32,
                    score: best_r,
                    parity: bs,
                });
            }
        }
    }
    // Two grid maxima can refine onto the same corner: keep the stronger.
    out.sort_by(|a, b| b.score.total_cmp(&a.score));
    // Kept points by cell of side q/2 + 1: a point within q/2 of another (both on whole
    // pixels) is in the same or a neighbouring cell.
    let cell = (q / 2 + 1) as i64;
    let mut cells: std::collections::HashMap<(i64, i64), Vec<Saddle>> = Default::default();
    let mut kept: Vec<Saddle> = Vec::new();
    for p in out {
        let (cx, cy) = (p.x as i64 / cell, p.y as i64 / cell);
        let clear = (-1..=1).all(|dy| {
            (-1..=1).all(|dx| {
                cells.get(&(cx + dx, cy + dy)).is_none_or(|v| {
                    v.iter().all(|k| {
                        (k.x - p.x).abs() > (q / 2) as f32 || (k.y - p.y).abs() > (q / 2) as f32
                    })
                })
            })
        });
        if clear {
            cells.entry((cx, cy)).or_default().push(p);
            kept.push(p);
            if kept.len() >= limit {
                break;
            }
        }
    }
    kept
}
