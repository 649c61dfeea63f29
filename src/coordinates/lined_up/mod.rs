//! A second look for labels that sit off the spots the first look reads. chessground's own
//! stylesheet places its 9-px labels at fixed pixel offsets whatever the board's size, so
//! on squares under about 55 px each rank digit lies across its square's top line and each
//! file letter across the line to the next file, or inside the next file's square.
//!
//! Here a band along each edge (half a square into the board, a third of one outside) is
//! searched for small free-standing glyphs wherever they are, each square's part of the
//! band against its own background, so a label across two square colours keeps both
//! halves. Each glyph is read, and an orientation is taken only when three or more
//! different labels stand where it puts them, give or take one shift along the edge
//! shared by all: the two orientations run the labels in opposite directions, so stray
//! readings (piece details, arrows) almost never line up that way.

use super::glyph::{normalise, standardise};
use super::straightened::CANVAS;
use super::{
    CoordinateReading, GLYPH, LabelRows, MARGIN, MIN_INK_CONTRAST, SQUARE, Straightened, best_label,
};
use crate::render::Orientation;

/// How far the band reaches into the board, in squares.
const INSIDE: f32 = 0.5;
/// How far it reaches outside the board's edge, in squares.
const OUTSIDE: f32 = 0.35;
/// How far (squares) a label may stand from where the shared shift puts it.
const TOLERANCE: f32 = 0.2;
/// Largest shift (squares) of the labels from their squares' middles.
const MAX_SHIFT: f32 = 1.25;
/// How far (squares) labels of one style may stand at different distances from the edge.
const ACROSS_TOLERANCE: f32 = 0.12;
/// How much taller one label of a style may be than another.
const HEIGHT_RATIO: f32 = 1.4;
/// Fewest different labels that must line up.
const MIN_LINED_UP: usize = 3;
/// Glyphs over all four bands beyond which a board is textured (dotted or hatched book
/// squares, a dithered scan give dozens of small glyphs, among which three can line up by
/// chance; labelled widget boards give at most about 22)...
const TEXTURED: usize = 32;
/// ... and the fewest labels that must line up on such a board.
const MIN_LINED_UP_TEXTURED: usize = 5;
/// Pixels either side of a line between squares where the background is taken along the
/// line (its row's or column's median in the square) rather than over the square: there
/// the two colours blend, and the straightened grid may miss the line by a pixel or two.
const LINE_BAND: usize = 3;

/// A label found in a band: where along the edge (squares from the board's left or top
/// side), where across it (squares from the band's top or left side), how tall
/// (straightened pixels), and which label it reads as (index 0..8 in the order white's view runs them:
/// files a..h left to right, ranks 8..1 top to bottom).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Found {
    along: f32,
    across: f32,
    height: f32,
    index: usize,
    /// Its ink's box `[x0, y0, x1, y1]` in straightened pixels.
    bounds: [usize; 4],
}

impl Found {
    /// Drawn like `other`, as one style draws all its labels: about as tall, and as far
    /// from the edge.
    fn drawn_like(&self, other: &Found) -> bool {
        (self.across - other.across).abs() <= ACROSS_TOLERANCE
            && self.height <= other.height * HEIGHT_RATIO
            && other.height <= self.height * HEIGHT_RATIO
    }
}

/// The board's four edges.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Edge {
    Bottom,
    Top,
    Left,
    Right,
}

impl Edge {
    const ALL: [Edge; 4] = [Edge::Bottom, Edge::Top, Edge::Left, Edge::Right];

    /// Files along the top and bottom, ranks along the sides.
    fn digits(self) -> bool {
        matches!(self, Edge::Left | Edge::Right)
    }
}

/// Reads the labels along the board's edges wherever they stand; `None` unless one
/// orientation lines up clearly more of them than the other. With the reading, the ink
/// boxes (straightened pixels) of the labels that line up for it, per edge where two or
/// more do, and whether that edge runs along x (top and bottom) or y.
pub(super) fn read_lined_up(board: &Straightened<'_>) -> Option<(CoordinateReading, LabelRows)> {
    let templates = super::templates();
    let found: Vec<Vec<Found>> = Edge::ALL
        .iter()
        .map(|&edge| labels_in_band(board, edge, templates))
        .collect();
    let reading = decide(&found)?;
    let rows = Edge::ALL
        .iter()
        .zip(&found)
        .filter_map(|(edge, found)| {
            let (n, used) = lined_up(found, reading.orientation);
            let boxes: Vec<[usize; 4]> = found
                .iter()
                .zip(&used)
                .filter(|(_, u)| **u)
                .map(|(f, _)| f.bounds)
                .collect();
            (n >= 2).then_some((!edge.digits(), boxes))
        })
        .collect();
    Some((reading, rows))
}

/// The side whose best edge lines up three or more labels (five on a textured board),
/// when the other side, with those labels set aside (a misread label can line up for
/// both), lines up at most a third as many on any edge.
fn decide(found: &[Vec<Found>]) -> Option<CoordinateReading> {
    let glyphs: usize = found.iter().map(Vec::len).sum();
    let needed = if glyphs > TEXTURED {
        MIN_LINED_UP_TEXTURED
    } else {
        MIN_LINED_UP
    };
    let sides = [Orientation::White, Orientation::Black];
    let (edge, side, (agreeing, used)) = (0..found.len())
        .flat_map(|e| sides.map(|o| (e, o, lined_up(&found[e], o))))
        .max_by_key(|(_, _, (n, _))| *n)?;
    let other = if side == Orientation::White {
        Orientation::Black
    } else {
        Orientation::White
    };
    let disagreeing = (0..found.len())
        .map(|e| {
            let rest: Vec<Found> = if e == edge {
                found[e]
                    .iter()
                    .zip(&used)
                    .filter(|(_, u)| !**u)
                    .map(|(f, _)| *f)
                    .collect()
            } else {
                found[e].clone()
            };
            lined_up(&rest, other).0
        })
        .max()
        .unwrap_or(0);
    (agreeing >= needed && agreeing >= 3 * disagreeing).then_some(CoordinateReading {
        orientation: side,
        agreeing,
        disagreeing,
    })
}

/// The most different labels that stand where `orientation` puts them, with one shift
/// along the edge shared by all (0 when fewer than two line up), and which of `found`
/// they are.
fn lined_up(found: &[Found], orientation: Orientation) -> (usize, Vec<bool>) {
    // Where the orientation puts each label's square middle, in squares along the edge.
    let expected = |f: &Found| match orientation {
        Orientation::White => f.index as f32 + 0.5,
        Orientation::Black => 7.5 - f.index as f32,
    };
    let shifts: Vec<f32> = found.iter().map(|f| f.along - expected(f)).collect();
    let mut best = (0, vec![false; found.len()]);
    for (first, &shift) in found.iter().zip(&shifts) {
        if shift.abs() > MAX_SHIFT {
            continue;
        }
        let mut labels = [false; 8];
        let mut used = vec![false; found.len()];
        for ((f, &s), u) in found.iter().zip(&shifts).zip(&mut used) {
            if (s - shift).abs() <= TOLERANCE && f.drawn_like(first) {
                labels[f.index] = true;
                *u = true;
            }
        }
        let n = labels.iter().filter(|&&l| l).count();
        if n > best.0 {
            best = (n, used);
        }
    }
    if best.0 >= 2 {
        best
    } else {
        (0, vec![false; found.len()])
    }
}

/// The labels read in the band along `edge`.
fn labels_in_band(
    board: &Straightened<'_>,
    edge: Edge,
    templates: &[(char, Vec<f32>)],
) -> Vec<Found> {
    let s = SQUARE as f32;
    let offset = MARGIN * s;
    let (rect, lines_x, lines_y) = band(edge);
    let [x0, y0, x1, y1] = rect;
    let (w, h) = (x1 - x0, y1 - y0);
    let mut values = Vec::with_capacity(w * h);
    for y in y0..y1 {
        board.gray_row(y, x0, x1, &mut values);
    }
    let local = |lines: &[usize], start: usize, end: usize| -> Vec<usize> {
        let mut cuts = vec![0];
        cuts.extend(
            lines
                .iter()
                .filter(|&&l| l > start && l < end)
                .map(|&l| l - start),
        );
        cuts.push(end - start);
        cuts
    };
    let ink = ink_by_cell(
        &values,
        w,
        &local(&lines_x, x0, x1),
        &local(&lines_y, y0, y1),
    );
    let digit = edge.digits();
    let mut found = Vec::new();
    for component in components(&ink, w, h) {
        let Some(glyph) = component.glyph(w, h) else {
            continue;
        };
        let Some(label) = best_label(&glyph, templates, digit) else {
            continue;
        };
        let [bx0, by0, bx1, by1] = component.bounds;
        let (middle, across) = if digit {
            (
                y0 as f32 + (by0 + by1) as f32 / 2.0,
                (bx0 + bx1) as f32 / 2.0,
            )
        } else {
            (
                x0 as f32 + (bx0 + bx1) as f32 / 2.0,
                (by0 + by1) as f32 / 2.0,
            )
        };
        let index = if digit {
            usize::from(b'8' - label as u8)
        } else {
            usize::from(label as u8 - b'a')
        };
        found.push(Found {
            along: (middle - offset) / s,
            across: across / s,
            height: (by1 - by0) as f32,
            index,
            bounds: [x0 + bx0, y0 + by0, x0 + bx1, y0 + by1],
        });
    }
    found
}

/// The band along `edge`: its straightened rectangle `[x0, y0, x1, y1]`, and the lines
/// across it (x, y) where one square (or the margin) gives way to the next.
fn band(edge: Edge) -> ([usize; 4], Vec<usize>, Vec<usize>) {
    let s = SQUARE as f32;
    let offset = MARGIN * s;
    let total = CANVAS;
    let near = (offset + 8.0 * s).round() as usize;
    let far = offset.round() as usize;
    let (inside, outside) = ((INSIDE * s) as usize, (OUTSIDE * s) as usize);
    match edge {
        Edge::Bottom => (
            [0, near - inside, total, near + outside],
            grid(),
            vec![near],
        ),
        Edge::Top => ([0, far - outside, total, far + inside], grid(), vec![far]),
        Edge::Left => ([far - outside, 0, far + inside, total], vec![far], grid()),
        Edge::Right => (
            [near - inside, 0, near + outside, total],
            vec![near],
            grid(),
        ),
    }
}

/// The straightened positions of the lines between squares along an edge, the board's
/// two ends included.
fn grid() -> Vec<usize> {
    let offset = MARGIN * SQUARE as f32;
    (0..=8)
        .map(|k| (offset + (k * SQUARE) as f32).round() as usize)
        .collect()
}

/// Ink of a band cut into cells by `cuts_x` and `cuts_y` (band coordinates, both ends
/// included): what differs from its background by more than a label's least contrast,
/// either way (a cell's extremes are often a piece's, which would set the bar above a
/// faint label's). The background is the cell's median; within a few pixels of a line
/// between cells, the median of the pixel's row (or column) in its cell, because there the
/// two squares' colours blend.
fn ink_by_cell(values: &[u8], w: usize, cuts_x: &[usize], cuts_y: &[usize]) -> Vec<bool> {
    let h = values.len() / w;
    let cols = cuts_x.len() - 1;
    let rows = cuts_y.len() - 1;
    // Per column (row) of the band: its cell, and whether it lies near a line between cells.
    let cell_of = |cuts: &[usize], n: usize| -> Vec<usize> {
        (0..n)
            .map(|v| cuts[1..].iter().position(|&e| v < e).unwrap_or(0))
            .collect()
    };
    let near = |cuts: &[usize], n: usize| -> Vec<bool> {
        (0..n)
            .map(|v| {
                cuts[1..cuts.len() - 1]
                    .iter()
                    .any(|&l| v + LINE_BAND >= l && v < l + LINE_BAND)
            })
            .collect()
    };
    let (col_cell, row_cell) = (cell_of(cuts_x, w), cell_of(cuts_y, h));
    let (near_x, near_y) = (near(cuts_x, w), near(cuts_y, h));
    let mut patch = Vec::new();
    let mut cell_background = vec![0i32; rows * cols];
    for r in 0..rows {
        for c in 0..cols {
            patch.clear();
            for y in cuts_y[r]..cuts_y[r + 1] {
                patch.extend_from_slice(&values[y * w + cuts_x[c]..y * w + cuts_x[c + 1]]);
            }
            cell_background[r * cols + c] = median(&mut patch);
        }
    }
    // Near a line across the band's columns: each column's median in its cell.
    let mut column_background = vec![0i32; w * rows];
    for x in (0..w).filter(|&x| near_x[x]) {
        for r in 0..rows {
            patch.clear();
            patch.extend((cuts_y[r]..cuts_y[r + 1]).map(|y| values[y * w + x]));
            column_background[x * rows + r] = median(&mut patch);
        }
    }
    let mut ink = vec![false; values.len()];
    let mut backgrounds = vec![0i32; cols];
    for y in 0..h {
        let r = row_cell[y];
        // Near a line across the band's rows: each cell's median of this row.
        for c in 0..cols {
            backgrounds[c] = if near_y[y] {
                patch.clear();
                patch.extend_from_slice(&values[y * w + cuts_x[c]..y * w + cuts_x[c + 1]]);
                median(&mut patch)
            } else {
                cell_background[r * cols + c]
            };
        }
        for x in 0..w {
            let v = values[y * w + x];
            let background = if near_x[x] && !near_y[y] {
                column_background[x * rows + r]
            } else {
                backgrounds[col_cell[x]]
            };
            ink[y * w + x] = (i32::from(v) - background).abs() > MIN_INK_CONTRAST;
        }
    }
    ink
}

/// The median of some grey levels (reorders them).
fn median(values: &mut [u8]) -> i32 {
    if values.is_empty() {
        return 0;
    }
    let mid = values.len() / 2;
    i32::from(*values.select_nth_unstable(mid).1)
}

/// One connected piece of ink (8-neighbours).
struct Component {
    /// Its pixels (band indices).
    pixels: Vec<usize>,
    /// `[x0, y0, x1, y1]`, exclusive ends.
    bounds: [usize; 4],
}

impl Component {
    /// The component as a normalised glyph, when it looks like one label: small, not a
    /// filled blob, and clear of the band's sides (a piece reaches the side deep in the
    /// board, the page the outer one).
    fn glyph(&self, w: usize, h: usize) -> Option<Vec<f32>> {
        let [bx0, by0, bx1, by1] = self.bounds;
        let (gw, gh) = (bx1 - bx0, by1 - by0);
        if bx0 == 0 || by0 == 0 || bx1 == w || by1 == h {
            return None;
        }
        let most = (0.45 * SQUARE as f32) as usize;
        let count = self.pixels.len();
        if count < 8 || gh < 5 || gh > most || gw > most || gw * 2 > gh * 3 || gh > gw * 6 {
            return None;
        }
        // A filled blob (a move dot, a bullet) is no character.
        if count * 10 > gw * gh * 8 {
            return None;
        }
        let mut mask = vec![false; gw * gh];
        for &i in &self.pixels {
            let (x, y) = (i % w - bx0, i / w - by0);
            mask[y * gw + x] = true;
        }
        let glyph = standardise(normalise(&mask, gw, [0, 0, gw, gh]));
        debug_assert_eq!(glyph.len(), GLYPH * GLYPH);
        Some(glyph)
    }
}

/// The connected pieces of ink (8-neighbours) in a `w` x `h` mask.
fn components(ink: &[bool], w: usize, h: usize) -> Vec<Component> {
    let mut seen = vec![false; ink.len()];
    let mut out = Vec::new();
    let mut stack = Vec::new();
    for start in 0..ink.len() {
        if !ink[start] || seen[start] {
            continue;
        }
        seen[start] = true;
        stack.push(start);
        let mut pixels = Vec::new();
        let mut b = [w, h, 0, 0];
        while let Some(i) = stack.pop() {
            pixels.push(i);
            let (x, y) = (i % w, i / w);
            b = [b[0].min(x), b[1].min(y), b[2].max(x + 1), b[3].max(y + 1)];
            for dy in -1i64..=1 {
                for dx in -1i64..=1 {
                    let (nx, ny) = (x as i64 + dx, y as i64 + dy);
                    if nx < 0 || ny < 0 || nx >= w as i64 || ny >= h as i64 {
                        continue;
                    }
                    let j = ny as usize * w + nx as usize;
                    if ink[j] && !seen[j] {
                        seen[j] = true;
                        stack.push(j);
                    }
                }
            }
        }
        out.push(Component { pixels, bounds: b });
    }
    out
}

#[cfg(test)]
mod tests;
