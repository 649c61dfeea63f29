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
use burn::tensor::activation::{log_sigmoid, log_softmax, relu};
use serde::{Deserialize, Serialize};

pub use super::board_inputs::{board_inputs, input_len, reads_like_a_position};
use super::checkpoint::{CheckpointError, FORMAT_VERSION, Reading, softmax};

/// File of the settings (with the input statistics) in a checkpoint folder.
pub const BOARD_CONTEXT_CONFIG: &str = "board-context.json";
/// File of the weights in a checkpoint folder.
pub const BOARD_CONTEXT_WEIGHTS: &str = "board-context.bpk";

/// What the correction may change in a square's reading.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CorrectionScope {
    /// Every class: it may also turn a piece into an empty square or another piece.
    #[default]
    Full,
    /// The colour only: for each piece kind, how the chance of "a piece of this kind" splits
    /// between white and black. Empty squares and piece kinds stay as the model read them,
    /// so an odd board (a gallery of kings) cannot lose its pieces.
    Colour,
}

impl CorrectionScope {
    /// Outputs of the network: a term per class, or a colour shift per piece kind.
    pub fn outputs(self) -> usize {
        match self {
            CorrectionScope::Full => 13,
            CorrectionScope::Colour => 6,
        }
    }
}

/// Corrected log-probabilities `[squares, 13]` from the model's log-probabilities and the
/// network's output (`scope.outputs()` per square).
pub fn corrected_log_probs(
    scope: CorrectionScope,
    base: Tensor<2>,
    correction: Tensor<2>,
) -> Tensor<2> {
    match scope {
        CorrectionScope::Full => log_softmax(base.add(correction), 1),
        CorrectionScope::Colour => {
            let [m, _] = base.dims();
            let empty = base.clone().slice([0..m, 0..1]);
            let white = base.clone().slice([0..m, 1..7]);
            let black = base.slice([0..m, 7..13]);
            // log(pw + pb), computed stably.
            let top = white.clone().max_pair(black.clone());
            let pair = top.clone().add(
                white
                    .clone()
                    .sub(top.clone())
                    .exp()
                    .add(black.clone().sub(top).exp())
                    .log(),
            );
            let shift = white.sub(black).add(correction);
            let white = pair.clone().add(log_sigmoid(shift.clone()));
            let black = pair.add(log_sigmoid(shift.neg()));
            Tensor::cat(vec![empty, white, black], 1)
        }
    }
}

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
    /// What it may change.
    #[config(default = "CorrectionScope::Full")]
    pub scope: CorrectionScope,
    /// Whether each square also sees its look-alikes on the board: the reading of the
    /// square whose features are most like its own, that likeness, and the board's
    /// readings weighted by likeness.
    #[config(default = false)]
    pub look_alikes: bool,
    /// Networks fitted alike from different seeds whose corrections are averaged (one fit
    /// alone varies by a few boards in a hundred).
    #[config(default = 1)]
    pub members: usize,
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
        input_len(self.features, self.look_alikes)
    }

    /// A fresh network; its output layer is zero, so it corrects nothing yet.
    pub fn init(&self, device: &Device) -> BoardContextNet {
        BoardContextNet {
            hidden: LinearConfig::new(self.input_len(), self.hidden).init(device),
            out: LinearConfig::new(self.hidden, self.scope.outputs())
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

/// How the weights of more than one member are stored (one member is stored as its
/// network alone, as before members existed).
#[derive(Module, Debug)]
struct BoardContextMembers {
    members: Vec<BoardContextNet>,
}

impl BoardContextNet {
    /// # Shapes
    /// input `[squares, input_len]` (scaled) -> correction `[squares, scope.outputs()]`
    pub fn forward(&self, x: Tensor<2>) -> Tensor<2> {
        self.out.forward(relu(self.hidden.forward(x)))
    }
}

/// `module` with `record`'s weights; a panic of the loader or a record that does not fit is
/// an error made by `weights`.
fn load_into<M: Module>(
    module: M,
    record: ModuleRecord,
    weights: impl Fn(String) -> CheckpointError,
) -> Result<M, CheckpointError> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        module.try_load_record(record)
    }))
    .map_err(|_| weights("the weights do not fit board-context.json".into()))?
    .map_err(|e| weights(e.to_string()))
}

/// A fitted correction, ready to apply.
#[derive(Debug)]
pub struct BoardContext {
    config: BoardContextConfig,
    nets: Vec<BoardContextNet>,
    device: Device,
}

impl BoardContext {
    /// Wraps networks fitted with `config`'s scaling (`config.members` is set to their
    /// number).
    ///
    /// # Panics
    /// When `nets` is empty.
    pub fn new(
        mut config: BoardContextConfig,
        nets: Vec<BoardContextNet>,
        device: Device,
    ) -> BoardContext {
        assert!(!nets.is_empty(), "a board context needs a network");
        config.members = nets.len();
        BoardContext {
            config,
            nets,
            device,
        }
    }

    /// The settings.
    pub fn config(&self) -> &BoardContextConfig {
        &self.config
    }

    /// The members' networks.
    pub fn nets(&self) -> &[BoardContextNet] {
        &self.nets
    }

    /// The correction for scaled inputs `x` `[squares, input_len]`: the members' mean.
    pub fn correction(&self, x: Tensor<2>) -> Tensor<2> {
        let mut sum = self.nets[0].forward(x.clone());
        for net in &self.nets[1..] {
            sum = sum.add(net.forward(x.clone()));
        }
        sum.div_scalar(self.nets.len() as f32)
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
        let (mut rows, read) = board_inputs(reading, self.config.look_alikes);
        if read.is_empty() {
            return probs;
        }
        let len = self.config.input_len();
        Self::scale(&self.config, &mut rows);
        let x = Tensor::<2>::from_data(TensorData::new(rows, [read.len(), len]), &self.device);
        let base: Vec<f32> = read
            .iter()
            .flat_map(|&i| probs[i].map(|p| p.max(1e-6).ln()))
            .collect();
        let base = Tensor::<2>::from_data(TensorData::new(base, [read.len(), 13]), &self.device);
        let fixed = corrected_log_probs(self.config.scope, base, self.correction(x));
        let Ok(fixed) = fixed.into_data().convert::<f32>().try_into_vec::<f32>() else {
            return probs;
        };
        for (&i, logits) in read.iter().zip(fixed.chunks(13)) {
            let logits: [f32; 13] = std::array::from_fn(|k| logits[k]);
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
        let mut value: serde_json::Value =
            serde_json::from_str(config_text).map_err(|e| bad(e.to_string()))?;
        // Settings added after the first fitted corrections, with the meaning they had.
        if let Some(fields) = value.as_object_mut() {
            fields.entry("scope").or_insert_with(|| "full".into());
            fields.entry("look_alikes").or_insert_with(|| false.into());
            fields.entry("members").or_insert_with(|| 1.into());
        }
        let config: BoardContextConfig =
            serde_json::from_value(value).map_err(|e| bad(e.to_string()))?;
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
            || config.members == 0
            || config.input_mean.len() != len
            || config.input_scale.len() != len
        {
            return Err(bad(format!(
                "need features, hidden and members of at least 1 and {len} input statistics each"
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
        // One member is stored as its network alone (as before members existed).
        let nets = if config.members == 1 {
            vec![load_into(config.init(device), record, weights)?]
        } else {
            let members = BoardContextMembers {
                members: (0..config.members).map(|_| config.init(device)).collect(),
            };
            load_into(members, record, weights)?.members
        };
        Ok(BoardContext::new(config, nets, device.clone()))
    }

    /// Writes both files into `dir`, each atomically.
    pub fn save(&self, dir: &Path) -> Result<(), CheckpointError> {
        let write_err = |path: &Path, reason: String| CheckpointError::Write {
            path: path.to_path_buf(),
            reason,
        };
        std::fs::create_dir_all(dir).map_err(|e| write_err(dir, e.to_string()))?;
        let path = dir.join(BOARD_CONTEXT_WEIGHTS);
        let record = match self.nets.as_slice() {
            [net] => net.clone().into_record(),
            nets => BoardContextMembers {
                members: nets.to_vec(),
            }
            .into_record(),
        };
        let bytes = record
            .into_bytes()
            .map_err(|e| write_err(&path, e.to_string()))?;
        crate::io::atomic_write(&path, &bytes).map_err(|e| write_err(&path, e.to_string()))?;
        let path = dir.join(BOARD_CONTEXT_CONFIG);
        let text = serde_json::to_string_pretty(&self.config)
            .map_err(|e| write_err(&path, e.to_string()))?;
        crate::io::atomic_write(&path, text.as_bytes()).map_err(|e| write_err(&path, e.to_string()))
    }
}

#[cfg(test)]
mod tests;
