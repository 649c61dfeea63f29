//! What steers one recognition: the finder's and decoder's settings, which optional steps
//! run, and the FEN fields the picture cannot show.

use crate::board::FinderConfig;
use crate::clear_labels::ClearLabelsConfig;
use crate::clear_marks::ClearMarksConfig;
use crate::decode::DecodeConfig;
use crate::hidden::HiddenConfig;
use crate::levels;
use crate::lookalike::LookalikeConfig;
use crate::relook::RelookConfig;
use crate::render::Orientation;

use super::FenFields;

/// Everything that steers one recognition.
#[derive(Clone, Debug, PartialEq)]
pub struct RecognizeOptions {
    /// Board finder settings.
    pub finder: FinderConfig,
    /// Constraint decoding settings.
    pub decode: DecodeConfig,
    /// Apply chess constraints (one king a side, no back-rank pawns).
    pub constraints: bool,
    /// Compare unsure squares with their clearly read twins on the same board (`None`:
    /// off).
    pub lookalike: Option<LookalikeConfig>,
    /// Read unsure squares again from shifted windows (`None`: off).
    pub relook: Option<RelookConfig>,
    /// Look again, with the coordinate labels painted out, at the squares read as pieces
    /// where the board's labels stand, when labels were read (`None`: off; see
    /// [`crate::clear_labels`]).
    pub clear_labels: Option<ClearLabelsConfig>,
    /// Look again, with a coloured mark painted out, at the squares read as men that show
    /// one colour laid over a plain square (a text marker, an arrow; `None`: off; see
    /// [`crate::clear_marks`]).
    pub clear_marks: Option<ClearMarksConfig>,
    /// Override the orientation.
    pub orientation: Option<Orientation>,
    /// A square whose top probability is below this is reported as uncertain. Default 0.9.
    pub uncertain_below: f32,
    /// Also report as uncertain a square read surely as a piece whose crop correlates this
    /// much less with the other squares read as that piece on its square colour than they
    /// do with each other (`None`: off). Default 0.2 (see
    /// [`crate::lookalike::unlike_twins`]).
    pub unlike_twins_margin: Option<f32>,
    /// Report the squares hidden by something over the board (a dialog, a pop-up; see
    /// [`crate::hidden`]) as unsure (`None`: off).
    pub hidden: Option<HiddenConfig>,
    /// A board whose tones span less than this (grey levels between its darkest and
    /// lightest, see [`crate::levels::board_tones`]), or whose lightest grey is under
    /// [`crate::levels::DIM_BELOW`] (its shadows then lifted too), is also read with them
    /// stretched to the full range, and the surer reading kept (`None`: both off). Default
    /// 170.
    pub stretch_faded_below: Option<f32>,
    /// Read a board whose lines bend (a page curling towards a book's spine, a camera's
    /// barrel distortion; see [`crate::board::Bend`]) with the bend taken out.
    pub straighten: bool,
    /// The FEN fields the picture cannot show.
    pub fields: FenFields,
}

impl Default for RecognizeOptions {
    fn default() -> Self {
        RecognizeOptions {
            finder: FinderConfig::default(),
            decode: DecodeConfig::default(),
            constraints: true,
            lookalike: Some(LookalikeConfig::default()),
            relook: Some(RelookConfig::default()),
            clear_labels: Some(ClearLabelsConfig::default()),
            clear_marks: Some(ClearMarksConfig::default()),
            orientation: None,
            uncertain_below: 0.9,
            unlike_twins_margin: Some(0.2),
            hidden: Some(HiddenConfig::default()),
            stretch_faded_below: Some(levels::FADED_BELOW),
            straighten: true,
            fields: FenFields::default(),
        }
    }
}
