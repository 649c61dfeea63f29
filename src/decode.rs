//! Choosing the placement from per-square probabilities under chess constraints: one king
//! per side, no pawns on the first or last rank. A constraint only overrides a square the
//! classifier is unsure of; a clearly seen illegal position is returned as seen.

use serde::Serialize;
use shakmaty::{Color, Square};

use crate::class::SquareClass;
use crate::placement::{Placement, square_at};

/// Decoding settings.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct DecodeConfig {
    /// A square whose top class has at least this probability is never changed. Default 0.97.
    pub sure: f32,
}

impl Default for DecodeConfig {
    fn default() -> Self {
        DecodeConfig { sure: 0.97 }
    }
}

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

fn best(row: &[f32; 13], allowed: impl Fn(usize) -> bool) -> usize {
    (0..13)
        .filter(|&c| allowed(c))
        .max_by(|&a, &b| row[a].total_cmp(&row[b]))
        .unwrap_or(0)
}

/// Decodes under the constraints; returns the placement and the changes made.
pub fn decode(probs: &[[f32; 13]; 64], cfg: &DecodeConfig) -> (Placement, Vec<Change>) {
    let mut p = argmax(probs);
    let mut changes = Vec::new();
    let unsure = |i: usize| probs[i].iter().cloned().fold(0.0, f32::max) < cfg.sure;
    let set = |p: &mut Placement, i: usize, to: usize, reason: &str, changes: &mut Vec<Change>| {
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
    };
    let is_pawn = |c: usize| c == 1 || c == 7;
    // Pawns on the back ranks become their most probable non-pawn class.
    for i in (0..8).chain(56..64) {
        if is_pawn(p.0[i].index()) && unsure(i) {
            let to = best(&probs[i], |c| !is_pawn(c));
            set(&mut p, i, to, "no pawns on rank 1 or 8", &mut changes);
        }
    }
    for color in [Color::White, Color::Black] {
        let king = SquareClass::Piece(color.king()).index();
        let kings: Vec<usize> = (0..64).filter(|&i| p.0[i].index() == king).collect();
        if kings.is_empty() {
            // The likeliest king square among the unsure ones.
            let candidate = (0..64)
                .filter(|&i| unsure(i))
                .max_by(|&a, &b| probs[a][king].total_cmp(&probs[b][king]));
            if let Some(i) = candidate.filter(|&i| probs[i][king] > 0.01) {
                set(&mut p, i, king, "each side has one king", &mut changes);
            }
        } else if kings.len() > 1 {
            let keep = *kings
                .iter()
                .max_by(|&&a, &&b| probs[a][king].total_cmp(&probs[b][king]))
                .unwrap_or(&kings[0]);
            for &i in &kings {
                if i != keep && unsure(i) {
                    let back_rank = !(8..56).contains(&i);
                    let to = best(&probs[i], |c| c != king && !(back_rank && is_pawn(c)));
                    set(&mut p, i, to, "each side has one king", &mut changes);
                }
            }
        }
    }
    (p, changes)
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
}
