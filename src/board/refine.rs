//! Refining a found lattice: the lattice is detected at one kernel size for the whole
//! image, which in strong perspective is too large for the far squares and too small for
//! the near ones, and it may miss corners under pieces or arrows, so the outer corners are
//! then extrapolated from a part of the board. Here every one of the 49 inner corners is
//! looked for again where the lattice's homography puts it, with a kernel sized to the
//! squares around it, placed to a fraction of a pixel, and the homography refitted on all
//! the corners found.

use crate::quad::{Homography, Point, dist};

use super::saddle::{Integral, Kernel, box_offsets, response_with, saddle_score};

/// Search radius around a predicted corner, as a share of the local square side.
const SEARCH: f32 = 0.2;
/// The search radius never exceeds this many pixels: a lattice that already explains most
/// of the board predicts its corners to within a few pixels.
const MAX_SEARCH: f32 = 8.0;
/// Quadrant side of the local kernel, as a share of the local square side (the kernel then
/// reaches 0.41 of a square: it stays in the four squares around the corner).
const QUADRANT: f32 = 0.35;
/// Boards turned further than this (degrees) are refined with quadrants along their axes.
const ORIENTED_FROM_DEGREES: f32 = 20.0;
/// Farthest a refit may move an outer board corner, in squares.
const MAX_MOVE: f32 = 0.5;
/// Fewest corners found again to refit the homography.
const MIN_REFOUND: usize = 20;
/// The refit must explain its corners to within this share of a square (root mean square).
const MAX_RESIDUAL: f32 = 0.06;

/// The 49 inner corners looked for again where `predict` (index coordinates to detection
/// pixels, inner corners at `offset + (0..7)`) puts them, each with a kernel sized to the
/// squares around it and placed to a fraction of a pixel: `(index, pixel)` of those found
/// that agree with the majority on the checker's phase.
pub fn refind(
    integral: &Integral,
    predict: &dyn Fn(Point) -> Point,
    offset: [f32; 2],
    kernel: Kernel,
    min_score: f32,
) -> Vec<(Point, Point)> {
    let mut found: Vec<(Point, Point, i8, i32)> = Vec::new(); // (index, pixel, sign, parity)
    // How far the board's rows are turned from the image's (0-45 degrees), at its centre.
    let turned = {
        let c = [3.0 + offset[0], 3.0 + offset[1]];
        let (p, q) = (predict([c[0] + 0.5, c[1]]), predict([c[0] - 0.5, c[1]]));
        let angle = (p[1] - q[1])
            .atan2(p[0] - q[0])
            .to_degrees()
            .rem_euclid(90.0);
        angle.min(90.0 - angle) > ORIENTED_FROM_DEGREES
    };
    for j in 0..7 {
        for i in 0..7 {
            let idx = [i as f32 + offset[0], j as f32 + offset[1]];
            let at = predict(idx);
            // The local square side: distance to the predicted neighbours half a square
            // either way, along both axes; the smaller one sizes the kernel.
            let side = |d: [f32; 2]| {
                dist(
                    predict([idx[0] - d[0], idx[1] - d[1]]),
                    predict([idx[0] + d[0], idx[1] + d[1]]),
                )
            };
            let s = side([0.5, 0.0]).min(side([0.0, 0.5]));
            if !s.is_finite() || s < 6.0 {
                continue;
            }
            let local = if turned {
                let axis = |d: [f32; 2]| {
                    let (p, q) = (
                        predict([idx[0] + d[0], idx[1] + d[1]]),
                        predict([idx[0] - d[0], idx[1] - d[1]]),
                    );
                    [p[0] - q[0], p[1] - q[1]]
                };
                let axes = (axis([0.5, 0.0]), axis([0.0, 0.5]));
                local_saddle_oriented(integral, at, s, axes, min_score)
            } else {
                local_saddle(integral, at, s, kernel, min_score)
            };
            if let Some((p, sign)) = local {
                found.push((idx, p, sign, (i + j) % 2));
            }
        }
    }
    // Diagonally opposite quadrants swap their brightness from one corner to the next:
    // keep the corners that agree with the majority on the checker's phase.
    let phase = |&(_, _, sign, parity): &(Point, Point, i8, i32)| {
        if parity == 0 { sign } else { -sign }
    };
    let positive = found.iter().filter(|f| phase(f) > 0).count();
    let majority = if 2 * positive >= found.len() { 1 } else { -1 };
    found.retain(|f| phase(f) == majority);
    found.into_iter().map(|f| (f.0, f.1)).collect()
}

/// The lattice homography (index coordinates to pixels, inner corners at `offset + (0..7)`)
/// refitted on the 49 inner corners found again; `None` when too few are found or they do
/// not fit one homography (then the caller keeps its own).
pub fn refine(
    integral: &Integral,
    h: &Homography,
    offset: [f32; 2],
    kernel: Kernel,
    min_score: f32,
) -> Option<Homography> {
    let found = refind(integral, &|p| h.apply(p), offset, kernel, min_score);
    if found.len() < MIN_REFOUND {
        return None;
    }
    let (src, dst): (Vec<Point>, Vec<Point>) = found.into_iter().unzip();
    let (refit, src, dst) = fit_without_strays(src, dst)?;
    // Reject a refit that does not explain its own points: a wrong corner would pull it.
    let square = dist(refit.apply([0.0, 0.0]), refit.apply([6.0, 6.0])) / (6.0 * 2f32.sqrt());
    let rms = (src
        .iter()
        .zip(&dst)
        .map(|(s, d)| dist(refit.apply(*s), *d).powi(2))
        .sum::<f32>()
        / src.len() as f32)
        .sqrt();
    // A refinement corrects the lattice; it never moves the board: an outer corner more
    // than half a square away means the corners found were some other pattern's.
    let moved = [[-1.0, -1.0], [7.0, -1.0], [7.0, 7.0], [-1.0, 7.0f32]]
        .iter()
        .map(|p| {
            let q = [p[0] + offset[0], p[1] + offset[1]];
            dist(refit.apply(q), h.apply(q))
        })
        .fold(0.0, f32::max);
    (rms <= MAX_RESIDUAL * square && moved <= MAX_MOVE * square).then_some(refit)
}

/// The homography through the corners, fitted again without those far off the first fit
/// (a corner found on a piece's outline or an arrow instead pulls the fit): over 2.5 times
/// the median miss and over a pixel, as long as enough corners remain. Returns the fit and
/// the corners it kept.
fn fit_without_strays(
    src: Vec<Point>,
    dst: Vec<Point>,
) -> Option<(Homography, Vec<Point>, Vec<Point>)> {
    let first = Homography::fit(&src, &dst)?;
    let misses: Vec<f32> = src
        .iter()
        .zip(&dst)
        .map(|(s, d)| dist(first.apply(*s), *d))
        .collect();
    let mut sorted = misses.clone();
    sorted.sort_by(f32::total_cmp);
    let cut = (2.5 * sorted[sorted.len() / 2]).max(1.0);
    let kept = misses.iter().filter(|&&m| m <= cut).count();
    if kept == src.len() || kept < MIN_REFOUND {
        return Some((first, src, dst));
    }
    let (src, dst): (Vec<Point>, Vec<Point>) = src
        .iter()
        .zip(&dst)
        .zip(&misses)
        .filter(|(_, m)| **m <= cut)
        .map(|((s, d), _)| (*s, *d))
        .unzip();
    Some((Homography::fit(&src, &dst)?, src, dst))
}

/// The strongest saddle within the search radius of `at`, with a kernel sized to squares
/// of side `s`, placed to a fraction of a pixel; `None` if none reaches `min_score`.
fn local_saddle(
    integral: &Integral,
    at: Point,
    s: f32,
    kernel: Kernel,
    min_score: f32,
) -> Option<(Point, i8)> {
    let q = ((s * QUADRANT) as usize).max(2);
    let margin = (q + q / 2 + 1) as f32;
    let radius = (s * SEARCH).clamp(1.0, MAX_SEARCH) as i64;
    let (w, h) = (integral.width() as f32, integral.height() as f32);
    let (cx, cy) = (at[0].round() as i64, at[1].round() as i64);
    if !(cx as f32 - radius as f32 >= margin
        && cy as f32 - radius as f32 >= margin
        && (cx + radius) as f32 + margin < w
        && (cy + radius) as f32 + margin < h)
    {
        return None;
    }
    let square = |x0: usize, y0: usize| integral.mean(x0, y0, x0 + q, y0 + q);
    // The detector's upright kernel leaves a gap between its quadrants (robust to blur, but
    // flat-topped over the gap); placing a corner needs quadrants that meet.
    let offsets = match kernel {
        Kernel::Upright => {
            let q = q as isize;
            [(-q, -q), (0, -q), (0, 0), (-q, 0)]
        }
        Kernel::Diagonal => box_offsets(kernel, q),
    };
    let response = |x: i64, y: i64| response_with(offsets, x as usize, y as usize, &square);
    peak(response, cx, cy, radius, min_score)
}

/// Like [`local_saddle`], with quadrants laid along the lattice's own axes at the corner
/// (`du`, `dv`: one square along each): on a board turned 20-70 degrees the upright
/// quadrants straddle two squares each and their response is flat and pulled aside. Each
/// turned quadrant is read as the mean of four small upright boxes over its cells.
fn local_saddle_oriented(
    integral: &Integral,
    at: Point,
    s: f32,
    (du, dv): (Point, Point),
    min_score: f32,
) -> Option<(Point, i8)> {
    let b = ((s * QUADRANT * 0.4).round() as i64).max(1);
    // Quadrants a, b, c, d in the order of `response_with`: (-u, -v), (+u, -v), (+u, +v),
    // (-u, +v); each box given by its top-left offset from the corner.
    let mut boxes = [[(0i64, 0i64); 4]; 4];
    for (k, (su, sv)) in [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0f32)]
        .into_iter()
        .enumerate()
    {
        for (n, (fa, fb)) in [(0.25, 0.25), (0.75, 0.25), (0.25, 0.75), (0.75, 0.75f32)]
            .into_iter()
            .enumerate()
        {
            let (a, c) = (su * fa * QUADRANT, sv * fb * QUADRANT);
            let x = a * du[0] + c * dv[0];
            let y = a * du[1] + c * dv[1];
            boxes[k][n] = (
                (x - b as f32 / 2.0).round() as i64,
                (y - b as f32 / 2.0).round() as i64,
            );
        }
    }
    let reach = boxes
        .iter()
        .flatten()
        .map(|&(x, y)| x.abs().max(y.abs()) + b)
        .max()
        .unwrap_or(b)
        + 1;
    let radius = (s * SEARCH).clamp(1.0, MAX_SEARCH) as i64;
    let (w, h) = (integral.width() as i64, integral.height() as i64);
    let (cx, cy) = (at[0].round() as i64, at[1].round() as i64);
    if cx - radius - reach < 0
        || cy - radius - reach < 0
        || cx + radius + reach >= w
        || cy + radius + reach >= h
    {
        return None;
    }
    let mean =
        |x: i64, y: i64| integral.mean(x as usize, y as usize, (x + b) as usize, (y + b) as usize);
    let response = |x: i64, y: i64| {
        saddle_score(boxes.map(|cells| {
            cells
                .iter()
                .map(|&(dx, dy)| mean(x + dx, y + dy))
                .sum::<f32>()
                / 4.0
        }))
    };
    peak(response, cx, cy, radius, min_score)
}

/// The strongest `response` within `radius` of `(cx, cy)`, placed to a fraction of a pixel
/// by a parabola on each axis; `None` below `min_score` or on the rim of the window.
fn peak(
    response: impl Fn(i64, i64) -> (f32, i8),
    cx: i64,
    cy: i64,
    radius: i64,
    min_score: f32,
) -> Option<(Point, i8)> {
    let mut best = (f32::MIN, cx, cy, 0i8);
    for y in cy - radius..=cy + radius {
        for x in cx - radius..=cx + radius {
            let (r, sign) = response(x, y);
            if r > best.0 {
                best = (r, x, y, sign);
            }
        }
    }
    let (r, bx, by, sign) = best;
    // A maximum on the rim of the window is a neighbour's pull, not this corner.
    if r < min_score || (bx - cx).abs() == radius || (by - cy).abs() == radius {
        return None;
    }
    // Parabola through the maximum and its two neighbours on each axis.
    let offset = |a: f32, c: f32| {
        let d = a - 2.0 * r + c;
        if d < 0.0 {
            (0.5 * (a - c) / d).clamp(-0.5, 0.5)
        } else {
            0.0
        }
    };
    let dx = offset(response(bx - 1, by).0, response(bx + 1, by).0);
    let dy = offset(response(bx, by - 1).0, response(bx, by + 1).0);
    Some(([bx as f32 + dx, by as f32 + dy], sign))
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::GrayImage;

    /// A board drawn in perspective-free squares of `side` px from (ox, oy), light top-left.
    fn board(side: f32, ox: f32, oy: f32) -> GrayImage {
        GrayImage::from_fn(400, 400, |x, y| {
            let (u, v) = ((x as f32 + 0.5 - ox) / side, (y as f32 + 0.5 - oy) / side);
            let inside = (0.0..8.0).contains(&u) && (0.0..8.0).contains(&v);
            let dark = inside && (u.floor() as i32 + v.floor() as i32) % 2 == 1;
            image::Luma([if !inside {
                200
            } else if dark {
                60
            } else {
                230
            }])
        })
    }

    /// Refines a lattice started `rough` (a function of the true corner) on `img` and checks
    /// the outer corners and one inner corner against `truth` (index -> pixel).
    fn check_refined(
        img: &GrayImage,
        truth: impl Fn(Point) -> Point,
        rough: impl Fn(Point) -> Point,
    ) {
        let integral = Integral::new(img);
        let src: Vec<Point> = [[0.0, 0.0], [6.0, 0.0], [6.0, 6.0], [0.0, 6.0]].to_vec();
        let start: Vec<Point> = src.iter().map(|&p| rough(truth(p))).collect();
        let h = Homography::fit(&src, &start).unwrap();
        let refined = refine(&integral, &h, [0.0, 0.0], Kernel::Upright, 5.0).unwrap();
        for p in [
            [-1.0, -1.0],
            [7.0, -1.0],
            [7.0, 7.0],
            [-1.0, 7.0],
            [3.0, 4.0],
        ] {
            let (got, want) = (refined.apply(p), truth(p));
            assert!(dist(got, want) < 0.8, "{p:?}: {got:?} vs {want:?}");
        }
    }

    #[test]
    fn a_rough_lattice_is_pulled_onto_the_corners() {
        let (side, ox, oy) = (40.0, 37.3, 41.6);
        // Inner corner (i, j) is at (ox + (i + 1) side, oy + (j + 1) side); start 3 px off
        // and 2% too large.
        check_refined(
            &board(side, ox, oy),
            |p| [ox + (p[0] + 1.0) * side, oy + (p[1] + 1.0) * side],
            |t| [t[0] * 1.02 - 3.0, t[1] * 1.02 + 2.0],
        );
    }

    #[test]
    fn a_turned_board_is_refined_along_its_own_axes() {
        // Squares of 36 px turned by 40 degrees about (200, 200); inner corner (i, j) at
        // index (i, j).
        let (side, turn) = (36.0f32, 40f32.to_radians());
        let (sn, cs) = turn.sin_cos();
        // The upright board of the other test, centred on (200, 200), sampled turned.
        let upright = board(side, 200.0 - 4.0 * side, 200.0 - 4.0 * side);
        let img = GrayImage::from_fn(400, 400, |x, y| {
            let (dx, dy) = (x as f32 + 0.5 - 200.0, y as f32 + 0.5 - 200.0);
            let (u, v) = (dx * cs + dy * sn + 200.0, -dx * sn + dy * cs + 200.0);
            *upright.get_pixel(u.clamp(0.0, 399.0) as u32, v.clamp(0.0, 399.0) as u32)
        });
        check_refined(
            &img,
            |p| {
                let (u, v) = ((p[0] - 3.0) * side, (p[1] - 3.0) * side);
                [200.0 + u * cs - v * sn, 200.0 + u * sn + v * cs]
            },
            |t| [t[0] + 2.5, t[1] - 2.0],
        );
    }

    #[test]
    fn a_stray_corner_does_not_pull_the_fit() {
        let truth = |p: Point| [100.0 + 30.0 * p[0] + 2.0 * p[1], 80.0 + 28.0 * p[1]];
        let src: Vec<Point> = (0..49).map(|k| [(k % 7) as f32, (k / 7) as f32]).collect();
        let mut dst: Vec<Point> = src.iter().map(|&p| truth(p)).collect();
        // Two corners found 9 px off (a piece's outline), the rest within a third of a pixel.
        dst[10][0] += 9.0;
        dst[30][1] -= 9.0;
        for (k, d) in dst.iter_mut().enumerate() {
            d[0] += ((k * 7) % 5) as f32 * 0.08 - 0.16;
        }
        let (h, kept, _) = fit_without_strays(src.clone(), dst.clone()).unwrap();
        assert_eq!(kept.len(), 47);
        for p in [[-1.0, -1.0], [7.0, 7.0]] {
            assert!(dist(h.apply(p), truth(p)) < 0.5, "{p:?}");
        }
        let all = Homography::fit(&src, &dst).unwrap();
        assert!(dist(all.apply([7.0, -1.0]), truth([7.0, -1.0])) > 0.5);
    }

    #[test]
    fn no_board_no_refit() {
        let flat = GrayImage::from_pixel(300, 300, image::Luma([128]));
        let integral = Integral::new(&flat);
        let src = [[0.0, 0.0], [6.0, 0.0], [6.0, 6.0], [0.0, 6.0]];
        let dst = [[50.0, 50.0], [230.0, 50.0], [230.0, 230.0], [50.0, 230.0]];
        let h = Homography::fit(&src, &dst).unwrap();
        assert!(refine(&integral, &h, [0.0, 0.0], Kernel::Upright, 5.0).is_none());
    }
}
