//! The 7x7 lattice of inner corners: seeded from a strong corner and its neighbours, fitted
//! as an affine grid or grown ring by ring through a homography, and the 7x7 window of
//! it that is the board.

use super::FinderConfig;
use super::saddle::{Kernel, Saddle};
use crate::quad::{Homography, Point, dist};

mod strays;

#[derive(Clone)]
pub(super) struct Lattice {
    pub(super) count: usize,
    /// The length of its first step (along the axis nearest the horizontal).
    pub(super) spacing: f32,
    /// The length of its longer step.
    longer_step: f32,
    /// The area of one of its cells, in pixels.
    cell: f32,
    /// (i, j) in 0..7 and the point.
    pub(super) members: Vec<([f32; 2], Point)>,
}

impl Lattice {
    /// Whether this lattice is a better board than `other`: not when it is `other` with
    /// strays between its corners (see [`Lattice::strays_of`]); a clearly larger board unless
    /// it has far fewer corners (a thumbnail beside the main board, clean while the main one
    /// is covered by arrows), otherwise more corners; on a tie the wider one (the squares
    /// rather than a pattern inside them). Among equals the first found stays: scales go
    /// from fine to coarse, and a finer scale places corners more precisely.
    pub(super) fn beats(&self, other: &Lattice) -> bool {
        if self.strays_of(other) {
            return false;
        }
        if other.strays_of(self) {
            return true;
        }
        const LARGER: f32 = 1.4;
        const SLACK: usize = 10;
        // Clearly larger in both steps: the first step alone made a squeezed board's narrow
        // squares (a photo squeezed by an app) lose to a lattice of stray points.
        let larger = |a: &Lattice, b: &Lattice| {
            a.spacing > LARGER * b.spacing && a.longer_step > LARGER * b.longer_step
        };
        if larger(self, other) && self.count + SLACK >= other.count {
            return true;
        }
        if larger(other, self) && other.count + SLACK >= self.count {
            return false;
        }
        self.count > other.count
            || (self.count == other.count && self.spacing > 1.3 * other.spacing)
    }
}

/// The best 7x7 lattice through the points. Each of the strongest points seeds lattices
/// from pairs of its four nearest opposite-parity neighbours, which fits squashed and
/// slanted boards, plus square lattices from each neighbour alone (when the other is
/// hidden).
pub(super) fn best_lattice(
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
    lattice.longer_step = lattice.spacing.max((v[0] * v[0] + v[1] * v[1]).sqrt());
    lattice.cell = det.abs();
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
        longer_step: 0.0,
        cell: 0.0,
        members,
    }
}

/// Smallest turn (radians) of a board found with the diagonal kernel.
const MIN_DIAGONAL_TURN: f32 = 15.0 * std::f32::consts::PI / 180.0;
/// Largest turn (radians) of a board found with the upright kernel.
const MAX_UPRIGHT_TURN: f32 = 38.0 * std::f32::consts::PI / 180.0;

/// Weakest corner grown into a lattice, relative to the median of its corners so far.
const WEAK_CORNER: f32 = 0.3;

/// Where a lattice search started: a corner and the steps to its neighbours.
#[derive(Clone, Copy, Debug)]
pub(super) struct Seed {
    origin: Saddle,
    u: [f32; 2],
    v: [f32; 2],
}

/// Grows a lattice from its seed ring by ring: each round predicts the nodes next to the
/// ones found (through a homography fitted to them once there are enough, so perspective
/// is followed) and takes the nearest corner of the right parity near each prediction.
/// Unlike one affine guess for the whole board, a step is never longer than one square, so
/// far corners of a board in strong perspective are not assigned to the wrong node.
pub(super) fn grow_lattice(seed: &Seed, pts: &[Saddle]) -> Lattice {
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
    lattice.longer_step = spacing.max((seed.v[0] * seed.v[0] + seed.v[1] * seed.v[1]).sqrt());
    lattice.cell = (seed.u[0] * seed.v[1] - seed.u[1] * seed.v[0]).abs();
    lattice
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_squeezed_board_is_not_outsized_by_a_lattice_with_one_longer_step() {
        // tsoj_039 squeezed to 60%: the board's lattice (36 and 57 px steps, 26 corners)
        // and one of stray points (65 and 57 px, 16 corners). Its first step is 1.8 times
        // the board's, but the board is as tall.
        let lattice = |count, steps: [f32; 2], cell| Lattice {
            count,
            spacing: steps[0],
            longer_step: steps[0].max(steps[1]),
            cell,
            members: Vec::new(),
        };
        let board = lattice(26, [36.0, 57.0], 36.0 * 57.0);
        let strays = lattice(16, [65.5, 57.0], 3260.0);
        assert!(board.beats(&strays) && !strays.beats(&board));
        // A board 1.4 times larger still wins over a thumbnail with up to 10 more corners.
        let thumbnail = lattice(20, [14.0, 14.0], 196.0);
        let large = lattice(12, [36.0, 36.0], 1296.0);
        assert!(large.beats(&thumbnail));
    }
}
