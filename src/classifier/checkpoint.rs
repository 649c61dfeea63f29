//! A checkpoint folder: `config.json` (how to rebuild the model and cut its inputs),
//! `model.bpk` (weights, burnpack), `card.json` (what it was trained on and how well it does),
//! and for interrupted runs `state.json` + `optimizer.bpk`.

use std::path::{Path, PathBuf};

use burn::module::Module;
use burn::prelude::*;
use burn::store::ModuleRecord;
use image::RgbImage;
use serde::{Deserialize, Serialize};

use super::backend::Backend;
use super::batched::BatchedClassifier;
use super::fused::FusedClassifier;
use super::model::{SquareClassifier, SquareClassifierConfig};
use crate::squares::{CropConfig, to_chw};

/// Version of the checkpoint layout; bumped when an old checkpoint cannot be read.
pub const FORMAT_VERSION: u32 = 1;

/// What infer needs to rebuild the model and feed it: saved as `config.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ModelSpec {
    /// Checkpoint layout version ([`FORMAT_VERSION`]).
    pub format_version: u32,
    /// Architecture.
    pub model: SquareClassifierConfig,
    /// How squares are cut for this model.
    pub crop: CropConfig,
}

/// Why a checkpoint could not be used.
#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    /// A file is missing.
    #[error("checkpoint {dir}: {file} is missing (a checkpoint holds config.json and model.bpk)")]
    Missing {
        /// The folder.
        dir: PathBuf,
        /// The missing file.
        file: &'static str,
    },
    /// config.json cannot be parsed.
    #[error("checkpoint {path}: not a valid model config: {reason}")]
    BadConfig {
        /// The file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// The checkpoint was written by an incompatible version.
    #[error("checkpoint {path}: format version {found}, this program reads version {expected}")]
    Version {
        /// The file.
        path: PathBuf,
        /// Version in the file.
        found: u32,
        /// Version this build reads.
        expected: u32,
    },
    /// The weights cannot be read or do not fit the architecture.
    #[error("checkpoint {path}: the weights cannot be loaded: {reason}")]
    Weights {
        /// The file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// The backend is not available.
    #[error("{0}")]
    Backend(String),
    /// Writing failed.
    #[error("cannot write checkpoint {path}: {reason}")]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
}

/// Reads and checks `config.json`.
pub fn read_spec(dir: &Path) -> Result<ModelSpec, CheckpointError> {
    let path = dir.join("config.json");
    if !path.is_file() {
        return Err(CheckpointError::Missing {
            dir: dir.to_path_buf(),
            file: "config.json",
        });
    }
    let text = std::fs::read_to_string(&path).map_err(|e| CheckpointError::BadConfig {
        path: path.clone(),
        reason: e.to_string(),
    })?;
    let value: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| CheckpointError::BadConfig {
            path: path.clone(),
            reason: e.to_string(),
        })?;
    let found = value
        .get("format_version")
        .and_then(|v| v.as_u64())
        .unwrap_or(0) as u32;
    if found != FORMAT_VERSION {
        return Err(CheckpointError::Version {
            path,
            found,
            expected: FORMAT_VERSION,
        });
    }
    let spec: ModelSpec =
        serde_json::from_value(value).map_err(|e| CheckpointError::BadConfig {
            path: path.clone(),
            reason: e.to_string(),
        })?;
    if spec.model.widths.is_empty()
        || spec.model.num_classes != 13
        || spec.model.channels != 3
        || !(8..=256).contains(&spec.model.input_size)
        || spec.crop.size as usize != spec.model.input_size
    {
        return Err(CheckpointError::BadConfig {
            path,
            reason: "unsupported model shape (need 3 channels, 13 classes, crop size = input size)"
                .into(),
        });
    }
    Ok(spec)
}

/// Loads the model of checkpoint `dir` onto `device`. Never panics on a bad file.
pub fn load_model(
    dir: &Path,
    device: &Device,
) -> Result<(ModelSpec, SquareClassifier), CheckpointError> {
    let spec = read_spec(dir)?;
    let path = dir.join("model.bpk");
    if !path.is_file() {
        return Err(CheckpointError::Missing {
            dir: dir.to_path_buf(),
            file: "model.bpk",
        });
    }
    let weights = |reason: String| CheckpointError::Weights {
        path: path.clone(),
        reason,
    };
    // ModuleRecord::load/try_load_record report errors; load_record would panic.
    let record = std::panic::catch_unwind(|| ModuleRecord::load(&path))
        .map_err(|_| weights("the burnpack reader failed on this file".into()))?
        .map_err(|e| weights(e.to_string()))?;
    let model = spec.model.init(device);
    let model = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        model.try_load_record(record)
    }))
    .map_err(|_| weights("the weights do not fit the architecture in config.json".into()))?
    .map_err(|e| weights(e.to_string()))?;
    Ok((spec, model))
}

/// Saves `config.json` and `model.bpk` into `dir`, each written to a temporary name and
/// renamed, so an interrupted save never leaves a half-written checkpoint.
pub fn save_model(
    dir: &Path,
    spec: &ModelSpec,
    model: &SquareClassifier,
) -> Result<(), CheckpointError> {
    let write_err = |path: &Path, reason: String| CheckpointError::Write {
        path: path.to_path_buf(),
        reason,
    };
    std::fs::create_dir_all(dir).map_err(|e| write_err(dir, e.to_string()))?;
    let tmp = dir.join(".model.bpk.tmp");
    let bytes = model
        .clone()
        .into_record()
        .into_bytes()
        .map_err(|e| write_err(&tmp, e.to_string()))?;
    let path = dir.join("model.bpk");
    crate::io::atomic_write(&path, &bytes).map_err(|e| write_err(&path, e.to_string()))?;
    let cfg = dir.join("config.json");
    let text = serde_json::to_string_pretty(spec).map_err(|e| write_err(&cfg, e.to_string()))?;
    crate::io::atomic_write(&cfg, text.as_bytes()).map_err(|e| write_err(&cfg, e.to_string()))
}

/// A loaded classifier ready to label squares.
pub struct Classifier {
    model: FusedClassifier,
    /// The same model as one matrix product a layer over the batch; used on the CPU
    /// (burn-flex), where it is about twice as fast as Burn's per-image convolutions.
    batched: Option<BatchedClassifier>,
    spec: ModelSpec,
    device: Device,
}

impl Classifier {
    /// Loads checkpoint `dir` on `backend`.
    pub fn load(dir: &Path, backend: Backend) -> Result<Classifier, CheckpointError> {
        let device = backend.device().map_err(CheckpointError::Backend)?;
        let (spec, model) = load_model(dir, &device)?;
        Ok(Classifier::from_model(model, spec, device))
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
        }
    }

    /// How this model's squares must be cut.
    pub fn crop(&self) -> &CropConfig {
        &self.spec.crop
    }

    /// The model's description.
    pub fn spec(&self) -> &ModelSpec {
        &self.spec
    }

    /// Class probabilities (13 per crop, summing to 1) for crops cut with [`Self::crop`],
    /// in one forward pass.
    pub fn probabilities(&self, crops: &[RgbImage]) -> Vec<[f32; 13]> {
        if crops.is_empty() {
            return Vec::new();
        }
        let n = self.spec.crop.size as usize;
        let mut data = Vec::with_capacity(crops.len() * 3 * n * n);
        for c in crops {
            to_chw(c, &mut data);
        }
        let batched = self
            .batched
            .as_ref()
            .and_then(|b| b.forward(&data, crops.len(), n));
        let scores = match batched {
            Some(scores) => scores,
            None => {
                let x = Tensor::<4>::from_data(
                    TensorData::new(data, [crops.len(), 3, n, n]),
                    &self.device,
                );
                self.model
                    .forward(x)
                    .into_data()
                    .convert::<f32>()
                    .try_into_vec::<f32>()
                    .unwrap_or_default()
            }
        };
        scores.chunks(13).map(softmax).collect()
    }
}

/// Probabilities from 13 class scores (missing scores count as very unlikely).
fn softmax(scores: &[f32]) -> [f32; 13] {
    let s: [f32; 13] = std::array::from_fn(|i| scores.get(i).copied().unwrap_or(-1e9));
    let max = s.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let e = s.map(|v| (v - max).exp());
    let sum: f32 = e.iter().sum();
    e.map(|v| v / sum)
}

/// Number of parameters of a model.
pub fn parameter_count(model: &SquareClassifier) -> usize {
    model.num_params()
}
