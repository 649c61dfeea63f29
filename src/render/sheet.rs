//! A contact sheet: many samples side by side, so a person can judge the variety.

use image::{RgbImage, imageops::FilterType};

use super::Renderer;
use super::pieces::PieceSet;
use crate::class::SquareClass;
use crate::quad::Quad;

/// Side of one tile of the sheet.
const TILE: u32 = 256;

/// Renders `count` samples and lays them out in a grid of 256-pixel tiles, each image
/// scaled to fit with the labelled board outline drawn in red.
pub fn contact_sheet(renderer: &Renderer, seed: u64, count: u64) -> RgbImage {
    let cols = (count as f64).sqrt().ceil() as u32;
    let rows = (count as u32).div_ceil(cols);
    let mut sheet = RgbImage::from_pixel(cols * TILE, rows * TILE, image::Rgb([40, 40, 40]));
    for i in 0..count {
        let r = renderer.render(seed, i);
        let (w, h) = r.image.dimensions();
        let scale = (TILE - 4) as f32 / w.max(h) as f32;
        let (tw, th) = (
            ((w as f32 * scale) as u32).max(1),
            ((h as f32 * scale) as u32).max(1),
        );
        let mut tile = image::imageops::resize(&r.image, tw, th, FilterType::Triangle);
        let q = Quad(r.quad.0.map(|p| [p[0] * scale, p[1] * scale]));
        draw_quad(&mut tile, &q);
        let (x, y) = ((i as u32 % cols) * TILE + 2, (i as u32 / cols) * TILE + 2);
        image::imageops::overlay(&mut sheet, &tile, x as i64, y as i64);
    }
    sheet
}

fn draw_quad(img: &mut RgbImage, q: &Quad) {
    for i in 0..4 {
        let (a, b) = (q.0[i], q.0[(i + 1) % 4]);
        imageproc::drawing::draw_line_segment_mut(
            img,
            (a[0], a[1]),
            (b[0], b[1]),
            image::Rgb([255, 0, 0]),
        );
    }
}

/// Side of one square of the piece-set sheet.
const PIECE_TILE: u32 = 56;
/// Width of the name column of the piece-set sheet.
const NAME_WIDTH: u32 = 180;

/// Every set's 12 pieces (wK..wP, then bK..bP) on alternating light and dark squares, one
/// set a row, named on the left: to check at a glance that a new set loads the right
/// piece into each class.
pub fn piece_sheet(sets: &[PieceSet]) -> RgbImage {
    use resvg::tiny_skia::{Color, Pixmap, PixmapPaint, Transform};
    // K Q R B N P of each colour (class indices run P N B R Q K).
    const ORDER: [usize; 12] = [6, 5, 4, 3, 2, 1, 12, 11, 10, 9, 8, 7];
    let rows = sets.len().max(1) as u32;
    let (w, h) = (NAME_WIDTH + 12 * PIECE_TILE, rows * PIECE_TILE);
    let Some(mut pm) = Pixmap::new(w, h) else {
        return RgbImage::new(1, 1);
    };
    pm.fill(Color::from_rgba8(255, 255, 255, 255));
    let font = super::text::fonts().into_iter().next();
    for (r, set) in sets.iter().enumerate() {
        let y = r as u32 * PIECE_TILE;
        if let Some(font) = &font {
            let px = 15.0;
            let ty = y as f32 + (PIECE_TILE as f32 - px) / 2.0;
            super::text::draw_text(&mut pm, font, px, 4.0, ty, [0, 0, 0], &set.name);
        }
        for (c, &class) in ORDER.iter().enumerate() {
            let x = NAME_WIDTH + c as u32 * PIECE_TILE;
            let shade = if (r + c) % 2 == 0 {
                [240, 217, 181]
            } else {
                [181, 136, 99]
            };
            if let Some(rect) = resvg::tiny_skia::Rect::from_xywh(
                x as f32,
                y as f32,
                PIECE_TILE as f32,
                PIECE_TILE as f32,
            ) {
                let mut paint = resvg::tiny_skia::Paint::default();
                paint.set_color_rgba8(shade[0], shade[1], shade[2], 255);
                pm.fill_rect(rect, &paint, Transform::identity(), None);
            }
            if let Some(piece) = set.raster(SquareClass::ALL[class], PIECE_TILE) {
                pm.draw_pixmap(
                    x as i32,
                    y as i32,
                    piece.as_ref().as_ref(),
                    &PixmapPaint::default(),
                    Transform::identity(),
                    None,
                );
            }
        }
    }
    super::scene::to_rgb(&pm)
}
