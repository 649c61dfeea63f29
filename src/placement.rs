//! An 8x8 piece placement: the first FEN field, and what the classifier predicts.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use shakmaty::{Board, Color, File, Piece, Rank, Square};

use crate::class::SquareClass;
use crate::fen::parse::{ParseError, parse_placement};

/// 64 square classes in *reading order*: index 0 is a8, 7 is h8, 8 is a7, 63 is h1
/// (rank 8 first, files a..h), the order a FEN placement is written in and the order of the
/// squares of a board image seen from white's side, top-left first.
///
/// ```
/// use fenscan::Placement;
/// let p: Placement = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR".parse().unwrap();
/// assert_eq!(p.to_string(), "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR");
/// assert_eq!(p.to_indices()[0], 10); // a8: black rook
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Placement(pub [SquareClass; 64]);

impl Default for Placement {
    fn default() -> Self {
        Placement([SquareClass::Empty; 64])
    }
}

/// The reading-order index (0 = a8 .. 63 = h1) of a square.
pub fn reading_index(sq: Square) -> usize {
    (7 - usize::from(sq.rank())) * 8 + usize::from(sq.file())
}

/// The colour of the square at a reading-order index (or at an index in a picture's grid
/// of 8 x 8, whose top-left square is light either way up): 0 light, 1 dark.
pub fn square_shade(index: usize) -> usize {
    (index / 8 + index % 8) % 2
}

/// The square at a reading-order index (0 = a8 .. 63 = h1); `None` when `index >= 64`.
pub fn square_at(index: usize) -> Option<Square> {
    if index >= 64 {
        return None;
    }
    let file = File::new((index % 8) as u32);
    let rank = Rank::new(7 - (index / 8) as u32);
    Some(Square::from_coords(file, rank))
}

impl Placement {
    /// The standard starting position.
    pub fn start() -> Placement {
        Placement::from_board(&Board::new())
    }

    /// The class on a square.
    pub fn get(&self, sq: Square) -> SquareClass {
        self.0[reading_index(sq)]
    }

    /// Puts a class on a square.
    pub fn set(&mut self, sq: Square, class: SquareClass) {
        self.0[reading_index(sq)] = class;
    }

    /// Every occupied square with its piece, in reading order.
    pub fn pieces(&self) -> impl Iterator<Item = (Square, Piece)> + '_ {
        self.0
            .iter()
            .enumerate()
            .filter_map(|(i, c)| Some((square_at(i)?, c.piece()?)))
    }

    /// The 64 class indices in reading order.
    pub fn to_indices(&self) -> [usize; 64] {
        self.0.map(SquareClass::index)
    }

    /// Builds a placement from 64 class indices in reading order; `None` when there are not
    /// exactly 64 or one is out of range.
    pub fn from_indices(indices: &[usize]) -> Option<Placement> {
        if indices.len() != 64 {
            return None;
        }
        let mut p = Placement::default();
        for (slot, &i) in p.0.iter_mut().zip(indices) {
            *slot = SquareClass::from_index(i)?;
        }
        Some(p)
    }

    /// The placement turned by 180 degrees. A board image seen from black's side lists its
    /// squares h1..a8 when read top-left first, so reading it as if from white's side gives
    /// the rotated placement; rotating again restores the truth.
    pub fn rotated_180(&self) -> Placement {
        let mut out = self.0;
        out.reverse();
        Placement(out)
    }

    /// The placement with white and black exchanged (squares unchanged).
    pub fn colors_swapped(&self) -> Placement {
        Placement(self.0.map(|c| match c {
            SquareClass::Empty => SquareClass::Empty,
            SquareClass::Piece(p) => SquareClass::Piece(Piece {
                color: !p.color,
                role: p.role,
            }),
        }))
    }

    /// Converts to a shakmaty board.
    pub fn to_board(&self) -> Board {
        let mut board = Board::empty();
        for (sq, piece) in self.pieces() {
            board.set_piece_at(sq, piece);
        }
        board
    }

    /// Converts from a shakmaty board.
    pub fn from_board(board: &Board) -> Placement {
        let mut p = Placement::default();
        for (sq, piece) in board.iter() {
            p.set(sq, SquareClass::Piece(piece));
        }
        p
    }

    /// Number of pieces of one colour.
    pub fn count_color(&self, color: Color) -> usize {
        self.pieces().filter(|(_, p)| p.color == color).count()
    }
}

impl fmt::Display for Placement {
    /// Writes the FEN placement field (rank 8 first).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (row, squares) in self.0.chunks(8).enumerate() {
            if row > 0 {
                f.write_str("/")?;
            }
            let mut empty = 0;
            for c in squares {
                match c {
                    SquareClass::Empty => empty += 1,
                    SquareClass::Piece(p) => {
                        if empty > 0 {
                            write!(f, "{empty}")?;
                            empty = 0;
                        }
                        write!(f, "{}", p.char())?;
                    }
                }
            }
            if empty > 0 {
                write!(f, "{empty}")?;
            }
        }
        Ok(())
    }
}

impl fmt::Debug for Placement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Placement({self})")
    }
}

impl FromStr for Placement {
    type Err = Vec<ParseError>;

    /// Parses a FEN placement field; every syntax error is reported, not just the first.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        parse_placement(s)
    }
}

impl Serialize for Placement {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_string())
    }
}

impl<'de> Deserialize<'de> for Placement {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(|errs: Vec<ParseError>| {
            let msgs: Vec<String> = errs.iter().map(|e| e.to_string()).collect();
            serde::de::Error::custom(format!("bad placement `{s}`: {}", msgs.join("; ")))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR";

    #[test]
    fn reading_order() {
        assert_eq!(reading_index(Square::A8), 0);
        assert_eq!(reading_index(Square::H8), 7);
        assert_eq!(reading_index(Square::A1), 56);
        assert_eq!(reading_index(Square::H1), 63);
        for i in 0..64 {
            assert_eq!(reading_index(square_at(i).unwrap()), i);
        }
        assert_eq!(square_at(64), None);
    }

    #[test]
    fn round_trips() {
        for s in [
            START,
            "8/8/8/8/8/8/8/8",
            "4k3/8/8/3Pp3/8/8/8/4K3",
            "r1b1k2r/1p3ppp/8/8/8/8/8/R3K2R",
        ] {
            let p: Placement = s.parse().unwrap();
            assert_eq!(p.to_string(), s);
            assert_eq!(Placement::from_indices(&p.to_indices()), Some(p));
            assert_eq!(Placement::from_board(&p.to_board()), p);
            assert_eq!(p.rotated_180().rotated_180(), p);
        }
        assert_eq!(Placement::start().to_string(), START);
    }

    #[test]
    fn rotation_matches_shakmaty() {
        let p: Placement = "r1b1k2r/1p3ppp/8/8/3N4/8/PPP5/R3K2R".parse().unwrap();
        let mut b = p.to_board();
        b.rotate_180();
        assert_eq!(Placement::from_board(&b), p.rotated_180());
        assert_eq!(p.rotated_180().get(Square::D8), p.get(Square::E1));
    }

    #[test]
    fn bad_indices() {
        assert_eq!(Placement::from_indices(&[0; 63]), None);
        let mut v = vec![0; 64];
        v[3] = 13;
        assert_eq!(Placement::from_indices(&v), None);
    }
}
