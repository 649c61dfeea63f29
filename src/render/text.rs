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

/// A page of chess annotation without a board, in face `font` of [`fonts`], `size` px
/// type on lines 1.2 times that apart from `top` down, on white paper: lines of glyphs a
/// board finder must not take for squares (its tests and benchmark). `None` for a page of
/// no pixels or too many.
pub fn text_page(
    font: usize,
    size: f32,
    width: u32,
    height: u32,
    top: f32,
) -> Option<image::RgbImage> {
    let mut pm = Pixmap::new(width, height)?;
    pm.fill(resvg::tiny_skia::Color::from_rgba8(250, 250, 248, 255));
    let paragraph = "White is solid, but Black seems to have a nice, active position. If \
        Black's c-pawn was on c6 he would not have any problems at all, but it is still on \
        c7 and that gives White the chance to claim a material imbalance: 1.Bxb7! Taking \
        this pawn does a number of useful things: it gives White endgame odds, annoying for \
        Black since the more pieces the challenged side trades, the closer to a pawn up \
        endgame White gets; it creates a hole on c6 which allows White to grab control of \
        the central light squares along the long diagonal; it places great pressure on \
        Black who now has to get something going to justify the lost pawn. 1...Kh8 Black \
        would love to take advantage of the errant bishop, but nothing works: 1...c6 \
        2.Qc4+ picks up the pawn; 1...Bg4 2.Qc4+ Kh8 3.Bc6 Qf5 4.Rd2 intending f2-f4.";
    let mut lines: Vec<String> = vec![String::new()];
    for word in paragraph.split_whitespace() {
        let Some(line) = lines.last_mut() else { break };
        if line.len() + word.len() > (1440.0 / size) as usize {
            lines.push(word.to_string());
        } else {
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(word);
        }
    }
    let fonts = fonts();
    let face = &fonts[font % fonts.len()];
    for (k, line) in lines.iter().enumerate() {
        let y = top + 1.2 * size * k as f32;
        draw_text(&mut pm, face, size, 60.0, y, [20, 20, 20], line);
    }
    Some(image::RgbImage::from_fn(pm.width(), pm.height(), |x, y| {
        let c = pm
            .pixel(x, y)
            .map(|p| p.demultiply())
            .unwrap_or(ColorU8::from_rgba(250, 250, 248, 255));
        image::Rgb([c.red(), c.green(), c.blue()])
    }))
}
