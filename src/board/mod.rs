//! Finding the board: X-corners (where four squares meet) on a regular 7x7 lattice, then a
//! homography from lattice indices to pixels gives the four outer corners. Works for
//! screenshots with clutter, cropped boards, hatched book diagrams and moderate perspective.

pub mod saddle;

use image::{GrayImage, RgbImage};
use serde::{Deserialize, Serialize};

use crate::quad::{Homography, Point, Quad};
use saddle::{Integral, Saddle, saddles};

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
/// from detection pixels to image pixels.
fn prepare(img: &RgbImage, max_side: u32) -> (GrayImage, f32, f32) {
    let gray = image::imageops::grayscale(img);
    let (w, h) = gray.dimensions();
    let longest = w.max(h);
    if longest <= max_side {
        return (gray, 1.0, 1.0);
    }
    let f = max_side as f32 / longest as f32;
    let (sw, sh) = (
        ((w as f32 * f) as u32).max(1),
        ((h as f32 * f) as u32).max(1),
    );
    let small = image::imageops::thumbnail(&gray, sw, sh);
    (small, w as f32 / sw as f32, h as f32 / sh as f32)
}

struct Lattice {
    count: usize,
    spacing: f32,
    /// (i, j) in 0..7 and the point.
    members: Vec<([f32; 2], Point)>,
}

/// Finds the board in `img`.
pub fn find(img: &RgbImage, cfg: &FinderConfig) -> Result<FoundBoard, BoardNotFound> {
    let (gray, fx, fy) = prepare(img, cfg.max_side);
    let integral = Integral::new(&gray);
    let mut best: Option<Lattice> = None;
    for &q in &cfg.scales {
        let pts = saddles(&integral, q, cfg.min_score, cfg.max_points);
        if pts.len() < cfg.min_corners {
            continue;
        }
        if let Some(l) = best_lattice(&pts, q, cfg) {
            let l = refine_lattice(l, &pts);
            let better = match &best {
                None => true,
                // Scales go from fine to coarse and a finer scale places corners more
                // precisely: on a tie only a clearly wider lattice (the real squares rather
                // than a pattern inside them) replaces it.
                Some(b) => l.count > b.count || (l.count == b.count && l.spacing > 1.3 * b.spacing),
            };
            if better {
                best = Some(l);
            }
        }
    }
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
    let corners = [[-1.0, -1.0], [7.0, -1.0], [7.0, 7.0], [-1.0, 7.0]].map(|p| {
        let q = h.apply(p);
        [q[0] * fx, q[1] * fy]
    });
    let quad = Quad(corners);
    if !quad.is_convex() {
        return Err(BoardNotFound::new(found, cfg.min_corners));
    }
    // A lattice of X-corners can appear by chance in noise or texture; a board also has
    // two clearly different square colours in a checker pattern.
    let square_contrast = square_contrast(&gray, &h);
    if square_contrast < cfg.min_square_contrast {
        return Err(BoardNotFound::new(found, cfg.min_corners));
    }
    Ok(FoundBoard {
        quad,
        inner_corners: lattice.count,
        square_contrast,
    })
}

/// Light/dark separation of the 64 squares: per square the mean grey level on a ring just
/// inside its edges; then |mean(light) - mean(dark)| / (sd(light) + sd(dark) + 4).
fn square_contrast(gray: &GrayImage, h: &Homography) -> f32 {
    let (w, hh) = (gray.width() as f32, gray.height() as f32);
    let at = [0.12f32, 0.37, 0.63, 0.88];
    let mut groups: [Vec<f32>; 2] = [Vec::new(), Vec::new()];
    for r in 0..8 {
        for c in 0..8 {
            let mut sum = 0.0;
            let mut n = 0.0;
            for &a in &at {
                for (u, v) in [(a, 0.12), (a, 0.88), (0.12, a), (0.88, a)] {
                    let p = h.apply([c as f32 - 1.0 + u, r as f32 - 1.0 + v]);
                    if p[0] >= 0.0 && p[1] >= 0.0 && p[0] < w && p[1] < hh {
                        sum += gray.get_pixel(p[0] as u32, p[1] as u32).0[0] as f32;
                        n += 1.0;
                    }
                }
            }
            if n > 0.0 {
                groups[(r + c) % 2].push(sum / n);
            }
        }
    }
    let stats = |g: &[f32]| {
        let m = g.iter().sum::<f32>() / g.len().max(1) as f32;
        let sd = (g.iter().map(|x| (x - m).powi(2)).sum::<f32>() / g.len().max(1) as f32).sqrt();
        (m, sd)
    };
    let ((ma, sa), (mb, sb)) = (stats(&groups[0]), stats(&groups[1]));
    (ma - mb).abs() / (sa + sb + 4.0)
}

/// The best 7x7 lattice through the points, seeded by pairs of neighbouring corners.
fn best_lattice(pts: &[Saddle], q: usize, cfg: &FinderConfig) -> Option<Lattice> {
    let q = q as f32;
    let seeds = pts.len().min(160);
    let mut best: Option<Lattice> = None;
    for a in &pts[..seeds] {
        for b in pts {
            let (dx, dy) = (b.x - a.x, b.y - a.y);
            // b is the next corner to the right of a (boards are within 45 degrees of upright).
            if dx <= 0.0 || dy.abs() > dx || b.parity == a.parity {
                continue;
            }
            let s = (dx * dx + dy * dy).sqrt();
            if s < 1.6 * q || s > 5.0 * q {
                continue;
            }
            let u = [dx, dy];
            let v = [-dy, dx];
            if let Some(l) = lattice_from(a, u, v, pts)
                && l.count >= cfg.min_corners.min(12)
                && best.as_ref().is_none_or(|b| {
                    l.count > b.count || (l.count == b.count && l.spacing > b.spacing)
                })
            {
                best = Some(l);
            }
        }
    }
    best
}

fn lattice_from(origin: &Saddle, u: [f32; 2], v: [f32; 2], pts: &[Saddle]) -> Option<Lattice> {
    let det = u[0] * v[1] - u[1] * v[0];
    if det.abs() < 1e-6 {
        return None;
    }
    let to_lattice = |p: &Saddle| {
        let (rx, ry) = (p.x - origin.x, p.y - origin.y);
        [(rx * v[1] - ry * v[0]) / det, (u[0] * ry - u[1] * rx) / det]
    };
    let cells = assign(pts, to_lattice, origin.parity, 0.18);
    let mut lattice = best_window(&cells);
    lattice.spacing = (u[0] * u[0] + u[1] * u[1]).sqrt();
    Some(lattice)
}

/// Points whose lattice coordinates (by `to_lattice`) lie within `tol` of a node near the
/// 7x7 inner lattice and whose parity fits the checker pattern (lattice (0, 0) has
/// `parity0`).
fn assign<'a>(
    pts: &'a [Saddle],
    to_lattice: impl Fn(&Saddle) -> [f32; 2],
    parity0: i8,
    tol: f32,
) -> Vec<(i32, i32, &'a Saddle)> {
    let mut cells = Vec::new();
    for p in pts {
        let [a, b] = to_lattice(p);
        let (ia, ib) = (a.round(), b.round());
        if (a - ia).abs() > tol || (b - ib).abs() > tol || ia.abs() > 8.0 || ib.abs() > 8.0 {
            continue;
        }
        let (i, j) = (ia as i32, ib as i32);
        // Checker parity: neighbouring corners alternate.
        let expected = if (i + j).rem_euclid(2) == 0 {
            parity0
        } else {
            -parity0
        };
        if p.parity == expected {
            cells.push((i, j, p));
        }
    }
    cells
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

/// Grows a lattice under perspective: the homography through its members predicts where
/// every node lies, which catches far corners an affine seed misses; repeated until the
/// count stops growing.
fn refine_lattice(mut lattice: Lattice, pts: &[Saddle]) -> Lattice {
    for _ in 0..4 {
        let (src, dst): (Vec<Point>, Vec<Point>) = lattice.members.iter().cloned().unzip();
        let Some(inv) = Homography::fit(&src, &dst).and_then(|h| h.inverse()) else {
            break;
        };
        // Parity of node (0, 0): taken from a member.
        let Some(parity0) = lattice.members.iter().find_map(|(ij, p)| {
            let s = pts.iter().find(|s| s.x == p[0] && s.y == p[1])?;
            let odd = (ij[0] as i32 + ij[1] as i32).rem_euclid(2) == 1;
            Some(if odd { -s.parity } else { s.parity })
        }) else {
            break;
        };
        let cells = assign(pts, |p| inv.apply([p.x, p.y]), parity0, 0.25);
        let mut grown = best_window(&cells);
        if grown.count <= lattice.count {
            break;
        }
        grown.spacing = lattice.spacing;
        lattice = grown;
    }
    lattice
}
