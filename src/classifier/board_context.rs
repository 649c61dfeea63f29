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
mod tests {
    use super::*;
    use crate::classifier::seeded::seeded_module;

    /// A fresh directory under the system temp dir, removed on drop.
    struct Scratch(PathBuf);

    impl Scratch {
        fn new(tag: &str) -> Scratch {
            let dir = std::env::temp_dir().join(format!(
                "fenscan-board-context-{tag}-{}",
                std::process::id()
            ));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).unwrap();
            Scratch(dir)
        }

        fn path(&self) -> &Path {
            &self.0
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    /// A whole board read by a pretend model: kings on e1 and e8, a white rook on a1, the
    /// rest empty; features are small distinct numbers.
    fn board(features: usize, pieces: &[(usize, usize)]) -> Reading {
        let mut probs = vec![[0.01f32 / 12.0; 13]; 64];
        for p in probs.iter_mut() {
            p[0] = 0.99;
        }
        for &(square, class) in pieces {
            probs[square] = [0.02 / 12.0; 13];
            probs[square][class] = 0.98;
        }
        Reading {
            probs,
            features: (0..64 * features).map(|i| (i % 7) as f32 * 0.1).collect(),
            feature_len: features,
            read: vec![true; 64],
        }
    }

    fn position(features: usize) -> Reading {
        board(features, &[(4, 6), (60, 12), (0, 4)])
    }

    fn context(scope: CorrectionScope, seed: u64) -> BoardContext {
        let device = Device::flex();
        let mut config = BoardContextConfig::new(4).with_hidden(8).with_scope(scope);
        let len = config.input_len();
        config.input_mean = vec![0.1; len];
        config.input_scale = vec![0.5; len];
        let net = seeded_module(&device, seed, || config.init(&device));
        BoardContext::new(config, vec![net], device)
    }

    /// `context` with its zero output layer replaced by random weights.
    fn randomised(context: BoardContext, seed: u64) -> BoardContext {
        let device = context.device().clone();
        let config = context.config().clone();
        let net = seeded_module(&device, seed, || {
            let mut net = config.init(&device);
            net.out = LinearConfig::new(config.hidden, config.scope.outputs()).init(&device);
            net
        });
        BoardContext::new(config, vec![net], device)
    }

    fn largest_change(a: &[[f32; 13]], b: &[[f32; 13]]) -> f32 {
        a.iter()
            .flatten()
            .zip(b.iter().flatten())
            .map(|(x, y)| (x - y).abs())
            .fold(0.0, f32::max)
    }

    #[test]
    fn an_unfitted_correction_changes_nothing() {
        for scope in [CorrectionScope::Full, CorrectionScope::Colour] {
            let reading = position(4);
            let fixed = context(scope, 1).apply(&reading);
            assert!(largest_change(&fixed, &reading.probs) < 1e-5, "{scope:?}");
        }
    }

    #[test]
    fn a_fitted_correction_changes_positions_but_not_odd_boards() {
        let context = randomised(context(CorrectionScope::Full, 2), 3);
        let reading = position(4);
        assert!(largest_change(&context.apply(&reading), &reading.probs) > 1e-3);
        // A gallery of white queens, a board without kings, a wrong feature width.
        let gallery = board(4, &(0..40).map(|s| (s, 5)).collect::<Vec<_>>());
        let lone_knight = board(4, &[(27, 2)]);
        for odd in [gallery, lone_knight, position(5)] {
            assert_eq!(context.apply(&odd), odd.probs);
        }
    }

    #[test]
    fn boards_that_read_like_positions() {
        let probs = |pieces: &[(usize, usize)]| board(1, pieces).probs;
        assert!(reads_like_a_position(&probs(&[(4, 6), (60, 12)])));
        // A king read in the wrong colour still counts: it is what the correction fixes.
        assert!(reads_like_a_position(&probs(&[(4, 12), (60, 12)])));
        assert!(!reads_like_a_position(&probs(&[])));
        assert!(!reads_like_a_position(&probs(&[
            (4, 6),
            (5, 6),
            (6, 6),
            (60, 12)
        ])));
        let crowd: Vec<(usize, usize)> =
            (0..19).map(|s| (s, 1)).chain([(60, 12), (40, 6)]).collect();
        assert!(!reads_like_a_position(&probs(&crowd)));
    }

    #[test]
    fn the_colour_scope_keeps_empty_squares_and_piece_kinds() {
        let context = randomised(context(CorrectionScope::Colour, 4), 5);
        let mut reading = position(4);
        // An unsure square: knight or bishop, either colour, or empty.
        reading.probs[20] = [
            0.2, 0.0, 0.3, 0.1, 0.0, 0.0, 0.0, 0.0, 0.1, 0.3, 0.0, 0.0, 0.0,
        ];
        let fixed = context.apply(&reading);
        assert!(largest_change(&fixed, &reading.probs) > 1e-3);
        for (before, after) in reading.probs.iter().zip(&fixed) {
            assert!((before[0] - after[0]).abs() < 1e-4);
            for kind in 1..7 {
                let pair = |p: &[f32; 13]| p[kind] + p[kind + 6];
                assert!((pair(before) - pair(after)).abs() < 1e-4, "kind {kind}");
            }
        }
    }

    #[test]
    fn saved_and_loaded_it_corrects_the_same() {
        let dir = Scratch::new("saved");
        let context = randomised(context(CorrectionScope::Full, 6), 7);
        context.save(dir.path()).unwrap();
        let loaded = BoardContext::load(dir.path(), &Device::flex())
            .unwrap()
            .expect("saved files");
        assert_eq!(loaded.config(), context.config());
        let reading = position(4);
        assert!(largest_change(&loaded.apply(&reading), &context.apply(&reading)) < 1e-6);
        assert!(
            BoardContext::load(&dir.path().join("none"), &Device::flex())
                .unwrap()
                .is_none()
        );
    }

    /// One correction of `nets`' members.
    fn members(nets: &[BoardContextNet]) -> BoardContext {
        let one = context(CorrectionScope::Full, 20);
        BoardContext::new(one.config().clone(), nets.to_vec(), one.device().clone())
    }

    #[test]
    fn members_average_their_corrections_and_survive_a_save() {
        let nets: Vec<BoardContextNet> = [21, 22]
            .iter()
            .map(|&s| randomised(context(CorrectionScope::Full, s), s + 100).nets()[0].clone())
            .collect();
        let both = members(&nets);
        assert_eq!(both.config().members, 2);
        let input = |c: &BoardContext| {
            let len = c.config().input_len();
            let v: Vec<f32> = (0..3 * len)
                .map(|i| ((i % 11) as f32 - 5.0) / 3.0)
                .collect();
            Tensor::<2>::from_data(TensorData::new(v, [3, len]), c.device())
        };
        let out = |c: &BoardContext| {
            c.correction(input(c))
                .into_data()
                .try_to_vec::<f32>()
                .unwrap()
        };
        let mean = out(&both);
        let (a, b) = (out(&members(&nets[..1])), out(&members(&nets[1..])));
        for ((m, x), y) in mean.iter().zip(&a).zip(&b) {
            assert!((m - (x + y) / 2.0).abs() < 1e-5);
        }
        assert!(a.iter().zip(&b).any(|(x, y)| (x - y).abs() > 1e-3));
        let dir = Scratch::new("members");
        both.save(dir.path()).unwrap();
        let loaded = BoardContext::load(dir.path(), &Device::flex())
            .unwrap()
            .unwrap();
        assert_eq!(loaded.config(), both.config());
        let reading = position(4);
        assert!(largest_change(&loaded.apply(&reading), &both.apply(&reading)) < 1e-6);
        // Weights of two members under a config that says three.
        let path = dir.path().join(BOARD_CONTEXT_CONFIG);
        let mut config = both.config().clone();
        config.members = 3;
        std::fs::write(&path, serde_json::to_string(&config).unwrap()).unwrap();
        let err = BoardContext::load(dir.path(), &Device::flex()).unwrap_err();
        assert!(matches!(err, CheckpointError::Weights { .. }), "{err}");
    }

    #[test]
    fn settings_added_later_default_to_their_old_meaning() {
        let dir = Scratch::new("older");
        let context = randomised(context(CorrectionScope::Full, 10), 11);
        context.save(dir.path()).unwrap();
        let path = dir.path().join(BOARD_CONTEXT_CONFIG);
        let mut value: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let fields = value.as_object_mut().unwrap();
        fields.remove("scope");
        fields.remove("look_alikes");
        fields.remove("members");
        std::fs::write(&path, value.to_string()).unwrap();
        let loaded = BoardContext::load(dir.path(), &Device::flex())
            .unwrap()
            .unwrap();
        assert_eq!(loaded.config(), context.config());
    }

    #[test]
    fn damaged_files_are_clear_errors() {
        let dir = Scratch::new("damaged");
        randomised(context(CorrectionScope::Full, 8), 9)
            .save(dir.path())
            .unwrap();
        let weights = dir.path().join(BOARD_CONTEXT_WEIGHTS);
        let bytes = std::fs::read(&weights).unwrap();
        std::fs::write(&weights, &bytes[..bytes.len() / 2]).unwrap();
        let err = BoardContext::load(dir.path(), &Device::flex()).unwrap_err();
        assert!(matches!(err, CheckpointError::Weights { .. }), "{err}");
        let config = dir.path().join(BOARD_CONTEXT_CONFIG);
        let no_statistics = r#"{"format_version": 1, "features": 4, "hidden": 8,
            "scope": "full", "input_mean": [], "input_scale": []}"#;
        std::fs::write(&config, no_statistics).unwrap();
        let err = BoardContext::load(dir.path(), &Device::flex()).unwrap_err();
        assert!(err.to_string().contains("input statistics"), "{err}");
        std::fs::write(&config, "not json").unwrap();
        let err = BoardContext::load(dir.path(), &Device::flex()).unwrap_err();
        assert!(matches!(err, CheckpointError::BadConfig { .. }), "{err}");
    }
}
