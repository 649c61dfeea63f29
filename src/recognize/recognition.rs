//! What one recognition found: the FEN, the board, every square's reading and what the
//! pipeline's steps did to it, kept for `--json`, `--debug-image` and `eval`.

use serde::Serialize;
use shakmaty::Square;

use crate::board::FoundBoard;
use crate::board_top::PictureTop;
use crate::decode::Change;
use crate::fen::Fen;
use crate::fen::problem::Problem;
use crate::last_move::LastMove;
use crate::levels::BoardTones;
use crate::orientation::OrientationDecision;
use crate::placement::Placement;
use crate::square_readings::{SquareReading, TwinReading, ser_squares};

use super::FieldSource;

/// The result of recognising one image.
#[derive(Clone, Debug, Serialize)]
pub struct Recognition {
    /// The FEN (placement from the picture, other fields from the user).
    pub fen: Fen,
    /// The placement.
    pub placement: Placement,
    /// Where the board is.
    pub board: FoundBoard,
    /// Whether the board was read from the picture with its bend taken out (see
    /// [`crate::board::Bend`]): its lines bend.
    pub straightened: bool,
    /// Where the board's top edge (as read, before orientation) lies in the picture: other
    /// than `top` when the picture is turned (see [`crate::board_top`]).
    pub picture_top: PictureTop,
    /// Which side is at the bottom, and how sure.
    pub orientation: OrientationDecision,
    /// Per-square readings in reading order a8..h1.
    pub squares: Vec<SquareReading>,
    /// Squares whose top probability is below the threshold, and those in `unlike_twins`.
    pub uncertain: Vec<SquareReading>,
    /// Squares read surely that look unlike the board's other squares read as the same
    /// piece on the same square colour (reported as uncertain too).
    #[serde(serialize_with = "ser_squares")]
    pub unlike_twins: Vec<Square>,
    /// Squares hidden by something drawn over the board (a dialog, a pop-up): what stands
    /// there cannot be seen, whatever they read as; reported as uncertain too.
    #[serde(serialize_with = "ser_squares")]
    pub hidden: Vec<Square>,
    /// Squares a quarter or more outside the picture (a crop too tight), reported as
    /// uncertain too.
    #[serde(serialize_with = "ser_squares")]
    pub cut_off: Vec<Square>,
    /// The board's tones, and whether the board was read with them stretched (see
    /// [`crate::levels`]); `None` when that step is off.
    pub tones: Option<BoardTones>,
    /// Unsure squares read again from shifted windows (see [`crate::relook`]).
    #[serde(serialize_with = "ser_squares")]
    pub relooked: Vec<Square>,
    /// Squares found empty once the coordinate labels in them were painted out (see
    /// [`crate::clear_labels`]).
    #[serde(serialize_with = "ser_squares")]
    pub labels_cleared: Vec<Square>,
    /// Squares found empty once a coloured mark over them was painted out (see
    /// [`crate::clear_marks`]).
    #[serde(serialize_with = "ser_squares")]
    pub marks_cleared: Vec<Square>,
    /// Unsure squares compared with a clearly read twin on the board.
    pub twins: Vec<TwinReading>,
    /// The last move the picture highlights, when it clearly shows one (see
    /// [`crate::last_move`]).
    pub last_move: Option<LastMove>,
    /// Where the side to move came from.
    pub turn_from: FieldSource,
    /// Where the en-passant square came from.
    pub ep_from: FieldSource,
    /// Squares the chess constraints changed.
    pub changes: Vec<Change>,
    /// Whether the chess constraints were applied.
    pub constraints: Constraints,
    /// The checker's findings on the FEN.
    pub problems: Vec<Problem>,
    /// A lichess analysis URL for the FEN.
    pub lichess_url: String,
    /// Milliseconds per stage: find, cut, classify, decode.
    pub timings_ms: [f64; 4],
}

/// Whether the chess constraints ([`crate::decode`]) were applied to a board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Constraints {
    /// Applied (every change is in `changes`).
    Applied,
    /// Turned off by the caller (`--no-constraints`).
    Off,
    /// Not applied: the squares read surely already break the rules of a game (a piece
    /// gallery, an editor's board of queens; [`crate::decode::clearly_not_a_game`]).
    NotAGame,
    /// Not applied: part of the board is hidden (see [`Recognition::hidden`]), and a man
    /// the rules ask for (a king) may stand beneath; the rules would put it elsewhere.
    PartlyHidden,
}

/// Why an image could not be recognised.
#[derive(Debug, thiserror::Error)]
pub enum RecognizeError {
    /// No board.
    #[error(transparent)]
    NoBoard(#[from] crate::board::BoardNotFound),
    /// The corners found cannot be cut.
    #[error(transparent)]
    Cut(#[from] crate::squares::CutError),
}
