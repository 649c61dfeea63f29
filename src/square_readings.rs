//! What the pipeline reports about single squares: the likeliest classes of each, and the
//! unsure squares a clearly read twin swayed (serialised with chess square names).

use serde::Serialize;
use shakmaty::Square;

use crate::class::SquareClass;

/// One class with its probability.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Scored {
    /// The class.
    pub class: SquareClass,
    /// Its probability.
    pub probability: f32,
}

/// What the classifier said about one square.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SquareReading {
    /// The square (true chess square, after orientation).
    #[serde(serialize_with = "ser_square")]
    pub square: Square,
    /// The three likeliest classes.
    pub top: Vec<Scored>,
}

pub(crate) fn ser_square<S: serde::Serializer>(sq: &Square, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&sq.to_string())
}

pub(crate) fn ser_squares<S: serde::Serializer>(sqs: &[Square], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(sqs.iter().map(|sq| sq.to_string()))
}

/// An unsure square that a clearly read twin on the same board swayed.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TwinReading {
    /// The unsure square.
    #[serde(serialize_with = "ser_square")]
    pub square: Square,
    /// Its twin.
    #[serde(serialize_with = "ser_square")]
    pub twin: Square,
    /// How alike the two crops are (correlation, 1 = identical).
    pub similarity: f32,
    /// What the classifier preferred.
    pub from: SquareClass,
    /// What it prefers after the comparison (equal to `from` when the twin confirmed it).
    pub to: SquareClass,
}
