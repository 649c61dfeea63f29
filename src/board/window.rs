//! Which 8 x 8 window of squares is the board's when the lattice of inner corners could sit
//! a row or two off it (corners hidden along one edge, labels or a frame mimicking them
//! along the other, a page curling away beyond the corners found): the squares'
//! light/dark alternation settles it.

use super::saddle::Integral;
use super::tone::alternation;
use crate::quad::Homography;

/// How many of the lattice's corners lie on each of its seven inner lines: `[columns,
/// rows]`, each indexed by the line's place in the lattice window (0..7).
pub type LineCorners = [[usize; 7]; 2];

/// The offset (in squares, at most two each way) of the board from the lattice window `h`
/// describes: a row or column moves in when it alternates light/dark more clearly than the
/// one it would push out (a line off the board is margin, frame or labels). A second step
/// the same way is taken when the edge line the first one left is flat (margin, not
/// squares) and no corner lies on its inner side: a lattice missing two lines of corners on
/// one side may have been placed two squares off the board. (A page curling away: its
/// squares beyond the bend are squeezed past finding, and the lattice's homography, flat,
/// misses them, so the lines brought in do not alternate; the margin pushed out is the
/// witness.) `corners`: the lattice's corners on each line; `upright`: the lattice was
/// found by the upright kernel.
pub fn settle_window(
    integral: &Integral,
    h: &Homography,
    blur: usize,
    corners: LineCorners,
    upright: bool,
) -> [f32; 2] {
    let mut offset = [0i32, 0i32];
    for horizontal in [true, false] {
        let axis = usize::from(horizontal);
        let other = offset[1 - axis];
        let along = corners[axis];
        let line = |i: i32| alternation(integral, h, blur, i, other, horizontal, false);
        let step = window_step(line, [along[0], along[6]], upright);
        // After a step the window spans lines `step..=step + 7`; the edge line the step
        // left on the side it moved away from, and the corner line on that line's inner
        // side.
        let (edge, inner_side) = if step > 0 { (1, 1) } else { (6, 5) };
        let flat_edge = || {
            let typical = (step + 1..step + 7).filter_map(&line).sum::<f32>() / 6.0;
            line(edge).is_some_and(|v| v < FLAT_SHARE * typical)
        };
        offset[axis] = if step != 0 && along[inner_side] == 0 && flat_edge() {
            2 * step
        } else {
            step
        };
    }
    [offset[0] as f32, offset[1] as f32]
}

/// One step of [`settle_window`] along one axis: -1, 0 or 1 square. `line(i)` is how
/// clearly line `i` of the window (0..8 its own, -1 and 8 just off it) alternates, `None`
/// off the picture; `edge_corners` the lattice's corners on the window's first and last
/// inner lines.
fn window_step(line: impl Fn(i32) -> Option<f32>, edge_corners: [usize; 2], upright: bool) -> i32 {
    // An edge line of the window that the picture cuts off (a crop through the a-file)
    // cannot be judged: when corners of the lattice run along it, it is the board's,
    // so it counts as alternating like the board's inner lines. Were it counted as
    // flat, any margin on the far side would pull the window a square off the board.
    // Without them, the lattice placed it there from stray points (the noise of a
    // scan), and the line off the picture does not alternate.
    let inner: Vec<f32> = (1..7).filter_map(&line).collect();
    let typical = inner.iter().sum::<f32>() / inner.len().max(1) as f32;
    // (alternation, judged): an edge line off the picture without corners is not.
    let (seen_first, seen_last) = (line(0), line(7));
    let edge = |seen: Option<f32>, corners: usize| match seen {
        Some(v) => (v, true),
        None if corners >= EDGE_CORNERS => (typical, true),
        None => (0.0, false),
    };
    let [near, far] = edge_corners;
    let ((first, first_judged), (last, last_judged)) =
        (edge(seen_first, near), edge(seen_last, far));
    // Moving towards -1 brings line -1 in and pushes line 7 out, and the other way; a
    // line off the picture does not alternate. Pushing out a line that could not be
    // judged needs the line brought in to alternate like the board's own: else a faint
    // pattern beyond the far edge (an app's panel beside a board cropped through its
    // a-file, whose corners along that file were not found) pulls the window off.
    let (beyond_first, beyond_last) = (line(-1), line(8));
    let (before, after) = (beyond_first.unwrap_or(0.0), beyond_last.unwrap_or(0.0));
    let board_like = |v: f32| v >= INCOMING_SHARE * typical;
    // An edge line off the picture that counts as the board's for its corners may be a
    // frame with labels beside it instead (a book diagram cropped close: the frame's
    // T-junctions with the square lines answer as corners); a line on the far side seen
    // to alternate nearly as clearly as the board's own is then the board's. Only for an
    // upright lattice: lines of text hold turned lattices whose pattern goes on past them.
    let clearly_board = |v: f32| v >= SEEN_SHARE * typical;
    // A board running off the picture past its last row may leave the window's seventh
    // inner line on the board's outer edge instead: the first row is then the page
    // beyond (text, margin), flat, and no corner lies on its inner side. The board goes
    // on past the picture; its squares there are cut off.
    let page_row = |seen: Option<f32>, corners: usize| {
        corners == 0 && seen.is_some_and(|v| v < FLAT_SHARE * typical)
    };
    let page_first =
        upright && page_row(seen_first, near) && beyond_last.is_none() && clearly_board(last);
    let page_last =
        upright && page_row(seen_last, far) && beyond_first.is_none() && clearly_board(first);
    if page_first {
        1
    } else if page_last
        || (before > 1.5 * last && before > after && (last_judged || board_like(before)))
    {
        -1
    } else if after > 1.5 * first && after > before && (first_judged || board_like(after)) {
        1
    } else if upright && seen_last.is_none() && clearly_board(before) && before > after {
        -1
    } else if upright && seen_first.is_none() && clearly_board(after) && after > before {
        1
    } else {
        0
    }
}

/// A line brought in beside an edge line that could not be judged (off the picture) wins
/// when it alternates at least this share of the board's inner lines' mean.
const SEEN_SHARE: f32 = 0.55;
/// A seen edge row of the window under this share of the board's inner lines' mean, with
/// no corner on its inner side, is not the board's (see `settle_window`).
const FLAT_SHARE: f32 = 0.2;
/// Corners along a window edge line cut off by the picture that make it the board's.
const EDGE_CORNERS: usize = 2;
/// A line brought in to replace an edge line that could not be judged alternates at least
/// this share of the board's inner lines' mean.
const INCOMING_SHARE: f32 = 0.5;

#[cfg(test)]
mod tests {
    use image::RgbImage;

    use super::*;

    /// Corners on the window's first and last inner lines of each axis as given
    /// (`[[left, right], [top, bottom]]`), a whole line's seven on every other.
    fn edges(given: [[usize; 2]; 2]) -> LineCorners {
        given.map(|[first, last]| {
            let mut line = [7; 7];
            (line[0], line[6]) = (first, last);
            line
        })
    }

    /// A board of `side`-pixel squares (235 light, 90 dark) filling the picture.
    fn checker(side: u32) -> RgbImage {
        RgbImage::from_fn(8 * side, 8 * side, |x, y| {
            image::Rgb(
                [if (x / side + y / side).is_multiple_of(2) {
                    235
                } else {
                    90
                }; 3],
            )
        })
    }

    /// The detection integral of `img` and the lattice window whose inner corner (i, j)
    /// lies at ((i + 1 + dx) side, (j + 1 + dy) side): a board at the picture's top left,
    /// `offset` = (dx, dy) squares off.
    fn window(img: &RgbImage, side: f32, [dx, dy]: [f32; 2]) -> (Integral, Homography) {
        let src = [[0.0, 0.0], [6.0, 0.0], [6.0, 6.0], [0.0, 6.0]];
        let dst = src.map(|p| [(p[0] + 1.0 + dx) * side, (p[1] + 1.0 + dy) * side]);
        let h = Homography::fit(&src, &dst).unwrap();
        let (gray, _, _) = super::super::shrink::prepare(img, 1024, super::super::shrink::LUMA);
        (Integral::new(&gray), h)
    }

    #[test]
    fn a_window_edge_off_the_picture_counts_as_the_boards_only_with_corners_along_it() {
        // A board cropped through its top row (8 px of its 30 left in the picture), a light
        // margin below it, and the lattice window on the board: its top row lies off the
        // picture.
        let side = 30u32;
        let sliver = 8;
        let img = RgbImage::from_fn(8 * side, 7 * side + sliver + 40, |x, y| {
            let (c, r) = (x / side, (y + side - sliver) / side);
            let v = if r >= 8 {
                200
            } else if (c + r) % 2 == 0 {
                235
            } else {
                90
            };
            image::Rgb([v; 3])
        });
        let (integral, h) = window(&img, side as f32, [0.0, sliver as f32 / side as f32 - 1.0]);
        // Corners along the cut-off line (between the board's first and second rows): it is
        // the board's, and the margin below does not pull the window down.
        assert_eq!(
            settle_window(&integral, &h, 1, edges([[7, 7], [7, 7]]), true),
            [0.0, 0.0]
        );
        // A board filling the picture and a window one row above it: its top row lies off
        // the picture, its bottom row (the board's rank 1) is left out.
        let img = checker(side);
        let (integral, h) = window(&img, side as f32, [0.0, -1.0]);
        // No lattice corners along the cut-off line (stray points placed the window): the
        // window moves down onto the board.
        assert_eq!(
            settle_window(&integral, &h, 1, edges([[7, 7], [0, 7]]), true),
            [0.0, 1.0]
        );
    }

    #[test]
    fn a_board_running_off_the_picture_is_not_pulled_onto_the_page_beyond_its_edge() {
        // A post's board cut off under its seventh row by the picture's bottom, a page above
        // it with a line of text; the window takes the board's top edge for its first inner
        // line, its first row the page's (no corner on its inner side).
        let side = 30u32;
        let img = RgbImage::from_fn(8 * side, 8 * side, |x, y| {
            if y < side {
                // Type: dark strokes across a light page.
                let ink = (x / 3) % 3 == 0 && (8..20).contains(&y);
                return image::Rgb([if ink { 40 } else { 245 }; 3]);
            }
            let (c, r) = (x / side, (y - side) / side);
            image::Rgb([if (c + r) % 2 == 0 { 235 } else { 90 }; 3])
        });
        let (integral, h) = window(&img, side as f32, [0.0, 0.0]);
        assert_eq!(
            settle_window(&integral, &h, 1, edges([[7, 7], [0, 7]]), true),
            [0.0, 1.0]
        );
        // With corners on the first inner line, the window is the lattice's: kept.
        assert_eq!(
            settle_window(&integral, &h, 1, edges([[7, 7], [7, 7]]), true),
            [0.0, 0.0]
        );
    }

    #[test]
    fn a_line_seen_to_alternate_beats_one_off_the_picture_with_corners() {
        // A book diagram cropped close beside its rank labels: the frame's T-junctions with
        // the square lines answer as corners, and the lattice takes the frame for the line
        // between the first two files, its window a file off the picture; the board's last
        // file, left out, is seen to alternate like the board's.
        let side = 30;
        let img = checker(side);
        let (integral, h) = window(&img, side as f32, [-1.0, 0.0]);
        assert_eq!(
            settle_window(&integral, &h, 1, edges([[5, 7], [7, 7]]), true),
            [1.0, 0.0]
        );
        // Not for a turned lattice (lines of text hold them, and their pattern goes on).
        assert_eq!(
            settle_window(&integral, &h, 1, edges([[5, 7], [7, 7]]), false),
            [0.0, 0.0]
        );
    }

    #[test]
    fn a_window_edge_off_the_picture_without_corners_stays_unless_a_board_line_replaces_it() {
        // A board cropped through its a-file (half of it left in the picture) with an app's
        // dark panel beside its h-file, whose tone varies a little from row to row (lines of
        // text); the lattice found no corners along the a-file.
        let side = 30u32;
        let cut = side / 2;
        let (w, h_px) = (8 * side - cut + 2 * side, 8 * side);
        let img = RgbImage::from_fn(w, h_px, |x, y| {
            let bx = x + cut;
            let (c, r) = (bx / side, y / side);
            if c < 8 {
                let v = if (c + r) % 2 == 0 { 235 } else { 90 };
                image::Rgb([v; 3])
            } else {
                image::Rgb([(40 + (r * 7) % 13) as u8; 3])
            }
        });
        let (integral, h) = window(&img, side as f32, [-(cut as f32) / side as f32, 0.0]);
        // The panel's column barely alternates: the window stays on the board.
        assert_eq!(
            settle_window(&integral, &h, 1, edges([[0, 7], [7, 7]]), true),
            [0.0, 0.0]
        );
    }

    #[test]
    fn a_lattice_two_squares_off_the_board_moves_across_a_flat_margin() {
        // A board `margin` squares right of a paper margin at the picture's left edge, the
        // lattice window at that edge: its corners were found on lines 2..6 only.
        let side = 30u32;
        let page = |margin: u32| {
            RgbImage::from_fn((8 + margin) * side, 8 * side, |x, y| {
                if x < margin * side {
                    return image::Rgb([240; 3]);
                }
                let light = ((x - margin * side) / side + y / side).is_multiple_of(2);
                image::Rgb([if light { 235 } else { 90 }; 3])
            })
        };
        let from_line_2 = [[0, 0, 7, 7, 7, 7, 7], [7; 7]];
        let (integral, h) = window(&page(2), side as f32, [0.0, 0.0]);
        assert_eq!(
            settle_window(&integral, &h, 1, from_line_2, true),
            [2.0, 0.0]
        );
        // Corners along line 1 make it the board's: one step only.
        let from_line_1 = [[0, 7, 7, 7, 7, 7, 7], [7; 7]];
        assert_eq!(
            settle_window(&integral, &h, 1, from_line_1, true),
            [1.0, 0.0]
        );
        // A margin one square wide: line 1 is the board's a-file, not flat.
        let (integral, h) = window(&page(1), side as f32, [0.0, 0.0]);
        assert_eq!(
            settle_window(&integral, &h, 1, from_line_2, true),
            [1.0, 0.0]
        );
    }
}
