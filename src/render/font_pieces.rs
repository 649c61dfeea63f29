//! Piece sets drawn from a chess diagram font (the fonts books and newspapers typeset
//! diagrams with). A set folder holds the font and a `font.json` that maps the 12 pieces to
//! characters:
//!
//! ```json
//! { "font": "maroquin.ttf", "light": "kqrbnplwtvmo", "dark": "KQRBNPLWTVMO", "empty_dark": "+" }
//! ```
//!
//! `light` (required) lists the glyphs of the pieces on a light square in the order
//! wK wQ wR wB wN wP bK bQ bR bB bN bP. `dark` (same order) and `empty_dark` are the glyphs
//! that draw a piece on / an empty hatched dark square; with them synth can typeset a whole
//! diagram the way the font's own book pages look.
//!
//! A font draws only ink: a white piece is an outline around paper. So that a piece can be
//! put on any square colour, the regions the outline encloses are filled with white.

use std::collections::VecDeque;
use std::path::Path;

use ab_glyph::{Font, FontVec, PxScale};
use resvg::tiny_skia::{ColorU8, Pixmap};
use serde::Deserialize;

use super::pieces::{PieceSetError, read_manifest};

/// The file that marks a folder as a font set.
pub const FONT_MANIFEST: &str = "font.json";

/// Side in pixels at which glyphs are rendered once; piece rasters are scaled from it.
const MASTER: u32 = 256;

/// `font.json`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FontManifest {
    font: String,
    light: String,
    #[serde(default)]
    dark: Option<String>,
    #[serde(default)]
    empty_dark: Option<char>,
}

/// The rendered glyphs of a font set, in class order wP..bK (as `PieceSet` keeps them).
pub struct FontGlyphs {
    /// Pieces for any square: ink black, enclosed paper white, outside transparent.
    pub pieces: Vec<Pixmap>,
    /// Pieces on a hatched dark square (ink, the paper their outlines enclose white, the
    /// rest transparent) and the empty hatched square (ink only).
    pub dark: Option<(Vec<Pixmap>, Pixmap)>,
}

/// Manifest order (wK wQ wR wB wN wP bK ...) to class order (wP wN wB wR wQ wK bP ...).
const CLASS_FROM_MANIFEST: [usize; 12] = [5, 4, 3, 2, 1, 0, 11, 10, 9, 8, 7, 6];

/// Loads the font set described by `dir/font.json`.
pub fn load_font_glyphs(dir: &Path) -> Result<FontGlyphs, PieceSetError> {
    let manifest_path = dir.join(FONT_MANIFEST);
    let unreadable = |path: &Path, reason: String| PieceSetError::Unreadable {
        path: path.to_path_buf(),
        reason,
    };
    let manifest: FontManifest = read_manifest(&manifest_path)?;
    let font_path = dir.join(&manifest.font);
    let bytes = std::fs::read(&font_path).map_err(|e| unreadable(&font_path, e.to_string()))?;
    let font = FontVec::try_from_vec(bytes).map_err(|e| {
        unreadable(
            &font_path,
            format!("not a usable TrueType/OpenType font: {e}"),
        )
    })?;
    let chars = |list: &str, what: &str| -> Result<Vec<char>, PieceSetError> {
        let chars: Vec<char> = list.chars().collect();
        if chars.len() != 12 {
            return Err(unreadable(
                &manifest_path,
                format!(
                    "`{what}` must list 12 characters (wK..bP), not {}",
                    chars.len()
                ),
            ));
        }
        if let Some(c) = chars.iter().find(|&&c| font.glyph_id(c).0 == 0) {
            return Err(unreadable(
                &font_path,
                format!("the font has no glyph for {c:?} (listed in `{what}`)"),
            ));
        }
        Ok(chars)
    };
    let light = chars(&manifest.light, "light")?;
    let dark = manifest
        .dark
        .as_deref()
        .map(|d| chars(d, "dark"))
        .transpose()?;
    // The square a glyph is designed on: the bounds of the empty dark square when the font
    // has one, otherwise the pieces' joint bounds with a margin.
    let empty = manifest.empty_dark.filter(|&c| font.glyph_id(c).0 != 0);
    let cell = match empty.and_then(|c| glyph_bounds(&font, c)) {
        Some(b) => b,
        None => {
            let mut b = [f32::MAX, f32::MAX, f32::MIN, f32::MIN];
            for &c in &light {
                if let Some(g) = glyph_bounds(&font, c) {
                    b = [
                        b[0].min(g[0]),
                        b[1].min(g[1]),
                        b[2].max(g[2]),
                        b[3].max(g[3]),
                    ];
                }
            }
            if b[0] >= b[2] || b[1] >= b[3] {
                return Err(unreadable(
                    &font_path,
                    "the piece glyphs draw nothing".into(),
                ));
            }
            let pad = (b[2] - b[0]).max(b[3] - b[1]) * 0.08;
            [b[0] - pad, b[1] - pad, b[2] + pad, b[3] + pad]
        }
    };
    let render_set = |list: &[char], fill: bool| -> Result<Vec<Pixmap>, PieceSetError> {
        let mut out: Vec<Option<Pixmap>> = (0..12).map(|_| None).collect();
        for (i, &c) in list.iter().enumerate() {
            let coverage = render_glyph(&font, c, cell);
            if coverage.iter().all(|&v| v < 0.5) {
                return Err(unreadable(
                    &font_path,
                    format!("the glyph for {c:?} draws nothing"),
                ));
            }
            out[CLASS_FROM_MANIFEST[i]] = Some(to_pixmap(&coverage, fill));
        }
        Ok(out.into_iter().flatten().collect())
    };
    let pieces = render_set(&light, true)?;
    let dark = match (dark, empty) {
        // The paper inside a piece on a dark square is paper, as printed: typesetting draws
        // each piece over the empty hatched square, which must not show through a white
        // man's body (nor through the white details of a black one).
        (Some(d), Some(e)) => Some((
            render_set(&d, true)?,
            to_pixmap(&render_glyph(&font, e, cell), false),
        )),
        _ => None,
    };
    Ok(FontGlyphs { pieces, dark })
}

/// The pixel bounds `[x0, y0, x1, y1]` of glyph `c` at 1000 px per em, baseline at y = 0.
fn glyph_bounds(font: &FontVec, c: char) -> Option<[f32; 4]> {
    let g = font
        .glyph_id(c)
        .with_scale_and_position(PxScale::from(1000.0), ab_glyph::point(0.0, 0.0));
    let b = font.outline_glyph(g)?.px_bounds();
    Some([b.min.x, b.min.y, b.max.x, b.max.y])
}

/// Ink coverage of glyph `c` with `cell` (bounds at 1000 px per em) mapped onto a
/// `MASTER` x `MASTER` square.
fn render_glyph(font: &FontVec, c: char, cell: [f32; 4]) -> Vec<f32> {
    let n = MASTER as usize;
    let mut cov = vec![0.0f32; n * n];
    let k = MASTER as f32 / (cell[2] - cell[0]).max(cell[3] - cell[1]);
    // Centre the cell when it is not square.
    let ox = (MASTER as f32 - (cell[2] - cell[0]) * k) / 2.0 - cell[0] * k;
    let oy = (MASTER as f32 - (cell[3] - cell[1]) * k) / 2.0 - cell[1] * k;
    let g = font
        .glyph_id(c)
        .with_scale_and_position(PxScale::from(1000.0 * k), ab_glyph::point(ox, oy));
    if let Some(outline) = font.outline_glyph(g) {
        let b = outline.px_bounds();
        outline.draw(|gx, gy, v| {
            let x = b.min.x as i64 + gx as i64;
            let y = b.min.y as i64 + gy as i64;
            if (0..n as i64).contains(&x) && (0..n as i64).contains(&y) {
                let i = y as usize * n + x as usize;
                cov[i] = (cov[i] + v).min(1.0);
            }
        });
    }
    cov
}

/// Black ink with coverage as alpha; with `fill`, paper enclosed by ink becomes opaque white
/// (found by flooding the outside from the border through pixels that are not ink).
fn to_pixmap(cov: &[f32], fill: bool) -> Pixmap {
    let n = MASTER as usize;
    let mut outside = vec![false; n * n];
    if fill {
        let ink = |i: usize| cov[i] >= 0.5;
        let mut queue = VecDeque::new();
        for i in 0..n {
            for idx in [i, (n - 1) * n + i, i * n, i * n + n - 1] {
                if !ink(idx) && !outside[idx] {
                    outside[idx] = true;
                    queue.push_back(idx);
                }
            }
        }
        while let Some(idx) = queue.pop_front() {
            let (x, y) = (idx % n, idx / n);
            let mut visit = |j: usize| {
                if !outside[j] && !ink(j) {
                    outside[j] = true;
                    queue.push_back(j);
                }
            };
            if x > 0 {
                visit(idx - 1);
            }
            if x + 1 < n {
                visit(idx + 1);
            }
            if y > 0 {
                visit(idx - n);
            }
            if y + 1 < n {
                visit(idx + n);
            }
        }
    }
    // Paper under the enclosed regions, grown by a pixel so that the inner edge of the ink
    // blends onto white rather than onto the square below.
    let interior = |i: usize| !outside[i] && cov[i] < 0.5;
    let paper = |i: usize| {
        let (x, y) = (i % n, i / n);
        interior(i)
            || (x > 0 && interior(i - 1))
            || (x + 1 < n && interior(i + 1))
            || (y > 0 && interior(i - n))
            || (y + 1 < n && interior(i + n))
    };
    let mut pm = Pixmap::new(MASTER, MASTER).expect("MASTER is a valid size");
    for (i, px) in pm.pixels_mut().iter_mut().enumerate() {
        let c = cov[i].clamp(0.0, 1.0);
        *px = if fill && paper(i) {
            let v = crate::squares::to_u8((1.0 - c) * 255.0);
            ColorU8::from_rgba(v, v, v, 255).premultiply()
        } else {
            ColorU8::from_rgba(0, 0, 0, crate::squares::to_u8(c * 255.0)).premultiply()
        };
    }
    pm
}
