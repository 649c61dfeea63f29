//! Random positions for training data: legal positions from random games at every stage,
//! plus random-but-valid placements so the model never learns that a piece "belongs" on a
//! square.

use rand::seq::IndexedRandom;
use rand::{Rng, RngExt};
use serde::{Deserialize, Serialize};
use shakmaty::{Chess, Color, Piece, Position, Rank, Role, Square};

use crate::class::SquareClass;
use crate::placement::Placement;

/// Which kinds of positions to draw, as probabilities (the rest are random games).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PositionMix {
    /// Share of random-but-valid placements (one king each, no pawns on rank 1/8, counts
    /// within promotion bounds). Default 0.3.
    pub random_placement: f64,
    /// Share of free placements: 1-64 pieces drawn from a small palette, anywhere, in any
    /// number (a board of queens, eight white kings, pawns on rank 8), as board editors and
    /// piece galleries show. Default 0 (the square classifier does not need them; the
    /// board-context correction does, so it never learns that a board must be legal).
    pub free_placement: f64,
    /// Share of game positions that are then thinned out (random pieces removed) to reach
    /// bare endgames. Default 0.2.
    pub thinned_game: f64,
    /// Longest random game, in plies. Default 160.
    pub max_plies: u32,
}

impl Default for PositionMix {
    fn default() -> Self {
        PositionMix {
            random_placement: 0.3,
            free_placement: 0.0,
            thinned_game: 0.2,
            max_plies: 160,
        }
    }
}

/// Draws one placement according to the mix.
pub fn random_position(mix: &PositionMix, rng: &mut impl Rng) -> Placement {
    let r: f64 = rng.random();
    if r < mix.random_placement {
        random_placement(rng)
    } else if r < mix.random_placement + mix.free_placement {
        free_placement(rng)
    } else {
        let mut p = random_game(mix.max_plies, rng);
        if r < mix.random_placement + mix.free_placement + mix.thinned_game {
            thin_out(&mut p, rng);
        }
        p
    }
}

/// The position after a random number of random legal moves from the start.
pub fn random_game(max_plies: u32, rng: &mut impl Rng) -> Placement {
    let mut pos = Chess::default();
    let plies = rng.random_range(0..=max_plies);
    for _ in 0..plies {
        let moves = pos.legal_moves();
        let Some(m) = moves.choose(rng) else { break };
        pos.play_unchecked(*m);
    }
    Placement::from_board(pos.board())
}

/// Removes a random number of non-king pieces.
fn thin_out(p: &mut Placement, rng: &mut impl Rng) {
    let others: Vec<Square> = p
        .pieces()
        .filter(|(_, piece)| piece.role != Role::King)
        .map(|(sq, _)| sq)
        .collect();
    if others.is_empty() {
        return;
    }
    let remove = rng.random_range(1..=others.len());
    let mut chosen = others;
    for &sq in random_front(&mut chosen, remove, rng) {
        p.set(sq, SquareClass::Empty);
    }
}

/// Partial Fisher-Yates: moves a random subset of `k` items to the front and returns it.
fn random_front<'a, T>(items: &'a mut [T], k: usize, rng: &mut impl Rng) -> &'a [T] {
    for i in 0..k {
        let j = rng.random_range(i..items.len());
        items.swap(i, j);
    }
    &items[..k]
}

/// A random valid placement: one king per side (not touching), 0-15 other pieces per side,
/// pawns only on ranks 2-7, promotions within what the missing pawns allow.
pub fn random_placement(rng: &mut impl Rng) -> Placement {
    let mut p = Placement::default();
    let mut free: Vec<Square> = Square::ALL.to_vec();
    let wk = take(&mut free, rng, |_| true);
    p.set(wk, SquareClass::Piece(Color::White.king()));
    let bk = take(&mut free, rng, |sq| sq.distance(wk) > 1);
    p.set(bk, SquareClass::Piece(Color::Black.king()));
    for color in [Color::White, Color::Black] {
        let pawns = rng.random_range(0..=8usize);
        let mut promotions_left = 8 - pawns;
        for _ in 0..pawns {
            let sq = take(&mut free, rng, |sq| {
                sq.rank() != Rank::First && sq.rank() != Rank::Eighth
            });
            p.set(
                sq,
                SquareClass::Piece(Piece {
                    color,
                    role: Role::Pawn,
                }),
            );
        }
        // Initial officers, each kept with some probability, then extra promoted pieces.
        let keep: f64 = rng.random();
        let mut bishop_on_light: Option<bool> = None;
        for role in [
            Role::Queen,
            Role::Rook,
            Role::Rook,
            Role::Bishop,
            Role::Bishop,
            Role::Knight,
            Role::Knight,
        ] {
            if rng.random_bool(keep) {
                // The two original bishops stand on squares of opposite colours.
                let sq = match (role, bishop_on_light) {
                    (Role::Bishop, Some(light)) => {
                        take(&mut free, rng, |sq| sq.is_light() != light)
                    }
                    _ => take(&mut free, rng, |_| true),
                };
                if role == Role::Bishop {
                    bishop_on_light = Some(sq.is_light());
                }
                p.set(sq, SquareClass::Piece(Piece { color, role }));
            }
        }
        while promotions_left > 0 && rng.random_bool(0.15) {
            let role = *[Role::Queen, Role::Rook, Role::Bishop, Role::Knight]
                .choose(rng)
                .unwrap_or(&Role::Queen);
            let sq = take(&mut free, rng, |_| true);
            p.set(sq, SquareClass::Piece(Piece { color, role }));
            promotions_left -= 1;
        }
    }
    p
}

/// A placement with no rules: 1-64 squares filled from a palette of 1-12 classes, so
/// some boards hold one kind of piece many times and some hold one colour only.
pub fn free_placement(rng: &mut impl Rng) -> Placement {
    let mut classes: Vec<SquareClass> = SquareClass::ALL[1..].to_vec();
    let palette_len = rng.random_range(1..=classes.len());
    let palette = random_front(&mut classes, palette_len, rng).to_vec();
    let mut squares: Vec<Square> = Square::ALL.to_vec();
    let count = rng.random_range(1..=squares.len());
    let mut p = Placement::default();
    // Fisher-Yates as in `random_front`, a piece drawn after each square (the draws of the
    // shipped board-context fit and the "free" board set).
    for i in 0..count {
        let j = rng.random_range(i..squares.len());
        squares.swap(i, j);
        p.set(squares[i], *palette.choose(rng).unwrap_or(&palette[0]));
    }
    p
}

/// Removes and returns a random free square that satisfies `ok` (falls back to any free
/// square; the board never runs out since at most 32 pieces are placed).
fn take(free: &mut Vec<Square>, rng: &mut impl Rng, ok: impl Fn(Square) -> bool) -> Square {
    let candidates: Vec<usize> = (0..free.len()).filter(|&i| ok(free[i])).collect();
    let i = candidates
        .choose(rng)
        .copied()
        .unwrap_or_else(|| rng.random_range(0..free.len()));
    free.swap_remove(i)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fen::Fen;
    use crate::fen::check::check;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn random_placements_pass_the_checker_material_rules() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        for _ in 0..300 {
            let p = random_placement(&mut rng);
            let problems = check(&Fen::from_placement(p));
            for prob in problems {
                assert!(
                    !matches!(
                        prob.kind,
                        crate::fen::problem::ProblemKind::MissingKing
                            | crate::fen::problem::ProblemKind::TooManyKings
                            | crate::fen::problem::ProblemKind::KingsTouching
                            | crate::fen::problem::ProblemKind::PawnOnBackRank
                            | crate::fen::problem::ProblemKind::TooManyPawns
                            | crate::fen::problem::ProblemKind::TooManyPieces
                    ),
                    "{p}: {prob}"
                );
            }
        }
    }

    #[test]
    fn free_placements_break_the_rules_in_every_way() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let boards: Vec<Placement> = (0..400).map(|_| free_placement(&mut rng)).collect();
        let kings = |p: &Placement, c: Color| p.pieces().filter(|(_, q)| *q == c.king()).count();
        assert!(boards.iter().all(|p| p.pieces().count() >= 1));
        assert!(boards.iter().any(|p| p.pieces().count() == 64));
        assert!(boards.iter().any(|p| kings(p, Color::White) > 8));
        assert!(
            boards
                .iter()
                .any(|p| kings(p, Color::Black) == 0 && kings(p, Color::White) == 0)
        );
        assert!(
            boards
                .iter()
                .any(|p| p.pieces().all(|(_, q)| q.color == Color::White)),
            "no one-colour board"
        );
    }

    #[test]
    fn free_share_draws_free_placements_and_zero_changes_nothing() {
        let old = PositionMix::default();
        let draw = |mix: &PositionMix| -> Vec<Placement> {
            let mut rng = ChaCha8Rng::seed_from_u64(9);
            (0..50).map(|_| random_position(mix, &mut rng)).collect()
        };
        assert_eq!(
            draw(&old),
            draw(&PositionMix {
                free_placement: 0.0,
                ..old
            })
        );
        let all_free = PositionMix {
            random_placement: 0.0,
            free_placement: 1.0,
            thinned_game: 0.0,
            ..old
        };
        let many_kings = draw(&all_free)
            .iter()
            .filter(|p| p.pieces().filter(|(_, q)| q.role == Role::King).count() > 2)
            .count();
        assert!(many_kings > 5, "{many_kings}");
    }

    #[test]
    fn same_seed_same_positions() {
        let mix = PositionMix::default();
        let a: Vec<Placement> = {
            let mut rng = ChaCha8Rng::seed_from_u64(1);
            (0..20).map(|_| random_position(&mix, &mut rng)).collect()
        };
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let b: Vec<Placement> = (0..20).map(|_| random_position(&mix, &mut rng)).collect();
        assert_eq!(a, b);
        assert!(
            a.iter().any(|p| p.pieces().count() < 10),
            "no endgames drawn"
        );
    }
}
