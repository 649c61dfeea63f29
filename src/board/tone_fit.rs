//! Fitting the board's outline to its squares' tones. The lattice gives the outer corners by
//! extrapolating a homography from the inner corners it found; when those are only part of
//! the lattice, and some of them sit a little off (hatching, pieces and the wobble of an old
//! print make X-corners of their own), the extrapolated edge of the board can land a
//! quarter of a square off. The squares themselves say where they are: each square's ring
//! just inside its edges is evenly light or dark only when the grid lies on the squares.
//! Here the four outer corners are moved, a little at a time, while that makes the light
//! and dark rings more clearly apart. The tones place a board less precisely than its
//! X-corners do (median corner error about twice as large on the synthetic sets), so only
//! a large correction is taken, and the corners are then looked for again from there.

use crate::quad::{Homography, Point, dist};

use super::saddle::Integral;
use super::tone::square_contrast_on_ring;

/// Largest step tried, as a share of a square.
const FIRST_STEP: f32 = 0.08;
/// Smallest step, in detection pixels (tones are box means on whole pixels).
const LAST_STEP: f32 = 0.4;
/// Farthest a corner may move, as a share of a square: the lattice is never further off
/// than this, and a larger move would be some other pattern's.
const MAX_MOVE: f32 = 0.45;
/// Most passes over the eight coordinates at one step size.
const MAX_PASSES: usize = 8;
/// A correction is taken only when some corner moves this far (share of a square): a
/// smaller one is within the tones' own imprecision.
const LEAST_CORRECTION: f32 = 0.1;

/// The homography (index coordinates to detection pixels, inner corners at
/// `offset + (0..7)`) whose outer corners give the clearest light/dark squares within
/// [`MAX_MOVE`] of `h`'s; `None` when that moves no corner by [`LEAST_CORRECTION`].
pub fn fit_to_tones(
    integral: &Integral,
    h: &Homography,
    offset: [f32; 2],
    blur: usize,
) -> Option<Homography> {
    let index: [Point; 4] = [[-1.0, -1.0], [7.0, -1.0], [7.0, 7.0], [-1.0, 7.0]]
        .map(|p| [p[0] + offset[0], p[1] + offset[1]]);
    let start = index.map(|p| h.apply(p));
    let square = (0..4)
        .map(|k| dist(start[k], start[(k + 1) % 4]))
        .sum::<f32>()
        / 32.0;
    if !square.is_finite() || square < 4.0 {
        return None;
    }
    // Each sample box touches its square's edge: the contrast then falls as soon as the
    // grid moves off the squares, with no flat top (a ring further in is blind to small moves).
    let ring = (blur as f32 + 0.5) / square;
    let score = |corners: &[Point; 4]| -> Option<f32> {
        let h = Homography::fit(&index, corners)?;
        Some(square_contrast_on_ring(integral, &h, offset, blur, ring))
    };
    let first = score(&start)?;
    let mut best = (start, first);
    let limit = MAX_MOVE * square;
    let mut step = FIRST_STEP * square;
    while step >= LAST_STEP {
        // Each pass moves a corner at most a step each way; a bounded number of passes
        // keeps a long climb (a board far off, large in the picture) from taking long.
        for _ in 0..MAX_PASSES {
            let mut improved = false;
            for k in 0..8 {
                for sign in [1.0, -1.0] {
                    let mut corners = best.0;
                    corners[k / 2][k % 2] += sign * step;
                    if dist(corners[k / 2], start[k / 2]) > limit {
                        continue;
                    }
                    if let Some(c) = score(&corners)
                        && c > best.1
                    {
                        best = (corners, c);
                        improved = true;
                    }
                }
            }
            if !improved {
                break;
            }
        }
        step /= 2.0;
    }
    let moved = (0..4)
        .map(|k| dist(best.0[k], start[k]))
        .fold(0.0, f32::max);
    if best.1 <= first || moved < LEAST_CORRECTION * square {
        return None;
    }
    Homography::fit(&index, &best.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::GrayImage;

    const SIDE: f32 = 40.0;
    const ORIGIN: [f32; 2] = [37.3, 41.6];

    /// A printed diagram: dark squares hatched with diagonal lines, a disc ("piece") on
    /// every third square, paper around the board.
    fn diagram() -> GrayImage {
        GrayImage::from_fn(420, 420, |x, y| {
            let (px, py) = (x as f32 + 0.5, y as f32 + 0.5);
            let (u, v) = ((px - ORIGIN[0]) / SIDE, (py - ORIGIN[1]) / SIDE);
            if !((0.0..8.0).contains(&u) && (0.0..8.0).contains(&v)) {
                return image::Luma([235]);
            }
            let (c, r) = (u.floor() as i32, v.floor() as i32);
            let (fu, fv) = (u - c as f32 - 0.5, v - r as f32 - 0.5);
            if (c * 8 + r) % 3 == 0 && fu * fu + fv * fv < 0.3 * 0.3 {
                return image::Luma([20]);
            }
            let hatched = (c + r) % 2 == 1 && ((px + py) as i32).rem_euclid(5) < 2;
            image::Luma([if hatched { 30 } else { 240 }])
        })
    }

    fn truth(p: Point) -> Point {
        [
            ORIGIN[0] + (p[0] + 1.0) * SIDE,
            ORIGIN[1] + (p[1] + 1.0) * SIDE,
        ]
    }

    /// The lattice homography whose outer corners are the true ones moved by `moves`.
    fn lattice_with(moves: [Point; 4]) -> Homography {
        let index = [[-1.0, -1.0], [7.0, -1.0], [7.0, 7.0], [-1.0, 7.0]];
        let corners: Vec<Point> = (0..4)
            .map(|k| {
                let t = truth(index[k]);
                [t[0] + moves[k][0], t[1] + moves[k][1]]
            })
            .collect();
        Homography::fit(&index, &corners).unwrap()
    }

    fn outer_error(h: &Homography) -> f32 {
        [[-1.0, -1.0], [7.0, -1.0], [7.0, 7.0], [-1.0, 7.0]]
            .iter()
            .map(|&p| dist(h.apply(p), truth(p)))
            .fold(0.0, f32::max)
    }

    #[test]
    fn an_edge_extrapolated_off_the_board_is_pulled_onto_the_squares() {
        let integral = Integral::new(&diagram());
        // The top-left corner a quarter of a square off, the top-right a sixth.
        let h = lattice_with([[9.0, 10.0], [-4.0, 6.0], [0.0, 0.0], [1.0, -2.0]]);
        assert!(outer_error(&h) > 13.0);
        let fitted = fit_to_tones(&integral, &h, [0.0, 0.0], 3).unwrap();
        let error = outer_error(&fitted);
        assert!(error < 2.0, "outer corners still {error} px off");
    }

    #[test]
    fn a_board_already_on_its_squares_stays() {
        let integral = Integral::new(&diagram());
        let h = lattice_with([[0.0; 2]; 4]);
        let error = fit_to_tones(&integral, &h, [0.0, 0.0], 3).map_or(0.0, |f| outer_error(&f));
        assert!(error < 1.0, "moved {error} px");
    }
}
