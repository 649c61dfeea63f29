//! Warnings and notes beside the rule checks: a board that looks upside down or has its
//! colours swapped, check/checkmate/stalemate, and fields completed with defaults.

use shakmaty::{
    Bitboard, CastlingMode, Chess, Color, FromSetup, Position, PositionErrorKinds, Setup,
};

use super::check::squares_of;
use super::problem::{Problem, ProblemKind, Severity};
use super::{Castling, CastlingRight, Fen, FenField};
use crate::class::{SquareClass, color_name};
use crate::placement::Placement;

/// How many pieces stand on their squares of the starting position: a crude measure of how
/// "game-like" (right way up) a placement is.
fn start_likeness(p: &Placement) -> usize {
    let start = Placement::start();
    p.0.iter()
        .zip(start.0.iter())
        .filter(|(a, b)| **a != SquareClass::Empty && a == b)
        .count()
}

/// Warns when the board looks upside down: white pawns mostly on ranks 6-7 and black pawns
/// mostly on ranks 2-3. Legal positions can look like that, so this is a warning only.
pub(super) fn orientation_hints(fen: &Fen, out: &mut Vec<Problem>) {
    let p = &fen.placement;
    let ranks = |color: Color| -> Vec<u32> {
        squares_of(p, color.pawn())
            .iter()
            .map(|s| u32::from(s.rank()) + 1)
            .collect()
    };
    let (wp, bp) = (ranks(Color::White), ranks(Color::Black));
    let high = |v: &[u32]| v.iter().filter(|&&r| r >= 6).count();
    let low = |v: &[u32]| v.iter().filter(|&&r| r <= 3).count();
    let upside_down =
        wp.len() >= 2 && bp.len() >= 2 && 2 * high(&wp) > wp.len() && 2 * low(&bp) > bp.len();
    if !upside_down {
        return;
    }
    let evidence = format!(
        "{} of {} white pawns stand on ranks 6-7 and {} of {} black pawns on ranks 2-3",
        high(&wp),
        wp.len(),
        low(&bp),
        bp.len()
    );
    let rotated = p.rotated_180();
    let swapped = p.colors_swapped();
    let with_placement = |placement: Placement| Fen { placement, ..*fen }.to_string();
    let (r, s) = (start_likeness(&rotated), start_likeness(&swapped));
    if r >= s {
        out.push(
            Problem::new(
                Severity::Warning,
                ProblemKind::FlippedBoard,
                FenField::Placement,
                format!(
                    "the board looks upside down ({evidence}), as when a board shown from black's side is read from white's"
                ),
            )
            .suggest(format!("if so, the position turned 180 degrees is `{}`", with_placement(rotated))),
        );
    }
    if s >= r {
        out.push(
            Problem::new(
                Severity::Warning,
                ProblemKind::SwappedColors,
                FenField::Placement,
                format!("the colours look swapped ({evidence})"),
            )
            .suggest(format!(
                "if so, with the colours exchanged the position is `{}`",
                with_placement(swapped)
            )),
        );
    }
}

/// Notes checkmate, stalemate and check for a position without errors.
pub(super) fn game_state(fen: &Fen, out: &mut Vec<Problem>) {
    let setup = Setup {
        board: fen.placement.to_board(),
        turn: fen.turn,
        castling_rights: castling_bitboard(fen.castling),
        ep_square: fen.ep_square,
        halfmoves: fen.halfmove,
        fullmoves: std::num::NonZeroU32::new(fen.fullmove).unwrap_or(std::num::NonZeroU32::MIN),
        ..Setup::empty()
    };
    let pos = match Chess::from_setup(setup, CastlingMode::Standard) {
        Ok(pos) => pos,
        Err(e) => {
            // Everything shakmaty rejects should have been explained above; if not, say so
            // rather than pass silently.
            let rest = e.kinds() - PositionErrorKinds::IMPOSSIBLE_CHECK;
            if !rest.is_empty() {
                out.push(Problem::new(
                    Severity::Error,
                    ProblemKind::ImpossibleCheck,
                    FenField::Placement,
                    format!("the position is not legal: {e}"),
                ));
            }
            match e.ignore_impossible_check() {
                Ok(pos) => pos,
                Err(_) => return,
            }
        }
    };
    let side = color_name(fen.turn);
    if pos.is_checkmate() {
        out.push(Problem::new(
            Severity::Note,
            ProblemKind::Checkmate,
            FenField::Placement,
            format!("{side} is checkmated"),
        ));
    } else if pos.is_stalemate() {
        out.push(Problem::new(
            Severity::Note,
            ProblemKind::Stalemate,
            FenField::Placement,
            format!("{side} is stalemated"),
        ));
    } else if pos.is_check() {
        let king = pos.board().king_of(fen.turn);
        out.push(
            Problem::new(
                Severity::Note,
                ProblemKind::Check,
                FenField::Placement,
                format!("{side} is in check"),
            )
            .at(king),
        );
    }
}

fn castling_bitboard(c: Castling) -> Bitboard {
    CastlingRight::ALL
        .iter()
        .filter(|r| c.has(r.letter))
        .fold(Bitboard::EMPTY, |bb, r| bb | Bitboard::from(r.rook))
}

pub(super) fn completed_note(fen: &Fen, completed: &[FenField]) -> Problem {
    let what = if completed.len() == 5 {
        "only the placement was given".to_string()
    } else {
        format!(
            "missing {}",
            completed
                .iter()
                .map(|f| f.describe())
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    let mut prob = Problem::new(
        Severity::Note,
        ProblemKind::Completed,
        completed[0],
        format!(
            "{what}: completed as `{fen}` (defaults: white to move, no castling, no en passant, clocks 0 1)"
        ),
    );
    let possible = Castling::possible(&fen.placement);
    if completed.contains(&FenField::Castling) && !possible.is_empty() {
        prob = prob.suggest(format!(
            "the placement allows castling rights `{possible}`; give them if they still hold"
        ));
    }
    prob
}
