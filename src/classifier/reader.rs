//! A loaded classifier reading crops: the first model on every square that is not plain,
//! a second model on the squares it is unsure of, and the board-context correction of a
//! whole board's reading, as the checkpoint it was loaded from asks.

use std::path::{Path, PathBuf};

use burn::prelude::*;
use image::RgbImage;

use super::backend::Backend;
use super::batched::BatchedClassifier;
use super::board_context::BoardContext;
use super::checkpoint::{
    CheckpointError, ModelSpec, SECOND_MODEL_DIR, SecondOpinion, load_model, read_second_opinion,
};
use super::fused::FusedClassifier;
use super::model::SquareClassifier;
use crate::squares::{CropConfig, plain_squares, to_chw};

/// A loaded classifier ready to label squares.
pub struct Classifier {
    model: FusedClassifier,
    /// The same model as one matrix product a layer over the batch; used on the CPU
    /// (burn-flex), where it is about twice as fast as Burn's per-image convolutions.
    batched: Option<BatchedClassifier>,
    spec: ModelSpec,
    device: Device,
    /// A larger model for the squares this one is unsure of.
    second: Option<(Box<Classifier>, SecondOpinion)>,
    /// A correction of whole-board readings by the board's other squares.
    board_context: Option<BoardContext>,
}

impl Classifier {
    /// Loads checkpoint `dir` on `backend`.
    pub fn load(dir: &Path, backend: Backend) -> Result<Classifier, CheckpointError> {
        let device = backend.device().map_err(CheckpointError::Backend)?;
        let (spec, model) = load_model(dir, &device)?;
        let mut first = Classifier::from_model(model, spec, device.clone());
        first.board_context = BoardContext::load(dir, &device)?;
        match read_second_opinion(dir)? {
            None => Ok(first),
            Some(opinion) => {
                let (spec, model) = load_model(&dir.join(SECOND_MODEL_DIR), &device)?;
                first.with_second(Classifier::from_model(model, spec, device), opinion)
            }
        }
    }

    /// This classifier with `context` correcting its whole-board readings.
    pub fn with_board_context(mut self, context: Option<BoardContext>) -> Classifier {
        self.board_context = context;
        self
    }

    /// Its board-context correction, if it has one.
    pub fn board_context(&self) -> Option<&BoardContext> {
        self.board_context.as_ref()
    }

    /// The probabilities of a whole board's 64 crops (reading order): as
    /// [`Self::probabilities`], then corrected by the board context when the checkpoint
    /// has one.
    pub fn read_board(&self, crops: &[RgbImage]) -> Vec<[f32; 13]> {
        self.finish_board(crops, self.first_reading(crops))
    }

    /// [`Self::read_board`] from this (the first) model's own reading of the same crops
    /// ([`Self::first_reading`]): the second model's look and the board context.
    pub fn finish_board(&self, crops: &[RgbImage], first: Reading) -> Vec<[f32; 13]> {
        let reading = self.second_look(crops, first);
        match &self.board_context {
            Some(context) => context.apply(&reading),
            None => reading.probs,
        }
    }

    /// This classifier with `second` re-reading the squares it is unsure of. Both must cut
    /// squares the same way (one cut serves both).
    pub fn with_second(
        mut self,
        second: Classifier,
        opinion: SecondOpinion,
    ) -> Result<Classifier, CheckpointError> {
        if second.spec.crop != self.spec.crop {
            return Err(CheckpointError::BadConfig {
                path: PathBuf::from(SECOND_MODEL_DIR).join("config.json"),
                reason: "the second model must cut squares like the first (same crop)".into(),
            });
        }
        self.second = Some((Box::new(second.without_second()), opinion));
        Ok(self)
    }

    /// This classifier alone, without its second model.
    pub fn without_second(mut self) -> Classifier {
        self.second = None;
        self
    }

    /// The second model's settings, if it has one.
    pub fn second_opinion(&self) -> Option<SecondOpinion> {
        self.second.as_ref().map(|(_, o)| *o)
    }

    /// Wraps an in-memory model.
    pub fn from_model(model: SquareClassifier, spec: ModelSpec, device: Device) -> Classifier {
        let model = FusedClassifier::new(&model);
        // On a GPU, moving every layer's activations to the host would cost more than it saves.
        let batched = if device == Device::flex() {
            BatchedClassifier::new(&model)
        } else {
            None
        };
        Classifier {
            model,
            batched,
            spec,
            device,
            second: None,
            board_context: None,
        }
    }

    /// How this model's squares must be cut.
    pub fn crop(&self) -> &CropConfig {
        &self.spec.crop
    }

    /// The device the models run on.
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// The model's description.
    pub fn spec(&self) -> &ModelSpec {
        &self.spec
    }

    /// Class probabilities (13 per crop, summing to 1) for crops cut with [`Self::crop`],
    /// in one forward pass; with a second model, blended with its probabilities on the
    /// crops this model is unsure of (one more pass over those). Plain squares of a tone
    /// other plain squares share (see [`plain_squares`]) are empty without asking a model:
    /// on a clean screenshot that is half the board, and so half the time.
    pub fn probabilities(&self, crops: &[RgbImage]) -> Vec<[f32; 13]> {
        self.reading(crops).probs
    }

    /// What [`Self::probabilities`] gives, with what this (the first) model saw of each
    /// crop: the inputs of its head.
    pub fn reading(&self, crops: &[RgbImage]) -> Reading {
        self.second_look(crops, self.first_reading(crops))
    }

    /// This model alone, without its second model: a quick look at a board (about half
    /// of [`Self::read_board`]'s time on a board it is unsure of), and where a full
    /// reading starts.
    pub fn first_reading(&self, crops: &[RgbImage]) -> Reading {
        let plain = plain_squares(crops, &self.spec.crop);
        let read: Vec<usize> = (0..crops.len()).filter(|&i| !plain[i]).collect();
        let feature_len = self.spec.model.widths.last().copied().unwrap_or(0);
        let mut reading = Reading {
            probs: vec![plain_empty(); crops.len()],
            features: vec![0.0; crops.len() * feature_len],
            feature_len,
            read: vec![false; crops.len()],
        };
        let (own, features) =
            self.own_reading(&read.iter().map(|&i| &crops[i]).collect::<Vec<_>>());
        for (k, (&i, p)) in read.iter().zip(own).enumerate() {
            reading.probs[i] = p;
            reading.read[i] = true;
            if let Some(f) = features.get(k * feature_len..(k + 1) * feature_len) {
                reading.features[i * feature_len..(i + 1) * feature_len].copy_from_slice(f);
            }
        }
        reading
    }

    /// `reading` (this model's own, [`Self::first_reading`]) with the second model's
    /// probabilities blended in on the crops this one is unsure of.
    fn second_look(&self, crops: &[RgbImage], mut reading: Reading) -> Reading {
        if let Some((second, opinion)) = &self.second {
            let probs = &mut reading.probs;
            let unsure: Vec<usize> = (0..probs.len())
                .filter(|&i| reading.read[i] && top_probability(&probs[i]) < opinion.below)
                .collect();
            let again: Vec<&RgbImage> = unsure.iter().map(|&i| &crops[i]).collect();
            for (&i, q) in unsure.iter().zip(second.own_reading(&again).0) {
                let w = opinion.weight;
                probs[i] = std::array::from_fn(|k| (1.0 - w) * probs[i][k] + w * q[k]);
            }
        }
        reading
    }

    /// This model's probabilities and head inputs (crop-major) for `crops`.
    fn own_reading(&self, crops: &[&RgbImage]) -> (Vec<[f32; 13]>, Vec<f32>) {
        if crops.is_empty() {
            return (Vec::new(), Vec::new());
        }
        let n = self.spec.crop.size as usize;
        let mut data = Vec::with_capacity(crops.len() * 3 * n * n);
        for c in crops {
            to_chw(c, &mut data);
        }
        let batched = self.batched.as_ref().and_then(|b| {
            let features = b.features(&data, crops.len(), n)?;
            Some((b.scores(&features, crops.len()), features))
        });
        let (scores, features) = match batched {
            Some(read) => read,
            None => {
                let x = Tensor::<4>::from_data(
                    TensorData::new(data, [crops.len(), 3, n, n]),
                    &self.device,
                );
                let features = self.model.features(x);
                let scores = self.model.head().forward(features.clone());
                let values = |t: Tensor<2>| {
                    t.into_data()
                        .convert::<f32>()
                        .try_into_vec::<f32>()
                        .unwrap_or_default()
                };
                (values(scores), values(features))
            }
        };
        (scores.chunks(13).map(softmax).collect(), features)
    }
}

/// One [`Classifier::reading`] of a list of crops.
#[derive(Clone, Debug)]
pub struct Reading {
    /// Class probabilities per crop, as [`Classifier::probabilities`].
    pub probs: Vec<[f32; 13]>,
    /// The first model's head inputs, `feature_len` per crop (zeros for plain squares).
    pub features: Vec<f32>,
    /// Head inputs per crop (the last block's width).
    pub feature_len: usize,
    /// Whether a model read the crop (`false`: a plain square, empty without a model).
    pub read: Vec<bool>,
}

/// What a plain square reads as: empty, all but certainly (the other classes keep a
/// trace so that log-probabilities stay finite).
pub(crate) fn plain_empty() -> [f32; 13] {
    let mut p = [1e-6f32; 13];
    p[crate::class::SquareClass::Empty.index()] = 1.0 - 12e-6;
    p
}

/// The probability of the best class.
pub fn top_probability(p: &[f32; 13]) -> f32 {
    p.iter().copied().fold(0.0, f32::max)
}

/// Probabilities from 13 class scores (missing scores count as very unlikely).
pub(crate) fn softmax(scores: &[f32]) -> [f32; 13] {
    let s: [f32; 13] = std::array::from_fn(|i| scores.get(i).copied().unwrap_or(-1e9));
    let max = s.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let e = s.map(|v| (v - max).exp());
    let sum: f32 = e.iter().sum();
    e.map(|v| v / sum)
}
