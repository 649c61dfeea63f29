//! What users leave on a board: last-move and check highlights, selected squares, legal-move
//! dots, coloured marks, inset frames, X marks, circles, dialogs (arrows: [`super::arrows`]).

use rand::{Rng, RngExt};
use resvg::tiny_skia::{
    FillRule, GradientStop, LineCap, LineJoin, Paint, PathBuilder, Pixmap, Point, RadialGradient,
    Rect, SpreadMode, Stroke, Transform,
};

use super::theme::paint;

/// Geometry of the drawn squares: top-left of the board and square size, in pixmap pixels.
#[derive(Clone, Copy, Debug)]
pub struct Grid {
    /// Left edge of the board.
    pub x: f32,
    /// Top edge of the board.
    pub y: f32,
    /// Side of one square.
    pub cell: f32,
}

impl Grid {
    /// Rectangle of the displayed square at `(row, col)` (row 0 at the top).
    pub fn rect(&self, row: usize, col: usize) -> Option<Rect> {
        Rect::from_xywh(
            self.x + col as f32 * self.cell,
            self.y + row as f32 * self.cell,
            self.cell,
            self.cell,
        )
    }

    /// Centre of the displayed square at `(row, col)`.
    pub fn centre(&self, row: usize, col: usize) -> (f32, f32) {
        (
            self.x + (col as f32 + 0.5) * self.cell,
            self.y + (row as f32 + 0.5) * self.cell,
        )
    }
}

/// Overlay colours used by lichess and chess.com (RGB, alpha 0..=255).
pub(super) const MARK_COLOURS: [([u8; 3], u8); 6] = [
    ([21, 120, 27], 200), // lichess green
    ([136, 32, 32], 200), // lichess red
    ([0, 48, 136], 200),  // lichess blue
    ([230, 143, 0], 200), // lichess yellow
    ([255, 170, 0], 205), // chess.com orange arrow
    ([235, 97, 80], 204), // chess.com red square
];

/// Last-move style highlight of a square (semi-transparent fill).
pub fn highlight(pm: &mut Pixmap, grid: &Grid, sq: (usize, usize), rng: &mut impl Rng) {
    let (rgb, a) = *[
        ([155u8, 199u8, 0u8], 105u8), // lichess last move
        ([246, 246, 105], 128),       // chess.com yellow
        ([20, 85, 30], 128),          // lichess selected
        ([235, 97, 80], 204),         // chess.com marked red
        ([82, 176, 220], 150),        // blue mark
        ([255, 255, 51], 90),         // pale yellow
    ]
    .get(rng.random_range(0..6))
    .unwrap_or(&([155, 199, 0], 105));
    if let Some(r) = grid.rect(sq.0, sq.1) {
        pm.fill_rect(r, &paint(rgb, a), Transform::identity(), None);
    }
}

/// The colour an app tints a move's two squares with (RGB, alpha): lichess's green,
/// chess.com's yellow, and others' blues, oranges and purples, or any saturated colour.
pub fn last_move_tint(rng: &mut impl Rng) -> ([u8; 3], u8) {
    const APPS: [([u8; 3], u8); 6] = [
        ([155, 199, 0], 105),  // lichess (chessground's rgba(155, 199, 0, 0.41))
        ([255, 255, 51], 128), // chess.com yellow
        ([40, 130, 255], 90),  // blue
        ([255, 170, 0], 110),  // orange
        ([170, 80, 230], 80),  // purple
        ([0, 200, 160], 90),   // teal
    ];
    if rng.random_bool(0.7) {
        APPS[rng.random_range(0..APPS.len())]
    } else {
        // A saturated colour of any hue, a third to two thirds opaque.
        let hue = rng.random_range(0.0..6.0f32);
        let ramp = |offset: f32| {
            let x = ((hue + offset) % 6.0 - 3.0).abs();
            ((x - 1.0).clamp(0.0, 1.0) * 255.0) as u8
        };
        (
            [ramp(0.0), ramp(4.0), ramp(2.0)],
            rng.random_range(85..=170),
        )
    }
}

/// A square filled with a half-transparent colour (a move's squares, `last_move_tint`).
pub fn tint_square(pm: &mut Pixmap, grid: &Grid, sq: (usize, usize), (rgb, a): ([u8; 3], u8)) {
    if let Some(r) = grid.rect(sq.0, sq.1) {
        pm.fill_rect(r, &paint(rgb, a), Transform::identity(), None);
    }
}

/// Red radial glow under a king in check.
pub fn check_glow(pm: &mut Pixmap, grid: &Grid, sq: (usize, usize)) {
    let (cx, cy) = grid.centre(sq.0, sq.1);
    let r = grid.cell * 0.7;
    let stops = vec![
        GradientStop::new(0.0, resvg::tiny_skia::Color::from_rgba8(255, 0, 0, 255)),
        GradientStop::new(0.25, resvg::tiny_skia::Color::from_rgba8(231, 0, 0, 255)),
        GradientStop::new(0.89, resvg::tiny_skia::Color::from_rgba8(169, 0, 0, 0)),
        GradientStop::new(1.0, resvg::tiny_skia::Color::from_rgba8(158, 0, 0, 0)),
    ];
    let Some(shader) = RadialGradient::new(
        Point::from_xy(cx, cy),
        0.0,
        Point::from_xy(cx, cy),
        r,
        stops,
        SpreadMode::Pad,
        Transform::identity(),
    ) else {
        return;
    };
    let paint = Paint {
        shader,
        anti_alias: true,
        ..Paint::default()
    };
    if let Some(rect) = grid.rect(sq.0, sq.1) {
        pm.fill_rect(rect, &paint, Transform::identity(), None);
    }
}

/// A legal-move dot (empty square) or corner ring (occupied square).
pub fn move_dot(pm: &mut Pixmap, grid: &Grid, sq: (usize, usize), occupied: bool) {
    let (cx, cy) = grid.centre(sq.0, sq.1);
    let mut pb = PathBuilder::new();
    if occupied {
        pb.push_circle(cx, cy, grid.cell * 0.48);
        if let Some(path) = pb.finish() {
            let stroke = Stroke {
                width: grid.cell * 0.08,
                ..Stroke::default()
            };
            pm.stroke_path(
                &path,
                &paint([20, 85, 30], 110),
                &stroke,
                Transform::identity(),
                None,
            );
        }
    } else {
        pb.push_circle(cx, cy, grid.cell * 0.14);
        if let Some(path) = pb.finish() {
            pm.fill_path(
                &path,
                &paint([20, 85, 30], 128),
                FillRule::Winding,
                Transform::identity(),
                None,
            );
        }
    }
}

/// Frame colours of other widgets (RGB, alpha 0..=255).
const FRAME_COLOURS: [([u8; 3], u8); 7] = [
    ([255, 255, 0], 255),   // chessboard.js's documented highlight, yellow
    ([0, 0, 255], 255),     // and blue
    ([255, 255, 255], 190), // chess.com's hover square
    ([0, 0, 0], 110),       // cm-chessboard's frame marker
    ([21, 120, 27], 200),   // green
    ([200, 30, 30], 220),   // red
    ([255, 170, 0], 230),   // orange
];

/// A frame inside a square's edge: a sharp outline (cm-chessboard's frame marker, chess.com's
/// hover square) or a soft inset glow (CSS `box-shadow: inset`, chessboard.js's highlight).
pub fn inset_frame(pm: &mut Pixmap, grid: &Grid, sq: (usize, usize), rng: &mut impl Rng) {
    let (rgb, a) = FRAME_COLOURS[rng.random_range(0..FRAME_COLOURS.len())];
    let Some(square) = grid.rect(sq.0, sq.1) else {
        return;
    };
    let band = grid.cell * rng.random_range(0.03..0.1);
    let soft = rng.random_bool(0.5);
    stroke_inside(pm, square, 0.0, band, paint(rgb, a));
    if soft {
        // The blur: thin rings whose alpha falls off inwards past the solid band.
        let fade = band * rng.random_range(0.5..1.5);
        const RINGS: usize = 5;
        for i in 0..RINGS {
            let t = (i as f32 + 0.5) / RINGS as f32;
            let alpha = (f32::from(a) * (1.0 - t)).round() as u8;
            let from = band + fade * i as f32 / RINGS as f32;
            stroke_inside(pm, square, from, fade / RINGS as f32, paint(rgb, alpha));
        }
    }
}

/// Strokes a ring `width` wide whose outer edge lies `inset` inside `square`'s edge.
fn stroke_inside(pm: &mut Pixmap, square: Rect, inset: f32, width: f32, paint: Paint<'static>) {
    let half = inset + width / 2.0;
    let Some(ring) = Rect::from_xywh(
        square.x() + half,
        square.y() + half,
        square.width() - 2.0 * half,
        square.height() - 2.0 * half,
    ) else {
        return;
    };
    let path = PathBuilder::from_rect(ring);
    let stroke = Stroke {
        width,
        line_join: LineJoin::Miter,
        ..Stroke::default()
    };
    pm.stroke_path(&path, &paint, &stroke, Transform::identity(), None);
}

/// A dot marker of another widget on any square, in another colour and size than
/// lichess's move dot: cm-chessboard's grey dot, chess.com's dark dot, a blue one, and the
/// faint move hints of chess.com (black at 14%) and react-chessboard's examples (10%).
pub fn marker_dot(pm: &mut Pixmap, grid: &Grid, sq: (usize, usize), rng: &mut impl Rng) {
    const DOT_COLOURS: [[u8; 3]; 4] = [[0, 0, 0], [90, 90, 90], [0, 48, 136], [150, 30, 30]];
    let rgb = DOT_COLOURS[rng.random_range(0..DOT_COLOURS.len())];
    let alpha = rng.random_range(20..115u8);
    let (cx, cy) = grid.centre(sq.0, sq.1);
    let mut pb = PathBuilder::new();
    pb.push_circle(cx, cy, grid.cell * rng.random_range(0.08..0.2));
    if let Some(path) = pb.finish() {
        pm.fill_path(
            &path,
            &paint(rgb, alpha),
            FillRule::Winding,
            Transform::identity(),
            None,
        );
    }
}

/// An X across a square: python-chess's marked squares (black with a white edge), a book's
/// crossed-out square, or one in a mark colour; two bars from corner to corner.
pub fn cross_mark(pm: &mut Pixmap, grid: &Grid, sq: (usize, usize), rng: &mut impl Rng) {
    let (cx, cy) = grid.centre(sq.0, sq.1);
    let half = grid.cell * rng.random_range(0.18..0.36);
    let width = grid.cell * rng.random_range(0.04..0.1);
    let (rgb, alpha, edged) = match rng.random_range(0..4) {
        0 | 1 => ([0, 0, 0], 255, true),
        2 => ([0, 0, 0], 255, false),
        _ => {
            let (rgb, a) = MARK_COLOURS[rng.random_range(0..MARK_COLOURS.len())];
            (rgb, a, false)
        }
    };
    let mut pb = PathBuilder::new();
    pb.move_to(cx - half, cy - half);
    pb.line_to(cx + half, cy + half);
    pb.move_to(cx + half, cy - half);
    pb.line_to(cx - half, cy + half);
    let Some(path) = pb.finish() else {
        return;
    };
    let line_cap = if rng.random_bool(0.5) {
        LineCap::Round
    } else {
        LineCap::Butt
    };
    if edged {
        let edge = Stroke {
            width: width * 1.5,
            line_cap,
            ..Stroke::default()
        };
        pm.stroke_path(
            &path,
            &paint([255, 255, 255], 255),
            &edge,
            Transform::identity(),
            None,
        );
    }
    let stroke = Stroke {
        width,
        line_cap,
        ..Stroke::default()
    };
    pm.stroke_path(
        &path,
        &paint(rgb, alpha),
        &stroke,
        Transform::identity(),
        None,
    );
}

/// Signs an annotator writes on a square.
const SQUARE_SIGNS: &[&str] = &[
    "A", "B", "C", "D", "E", "X", "a", "b", "c", "d", "x", "1", "2", "3", "4", "+", "!", "?", "=",
];

/// A letter, digit or sign on a square, in type a half to 1.15 times the square's side (a
/// capital three quarters of the square high at most; kokopu-react sets its text markers
/// in type as large as the square), in a mark colour, black or white, about its middle (a
/// book's labelled square).
pub fn square_letter(pm: &mut Pixmap, grid: &Grid, sq: (usize, usize), rng: &mut impl Rng) {
    let fonts = super::text::fonts();
    let font = &fonts[rng.random_range(0..fonts.len())];
    let sign = SQUARE_SIGNS[rng.random_range(0..SQUARE_SIGNS.len())];
    let rgb = match rng.random_range(0..5) {
        0 => [0, 0, 0],
        1 => [255, 255, 255],
        2 => [[0, 68, 255], [0, 221, 0], [221, 0, 0], [221, 187, 0]][rng.random_range(0..4)],
        _ => MARK_COLOURS[rng.random_range(0..MARK_COLOURS.len())].0,
    };
    let px = grid.cell * rng.random_range(0.5..1.15);
    let (cx, cy) = grid.centre(sq.0, sq.1);
    let width = super::text::text_width(font, px, sign);
    let jitter = grid.cell * 0.08;
    let x = cx - width / 2.0 + rng.random_range(-jitter..=jitter);
    // The type's box starts 0.6 of its size above the middle: DejaVu's ascent is 0.93 of
    // the size and its capitals 0.73, so a capital stands about the middle.
    let y = cy - px * 0.6 + rng.random_range(-jitter..=jitter);
    super::text::draw_text(pm, font, px, x, y, rgb, sign);
}

/// A circle drawn around a square (lichess right-click circle).
pub fn circle(pm: &mut Pixmap, grid: &Grid, sq: (usize, usize), rng: &mut impl Rng) {
    let (rgb, a) = MARK_COLOURS[rng.random_range(0..MARK_COLOURS.len())];
    let (cx, cy) = grid.centre(sq.0, sq.1);
    let mut pb = PathBuilder::new();
    pb.push_circle(cx, cy, grid.cell * 0.45);
    if let Some(path) = pb.finish() {
        let stroke = Stroke {
            width: grid.cell * 0.07,
            ..Stroke::default()
        };
        pm.stroke_path(&path, &paint(rgb, a), &stroke, Transform::identity(), None);
    }
}

/// A dialog over the board (a game-over card, a pop-up): an opaque panel, light or dark,
/// a third to three quarters of the board across and a quarter to three fifths high,
/// anywhere on it, with a title and a coloured button.
pub fn dialog(pm: &mut Pixmap, grid: &Grid, rng: &mut impl Rng) {
    let side = grid.cell * 8.0;
    let w = side * rng.random_range(0.35..0.75f32);
    let h = side * rng.random_range(0.25..0.6f32);
    let x = grid.x + rng.random_range(0.0..=side - w);
    let y = grid.y + rng.random_range(0.0..=side - h);
    let light = rng.random_bool(0.5);
    let (fill, ink) = if light {
        ([rng.random_range(225..=255u8); 3], [40u8; 3])
    } else {
        let v = rng.random_range(30..70u8);
        ([v, v.saturating_sub(2), v.saturating_sub(4)], [235u8; 3])
    };
    if let Some(rect) = Rect::from_xywh(x, y, w, h) {
        pm.fill_rect(rect, &paint(fill, 255), Transform::identity(), None);
    }
    let fonts = super::text::fonts();
    let Some(font) = fonts.get(rng.random_range(0..fonts.len().max(1))) else {
        return;
    };
    const TITLES: [&str; 5] = [
        "White Won",
        "Black Won",
        "Draw",
        "Game Aborted",
        "Checkmate!",
    ];
    let title = TITLES[rng.random_range(0..TITLES.len())];
    let px = h * rng.random_range(0.1..0.2f32);
    let tw = super::text::text_width(font, px, title);
    super::text::draw_text(
        pm,
        font,
        px,
        x + (w - tw).max(0.0) / 2.0,
        y + h * 0.12,
        ink,
        title,
    );
    let button: [u8; 3] = [
        rng.random_range(60..140u8),
        rng.random_range(120..200u8),
        rng.random_range(40..120u8),
    ];
    let (bw, bh) = (w * 0.6, h * 0.22);
    if let Some(rect) = Rect::from_xywh(x + (w - bw) / 2.0, y + h * 0.65, bw, bh) {
        pm.fill_rect(rect, &paint(button, 255), Transform::identity(), None);
    }
    let label = "New Game";
    let lp = bh * 0.5;
    let lw = super::text::text_width(font, lp, label);
    let (lx, ly) = (x + (w - lw).max(0.0) / 2.0, y + h * 0.65 + (bh - lp) / 2.0);
    super::text::draw_text(pm, font, lp, lx, ly, [250; 3], label);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn alpha_at(pm: &Pixmap, x: u32, y: u32) -> u8 {
        pm.pixel(x, y).map_or(0, |p| p.alpha())
    }

    #[test]
    fn an_inset_frame_stays_inside_its_square_and_off_its_middle() {
        let grid = Grid {
            x: 0.0,
            y: 0.0,
            cell: 60.0,
        };
        for seed in 0..20 {
            let mut pm = Pixmap::new(480, 480).unwrap();
            let mut rng = crate::render::item_rng(seed, 0);
            inset_frame(&mut pm, &grid, (2, 3), &mut rng);
            // Square (2, 3) spans x 180..240, y 120..180.
            assert!(
                alpha_at(&pm, 181, 150) > 0,
                "seed {seed}: no frame at the edge"
            );
            assert_eq!(
                alpha_at(&pm, 210, 150),
                0,
                "seed {seed}: paint in the middle"
            );
            assert_eq!(alpha_at(&pm, 178, 150), 0, "seed {seed}: paint outside");
            assert_eq!(alpha_at(&pm, 210, 182), 0, "seed {seed}: paint outside");
        }
    }

    #[test]
    fn a_marker_dot_sits_in_the_middle() {
        let grid = Grid {
            x: 0.0,
            y: 0.0,
            cell: 60.0,
        };
        let mut pm = Pixmap::new(480, 480).unwrap();
        let mut rng = crate::render::item_rng(3, 0);
        marker_dot(&mut pm, &grid, (0, 0), &mut rng);
        assert!(alpha_at(&pm, 30, 30) > 0);
        assert_eq!(alpha_at(&pm, 2, 2), 0);
    }

    #[test]
    fn a_square_letter_stays_on_its_square_and_covers_a_good_part_of_it() {
        let grid = Grid {
            x: 0.0,
            y: 0.0,
            cell: 60.0,
        };
        for seed in 0..30 {
            let mut pm = Pixmap::new(480, 480).unwrap();
            let mut rng = crate::render::item_rng(seed, 0);
            square_letter(&mut pm, &grid, (3, 3), &mut rng);
            let (mut inside, mut outside) = (0, 0);
            for y in 0..480 {
                for x in 0..480 {
                    if alpha_at(&pm, x, y) > 0 {
                        if (180..240).contains(&x) && (180..240).contains(&y) {
                            inside += 1;
                        } else {
                            outside += 1;
                        }
                    }
                }
            }
            // A sign as small as "." would not be worth drawing; a glyph may touch the next
            // square by a few pixels at most.
            assert!(inside >= 60, "seed {seed}: {inside} pixels on the square");
            assert!(
                outside <= inside / 10,
                "seed {seed}: {outside} pixels off the square, {inside} on it"
            );
        }
    }
}
