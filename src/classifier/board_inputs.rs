//! What the board-context correction sees of each read square: its own features and
//! reading, the board's summary, and (optionally) its look-alikes; and the gate that keeps
//! boards which cannot be positions away from it.

use crate::class::SquareClass;

use super::checkpoint::Reading;

/// Inputs per square for `features` head inputs (see [`board_inputs`]).
pub fn input_len(features: usize, look_alikes: bool) -> usize {
    3 * features + 26 + if look_alikes { LOOK_ALIKE_INPUTS } else { 0 }
}

/// The look-alike inputs: the nearest square's log-probabilities and likeness, and the
/// likeness-weighted mean probabilities.
const LOOK_ALIKE_INPUTS: usize = 13 + 1 + 13;

/// Sharpness of the likeness weights (cosine similarity times this, then softmax).
const LIKENESS_SHARPNESS: f32 = 10.0;

/// Whether the model's reading of a whole board (its most likely class per square) could
/// be a position, give or take a misread man: one to three kings in all, at most two a
/// side, and at most 18 men a side. The correction is fitted on such boards and applied
/// only to them; piece galleries, boards of queens and lone-piece diagrams keep the
/// model's reading.
pub fn reads_like_a_position(probs: &[[f32; 13]]) -> bool {
    let mut kings = [0usize; 2];
    let mut men = [0usize; 2];
    for p in probs {
        let best = crate::decode::best(p, |_| true);
        let Some(piece) = SquareClass::from_index(best).and_then(SquareClass::piece) else {
            continue;
        };
        let side = usize::from(piece.color == shakmaty::Color::Black);
        men[side] += 1;
        kings[side] += usize::from(piece.role == shakmaty::Role::King);
    }
    (1..=3).contains(&(kings[0] + kings[1])) && (0..2).all(|s| kings[s] <= 2 && men[s] <= 18)
}

/// The inputs of a board's read squares (unscaled, `input_len` each) and their indices.
/// Empty unless `reading` covers a whole board (64 squares) with features and
/// [`reads_like_a_position`].
pub fn board_inputs(reading: &Reading, look_alikes: bool) -> (Vec<f32>, Vec<usize>) {
    let f = reading.feature_len;
    let n = reading.probs.len();
    if n != 64
        || f == 0
        || reading.features.len() != n * f
        || !reads_like_a_position(&reading.probs)
    {
        return (Vec::new(), Vec::new());
    }
    let read: Vec<usize> = (0..n).filter(|&i| reading.read[i]).collect();
    let mut mean = vec![0f32; f];
    let mut max = vec![0f32; f];
    let mut weight = 0f32;
    for &i in &read {
        let w = 1.0 - reading.probs[i][0];
        weight += w;
        for (k, &v) in reading.features[i * f..(i + 1) * f].iter().enumerate() {
            mean[k] += w * v;
            max[k] = max[k].max(v);
        }
    }
    mean.iter_mut().for_each(|v| *v /= weight.max(1e-3));
    let mut mean_probs = [0f32; 13];
    for p in &reading.probs {
        for (m, v) in mean_probs.iter_mut().zip(p) {
            *m += v / n as f32;
        }
    }
    let unit: Vec<Vec<f32>> = read
        .iter()
        .map(|&i| {
            let v = &reading.features[i * f..(i + 1) * f];
            let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-6);
            v.iter().map(|x| x / norm).collect()
        })
        .collect();
    let mut rows = Vec::with_capacity(read.len() * input_len(f, look_alikes));
    for (k, &i) in read.iter().enumerate() {
        rows.extend_from_slice(&reading.features[i * f..(i + 1) * f]);
        rows.extend_from_slice(&mean);
        rows.extend_from_slice(&max);
        rows.extend(reading.probs[i].iter().map(|p| p.max(1e-6).ln()));
        rows.extend_from_slice(&mean_probs);
        if look_alikes {
            rows.extend(look_alike_inputs(reading, &read, &unit, k));
        }
    }
    (rows, read)
}

/// The look-alike inputs of read square `k` (an index into `read`).
fn look_alike_inputs(reading: &Reading, read: &[usize], unit: &[Vec<f32>], k: usize) -> Vec<f32> {
    let likeness: Vec<(usize, f32)> = read
        .iter()
        .enumerate()
        .filter(|&(m, _)| m != k)
        .map(|(m, &j)| (j, unit[k].iter().zip(&unit[m]).map(|(a, b)| a * b).sum()))
        .collect();
    let mut out = Vec::with_capacity(LOOK_ALIKE_INPUTS);
    let nearest = likeness.iter().copied().max_by(|a, b| a.1.total_cmp(&b.1));
    match nearest {
        Some((j, like)) => {
            out.extend(reading.probs[j].iter().map(|p| p.max(1e-6).ln()));
            out.push(like);
        }
        None => {
            out.extend(std::iter::repeat_n(0.0, 13));
            out.push(0.0);
        }
    }
    let top = likeness.iter().map(|l| l.1).fold(f32::MIN, f32::max);
    let weights: Vec<f32> = likeness
        .iter()
        .map(|l| ((l.1 - top) * LIKENESS_SHARPNESS).exp())
        .collect();
    let total: f32 = weights.iter().sum::<f32>().max(1e-6);
    let mut weighted = [0f32; 13];
    for ((j, _), w) in likeness.iter().zip(&weights) {
        for (acc, p) in weighted.iter_mut().zip(&reading.probs[*j]) {
            *acc += w * p / total;
        }
    }
    out.extend_from_slice(&weighted);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Kings on e1 and e8 and two white rooks whose features are alike (a1, h1); every
    /// other square empty with its own features.
    fn reading() -> Reading {
        let f = 3;
        let mut probs = vec![[0.0f32; 13]; 64];
        let mut features = vec![0.0f32; 64 * f];
        for (i, p) in probs.iter_mut().enumerate() {
            p[0] = 1.0;
            features[i * f + i % f] = 1.0 + i as f32 * 0.01;
        }
        for (square, class, feature) in [(4, 12, [0.0, 0.0, 1.0]), (60, 6, [0.0, 1.0, 0.0])]
            .into_iter()
            .chain([(56, 4, [1.0, 0.2, 0.0]), (63, 4, [0.9, 0.25, 0.0])])
        {
            probs[square] = [0.0; 13];
            probs[square][class] = 1.0;
            features[square * f..(square + 1) * f].copy_from_slice(&feature);
        }
        Reading {
            probs,
            features,
            feature_len: f,
            read: vec![true; 64],
        }
    }

    #[test]
    fn each_square_gets_one_row_and_sees_its_look_alike() {
        let r = reading();
        for look_alikes in [false, true] {
            let (rows, read) = board_inputs(&r, look_alikes);
            assert_eq!(read.len(), 64);
            assert_eq!(rows.len(), 64 * input_len(3, look_alikes));
        }
        let (rows, _) = board_inputs(&r, true);
        let len = input_len(3, true);
        let a1 = &rows[56 * len..57 * len];
        // After own features, board mean and max (3 each), own log-probabilities and mean
        // probabilities (13 each): the nearest square's log-probabilities and likeness.
        let nearest = &a1[3 * 3 + 26..3 * 3 + 26 + 14];
        assert!(
            nearest[4] > -1e-3,
            "the h1 rook, read as a rook: {nearest:?}"
        );
        assert!(nearest[13] > 0.99, "likeness {}", nearest[13]);
    }

    #[test]
    fn a_reading_that_is_not_a_whole_board_gives_no_inputs() {
        let mut r = reading();
        r.probs.truncate(63);
        assert!(board_inputs(&r, false).0.is_empty());
        let mut r = reading();
        r.feature_len = 0;
        assert!(board_inputs(&r, false).1.is_empty());
    }
}
