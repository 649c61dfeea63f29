//! A contact sheet: many samples side by side, so a person can judge the variety.

use image::{RgbImage, imageops::FilterType};

use super::Renderer;
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
