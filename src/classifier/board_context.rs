//! The board as context: a small network that corrects each square's reading with what the
//! first model saw on the whole board.
//!
//! The square classifier reads each crop alone, so it cannot see that a greyish piece is
//! lighter than this board's black men, and its confident mistakes are mostly such colour
//! swaps of one piece style. This stage gives every read square the board's summary (the
//! first model's head inputs averaged over the pieces and their maximum, and the mean
//! reading) and adds a learned correction to its log-probabilities. Its last layer starts
//! at zero, so an untrained head changes nothing. Fitted by `train --board-context` on
//! the pair's readings of synthetic boards; saved beside the models as
//! `board-context.json` + `board-context.bpk`.

use std::path::{Path, PathBuf};

use burn::module::Module;
use burn::nn::{Initializer, Linear, LinearConfig};
use burn::prelude::*;
use burn::store::ModuleRecord;
use burn::tensor::activation::relu;

use super::checkpoint::{CheckpointError, FORMAT_VERSION, Reading, softmax};

/// File of the settings (with the input statistics) in a checkpoint folder.
pub const BOARD_CONTEXT_CONFIG: &str = "board-context.json";
/// File of the weights in a checkpoint folder.
pub const BOARD_CONTEXT_WEIGHTS: &str = "board-context.bpk";

/// Shape of the correction network and how its inputs are scaled.
#[derive(Config, Debug, PartialEq)]
pub struct BoardContextConfig {
    /// Checkpoint layout version.
    #[config(default = 1)]
    pub format_version: u32,
    /// Head inputs of the first model per square (its last block's width).
    pub features: usize,
    /// Hidden units.
    #[config(default = 32)]
    pub hidden: usize,
    /// Mean of each input over the fitting data (empty: no centring).
    #[config(default = "Vec::new()")]
    pub input_mean: Vec<f32>,
    /// Scale of each input over the fitting data (empty: none).
    #[config(default = "Vec::new()")]
    pub input_scale: Vec<f32>,
}

impl BoardContextConfig {
    /// Inputs per square: own features, the board's mean and maximum of them, own
    /// log-probabilities and the board's mean probabilities.
    pub fn input_len(&self) -> usize {
        3 * self.features + 26
    }

    /// A fresh network; its output layer is zero, so it corrects nothing yet.
    pub fn init(&self, device: &Device) -> BoardContextNet {
        BoardContextNet {
            hidden: LinearConfig::new(self.input_len(), self.hidden).init(device),
            out: LinearConfig::new(self.hidden, 13)
                .with_initializer(Initializer::Zeros)
                .init(device),
        }
    }
}

/// Two layers: the correction added to a square's log-probabilities.
#[derive(Module, Debug)]
pub struct BoardContextNet {
    hidden: Linear,
    out: Linear,
}

impl BoardContextNet {
    /// # Shapes
    /// input `[squares, input_len]` (scaled) -> correction `[squares, 13]`
    pub fn forward(&self, x: Tensor<2>) -> Tensor<2> {
        self.out.forward(relu(self.hidden.forward(x)))
    }
}

/// The inputs of a board's read squares (unscaled, `input_len` each) and their indices.
/// Empty unless `reading` covers a whole board (64 squares) with features.
pub fn board_inputs(reading: &Reading) -> (Vec<f32>, Vec<usize>) {
    let f = reading.feature_len;
    let n = reading.probs.len();
    if n != 64 || f == 0 || reading.features.len() != n * f {
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
    let mut rows = Vec::with_capacity(read.len() * (3 * f + 26));
    for &i in &read {
        rows.extend_from_slice(&reading.features[i * f..(i + 1) * f]);
        rows.extend_from_slice(&mean);
        rows.extend_from_slice(&max);
        rows.extend(reading.probs[i].iter().map(|p| p.max(1e-6).ln()));
        rows.extend_from_slice(&mean_probs);
    }
    (rows, read)
}

/// A fitted correction, ready to apply.
#[derive(Debug)]
pub struct BoardContext {
    config: BoardContextConfig,
    net: BoardContextNet,
    device: Device,
}

impl BoardContext {
    /// Wraps a network (fitted with `config`'s scaling).
    pub fn new(config: BoardContextConfig, net: BoardContextNet, device: Device) -> BoardContext {
        BoardContext {
            config,
            net,
            device,
        }
    }

    /// The settings.
    pub fn config(&self) -> &BoardContextConfig {
        &self.config
    }

    /// The network.
    pub fn net(&self) -> &BoardContextNet {
        &self.net
    }

    /// The device it runs on.
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// Scales `rows` in place as the network was fitted.
    pub fn scale(config: &BoardContextConfig, rows: &mut [f32]) {
        let len = config.input_len();
        if config.input_mean.len() != len || config.input_scale.len() != len {
            return;
        }
        for row in rows.chunks_mut(len) {
            for ((v, m), s) in row
                .iter_mut()
                .zip(&config.input_mean)
                .zip(&config.input_scale)
            {
                *v = (*v - m) * s;
            }
        }
    }

    /// `reading`'s probabilities with the correction applied to its read squares (the
    /// probabilities unchanged if it is not a whole board, or the features do not fit).
    pub fn apply(&self, reading: &Reading) -> Vec<[f32; 13]> {
        let mut probs = reading.probs.clone();
        if reading.feature_len != self.config.features {
            return probs;
        }
        let (mut rows, read) = board_inputs(reading);
        if read.is_empty() {
            return probs;
        }
        let len = self.config.input_len();
        Self::scale(&self.config, &mut rows);
        let x = Tensor::<2>::from_data(TensorData::new(rows, [read.len(), len]), &self.device);
        let Ok(correction) = self
            .net
            .forward(x)
            .into_data()
            .convert::<f32>()
            .try_into_vec::<f32>()
        else {
            return probs;
        };
        for (&i, c) in read.iter().zip(correction.chunks(13)) {
            let logits: [f32; 13] = std::array::from_fn(|k| probs[i][k].max(1e-6).ln() + c[k]);
            probs[i] = softmax(&logits);
        }
        probs
    }

    /// Loads `board-context.json` and `.bpk` from `dir`; `Ok(None)` when the checkpoint
    /// has none.
    pub fn load(dir: &Path, device: &Device) -> Result<Option<BoardContext>, CheckpointError> {
        let cfg_path = dir.join(BOARD_CONTEXT_CONFIG);
        if !cfg_path.is_file() {
            return Ok(None);
        }
        let text = std::fs::read_to_string(&cfg_path).map_err(|e| CheckpointError::BadConfig {
            path: cfg_path.clone(),
            reason: e.to_string(),
        })?;
        let weights_path = dir.join(BOARD_CONTEXT_WEIGHTS);
        let bytes = std::fs::read(&weights_path).map_err(|e| CheckpointError::Weights {
            path: weights_path.clone(),
            reason: e.to_string(),
        })?;
        Self::from_parts(&text, cfg_path, bytes, weights_path, device).map(Some)
    }

    /// Builds it from a config's text and the weights' bytes (paths name them in errors).
    pub fn from_parts(
        config_text: &str,
        config_path: PathBuf,
        bytes: Vec<u8>,
        weights_path: PathBuf,
        device: &Device,
    ) -> Result<BoardContext, CheckpointError> {
        let bad = |reason: String| CheckpointError::BadConfig {
            path: config_path.clone(),
            reason,
        };
        let config: BoardContextConfig =
            serde_json::from_str(config_text).map_err(|e| bad(e.to_string()))?;
        if config.format_version != FORMAT_VERSION {
            return Err(CheckpointError::Version {
                path: config_path,
                found: config.format_version,
                expected: FORMAT_VERSION,
            });
        }
        let len = config.input_len();
        if config.features == 0
            || config.hidden == 0
            || config.input_mean.len() != len
            || config.input_scale.len() != len
        {
            return Err(bad(format!(
                "need features and hidden of at least 1 and {len} input statistics each"
            )));
        }
        let weights = |reason: String| CheckpointError::Weights {
            path: weights_path.clone(),
            reason,
        };
        let record = std::panic::catch_unwind(|| {
            ModuleRecord::from_bytes(burn::tensor::Bytes::from_bytes_vec(bytes))
        })
        .map_err(|_| weights("the burnpack reader failed on this file".into()))?
        .map_err(|e| weights(e.to_string()))?;
        let net = config.init(device);
        let net =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| net.try_load_record(record)))
                .map_err(|_| weights("the weights do not fit board-context.json".into()))?
                .map_err(|e| weights(e.to_string()))?;
        Ok(BoardContext::new(config, net, device.clone()))
    }

    /// Writes both files into `dir`, each atomically.
    pub fn save(&self, dir: &Path) -> Result<(), CheckpointError> {
        let write_err = |path: &Path, reason: String| CheckpointError::Write {
            path: path.to_path_buf(),
            reason,
        };
        std::fs::create_dir_all(dir).map_err(|e| write_err(dir, e.to_string()))?;
        let path = dir.join(BOARD_CONTEXT_WEIGHTS);
        let bytes = self
            .net
            .clone()
            .into_record()
            .into_bytes()
            .map_err(|e| write_err(&path, e.to_string()))?;
        crate::io::atomic_write(&path, &bytes).map_err(|e| write_err(&path, e.to_string()))?;
        let path = dir.join(BOARD_CONTEXT_CONFIG);
        let text = serde_json::to_string_pretty(&self.config)
            .map_err(|e| write_err(&path, e.to_string()))?;
        crate::io::atomic_write(&path, text.as_bytes()).map_err(|e| write_err(&path, e.to_string()))
    }
}
