//! A second look at the unsure squares: each is cut again with its window moved a little
//! up, down, left and right (as a board finder a pixel or two off would cut it, which is
//! what the classifier was trained on), and the readings are blended with the first. A
//! square the model reads one way only from one exact window is then weighed against how
//! it reads from its neighbours' windows; a clear square is left alone (and costs nothing).

use image::RgbImage;
use serde::Serialize;

use crate::classifier::{Classifier, top_probability};
use crate::quad::Quad;
use crate::squares::{CutError, cut_shifted};

/// Second-look settings.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct RelookConfig {
    /// Squares whose top probability is below this are read again. Default 0.9 (the
    /// squares `infer` reports as uncertain by default; 0.95 read no more boards right).
    pub unsure_below: f32,
    /// How far each window moves, in squares. Default 0.03 (about a pixel of a 32 px
    /// crop; the finder error synth simulates in training reaches 0.06).
    pub shift: f32,
    /// The first reading's share of the blend; the four shifted readings share the rest
    /// equally. Default 0.5 (an equal fifth each read as many boards right on the usual
    /// styles, and three more boards wrong of 300 in ten unfamiliar ones).
    pub first_share: f32,
}

impl Default for RelookConfig {
    fn default() -> Self {
        RelookConfig {
            unsure_below: 0.9,
            shift: 0.03,
            first_share: 0.5,
        }
    }
}

/// Reads the unsure squares of `probs` (crop order, see [`crate::squares::cut`]) again
/// from four shifted windows each and replaces their probabilities with a blend of the
/// five readings (see [`RelookConfig::first_share`]). Returns the squares read again.
pub fn apply(
    classifier: &Classifier,
    img: &RgbImage,
    quad: &Quad,
    probs: &mut [[f32; 13]],
    cfg: &RelookConfig,
) -> Result<Vec<usize>, CutError> {
    let unsure: Vec<usize> = probs
        .iter()
        .enumerate()
        .filter(|(_, p)| top_probability(p) < cfg.unsure_below)
        .map(|(i, _)| i)
        .collect();
    if unsure.is_empty() {
        return Ok(unsure);
    }
    let s = cfg.shift;
    // Four windows (the diagonals as well, nine views in all, measured no better for
    // twice the time).
    let shifts = [(s, 0.0), (-s, 0.0), (0.0, s), (0.0, -s)];
    let crops = cut_shifted(img, quad, classifier.crop(), &unsure, &shifts)?;
    // One pass over every shifted crop: crops[k * n + j] is square unsure[j], shift k.
    let readings = classifier.probabilities(&crops);
    let n = unsure.len();
    let (first, each) = (
        cfg.first_share,
        (1.0 - cfg.first_share) / shifts.len() as f32,
    );
    for (j, &i) in unsure.iter().enumerate() {
        let mut blend = probs[i].map(|v| v * first);
        for k in 0..shifts.len() {
            let r = &readings[k * n + j];
            for (a, b) in blend.iter_mut().zip(r) {
                *a += b * each;
            }
        }
        probs[i] = blend;
    }
    Ok(unsure)
}
