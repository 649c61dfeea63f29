//! Which side is at the bottom, read from the board's coordinate labels (a..h, 1..8), inside
//! the edge squares (lichess, chess.com) or outside the frame (books). A board seen from
//! white's side shows `a` at the left and `8` at the top; from black's side `h` and `1`.
//!
//! Each label spot (the corners of the edge squares, the margin beside each edge square and
//! that margin's half next to the board) is cut from the straightened board; ink that
//! stands apart from its background and stays clear of the spot's inner sides (so a piece
//! reaching into the corner is not a label) is matched against the labels drawn in the
//! embedded DejaVu faces (files in either case). The two
//! orientations predict different characters at every spot; the one the readings agree
//! with wins, when enough of them do. When no spot says anything, `lined_up` looks for
//! labels anywhere along the edges (a stylesheet that draws them across the square lines).

use image::RgbImage;

use crate::quad::Quad;
use crate::render::Orientation;

mod glyph;
mod lined_up;
mod straightened;

use glyph::{GLYPH, best_label, glyph_at, templates};
use straightened::Straightened;

/// Pixels per square of the straightened board the labels are read on (labels are about a
/// fifth of a square high).
const SQUARE: usize = 64;
/// Least grey-level difference between a label and its background (lichess draws labels
/// in the other square colour, which on some themes is close).
const MIN_INK_CONTRAST: i32 = 25;
/// Margin read around the board, in squares.
const MARGIN: f32 = 0.7;
/// Groups of label spots (4 edges x (4 corners + outside), then 4 edges x the outside's
/// half next to the board).
const GROUPS: usize = 24;
/// Fewest labels of one group that must agree.
const MIN_AGREEING: usize = 3;
/// Squares smaller than this (image pixels) have labels too small to read.
const MIN_SQUARE: f32 = 20.0;

/// What the labels say.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CoordinateReading {
    /// Which side is at the bottom.
    pub orientation: Orientation,
    /// Labels that agree with it.
    pub agreeing: usize,
    /// Labels that agree with the other side.
    pub disagreeing: usize,
}

/// What the labels say, and where the labels that say it stand.
#[derive(Clone, Debug, PartialEq)]
pub struct LabelReading {
    /// Which side is at the bottom, and how many labels agree.
    pub reading: CoordinateReading,
    /// Where labels stand, `[x0, y0, x1, y1]` in board units (0 to 1 from the board's
    /// top-left corner as the picture shows it; a label outside the board lies beyond):
    /// for each edge where two or more labels of one style agree with `reading`, the
    /// place of its labels in their squares, on each of the edge's eight squares.
    pub boxes: Vec<[f32; 4]>,
}

/// Reads the coordinate labels around the board `quad` in `img`; `None` when too few
/// labels are legible to decide. Labels where a style usually puts them are read first;
/// when they say nothing, labels anywhere along the edges (`lined_up`).
pub fn read_coordinates(img: &RgbImage, quad: &Quad) -> Option<CoordinateReading> {
    read_labels(img, quad).map(|labels| labels.reading)
}

/// Labels of one style along one edge: whether the edge runs along x (top, bottom) or y
/// (left, right), and the labels' ink boxes (straightened pixels).
type LabelRows = Vec<(bool, Vec<[usize; 4]>)>;

/// [`read_coordinates`], with where the labels stand.
pub fn read_labels(img: &RgbImage, quad: &Quad) -> Option<LabelReading> {
    if quad.mean_side() / 8.0 < MIN_SQUARE {
        return None;
    }
    let board = Straightened::new(img, quad)?;
    let (reading, rows) = read_spots(&board).or_else(|| lined_up::read_lined_up(&board))?;
    let mut boxes: Vec<[f32; 4]> = rows
        .iter()
        .flat_map(|(along_x, row)| every_square_of(row, *along_x))
        .collect();
    // The margin and its half next to the board are two groups of spots with one label.
    boxes.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    boxes.dedup();
    Some(LabelReading { reading, boxes })
}

/// Boxes (board units) where one style's labels along an edge stand on each of its eight
/// squares: the union of the boxes of the labels `row` read (straightened pixels), each
/// taken relative to its square, put on every square. A label the reader missed (faint,
/// thin strokes) stands there too, and the classifier may take it for a piece.
fn every_square_of(row: &[[usize; 4]], along_x: bool) -> Vec<[f32; 4]> {
    // Straightened pixel `x` spans `(x - offset) / SQUARE` squares to one pixel more.
    let offset = MARGIN * SQUARE as f32;
    let to_squares = |b: &[usize; 4]| b.map(|v| (v as f32 - offset) / SQUARE as f32);
    // In squares, along the edge first: [along0, across0, along1, across1].
    let turned = |b: [f32; 4]| if along_x { b } else { [b[1], b[0], b[3], b[2]] };
    let mut union: Option<[f32; 4]> = None;
    for b in row.iter().map(to_squares).map(turned) {
        let k = ((b[0] + b[2]) / 2.0).floor();
        if !(0.0..8.0).contains(&k) {
            continue;
        }
        let rel = [b[0] - k, b[1], b[2] - k, b[3]];
        union = Some(match union {
            None => rel,
            Some(u) => [
                u[0].min(rel[0]),
                u[1].min(rel[1]),
                u[2].max(rel[2]),
                u[3].max(rel[3]),
            ],
        });
    }
    let Some(u) = union else {
        return Vec::new();
    };
    (0..8)
        .map(|k| {
            let k = k as f32;
            let b = turned([u[0] + k, u[1], u[2] + k, u[3]]);
            b.map(|v| v / 8.0)
        })
        .collect()
}

/// Reads the label spots: the corners of the edge squares and the margin beside them.
/// With the reading, the ink boxes (straightened pixels) of the glyphs in each group of
/// spots where two or more labels agree with it, whatever each reads as (a style draws
/// every label of an edge at the same place: a glyph there is a label, even misread).
fn read_spots(board: &Straightened<'_>) -> Option<(CoordinateReading, LabelRows)> {
    let templates = templates();
    // Votes (white, black) per group of spots: a label style puts every label of an edge
    // at the same place in its square, while stray matches (piece details, hatching)
    // scatter over the groups.
    let mut votes = [[0usize; 2]; GROUPS];
    // Every glyph's ink box by group, and whether the group's edge runs along x.
    let mut glyphs: Vec<(bool, Vec<[usize; 4]>)> = vec![(true, Vec::new()); GROUPS];
    for spot in spots() {
        let Some((glyph, ink)) = glyph_at(board, spot.rect) else {
            continue;
        };
        let (along_x, row) = &mut glyphs[spot.group];
        *along_x = !spot.digit;
        row.push(ink);
        let Some(label) = best_label(&glyph, templates, spot.digit) else {
            continue;
        };
        if label == spot.white {
            votes[spot.group][0] += 1;
        } else if label == spot.black {
            votes[spot.group][1] += 1;
        }
    }
    let reading = decide(&votes)?;
    let side = usize::from(reading.orientation == Orientation::Black);
    let rows = glyphs
        .into_iter()
        .zip(&votes)
        .filter(|(_, v)| v[side] >= 2)
        .map(|(row, _)| row)
        .collect();
    Some((reading, rows))
}

/// The side the votes (white, black) per group of label spots say, when they say it clearly
/// enough: enough labels in one group, three times as many as for the other side there,
/// more than the other side has over all groups (a tie says nothing: the confidence the
/// pipeline gives a reading would be a coin's), and the other side not ahead overall.
fn decide(votes: &[[usize; 2]; GROUPS]) -> Option<CoordinateReading> {
    let total = votes.iter().fold([0, 0], |t, v| [t[0] + v[0], t[1] + v[1]]);
    let (side, group) = (0..GROUPS)
        .flat_map(|g| [(0, g), (1, g)])
        .max_by_key(|&(side, g)| (votes[g][side], usize::MAX - votes[g][1 - side]))?;
    let (agreeing, disagreeing) = (votes[group][side], votes[group][1 - side]);
    let decided = agreeing >= MIN_AGREEING
        && agreeing >= 3 * disagreeing
        && agreeing > total[1 - side]
        && total[side] >= total[1 - side];
    decided.then_some(CoordinateReading {
        orientation: if side == 0 {
            Orientation::White
        } else {
            Orientation::Black
        },
        agreeing,
        disagreeing: total[1 - side],
    })
}

/// A place a label may be, and what each orientation expects there.
struct Spot {
    /// `[x0, y0, x1, y1]` in straightened pixels.
    rect: [usize; 4],
    /// Edge (bottom, top, left, right) x place (four corners, outside): `0..GROUPS`.
    group: usize,
    /// A rank digit (left and right edges) rather than a file letter.
    digit: bool,
    white: char,
    black: char,
}

/// Every label spot: the two corners of each edge square on the board's edge, and the
/// margin cell beside it.
fn spots() -> Vec<Spot> {
    let s = SQUARE;
    let m = (MARGIN * s as f32) as usize;
    let corner = s / 2;
    let files = |k: usize| (char::from(b'a' + k as u8), char::from(b'h' - k as u8));
    let ranks = |k: usize| (char::from(b'8' - k as u8), char::from(b'1' + k as u8));
    // Per edge (bottom, top, left, right): where its edge squares and its margin start
    // across the edge, and which corners of a square lie along the board's edge.
    type Edge = (usize, usize, fn(usize) -> bool);
    let edges: [Edge; 4] = [
        (m + 7 * s, m + 8 * s, |place| place >= 2),
        (m, 0, |place| place < 2),
        (m, 0, |place| place % 2 == 0),
        (m + 7 * s, m + 8 * s, |place| place % 2 == 1),
    ];
    let mut out = Vec::new();
    for k in 0..8 {
        let along = m + k * s;
        for (edge, &(square, margin, on_edge)) in edges.iter().enumerate() {
            // Bottom and top: file letters; left and right: rank digits.
            let digit = edge >= 2;
            let (white, black) = if digit { ranks(k) } else { files(k) };
            // [x0, y0, x1, y1] of a box `len_along` x `len_across` at these offsets.
            let rect = |a: usize, c: usize, len_along: usize, len_across: usize| {
                if digit {
                    [c, a, c + len_across, a + len_along]
                } else {
                    [a, c, a + len_along, c + len_across]
                }
            };
            let spot = |rect, group| Spot {
                rect,
                group,
                digit,
                white,
                black,
            };
            // Labels inside sit along the board's edge: the two corners on it.
            for (place, (cx, cy)) in corners(s, corner) {
                if on_edge(place) {
                    let (x, y) = if digit {
                        (square, along)
                    } else {
                        (along, square)
                    };
                    let r = [x + cx, y + cy, x + cx + corner, y + cy + corner];
                    out.push(spot(r, edge * 5 + place));
                }
            }
            out.push(spot(rect(along, margin, s, m), edge * 5 + 4));
            // The half of the margin next to the board alone: labels on a narrow frame
            // with the page beyond it (the whole margin is then mostly page, whose tone its
            // median takes for the label's background).
            let near = if margin > 0 { margin } else { m - m / 2 };
            out.push(spot(rect(along, near, s, m / 2), 20 + edge));
        }
    }
    out
}

/// The four corner boxes of side `corner` in a square of side `s`, numbered top-left,
/// top-right, bottom-left, bottom-right, with their offsets.
fn corners(s: usize, corner: usize) -> [(usize, (usize, usize)); 4] {
    let far = s - corner;
    [(0, (0, 0)), (1, (far, 0)), (2, (0, far)), (3, (far, far))]
}

#[cfg(test)]
mod tests {
    use resvg::tiny_skia::{Color, Pixmap};

    use super::*;
    use crate::render::text::{draw_text, fonts};

    /// Every label spot lies in the ring the straightened board samples once (a spot
    /// off it would be sampled on its own: right, but slower).
    #[test]
    fn every_spot_lies_in_the_ring() {
        let spots = spots();
        assert_eq!(spots.len(), 8 * 4 * 4);
        for spot in spots {
            let [x0, y0, x1, y1] = spot.rect;
            assert!(
                (y0..y1).all(|y| straightened::in_ring(y, x0, x1)),
                "{:?}",
                spot.rect
            );
        }
    }

    #[test]
    fn votes_decide_only_when_one_side_is_clearly_ahead() {
        let mut votes = [[0usize; 2]; GROUPS];
        assert_eq!(decide(&votes), None);
        // Four labels of one edge read from black's side.
        votes[3] = [0, 4];
        let read = decide(&votes).unwrap();
        assert_eq!(read.orientation, Orientation::Black);
        assert_eq!((read.agreeing, read.disagreeing), (4, 0));
        // Too few in any one group.
        votes[3] = [0, 2];
        assert_eq!(decide(&votes), None);
        // Stray white readings scattered over other groups, as many as the black group
        // holds: a tie.
        votes[3] = [0, 3];
        votes[7] = [2, 0];
        votes[12] = [1, 0];
        assert_eq!(decide(&votes), None);
        // One more black label breaks it.
        votes[3] = [0, 4];
        let read = decide(&votes).unwrap();
        assert_eq!(read.orientation, Orientation::Black);
        assert_eq!((read.agreeing, read.disagreeing), (4, 3));
    }

    /// A board seen from black's side with its labels on a narrow light frame (a third of
    /// a square) and a dark page beyond it, as cm-chessboard draws its "frame" border:
    /// file letters (in capitals when `capitals`) below, rank digits on the left when
    /// `ranks`. 12 px labels on 60 px squares.
    fn framed_board(capitals: bool, ranks: bool) -> (RgbImage, Quad) {
        let cell = 60.0f32;
        let frame = cell / 3.0;
        let page = cell;
        let total = (8.0 * cell + 2.0 * (frame + page)) as u32;
        let mut pm = Pixmap::new(total, total).unwrap();
        pm.fill(Color::from_rgba8(22, 21, 18, 255));
        let origin = page + frame;
        let (light, dark) = ([240, 217, 181], [181, 136, 99]);
        fill(&mut pm, page, page, 8.0 * cell + 2.0 * frame, light);
        for r in 0..8 {
            for f in 0..8 {
                let c = if (r + f) % 2 == 0 { light } else { dark };
                fill(
                    &mut pm,
                    origin + f as f32 * cell,
                    origin + r as f32 * cell,
                    cell,
                    c,
                );
            }
        }
        let font = &fonts()[0];
        let px = 12.0;
        for k in 0..8 {
            let file = char::from(if capitals { b'H' } else { b'h' } - k as u8).to_string();
            let centre = origin + (k as f32 + 0.5) * cell;
            let below = origin + 8.0 * cell + (frame - px) / 2.0;
            draw_text(&mut pm, font, px, centre - 3.0, below, [30, 30, 30], &file);
            if ranks {
                let rank = char::from(b'1' + k as u8).to_string();
                let x = page + frame / 2.0 - 3.0;
                draw_text(&mut pm, font, px, x, centre - px / 2.0, [30, 30, 30], &rank);
            }
        }
        let end = origin + 8.0 * cell;
        (
            crate::render::scene::to_rgb(&pm),
            Quad([[origin, origin], [end, origin], [end, end], [origin, end]]),
        )
    }

    /// lichess's brown square colours.
    pub(super) const LIGHT: [u8; 3] = [240, 217, 181];
    pub(super) const DARK: [u8; 3] = [181, 136, 99];

    /// A dark page with a brown board of `cell`-px squares `margin` px in from each side
    /// (a light square at the top left), and the board's outline.
    pub(super) fn brown_board(cell: f32, margin: f32) -> (Pixmap, Quad) {
        let total = (8.0 * cell + 2.0 * margin) as u32;
        let mut pm = Pixmap::new(total, total).unwrap();
        pm.fill(Color::from_rgba8(22, 21, 18, 255));
        for r in 0..8 {
            for f in 0..8 {
                let colour = if (r + f) % 2 == 0 { LIGHT } else { DARK };
                let (x, y) = (margin + f as f32 * cell, margin + r as f32 * cell);
                fill(&mut pm, x, y, cell, colour);
            }
        }
        let end = margin + 8.0 * cell;
        (
            pm,
            Quad([[margin, margin], [end, margin], [end, end], [margin, end]]),
        )
    }

    /// Fills a `w` x `w` square at (x, y) with `c`.
    fn fill(pm: &mut Pixmap, x: f32, y: f32, w: f32, c: [u8; 3]) {
        let rect = resvg::tiny_skia::Rect::from_xywh(x, y, w, w).unwrap();
        let paint = crate::render::theme::paint(c, 255);
        pm.fill_rect(rect, &paint, resvg::tiny_skia::Transform::identity(), None);
    }

    /// Like chessground's own stylesheet on a large board seen from black's side: 10-px
    /// labels (a seventh of a 70-px square) in grey or white at 0.8 opacity, rank digits
    /// at the top left of the left column's squares, capital file letters at the bottom
    /// right of the bottom row's. Each is under 2% of its spot, and faint.
    #[test]
    fn small_faint_labels_inside_the_squares_are_read() {
        let cell = 70.0f32;
        let margin = 40.0;
        let (mut pm, quad) = brown_board(cell, margin);
        let (light, dark) = (LIGHT, DARK);
        // The label colour: grey 72 on light squares, white on dark ones, at 0.8 opacity.
        let label = |on: [u8; 3], of: [u8; 3]| -> [u8; 3] {
            let ink = if of == dark { 72.0 } else { 255.0 };
            std::array::from_fn(|c| (0.8 * ink + 0.2 * f32::from(on[c])) as u8)
        };
        let font = &fonts()[0];
        let px = 10.0;
        for r in 0..8 {
            for f in 0..8 {
                let (x, y) = (margin + f as f32 * cell, margin + r as f32 * cell);
                let (own, other) = if (r + f) % 2 == 0 {
                    (light, dark)
                } else {
                    (dark, light)
                };
                if f == 0 {
                    let rank = char::from(b'1' + r as u8).to_string();
                    draw_text(
                        &mut pm,
                        font,
                        px,
                        x + 4.0,
                        y + 3.0,
                        label(own, other),
                        &rank,
                    );
                }
                if r == 7 {
                    let file = char::from(b'H' - f as u8).to_string();
                    let fx = x + cell - 14.0;
                    draw_text(
                        &mut pm,
                        font,
                        px,
                        fx,
                        y + cell - 13.0,
                        label(own, other),
                        &file,
                    );
                }
            }
        }
        let labels = read_labels(&crate::render::scene::to_rgb(&pm), &quad)
            .expect("the faint labels are read");
        assert_eq!(labels.reading.orientation, Orientation::Black);
        // Where the letters stand (in squares: 14 px left of their square's right side,
        // 13 px above its foot), on every square of the bottom row; and no box anywhere
        // but at a label's place (the bottom row's bottom right corners, the left
        // column's top left ones, where the digits stand).
        let boxes: Vec<[f32; 4]> = labels.boxes.iter().map(|b| b.map(|v| v * 8.0)).collect();
        let covers =
            |b: &[f32; 4], x: f32, y: f32| b[0] <= x && x <= b[2] && b[1] <= y && y <= b[3];
        for k in 0..8 {
            let letter = k as f32 + 1.0 - 9.0 / cell;
            assert!(
                boxes.iter().any(|b| covers(b, letter, 7.88)),
                "file {k}: {boxes:?}"
            );
        }
        let at_a_label = |b: &[f32; 4]| {
            let letter = b[1] > 7.5 && b[0].fract() > 0.5;
            let digit = b[2] < 0.5 && b[3].fract() < 0.5;
            letter || digit
        };
        assert!(boxes.iter().all(at_a_label), "{boxes:?}");
        // Nothing is placed in the squares' middles.
        assert!(!boxes.iter().any(|b| covers(b, 3.5, 3.5)));
    }

    /// One style's labels read on two squares of an edge stand, as the union of their
    /// boxes in their squares, on each of the edge's eight squares.
    #[test]
    fn labels_read_on_some_squares_stand_on_every_square_of_their_edge() {
        let offset = MARGIN * SQUARE as f32;
        // Straightened pixels of a box `[x0, y0, x1, y1]` given in squares.
        let px = |b: [f32; 4]| b.map(|v| (v * SQUARE as f32 + offset).round() as usize);
        // Letters at the bottom right of a1 and c1 (c's a little taller).
        let row = [px([0.7, 7.6, 0.9, 7.85]), px([2.7, 7.55, 2.9, 7.85])];
        let boxes = every_square_of(&row, true);
        assert_eq!(boxes.len(), 8);
        for (k, b) in boxes.iter().enumerate() {
            let b = b.map(|v| v * 8.0);
            let want = [k as f32 + 0.7, 7.55, k as f32 + 0.9, 7.85];
            assert!(
                b.iter().zip(want).all(|(a, w)| (a - w).abs() < 0.02),
                "{k}: {b:?}"
            );
        }
        // Digits at the top left of the left column's squares, along y.
        let row = [px([0.05, 2.05, 0.2, 2.25])];
        let boxes = every_square_of(&row, false);
        let b = boxes[5].map(|v| v * 8.0);
        assert!(
            (b[1] - 5.05).abs() < 0.02 && (b[0] - 0.05).abs() < 0.02,
            "{b:?}"
        );
        // A box off the board's squares along the edge says nothing.
        assert!(every_square_of(&[px([-0.5, 7.6, -0.3, 7.8])], true).is_empty());
    }

    /// The margin read as a whole is mostly page there, so only its half next to the board
    /// finds the labels.
    #[test]
    fn labels_on_a_narrow_frame_beside_a_dark_page_are_read() {
        let (img, quad) = framed_board(false, true);
        let read = read_coordinates(&img, &quad).expect("the frame's labels are read");
        assert_eq!(read.orientation, Orientation::Black);
    }

    /// File letters in capitals (chessground's own stylesheet) are read as files.
    #[test]
    fn file_letters_in_capitals_are_read() {
        let (img, quad) = framed_board(true, false);
        let read = read_coordinates(&img, &quad).expect("capital file letters are read");
        assert_eq!(read.orientation, Orientation::Black);
        // Every one of them (against lower-case letters alone, half of them match by
        // chance: C, c and the like).
        assert_eq!((read.agreeing, read.disagreeing), (8, 0), "{read:?}");
    }
}
