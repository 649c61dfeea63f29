//! Piece sets stored as one sprite sheet (as chess GUIs such as eboard and Scid ship them).
//! A set folder holds the image and a `sprite.json` naming the piece in each grid cell:
//!
//! ```json
//! { "image": "Alpha.png", "rows": [["wR","wN","wB","wQ","wK","wP",""],
//!                                  ["bR","bN","bB","bQ","bK","bP",""]], "key": "top_left" }
//! ```
//!
//! The grid divides the image evenly; an empty name skips a cell. With `"key": "top_left"`
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
    rows: Vec<Vec<String>>,
    key: Key,
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
    let mut sheet = image::open(&image_path)
        .map_err(|e| unreadable(&image_path, format!("not a readable image: {e}")))?
        .to_rgba8();
    let rows = manifest.rows.len() as u32;
    let cols = manifest.rows.iter().map(Vec::len).max().unwrap_or(0) as u32;
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
