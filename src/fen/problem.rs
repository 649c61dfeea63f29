//! A problem the checker found: how bad, what kind, where, and what to do about it.

use std::fmt;

use serde::{Serialize, Serializer};
use shakmaty::{Rank, Square};

use super::FenField;
use super::parse::{ParseError, ParseErrorKind};

/// How serious a problem is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// Worth knowing, nothing wrong (e.g. fields completed with defaults, checkmate).
    Note,
    /// Legal but suspicious (e.g. a board that looks upside down).
    Warning,
    /// The FEN is malformed or describes an impossible position.
    Error,
}

/// What kind of problem, stable for tools reading `--json`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[allow(missing_docs)] // each variant is explained by the messages built in `check`
pub enum ProblemKind {
    EmptyInput,
    EmptyField,
    TooManyFields,
    RankCount,
    RankSum,
    EmptyRank,
    InvalidCharacter,
    AdjacentDigits,
    InvalidTurn,
    InvalidCastlingSyntax,
    InvalidEpSyntax,
    InvalidNumber,
    MissingKing,
    TooManyKings,
    KingsTouching,
    OppositeCheck,
    ImpossibleCheck,
    PawnOnBackRank,
    TooManyPawns,
    TooManyPieces,
    CastlingRights,
    EnPassant,
    ClockMismatch,
    FlippedBoard,
    SwappedColors,
    Completed,
    Checkmate,
    Stalemate,
    Check,
}

/// One problem with a FEN, located on the board or in a field.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Problem {
    /// How serious.
    pub severity: Severity,
    /// What kind.
    pub kind: ProblemKind,
    /// The FEN field concerned.
    pub field: FenField,
    /// The rank concerned, if one.
    #[serde(serialize_with = "ser_opt_rank")]
    pub rank: Option<Rank>,
    /// The squares concerned (may be empty).
    #[serde(serialize_with = "ser_squares")]
    pub squares: Vec<Square>,
    /// Plain-English explanation naming the squares/ranks.
    pub message: String,
    /// An obvious fix, where there is one.
    pub suggestion: Option<String>,
}

impl Problem {
    /// A problem with no location yet.
    pub fn new(severity: Severity, kind: ProblemKind, field: FenField, message: String) -> Problem {
        Problem {
            severity,
            kind,
            field,
            rank: None,
            squares: Vec::new(),
            message,
            suggestion: None,
        }
    }

    /// Sets the squares concerned.
    pub fn at(mut self, squares: impl IntoIterator<Item = Square>) -> Problem {
        self.squares = squares.into_iter().collect();
        self
    }

    /// Sets the suggestion.
    pub fn suggest(mut self, suggestion: impl Into<String>) -> Problem {
        self.suggestion = Some(suggestion.into());
        self
    }

    /// Whether this is an error (not a warning or note).
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

impl From<&ParseError> for Problem {
    fn from(e: &ParseError) -> Problem {
        let kind = match &e.kind {
            ParseErrorKind::Empty if e.field == FenField::Placement => ProblemKind::EmptyInput,
            ParseErrorKind::Empty => ProblemKind::EmptyField,
            ParseErrorKind::TooManyFields { .. } => ProblemKind::TooManyFields,
            ParseErrorKind::RankCount { .. } => ProblemKind::RankCount,
            ParseErrorKind::RankSum { .. } => ProblemKind::RankSum,
            ParseErrorKind::EmptyRank => ProblemKind::EmptyRank,
            ParseErrorKind::InvalidChar { .. } => ProblemKind::InvalidCharacter,
            ParseErrorKind::AdjacentDigits { .. } => ProblemKind::AdjacentDigits,
            ParseErrorKind::InvalidTurn { .. } => ProblemKind::InvalidTurn,
            ParseErrorKind::InvalidCastling { .. } => ProblemKind::InvalidCastlingSyntax,
            ParseErrorKind::InvalidEpSquare { .. } => ProblemKind::InvalidEpSyntax,
            ParseErrorKind::InvalidNumber { .. } => ProblemKind::InvalidNumber,
        };
        Problem {
            severity: Severity::Error,
            kind,
            field: e.field,
            rank: e.rank,
            squares: Vec::new(),
            message: e.to_string(),
            suggestion: e.suggestion(),
        }
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let label = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        };
        write!(f, "{label}: {}", self.message)?;
        if let Some(s) = &self.suggestion {
            write!(f, "\n  hint: {s}")?;
        }
        Ok(())
    }
}

/// Serialises a rank as its digit (`"4"`).
pub(crate) fn ser_opt_rank<S: Serializer>(rank: &Option<Rank>, s: S) -> Result<S::Ok, S::Error> {
    match rank {
        Some(r) => s.serialize_some(&r.char().to_string()),
        None => s.serialize_none(),
    }
}

/// Serialises squares by name (`["e1", "h1"]`).
fn ser_squares<S: Serializer>(squares: &[Square], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(squares.iter().map(|sq| sq.to_string()))
}
