//! Fitting the board-context correction ([`crate::classifier::board_context`]) for a
//! trained pair: synthetic boards are read whole by the checkpoint as infer reads them, and
//! the correction is fitted on those readings (the models stay as they are).

use burn::module::Module;
use burn::nn::loss::CrossEntropyLossConfig;
use burn::optim::decay::WeightDecayConfig;
use burn::optim::{AdamConfig, GradientsParams};
use burn::prelude::*;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::{TrainError, TrainingConfig};
use crate::classifier::Classifier;
use crate::classifier::board_context::{
    BoardContext, BoardContextConfig, BoardContextNet, CorrectionScope, board_inputs,
    corrected_log_probs,
};
use crate::classifier::seeded::seeded_module;
use crate::dataset::writer::board_squares;
use crate::render::Renderer;

/// Seeds of the fitting boards and of the boards that pick the epoch (never the
/// validation sets' seeds).
const FIT_SEED: u64 = 0xC0_47E7_0001;
const PICK_SEED: u64 = 0xC0_47E7_0002;

/// How the correction is fitted.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BoardContextFit {
    /// Boards read for fitting.
    pub boards: u64,
    /// Further boards that choose the epoch kept (the best loss on them).
    pub pick_boards: u64,
    /// Passes over the fitting squares.
    pub epochs: usize,
    /// Squares per step.
    pub batch_size: usize,
    /// Adam's learning rate.
    pub learning_rate: f64,
    /// Adam's weight decay (0: none).
    pub weight_decay: f64,
    /// Hidden units of the network.
    pub hidden: usize,
    /// Seed of the weights and the order (the boards have fixed seeds); member k uses
    /// `seed + k`.
    pub seed: u64,
    /// Networks fitted on the same readings from different seeds; their corrections are
    /// averaged.
    pub members: usize,
    /// What the correction may change.
    pub scope: CorrectionScope,
    /// Whether each square also sees its look-alikes on the board.
    pub look_alikes: bool,
    /// Share of the fitting boards that are free placements (any pieces in any number),
    /// taken from the config's random games, so the correction never learns that a board
    /// must be legal.
    pub free_placement: f64,
}

impl Default for BoardContextFit {
    fn default() -> Self {
        BoardContextFit {
            boards: 3000,
            pick_boards: 300,
            epochs: 30,
            batch_size: 512,
            learning_rate: 1e-3,
            weight_decay: 0.0,
            hidden: 32,
            seed: 1,
            members: 1,
            scope: CorrectionScope::Full,
            look_alikes: false,
            free_placement: 0.25,
        }
    }
}

/// The read squares of many boards: network inputs (unscaled), base log-probabilities
/// and true classes; plus every square's true and base class, for whole-board figures.
#[derive(Default)]
pub struct BoardReadings {
    /// Board index of each read square.
    pub board: Vec<u32>,
    /// Its square (reading order on the image).
    pub square: Vec<u8>,
    /// Inputs, `input_len` per read square.
    pub rows: Vec<f32>,
    /// True class per read square.
    pub labels: Vec<u8>,
    /// Per board: 64 true classes and 64 classes as the pair read them.
    pub boards: Vec<(Vec<u8>, Vec<u8>)>,
}

/// Reads boards `0..count` of `seed` drawn by `renderer` with `classifier` (its board
/// context, if any, ignored), cut as `cfg` trains; inputs with look-alikes if asked.
pub fn read_boards(
    classifier: &Classifier,
    renderer: &Renderer,
    cfg: &TrainingConfig,
    (seed, count): (u64, u64),
    look_alikes: bool,
) -> BoardReadings {
    let per_board: Vec<_> = (0..count)
        .into_par_iter()
        .map(|i| {
            let board = board_squares(renderer, seed, i, &cfg.crop, cfg.corner_jitter);
            if board.crops.len() != 64 {
                return None;
            }
            let reading = classifier.reading(&board.crops);
            let (rows, read) = board_inputs(&reading, look_alikes);
            let truth: Vec<u8> = board.classes.iter().map(|c| c.index() as u8).collect();
            let base: Vec<u8> = reading.probs.iter().map(|p| argmax(p) as u8).collect();
            let labels: Vec<u8> = read.iter().map(|&k| truth[k]).collect();
            let squares: Vec<u8> = read.iter().map(|&k| k as u8).collect();
            Some((rows, labels, squares, truth, base))
        })
        .collect();
    let mut out = BoardReadings::default();
    for (b, (rows, labels, squares, truth, base)) in per_board.into_iter().flatten().enumerate() {
        out.board
            .extend(std::iter::repeat_n(b as u32, labels.len()));
        out.square.extend(squares);
        out.rows.extend(rows);
        out.labels.extend(labels);
        out.boards.push((truth, base));
    }
    out
}

/// Square accuracy and exact boards of a reading with and without the correction.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ContextFigures {
    /// Boards.
    pub boards: usize,
    /// Squares right as the pair reads them.
    pub base_squares_right: usize,
    /// Squares right after the correction.
    pub squares_right: usize,
    /// Boards exact as the pair reads them.
    pub base_exact: usize,
    /// Boards exact after the correction.
    pub exact: usize,
}

/// Measures `context` on `readings`.
pub fn measure(context: &BoardContext, readings: &BoardReadings) -> ContextFigures {
    let len = context.config().input_len();
    let features = context.config().features;
    let mut rows = readings.rows.clone();
    BoardContext::scale(context.config(), &mut rows);
    let m = readings.labels.len();
    let device = context.device();
    let x = Tensor::<2>::from_data(TensorData::new(rows, [m, len]), device);
    let base = base_log_probs(&readings.rows, len, features);
    let base = Tensor::<2>::from_data(TensorData::new(base, [m, 13]), device);
    let fixed: Vec<f32> = corrected_log_probs(context.config().scope, base, context.correction(x))
        .into_data()
        .convert::<f32>()
        .try_into_vec::<f32>()
        .unwrap_or_default();
    let mut after: Vec<Vec<u8>> = readings.boards.iter().map(|(_, b)| b.clone()).collect();
    for (k, logits) in fixed.chunks(13).enumerate() {
        let logits: [f32; 13] = std::array::from_fn(|j| logits[j]);
        let b = readings.board[k] as usize;
        after[b][readings.square[k] as usize] = argmax(&logits) as u8;
    }
    let mut figures = ContextFigures {
        boards: readings.boards.len(),
        ..ContextFigures::default()
    };
    for ((truth, base), fixed) in readings.boards.iter().zip(&after) {
        let right = |p: &[u8]| truth.iter().zip(p).filter(|(t, q)| t == q).count();
        figures.base_squares_right += right(base);
        figures.squares_right += right(fixed);
        figures.base_exact += usize::from(truth == base);
        figures.exact += usize::from(truth == fixed);
    }
    figures
}

/// The model's log-probabilities, stored in each input row after the three feature blocks.
fn base_log_probs(rows: &[f32], len: usize, features: usize) -> Vec<f32> {
    rows.chunks(len)
        .flat_map(|row| row[3 * features..3 * features + 13].iter().copied())
        .collect()
}

fn argmax(p: &[f32; 13]) -> usize {
    (0..13).max_by(|&a, &b| p[a].total_cmp(&p[b])).unwrap_or(0)
}

/// Fits a correction for `classifier` on boards drawn by `renderer`.
pub fn fit_board_context(
    classifier: &Classifier,
    renderer: &Renderer,
    cfg: &TrainingConfig,
    fit: &BoardContextFit,
    progress: &(dyn Fn(&str) + Sync),
) -> Result<BoardContext, TrainError> {
    let features = classifier.spec().model.widths.last().copied().unwrap_or(0);
    progress(&format!("reading {} boards to fit on", fit.boards));
    let train = read_boards(
        classifier,
        renderer,
        cfg,
        (FIT_SEED, fit.boards),
        fit.look_alikes,
    );
    progress(&format!(
        "reading {} boards to pick the epoch",
        fit.pick_boards
    ));
    let pick = read_boards(
        classifier,
        renderer,
        cfg,
        (PICK_SEED, fit.pick_boards),
        fit.look_alikes,
    );
    let mut config = BoardContextConfig::new(features)
        .with_hidden(fit.hidden)
        .with_scope(fit.scope)
        .with_look_alikes(fit.look_alikes);
    let len = config.input_len();
    let n = train.labels.len();
    if n == 0 {
        return Err(TrainError::Config("no squares to fit on".into()));
    }
    // Standardise each input over the fitting squares.
    let mut mean = vec![0f64; len];
    let mut sq = vec![0f64; len];
    for row in train.rows.chunks(len) {
        for (k, &v) in row.iter().enumerate() {
            mean[k] += f64::from(v);
            sq[k] += f64::from(v) * f64::from(v);
        }
    }
    config.input_mean = mean.iter().map(|m| (m / n as f64) as f32).collect();
    config.input_scale = (0..len)
        .map(|k| {
            let m = mean[k] / n as f64;
            let var = (sq[k] / n as f64 - m * m).max(0.0);
            (1.0 / var.sqrt().max(1e-3)) as f32
        })
        .collect();

    if fit.members == 0 {
        return Err(TrainError::Config("a board context needs a member".into()));
    }
    let device = classifier.device().clone();
    // Built once, shared by the members.
    let train = fit_tensors(&config, &train, &device.clone().autodiff());
    let pick = fit_tensors(&config, &pick, &device);
    let nets = (0..fit.members as u64)
        .map(|k| {
            if fit.members > 1 {
                progress(&format!("member {}/{}", k + 1, fit.members));
            }
            fit_member(
                &config,
                fit,
                fit.seed + k,
                (&train, &pick),
                &device,
                progress,
            )
        })
        .collect();
    Ok(BoardContext::new(config, nets, device))
}

/// Scaled inputs, base log-probabilities and true classes of read squares.
type FitTensors = (Tensor<2>, Tensor<2>, Tensor<1, Int>);

/// `readings` as tensors on `device`, inputs scaled as `config` says.
fn fit_tensors(config: &BoardContextConfig, r: &BoardReadings, device: &Device) -> FitTensors {
    let len = config.input_len();
    let mut rows = r.rows.clone();
    BoardContext::scale(config, &mut rows);
    let base = base_log_probs(&r.rows, len, config.features);
    let m = r.labels.len();
    (
        Tensor::<2>::from_data(TensorData::new(rows, [m, len]), device),
        Tensor::<2>::from_data(TensorData::new(base, [m, 13]), device),
        Tensor::<1, Int>::from_data(
            TensorData::new(r.labels.iter().map(|&l| i64::from(l)).collect(), [m]),
            device,
        ),
    )
}

/// Fits one network of `config` from `seed` on `train` (on the autodiff device), keeping
/// the epoch best on `pick`.
fn fit_member(
    config: &BoardContextConfig,
    fit: &BoardContextFit,
    seed: u64,
    (train, pick): (&FitTensors, &FitTensors),
    device: &Device,
    progress: &(dyn Fn(&str) + Sync),
) -> BoardContextNet {
    let n = train.2.dims()[0];
    let ad = device.clone().autodiff();
    let mut net: BoardContextNet = seeded_module(&ad, seed, || config.init(&ad));
    let mut optim = AdamConfig::new()
        .with_weight_decay(
            (fit.weight_decay > 0.0).then(|| WeightDecayConfig::new(fit.weight_decay as f32)),
        )
        .init();
    let loss_fn = CrossEntropyLossConfig::new().init(&ad);
    let (x, base, y) = train;
    let (px, pbase, py) = pick;
    let pick_loss = |net: &BoardContextNet| -> f32 {
        let valid = net.valid();
        let logits = corrected_log_probs(fit.scope, pbase.clone(), valid.forward(px.clone()));
        CrossEntropyLossConfig::new()
            .init(device)
            .forward(logits, py.clone())
            .into_scalar::<f32>()
    };
    let mut best = (pick_loss(&net), net.valid());
    progress(&format!("pick loss before fitting {:.5}", best.0));
    let mut order: Vec<usize> = (0..n).collect();
    let mut rng_state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    for epoch in 0..fit.epochs {
        // A seeded shuffle (xorshift) of the squares.
        for i in (1..n).rev() {
            rng_state ^= rng_state << 13;
            rng_state ^= rng_state >> 7;
            rng_state ^= rng_state << 17;
            order.swap(i, (rng_state % (i as u64 + 1)) as usize);
        }
        for chunk in order.chunks(fit.batch_size) {
            let idx = Tensor::<1, Int>::from_data(
                TensorData::new(chunk.iter().map(|&i| i as i64).collect(), [chunk.len()]),
                &ad,
            );
            let xb = x.clone().select(0, idx.clone());
            let bb = base.clone().select(0, idx.clone());
            let yb = y.clone().select(0, idx);
            let logits = corrected_log_probs(fit.scope, bb, net.forward(xb));
            let loss = loss_fn.forward(logits, yb);
            let grads = GradientsParams::from_grads(loss.backward(), &net);
            net = optim.step(fit.learning_rate, net, grads);
        }
        let l = pick_loss(&net);
        progress(&format!(
            "epoch {}/{}: pick loss {l:.5}",
            epoch + 1,
            fit.epochs
        ));
        if l < best.0 {
            best = (l, net.valid());
        }
    }
    best.1
}

/// `synth` with `share` of its boards free placements, taken from its random games.
fn with_free_placements(
    mut synth: crate::render::SynthConfig,
    share: f64,
) -> crate::render::SynthConfig {
    let positions = &mut synth.positions;
    let share = share.clamp(0.0, 1.0);
    positions.free_placement = share;
    positions.random_placement = positions.random_placement.min(1.0 - share);
    positions.thinned_game = positions
        .thinned_game
        .min(1.0 - share - positions.random_placement);
    synth
}

/// What [`fit_and_measure`] measured: the fixed validation sets (a) and (b) read as whole
/// boards, with and without the correction.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct ContextReport {
    /// How it was fitted.
    pub fit: BoardContextFit,
    /// Set name and figures.
    pub validation: Vec<(String, ContextFigures)>,
}

/// Fits a correction for `classifier` on `train_sets`' boards (drawn with `cfg.synth`,
/// training augmentations included) and measures it on the validation sets (a) and (b)
/// (without them; (b) drawn with `heldout_sets` when given).
pub fn fit_and_measure(
    classifier: &Classifier,
    train_sets: Vec<crate::render::PieceSet>,
    heldout_sets: Vec<crate::render::PieceSet>,
    cfg: &TrainingConfig,
    fit: &BoardContextFit,
    progress: &(dyn Fn(&str) + Sync),
) -> Result<(BoardContext, ContextReport), TrainError> {
    if let Some(why) = cfg.synth.squares_refused() {
        return Err(TrainError::Config(format!("synth: {why}")));
    }
    let renderer = Renderer::new(train_sets, cfg.synth).map_err(TrainError::Config)?;
    let fitting = renderer
        .with_config(with_free_placements(cfg.synth, fit.free_placement))
        .map_err(TrainError::Config)?;
    let context = fit_board_context(classifier, &fitting, cfg, fit, progress)?;
    let val_synth = cfg.synth.without_training_augmentations();
    let mut report = ContextReport {
        fit: fit.clone(),
        validation: Vec::new(),
    };
    let mut measure_set = |name: &str, renderer: &Renderer, seed: u64| {
        let readings = read_boards(
            classifier,
            renderer,
            cfg,
            (seed, cfg.val_boards),
            fit.look_alikes,
        );
        report
            .validation
            .push((name.into(), measure(&context, &readings)));
    };
    let a = renderer
        .with_config(val_synth)
        .map_err(TrainError::Config)?;
    measure_set("a", &a, super::validate::VAL_A_SEED);
    // The same looks on free placements: what the correction does to odd boards.
    let a_free = renderer
        .with_config(with_free_placements(val_synth, 1.0))
        .map_err(TrainError::Config)?;
    measure_set("a-free", &a_free, super::validate::VAL_A_SEED);
    if !heldout_sets.is_empty() {
        let b = Renderer::new(heldout_sets, val_synth).map_err(TrainError::Config)?;
        measure_set("b", &b, super::validate::VAL_B_SEED);
    }
    Ok((context, report))
}
