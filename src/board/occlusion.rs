//! Inner corners hidden under something flat laid over the board: an app's game-over card,
//! a pop-up. Such a card can hide half of the 49 inner corners, too many for the lattice to
//! count as a board, and its squares spoil the light/dark contrast. A hidden corner is
//! still a sign of the board when the lattice predicts it inside the seen corners' span and
//! the picture there is flat, in a tone unlike both square colours (every seen inner corner
//! has light and dark quadrants around it; paper beside a pattern of text is flat in the
//! light squares' own tone). A card is one piece that hides all of its rectangle, and the
//! board goes on around it: only the largest block of such corners counts, with no seen
//! corner inside its rectangle, and each edge line of the window must hold a seen or
//! covered corner. Each of these rules turned down a false board (BENCHMARKS.md, session
//! 41).

use std::ops::RangeInclusive;

use super::saddle::Integral;
use super::tone::{RING, square_tone};
use crate::quad::{Homography, Point, dist};

/// The inner corners (7x7, `[row][column]` of the board's window) the finder counts as
/// covered, not missing.
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct Covered {
    corners: [[bool; 7]; 7],
}

impl Covered {
    /// How many inner corners are covered.
    pub(super) fn count(&self) -> usize {
        self.corners.iter().flatten().filter(|&&c| c).count()
    }

    /// The columns and rows the covered corners span, when there are any.
    fn bounds(&self) -> Option<(RangeInclusive<usize>, RangeInclusive<usize>)> {
        let at: Vec<(usize, usize)> = (0..7)
            .flat_map(|j| (0..7).map(move |i| (i, j)))
            .filter(|&(i, j)| self.corners[j][i])
            .collect();
        let columns = at.iter().map(|p| p.0);
        let rows = at.iter().map(|p| p.1);
        Some((
            columns.clone().min()?..=columns.max()?,
            rows.clone().min()?..=rows.max()?,
        ))
    }

    /// Whether square (`row`, `col`) (0..8 of the board's window) touches a covered corner.
    pub(super) fn touches(&self, row: i32, col: i32) -> bool {
        (row - 1..=row).any(|j| {
            (col - 1..=col).any(|i| {
                (0..7).contains(&i) && (0..7).contains(&j) && self.corners[j as usize][i as usize]
            })
        })
    }
}

/// The covered inner corners of the board window `offset + (0..7)` of lattice `h` (in
/// detection pixels), whose seen corners are `members` (lattice indices and points).
/// Each square's tone is sampled as [`square_tone`] does, with boxes of `blur`.
pub(super) fn covered_corners(
    integral: &Integral,
    h: &Homography,
    offset: [f32; 2],
    blur: usize,
    members: &[([f32; 2], Point)],
) -> Covered {
    let seen = |i: usize, j: usize| {
        members.iter().any(|(ij, _)| {
            (ij[0] - (i as f32 + offset[0])).abs() < 0.5
                && (ij[1] - (j as f32 + offset[1])).abs() < 0.5
        })
    };
    // The seen corners' span, in window indices: a corner outside it may lie off the board
    // (a margin is flat too).
    let span = |axis: usize| {
        let indices = members.iter().map(|(ij, _)| ij[axis] - offset[axis]);
        let low = indices.clone().fold(f32::INFINITY, f32::min);
        let high = indices.fold(f32::NEG_INFINITY, f32::max);
        (low - 0.5, high + 0.5)
    };
    let (columns, rows) = (span(0), span(1));
    let mut flat = [[None; 7]; 7];
    for (j, row) in flat.iter_mut().enumerate() {
        for (i, tone) in row.iter_mut().enumerate() {
            let inside = (columns.0..=columns.1).contains(&(i as f32))
                && (rows.0..=rows.1).contains(&(j as f32));
            if inside && !seen(i, j) {
                *tone = flat_tone(integral, h, [i as f32 + offset[0], j as f32 + offset[1]]);
            }
        }
    }
    // The square colours from the squares no flat corner touches.
    let touched = Covered {
        corners: flat.map(|row| row.map(|t| t.is_some())),
    };
    let (dc, dr) = (offset[0] as i32, offset[1] as i32);
    let mut tones: [Vec<f32>; 2] = [Vec::new(), Vec::new()];
    for r in 0..8 {
        for c in 0..8 {
            if !touched.touches(r, c)
                && let Some(t) = square_tone(integral, h, (r + dr, c + dc), blur, RING)
            {
                tones[((r + c) % 2) as usize].push(t);
            }
        }
    }
    let (Some(a), Some(b)) = (median(&mut tones[0]), median(&mut tones[1])) else {
        return Covered::default();
    };
    let off_tone = flat.map(|row| {
        row.map(|t| t.is_some_and(|t| (t - a).abs() >= OFF_TONE && (t - b).abs() >= OFF_TONE))
    });
    let covered = Covered {
        corners: largest_block(&off_tone, MIN_BLOCK),
    };
    // A card hides every corner of its rectangle: a seen corner among covered ones is a
    // pattern with flat gaps (the paper between lines of large type).
    let block = covered.bounds();
    if let Some((columns, rows)) = block
        && rows
            .flat_map(|j| columns.clone().map(move |i| (i, j)))
            .any(|(i, j)| seen(i, j))
    {
        return Covered::default();
    }
    // Each edge line of the window holds a seen or covered corner; else the window may sit
    // a line off the board (its rows judged by lines the card interrupts).
    let holds = |i: usize, j: usize| seen(i, j) || covered.corners[j][i];
    let edges_held = (0..7).any(|k| holds(k, 0))
        && (0..7).any(|k| holds(k, 6))
        && (0..7).any(|k| holds(0, k))
        && (0..7).any(|k| holds(6, k));
    if edges_held {
        covered
    } else {
        Covered::default()
    }
}

/// The largest block of 4-neighbouring corners of `corners`, when it has at least `least`:
/// a card is one piece, while a lattice that is no board's (a pattern of stripes) can leave
/// a few stray flat spots.
fn largest_block(corners: &[[bool; 7]; 7], least: usize) -> [[bool; 7]; 7] {
    let mut label = [[0usize; 7]; 7];
    let mut sizes = vec![0];
    for j in 0..7 {
        for i in 0..7 {
            if !corners[j][i] || label[j][i] != 0 {
                continue;
            }
            let id = sizes.len();
            sizes.push(0);
            let mut stack = vec![(i, j)];
            label[j][i] = id;
            while let Some((x, y)) = stack.pop() {
                sizes[id] += 1;
                let near = [
                    (x.wrapping_sub(1), y),
                    (x + 1, y),
                    (x, y.wrapping_sub(1)),
                    (x, y + 1),
                ];
                for (u, v) in near {
                    if u < 7 && v < 7 && corners[v][u] && label[v][u] == 0 {
                        label[v][u] = id;
                        stack.push((u, v));
                    }
                }
            }
        }
    }
    let (best, &size) = sizes
        .iter()
        .enumerate()
        .max_by_key(|&(_, s)| *s)
        .unwrap_or((0, &0));
    label.map(|row| row.map(|l| size >= least && l == best && l != 0))
}

/// The mean grey around lattice point `at` when the picture is mostly flat there: of 3x3
/// boxes [`REACH`] of a square apart each way, at least [`FLAT_BOXES`] with means within
/// [`FLAT_SPREAD`]. `None` when it is not or reaches out of the picture.
fn flat_tone(integral: &Integral, h: &Homography, at: [f32; 2]) -> Option<f32> {
    let side = dist(h.apply([at[0] - 0.5, at[1]]), h.apply([at[0] + 0.5, at[1]])).min(dist(
        h.apply([at[0], at[1] - 0.5]),
        h.apply([at[0], at[1] + 0.5]),
    ));
    let half = ((side * BOX / 2.0) as usize).max(1);
    let (w, hh) = (integral.width(), integral.height());
    let mut means = Vec::with_capacity(9);
    for dv in [-REACH, 0.0, REACH] {
        for du in [-REACH, 0.0, REACH] {
            let p = h.apply([at[0] + du, at[1] + dv]);
            if p[0] < half as f32 || p[1] < half as f32 {
                return None;
            }
            let (x, y) = (p[0] as usize, p[1] as usize);
            if x + half + 1 > w || y + half + 1 > hh {
                return None;
            }
            means.push(integral.mean(x - half, y - half, x + half + 1, y + half + 1));
        }
    }
    // The largest run of the sorted means within the spread: a card's text or button, or
    // its edge, may take a few of the boxes.
    means.sort_by(f32::total_cmp);
    let mut best: Option<&[f32]> = None;
    for start in 0..means.len() {
        let end = means[start..]
            .iter()
            .take_while(|&&m| m - means[start] <= FLAT_SPREAD)
            .count();
        if best.is_none_or(|b| end > b.len()) {
            best = Some(&means[start..start + end]);
        }
    }
    best.filter(|run| run.len() >= FLAT_BOXES)
        .map(|run| run.iter().sum::<f32>() / run.len() as f32)
}

fn median(values: &mut [f32]) -> Option<f32> {
    if values.is_empty() {
        return None;
    }
    values.sort_by(f32::total_cmp);
    Some(values[values.len() / 2])
}

/// How far from a covered corner its samples reach, in squares: a seen corner's light and
/// dark quadrants lie well within that.
const REACH: f32 = 0.3;
/// Side of each sample box, as a share of a square.
const BOX: f32 = 0.14;
/// Largest spread of the sample boxes' grey means at a covered corner (noise and JPEG
/// averaged over a box stay within a few levels).
const FLAT_SPREAD: f32 = 8.0;
/// Fewest of the 9 boxes around a covered corner that are flat together: around a seen
/// corner two boxes at most share a square.
const FLAT_BOXES: usize = 6;
/// How far a covered corner's grey lies from both square colours' at least.
const OFF_TONE: f32 = 16.0;
/// Fewest covered corners in one block that count (a card over two squares by three).
const MIN_BLOCK: usize = 6;

#[cfg(test)]
mod tests {
    use super::*;
    use image::{GrayImage, Luma};

    /// A board of 20 px squares from (40, 40), light 200 / dark 80, with a card of `card`
    /// grey over columns and rows `from..to` (in squares).
    fn board_with_card(card: u8, from: f32, to: f32) -> GrayImage {
        GrayImage::from_fn(240, 240, |x, y| {
            let (u, v) = ((x as f32 - 40.0) / 20.0, (y as f32 - 40.0) / 20.0);
            if !(0.0..8.0).contains(&u) || !(0.0..8.0).contains(&v) {
                return Luma([230]);
            }
            if (from..to).contains(&u) && (from..to).contains(&v) {
                return Luma([card]);
            }
            Luma([if (u as i32 + v as i32) % 2 == 0 {
                200
            } else {
                80
            }])
        })
    }

    /// The lattice of the board above (inner corner (i, j) at lattice index (i, j)) and
    /// the inner corners outside `from..=to` as its seen members.
    fn lattice(from: usize, to: usize) -> (Homography, Vec<([f32; 2], Point)>) {
        let src: Vec<Point> = vec![[0.0, 0.0], [6.0, 0.0], [6.0, 6.0], [0.0, 6.0]];
        let dst: Vec<Point> = src
            .iter()
            .map(|p| [60.0 + 20.0 * p[0], 60.0 + 20.0 * p[1]])
            .collect();
        let h = Homography::fit(&src, &dst).expect("fit");
        let members = (0..7)
            .flat_map(|j| (0..7).map(move |i| (i, j)))
            .filter(|&(i, j)| !((from..=to).contains(&i) && (from..=to).contains(&j)))
            .map(|(i, j)| ([i as f32, j as f32], h.apply([i as f32, j as f32])))
            .collect();
        (h, members)
    }

    #[test]
    fn corners_under_a_dark_card_are_covered() {
        // The card spans board lines 1.8..6.2; corner index i sits on line i + 1, so the
        // corners of lines 2..=6 (indices 1..=5) lie under it, those of lines 2 and 6 with
        // two of their three rows of sample boxes: enough, but not at the card's four
        // corners (two rows by two columns).
        let img = board_with_card(40, 1.8, 6.2);
        let integral = Integral::new(&img);
        let (h, members) = lattice(1, 5);
        let covered = covered_corners(&integral, &h, [0.0, 0.0], 1, &members);
        assert_eq!(covered.count(), 21, "{covered:?}");
        assert!(covered.corners[1][2] && covered.corners[5][4] && !covered.corners[1][1]);
        assert!(covered.touches(3, 3) && !covered.touches(0, 0));
        // A card ending 0.1 of a square short of a line leaves that line's corners.
        let img = board_with_card(40, 2.1, 5.9);
        let covered = covered_corners(&Integral::new(&img), &h, [0.0, 0.0], 1, &members);
        assert_eq!(covered.count(), 9, "{covered:?}");
    }

    #[test]
    fn a_card_in_a_square_colour_covers_nothing() {
        let img = board_with_card(200, 1.8, 6.2);
        let integral = Integral::new(&img);
        let (h, members) = lattice(1, 5);
        assert_eq!(
            covered_corners(&integral, &h, [0.0, 0.0], 1, &members).count(),
            0
        );
    }

    #[test]
    fn seen_corners_are_never_covered() {
        let img = board_with_card(40, 1.8, 6.2);
        let integral = Integral::new(&img);
        let (h, members) = lattice(9, 9);
        assert_eq!(
            covered_corners(&integral, &h, [0.0, 0.0], 1, &members).count(),
            0
        );
    }

    #[test]
    fn a_window_with_an_edge_line_neither_seen_nor_covered_is_not_trusted() {
        let img = board_with_card(40, 1.8, 6.2);
        let integral = Integral::new(&img);
        let (h, mut members) = lattice(1, 5);
        members.retain(|(ij, _)| ij[1] < 6.0);
        assert_eq!(
            covered_corners(&integral, &h, [0.0, 0.0], 1, &members).count(),
            0
        );
    }

    #[test]
    fn flat_gaps_among_seen_corners_are_no_card() {
        // Seen corners at every other place of a dark flat area: the flat places between
        // them are gaps in a pattern, not a card.
        let img = board_with_card(40, 1.8, 6.2);
        let integral = Integral::new(&img);
        let (h, mut members) = lattice(1, 5);
        members.push(([3.0, 3.0], h.apply([3.0, 3.0])));
        assert_eq!(
            covered_corners(&integral, &h, [0.0, 0.0], 1, &members).count(),
            0
        );
    }

    #[test]
    fn only_the_largest_block_of_enough_corners_counts() {
        let mut corners = [[false; 7]; 7];
        for (i, j) in [
            (0, 0),
            (1, 0),
            (0, 1),
            (4, 4),
            (5, 4),
            (4, 5),
            (5, 5),
            (6, 5),
        ] {
            corners[j][i] = true;
        }
        let block = largest_block(&corners, 5);
        assert_eq!(block.iter().flatten().filter(|&&c| c).count(), 5);
        assert!(block[5][6] && !block[0][0]);
        assert_eq!(largest_block(&corners, 6), [[false; 7]; 7]);
    }

    #[test]
    fn flat_margin_beyond_the_seen_span_is_not_covered() {
        // The board's right half is blank in a dark tone and no corner there was seen: the
        // seen span ends at column 2, so nothing beyond it counts.
        let img = board_with_card(40, 3.8, 9.0);
        let integral = Integral::new(&img);
        let (h, mut members) = lattice(9, 9);
        members.retain(|(ij, _)| ij[0] <= 2.0);
        assert_eq!(
            covered_corners(&integral, &h, [0.0, 0.0], 1, &members).count(),
            0
        );
    }
}
