//! An app's panels drawn flush against the board, as chess sites and programs lay them
//! out: an evaluation bar beside it (chess.com's on the left, lichess's gauge on the
//! right), and player strips above and below (avatar, name and rating, the men taken drawn
//! small in the board's own set, a clock box). They touch the board or stand a few pixels
//! off it, where a board finder's outer edge and a coordinate reader look.

use rand::{Rng, RngExt};
use resvg::tiny_skia::{PixmapPaint, Rect, Transform};

use super::pieces::PieceSet;
use super::text::{draw_text, fonts, text_width};
use super::theme::paint;
use crate::class::SquareClass;
use resvg::tiny_skia::Pixmap;

const NAMES: [&str; 10] = [
    "MagnusCarlsen (2839)",
    "Hikaru",
    "player_1987 (1523)",
    "Stockfish level 5",
    "DrNykterstein",
    "Opponent (1200)",
    "Anonymous",
    "chessfan42 (1870)",
    "Guest8812",
    "You",
];

const CLOCKS: [&str; 6] = ["10:00", "3:00", "0:42", "1:05:12", "4:59", "0:08.3"];

/// The men a strip shows as taken (a few of one side's), as FEN letters of black's.
const TAKEN: [char; 5] = ['p', 'n', 'b', 'r', 'q'];

/// Draws the panels around the board, whose drawing (squares plus any frame or outside
/// coordinates) fills `board` = (x, y, width, height) of `canvas` with squares of `cell`
/// pixels; `dark_ui` picks light ink. Returns what was drawn (`eval_bar`, `players`), for
/// the label's effects.
pub(super) fn draw_panels(
    canvas: &mut Pixmap,
    board: (f32, f32, f32, f32),
    cell: f32,
    set: &PieceSet,
    dark_ui: bool,
    rng: &mut impl Rng,
) -> Vec<&'static str> {
    let mut drawn = Vec::new();
    if rng.random_bool(0.7) {
        eval_bar(canvas, board, cell, rng);
        drawn.push("eval_bar");
    }
    if rng.random_bool(0.8) {
        let height = cell * rng.random_range(0.4..0.9f32);
        let gap = flush_gap(cell, rng);
        let above = board.1 - gap - height;
        let below = board.1 + board.3 + gap;
        let ink = if dark_ui { [225u8; 3] } else { [35u8; 3] };
        for (y, white) in [(above, false), (below, true)] {
            player_strip(canvas, (board.0, y, board.2, height), set, white, ink, rng);
        }
        drawn.push("players");
    }
    drawn
}

/// A gap between the board and a panel: none half the time, else up to a fifth of a square.
fn flush_gap(cell: f32, rng: &mut impl Rng) -> f32 {
    if rng.random_bool(0.5) {
        0.0
    } else {
        (cell * rng.random_range(0.02..0.2f32)).round()
    }
}

/// A vertical bar as tall as the board, black above white (or the other way) split at the
/// evaluation, left or right of the board.
fn eval_bar(canvas: &mut Pixmap, board: (f32, f32, f32, f32), cell: f32, rng: &mut impl Rng) {
    let width = (cell * rng.random_range(0.15..0.45f32)).round().max(2.0);
    let gap = flush_gap(cell, rng);
    let x = if rng.random_bool(0.5) {
        board.0 - gap - width
    } else {
        board.0 + board.2 + gap
    };
    let split = board.3 * rng.random_range(0.1..0.9f32);
    let dark = [rng.random_range(25..70u8); 3];
    let light = [rng.random_range(215..=255u8); 3];
    let (top, bottom) = if rng.random_bool(0.8) {
        (dark, light)
    } else {
        (light, dark)
    };
    for (y, h, shade) in [
        (board.1, split, top),
        (board.1 + split, board.3 - split, bottom),
    ] {
        if let Some(rect) = Rect::from_xywh(x, y, width, h) {
            canvas.fill_rect(rect, &paint(shade, 255), Transform::identity(), None);
        }
    }
}

/// One player's strip: an avatar block, the name, some men taken, and a clock box at the
/// far end.
fn player_strip(
    canvas: &mut Pixmap,
    strip: (f32, f32, f32, f32),
    set: &PieceSet,
    takes_white: bool,
    ink: [u8; 3],
    rng: &mut impl Rng,
) {
    let (x, y, w, h) = strip;
    let faces = fonts();
    let Some(font) = faces.get(rng.random_range(0..faces.len().max(1))) else {
        return;
    };
    let mut caret = x;
    if rng.random_bool(0.7) {
        let avatar: [u8; 3] = std::array::from_fn(|_| rng.random_range(60..=230u8));
        if let Some(rect) = Rect::from_xywh(caret, y, h, h) {
            canvas.fill_rect(rect, &paint(avatar, 255), Transform::identity(), None);
        }
        caret += h * 1.25;
    }
    let px = h * rng.random_range(0.45..0.7f32);
    let name = NAMES[rng.random_range(0..NAMES.len())];
    draw_text(canvas, font, px, caret, y + (h - px) / 2.0, ink, name);
    caret += text_width(font, px, name) + px * 0.6;
    // The men taken, small, overlapping a little as the sites draw them.
    let size = (h * rng.random_range(0.6..1.0f32)).round().max(4.0) as u32;
    for _ in 0..rng.random_range(0..6) {
        let letter = TAKEN[rng.random_range(0..TAKEN.len())];
        let letter = if takes_white {
            letter.to_ascii_uppercase()
        } else {
            letter
        };
        let Some(class) = SquareClass::from_fen_char(letter) else {
            continue;
        };
        if caret + size as f32 > x + w * 0.7 {
            break;
        }
        if let Some(man) = set.raster(class, size) {
            let top = y + (h - size as f32) / 2.0;
            canvas.draw_pixmap(
                caret as i32,
                top as i32,
                man.as_ref().as_ref(),
                &PixmapPaint::default(),
                Transform::identity(),
                None,
            );
        }
        caret += size as f32 * 0.7;
    }
    if rng.random_bool(0.8) {
        let clock = CLOCKS[rng.random_range(0..CLOCKS.len())];
        let digits = h * rng.random_range(0.55..0.8f32);
        let box_w = text_width(font, digits, clock) + digits;
        let light_box = rng.random_bool(0.5);
        let (fill, text) = if light_box {
            ([rng.random_range(200..=255u8); 3], [30u8; 3])
        } else {
            ([rng.random_range(30..90u8); 3], [235u8; 3])
        };
        let bx = x + w - box_w;
        if let Some(rect) = Rect::from_xywh(bx, y, box_w, h) {
            canvas.fill_rect(rect, &paint(fill, 255), Transform::identity(), None);
        }
        draw_text(
            canvas,
            font,
            digits,
            bx + digits / 2.0,
            y + (h - digits) / 2.0,
            text,
            clock,
        );
    }
}
