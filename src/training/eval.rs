//! Square-level evaluation: accuracy and a 13x13 confusion matrix.

use serde::{Deserialize, Serialize};

use super::data::SquareSet;
use crate::class::SquareClass;
use crate::classifier::Classifier;

/// Accuracy of a model on a square set.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SquareMetrics {
    /// Number of squares.
    pub squares: usize,
    /// Share classified correctly.
    pub accuracy: f64,
    /// `confusion[true][predicted]` counts, class indices as in [`SquareClass`].
    pub confusion: Vec<Vec<usize>>,
    /// Accuracy by the board's resolution (pixels of detail per square): where the
    /// mistakes are.
    #[serde(default)]
    pub by_resolution: Vec<ResolutionBucket>,
    /// Accuracy by piece set (by name), least accurate first: which styles the model
    /// reads worst.
    #[serde(default)]
    pub by_piece_set: Vec<PieceSetAccuracy>,
}

/// Accuracy on the squares of the boards drawn with one piece set.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PieceSetAccuracy {
    /// The set's name.
    pub piece_set: String,
    /// Squares of its boards.
    pub squares: usize,
    /// Share classified correctly.
    pub accuracy: f64,
}

/// Accuracy on the squares of boards within a range of resolutions.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ResolutionBucket {
    /// Smallest pixels of detail per square in this bucket.
    pub from_px: u8,
    /// Largest, exclusive (`None`: no upper bound).
    pub to_px: Option<u8>,
    /// Squares in the bucket.
    pub squares: usize,
    /// Share classified correctly.
    pub accuracy: f64,
}

impl ResolutionBucket {
    /// Readable range, e.g. `16-24 px`.
    pub fn label(&self) -> String {
        match self.to_px {
            Some(to) => format!("{}-{} px", self.from_px, to),
            None => format!(">= {} px", self.from_px),
        }
    }
}

/// Bucket edges in pixels of detail per square.
const RESOLUTION_EDGES: [u8; 5] = [0, 16, 24, 32, 48];

impl SquareMetrics {
    /// The most frequent mistakes, as `(true, predicted, count)`.
    pub fn top_confusions(&self, n: usize) -> Vec<(String, String, usize)> {
        let mut v = Vec::new();
        for (t, row) in self.confusion.iter().enumerate() {
            for (p, &c) in row.iter().enumerate() {
                if t != p && c > 0 {
                    let name = |i| {
                        SquareClass::from_index(i)
                            .map(|c| c.name())
                            .unwrap_or("?")
                            .to_string()
                    };
                    v.push((name(t), name(p), c));
                }
            }
        }
        v.sort_by_key(|x| std::cmp::Reverse(x.2));
        v.truncate(n);
        v
    }
}

/// Accuracy per piece set from `(squares, correct)` counts, least accurate first (ties by
/// name); sets without squares left out.
fn by_piece_set(names: &[String], counts: &[(usize, usize)]) -> Vec<PieceSetAccuracy> {
    let mut v: Vec<PieceSetAccuracy> = names
        .iter()
        .zip(counts)
        .filter(|(_, c)| c.0 > 0)
        .map(|(name, &(n, right))| PieceSetAccuracy {
            piece_set: name.clone(),
            squares: n,
            accuracy: right as f64 / n as f64,
        })
        .collect();
    v.sort_by(|a, b| {
        a.accuracy
            .total_cmp(&b.accuracy)
            .then_with(|| a.piece_set.cmp(&b.piece_set))
    });
    v
}

/// One misclassified crop of a square set.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Mistake {
    /// Index of the crop in its [`SquareSet`].
    pub index: usize,
    /// The label.
    pub truth: SquareClass,
    /// What the model said.
    pub predicted: SquareClass,
    /// The model's probability for `predicted`.
    pub confidence: f32,
}

/// Classifies every crop of `set` (in batches of `batch`) through a loaded [`Classifier`],
/// exactly as infer runs it (the batched CPU path, a checkpoint's second model; a set of
/// whole boards, 64 crops each in reading order, is read a board at a time with the
/// board-context correction), and compares with the labels; also lists every
/// misclassified crop (for a mistake sheet).
pub fn evaluate(
    classifier: &Classifier,
    set: &SquareSet,
    batch: usize,
    whole_boards: bool,
) -> (SquareMetrics, Vec<Mistake>) {
    let whole_boards = whole_boards && set.len().is_multiple_of(64);
    let batch = if whole_boards { 64 } else { batch };
    let mut mistakes = Vec::new();
    let mut confusion = vec![vec![0usize; 13]; 13];
    let mut correct = 0;
    // (squares, correct) per resolution bucket.
    let mut buckets = [(0usize, 0usize); RESOLUTION_EDGES.len()];
    let bucket_of = |px: u8| RESOLUTION_EDGES.iter().rposition(|&e| px >= e).unwrap_or(0);
    // (squares, correct) per piece set, as `set.piece_sets`.
    let mut per_set = vec![(0usize, 0usize); set.piece_sets.len()];
    let n = set.len();
    let indices: Vec<usize> = (0..n).collect();
    for chunk in indices.chunks(batch.max(1)) {
        let crops: Vec<image::RgbImage> = chunk.iter().filter_map(|&i| set.crop(i)).collect();
        let probs = if whole_boards {
            classifier.read_board(&crops)
        } else {
            classifier.probabilities(&crops)
        };
        let y: Vec<usize> = chunk.iter().map(|&i| set.labels[i] as usize).collect();
        for ((t, p), &i) in y.iter().zip(&probs).zip(chunk) {
            let (best, confidence) = p
                .iter()
                .copied()
                .enumerate()
                .fold((0, f32::MIN), |a, (k, v)| if v > a.1 { (k, v) } else { a });
            let (t, p) = (*t, best);
            confusion[t][p] += 1;
            if t != p
                && let (Some(truth), Some(predicted)) =
                    (SquareClass::from_index(t), SquareClass::from_index(p))
            {
                mistakes.push(Mistake {
                    index: i,
                    truth,
                    predicted,
                    confidence,
                });
            }
            let b = &mut buckets[bucket_of(set.square_px.get(i).copied().unwrap_or(0))];
            b.0 += 1;
            let s = set
                .piece_set
                .get(i)
                .and_then(|&k| per_set.get_mut(k as usize));
            if let Some(s) = s {
                s.0 += 1;
                s.1 += usize::from(t == p);
            }
            if t == p {
                correct += 1;
                b.1 += 1;
            }
        }
    }
    let metrics = SquareMetrics {
        squares: n,
        accuracy: if n == 0 {
            0.0
        } else {
            correct as f64 / n as f64
        },
        confusion,
        by_resolution: buckets
            .iter()
            .enumerate()
            .filter(|(_, b)| b.0 > 0)
            .map(|(k, &(n, right))| ResolutionBucket {
                from_px: RESOLUTION_EDGES[k],
                to_px: RESOLUTION_EDGES.get(k + 1).copied(),
                squares: n,
                accuracy: right as f64 / n as f64,
            })
            .collect(),
        by_piece_set: by_piece_set(&set.piece_sets, &per_set),
    };
    (metrics, mistakes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn piece_sets_least_accurate_first_and_empty_ones_left_out() {
        let names: Vec<String> = ["alpha", "maya", "pixel", "unused"]
            .map(String::from)
            .to_vec();
        let v = by_piece_set(&names, &[(64, 64), (128, 120), (64, 56), (0, 0)]);
        let order: Vec<&str> = v.iter().map(|s| s.piece_set.as_str()).collect();
        assert_eq!(order, ["pixel", "maya", "alpha"]);
        assert_eq!(v[1].squares, 128);
        assert!((v[1].accuracy - 120.0 / 128.0).abs() < 1e-12);
        assert_eq!(v[2].accuracy, 1.0);
    }
}
