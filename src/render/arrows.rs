//! Arrows drawn over a board: the broad translucent ones of analysis apps (lichess,
//! chess.com), and the thin opaque ones of books and annotation tools (LaTeX's
//! `chessboard`, printed exports), whose small head on an empty square looks like a pawn
//! to a model that never saw one.

use rand::{Rng, RngExt};
use resvg::tiny_skia::{
    self, FillRule, LineCap, LineJoin, Paint, PathBuilder, Pixmap, Stroke, Transform,
};

use super::overlay::{Grid, MARK_COLOURS};
use super::theme::paint;

/// A way to draw an arrow from one square (row, column) to another.
pub(super) type Draw<R> = fn(&mut Pixmap, &Grid, (usize, usize), (usize, usize), &mut R);

/// A square for an arrow from `from` (0..64, row-major) to point at: a knight's jump three
/// times in ten when one fits on the board, any square otherwise (`from` itself among them:
/// the caller draws nothing then).
pub(super) fn target(from: usize, rng: &mut impl Rng) -> usize {
    if rng.random_bool(0.3) {
        let (r, c) = ((from / 8) as i32, (from % 8) as i32);
        let jumps = [
            (1, 2),
            (2, 1),
            (-1, 2),
            (-2, 1),
            (1, -2),
            (2, -1),
            (-1, -2),
            (-2, -1),
        ];
        let (jr, jc) = jumps[rng.random_range(0..8)];
        let (nr, nc) = (r + jr, c + jc);
        if (0..8).contains(&nr) && (0..8).contains(&nc) {
            (nr * 8 + nc) as usize
        } else {
            rng.random_range(0..64)
        }
    } else {
        rng.random_range(0..64)
    }
}

/// Whether `from` -> `to` (row, column) is a knight's jump.
fn is_knight_jump(from: (usize, usize), to: (usize, usize)) -> bool {
    let dr = (to.0 as i32 - from.0 as i32).abs();
    let dc = (to.1 as i32 - from.1 as i32).abs();
    (dr == 2 && dc == 1) || (dr == 1 && dc == 2)
}

/// The bend of a knight-shaped arrow: along the two-square leg first.
fn bend(
    from: (usize, usize),
    to: (usize, usize),
    (x0, y0): (f32, f32),
    (x1, y1): (f32, f32),
) -> (f32, f32) {
    if (to.0 as i32 - from.0 as i32).abs() == 2 {
        (x0, y1)
    } else {
        (x1, y0)
    }
}

/// An app's arrow between two squares (broad, translucent, in a mark colour); knight-shaped
/// (an L) most times when the move is a knight jump.
pub fn arrow(
    pm: &mut Pixmap,
    grid: &Grid,
    from: (usize, usize),
    to: (usize, usize),
    rng: &mut impl Rng,
) {
    let (rgb, a) = MARK_COLOURS[rng.random_range(0..MARK_COLOURS.len())];
    let alpha = (a as f32 * rng.random_range(0.55..1.0)) as u8;
    let start = grid.centre(from.0, from.1);
    let tip = grid.centre(to.0, to.1);
    let width = grid.cell * rng.random_range(0.14..0.24);
    let head = width * 2.2;
    // Path points: start, optional bend, end (shortened so the head fits).
    let mut pts = vec![start];
    if is_knight_jump(from, to) && rng.random_bool(0.7) {
        pts.push(bend(from, to, start, tip));
    }
    let mut paint = paint(rgb, alpha);
    paint.anti_alias = true;
    let (ux, uy) = unit(*pts.last().unwrap_or(&start), tip);
    let base = (tip.0 - ux * head, tip.1 - uy * head);
    pts.push(base);
    stroke_line(pm, &pts, &paint, &shaft(width));
    let (nx, ny) = (-uy, ux);
    let left = (base.0 + nx * head * 0.75, base.1 + ny * head * 0.75);
    let right = (base.0 - nx * head * 0.75, base.1 - ny * head * 0.75);
    fill_polygon(pm, &[tip, left, right], &paint);
}

/// A shaft's stroke: `width` wide, square-ended, mitred at a bend.
fn shaft(width: f32) -> Stroke {
    Stroke {
        width,
        line_cap: LineCap::Butt,
        line_join: LineJoin::Miter,
        ..Stroke::default()
    }
}

/// Strokes the open path through `points`.
fn stroke_line(pm: &mut Pixmap, points: &[(f32, f32)], paint: &Paint<'_>, stroke: &Stroke) {
    if let Some(path) = path_through(points, false) {
        pm.stroke_path(&path, paint, stroke, Transform::identity(), None);
    }
}

/// Fills the polygon with corners `points`.
fn fill_polygon(pm: &mut Pixmap, points: &[(f32, f32)], paint: &Paint<'_>) {
    if let Some(path) = path_through(points, true) {
        pm.fill_path(&path, paint, FillRule::Winding, Transform::identity(), None);
    }
}

/// The path through `points`, closed back to the first when `closed`; `None` for fewer
/// than two points.
fn path_through(points: &[(f32, f32)], closed: bool) -> Option<tiny_skia::Path> {
    let (&(x0, y0), rest) = points.split_first()?;
    let mut pb = PathBuilder::new();
    pb.move_to(x0, y0);
    for &(x, y) in rest {
        pb.line_to(x, y);
    }
    if closed {
        pb.close();
    }
    pb.finish()
}

/// The unit vector from `a` to `b` (any unit vector when they meet).
fn unit(a: (f32, f32), b: (f32, f32)) -> (f32, f32) {
    let len = ((b.0 - a.0).powi(2) + (b.1 - a.1).powi(2)).sqrt();
    if len < 1e-3 {
        (1.0, 0.0)
    } else {
        ((b.0 - a.0) / len, (b.1 - a.1) / len)
    }
}

/// Ink colours of printed and annotation arrows: black most often.
const BOOK_INKS: [[u8; 3]; 5] = [
    [0, 0, 0],
    [0, 0, 0],
    [50, 50, 50],
    [150, 20, 20],
    [20, 40, 140],
];

/// A book's arrow: a thin opaque line (2-7% of a square wide, at least a pixel) with a small
/// head, filled, open (two strokes) or notched (a stealth head, as TikZ draws it), its tip
/// at the target square's middle or short of it, starting at the middle of the first square
/// or a little towards the target; knight-shaped (an L) half the time on a knight's jump.
pub fn book_arrow(
    pm: &mut Pixmap,
    grid: &Grid,
    from: (usize, usize),
    to: (usize, usize),
    rng: &mut impl Rng,
) {
    let ink = BOOK_INKS[rng.random_range(0..BOOK_INKS.len())];
    let mut paint = paint(ink, 255);
    paint.anti_alias = true;
    let width = (grid.cell * rng.random_range(0.02..0.07)).max(1.0);
    let head = grid.cell * rng.random_range(0.15..0.4);
    let half_head = head * rng.random_range(0.25..0.55);
    let centre_from = grid.centre(from.0, from.1);
    let centre_to = grid.centre(to.0, to.1);
    let mut pts = vec![centre_from];
    if is_knight_jump(from, to) && rng.random_bool(0.5) {
        pts.push(bend(from, to, centre_from, centre_to));
    }
    // Start and tip moved along the first and last legs.
    let (sx, sy) = unit(centre_from, *pts.get(1).unwrap_or(&centre_to));
    let lead = grid.cell * rng.random_range(0.0..0.3);
    pts[0] = (centre_from.0 + sx * lead, centre_from.1 + sy * lead);
    let (ux, uy) = unit(*pts.last().unwrap_or(&centre_from), centre_to);
    let short = grid.cell * rng.random_range(0.0..0.3);
    let tip = (centre_to.0 - ux * short, centre_to.1 - uy * short);
    let style = rng.random_range(0..3);
    // A filled head covers the line's end; an open one meets it at the tip.
    let line_end = if style == 1 {
        tip
    } else {
        (tip.0 - ux * head * 0.6, tip.1 - uy * head * 0.6)
    };
    let stroke = shaft(width);
    pts.push(line_end);
    stroke_line(pm, &pts, &paint, &stroke);
    let (nx, ny) = (-uy, ux);
    let base = (tip.0 - ux * head, tip.1 - uy * head);
    let left = (base.0 + nx * half_head, base.1 + ny * half_head);
    let right = (base.0 - nx * half_head, base.1 - ny * half_head);
    match style {
        0 => fill_polygon(pm, &[left, tip, right], &paint),
        1 => stroke_line(pm, &[left, tip, right], &paint, &stroke),
        _ => {
            let notch = (tip.0 - ux * head * 0.65, tip.1 - uy * head * 0.65);
            fill_polygon(pm, &[left, tip, right, notch], &paint);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    fn dark_pixels(pm: &Pixmap, x0: u32, y0: u32, side: u32) -> usize {
        let mut n = 0;
        for y in y0..y0 + side {
            for x in x0..x0 + side {
                let p = pm.pixel(x, y).map(|c| c.alpha()).unwrap_or(0);
                if p > 60 {
                    n += 1;
                }
            }
        }
        n
    }

    #[test]
    fn a_book_arrow_is_thin_and_reaches_its_target_square() {
        let grid = Grid {
            x: 0.0,
            y: 0.0,
            cell: 60.0,
        };
        for seed in 0..20 {
            let mut pm = Pixmap::new(480, 480).expect("pixmap");
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            // e2 -> e6 as displayed: rows 6 -> 2, column 4.
            book_arrow(&mut pm, &grid, (6, 4), (2, 4), &mut rng);
            let on_target = dark_pixels(&pm, 240, 120, 60);
            assert!(
                on_target > 20,
                "seed {seed}: {on_target} inked pixels on the target square"
            );
            // The shaft through a square between is a thin line: under 400 of its 3,600 pixels
            // (an app's broad arrow inks 500 or more).
            let between = dark_pixels(&pm, 240, 240, 60);
            assert!(
                between > 0 && between < 400,
                "seed {seed}: {between} inked pixels on the shaft's square"
            );
            // Nothing off the arrow's file.
            assert_eq!(dark_pixels(&pm, 0, 0, 60), 0);
        }
    }

    #[test]
    fn a_knight_target_is_a_jump_or_any_square() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        // From d5 (row 3, column 3) all eight jumps fit: 3 in 10 of targets are jumps, and
        // a square drawn at random is one 8 times in 64.
        let jumps = [10, 12, 17, 21, 33, 37, 42, 44];
        let hits = (0..400)
            .filter(|_| jumps.contains(&target(27, &mut rng)))
            .count();
        assert!((110..=200).contains(&hits), "{hits} knight jumps of 400");
    }
}
