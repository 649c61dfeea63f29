//! The FEN fields a picture cannot show (side to move, castling, en passant, clocks): the
//! user's, or asked to be read from what the picture does show (the last move it
//! highlights, a king in check, the men at home).

use serde::Serialize;
use shakmaty::{Color, Square};

use crate::class::SquareClass;
use crate::fen::check::in_check;
use crate::fen::{Castling, Fen};
use crate::last_move::LastMove;
use crate::placement::Placement;

/// Castling rights to write into the FEN.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum CastlingChoice {
    /// Exactly these rights (default `-`).
    Explicit(Castling),
    /// Every right the placement allows (king and rook at home).
    Auto,
}

/// Side to move to write into the FEN.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TurnChoice {
    /// This side (default white).
    Given(Color),
    /// The side that did not play the last move the picture highlights (see
    /// [`crate::last_move`]); when it shows none, the side in check if one is, else white.
    FromLastMove,
}

/// En-passant square to write into the FEN.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum EpChoice {
    /// This square, or none (default).
    Given(Option<Square>),
    /// The square a pawn passed over when the highlighted last move is its double step
    /// and a pawn of the other side stands beside it, ready to take (the convention of
    /// writing the square only when the capture is there); none otherwise.
    FromLastMove,
}

/// Where a FEN field came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FieldSource {
    /// The caller gave it.
    Given,
    /// The last move the picture highlights.
    LastMove,
    /// Asked from the last move, but the picture shows none; one king is in check, so
    /// that side is to move.
    Check,
    /// Asked from the last move, but the picture shows none (and no king is in check): the
    /// default.
    Default,
}

/// The fields a picture cannot show, given by the user.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FenFields {
    /// Side to move (default white).
    pub turn: TurnChoice,
    /// Castling rights (default none).
    pub castling: CastlingChoice,
    /// En-passant square (default none).
    pub ep: EpChoice,
    /// Half-move clock.
    pub halfmove: u32,
    /// Full-move number.
    pub fullmove: u32,
}

impl Default for FenFields {
    fn default() -> Self {
        FenFields {
            turn: TurnChoice::Given(Color::White),
            castling: CastlingChoice::Explicit(Castling::NONE),
            ep: EpChoice::Given(None),
            halfmove: 0,
            fullmove: 1,
        }
    }
}

impl FenFields {
    /// The FEN of `placement` with these fields, those asked from the picture settled by
    /// `last_move` (the move it highlights, if any); with where the side to move and the
    /// en-passant square came from.
    pub fn fen(
        &self,
        placement: Placement,
        last_move: Option<LastMove>,
    ) -> (Fen, FieldSource, FieldSource) {
        let castling = match self.castling {
            CastlingChoice::Explicit(c) => c,
            CastlingChoice::Auto => Castling::possible(&placement),
        };
        let (turn, turn_from) = match (self.turn, last_move) {
            (TurnChoice::Given(c), _) => (c, FieldSource::Given),
            (TurnChoice::FromLastMove, Some(m)) => (m.to_move(), FieldSource::LastMove),
            (TurnChoice::FromLastMove, None) => {
                let checked = |side| in_check(&placement, side) == Some(true);
                match (checked(Color::White), checked(Color::Black)) {
                    (true, false) => (Color::White, FieldSource::Check),
                    (false, true) => (Color::Black, FieldSource::Check),
                    _ => (Color::White, FieldSource::Default),
                }
            }
        };
        let (ep_square, ep_from) = match (self.ep, last_move) {
            (EpChoice::Given(s), _) => (s, FieldSource::Given),
            (EpChoice::FromLastMove, Some(m)) => {
                (en_passant_after(&m, &placement), FieldSource::LastMove)
            }
            (EpChoice::FromLastMove, None) => (None, FieldSource::Default),
        };
        let fen = Fen {
            placement,
            turn,
            castling,
            ep_square,
            halfmove: self.halfmove,
            fullmove: self.fullmove,
        };
        (fen, turn_from, ep_from)
    }
}

/// The en-passant square after `m`: the square a pawn's double step passed over, when a
/// pawn of the other side stands beside it on its rank, ready to take.
fn en_passant_after(m: &LastMove, placement: &Placement) -> Option<Square> {
    let over = m.double_step_over()?;
    let taker = SquareClass::Piece(shakmaty::Piece {
        color: !m.mover(),
        role: shakmaty::Role::Pawn,
    });
    let file = i32::from(m.to.file());
    [file - 1, file + 1]
        .into_iter()
        .filter_map(|f| u32::try_from(f).ok().filter(|&f| f < 8))
        .any(|f| placement.get(Square::from_coords(shakmaty::File::new(f), m.to.rank())) == taker)
        .then_some(over)
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{Piece, Role};

    fn from_picture() -> FenFields {
        FenFields {
            turn: TurnChoice::FromLastMove,
            ep: EpChoice::FromLastMove,
            ..FenFields::default()
        }
    }

    fn e2e4() -> LastMove {
        LastMove {
            from: Square::E2,
            to: Square::E4,
            piece: Piece {
                color: Color::White,
                role: Role::Pawn,
            },
            strength: 2.0,
        }
    }

    #[test]
    fn a_double_step_beside_a_pawn_that_can_take_gives_the_en_passant_square() {
        let p: Placement = "4k3/8/8/8/3pP3/8/8/4K3".parse().unwrap();
        let (fen, turn_from, ep_from) = from_picture().fen(p, Some(e2e4()));
        assert_eq!(fen.to_string(), "4k3/8/8/8/3pP3/8/8/4K3 b - e3 0 1");
        assert_eq!(
            (turn_from, ep_from),
            (FieldSource::LastMove, FieldSource::LastMove)
        );
        // No black pawn beside it: no square (the convention of writing it only when the
        // capture is there).
        let p: Placement = "4k3/8/8/8/4P3/8/8/4K3".parse().unwrap();
        let (fen, _, _) = from_picture().fen(p, Some(e2e4()));
        assert_eq!(fen.to_string(), "4k3/8/8/8/4P3/8/8/4K3 b - - 0 1");
    }

    #[test]
    fn given_fields_are_kept_whatever_the_picture_shows() {
        let p: Placement = "4k3/8/8/8/3pP3/8/8/4K3".parse().unwrap();
        let given = FenFields::default();
        let (fen, turn_from, ep_from) = given.fen(p, Some(e2e4()));
        assert_eq!(fen.to_string(), "4k3/8/8/8/3pP3/8/8/4K3 w - - 0 1");
        assert_eq!(
            (turn_from, ep_from),
            (FieldSource::Given, FieldSource::Given)
        );
    }
}
