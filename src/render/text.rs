//! Drawing text (coordinates, clutter) with the embedded DejaVu fonts.

use ab_glyph::{Font, FontRef, PxScale, ScaleFont};
use resvg::tiny_skia::{ColorU8, Pixmap};

/// The embedded font faces, in a fixed order so that a seed picks the same face.
pub fn fonts() -> Vec<FontRef<'static>> {
    [
        dejavu::sans::regular(),
        dejavu::sans::bold(),
        dejavu::sans_condensed::regular(),
        dejavu::sans_mono::regular(),
        dejavu::serif::regular(),
        dejavu::serif::bold(),
    ]
    .into_iter()
    .filter_map(|bytes| FontRef::try_from_slice(bytes).ok())
    .collect()
}

/// Width in pixels of `text` at `px` pixels high.
pub fn text_width(font: &FontRef<'_>, px: f32, text: &str) -> f32 {
    let f = font.as_scaled(PxScale::from(px));
    text.chars().map(|c| f.h_advance(f.glyph_id(c))).sum()
}

/// Draws `text` with its top-left corner at `(x, y)`, `px` pixels high, alpha-blended.
pub fn draw_text(
    pm: &mut Pixmap,
    font: &FontRef<'_>,
    px: f32,
    x: f32,
    y: f32,
    rgb: [u8; 3],
    text: &str,
) {
    let scaled = font.as_scaled(PxScale::from(px));
    let ascent = scaled.ascent();
    let (w, h) = (pm.width() as i32, pm.height() as i32);
    let mut caret = x;
    let pixels = pm.pixels_mut();
    for ch in text.chars() {
        let id = scaled.glyph_id(ch);
        let glyph =
            id.with_scale_and_position(PxScale::from(px), ab_glyph::point(caret, y + ascent));
        caret += scaled.h_advance(id);
        let Some(outline) = font.outline_glyph(glyph) else {
            continue;
        };
        let bounds = outline.px_bounds();
        outline.draw(|gx, gy, cov| {
            let px_x = bounds.min.x as i32 + gx as i32;
            let px_y = bounds.min.y as i32 + gy as i32;
            if px_x < 0 || px_y < 0 || px_x >= w || px_y >= h {
                return;
            }
            let a = cov.clamp(0.0, 1.0);
            let idx = (px_y * w + px_x) as usize;
            let dst = pixels[idx].demultiply();
            let mix = |d: u8, s: u8| crate::squares::to_u8(d as f32 * (1.0 - a) + s as f32 * a);
            let out_a = crate::squares::to_u8(dst.alpha() as f32 * (1.0 - a) + 255.0 * a);
            pixels[idx] = ColorU8::from_rgba(
                mix(dst.red(), rgb[0]),
                mix(dst.green(), rgb[1]),
                mix(dst.blue(), rgb[2]),
                out_a,
            )
            .premultiply();
        });
    }
}
