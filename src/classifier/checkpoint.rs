//! A checkpoint folder: `config.json` (how to rebuild the model and cut its inputs),
//! `model.bpk` (weights, burnpack), `card.json` (what it was trained on and how well it does),
//! and for interrupted runs `state.json` + `optimizer.bpk`. Optionally a second, larger
//! model in `second/` with `second-opinion.json`: it re-reads only the squares the first
//! model is unsure of (a cascade: the big model's accuracy where it matters, at a small
//! share of its cost).

use std::path::{Path, PathBuf};

use burn::module::Module;
use burn::prelude::*;
use burn::store::ModuleRecord;
use serde::{Deserialize, Serialize};

use super::model::{SquareClassifier, SquareClassifierConfig};
use crate::squares::CropConfig;

pub(crate) use super::reader::softmax;
pub use super::reader::{Classifier, Reading, top_probability};

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
    parse_spec(&text, path)
}

/// Parses and checks the text of a `config.json`; `path` names it in errors.
pub fn parse_spec(text: &str, path: PathBuf) -> Result<ModelSpec, CheckpointError> {
    let value: serde_json::Value =
        serde_json::from_str(text).map_err(|e| CheckpointError::BadConfig {
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
    spec.crop
        .validate()
        .map_err(|reason| CheckpointError::BadConfig { path, reason })?;
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
    let bytes = std::fs::read(&path).map_err(|e| CheckpointError::Weights {
        path: path.clone(),
        reason: e.to_string(),
    })?;
    let model = model_from_bytes(&spec, bytes, path, device)?;
    Ok((spec, model))
}

/// Builds the model `spec` describes with the weights in `bytes` (a burnpack file's
/// contents; `path` names it in errors). Never panics on bad bytes.
pub fn model_from_bytes(
    spec: &ModelSpec,
    bytes: Vec<u8>,
    path: PathBuf,
    device: &Device,
) -> Result<SquareClassifier, CheckpointError> {
    let weights = |reason: String| CheckpointError::Weights {
        path: path.clone(),
        reason,
    };
    // ModuleRecord::from_bytes/try_load_record report errors; load_record would panic.
    let record = std::panic::catch_unwind(|| {
        ModuleRecord::from_bytes(burn::tensor::Bytes::from_bytes_vec(bytes))
    })
    .map_err(|_| weights("the burnpack reader failed on this file".into()))?
    .map_err(|e| weights(e.to_string()))?;
    let model = spec.model.init(device);
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        model.try_load_record(record)
    }))
    .map_err(|_| weights("the weights do not fit the architecture in config.json".into()))?
    .map_err(|e| weights(e.to_string()))
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

/// When the second model of a checkpoint is asked, and how much it counts:
/// `second-opinion.json`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SecondOpinion {
    /// Checkpoint layout version ([`FORMAT_VERSION`]).
    pub format_version: u32,
    /// Squares whose best class has a probability below this are re-read (0..=1).
    pub below: f32,
    /// Weight of the second model's probabilities in the blend (0..=1; 1 replaces).
    pub weight: f32,
}

/// File name of the second-opinion settings in a checkpoint folder.
pub const SECOND_OPINION_FILE: &str = "second-opinion.json";
/// Folder of the second model in a checkpoint folder.
pub const SECOND_MODEL_DIR: &str = "second";

/// Reads `second-opinion.json` of checkpoint `dir`, if it has one.
pub fn read_second_opinion(dir: &Path) -> Result<Option<SecondOpinion>, CheckpointError> {
    let path = dir.join(SECOND_OPINION_FILE);
    if !path.is_file() {
        return Ok(None);
    }
    let text = std::fs::read_to_string(&path).map_err(|e| CheckpointError::BadConfig {
        path: path.clone(),
        reason: e.to_string(),
    })?;
    parse_second_opinion(&text, path).map(Some)
}

/// Parses and checks the text of a `second-opinion.json`; `path` names it in errors.
pub fn parse_second_opinion(text: &str, path: PathBuf) -> Result<SecondOpinion, CheckpointError> {
    let bad = |reason: String| CheckpointError::BadConfig {
        path: path.clone(),
        reason,
    };
    let opinion: SecondOpinion = serde_json::from_str(text).map_err(|e| bad(e.to_string()))?;
    if opinion.format_version != FORMAT_VERSION {
        return Err(CheckpointError::Version {
            path,
            found: opinion.format_version,
            expected: FORMAT_VERSION,
        });
    }
    if !(0.0..=1.0).contains(&opinion.below) || !(0.0..=1.0).contains(&opinion.weight) {
        return Err(bad("below and weight must be between 0 and 1".into()));
    }
    Ok(opinion)
}

/// Number of parameters of a model.
pub fn parameter_count(model: &SquareClassifier) -> usize {
    model.num_params()
}
