//! One line of `labels.jsonl`: everything known about one synthetic image.

use serde::{Deserialize, Serialize};

use crate::last_move::MoveSquares;
use crate::placement::Placement;
use crate::render::{Coordinates, Orientation, Rendered, SquareCorners};

/// A labelled board image.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LabelRecord {
    /// Image file name, relative to the dataset folder.
    pub file: String,
    /// The true position (FEN placement field).
    pub placement: Placement,
    /// Which side is at the bottom of the picture.
    pub orientation: Orientation,
    /// Board corners in image pixels, named by the squares they belong to.
    pub corners: SquareCorners,
    /// Image width in pixels.
    pub width: u32,
    /// Image height in pixels.
    pub height: u32,
    /// Piece set name.
    pub piece_set: String,
    /// Board theme name.
    pub theme: String,
    /// Coordinates drawn.
    pub coordinates: Coordinates,
    /// Overlays drawn.
    pub overlays: Vec<String>,
    /// Scene and degradation effects applied.
    pub effects: Vec<String>,
    /// The move shown as just played, as `e2e4` (`overlays.played_move`); absent when none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_move: Option<MoveSquares>,
}

impl LabelRecord {
    /// The record for a rendered image saved as `file`.
    pub fn new(file: String, r: &Rendered) -> LabelRecord {
        LabelRecord {
            file,
            placement: r.placement,
            orientation: r.orientation,
            corners: SquareCorners::from_quad(&r.quad, r.orientation),
            width: r.image.width(),
            height: r.image.height(),
            piece_set: r.piece_set.clone(),
            theme: r.theme.clone(),
            coordinates: r.coordinates,
            overlays: r.overlays.clone(),
            effects: r.effects.clone(),
            last_move: r.last_move,
        }
    }
}

/// Reads the complete lines of a `labels.jsonl`; a last line cut short by an interruption
/// is ignored (and reported in the second value as the byte length of the good part).
pub fn read_labels(text: &str) -> Result<(Vec<LabelRecord>, usize), String> {
    let mut out = Vec::new();
    let mut good = 0;
    for (i, line) in text.split_inclusive('\n').enumerate() {
        if !line.ends_with('\n') {
            break; // interrupted mid-line
        }
        let rec: LabelRecord = serde_json::from_str(line.trim_end())
            .map_err(|e| format!("labels.jsonl line {}: {e}", i + 1))?;
        out.push(rec);
        good += line.len();
    }
    Ok((out, good))
}
