//! Choosing the placement from per-square probabilities under chess constraints: one king
//! per side, no pawns on the first or last rank, no more pawns and promoted pieces than a
//! game allows, and promoted pieces only where the picture insists (they are rare in real
//! positions). A constraint only overrides a square the classifier is unsure of; a clearly
//! seen illegal position is returned as seen, its unsure squares included: when the sure
//! squares alone already break the rules, the picture is a board of some other kind (a
//! piece gallery, an editor's board of queens) and the rules say nothing about the rest.

use serde::Serialize;
use shakmaty::{Color, Square};

use crate::class::SquareClass;
use crate::classifier::top_probability;
use crate::fen::check::promotions_needed;
use crate::placement::{Placement, square_at};

/// Decoding settings.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct DecodeConfig {
    /// A square whose top class has at least this probability is never changed. Default 0.97.
    pub sure: f32,
    /// Prior odds of each promoted piece (a second queen, a third rook or knight, a second
    /// bishop on one square colour): an unsure reading that needs one gives way to its
    /// runner-up when the runner-up is at least this likely relative to it. Default 0.05.
    pub promotion_prior: f32,
}

impl Default for DecodeConfig {
    fn default() -> Self {
        DecodeConfig {
            sure: 0.97,
            promotion_prior: 0.05,
        }
    }
}

/// Log-prior of an impossible material count (more than 8 pawns, more promoted pieces than
/// missing pawns): practically forbidden, yet finite so a clear reading can still win.
const IMPOSSIBLE: f32 = -25.0;

/// A square a constraint changed.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Change {
    /// The square.
    #[serde(serialize_with = "ser_square")]
    pub square: Square,
    /// What the classifier preferred.
    pub from: SquareClass,
    /// What was chosen.
    pub to: SquareClass,
    /// Which rule.
    pub reason: String,
}

fn ser_square<S: serde::Serializer>(sq: &Square, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&sq.to_string())
}

/// The most probable class of each square (probabilities in reading order, true squares).
pub fn argmax(probs: &[[f32; 13]; 64]) -> Placement {
    let mut p = Placement::default();
    for (i, row) in probs.iter().enumerate() {
        p.0[i] = SquareClass::from_index(best(row, |_| true)).unwrap_or_default();
    }
    p
}

/// The squares read surely (top class at least `sure`), the others left empty.
pub fn sure_placement(probs: &[[f32; 13]; 64], sure: f32) -> Placement {
    let mut p = Placement::default();
    for (i, row) in probs.iter().enumerate() {
        if top_probability(row) >= sure {
            p.0[i] = SquareClass::from_index(best(row, |_| true)).unwrap_or_default();
        }
    }
    p
}

/// The most probable class among the `allowed` ones.
pub(crate) fn best(row: &[f32; 13], allowed: impl Fn(usize) -> bool) -> usize {
    (0..13)
        .filter(|&c| allowed(c))
        .max_by(|&a, &b| row[a].total_cmp(&row[b]))
        .unwrap_or(0)
}

/// The likeliest of the `allowed` classes when a reading's colour and piece kind are
/// weighed apart: a man's score is the share of the man's probability its colour holds
/// times the probability of its kind in either colour; empty keeps its own probability.
/// A reading's colour is evidence that outlives its piece kind: a square read as a second
/// king (an odd style's black pawns read as black kings first and white pawns second) is
/// a black pawn, and one torn between a white knight (0.40), a black bishop (0.35) and a
/// black knight (0.25) a black knight. A class over one half wins on both factors.
/// (Class indices as [`SquareClass::index`]: white men 1-6, black men 7-12, same order.)
fn best_weighed_apart(row: &[f32; 13], allowed: impl Fn(usize) -> bool) -> usize {
    let man: f32 = row[1..].iter().sum();
    let colour = |c: usize| -> f32 {
        let from = if c <= 6 { 1 } else { 7 };
        row[from..from + 6].iter().sum::<f32>() / man.max(1e-9)
    };
    let score = |c: usize| {
        if c == 0 {
            row[0]
        } else {
            let kind = (c - 1) % 6;
            colour(c) * (row[1 + kind] + row[7 + kind])
        }
    };
    (0..13)
        .filter(|&c| allowed(c))
        .max_by(|&a, &b| score(a).total_cmp(&score(b)))
        .unwrap_or(0)
}

/// Whether the squares read surely (top class at least `cfg.sure`) already break a rule
/// that every game position keeps: two kings of a side, a pawn on rank 1 or 8, more than
/// 8 pawns or 16 men of a side, more promoted pieces than missing pawns.
pub fn clearly_not_a_game(probs: &[[f32; 13]; 64], cfg: &DecodeConfig) -> bool {
    let sure = sure_placement(probs, cfg.sure);
    let back_rank_pawn = (0..8).chain(56..64).any(|i| {
        sure.0[i]
            .piece()
            .is_some_and(|piece| piece.role == shakmaty::Role::Pawn)
    });
    back_rank_pawn
        || [Color::White, Color::Black].into_iter().any(|color| {
            let count = |class: SquareClass| sure.0.iter().filter(|&&c| c == class).count();
            let men = sure
                .0
                .iter()
                .filter(|c| c.piece().is_some_and(|piece| piece.color == color))
                .count();
            let pawns = count(SquareClass::Piece(color.pawn()));
            count(SquareClass::Piece(color.king())) > 1
                || pawns > 8
                || men > 16
                || promotions_needed(&sure, color) > 8 - pawns.min(8)
        })
}

/// Decodes under the constraints; returns the placement and the changes made (none when
/// [`clearly_not_a_game`]).
pub fn decode(probs: &[[f32; 13]; 64], cfg: &DecodeConfig) -> (Placement, Vec<Change>) {
    if clearly_not_a_game(probs, cfg) {
        return (argmax(probs), Vec::new());
    }
    decode_game(probs, cfg)
}

/// The most probable class of each square, a contested one (no class over half: white
/// knight 0.40, black bishop 0.35, black knight 0.25) read with its colour and kind
/// weighed apart (a black knight, see [`best_weighed_apart`]); with the squares that
/// weighing changed.
fn weighed(probs: &[[f32; 13]; 64], cfg: &DecodeConfig) -> (Placement, Vec<Change>) {
    let mut p = argmax(probs);
    let mut changes = Vec::new();
    for i in (0..64).filter(|&i| top_probability(&probs[i]) < cfg.sure) {
        let to = best_weighed_apart(&probs[i], |_| true);
        set_class(
            &mut p,
            i,
            to,
            "its colour and kind weighed apart",
            &mut changes,
        );
    }
    (p, changes)
}

/// Puts class `to` on square `i` of `p`, noting the change and `reason` when it is one.
fn set_class(p: &mut Placement, i: usize, to: usize, reason: &str, changes: &mut Vec<Change>) {
    let from = p.0[i];
    let to = SquareClass::from_index(to).unwrap_or_default();
    if from != to {
        p.0[i] = to;
        if let Some(square) = square_at(i) {
            changes.push(Change {
                square,
                from,
                to,
                reason: reason.to_string(),
            });
        }
    }
}

/// [`decode`] for a board already known not to be [`clearly_not_a_game`]: each square's
/// likeliest class (a contested one's with colour and kind weighed apart), then the
/// rules.
pub fn decode_game(probs: &[[f32; 13]; 64], cfg: &DecodeConfig) -> (Placement, Vec<Change>) {
    let (mut p, mut changes) = weighed(probs, cfg);
    let unsure = |i: usize| top_probability(&probs[i]) < cfg.sure;
    let is_pawn = |c: usize| c == 1 || c == 7;
    // Pawns on the back ranks become their most probable non-pawn class (colour and kind
    // weighed apart).
    for i in (0..8).chain(56..64) {
        if is_pawn(p.0[i].index()) && unsure(i) {
            let to = best_weighed_apart(&probs[i], |c| !is_pawn(c));
            set_class(&mut p, i, to, "no pawns on rank 1 or 8", &mut changes);
        }
    }
    let king_of = |color: Color| SquareClass::Piece(color.king()).index();
    let kings_of = |p: &Placement, color: Color| -> Vec<usize> {
        (0..64)
            .filter(|&i| p.0[i].index() == king_of(color))
            .collect()
    };
    // Extra kings first (the unsure ones but the likeliest), each becoming its runner-up:
    // never a king of a side that already has one, so fixing one side cannot break the
    // other; a king of the side that has none is allowed (a king misread in colour).
    for color in [Color::White, Color::Black] {
        let (king, other) = (king_of(color), king_of(!color));
        let kings = kings_of(&p, color);
        if kings.len() > 1 {
            let keep = *kings
                .iter()
                .max_by(|&&a, &&b| probs[a][king].total_cmp(&probs[b][king]))
                .unwrap_or(&kings[0]);
            for &i in &kings {
                if i != keep && unsure(i) {
                    let other_has_king = !kings_of(&p, !color).is_empty();
                    let back_rank = !(8..56).contains(&i);
                    let to = best_weighed_apart(&probs[i], |c| {
                        c != king && !(c == other && other_has_king) && !(back_rank && is_pawn(c))
                    });
                    set_class(&mut p, i, to, "each side has one king", &mut changes);
                }
            }
        }
    }
    // Then a missing king: the likeliest king square among the unsure ones that are not
    // the other side's only king.
    for color in [Color::White, Color::Black] {
        let king = king_of(color);
        if kings_of(&p, color).is_empty() {
            let others = kings_of(&p, !color);
            let candidate = (0..64)
                .filter(|&i| unsure(i) && !(others.len() == 1 && others[0] == i))
                .max_by(|&a, &b| probs[a][king].total_cmp(&probs[b][king]));
            if let Some(i) = candidate.filter(|&i| probs[i][king] > 0.01) {
                set_class(&mut p, i, king, "each side has one king", &mut changes);
            }
        }
    }
    // Material: single-square changes on unsure squares, best first, while they raise
    // log-probability plus material log-prior.
    for _ in 0..64 {
        let base = material_log_prior(&p, cfg);
        if base == 0.0 {
            // No promoted piece and at most 8 pawns a side: nothing to weigh.
            break;
        }
        let mut best_move: Option<(usize, usize, f32)> = None;
        for i in (0..64).filter(|&i| unsure(i)) {
            let from = p.0[i].index();
            if from == 0 || is_king(from) {
                continue;
            }
            let back_rank = !(8..56).contains(&i);
            for to in (0..13).filter(|&c| c != from && !is_king(c) && !(back_rank && is_pawn(c))) {
                let mut q = p;
                q.0[i] = SquareClass::from_index(to).unwrap_or_default();
                let gain = probs[i][to].max(1e-9).ln() - probs[i][from].max(1e-9).ln()
                    + material_log_prior(&q, cfg)
                    - base;
                if gain > best_move.map_or(1e-4, |b| b.2) {
                    best_move = Some((i, to, gain));
                }
            }
        }
        let Some((i, to, _)) = best_move else { break };
        set_class(&mut p, i, to, "promoted pieces are rare", &mut changes);
    }
    (p, changes)
}

fn is_king(c: usize) -> bool {
    c == 6 || c == 12
}

/// Log-prior of the material on the board: each promoted piece costs
/// `ln(promotion_prior)`; more than 8 pawns, or more promoted pieces than missing pawns,
/// cost [`IMPOSSIBLE`] apiece.
fn material_log_prior(p: &Placement, cfg: &DecodeConfig) -> f32 {
    [Color::White, Color::Black]
        .into_iter()
        .map(|color| {
            let pawns = (0..64)
                .filter(|&i| p.0[i] == SquareClass::Piece(color.pawn()))
                .count();
            let promoted = promotions_needed(p, color);
            let impossible = pawns.saturating_sub(8) + promoted.saturating_sub(8 - pawns.min(8));
            promoted as f32 * cfg.promotion_prior.max(1e-9).ln() + impossible as f32 * IMPOSSIBLE
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn confident(p: &Placement) -> [[f32; 13]; 64] {
        let mut probs = [[0.0; 13]; 64];
        for i in 0..64 {
            probs[i][p.0[i].index()] = 1.0;
        }
        probs
    }

    /// `placement` read surely but at `square`, read as `reading` (class index,
    /// probability; the other classes 0).
    fn read_with(placement: &str, square: Square, reading: &[(usize, f32)]) -> [[f32; 13]; 64] {
        let p: Placement = placement.parse().unwrap();
        let mut probs = confident(&p);
        let i = crate::placement::reading_index(square);
        probs[i] = [0.0; 13];
        for &(c, v) in reading {
            probs[i][c] = v;
        }
        probs
    }

    #[test]
    fn a_board_that_is_clearly_no_game_keeps_its_unsure_squares_too() {
        // Three sure white kings (a piece gallery) and an unsure fourth king, an unsure
        // pawn on rank 8 and an unsure second black queen: all stay as read.
        let mut p = Placement::default();
        for (sq, c) in [
            (Square::A1, SquareClass::Piece(Color::White.king())),
            (Square::B1, SquareClass::Piece(Color::White.king())),
            (Square::C1, SquareClass::Piece(Color::White.king())),
            (Square::E8, SquareClass::Piece(Color::Black.king())),
            (Square::D8, SquareClass::Piece(Color::Black.queen())),
        ] {
            p.set(sq, c);
        }
        let mut probs = confident(&p);
        let unsure = |probs: &mut [[f32; 13]; 64], sq: Square, top: SquareClass, next: usize| {
            let i = crate::placement::reading_index(sq);
            probs[i] = [0.0; 13];
            probs[i][top.index()] = 0.6;
            probs[i][next] = 0.4;
        };
        unsure(
            &mut probs,
            Square::D1,
            SquareClass::Piece(Color::White.king()),
            0,
        );
        unsure(
            &mut probs,
            Square::A8,
            SquareClass::Piece(Color::White.pawn()),
            0,
        );
        unsure(
            &mut probs,
            Square::H5,
            SquareClass::Piece(Color::Black.queen()),
            0,
        );
        let cfg = DecodeConfig::default();
        assert!(clearly_not_a_game(&probs, &cfg));
        let (decoded, changes) = decode(&probs, &cfg);
        assert!(changes.is_empty(), "{changes:?}");
        assert_eq!(decoded, argmax(&probs));
        // With one sure white king the same unsure squares are fixed as before.
        for sq in [Square::B1, Square::C1] {
            let i = crate::placement::reading_index(sq);
            probs[i] = confident(&Placement::default())[i];
        }
        assert!(!clearly_not_a_game(&probs, &cfg));
        assert!(!decode(&probs, &cfg).1.is_empty());
    }

    #[test]
    fn sure_squares_are_kept_even_if_illegal() {
        let p: Placement = "k6k/8/8/8/8/8/8/K7".parse().unwrap();
        let (d, changes) = decode(&confident(&p), &DecodeConfig::default());
        assert_eq!(d, p);
        assert!(changes.is_empty());
    }

    #[test]
    fn unsure_pawn_on_back_rank_and_second_king_are_fixed() {
        let p: Placement = "k6P/8/8/8/8/8/8/K6k".parse().unwrap();
        let mut probs = confident(&p);
        // h8: pawn 0.6 vs bishop 0.4; h1: black king 0.55 vs black rook 0.45
        probs[7] = [0.0; 13];
        probs[7][1] = 0.6;
        probs[7][3] = 0.4;
        probs[63] = [0.0; 13];
        probs[63][12] = 0.55;
        probs[63][10] = 0.45;
        let (d, changes) = decode(&probs, &DecodeConfig::default());
        assert_eq!(d.to_string(), "k6B/8/8/8/8/8/8/K6r");
        assert_eq!(changes.len(), 2);
    }

    #[test]
    fn fixing_one_sides_kings_never_gives_the_other_a_second_king() {
        // Black kings on a8 (sure) and e4 (unsure: black king 0.5, white king 0.3, black
        // queen 0.2); white already has its king on a1. e4 must not become a white king.
        let decoded = |placement: &str| {
            let p: Placement = placement.parse().unwrap();
            let mut probs = confident(&p);
            let e4 = 4 * 8 + 4;
            probs[e4] = [0.0; 13];
            (probs[e4][12], probs[e4][6], probs[e4][11]) = (0.5, 0.3, 0.2);
            decode(&probs, &DecodeConfig::default()).0.to_string()
        };
        assert_eq!(decoded("k7/8/8/8/4k3/8/8/K7"), "k7/8/8/8/4q3/8/8/K7");
        // With no white king anywhere, the colour misreading is the likely story.
        assert_eq!(decoded("k7/8/8/8/4k3/8/8/8"), "k7/8/8/8/4K3/8/8/8");
    }

    #[test]
    fn a_man_that_cannot_be_keeps_its_colour() {
        // kokopu-react's "eyes" black pawns read first as black kings, second as white
        // pawns: f6 (black king 0.37, white pawn 0.35, black pawn 0.10, black bishop 0.08,
        // black knight 0.05, white bishop 0.05) beside the sure black king on a8. Its
        // reading is black three to two: a black pawn, not the runner-up white pawn.
        let eyes = [
            (12, 0.37),
            (1, 0.35),
            (7, 0.10),
            (9, 0.08),
            (8, 0.05),
            (3, 0.05),
        ];
        let probs = read_with("k7/8/5k2/8/8/8/8/K7", Square::F6, &eyes);
        let (d, changes) = decode(&probs, &DecodeConfig::default());
        assert_eq!(d.to_string(), "k7/8/5p2/8/8/8/8/K7");
        assert_eq!(changes.len(), 1);
        // A white pawn on h8 (0.55; black knight 0.25, white bishop 0.15, white knight
        // 0.05) is a white man: a knight, the likeliest kind after the pawn.
        let back_rank = [(1, 0.55), (8, 0.25), (3, 0.15), (2, 0.05)];
        let probs = read_with("k6P/8/8/8/8/8/8/K7", Square::H8, &back_rank);
        let (d, _) = decode(&probs, &DecodeConfig::default());
        assert_eq!(d.to_string(), "k6N/8/8/8/8/8/8/K7");
    }

    #[test]
    fn a_contested_square_is_read_with_colour_and_kind_weighed_apart() {
        // White knight 0.40, black bishop 0.35, black knight 0.25: black 0.6 and a knight
        // 0.65 of the time.
        let board = "k7/8/8/8/4N3/8/8/K7";
        let probs = read_with(board, Square::E4, &[(2, 0.40), (9, 0.35), (8, 0.25)]);
        let (d, changes) = decode(&probs, &DecodeConfig::default());
        assert_eq!(d.to_string(), "k7/8/8/8/4n3/8/8/K7");
        assert_eq!(changes.len(), 1);
        // A reading of more than half stands.
        let probs = read_with(board, Square::E4, &[(2, 0.52), (9, 0.28), (8, 0.20)]);
        let (d, changes) = decode(&probs, &DecodeConfig::default());
        assert_eq!(d.to_string(), board);
        assert!(changes.is_empty());
    }

    #[test]
    fn an_unsure_second_queen_gives_way_but_a_clear_one_stays() {
        // Black has two queens (d8, f3) and all eight pawns gone but six; white none.
        let p: Placement = "3qk3/pppppp2/8/8/8/5q2/PPPPPPPP/4K3".parse().unwrap();
        let mut probs = confident(&p);
        let f3 = 5 * 8 + 5;
        probs[f3] = [0.0; 13];
        probs[f3][11] = 0.76; // black queen
        probs[f3][5] = 0.24; // white queen
        let (d, changes) = decode(&probs, &DecodeConfig::default());
        assert_eq!(d.to_string(), "3qk3/pppppp2/8/8/8/5Q2/PPPPPPPP/4K3");
        assert_eq!(changes.len(), 1);
        // Seen clearly, the promoted queen stays.
        let (d, changes) = decode(&confident(&p), &DecodeConfig::default());
        assert_eq!(d, p);
        assert!(changes.is_empty());
    }

    #[test]
    fn impossible_material_is_resolved_on_unsure_squares() {
        // Nine white pawns: the unsure one (h3, pawn 0.6 vs bishop 0.4) becomes a bishop.
        let p: Placement = "4k3/8/8/8/8/P6P/PPPPPPP1/4K3".parse().unwrap();
        let mut probs = confident(&p);
        let h3 = 5 * 8 + 7;
        probs[h3] = [0.0; 13];
        probs[h3][1] = 0.6;
        probs[h3][3] = 0.4;
        let (d, _) = decode(&probs, &DecodeConfig::default());
        assert_eq!(d.to_string(), "4k3/8/8/8/8/P6B/PPPPPPP1/4K3");
    }
}
