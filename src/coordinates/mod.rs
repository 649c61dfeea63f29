//! Which side is at the bottom, read from the board's coordinate labels (a..h, 1..8), inside
//! the edge squares (lichess, chess.com) or outside the frame (books). A board seen from
//! white's side shows `a` at the left and `8` at the top; from black's side `h` and `1`.
//!
//! Each label spot (the corners of the edge squares, the margin beside each edge square and
//! that margin's half next to the board) is cut from the straightened board; ink that
//! stands apart from its background and stays clear of the spot's inner sides (so a piece
//! reaching into the corner is not a label; a corner with nothing there is looked at again
//! wider, for a large label on a small board) is matched against the labels drawn in the
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

use glyph::{GLYPH, NoGlyph, best_label, glyph_at, templates};
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
/// Side of the wider corner a label spot looks at when its own (half a square) holds no
/// label, in eighths of a square.
const WIDE_CORNER_EIGHTHS: usize = 5;

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

/// A glyph's ink box (straightened pixels) and, when only a wider corner found it, the side
/// whose label it reads as (`None` inside: neither side's).
type WideInk = ([usize; 4], Option<Option<usize>>);

/// Reads the label spots: the corners of the edge squares and the margin beside them.
/// With the reading, the ink boxes (straightened pixels) of the glyphs in each group of
/// spots where two or more labels agree with it, whatever each reads as (a style draws
/// every label of an edge at the same place: a glyph there is a label, even misread),
/// except that a glyph only the wider corner found counts only when it reads as the label
/// the reading expects there (a small man can stand whole in that corner).
fn read_spots(board: &Straightened<'_>) -> Option<(CoordinateReading, LabelRows)> {
    let templates = templates();
    // Votes (white, black) per group of spots: a label style puts every label of an edge
    // at the same place in its square, while stray matches (piece details, hatching)
    // scatter over the groups.
    let mut votes = [[0usize; 2]; GROUPS];
    // Every glyph's ink box by group, and whether the group's edge runs along x; with,
    // for a glyph of a wider corner, the side whose label it reads as.
    let mut glyphs: Vec<(bool, Vec<WideInk>)> = vec![(true, Vec::new()); GROUPS];
    for spot in spots() {
        // A label as large as chessboard.js draws on a small board (a 14 px letter on a
        // 29 px square) reaches past the corner's inner sides: a wider corner, only
        // where the corner itself held ink but no label (a blank corner has nothing
        // reaching into it).
        let (found, wide) = match glyph_at(board, spot.rect) {
            Ok(found) => (found, false),
            Err(NoGlyph::NotALabel) => match spot.wider.map(|rect| glyph_at(board, rect)) {
                Some(Ok(found)) => (found, true),
                _ => continue,
            },
            Err(NoGlyph::Blank) => continue,
        };
        let (glyph, ink) = found;
        // The side (0 white, 1 black) whose label the glyph reads as, if either's.
        let read = best_label(&glyph, templates, spot.digit)
            .and_then(|label| [spot.white, spot.black].iter().position(|&l| l == label));
        if let Some(side) = read {
            votes[spot.group][side] += 1;
        }
        let (along_x, row) = &mut glyphs[spot.group];
        *along_x = !spot.digit;
        row.push((ink, wide.then_some(read)));
    }
    let reading = decide(&votes)?;
    let side = usize::from(reading.orientation == Orientation::Black);
    let rows = glyphs
        .into_iter()
        .zip(&votes)
        .filter(|(_, v)| v[side] >= 2)
        .map(|((along_x, row), _)| {
            let labels = row
                .into_iter()
                .filter(|(_, wide)| wide.is_none_or(|read| read == Some(side)))
                .map(|(ink, _)| ink)
                .collect();
            (along_x, labels)
        })
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
    /// For a corner of a square, the wider corner looked at when `rect` holds no label.
    wider: Option<[usize; 4]>,
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
    let wide = s * WIDE_CORNER_EIGHTHS / 8;
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
            let spot = |rect, wider, group| Spot {
                rect,
                wider,
                group,
                digit,
                white,
                black,
            };
            // Labels inside sit along the board's edge: the two corners on it.
            let (x, y) = if digit {
                (square, along)
            } else {
                (along, square)
            };
            let at = |(cx, cy): (usize, usize), side: usize| {
                [x + cx, y + cy, x + cx + side, y + cy + side]
            };
            for ((place, offset), (_, wide_offset)) in
                corners(s, corner).into_iter().zip(corners(s, wide))
            {
                if on_edge(place) {
                    out.push(spot(
                        at(offset, corner),
                        Some(at(wide_offset, wide)),
                        edge * 5 + place,
                    ));
                }
            }
            out.push(spot(rect(along, margin, s, m), None, edge * 5 + 4));
            // The half of the margin next to the board alone: labels on a narrow frame
            // with the page beyond it (the whole margin is then mostly page, whose tone its
            // median takes for the label's background).
            let near = if margin > 0 { margin } else { m - m / 2 };
            out.push(spot(rect(along, near, s, m / 2), None, 20 + edge));
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
mod tests;
