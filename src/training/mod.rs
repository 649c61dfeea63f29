//! Fitting the square classifier: a custom loop (indicatif-friendly progress, step
//! checkpoints, Ctrl-C, `--resume`), fresh synthetic data every epoch, fixed validation sets.

pub mod board_context;
pub mod card;
pub mod data;
pub mod eval;
pub mod mistakes;
mod start;
mod validate;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::Instant;

use burn::module::Module;
use burn::nn::loss::CrossEntropyLossConfig;
use burn::optim::{AdamConfig, GradientsParams};
use burn::prelude::*;
use serde::{Deserialize, Serialize};

use crate::classifier::checkpoint::{FORMAT_VERSION, ModelSpec, save_model};
use crate::classifier::model::{SquareClassifier, SquareClassifierConfig};
use crate::classifier::{Backend, CheckpointError};
use crate::render::{PieceSet, Renderer, SynthConfig};
use crate::squares::CropConfig;
pub use card::{ModelCard, write_card};
use data::{SquareSampling, SquareSet, make_squares, shuffled};

/// Everything that defines a training run; saved as `training.json` beside the weights.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TrainingConfig {
    /// Architecture.
    pub model: SquareClassifierConfig,
    /// Crop geometry (the crop size must equal the model's input size).
    pub crop: CropConfig,
    /// How training boards are rendered.
    pub synth: SynthConfig,
    /// Seed of everything: initial weights, data, order.
    pub seed: u64,
    /// Optimiser steps.
    pub steps: u64,
    /// Crops per step.
    pub batch_size: usize,
    /// Peak learning rate (Adam), reached after a linear warm-up.
    pub learning_rate: f64,
    /// Warm-up steps.
    pub warmup_steps: u64,
    /// Boards rendered per data epoch.
    pub boards_per_epoch: u64,
    /// Steps taken on one data epoch before the next replaces it.
    pub steps_per_epoch: u64,
    /// Share of empty squares kept in training data.
    pub empty_keep: f64,
    /// Largest simulated board-finder corner error, as a fraction of a square.
    pub corner_jitter: f32,
    /// Save a checkpoint every this many steps.
    pub checkpoint_every: u64,
    /// Boards in each validation set (150: 9,600 squares; fewer boards make the accuracy
    /// swing by tenths of a percent between seeds, as one odd board moves it).
    pub val_boards: u64,
}

impl Default for TrainingConfig {
    fn default() -> Self {
        let mut synth = SynthConfig::default();
        // The classifier sees 32-pixel crops: boards beyond ~640 px only cost render time.
        synth.scene.max_board = 640;
        synth.scene.cropped = 0.6;
        TrainingConfig {
            model: SquareClassifierConfig::new(),
            crop: CropConfig::default(),
            synth,
            seed: 1,
            steps: 8000,
            batch_size: 128,
            learning_rate: 3e-3,
            warmup_steps: 200,
            boards_per_epoch: 240,
            steps_per_epoch: 150,
            empty_keep: 0.35,
            corner_jitter: 0.06,
            checkpoint_every: 250,
            val_boards: 150,
        }
    }
}

impl TrainingConfig {
    /// The model description infer needs.
    pub fn spec(&self) -> ModelSpec {
        ModelSpec {
            format_version: FORMAT_VERSION,
            model: self.model.clone(),
            crop: self.crop,
        }
    }

    fn sampling(&self, empty_keep: f64) -> SquareSampling {
        SquareSampling {
            crop: self.crop,
            corner_jitter: self.corner_jitter,
            empty_keep,
        }
    }

    /// Learning rate at `step`: linear warm-up, then cosine decay to 2% of the peak.
    pub fn learning_rate_at(&self, step: u64) -> f64 {
        if step < self.warmup_steps {
            return self.learning_rate * (step + 1) as f64 / self.warmup_steps as f64;
        }
        let t = (step - self.warmup_steps) as f64
            / (self.steps.saturating_sub(self.warmup_steps)).max(1) as f64;
        let cos = 0.5 * (1.0 + (std::f64::consts::PI * t.min(1.0)).cos());
        self.learning_rate * (0.02 + 0.98 * cos)
    }

    fn validate(&self) -> Result<(), TrainError> {
        let bad = |s: &str| Err(TrainError::Config(s.to_string()));
        if self.crop.size as usize != self.model.input_size {
            return bad("crop.size must equal model.input_size");
        }
        self.crop.validate().map_err(TrainError::Config)?;
        if self.batch_size == 0
            || self.steps_per_epoch == 0
            || self.boards_per_epoch == 0
            || self.checkpoint_every == 0
        {
            return bad(
                "batch_size, steps_per_epoch, boards_per_epoch and checkpoint_every must be at least 1",
            );
        }
        if !(0.0..=1.0).contains(&self.empty_keep) {
            return bad("empty_keep must be between 0 and 1");
        }
        self.synth.validate().map_err(TrainError::Config)?;
        match self.synth.squares_refused() {
            Some(why) => Err(TrainError::Config(format!("synth: {why}"))),
            None => Ok(()),
        }
    }
}

/// Why training failed.
#[derive(Debug, thiserror::Error)]
pub enum TrainError {
    /// A bad configuration value.
    #[error("invalid training configuration: {0}")]
    Config(String),
    /// The chosen compute backend cannot run here (no GPU, or not built in).
    #[error("{0}")]
    Backend(String),
    /// A checkpoint could not be read or written.
    #[error(transparent)]
    Checkpoint(#[from] CheckpointError),
    /// The output folder holds something unexpected.
    #[error("{0}")]
    Output(String),
    /// File error.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
}

/// Where and how to run.
pub struct RunOptions {
    /// Output checkpoint folder.
    pub out: PathBuf,
    /// Start from this checkpoint's weights (fine-tuning).
    pub init: Option<PathBuf>,
    /// Average the `init` weights with this checkpoint's (same architecture), the share
    /// given to it in 0..=1: a fine-tune averaged with the model it started from.
    pub average_with: Option<(PathBuf, f32)>,
    /// Continue an interrupted run in `out`.
    pub resume: bool,
    /// Compute backend.
    pub backend: Backend,
    /// Piece sets to train on.
    pub train_sets: Vec<PieceSet>,
    /// Piece sets held out of training, for validation set (b).
    pub heldout_sets: Vec<PieceSet>,
    /// Also write `mistakes-a.png` / `mistakes-b.png` (the misclassified validation crops)
    /// and `mistakes-a.jsonl` / `mistakes-b.jsonl` (a line each: board, row, column, classes).
    pub mistake_sheets: bool,
}

/// A progress report, sent every few steps.
#[derive(Clone, Debug, Serialize)]
pub struct Progress {
    /// Steps done.
    pub step: u64,
    /// Total steps.
    pub steps: u64,
    /// Mean loss since the last report.
    pub loss: f64,
    /// Training accuracy since the last report.
    pub accuracy: f64,
    /// Learning rate.
    pub learning_rate: f64,
    /// Training crops per second since the last report.
    pub samples_per_second: f64,
    /// What is happening (`training`, `validating`, ...).
    pub phase: String,
}

#[derive(Serialize, Deserialize)]
struct RunState {
    step: u64,
    config: TrainingConfig,
}

/// Trains per `cfg` and `run`; `stop` is polled every step (Ctrl-C): when set, a checkpoint
/// is written and the function returns early with `Ok(None)`.
pub fn train(
    cfg: &TrainingConfig,
    mut run: RunOptions,
    stop: &AtomicBool,
    progress: &(dyn Fn(&Progress) + Sync),
) -> Result<Option<ModelCard>, TrainError> {
    cfg.validate()?;
    let device = run.backend.device().map_err(TrainError::Backend)?;
    let train_device = device.clone().autodiff();
    // `run` is handed on whole at the end; the folder is kept apart.
    let out_dir = run.out.clone();
    let out = out_dir.as_path();
    let state_path = out.join("state.json");
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| TrainError::Io { path, source }
    };

    let (mut model, start_step) = start::starting_model(cfg, &run, &train_device)?;
    std::fs::create_dir_all(out).map_err(io(out))?;
    let training_json = out.join("training.json");
    crate::io::atomic_write(
        &training_json,
        serde_json::to_string_pretty(cfg)
            .unwrap_or_default()
            .as_bytes(),
    )
    .map_err(io(&training_json))?;
    save_model(out, &cfg.spec(), &model)?;

    let train_names: Vec<String> = run.train_sets.iter().map(|s| s.name.clone()).collect();
    let heldout_names: Vec<String> = run.heldout_sets.iter().map(|s| s.name.clone()).collect();
    let renderer = std::sync::Arc::new(
        Renderer::new(std::mem::take(&mut run.train_sets), cfg.synth)
            .map_err(TrainError::Config)?,
    );

    let mut optim = AdamConfig::new().init();
    let optim_path = out.join("optimizer.bpk");
    if run.resume
        && optim_path.is_file()
        && let Ok(record) = burn::optim::OptimizerRecord::load(&optim_path)
    {
        optim = optim.load_record(record);
    }
    let loss_fn = CrossEntropyLossConfig::new().init(&train_device);
    let metrics_path = out.join("metrics.jsonl");
    let mut metrics_log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&metrics_path)
        .map_err(io(&metrics_path))?;

    let (rx, producer) = spawn_epochs(renderer.clone(), cfg, start_step);

    let started = Instant::now();
    let mut step = start_step;
    // The running loss and hits stay on the device until a report: reading them every
    // step would make a GPU wait for each forward pass before the backward is queued.
    let (mut loss_sum, mut hits_sum): (Option<Tensor<1>>, Option<Tensor<1, Int>>) = (None, None);
    let (mut seen, mut t_report) = (0usize, Instant::now());
    let s = cfg.crop.size as usize;
    let mut interrupted = false;
    'epochs: while step < cfg.steps {
        let Ok((epoch, set)) = rx.recv() else { break };
        if set.is_empty() {
            continue;
        }
        let order = shuffled(set.len(), cfg.seed, epoch);
        let epoch_end = ((epoch + 1) * cfg.steps_per_epoch).min(cfg.steps);
        while step < epoch_end {
            if stop.load(Ordering::SeqCst) {
                interrupted = true;
                break 'epochs;
            }
            let offset = ((step % cfg.steps_per_epoch) as usize * cfg.batch_size) % set.len();
            let idx: Vec<usize> = (0..cfg.batch_size)
                .map(|k| order[(offset + k) % set.len()])
                .collect();
            let (x, y) = set.batch(&idx);
            let x = Tensor::<4>::from_data(TensorData::new(x, [idx.len(), 3, s, s]), &train_device);
            let y = Tensor::<1, Int>::from_data(TensorData::new(y, [idx.len()]), &train_device);
            let logits = model.forward(x);
            let loss = loss_fn.forward(logits.clone(), y.clone());
            let pred = logits.clone().argmax(1).reshape([idx.len()]);
            let hits = pred.equal(y).int().sum();
            let weighted = loss.clone().detach().mul_scalar(idx.len() as f32);
            hits_sum = Some(hits_sum.take().map_or(hits.clone(), |h| h + hits));
            loss_sum = Some(loss_sum.take().map_or(weighted.clone(), |l| l + weighted));
            seen += idx.len();
            let grads = GradientsParams::from_grads(loss.backward(), &model);
            let lr = cfg.learning_rate_at(step);
            model = optim.step(lr, model, grads);
            step += 1;
            if step % 25 == 0 || step == cfg.steps {
                let loss_total = loss_sum.take().map_or(0.0, |l| l.into_scalar::<f32>());
                let correct = hits_sum.take().map_or(0, |h| h.into_scalar::<i64>());
                let p = Progress {
                    step,
                    steps: cfg.steps,
                    loss: f64::from(loss_total) / seen.max(1) as f64,
                    accuracy: correct as f64 / seen.max(1) as f64,
                    learning_rate: lr,
                    samples_per_second: seen as f64 / t_report.elapsed().as_secs_f64().max(1e-9),
                    phase: "training".into(),
                };
                progress(&p);
                let _ = writeln!(
                    metrics_log,
                    "{}",
                    serde_json::to_string(&p).unwrap_or_default()
                );
                (seen, t_report) = (0, Instant::now());
            }
            if step % cfg.checkpoint_every == 0 && step < cfg.steps {
                checkpoint(out, cfg, &model, &optim, step)?;
            }
        }
    }
    drop(rx);
    let _ = producer.join();
    checkpoint(out, cfg, &model, &optim, step)?;
    if interrupted {
        return Ok(None);
    }

    progress(&Progress {
        step,
        steps: cfg.steps,
        loss: 0.0,
        accuracy: 0.0,
        learning_rate: 0.0,
        samples_per_second: 0.0,
        phase: "validating".into(),
    });
    let trained = validate::Trained {
        model: &model,
        steps: step,
        train_seconds: started.elapsed().as_secs_f64(),
        train_names,
        heldout_names,
    };
    let card = validate::validate(cfg, &mut run, &renderer, trained)?;
    write_card(out, &card)?;
    // The run is complete: resume state is no longer needed.
    let _ = std::fs::remove_file(&state_path);
    let _ = std::fs::remove_file(out.join("optimizer.bpk"));
    Ok(Some(card))
}

/// Renders the training epochs from `start_step`'s on a worker thread, one ahead of the
/// loop (a fresh, seeded set of squares each).
fn spawn_epochs(
    renderer: std::sync::Arc<Renderer>,
    cfg: &TrainingConfig,
    start_step: u64,
) -> (
    mpsc::Receiver<(u64, SquareSet)>,
    std::thread::JoinHandle<()>,
) {
    let (tx, rx) = mpsc::sync_channel::<(u64, SquareSet)>(1);
    let first_epoch = start_step / cfg.steps_per_epoch;
    let last_epoch = cfg.steps.saturating_sub(1) / cfg.steps_per_epoch;
    let sampling = cfg.sampling(cfg.empty_keep);
    let (seed, boards) = (cfg.seed, cfg.boards_per_epoch);
    // Nothing to render when there is nothing left to train (`--steps 0` only evaluates).
    let pending = start_step < cfg.steps;
    let producer = std::thread::spawn(move || {
        for epoch in (first_epoch..=last_epoch).filter(|_| pending) {
            let set = make_squares(
                &renderer,
                seed.wrapping_add(epoch.wrapping_mul(0x1000_0001)),
                boards,
                &sampling,
            );
            if tx.send((epoch, set)).is_err() {
                return;
            }
        }
    });
    (rx, producer)
}

fn checkpoint(
    out: &Path,
    cfg: &TrainingConfig,
    model: &SquareClassifier,
    optim: &burn::optim::ModuleOptimizer,
    step: u64,
) -> Result<(), TrainError> {
    // `valid()` first: it folds the last step's batch-norm statistics into the running
    // state; the record alone would hold them one update behind (Burn's RunningState), and
    // the saved model would then not be the one validated.
    save_model(out, &cfg.spec(), &model.valid())?;
    let optim_path = out.join("optimizer.bpk");
    if let Ok(bytes) = optim.to_record().into_bytes() {
        let _ = crate::io::atomic_write(&optim_path, &bytes);
    }
    let state = RunState {
        step,
        config: cfg.clone(),
    };
    let path = out.join("state.json");
    crate::io::atomic_write(
        &path,
        serde_json::to_string_pretty(&state)
            .unwrap_or_default()
            .as_bytes(),
    )
    .map_err(|source| TrainError::Io { path, source })
}
