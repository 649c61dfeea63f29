//! The 13 square classes the classifier predicts: empty, or one of 6 pieces in 2 colours.

use serde::{Deserialize, Serialize};
use shakmaty::{Color, Piece, Role};

/// What stands on one square: nothing, or a piece.
///
/// Class indices (used by the classifier's output layer and by dataset folders) are
/// `0` = empty, `1..=6` = white pawn, knight, bishop, rook, queen, king and
/// `7..=12` = black pawn, knight, bishop, rook, queen, king.
///
/// ```
/// use fenscan::SquareClass;
/// let c = SquareClass::from_fen_char('n').unwrap();
/// assert_eq!(c.index(), 8);
/// assert_eq!(SquareClass::from_index(8), Some(c));
/// assert_eq!(c.name(), "bN");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum SquareClass {
    /// No piece on the square.
    #[default]
    Empty,
    /// A piece of some colour and role.
    Piece(Piece),
}

/// Roles in class-index order.
pub(crate) const ROLES: [Role; 6] = [
    Role::Pawn,
    Role::Knight,
    Role::Bishop,
    Role::Rook,
    Role::Queen,
    Role::King,
];

impl SquareClass {
    /// Number of classes.
    pub const COUNT: usize = 13;

    /// All 13 classes in index order.
    pub const ALL: [SquareClass; 13] = {
        let mut all = [SquareClass::Empty; 13];
        let mut i = 0;
        while i < 6 {
            all[1 + i] = SquareClass::Piece(Piece {
                color: Color::White,
                role: ROLES[i],
            });
            all[7 + i] = SquareClass::Piece(Piece {
                color: Color::Black,
                role: ROLES[i],
            });
            i += 1;
        }
        all
    };

    /// The class index, `0..13`.
    pub fn index(self) -> usize {
        match self {
            SquareClass::Empty => 0,
            SquareClass::Piece(p) => {
                let role = ROLES.iter().position(|&r| r == p.role).unwrap_or(0);
                1 + role + if p.color == Color::Black { 6 } else { 0 }
            }
        }
    }

    /// The class with this index, or `None` when `index >= 13`.
    pub fn from_index(index: usize) -> Option<SquareClass> {
        Self::ALL.get(index).copied()
    }

    /// The piece, if any.
    pub fn piece(self) -> Option<Piece> {
        match self {
            SquareClass::Empty => None,
            SquareClass::Piece(p) => Some(p),
        }
    }

    /// The FEN letter of the piece (`'P'`, `'n'`, ...), or `'.'` for an empty square.
    pub fn fen_char(self) -> char {
        match self {
            SquareClass::Empty => '.',
            SquareClass::Piece(p) => p.char(),
        }
    }

    /// The class for a FEN piece letter; `None` for anything else.
    pub fn from_fen_char(c: char) -> Option<SquareClass> {
        Piece::from_char(c).map(SquareClass::Piece)
    }

    /// Short name used for file and folder names: `empty`, `wK`, `bP`, ... (the same names
    /// piece-set files use).
    pub fn name(self) -> &'static str {
        const NAMES: [&str; 13] = [
            "empty", "wP", "wN", "wB", "wR", "wQ", "wK", "bP", "bN", "bB", "bR", "bQ", "bK",
        ];
        NAMES[self.index()]
    }

    /// The class with this [`name`](Self::name).
    pub fn from_name(name: &str) -> Option<SquareClass> {
        Self::ALL.into_iter().find(|c| c.name() == name)
    }

    /// A human description: `empty`, `white knight`, ...
    pub fn describe(self) -> String {
        match self {
            SquareClass::Empty => "empty".to_string(),
            SquareClass::Piece(p) => describe_piece(p),
        }
    }
}

/// `white knight`, `black pawn`, ...
pub fn describe_piece(p: Piece) -> String {
    format!("{} {}", color_name(p.color), role_name(p.role))
}

/// `white` or `black`.
pub fn color_name(c: Color) -> &'static str {
    match c {
        Color::White => "white",
        Color::Black => "black",
    }
}

/// `pawn`, `knight`, ...
pub fn role_name(r: Role) -> &'static str {
    match r {
        Role::Pawn => "pawn",
        Role::Knight => "knight",
        Role::Bishop => "bishop",
        Role::Rook => "rook",
        Role::Queen => "queen",
        Role::King => "king",
    }
}

impl Serialize for SquareClass {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for SquareClass {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        SquareClass::from_name(&s)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown square class `{s}`")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_round_trip() {
        for (i, c) in SquareClass::ALL.iter().enumerate() {
            assert_eq!(c.index(), i);
            assert_eq!(SquareClass::from_index(i), Some(*c));
            assert_eq!(SquareClass::from_name(c.name()), Some(*c));
        }
        assert_eq!(SquareClass::from_index(13), None);
    }

    #[test]
    fn fen_chars() {
        let s: String = SquareClass::ALL.iter().map(|c| c.fen_char()).collect();
        assert_eq!(s, ".PNBRQKpnbrqk");
        assert_eq!(SquareClass::from_fen_char('x'), None);
    }
}
