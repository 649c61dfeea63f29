//! Piece sets stored as one sprite sheet (as chess GUIs such as eboard and Scid ship them).
//! A set folder holds the image and a `sprite.json` naming the piece in each grid cell:
//!
//! ```json
//! { "image": "Alpha.png", "rows": [["wR","wN","wB","wQ","wK","wP",""],
//!                                  ["bR","bN","bB","bQ","bK","bP",""]], "key": "top_left" }
//! ```
//!
//! The image may be a PNG/GIF or an SVG (pychess ships some sets as one SVG sheet; it is
//! rendered at 160 pixels a cell). The grid divides the image evenly; an empty name skips a
//! cell. With `"key": "top_left"`
//! every pixel of the top-left pixel's colour becomes transparent (sheets without alpha
//! mark the background with a key colour); `"none"` keeps the image's own alpha.

use std::path::Path;

use image::RgbaImage;
use serde::Deserialize;

use super::pieces::{PieceSetError, read_manifest, rgba_to_pixmap};
use crate::class::SquareClass;
use resvg::tiny_skia::Pixmap;

/// The file that marks a folder as a sprite set.
pub const SPRITE_MANIFEST: &str = "sprite.json";

/// How the background is found.
#[derive(Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
enum Key {
    /// The colour of the top-left pixel is the background.
    TopLeft,
    /// The image's alpha channel is used as it is.
    None,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SpriteManifest {
    image: String,
    /// The grid, row by row (for a sheet cut into even cells).
    #[serde(default)]
    rows: Vec<Vec<String>>,
    /// Or, for an SVG whose pieces are elements with ids: piece name (wK..bP) -> element id.
    #[serde(default)]
    ids: Option<std::collections::BTreeMap<String, String>>,
    #[serde(default = "no_key")]
    key: Key,
}

fn no_key() -> Key {
    Key::None
}

/// Parses an SVG file (usvg reads gzip-compressed `.svgz` as well).
fn read_svg(path: &Path) -> Result<resvg::usvg::Tree, String> {
    let data = std::fs::read(path).map_err(|e| e.to_string())?;
    resvg::usvg::Tree::from_data(&data, &resvg::usvg::Options::default())
        .map_err(|e| format!("not a usable SVG: {e}"))
}

/// Renders the 12 pieces that an SVG holds as elements with ids (KDE Knights' themes keep
/// pieces and board tiles in one file). All are drawn at one scale into cells of one size,
/// on a shared base line, so a pawn stays smaller than a king. An element's geometric box
/// may include invisible frames or stray shapes, so each piece's extent is measured on
/// its pixels: a first rendering finds the ink, the second draws it in place.
fn load_svg_by_ids(
    path: &Path,
    ids: &std::collections::BTreeMap<String, String>,
) -> Result<Vec<Pixmap>, String> {
    use resvg::tiny_skia::Transform;
    let tree = read_svg(path)?;
    let mut nodes = Vec::with_capacity(12);
    for class in &SquareClass::ALL[1..] {
        let id = ids
            .get(class.name())
            .ok_or_else(|| format!("no element id for {}", class.name()))?;
        let node = tree
            .node_by_id(id)
            .ok_or_else(|| format!("no element with id {id:?} (for {})", class.name()))?;
        let layer = node
            .abs_layer_bounding_box()
            .ok_or_else(|| format!("the element {id:?} draws nothing"))?;
        nodes.push((id, node, layer));
    }
    // Measure: render each element at a scale that gives the median one ~400 pixels.
    let mut sides: Vec<f32> = nodes
        .iter()
        .map(|(_, _, l)| l.width().max(l.height()))
        .collect();
    sides.sort_by(f32::total_cmp);
    let probe = 400.0 / sides[sides.len() / 2];
    let mut inks = Vec::with_capacity(12);
    for (id, node, layer) in &nodes {
        let (w, h) = (
            (layer.width() * probe).ceil().clamp(1.0, 4096.0) as u32,
            (layer.height() * probe).ceil().clamp(1.0, 4096.0) as u32,
        );
        let mut pm = Pixmap::new(w, h).ok_or("no pixels")?;
        resvg::render_node(node, Transform::from_scale(probe, probe), &mut pm.as_mut());
        let (mut x0, mut y0, mut x1, mut y1) = (u32::MAX, u32::MAX, 0, 0);
        for (i, p) in pm.pixels().iter().enumerate() {
            if p.alpha() > 8 {
                let (x, y) = (i as u32 % w, i as u32 / w);
                (x0, y0, x1, y1) = (x0.min(x), y0.min(y), x1.max(x + 1), y1.max(y + 1));
            }
        }
        if x0 >= x1 {
            return Err(format!("the element {id:?} draws nothing"));
        }
        // The ink box in the element's own units, relative to its layer box.
        inks.push([x0, y0, x1, y1].map(|v| v as f32 / probe));
    }
    let tallest = inks.iter().map(|b| b[3] - b[1]).fold(0.0f32, f32::max);
    let widest = inks.iter().map(|b| b[2] - b[0]).fold(0.0f32, f32::max);
    let side = tallest.max(widest) * 1.1;
    let scale = SVG_CELL / side;
    let cell = SVG_CELL.round() as u32;
    let base = (side + tallest) / 2.0;
    nodes
        .iter()
        .zip(&inks)
        .map(|((_, node, _), ink)| {
            let mut pixmap = Pixmap::new(cell, cell).ok_or("no pixels")?;
            // render_node puts the element's layer box at the transform's origin.
            let dx = (side - (ink[2] - ink[0])) / 2.0 - ink[0];
            let dy = base - ink[3];
            resvg::render_node(
                node,
                Transform::from_row(scale, 0.0, 0.0, scale, dx * scale, dy * scale),
                &mut pixmap.as_mut(),
            );
            Ok(pixmap)
        })
        .collect()
}

/// Pixels per grid cell when a sheet is an SVG (as large as synth ever draws a piece).
const SVG_CELL: f32 = 160.0;

/// Renders an SVG sprite sheet so that each of its `cols` x `rows` cells is [`SVG_CELL`]
/// pixels wide.
fn render_svg_sheet(path: &Path, cols: u32, rows: u32) -> Result<RgbaImage, String> {
    let tree = read_svg(path)?;
    let size = tree.size();
    if cols == 0 || rows == 0 || size.width() <= 0.0 || size.height() <= 0.0 {
        return Err("the SVG or its grid has no size".into());
    }
    let scale = SVG_CELL * cols as f32 / size.width();
    let (w, h) = (
        (size.width() * scale).round() as u32,
        (size.height() * scale).round() as u32,
    );
    let mut pixmap = Pixmap::new(w, h).ok_or("the SVG renders to no pixels")?;
    resvg::render(
        &tree,
        resvg::tiny_skia::Transform::from_scale(scale, scale),
        &mut pixmap.as_mut(),
    );
    let mut out = RgbaImage::new(w, h);
    for (dst, src) in out.pixels_mut().zip(pixmap.pixels()) {
        let c = src.demultiply();
        dst.0 = [c.red(), c.green(), c.blue(), c.alpha()];
    }
    Ok(out)
}

/// Cuts the 12 pieces (class order wP..bK) out of the sprite described by
/// `dir/sprite.json`.
pub fn load_sprite_pieces(dir: &Path) -> Result<Vec<Pixmap>, PieceSetError> {
    let manifest_path = dir.join(SPRITE_MANIFEST);
    let unreadable = |path: &Path, reason: String| PieceSetError::Unreadable {
        path: path.to_path_buf(),
        reason,
    };
    let manifest: SpriteManifest = read_manifest(&manifest_path)?;
    let image_path = dir.join(&manifest.image);
    if let Some(ids) = &manifest.ids {
        return load_svg_by_ids(&image_path, ids).map_err(|e| unreadable(&image_path, e));
    }
    let rows = manifest.rows.len() as u32;
    let cols = manifest.rows.iter().map(Vec::len).max().unwrap_or(0) as u32;
    let mut sheet = if image_path.extension().is_some_and(|e| e == "svg") {
        render_svg_sheet(&image_path, cols, rows).map_err(|e| unreadable(&image_path, e))?
    } else {
        image::open(&image_path)
            .map_err(|e| unreadable(&image_path, format!("not a readable image: {e}")))?
            .to_rgba8()
    };
    if rows == 0 || cols == 0 || sheet.width() < cols || sheet.height() < rows {
        return Err(unreadable(
            &manifest_path,
            format!(
                "a {cols}x{rows} grid does not fit a {}x{} image",
                sheet.width(),
                sheet.height()
            ),
        ));
    }
    if manifest.key == Key::TopLeft {
        let key = sheet.get_pixel(0, 0).0;
        for p in sheet.pixels_mut() {
            if p.0[..3] == key[..3] {
                p.0 = [0, 0, 0, 0];
            }
        }
    }
    let (cw, ch) = (sheet.width() / cols, sheet.height() / rows);
    let mut out: Vec<Option<Pixmap>> = (0..12).map(|_| None).collect();
    for (r, row) in manifest.rows.iter().enumerate() {
        for (c, name) in row.iter().enumerate() {
            if name.is_empty() {
                continue;
            }
            let class = SquareClass::ALL[1..]
                .iter()
                .find(|k| k.name() == name)
                .ok_or_else(|| {
                    unreadable(
                        &manifest_path,
                        format!("unknown piece name {name:?} (expected wK..bP or \"\")"),
                    )
                })?;
            let cell: RgbaImage =
                image::imageops::crop_imm(&sheet, c as u32 * cw, r as u32 * ch, cw, ch).to_image();
            if cell.pixels().all(|p| p.0[3] == 0) {
                return Err(unreadable(
                    &image_path,
                    format!(
                        "the cell for {name} (row {}, column {}) is empty",
                        r + 1,
                        c + 1
                    ),
                ));
            }
            out[class.index() - 1] = rgba_to_pixmap(&cell);
        }
    }
    let missing: Vec<&str> = SquareClass::ALL[1..]
        .iter()
        .zip(&out)
        .filter(|(_, p)| p.is_none())
        .map(|(k, _)| k.name())
        .collect();
    if !missing.is_empty() {
        return Err(unreadable(
            &manifest_path,
            format!("no cell for {}", missing.join(", ")),
        ));
    }
    Ok(out.into_iter().flatten().collect())
}
