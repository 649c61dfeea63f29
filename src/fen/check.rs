//! The FEN checker: every rule a position breaks, explained with the squares concerned.

use serde::Serialize;
use shakmaty::{Bitboard, Color, Piece, Rank, Role, Square};

use super::parse::parse_fen;
use super::problem::{Problem, ProblemKind, Severity};
use super::{CastlingRight, Fen, FenField, right_possible};
use crate::class::{SquareClass, color_name, describe_piece};
use crate::placement::Placement;

/// The result of checking a text: the position (when it parsed) and every problem.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// The text that was checked.
    pub input: String,
    /// The position, when the text parsed.
    pub fen: Option<Fen>,
    /// Every problem found, errors first.
    pub problems: Vec<Problem>,
    /// Whether there are no errors (warnings and notes allowed).
    pub valid: bool,
}

/// Parses and checks a FEN or a placement alone (completed with `w - - 0 1`, with a note
/// saying so). Never panics, whatever the text.
///
/// ```
/// let report = fenscan::fen::check::check_text("8/8/8/8/8/8/8/8 w - - 0 1");
/// assert!(!report.valid); // no kings
/// assert!(fenscan::fen::check::check_text("4k3/8/8/8/8/8/8/4K3").valid);
/// ```
pub fn check_text(text: &str) -> Report {
    let mut problems = Vec::new();
    let fen = match parse_fen(text) {
        Ok(input) => {
            if !input.completed.is_empty() {
                problems.push(super::hints::completed_note(&input.fen, &input.completed));
            }
            problems.extend(check(&input.fen));
            Some(input.fen)
        }
        Err(errors) => {
            problems.extend(errors.iter().map(Problem::from));
            None
        }
    };
    problems.sort_by_key(|p| std::cmp::Reverse(p.severity));
    let valid = fen.is_some() && !problems.iter().any(Problem::is_error);
    Report {
        input: text.to_string(),
        fen,
        problems,
        valid,
    }
}

/// Checks a parsed position against the rules of chess. Returns all problems, errors first.
pub fn check(fen: &Fen) -> Vec<Problem> {
    let p = &fen.placement;
    let mut out = Vec::new();
    kings(p, &mut out);
    back_rank_pawns(p, &mut out);
    for color in [Color::White, Color::Black] {
        material(p, color, &mut out);
    }
    let kings_ok = !out
        .iter()
        .any(|x| matches!(x.kind, ProblemKind::MissingKing | ProblemKind::TooManyKings));
    if kings_ok {
        checks(fen, &mut out);
    }
    castling(fen, &mut out);
    en_passant(fen, &mut out);
    super::hints::orientation_hints(fen, &mut out);
    if !out.iter().any(Problem::is_error) {
        super::hints::game_state(fen, &mut out);
    }
    out.sort_by_key(|p| std::cmp::Reverse(p.severity));
    out
}

pub(super) fn squares_of(p: &Placement, piece: Piece) -> Vec<Square> {
    p.pieces()
        .filter(|&(_, x)| x == piece)
        .map(|(sq, _)| sq)
        .collect()
}

fn list(squares: &[Square]) -> String {
    squares
        .iter()
        .map(|s| s.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("{n} {word}")
    } else {
        format!("{n} {word}s")
    }
}

fn kings(p: &Placement, out: &mut Vec<Problem>) {
    for color in [Color::White, Color::Black] {
        let kings = squares_of(p, color.king());
        let name = color_name(color);
        match kings.len() {
            1 => {}
            0 => out.push(Problem::new(
                Severity::Error,
                ProblemKind::MissingKing,
                FenField::Placement,
                format!("{name} has no king; each side needs exactly one"),
            )),
            n => out.push(
                Problem::new(
                    Severity::Error,
                    ProblemKind::TooManyKings,
                    FenField::Placement,
                    format!(
                        "{name} has {n} kings ({}); each side needs exactly one",
                        list(&kings)
                    ),
                )
                .at(kings),
            ),
        }
    }
}

fn back_rank_pawns(p: &Placement, out: &mut Vec<Problem>) {
    for (sq, piece) in p.pieces() {
        if piece.role != Role::Pawn || !(sq.rank() == Rank::First || sq.rank() == Rank::Eighth) {
            continue;
        }
        let why = match (piece.color, sq.rank()) {
            (Color::White, Rank::Eighth) | (Color::Black, Rank::First) => {
                "a pawn reaching the last rank is promoted at once (to a queen, rook, bishop or knight)"
            }
            _ => {
                "pawns start on their second rank and only move forward, so they never stand on their own back rank"
            }
        };
        let mut prob = Problem::new(
            Severity::Error,
            ProblemKind::PawnOnBackRank,
            FenField::Placement,
            format!("{} on {sq}: {why}", describe_piece(piece)),
        )
        .at([sq]);
        prob.rank = Some(sq.rank());
        out.push(prob);
    }
}

/// Pawn count and promotions: each piece beyond the initial set needs a pawn that promoted.
/// How many of `color`'s pieces must be promoted pawns: queens beyond one, rooks and
/// knights beyond two, bishops beyond one per square colour.
pub fn promotions_needed(p: &Placement, color: Color) -> usize {
    let count = |role| squares_of(p, Piece { color, role }).len();
    let bishops = squares_of(p, color.bishop());
    let light = bishops.iter().filter(|s| s.is_light()).count();
    let dark = bishops.len() - light;
    let extra = |n: usize, initial: usize| n.saturating_sub(initial);
    extra(count(Role::Queen), 1)
        + extra(count(Role::Rook), 2)
        + extra(count(Role::Knight), 2)
        + extra(light, 1)
        + extra(dark, 1)
}

fn material(p: &Placement, color: Color, out: &mut Vec<Problem>) {
    let name = color_name(color);
    let count = |role| squares_of(p, Piece { color, role }).len();
    let pawns = count(Role::Pawn);
    if pawns > 8 {
        out.push(
            Problem::new(
                Severity::Error,
                ProblemKind::TooManyPawns,
                FenField::Placement,
                format!("{name} has {pawns} pawns; a side has at most 8"),
            )
            .at(squares_of(p, color.pawn())),
        );
    }
    let bishops = squares_of(p, color.bishop());
    let light = bishops.iter().filter(|s| s.is_light()).count();
    let dark = bishops.len() - light;
    let needed = promotions_needed(p, color);
    let available = 8usize.saturating_sub(pawns);
    if needed > available {
        let mut parts = Vec::new();
        for (role, initial) in [(Role::Queen, 1), (Role::Rook, 2), (Role::Knight, 2)] {
            let n = count(role);
            if n > initial {
                parts.push(plural(n, crate::class::role_name(role)));
            }
        }
        if light > 1 {
            parts.push(format!("{light} light-squared bishops"));
        }
        if dark > 1 {
            parts.push(format!("{dark} dark-squared bishops"));
        }
        out.push(Problem::new(
            Severity::Error,
            ProblemKind::TooManyPieces,
            FenField::Placement,
            format!(
                "{name} has {} and {}: that needs {} but only {} of its 8 pawns {} missing",
                parts.join(", "),
                plural(pawns, "pawn"),
                plural(needed, "promotion"),
                available,
                if available == 1 { "is" } else { "are" }
            ),
        ));
    }
}

fn piece_list(p: &Placement, squares: Bitboard) -> String {
    squares
        .into_iter()
        .map(|sq| match p.get(sq) {
            SquareClass::Piece(x) => format!("{} on {sq}", describe_piece(x)),
            SquareClass::Empty => sq.to_string(),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Whether `side`'s king is in check from the other side's men; `None` when either side
/// has no king or more than one.
pub fn in_check(placement: &Placement, side: Color) -> Option<bool> {
    let board = placement.to_board();
    for c in [Color::White, Color::Black] {
        if (board.kings() & board.by_color(c)).count() != 1 {
            return None;
        }
    }
    let king = board.king_of(side)?;
    Some((board.attacks_to(king, !side, board.occupied()) & !board.kings()).any())
}

/// The side not to move must not be in check; the kings must not touch; at most a double
/// check.
fn checks(fen: &Fen, out: &mut Vec<Problem>) {
    let p = &fen.placement;
    let board = p.to_board();
    let (Some(wk), Some(bk)) = (board.king_of(Color::White), board.king_of(Color::Black)) else {
        return;
    };
    let adjacent = shakmaty::attacks::king_attacks(wk).contains(bk);
    if adjacent {
        out.push(
            Problem::new(
                Severity::Error,
                ProblemKind::KingsTouching,
                FenField::Placement,
                format!(
                    "the kings on {wk} and {bk} stand next to each other, which can never happen"
                ),
            )
            .at([wk, bk]),
        );
    }
    let waiting = !fen.turn;
    let waiting_king = if waiting == Color::White { wk } else { bk };
    let attackers = board.attacks_to(waiting_king, fen.turn, board.occupied()) & !board.kings();
    if attackers.any() {
        let own_king = if fen.turn == Color::White { wk } else { bk };
        let mover_in_check = board.attacks_to(own_king, waiting, board.occupied()).any();
        let mut prob = Problem::new(
            Severity::Error,
            ProblemKind::OppositeCheck,
            FenField::Turn,
            format!(
                "it is {} to move, but the {} king on {waiting_king} is in check from the {}: the side that has just moved cannot be left in check",
                color_name(fen.turn),
                color_name(waiting),
                piece_list(p, attackers)
            ),
        )
        .at(std::iter::once(waiting_king).chain(attackers));
        if !mover_in_check {
            let letter = if waiting == Color::White { 'w' } else { 'b' };
            prob = prob.suggest(format!(
                "if it is {} to move, set the side to move to `{letter}`",
                color_name(waiting)
            ));
        }
        out.push(prob);
    }
    let own_king = if fen.turn == Color::White { wk } else { bk };
    let checkers = board.attacks_to(own_king, waiting, board.occupied()) & !board.kings();
    if checkers.count() > 2 {
        out.push(
            Problem::new(
                Severity::Warning,
                ProblemKind::ImpossibleCheck,
                FenField::Placement,
                format!(
                    "the {} king on {own_king} is in check from {} pieces ({}); no move can give more than a double check",
                    color_name(fen.turn),
                    checkers.count(),
                    piece_list(p, checkers)
                ),
            )
            .at(std::iter::once(own_king).chain(checkers)),
        );
    }
}

fn castling(fen: &Fen, out: &mut Vec<Problem>) {
    let p = &fen.placement;
    let mut remaining = fen.castling;
    let mut bad = Vec::new();
    for right in CastlingRight::ALL {
        if fen.castling.has(right.letter) && !right_possible(p, right) {
            remaining.set(right.letter, false);
            bad.push(right);
        }
    }
    for right in &bad {
        let side = if right.rook.file() == shakmaty::File::H {
            "king-side"
        } else {
            "queen-side"
        };
        let name = color_name(right.color);
        let mut missing = Vec::new();
        for (sq, role) in [(right.king, Role::King), (right.rook, Role::Rook)] {
            let want = Piece {
                color: right.color,
                role,
            };
            if p.get(sq) != SquareClass::Piece(want) {
                let there = match p.get(sq) {
                    SquareClass::Empty => "it is empty".to_string(),
                    SquareClass::Piece(x) => format!("it holds a {}", describe_piece(x)),
                };
                missing.push(format!("{} on {sq} ({there})", describe_piece(want)));
            }
        }
        out.push(
            Problem::new(
                Severity::Error,
                ProblemKind::CastlingRights,
                FenField::Castling,
                format!(
                    "castling right `{}` ({name} {side}) needs the {name} king on {} and a {name} rook on {}, but there is no {}",
                    right.letter,
                    right.king,
                    right.rook,
                    missing.join(" and no ")
                ),
            )
            .at([right.king, right.rook])
            .suggest(format!("use castling rights `{remaining}`")),
        );
    }
}

fn en_passant(fen: &Fen, out: &mut Vec<Problem>) {
    let Some(ep) = fen.ep_square else { return };
    let p = &fen.placement;
    let mover = !fen.turn; // the side whose pawn just moved two squares
    let (ep_rank, pawn_rank, from_rank, dir) = match mover {
        Color::Black => (Rank::Sixth, Rank::Fifth, Rank::Seventh, "down"),
        Color::White => (Rank::Third, Rank::Fourth, Rank::Second, "up"),
    };
    let err = |msg: String| {
        Problem::new(
            Severity::Error,
            ProblemKind::EnPassant,
            FenField::EnPassant,
            msg,
        )
        .at([ep])
    };
    if ep.rank() != ep_rank {
        let mut prob = err(format!(
            "en-passant square {ep} is not on rank {}: with {} to move, a {} pawn has just moved two squares {dir}, so the square it passed is on rank {}",
            ep_rank.char(),
            color_name(fen.turn),
            color_name(mover),
            ep_rank.char()
        ));
        let other_turn_rank = if fen.turn == Color::White {
            Rank::Third
        } else {
            Rank::Sixth
        };
        prob = if ep.rank() == other_turn_rank {
            let letter = if fen.turn == Color::White { 'b' } else { 'w' };
            prob.suggest(format!(
                "if it is {} to move, set the side to move to `{letter}`; otherwise use `-`",
                color_name(mover)
            ))
        } else {
            prob.suggest("use `-`")
        };
        out.push(prob);
        return;
    }
    let pawn_sq = Square::from_coords(ep.file(), pawn_rank);
    let from_sq = Square::from_coords(ep.file(), from_rank);
    let pawn = SquareClass::Piece(mover.pawn());
    if p.get(pawn_sq) != pawn {
        out.push(
            err(format!(
                "en-passant square {ep} needs a {} pawn on {pawn_sq} that has just moved {from_sq}-{pawn_sq}, but {pawn_sq} {}",
                color_name(mover),
                match p.get(pawn_sq) {
                    SquareClass::Empty => "is empty".to_string(),
                    SquareClass::Piece(x) => format!("holds a {}", describe_piece(x)),
                }
            ))
            .suggest("use `-`"),
        );
        return;
    }
    let occupied: Vec<Square> = [ep, from_sq]
        .into_iter()
        .filter(|&sq| p.get(sq) != SquareClass::Empty)
        .collect();
    if !occupied.is_empty() {
        out.push(
            err(format!(
                "en-passant square {ep}: the pawn on {pawn_sq} cannot have just come from {from_sq} because {} {} occupied",
                list(&occupied),
                if occupied.len() == 1 { "is" } else { "are" }
            ))
            .suggest("use `-`"),
        );
        return;
    }
    if fen.halfmove != 0 {
        out.push(
            Problem::new(
                Severity::Warning,
                ProblemKind::ClockMismatch,
                FenField::Halfmove,
                format!(
                    "en-passant square {ep} says a pawn just moved, which resets the half-move clock, but it is {}",
                    fen.halfmove
                ),
            )
            .suggest("set the half-move clock to 0"),
        );
    }
}
