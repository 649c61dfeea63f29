//! Whether the man now standing on a square could have come there from another square in
//! one move: the test that tells an app's last-move highlight from two squares marked for
//! some other reason.

use shakmaty::{Color, File, Piece, Rank, Role, Square};

use crate::class::SquareClass;
use crate::placement::Placement;

/// Whether `piece`, now on `to`, could have just moved there from the now empty `from`
/// in one move of a game, given the men standing now: a knight's jump, a king's step or
/// castling, a slider's line with nothing standing between, a pawn's step, double step or
/// capture forward, or a pawn promoted on the last rank.
pub fn could_have_moved(placement: &Placement, piece: Piece, from: Square, to: Square) -> bool {
    if from == to || placement.get(from) != SquareClass::Empty {
        return false;
    }
    let df = i32::from(to.file()) - i32::from(from.file());
    let dr = i32::from(to.rank()) - i32::from(from.rank());
    let clear = || squares_between(from, to).all(|s| placement.get(s) == SquareClass::Empty);
    let moved = match piece.role {
        Role::Knight => (df.abs(), dr.abs()) == (1, 2) || (df.abs(), dr.abs()) == (2, 1),
        Role::King => (df.abs() <= 1 && dr.abs() <= 1) || castled(piece.color, from, to),
        Role::Rook => (df == 0 || dr == 0) && clear(),
        Role::Bishop => df.abs() == dr.abs() && clear(),
        Role::Queen => (df == 0 || dr == 0 || df.abs() == dr.abs()) && clear(),
        Role::Pawn => pawn_move(piece.color, from, to, placement),
    };
    moved || could_be_promotion(piece, from, to)
}

/// Whether `piece` on `to` may be a pawn just promoted there from `from`: a piece other
/// than a pawn or king, one step forward or diagonally from its side's seventh rank.
pub fn could_be_promotion(piece: Piece, from: Square, to: Square) -> bool {
    let df = i32::from(to.file()) - i32::from(from.file());
    matches!(
        piece.role,
        Role::Knight | Role::Bishop | Role::Rook | Role::Queen
    ) && from.rank() == relative(Rank::Seventh, piece.color)
        && to.rank() == relative(Rank::Eighth, piece.color)
        && df.abs() <= 1
}

/// `rank` as seen from `color`'s side (the first rank of black is the eighth).
pub(crate) fn relative(rank: Rank, color: Color) -> Rank {
    match color {
        Color::White => rank,
        Color::Black => rank.flip_vertical(),
    }
}

/// A pawn's step, double step from its first square, or capture (en passant included: the
/// taken pawn is gone either way).
fn pawn_move(color: Color, from: Square, to: Square, placement: &Placement) -> bool {
    let forward = if color == Color::White { 1 } else { -1 };
    let df = i32::from(to.file()) - i32::from(from.file());
    let dr = i32::from(to.rank()) - i32::from(from.rank());
    if from.rank() == relative(Rank::First, color) || to.rank() == relative(Rank::Eighth, color) {
        // No pawn stands on its first rank, and one reaching the last is promoted.
        return false;
    }
    match (df.abs(), dr * forward) {
        (0, 1) | (1, 1) => true,
        (0, 2) => {
            from.rank() == relative(Rank::Second, color)
                && squares_between(from, to).all(|s| placement.get(s) == SquareClass::Empty)
        }
        _ => false,
    }
}

/// The king's move of castling: from its first square two files towards a rook's corner.
fn castled(color: Color, from: Square, to: Square) -> bool {
    let home = relative(Rank::First, color);
    from == Square::from_coords(File::E, home)
        && (to == Square::from_coords(File::G, home) || to == Square::from_coords(File::C, home))
}

/// The squares strictly between two squares on one line (rank, file or diagonal); none
/// when they are not on one line.
fn squares_between(from: Square, to: Square) -> impl Iterator<Item = Square> {
    let df = i32::from(to.file()) - i32::from(from.file());
    let dr = i32::from(to.rank()) - i32::from(from.rank());
    let on_line = df == 0 || dr == 0 || df.abs() == dr.abs();
    let steps = if on_line { df.abs().max(dr.abs()) } else { 0 };
    let (sf, sr) = (df.signum(), dr.signum());
    (1..steps.max(1)).filter_map(move |k| {
        let file = u32::try_from(i32::from(from.file()) + k * sf).ok()?;
        let rank = u32::try_from(i32::from(from.rank()) + k * sr).ok()?;
        Some(Square::from_coords(File::new(file), Rank::new(rank)))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn placement(fen: &str) -> Placement {
        fen.parse().unwrap()
    }

    fn piece(c: char) -> Piece {
        SquareClass::from_fen_char(c).unwrap().piece().unwrap()
    }

    #[test]
    fn moves_of_each_kind() {
        // After 1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. O-O.
        let p = placement("r1bqkbnr/1ppp1ppp/p1n5/1B2p3/4P3/5N2/PPPP1PPP/RNBQ1RK1");
        assert!(could_have_moved(&p, piece('P'), Square::E2, Square::E4));
        // (g1 and f1 are taken since castling: the knight and bishop came another way.)
        assert!(could_have_moved(&p, piece('N'), Square::H4, Square::F3));
        assert!(could_have_moved(&p, piece('B'), Square::C4, Square::B5));
        assert!(could_have_moved(&p, piece('K'), Square::E1, Square::G1));
        assert!(could_have_moved(&p, piece('p'), Square::A7, Square::A6));
        assert!(could_have_moved(&p, piece('n'), Square::B8, Square::C6));
        // The rook's part of castling is no move of its own: the king stands between.
        assert!(!could_have_moved(&p, piece('R'), Square::H1, Square::F1));
    }

    #[test]
    fn what_no_move_does() {
        let p = placement("r1bqkbnr/1ppp1ppp/p1n5/1B2p3/4P3/5N2/PPPP1PPP/RNBQ1RK1");
        // The from square must be empty now.
        assert!(!could_have_moved(&p, piece('N'), Square::G2, Square::F3));
        // A knight does not slide, a bishop does not turn, a pawn does not go back.
        assert!(!could_have_moved(&p, piece('N'), Square::F1, Square::F3));
        assert!(!could_have_moved(&p, piece('B'), Square::B1, Square::B5));
        assert!(!could_have_moved(&p, piece('P'), Square::E5, Square::E4));
        // A slider's line must be empty: the queen on d1 cannot have come from d3 past
        // the pawn on d2.
        assert!(!could_have_moved(&p, piece('Q'), Square::D3, Square::D1));
        // A double step only from the pawn's first square, over an empty square.
        assert!(!could_have_moved(&p, piece('p'), Square::A8, Square::A6));
        assert!(!could_have_moved(&p, piece('P'), Square::E3, Square::E5));
        // Castling only from e1 to g1 or c1.
        assert!(!could_have_moved(&p, piece('K'), Square::D1, Square::G1));
    }

    #[test]
    fn promotions_and_captures() {
        let p = placement("3Q4/8/8/8/8/8/8/8");
        assert!(could_have_moved(&p, piece('Q'), Square::D7, Square::D8));
        assert!(could_have_moved(&p, piece('Q'), Square::E7, Square::D8));
        // f7 -> d8 is neither a promotion nor a queen's line.
        assert!(!could_have_moved(&p, piece('Q'), Square::F7, Square::D8));
        let q = placement("8/8/8/3pP3/8/8/8/8");
        assert!(could_have_moved(&q, piece('P'), Square::D4, Square::E5));
        assert!(could_have_moved(&q, piece('p'), Square::E6, Square::D5));
        assert!(!could_have_moved(&q, piece('p'), Square::C4, Square::D5));
    }
}
