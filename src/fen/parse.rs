//! Strict FEN syntax: every error found is reported with its field and rank.

use std::fmt;

use serde::Serialize;
use shakmaty::{Color, Rank, Square};

use super::{Castling, Fen, FenField};
use crate::class::SquareClass;
use crate::placement::Placement;

/// What is wrong with the text of one field.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ParseErrorKind {
    /// The input (or the placement field) is empty.
    Empty,
    /// More than six space-separated fields.
    TooManyFields {
        /// How many fields were found.
        found: usize,
    },
    /// The placement does not have exactly 8 ranks separated by `/`.
    RankCount {
        /// How many ranks were found.
        found: usize,
    },
    /// A rank whose pieces and empty squares do not add up to 8.
    RankSum {
        /// What they add up to.
        sum: u32,
        /// The rank's text.
        text: String,
    },
    /// Nothing between two `/`.
    EmptyRank,
    /// A character that is neither a piece letter nor a digit 1-8.
    InvalidChar {
        /// The character.
        ch: char,
        /// Its position in the rank text, from 1.
        column: usize,
    },
    /// Two digits in a row (`44`), which FEN does not allow.
    AdjacentDigits {
        /// The digits.
        text: String,
    },
    /// Side to move other than `w`/`b`.
    InvalidTurn {
        /// The text found.
        text: String,
    },
    /// Castling rights other than `-` or a subset of `KQkq` in that order.
    InvalidCastling {
        /// The text found.
        text: String,
    },
    /// En-passant field that is not `-` or a square.
    InvalidEpSquare {
        /// The text found.
        text: String,
    },
    /// A clock that is not a non-negative whole number (full-move number: at least 1).
    InvalidNumber {
        /// The text found.
        text: String,
    },
}

/// A syntax error in one field (and rank, for the placement).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ParseError {
    /// Which field.
    pub field: FenField,
    /// For placement errors, the rank concerned.
    #[serde(serialize_with = "crate::fen::problem::ser_opt_rank")]
    pub rank: Option<Rank>,
    /// What is wrong.
    #[serde(flatten)]
    pub kind: ParseErrorKind,
}

impl ParseError {
    fn new(field: FenField, kind: ParseErrorKind) -> ParseError {
        ParseError {
            field,
            rank: None,
            kind,
        }
    }

    /// An obvious fix, where there is one.
    pub fn suggestion(&self) -> Option<String> {
        match &self.kind {
            ParseErrorKind::InvalidTurn { text } => {
                let t = text.to_ascii_lowercase();
                if t.starts_with('w') {
                    Some("write `w`".into())
                } else if t.starts_with('b') {
                    Some("write `b`".into())
                } else {
                    Some("write `w` (white to move) or `b` (black to move)".into())
                }
            }
            ParseErrorKind::InvalidCastling { text } => {
                let mut c = Castling::NONE;
                let mut ok = true;
                for ch in text.chars() {
                    if "KQkq".contains(ch) {
                        c.set(ch, true);
                    } else {
                        ok = false;
                    }
                }
                (ok && !c.is_empty()).then(|| format!("write `{c}`"))
            }
            ParseErrorKind::AdjacentDigits { text } => {
                let sum: u32 = text.chars().filter_map(|c| c.to_digit(10)).sum();
                Some(format!("write `{sum}` instead of `{text}`"))
            }
            ParseErrorKind::InvalidEpSquare { .. } => {
                Some("write `-` or a square such as `e3`".into())
            }
            _ => None,
        }
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let field = self.field.describe();
        match (&self.kind, self.rank) {
            (ParseErrorKind::Empty, _) if self.field == FenField::Placement => {
                write!(f, "the input is empty: expected a FEN or a piece placement")
            }
            (ParseErrorKind::Empty, _) => write!(f, "the {field} is empty"),
            (ParseErrorKind::TooManyFields { found }, _) => {
                write!(
                    f,
                    "found {found} fields separated by spaces; a FEN has at most 6"
                )
            }
            (ParseErrorKind::RankCount { found }, _) => write!(
                f,
                "the placement has {found} rank{} separated by `/`; it needs exactly 8",
                if *found == 1 { "" } else { "s" }
            ),
            (ParseErrorKind::RankSum { sum, text }, Some(rank)) => write!(
                f,
                "rank {} (`{text}`) covers {sum} square{}, not 8",
                rank.char(),
                if *sum == 1 { "" } else { "s" }
            ),
            (ParseErrorKind::EmptyRank, Some(rank)) => {
                write!(
                    f,
                    "rank {} is empty; write `8` for an empty rank",
                    rank.char()
                )
            }
            (ParseErrorKind::InvalidChar { ch, column }, Some(rank)) => write!(
                f,
                "rank {}: `{}` at position {column} is not a piece letter (KQRBNP, kqrbnp) or a digit 1-8",
                rank.char(),
                ch.escape_debug()
            ),
            (ParseErrorKind::AdjacentDigits { text }, Some(rank)) => {
                write!(
                    f,
                    "rank {}: digits `{text}` stand next to each other",
                    rank.char()
                )
            }
            (ParseErrorKind::InvalidTurn { text }, _) => {
                write!(f, "side to move `{text}` is not `w` or `b`")
            }
            (ParseErrorKind::InvalidCastling { text }, _) => write!(
                f,
                "castling rights `{text}` are not `-` or letters from `KQkq` in that order, each once"
            ),
            (ParseErrorKind::InvalidEpSquare { text }, _) => {
                write!(f, "en-passant field `{text}` is not `-` or a square")
            }
            (ParseErrorKind::InvalidNumber { text }, _) => {
                if self.field == FenField::Fullmove {
                    write!(
                        f,
                        "full-move number `{text}` is not a whole number of at least 1"
                    )
                } else {
                    write!(
                        f,
                        "half-move clock `{text}` is not a whole number of at least 0"
                    )
                }
            }
            (kind, _) => write!(f, "{field}: {kind:?}"),
        }
    }
}

impl std::error::Error for ParseError {}

/// A parsed FEN and which trailing fields were missing and filled with defaults.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FenInput {
    /// The position.
    pub fen: Fen,
    /// Fields that were absent from the input and got their defaults (`w - - 0 1`).
    pub completed: Vec<FenField>,
}

/// Parses a FEN placement field, reporting every malformed rank.
pub fn parse_placement(text: &str) -> Result<Placement, Vec<ParseError>> {
    let field = FenField::Placement;
    if text.is_empty() {
        return Err(vec![ParseError::new(field, ParseErrorKind::Empty)]);
    }
    let ranks: Vec<&str> = text.split('/').collect();
    let mut errors = Vec::new();
    if ranks.len() != 8 {
        errors.push(ParseError::new(
            field,
            ParseErrorKind::RankCount { found: ranks.len() },
        ));
    }
    let mut placement = Placement::default();
    for (row, rank_text) in ranks.iter().enumerate() {
        // Ranks beyond the eighth have no rank name; they are covered by RankCount.
        let Some(rank) = (row < 8).then(|| Rank::new(7 - row as u32)) else {
            break;
        };
        let err = |kind| ParseError {
            field,
            rank: Some(rank),
            kind,
        };
        if rank_text.is_empty() {
            errors.push(err(ParseErrorKind::EmptyRank));
            continue;
        }
        let chars: Vec<char> = rank_text.chars().collect();
        let mut squares = 0usize;
        let mut invalid = false;
        let mut col = 0;
        while col < chars.len() {
            let ch = chars[col];
            if ch.is_ascii_digit() {
                let start = col;
                while col < chars.len() && chars[col].is_ascii_digit() {
                    col += 1;
                }
                if col - start > 1 {
                    let text = chars[start..col].iter().collect();
                    errors.push(err(ParseErrorKind::AdjacentDigits { text }));
                }
                for (offset, d) in chars[start..col].iter().enumerate() {
                    match d.to_digit(10) {
                        // Empty squares: the placement starts all empty.
                        Some(n @ 1..=8) => squares += n as usize,
                        _ => {
                            errors.push(err(ParseErrorKind::InvalidChar {
                                ch: *d,
                                column: start + offset + 1,
                            }));
                            invalid = true;
                        }
                    }
                }
                continue;
            }
            match SquareClass::from_fen_char(ch) {
                Some(class) => {
                    if squares < 8 {
                        placement.0[row * 8 + squares] = class;
                    }
                    squares += 1;
                }
                None => {
                    errors.push(err(ParseErrorKind::InvalidChar {
                        ch,
                        column: col + 1,
                    }));
                    invalid = true;
                }
            }
            col += 1;
        }
        // With a bad character the sum means little; the character is the error to fix.
        if squares != 8 && !invalid {
            errors.push(err(ParseErrorKind::RankSum {
                sum: squares as u32,
                text: (*rank_text).to_string(),
            }));
        }
    }
    if errors.is_empty() {
        Ok(placement)
    } else {
        Err(errors)
    }
}

/// Parses a FEN, or any leading part of one (a placement alone, or placement and side to
/// move, ...): the missing fields get `w - - 0 1` and are listed in
/// [`FenInput::completed`]. All syntax errors in all fields are reported together.
///
/// ```
/// use fenscan::fen::{parse::parse_fen, FenField};
/// let input = parse_fen("8/8/8/4k3/8/8/8/4K3").unwrap();
/// assert_eq!(input.fen.to_string(), "8/8/8/4k3/8/8/8/4K3 w - - 0 1");
/// assert_eq!(input.completed.len(), 5);
/// assert!(parse_fen("8/8/8/4k3/8/8/8/4K3 x").is_err());
/// ```
pub fn parse_fen(text: &str) -> Result<FenInput, Vec<ParseError>> {
    let fields: Vec<&str> = text.split_whitespace().collect();
    if fields.is_empty() {
        return Err(vec![ParseError::new(
            FenField::Placement,
            ParseErrorKind::Empty,
        )]);
    }
    let mut errors = Vec::new();
    if fields.len() > 6 {
        errors.push(ParseError::new(
            FenField::Fullmove,
            ParseErrorKind::TooManyFields {
                found: fields.len(),
            },
        ));
    }
    let placement = parse_placement(fields[0])
        .map_err(|e| errors.extend(e))
        .ok();
    let mut fen = Fen::from_placement(placement.unwrap_or_default());
    let mut completed = Vec::new();
    for (i, field) in FenField::ALL.into_iter().enumerate().skip(1) {
        let Some(&text) = fields.get(i) else {
            completed.push(field);
            continue;
        };
        let err = |kind| ParseError::new(field, kind);
        match field {
            FenField::Turn => match text {
                "w" => fen.turn = Color::White,
                "b" => fen.turn = Color::Black,
                _ => errors.push(err(ParseErrorKind::InvalidTurn { text: text.into() })),
            },
            FenField::Castling => match parse_castling(text) {
                Some(c) => fen.castling = c,
                None => errors.push(err(ParseErrorKind::InvalidCastling { text: text.into() })),
            },
            FenField::EnPassant => {
                if text != "-" {
                    match text.parse::<Square>() {
                        Ok(sq)
                            if text
                                .chars()
                                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit()) =>
                        {
                            fen.ep_square = Some(sq)
                        }
                        _ => {
                            errors.push(err(ParseErrorKind::InvalidEpSquare { text: text.into() }))
                        }
                    }
                }
            }
            FenField::Halfmove | FenField::Fullmove => {
                let canonical = text == "0" || !text.starts_with('0');
                match text.parse::<u32>() {
                    Ok(n)
                        if canonical
                            && text.chars().all(|c| c.is_ascii_digit())
                            && (field == FenField::Halfmove || n >= 1) =>
                    {
                        if field == FenField::Halfmove {
                            fen.halfmove = n;
                        } else {
                            fen.fullmove = n;
                        }
                    }
                    _ => errors.push(err(ParseErrorKind::InvalidNumber { text: text.into() })),
                }
            }
            FenField::Placement => {}
        }
    }
    if errors.is_empty() {
        Ok(FenInput { fen, completed })
    } else {
        Err(errors)
    }
}

/// `-` or a subset of `KQkq` in that order, each letter once.
fn parse_castling(text: &str) -> Option<Castling> {
    if text == "-" {
        return Some(Castling::NONE);
    }
    let mut c = Castling::NONE;
    let mut rest = text;
    for letter in ['K', 'Q', 'k', 'q'] {
        if let Some(r) = rest.strip_prefix(letter) {
            c.set(letter, true);
            rest = r;
        }
    }
    (rest.is_empty() && !text.is_empty()).then_some(c)
}
