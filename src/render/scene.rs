//! The board in its surroundings: app/browser clutter or a page, a second board now and
//! then, cropping, rotation and perspective.

use image::RgbImage;
use rand::{Rng, RngExt};
use resvg::tiny_skia::{Pixmap, PixmapPaint, Rect, Transform};

use super::board::{BoardLook, draw_board};
use super::config::{OverlayConfig, SceneConfig};
use super::panels::draw_panels;
use super::pieces::PieceSet;
use super::positions::random_game;
use super::text::{draw_text, fonts};
use super::theme::{paint, random_theme};
use crate::quad::Quad;

/// Widest image drawn for a scene with clutter, in pixels.
const MAX_CANVAS: f32 = 2400.0;

const WORDS: [&str; 24] = [
    "Analysis",
    "Moves",
    "1. e4 e5",
    "2. Nf3 Nc6",
    "Play",
    "Puzzles",
    "Learn",
    "Watch",
    "Community",
    "Tools",
    "Rated",
    "Blitz 3+2",
    "Game over",
    "Draw",
    "Resign",
    "Chat",
    "Opening",
    "Sicilian Defense",
    "0-1",
    "1/2-1/2",
    "Stockfish 16",
    "depth 24",
    "+0.35",
    "Share",
];

/// A scene being composed: a canvas and the board's place in it.
pub struct Scene {
    /// The picture so far.
    pub canvas: Pixmap,
    /// The board's corners in canvas pixels, image order.
    pub quad: Quad,
}

impl Scene {
    /// The scene cut down to the board plus `margin` pixels on each side (when it is larger
    /// than that): what a square crop can see, without the clutter farther away.
    pub fn around_board(self, margin: f32) -> Option<Scene> {
        let (w, h) = (self.canvas.width() as f32, self.canvas.height() as f32);
        let (x0, y0, x1, y1) = self.quad.bounds();
        let (x0, y0) = (
            (x0 - margin).max(0.0).floor(),
            (y0 - margin).max(0.0).floor(),
        );
        let (x1, y1) = ((x1 + margin).min(w).ceil(), (y1 + margin).min(h).ceil());
        if x0 <= 0.0 && y0 <= 0.0 && x1 >= w && y1 >= h {
            return Some(self);
        }
        let rect = resvg::tiny_skia::IntRect::from_xywh(
            x0 as i32,
            y0 as i32,
            (x1 - x0).max(1.0) as u32,
            (y1 - y0).max(1.0) as u32,
        )?;
        Some(Scene {
            canvas: self.canvas.clone_rect(rect)?,
            quad: Quad(self.quad.0.map(|p| [p[0] - x0, p[1] - y0])),
        })
    }
}

/// A drawn board about to be placed in a scene.
pub struct BoardToPlace<'a> {
    /// The board's drawing (squares, and any frame or outside coordinates).
    pub pixmap: &'a Pixmap,
    /// Where its squares start in the drawing.
    pub inner: (f32, f32),
    /// The side of its 8 x 8 squares, in pixels.
    pub side: f32,
    /// The piece set it is drawn in (an app's panels show the men taken in it).
    pub set: &'a PieceSet,
}

/// Places a drawn board in a scene: cropped to it, or on a cluttered page/app window.
/// `panel_rng` draws an app's panels around it (`cfg.app_panels`), from a stream of its
/// own; what was drawn of them comes back with the scene.
pub fn compose(
    board: BoardToPlace<'_>,
    cfg: &SceneConfig,
    overlays: &OverlayConfig,
    sets: &[PieceSet],
    panel_rng: &mut impl Rng,
    rng: &mut impl Rng,
) -> Option<(Scene, Vec<&'static str>)> {
    let BoardToPlace {
        pixmap: board,
        inner,
        side,
        set,
    } = board;
    if rng.random_bool(cfg.cropped) {
        // Cropped to the board, a few pixels inside or outside its edge on each side.
        let mut edge = || rng.random_range(-0.02..0.04f32) * side;
        let (l, t, r, b) = (edge(), edge(), edge(), edge());
        let w = (side + l + r).round().max(8.0) as u32;
        let h = (side + t + b).round().max(8.0) as u32;
        let mut canvas = filled(w, h, [255; 3])?;
        let (ox, oy) = (l - inner.0, t - inner.1);
        paste(&mut canvas, ox.round() as i32, oy.round() as i32, board);
        let (x, y) = (ox.round() + inner.0, oy.round() + inner.1);
        return Some((
            Scene {
                canvas,
                quad: Quad::square(x, y, side),
            },
            Vec::new(),
        ));
    }
    let (bw, bh) = (board.width() as f32, board.height() as f32);
    let frac = rng.random_range(cfg.min_board_fraction..0.85f32);
    let w = (bw / frac).clamp(bw + 8.0, MAX_CANVAS.max(bw + 8.0));
    let aspect = rng.random_range(0.5..1.1f32);
    let h = (w * aspect).max(bh + 8.0);
    let dark_ui = rng.random_bool(0.4);
    let bg = if dark_ui {
        [rng.random_range(15..60u8); 3]
    } else {
        [rng.random_range(200..=255u8); 3]
    };
    let mut canvas = filled(w.round() as u32, h.round() as u32, bg)?;
    let (cw, ch) = (canvas.width() as f32, canvas.height() as f32);
    let x = rng.random_range(0.0..=(cw - bw).max(0.0)).round();
    let y = rng.random_range(0.0..=(ch - bh).max(0.0)).round();
    clutter(&mut canvas, (x, y, bw, bh), dark_ui, rng);
    if rng.random_bool(cfg.second_board) && !sets.is_empty() {
        second_board(&mut canvas, (x, y, bw, bh), overlays, sets, rng);
    }
    paste(&mut canvas, x as i32, y as i32, board);
    let drawn = if cfg.app_panels > 0.0 && panel_rng.random_bool(cfg.app_panels) {
        draw_panels(
            &mut canvas,
            (x, y, bw, bh),
            side / 8.0,
            set,
            dark_ui,
            panel_rng,
        )
    } else {
        Vec::new()
    };
    Some((
        Scene {
            canvas,
            quad: Quad::square(x + inner.0, y + inner.1, side),
        },
        drawn,
    ))
}

/// Draws `top` over `canvas` with its top-left corner at `(x, y)`. An opaque picture
/// lying wholly inside is copied row by row (what source-over gives it, without the
/// float pipeline); anything else is blended by tiny-skia.
fn paste(canvas: &mut Pixmap, x: i32, y: i32, top: &Pixmap) {
    let (cw, tw, th) = (
        canvas.width() as usize,
        top.width() as usize,
        top.height() as usize,
    );
    let inside =
        x >= 0 && y >= 0 && x as usize + tw <= cw && y as usize + th <= canvas.height() as usize;
    if inside && top.pixels().iter().all(|p| p.alpha() == 255) {
        let (x, y) = (x as usize, y as usize);
        let dst = canvas.data_mut();
        for (r, src) in top.data().chunks_exact(tw * 4).enumerate() {
            let start = ((y + r) * cw + x) * 4;
            dst[start..start + tw * 4].copy_from_slice(src);
        }
        return;
    }
    canvas.draw_pixmap(
        x,
        y,
        top.as_ref(),
        &PixmapPaint::default(),
        Transform::identity(),
        None,
    );
}

/// A `w` x `h` pixmap of one opaque colour (written once, not zeroed and then filled).
fn filled(w: u32, h: u32, rgb: [u8; 3]) -> Option<Pixmap> {
    let size = resvg::tiny_skia::IntSize::from_wh(w, h)?;
    let data = [rgb[0], rgb[1], rgb[2], 255].repeat(w as usize * h as usize);
    Pixmap::from_vec(data, size)
}

fn overlaps(a: (f32, f32, f32, f32), b: (f32, f32, f32, f32)) -> bool {
    a.0 < b.0 + b.2 && b.0 < a.0 + a.2 && a.1 < b.1 + b.3 && b.1 < a.1 + a.3
}

/// Panels, text, buttons and picture-like blocks around (never over) the board.
fn clutter(canvas: &mut Pixmap, board: (f32, f32, f32, f32), dark_ui: bool, rng: &mut impl Rng) {
    let (cw, ch) = (canvas.width() as f32, canvas.height() as f32);
    let fonts = fonts();
    let ink = if dark_ui {
        [200u8, 200, 200]
    } else {
        [40u8, 40, 40]
    };
    for _ in 0..rng.random_range(0..14) {
        let w = rng.random_range(20.0..(cw * 0.5).max(21.0));
        let h = rng.random_range(10.0..(ch * 0.4).max(11.0));
        let x = rng.random_range(0.0..cw);
        let y = rng.random_range(0.0..ch);
        if overlaps((x, y, w, h), board) {
            continue;
        }
        let Some(rect) = Rect::from_xywh(x, y, w, h) else {
            continue;
        };
        match rng.random_range(0..4) {
            0 | 1 => {
                let shade: [u8; 3] = std::array::from_fn(|_| rng.random_range(0..=255u8));
                canvas.fill_rect(
                    rect,
                    &paint(shade, rng.random_range(40..=255)),
                    Transform::identity(),
                    None,
                );
            }
            2 => {
                if let Some(font) = fonts.get(rng.random_range(0..fonts.len().max(1))) {
                    let px = rng.random_range(9.0..28.0f32);
                    let mut yy = y;
                    while yy + px < (y + h).min(ch) {
                        let word = WORDS[rng.random_range(0..WORDS.len())];
                        draw_text(canvas, font, px, x, yy, ink, word);
                        yy += px * 1.4;
                    }
                }
            }
            _ => {
                // a "picture": blocks of colour
                for _ in 0..6 {
                    let sub = Rect::from_xywh(
                        x + rng.random_range(0.0..w),
                        y + rng.random_range(0.0..h),
                        w / 3.0,
                        h / 3.0,
                    );
                    if let Some(sub) = sub {
                        let c: [u8; 3] = std::array::from_fn(|_| rng.random_range(0..=255u8));
                        canvas.fill_rect(sub, &paint(c, 255), Transform::identity(), None);
                    }
                }
            }
        }
    }
}

/// A smaller board somewhere else (thumbnails, a puzzle next to the game).
fn second_board(
    canvas: &mut Pixmap,
    main: (f32, f32, f32, f32),
    overlays: &OverlayConfig,
    sets: &[PieceSet],
    rng: &mut impl Rng,
) {
    let (cw, ch) = (canvas.width() as f32, canvas.height() as f32);
    let side = (main.2 * rng.random_range(0.2..0.5f32)).max(48.0);
    for _ in 0..8 {
        let x = rng.random_range(0.0..(cw - side).max(1.0));
        let y = rng.random_range(0.0..(ch - side).max(1.0));
        if overlaps((x - 4.0, y - 4.0, side + 8.0, side + 8.0), main) {
            continue;
        }
        let theme = random_theme(0.3, 0.1, true, rng);
        let set = &sets[rng.random_range(0..sets.len())];
        let look = BoardLook {
            piece_scale: 0.9,
            ..BoardLook::plain(&theme, set, side / 8.0)
        };
        let placement = random_game(80, rng);
        if let Some(b) = draw_board(&placement, &look, overlays, rng) {
            canvas.draw_pixmap(
                x as i32,
                y as i32,
                b.pixmap.as_ref(),
                &PixmapPaint::default(),
                Transform::identity(),
                None,
            );
        }
        return;
    }
}

/// Converts a pixmap (opaque) to RGB.
pub fn to_rgb(pm: &Pixmap) -> RgbImage {
    let mut out = vec![0u8; pm.width() as usize * pm.height() as usize * 3];
    for (dst, px) in out.chunks_exact_mut(3).zip(pm.pixels()) {
        // Opaque pixels (nearly all) are their own demultiplied colour.
        let rgb = if px.alpha() == 255 {
            [px.red(), px.green(), px.blue()]
        } else {
            let c = px.demultiply();
            [c.red(), c.green(), c.blue()]
        };
        dst.copy_from_slice(&rgb);
    }
    RgbImage::from_raw(pm.width(), pm.height(), out)
        .unwrap_or_else(|| RgbImage::new(pm.width(), pm.height()))
}
