//! A side-by-side picture for checking a recognition at a glance: the straightened board
//! with the predicted letter on each square (uncertain squares framed in red), next to a
//! clean diagram drawn from the predicted FEN (with the last move the picture highlights
//! tinted on it); and a sheet of the 64 crops exactly as the
//! classifier reads them, for seeing what a model was given when it misreads a square.

use image::{Rgb, RgbImage};
use rand::SeedableRng;
use resvg::tiny_skia::Pixmap;

use crate::board::unbent;
use crate::placement::reading_index;
use crate::quad::Quad;
use crate::recognize::Recognition;
use crate::render::board::{BoardLook, Coordinates, draw_board};
use crate::render::config::OverlayConfig;
use crate::render::overlay;
use crate::render::pieces::PieceSet;
use crate::render::scene::to_rgb;
use crate::render::text::{draw_text, fonts};
use crate::render::theme::themes;
use crate::squares::{CropConfig, cut, warp_board};

/// Side of each half in pixels.
const SIDE: u32 = 480;

/// The picture the board was read from and its outline there: `img`, or the copy with
/// the board's bend taken out when it was read from that (see
/// [`Recognition::straightened`]).
fn as_read(img: &RgbImage, rec: &Recognition) -> Option<(Option<RgbImage>, Quad)> {
    match rec.board.bend.as_ref().filter(|_| rec.straightened) {
        Some(bend) => {
            let (straight, quad) = unbent(img, bend, &rec.board.quad)?;
            Some((Some(straight), quad))
        }
        None => Some((None, rec.board.quad)),
    }
}

/// Builds the comparison picture.
pub fn debug_image(img: &RgbImage, rec: &Recognition) -> Option<RgbImage> {
    let (straight, quad) = as_read(img, rec)?;
    let warped = warp_board(straight.as_ref().unwrap_or(img), &quad, SIDE).ok()?;
    let mut left = Pixmap::new(SIDE, SIDE)?;
    for (dst, src) in left.pixels_mut().iter_mut().zip(warped.pixels()) {
        *dst =
            resvg::tiny_skia::ColorU8::from_rgba(src.0[0], src.0[1], src.0[2], 255).premultiply();
    }
    let cell = SIDE as f32 / 8.0;
    let font_list = fonts();
    let font = font_list.first()?;
    let uncertain: Vec<usize> = rec
        .uncertain
        .iter()
        .map(|s| reading_index(s.square))
        .collect();
    for row in 0..8 {
        for col in 0..8 {
            let i = rec.orientation.orientation.placement_index(row, col);
            let class = rec.placement.0[i];
            let (x, y) = (col as f32 * cell, row as f32 * cell);
            if uncertain.contains(&i) {
                frame(&mut left, x, y, cell);
            }
            let label = class.fen_char();
            if label != '.' {
                draw_text(
                    &mut left,
                    font,
                    cell * 0.3,
                    x + 3.0,
                    y + 2.0,
                    [255, 255, 255],
                    &label.to_string(),
                );
                draw_text(
                    &mut left,
                    font,
                    cell * 0.3,
                    x + 2.0,
                    y + 1.0,
                    [200, 0, 0],
                    &label.to_string(),
                );
            }
        }
    }
    let set = PieceSet::builtin();
    let theme = themes().into_iter().next()?;
    let look = BoardLook {
        orientation: rec.orientation.orientation,
        coordinates: Coordinates::Inside,
        ..BoardLook::plain(&theme, &set, cell)
    };
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0);
    let mut right = draw_board(&rec.placement, &look, &OverlayConfig::NONE, &mut rng)?;
    // The last move the picture highlights, as lichess shows one (over the men here).
    if let Some(m) = rec.last_move {
        for sq in [m.from, m.to] {
            let at = rec.orientation.orientation.displayed(sq);
            overlay::tint_square(&mut right.pixmap, &right.grid, at, ([155, 199, 0], 90));
        }
    }
    let mut out = RgbImage::from_pixel(2 * SIDE + 16, SIDE, Rgb([255, 255, 255]));
    image::imageops::overlay(&mut out, &to_rgb(&left), 0, 0);
    image::imageops::overlay(&mut out, &to_rgb(&right.pixmap), (SIDE + 16) as i64, 0);
    Some(out)
}

/// How many times larger each crop is drawn on the crop sheet.
pub const CROP_ZOOM: u32 = 4;
/// Grey gap between crops on the sheet, in pixels.
const CROP_GAP: u32 = 2;

/// The 64 crops the classifier reads (cut from `img` at the board `rec` found, with the
/// model's crop settings), in the picture's own layout (its top row first), each
/// [`CROP_ZOOM`] times larger without smoothing, so its pixels are the model's pixels.
pub fn crop_sheet(img: &RgbImage, rec: &Recognition, crop: &CropConfig) -> Option<RgbImage> {
    let (straight, quad) = as_read(img, rec)?;
    let crops = cut(straight.as_ref().unwrap_or(img), &quad, crop).ok()?;
    let cell = crop.size * CROP_ZOOM;
    let side = 8 * cell + 9 * CROP_GAP;
    let mut out = RgbImage::from_pixel(side, side, Rgb([128, 128, 128]));
    for (i, c) in crops.iter().enumerate() {
        let (row, col) = ((i / 8) as u32, (i % 8) as u32);
        let (x0, y0) = (
            CROP_GAP + col * (cell + CROP_GAP),
            CROP_GAP + row * (cell + CROP_GAP),
        );
        for y in 0..cell.min(c.height() * CROP_ZOOM) {
            for x in 0..cell.min(c.width() * CROP_ZOOM) {
                out.put_pixel(x0 + x, y0 + y, *c.get_pixel(x / CROP_ZOOM, y / CROP_ZOOM));
            }
        }
    }
    Some(out)
}

fn frame(pm: &mut Pixmap, x: f32, y: f32, cell: f32) {
    let w = pm.width() as i32;
    let pixels = pm.pixels_mut();
    let red = resvg::tiny_skia::ColorU8::from_rgba(230, 0, 0, 255).premultiply();
    for t in 0..3 {
        for k in 0..cell as i32 {
            for (px, py) in [
                (x as i32 + k, y as i32 + t),
                (x as i32 + k, (y + cell) as i32 - 1 - t),
                (x as i32 + t, y as i32 + k),
                ((x + cell) as i32 - 1 - t, y as i32 + k),
            ] {
                if px >= 0 && py >= 0 && px < w && py < w {
                    pixels[(py * w + px) as usize] = red;
                }
            }
        }
    }
}
