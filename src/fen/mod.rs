//! FEN: the six fields, a strict parser that reports every syntax error, and the checker.
//!
//! Layers, as in shakmaty: [`parse`] turns text into a [`Fen`] (syntax only), [`check`]
//! applies the rules of chess and explains each problem with the square or rank it concerns.

pub mod check;
mod hints;
pub mod parse;
pub mod problem;

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use shakmaty::{Color, Square};

use crate::placement::Placement;
pub use parse::{FenInput, ParseError, ParseErrorKind};

/// One of the six space-separated FEN fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FenField {
    /// Piece placement (rank 8 first).
    Placement,
    /// Side to move, `w` or `b`.
    Turn,
    /// Castling rights, `KQkq` or `-`.
    Castling,
    /// En-passant target square or `-`.
    EnPassant,
    /// Half-moves since the last capture or pawn move.
    Halfmove,
    /// Full-move number, starting at 1.
    Fullmove,
}

impl FenField {
    /// All fields in FEN order.
    pub const ALL: [FenField; 6] = [
        FenField::Placement,
        FenField::Turn,
        FenField::Castling,
        FenField::EnPassant,
        FenField::Halfmove,
        FenField::Fullmove,
    ];

    /// A human name for messages.
    pub fn describe(self) -> &'static str {
        match self {
            FenField::Placement => "piece placement",
            FenField::Turn => "side to move",
            FenField::Castling => "castling rights",
            FenField::EnPassant => "en-passant square",
            FenField::Halfmove => "half-move clock",
            FenField::Fullmove => "full-move number",
        }
    }
}

/// Castling rights in standard chess (not Chess960): which of the four castlings are still
/// allowed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Castling {
    /// `K`: white may castle king-side.
    pub white_king_side: bool,
    /// `Q`: white may castle queen-side.
    pub white_queen_side: bool,
    /// `k`: black may castle king-side.
    pub black_king_side: bool,
    /// `q`: black may castle queen-side.
    pub black_queen_side: bool,
}

/// One castling right, with the squares it needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CastlingRight {
    /// Its FEN letter.
    pub letter: char,
    /// Whose right it is.
    pub color: Color,
    /// Where the king must stand.
    pub king: Square,
    /// Where the rook must stand.
    pub rook: Square,
}

impl CastlingRight {
    /// The four rights in FEN order `K`, `Q`, `k`, `q`.
    pub const ALL: [CastlingRight; 4] = [
        CastlingRight {
            letter: 'K',
            color: Color::White,
            king: Square::E1,
            rook: Square::H1,
        },
        CastlingRight {
            letter: 'Q',
            color: Color::White,
            king: Square::E1,
            rook: Square::A1,
        },
        CastlingRight {
            letter: 'k',
            color: Color::Black,
            king: Square::E8,
            rook: Square::H8,
        },
        CastlingRight {
            letter: 'q',
            color: Color::Black,
            king: Square::E8,
            rook: Square::A8,
        },
    ];
}

impl Castling {
    /// No rights (`-`).
    pub const NONE: Castling = Castling {
        white_king_side: false,
        white_queen_side: false,
        black_king_side: false,
        black_queen_side: false,
    };

    /// All four rights (`KQkq`).
    pub const ALL: Castling = Castling {
        white_king_side: true,
        white_queen_side: true,
        black_king_side: true,
        black_queen_side: true,
    };

    /// Whether the right with this FEN letter is set.
    pub fn has(&self, letter: char) -> bool {
        match letter {
            'K' => self.white_king_side,
            'Q' => self.white_queen_side,
            'k' => self.black_king_side,
            'q' => self.black_queen_side,
            _ => false,
        }
    }

    /// Sets or clears the right with this FEN letter; other letters are ignored.
    pub fn set(&mut self, letter: char, on: bool) {
        match letter {
            'K' => self.white_king_side = on,
            'Q' => self.white_queen_side = on,
            'k' => self.black_king_side = on,
            'q' => self.black_queen_side = on,
            _ => {}
        }
    }

    /// Every right the placement allows: king and rook on their original squares.
    pub fn possible(placement: &Placement) -> Castling {
        let mut c = Castling::NONE;
        for right in CastlingRight::ALL {
            c.set(right.letter, right_possible(placement, right));
        }
        c
    }

    /// Whether no right is set.
    pub fn is_empty(&self) -> bool {
        *self == Castling::NONE
    }
}

/// Whether the king and rook a castling right needs stand on their squares.
pub fn right_possible(placement: &Placement, right: CastlingRight) -> bool {
    use crate::SquareClass;
    use shakmaty::{Piece, Role};
    let king = SquareClass::Piece(Piece {
        color: right.color,
        role: Role::King,
    });
    let rook = SquareClass::Piece(Piece {
        color: right.color,
        role: Role::Rook,
    });
    placement.get(right.king) == king && placement.get(right.rook) == rook
}

impl fmt::Display for Castling {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_empty() {
            return f.write_str("-");
        }
        for letter in ['K', 'Q', 'k', 'q'] {
            if self.has(letter) {
                write!(f, "{letter}")?;
            }
        }
        Ok(())
    }
}

/// A full position description: the six FEN fields.
///
/// ```
/// use fenscan::Fen;
/// let s = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1";
/// let fen: Fen = s.parse().unwrap();
/// assert_eq!(fen.to_string(), s);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Fen {
    /// Where the pieces stand.
    pub placement: Placement,
    /// Side to move.
    pub turn: Color,
    /// Castling rights.
    pub castling: Castling,
    /// En-passant target square.
    pub ep_square: Option<Square>,
    /// Half-moves since the last capture or pawn move.
    pub halfmove: u32,
    /// Full-move number (starts at 1, grows after each black move).
    pub fullmove: u32,
}

impl Fen {
    /// A placement completed with the defaults `w - - 0 1`.
    pub fn from_placement(placement: Placement) -> Fen {
        Fen {
            placement,
            turn: Color::White,
            castling: Castling::NONE,
            ep_square: None,
            halfmove: 0,
            fullmove: 1,
        }
    }

    /// The standard starting position.
    pub fn start() -> Fen {
        Fen {
            castling: Castling::ALL,
            ..Fen::from_placement(Placement::start())
        }
    }

    /// A lichess analysis-board URL for this position.
    pub fn lichess_url(&self) -> String {
        format!(
            "https://lichess.org/analysis/standard/{}",
            self.to_string().replace(' ', "_")
        )
    }
}

impl fmt::Display for Fen {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let turn = if self.turn == Color::White { 'w' } else { 'b' };
        write!(f, "{} {turn} {} ", self.placement, self.castling)?;
        match self.ep_square {
            Some(sq) => write!(f, "{sq}")?,
            None => f.write_str("-")?,
        }
        write!(f, " {} {}", self.halfmove, self.fullmove)
    }
}

impl FromStr for Fen {
    type Err = Vec<ParseError>;

    /// Parses a FEN; missing trailing fields get the defaults `w - - 0 1` (see
    /// [`parse::parse_fen`] to learn which were completed).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        parse::parse_fen(s).map(|input| input.fen)
    }
}

impl Serialize for Fen {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_string())
    }
}
