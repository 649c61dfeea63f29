//! Finding the board: X-corners (where four squares meet) on a regular 7x7 lattice, then a
//! homography from lattice indices to pixels gives the four outer corners. Works for
//! screenshots with clutter, cropped boards, hatched book diagrams and moderate perspective.

mod refine;
pub mod saddle;
mod tone;

use image::{GrayImage, RgbImage};
use serde::{Deserialize, Serialize};

use crate::quad::{Homography, Point, Quad, dist};
use crate::squares::block_starts;
use saddle::{Integral, Kernel, Saddle, saddles};
use tone::{settle_window, square_contrast};

/// Board finder settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FinderConfig {
    /// Detection runs on the image shrunk to at most this many pixels a side. Default 1024.
    pub max_side: u32,
    /// Quadrant sizes tried, in detection pixels (about a third to a half of a square).
    pub scales: Vec<usize>,
    /// Weakest X-corner kept, in grey levels. Default 5.
    pub min_score: f32,
    /// Fewest of the 49 inner corners that must be found on the lattice. Default 22.
    pub min_corners: usize,
    /// Strongest X-corners kept per scale. Default 500.
    pub max_points: usize,
    /// Smallest light/dark square contrast (see [`FoundBoard::square_contrast`]) of a board.
    /// Default 0.35 (noise scores under 0.2; the weakest real board seen, a faded scan, 0.59).
    pub min_square_contrast: f32,
}

impl Default for FinderConfig {
    fn default() -> Self {
        FinderConfig {
            max_side: 1024,
            scales: vec![3, 4, 6, 8, 11, 15, 20, 27, 36],
            min_score: 5.0,
            min_corners: 22,
            max_points: 500,
            min_square_contrast: 0.35,
        }
    }
}

/// No board in the image.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error(
    "no chess board found (best candidate: {best} of 49 inner corners on a lattice, {needed} needed)"
)]
pub struct BoardNotFound {
    /// Inner corners of the best candidate.
    pub best: usize,
    /// Inner corners required.
    pub needed: usize,
}

impl BoardNotFound {
    fn new(best: usize, needed: usize) -> BoardNotFound {
        BoardNotFound { best, needed }
    }
}

/// A found board.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FoundBoard {
    /// Outer corners in image order (top-left, top-right, bottom-right, bottom-left).
    pub quad: Quad,
    /// How many of the 49 inner corners were found on the fitted lattice.
    pub inner_corners: usize,
    /// How clearly light and dark squares differ: the gap between the two square colours
    /// over their spread (near the square edges, where pieces rarely reach).
    pub square_contrast: f32,
}

/// Greyscale and shrink so the longer side is at most `max_side`; returns the scale factor
/// from detection pixels to image pixels. One pass: each source pixel's luma (Rec. 709
/// weights, in integers) is added to the detection pixel it falls in, then averaged.
fn prepare(img: &RgbImage, max_side: u32) -> (GrayImage, f32, f32) {
    let (w, h) = img.dimensions();
    let longest = w.max(h).max(1);
    let f = (max_side as f32 / longest as f32).min(1.0);
    let (sw, sh) = (
        ((w as f32 * f) as u32).clamp(1, w.max(1)),
        ((h as f32 * f) as u32).clamp(1, h.max(1)),
    );
    let luma = |p: &[u8]| 54 * p[0] as u32 + 183 * p[1] as u32 + 19 * p[2] as u32;
    let raw = img.as_raw();
    if (sw, sh) == (w, h) {
        let gray = raw.chunks_exact(3).map(|p| (luma(p) >> 8) as u8).collect();
        let gray = GrayImage::from_raw(w, h, gray).expect("one byte a pixel");
        return (gray, 1.0, 1.0);
    }
    // Detection pixel (c, r) averages source columns cols[c]..cols[c + 1] and rows
    // rows[r]..rows[r + 1].
    let (cols, rows) = (
        block_starts(w as usize, sw as usize),
        block_starts(h as usize, sh as usize),
    );
    let mut gray = vec![0u8; (sw * sh) as usize];
    // One detection row at a time: sums of luma over its band of source rows (u32 is ample:
    // a cell averages far fewer than 2^16 pixels for any image the decoder accepts).
    // The band's luma is summed per source column first (long loops on vector lanes),
    // then over each detection pixel's run of columns: the same integer sums.
    let mut sums = vec![0u32; sw as usize];
    let mut column_sums = vec![0u32; w as usize];
    for (ty, out) in gray.chunks_exact_mut(sw as usize).enumerate() {
        column_sums.fill(0);
        for row in raw[rows[ty] * 3 * w as usize..rows[ty + 1] * 3 * w as usize]
            .chunks_exact(3 * w as usize)
        {
            for (acc, p) in column_sums.iter_mut().zip(row.chunks_exact(3)) {
                *acc += luma(p);
            }
        }
        for (c, sum) in sums.iter_mut().enumerate() {
            *sum = column_sums[cols[c]..cols[c + 1]].iter().sum();
        }
        let band = (rows[ty + 1] - rows[ty]).max(1) as u32;
        for (c, (o, &sum)) in out.iter_mut().zip(&sums).enumerate() {
            let width = (cols[c + 1] - cols[c]).max(1) as u32;
            *o = (sum / (256 * band * width)).min(255) as u8;
        }
    }
    let small = GrayImage::from_raw(sw, sh, gray).expect("one byte a pixel");
    (small, w as f32 / sw as f32, h as f32 / sh as f32)
}

struct Lattice {
    count: usize,
    spacing: f32,
    /// (i, j) in 0..7 and the point.
    members: Vec<([f32; 2], Point)>,
}

impl Lattice {
    /// Whether this lattice is a better board than `other`: a clearly larger board unless it
    /// has far fewer corners (a thumbnail beside the main board, clean while the main one is
    /// covered by arrows), otherwise more corners; on a tie the wider one (the squares rather
    /// than a pattern inside them). Among equals the first found stays: scales go from fine
    /// to coarse, and a finer scale places corners more precisely.
    fn beats(&self, other: &Lattice) -> bool {
        const LARGER: f32 = 1.4;
        const SLACK: usize = 10;
        if self.spacing > LARGER * other.spacing && self.count + SLACK >= other.count {
            return true;
        }
        if other.spacing > LARGER * self.spacing && other.count + SLACK >= self.count {
            return false;
        }
        self.count > other.count
            || (self.count == other.count && self.spacing > 1.3 * other.spacing)
    }
}

/// Finds the board in `img`.
pub fn find(img: &RgbImage, cfg: &FinderConfig) -> Result<FoundBoard, BoardNotFound> {
    let (gray, fx, fy) = prepare(img, cfg.max_side);
    let integral = Integral::new(&gray);
    // Upright corners first; a board turned by around 45 degrees only shows its corners to
    // the diagonal kernel, which is tried when the upright one finds nothing.
    match find_with(&integral, Kernel::Upright, (fx, fy), cfg) {
        Ok(found) => Ok(found),
        Err(upright) => find_with(&integral, Kernel::Diagonal, (fx, fy), cfg).map_err(|diagonal| {
            if diagonal.best > upright.best {
                diagonal
            } else {
                upright
            }
        }),
    }
}

fn find_with(
    integral: &Integral,
    kernel: Kernel,
    (fx, fy): (f32, f32),
    cfg: &FinderConfig,
) -> Result<FoundBoard, BoardNotFound> {
    let mut best: Option<(Lattice, usize)> = None;
    // Coarse to fine. The fine scales cost the most (a response at every pixel) and are
    // only needed for small boards: once a clear lattice is found (most of its 49 corners;
    // arrows and pieces hide a few), scales down to half its size are still tried (a finer
    // kernel places the same corners more precisely), no further; after any acceptable
    // lattice, scales down to a third of its size (a board's corners answer over a range
    // of kernel sizes; far finer ones only find the pattern inside the squares).
    for &q in cfg.scales.iter().rev() {
        if best.as_ref().is_some_and(|(b, found_at)| {
            (b.count >= CLEAR_LATTICE && 2 * q < *found_at)
                || (b.count >= cfg.min_corners && 3 * q < *found_at)
        }) {
            break;
        }
        let pts = saddles(integral, q, cfg.min_score, cfg.max_points, kernel);
        if pts.len() < cfg.min_corners {
            continue;
        }
        if let Some(l) = best_lattice(&pts, q, kernel, cfg) {
            // The lattice grown from the best seed through a homography (it follows
            // perspective and skips weak points off the board), unless the affine lattice
            // of that seed explains more than a row of corners more.
            let (l, seed) = l;
            let grown = grow_lattice(&seed, &pts);
            let l = if grown.count + 7 >= l.count { grown } else { l };
            // On a tie the finer scale wins unless its lattice is clearly narrower (a
            // pattern inside the squares rather than the squares).
            let better = match &best {
                None => true,
                Some((b, _)) => l.beats(b) || (l.count == b.count && 1.3 * l.spacing >= b.spacing),
            };
            if better {
                let found_at = match &best {
                    Some((b, at)) if b.count >= CLEAR_LATTICE && l.count >= CLEAR_LATTICE => *at,
                    _ => q,
                };
                best = Some((l, found_at));
            }
        }
    }
    let best = best.map(|(lattice, _)| lattice);
    let found = best.as_ref().map(|b| b.count).unwrap_or(0);
    let Some(lattice) = best.filter(|b| b.count >= cfg.min_corners) else {
        return Err(BoardNotFound {
            best: found,
            needed: cfg.min_corners,
        });
    };
    let (src, dst): (Vec<Point>, Vec<Point>) = lattice.members.iter().cloned().unzip();
    let h = Homography::fit(&src, &dst).ok_or(BoardNotFound {
        best: found,
        needed: cfg.min_corners,
    })?;
    let blur = (lattice.spacing * 0.08).max(1.0) as usize;
    // The lattice may sit a row off the board when corners hide along one edge and labels
    // or a frame mimic corners along the other; the squares' colours settle it.
    let offset = settle_window(integral, &h, blur);
    // Every inner corner looked for again with a kernel sized to its own squares.
    let h = refine::refine(integral, &h, offset, kernel, cfg.min_score).unwrap_or(h);
    let square_contrast = square_contrast(integral, &h, offset, blur);
    let corners = [[-1.0, -1.0], [7.0, -1.0], [7.0, 7.0], [-1.0, 7.0]].map(|p| {
        let q = h.apply([p[0] + offset[0], p[1] + offset[1]]);
        [q[0] * fx, q[1] * fy]
    });
    let quad = Quad(corners);
    // Sheared further than any photographed board: a pattern of something else.
    if !quad.is_convex() || quad.min_angle() < MIN_CORNER_ANGLE {
        return Err(BoardNotFound::new(found, cfg.min_corners));
    }
    // A lattice of X-corners can appear by chance in noise or texture; a board also has
    // two clearly different square colours in a checker pattern.
    // Turned boards are rare and grids of blocks (text) look like turned boards to the
    // diagonal kernel: they need more corners or clearer squares.
    let weak_turned = kernel == Kernel::Diagonal
        && lattice.count < TURNED_MIN_CORNERS
        && square_contrast < TURNED_MIN_CONTRAST;
    // A nearly complete lattice is no accident: its squares may be fainter (dotted print
    // shrunk to a few pixels a dot averages to a pale grey).
    let min_contrast = if lattice.count >= CLEAR_LATTICE {
        cfg.min_square_contrast * CLEAR_LATTICE_CONTRAST
    } else {
        cfg.min_square_contrast
    };
    if square_contrast < min_contrast || weak_turned {
        return Err(BoardNotFound::new(found, cfg.min_corners));
    }
    Ok(FoundBoard {
        quad,
        inner_corners: lattice.count,
        square_contrast,
    })
}

/// The best 7x7 lattice through the points. Each of the strongest points seeds lattices
/// from pairs of its four nearest opposite-parity neighbours, which fits squashed and
/// slanted boards, plus square lattices from each neighbour alone (when the other is
/// hidden).
fn best_lattice(
    pts: &[Saddle],
    q: usize,
    kernel: Kernel,
    cfg: &FinderConfig,
) -> Option<(Lattice, Seed)> {
    let q = q as f32;
    let seeds = pts.len().min(160);
    let mut best: Option<(Lattice, Seed)> = None;
    let consider = |best: &mut Option<(Lattice, Seed)>, l: Option<Lattice>, seed: Seed| {
        // The diagonal kernel is for turned boards (both axes off the horizontal and the
        // vertical); on an upright grid of blocks (text, tables) it answers between the
        // blocks, which is no board.
        // The upright kernel cannot see a board turned by 45 degrees, so a lattice it finds
        // at that angle is a pattern of something else (lines of text on a turned page).
        let turn = |a: [f32; 2]| a[0].abs().min(a[1].abs()).atan2(a[0].abs().max(a[1].abs()));
        let fits = match kernel {
            Kernel::Upright => turn(seed.u).max(turn(seed.v)) <= MAX_UPRIGHT_TURN,
            Kernel::Diagonal => turn(seed.u).min(turn(seed.v)) >= MIN_DIAGONAL_TURN,
        };
        if !fits {
            return;
        }
        if let Some(l) = l
            && l.count >= cfg.min_corners.min(12)
            && best.as_ref().is_none_or(|(b, _)| l.beats(b))
        {
            *best = Some((l, seed));
        }
    };
    for a in &pts[..seeds] {
        // A corner of the best lattice so far would seed that lattice again.
        if best
            .as_ref()
            .is_some_and(|(b, _)| b.members.iter().any(|(_, p)| p[0] == a.x && p[1] == a.y))
        {
            continue;
        }
        // The nearest opposite-parity corners at a square's distance: (distance, offset).
        let mut near: Vec<(f32, [f32; 2])> = Vec::new();
        for b in pts {
            if b.parity == a.parity {
                continue;
            }
            let d = [b.x - a.x, b.y - a.y];
            let s = (d[0] * d[0] + d[1] * d[1]).sqrt();
            if (1.6 * q..=5.0 * q).contains(&s) {
                keep_nearest(&mut near, (s, d), 4);
            }
        }
        let try_axes = |best: &mut Option<(Lattice, Seed)>, (u, v): ([f32; 2], [f32; 2])| {
            consider(best, lattice_from(a, u, v, pts), Seed { origin: *a, u, v });
        };
        for (n, &(su, u)) in near.iter().enumerate() {
            // A square lattice from one neighbour (the other one may be hidden).
            try_axes(&mut best, upright(u, [-u[1], u[0]]));
            for &(sv, v) in &near[n + 1..] {
                // Two neighbours span a slanted or squashed lattice, unless they are too
                // unequal or too close to parallel.
                let cross = u[0] * v[1] - u[1] * v[0];
                if sv > 2.0 * su || su > 2.0 * sv || cross.abs() < 0.5 * su * sv {
                    continue;
                }
                try_axes(
                    &mut best,
                    if cross > 0.0 {
                        upright(u, v)
                    } else {
                        upright(v, u)
                    },
                );
            }
        }
    }
    best
}

/// Keeps the `n` nearest entries of `list`.
fn keep_nearest(list: &mut Vec<(f32, [f32; 2])>, item: (f32, [f32; 2]), n: usize) {
    list.push(item);
    list.sort_by(|a, b| a.0.total_cmp(&b.0));
    list.truncate(n);
}

/// Of the four ways to name the axes of a lattice spanned by `u` and `v` (with `v` a
/// clockwise quarter turn from `u` on screen), the one whose first axis points most to the
/// right: boards are read within 45 degrees of upright.
fn upright(u: [f32; 2], v: [f32; 2]) -> ([f32; 2], [f32; 2]) {
    let neg = |p: [f32; 2]| [-p[0], -p[1]];
    [(u, v), (v, neg(u)), (neg(u), neg(v)), (neg(v), u)]
        .into_iter()
        .max_by(|a, b| a.0[0].total_cmp(&b.0[0]))
        .unwrap_or((u, v))
}

fn lattice_from(origin: &Saddle, u: [f32; 2], v: [f32; 2], pts: &[Saddle]) -> Option<Lattice> {
    let det = u[0] * v[1] - u[1] * v[0];
    if det.abs() < 1e-6 {
        return None;
    }
    // Points near a node of the lattice (u, v) through the origin, with the checker parity
    // (neighbouring corners alternate).
    let mut cells = Vec::new();
    for p in pts {
        let (rx, ry) = (p.x - origin.x, p.y - origin.y);
        let a = (rx * v[1] - ry * v[0]) / det;
        let b = (u[0] * ry - u[1] * rx) / det;
        let (ia, ib) = (a.round(), b.round());
        if (a - ia).abs() > 0.18 || (b - ib).abs() > 0.18 || ia.abs() > 8.0 || ib.abs() > 8.0 {
            continue;
        }
        let (i, j) = (ia as i32, ib as i32);
        let expected = if (i + j).rem_euclid(2) == 0 {
            origin.parity
        } else {
            -origin.parity
        };
        if p.parity == expected {
            cells.push((i, j, p));
        }
    }
    let mut lattice = best_window(&cells);
    lattice.spacing = (u[0] * u[0] + u[1] * u[1]).sqrt();
    Some(lattice)
}

/// The 7x7 window of lattice nodes holding most points (one point per node: the first).
fn best_window(cells: &[(i32, i32, &Saddle)]) -> Lattice {
    // Occupancy of nodes -8..=8 and its 2-D prefix sums: each window costs four lookups.
    const N: usize = 17;
    let mut occupied = [[0u32; N]; N];
    for &(i, j, _) in cells {
        occupied[(i + 8) as usize][(j + 8) as usize] = 1;
    }
    let mut prefix = [[0u32; N + 1]; N + 1];
    for a in 0..N {
        for b in 0..N {
            prefix[a + 1][b + 1] =
                occupied[a][b] + prefix[a][b + 1] + prefix[a + 1][b] - prefix[a][b];
        }
    }
    let window = |i0: i32, j0: i32| {
        let (a0, b0) = ((i0 + 8) as usize, (j0 + 8) as usize);
        (prefix[a0 + 7][b0 + 7] + prefix[a0][b0] - prefix[a0][b0 + 7] - prefix[a0 + 7][b0]) as usize
    };
    let mut best = (0usize, 0i32, 0i32);
    for i0 in -8..=2 {
        for j0 in -8..=2 {
            let count = window(i0, j0);
            if count > best.0 {
                best = (count, i0, j0);
            }
        }
    }
    let (count, i0, j0) = best;
    let mut members: Vec<([f32; 2], Point)> = Vec::new();
    let mut taken = [[false; 7]; 7];
    for &(i, j, p) in cells {
        let (ci, cj) = (i - i0, j - j0);
        if (0..7).contains(&ci) && (0..7).contains(&cj) && !taken[ci as usize][cj as usize] {
            taken[ci as usize][cj as usize] = true;
            members.push(([ci as f32, cj as f32], [p.x, p.y]));
        }
    }
    Lattice {
        count,
        spacing: 0.0,
        members,
    }
}

/// A board found by the diagonal kernel needs this many corners or this square contrast.
const TURNED_MIN_CORNERS: usize = 36;
const TURNED_MIN_CONTRAST: f32 = 1.0;

/// Inner corners that make a lattice clear enough to stop searching finer scales.
const CLEAR_LATTICE: usize = 40;
/// Share of the usual square contrast a clear lattice needs.
const CLEAR_LATTICE_CONTRAST: f32 = 0.6;

/// Smallest interior angle (degrees) of a found board.
const MIN_CORNER_ANGLE: f32 = 45.0;

/// Smallest turn (radians) of a board found with the diagonal kernel.
const MIN_DIAGONAL_TURN: f32 = 15.0 * std::f32::consts::PI / 180.0;
/// Largest turn (radians) of a board found with the upright kernel.
const MAX_UPRIGHT_TURN: f32 = 38.0 * std::f32::consts::PI / 180.0;

/// Weakest corner grown into a lattice, relative to the median of its corners so far.
const WEAK_CORNER: f32 = 0.3;

/// Where a lattice search started: a corner and the steps to its neighbours.
#[derive(Clone, Copy, Debug)]
struct Seed {
    origin: Saddle,
    u: [f32; 2],
    v: [f32; 2],
}

/// Grows a lattice from its seed ring by ring: each round predicts the nodes next to the
/// ones found (through a homography fitted to them once there are enough, so perspective
/// is followed) and takes the nearest corner of the right parity near each prediction.
/// Unlike one affine guess for the whole board, a step is never longer than one square, so
/// far corners of a board in strong perspective are not assigned to the wrong node.
fn grow_lattice(seed: &Seed, pts: &[Saddle]) -> Lattice {
    use std::collections::BTreeMap;
    let spacing = (seed.u[0] * seed.u[0] + seed.u[1] * seed.u[1]).sqrt();
    let mut nodes: BTreeMap<(i32, i32), usize> = BTreeMap::new();
    let mut used = vec![false; pts.len()];
    if let Some(k) = pts
        .iter()
        .position(|p| p.x == seed.origin.x && p.y == seed.origin.y)
    {
        nodes.insert((0, 0), k);
        used[k] = true;
    }
    let parity = |i: i32, j: i32| {
        if (i + j).rem_euclid(2) == 0 {
            seed.origin.parity
        } else {
            -seed.origin.parity
        }
    };
    let affine = |i: i32, j: i32| -> Point {
        let (i, j) = (i as f32, j as f32);
        [
            seed.origin.x + i * seed.u[0] + j * seed.v[0],
            seed.origin.y + i * seed.u[1] + j * seed.v[1],
        ]
    };
    for _ in 0..16 {
        let bounds = |f: fn(&(i32, i32)) -> i32| {
            let vals = nodes.keys().map(f);
            (vals.clone().min().unwrap_or(0), vals.max().unwrap_or(0))
        };
        let (imin, imax) = bounds(|k| k.0);
        let (jmin, jmax) = bounds(|k| k.1);
        let homography = if nodes.len() >= 6 && imax - imin >= 2 && jmax - jmin >= 2 {
            let (src, dst): (Vec<Point>, Vec<Point>) = nodes
                .iter()
                .map(|(&(i, j), &k)| ([i as f32, j as f32], [pts[k].x, pts[k].y]))
                .unzip();
            Homography::fit(&src, &dst)
        } else {
            None
        };
        // Real corners of one board respond alike; a much weaker point near a predicted
        // node is a coordinate label or frame just outside the board.
        let mut scores: Vec<f32> = nodes.values().map(|&k| pts[k].score).collect();
        scores.sort_by(f32::total_cmp);
        let min_score = scores.get(scores.len() / 2).copied().unwrap_or(0.0) * WEAK_CORNER;
        let predict = |i: i32, j: i32| match &homography {
            Some(h) => h.apply([i as f32, j as f32]),
            None => affine(i, j),
        };
        let mut added: Vec<((i32, i32), usize)> = Vec::new();
        for i in imin - 1..=imax + 1 {
            for j in jmin - 1..=jmax + 1 {
                // Unknown, next to a known node, and within 9 x 9 nodes: the 7 x 7 inner
                // corners and a ring of points just off the board (labels, frame, image
                // edge) that the final window leaves out.
                if nodes.contains_key(&(i, j))
                    || imax.max(i) - imin.min(i) > 8
                    || jmax.max(j) - jmin.min(j) > 8
                    || !(-1..=1).any(|di| (-1..=1).any(|dj| nodes.contains_key(&(i + di, j + dj))))
                {
                    continue;
                }
                let p = predict(i, j);
                let step = dist(p, predict(i + 1, j)).min(dist(p, predict(i, j + 1)));
                if !step.is_finite() || step < 0.3 * spacing {
                    continue;
                }
                let want = parity(i, j);
                let nearest = pts
                    .iter()
                    .enumerate()
                    .filter(|(k, s)| !used[*k] && s.parity == want && s.score >= min_score)
                    .map(|(k, s)| (k, dist(p, [s.x, s.y])))
                    .min_by(|a, b| a.1.total_cmp(&b.1));
                if let Some((k, d)) = nearest
                    && d < 0.2 * step
                {
                    added.push(((i, j), k));
                }
            }
        }
        let mut grew = false;
        for (key, k) in added {
            if !used[k] {
                used[k] = true;
                nodes.insert(key, k);
                grew = true;
            }
        }
        if !grew {
            break;
        }
    }
    // Node coordinates from -4 so that the window search (nodes -8..=8) covers them all.
    let imin = nodes.keys().map(|k| k.0).min().unwrap_or(0);
    let jmin = nodes.keys().map(|k| k.1).min().unwrap_or(0);
    let cells: Vec<(i32, i32, &Saddle)> = nodes
        .iter()
        .map(|(&(i, j), &k)| (i - imin - 4, j - jmin - 4, &pts[k]))
        .collect();
    let mut lattice = best_window(&cells);
    lattice.spacing = spacing;
    lattice
}
