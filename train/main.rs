//! `train`: fit the 13-class square classifier on synthetic boards, on CPU or GPU.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::{Context, Result, bail};
use clap::Parser;
use fenscan::classifier::Backend;
use fenscan::classifier::Classifier;
use fenscan::classifier::board_context::CorrectionScope;
use fenscan::classifier::checkpoint::read_spec;
use fenscan::render::PieceSet;
use fenscan::training::board_context::{BoardContextFit, fit_and_measure};
use fenscan::training::{Progress, RunOptions, TrainingConfig, train};
use indicatif::{ProgressBar, ProgressStyle};

#[derive(Parser)]
#[command(
    name = "train",
    version,
    about = "Train the square classifier on synthetic boards"
)]
struct Opts {
    /// Output checkpoint folder (config.json, model.bpk, card.json, metrics.jsonl).
    #[arg(long)]
    out: PathBuf,
    /// Start from this checkpoint's weights (fine-tuning on new piece styles).
    #[arg(long, value_name = "CHECKPOINT")]
    init: Option<PathBuf>,
    /// Piece sets to train on: a set folder (wK.svg ...) or a folder of sets. Repeatable.
    /// Default: the project's own set.
    #[arg(long = "pieces", value_name = "DIR")]
    pieces: Vec<PathBuf>,
    /// Names of sets found under --pieces to hold out of training and use for validation
    /// set (b), comma-separated.
    #[arg(long, value_delimiter = ',', value_name = "NAMES")]
    holdout: Vec<String>,
    /// Optimiser steps (overrides the config); 0 with --init only evaluates that checkpoint
    /// on the validation sets and writes its card.
    #[arg(long)]
    steps: Option<u64>,
    /// Seed (overrides the config).
    #[arg(long)]
    seed: Option<u64>,
    /// Peak learning rate (overrides the config).
    #[arg(long)]
    lr: Option<f64>,
    /// Save a checkpoint every N steps (overrides the config).
    #[arg(long, value_name = "N")]
    checkpoint_every: Option<u64>,
    /// A JSON training configuration (fenscan::training::TrainingConfig); missing fields keep
    /// their defaults.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Compute backend: flex (CPU, default), ndarray (CPU, slow), wgpu (GPU; build with
    /// --features wgpu).
    #[arg(long, default_value = "flex")]
    backend: Backend,
    /// Also write mistakes-a.png and mistakes-b.png into --out: the misclassified
    /// validation crops, enlarged, with their true and predicted classes; and
    /// mistakes-a.jsonl / mistakes-b.jsonl, a line each (board, row, column, classes).
    #[arg(long)]
    mistakes: bool,
    /// Continue the interrupted run in --out.
    #[arg(long)]
    resume: bool,
    /// Average the --init weights with this checkpoint's (same architecture) before any
    /// steps: a fine-tune averaged with the model it started from (with --steps 0, only
    /// the average is written and validated).
    #[arg(long, value_name = "CHECKPOINT", requires = "init")]
    average_with: Option<PathBuf>,
    /// Share of --average-with in the average, 0..=1.
    #[arg(long, default_value_t = 0.5, value_name = "SHARE")]
    average_share: f32,
    /// Fit the board-context correction for the --init checkpoint (its models unchanged)
    /// and write board-context.json/.bpk into --out; the synthetic mix is --config's.
    #[arg(long, requires = "init")]
    board_context: bool,
    /// Boards read to fit the board-context correction.
    #[arg(long, default_value_t = 3000, value_name = "N")]
    context_boards: u64,
    /// Passes over them.
    #[arg(long, default_value_t = 30, value_name = "N")]
    context_epochs: usize,
    /// Hidden units of the board-context network.
    #[arg(long, default_value_t = 32, value_name = "N")]
    context_hidden: usize,
    /// Board-context networks fitted from seeds seed, seed+1, ... on the same readings;
    /// infer averages their corrections.
    #[arg(long, default_value_t = 1, value_name = "N",
          value_parser = clap::value_parser!(u16).range(1..=64))]
    context_members: u16,
    /// What the board-context correction may change: `full` (any class) or `colour` (only
    /// how each piece kind splits between white and black).
    #[arg(long, default_value = "full", value_name = "SCOPE", value_parser = parse_scope)]
    context_scope: CorrectionScope,
    /// The board-context network also sees each square's look-alikes on the board (the
    /// reading of the square most like it, and readings weighted by likeness).
    #[arg(long)]
    context_look_alikes: bool,
    /// Weight decay of the board-context fit (0: none).
    #[arg(long, default_value_t = 0.0, value_name = "W")]
    context_weight_decay: f64,
    /// Share of the board-context fitting boards that are free placements (any pieces in
    /// any number), 0..=1.
    #[arg(long, default_value_t = 0.25, value_name = "SHARE")]
    context_free: f64,
}

fn parse_scope(text: &str) -> Result<CorrectionScope, String> {
    match text {
        "full" => Ok(CorrectionScope::Full),
        "colour" | "color" => Ok(CorrectionScope::Colour),
        _ => Err(format!("{text:?}: expected full or colour")),
    }
}

fn main() -> ExitCode {
    match run(Opts::parse()) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("train: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn run(opts: Opts) -> Result<ExitCode> {
    let given: serde_json::Value = match &opts.config {
        Some(p) => serde_json::from_str(
            &std::fs::read_to_string(p).with_context(|| format!("cannot read {}", p.display()))?,
        )
        .with_context(|| format!("config {}", p.display()))?,
        None => serde_json::json!({}),
    };
    let mut cfg: TrainingConfig = serde_json::from_value(given.clone()).with_context(|| {
        format!(
            "config {}",
            opts.config.as_deref().unwrap_or(Path::new("-")).display()
        )
    })?;
    // Fine-tuning keeps the architecture and crop of the checkpoint it starts from, unless
    // the config names them.
    if let Some(init) = &opts.init {
        let spec = read_spec(init).with_context(|| format!("--init {}", init.display()))?;
        if given.get("model").is_none() {
            cfg.model = spec.model;
        }
        if given.get("crop").is_none() {
            cfg.crop = spec.crop;
        }
    }
    if !(0.0..=1.0).contains(&opts.average_share) {
        bail!(
            "--average-share {}: must be between 0 and 1",
            opts.average_share
        );
    }
    if let Some(v) = opts.steps {
        cfg.steps = v;
    }
    if let Some(v) = opts.seed {
        cfg.seed = v;
    }
    if let Some(v) = opts.lr {
        cfg.learning_rate = v;
    }
    if let Some(v) = opts.checkpoint_every {
        cfg.checkpoint_every = v;
    }
    let all = PieceSet::load_dirs(&opts.pieces)?;
    for name in &opts.holdout {
        if !all.iter().any(|s| &s.name == name) {
            bail!("--holdout {name}: no such piece set under --pieces");
        }
    }
    let (heldout, train_sets): (Vec<PieceSet>, Vec<PieceSet>) = all
        .into_iter()
        .partition(|s| opts.holdout.contains(&s.name));
    if train_sets.is_empty() {
        bail!("every piece set is held out: nothing left to train on");
    }
    eprintln!(
        "training on {} piece sets, {} held out; backend {}",
        train_sets.len(),
        heldout.len(),
        opts.backend
    );

    if opts.board_context {
        return fit_board_context(&opts, &cfg, train_sets, heldout);
    }
    let stop = Arc::new(AtomicBool::new(false));
    {
        let stop = stop.clone();
        ctrlc::set_handler(move || stop.store(true, Ordering::SeqCst))
            .context("cannot install the Ctrl-C handler")?;
    }
    let pb = ProgressBar::new(cfg.steps);
    pb.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} steps {msg} ETA {eta}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let report = |p: &Progress| {
        pb.set_position(p.step);
        pb.set_message(format!(
            "{} loss {:.4} acc {:.4} lr {:.1e} {:.0} crops/s",
            p.phase, p.loss, p.accuracy, p.learning_rate, p.samples_per_second
        ));
        if !console_is_tty() {
            eprintln!(
                "step {}/{} {} loss {:.4} acc {:.4} {:.0} crops/s",
                p.step, p.steps, p.phase, p.loss, p.accuracy, p.samples_per_second
            );
        }
    };
    let run = RunOptions {
        out: opts.out.clone(),
        init: opts.init,
        average_with: opts.average_with.map(|p| (p, opts.average_share)),
        resume: opts.resume,
        backend: opts.backend,
        train_sets,
        heldout_sets: heldout,
        mistake_sheets: opts.mistakes,
    };
    let card = train(&cfg, run, &stop, &report)?;
    pb.finish();
    match card {
        None => {
            eprintln!(
                "interrupted: checkpoint saved in {}; continue with --resume",
                opts.out.display()
            );
            Ok(ExitCode::from(130))
        }
        Some(card) => {
            for (name, m) in &card.validation {
                let by_px: Vec<String> = m
                    .by_resolution
                    .iter()
                    .map(|b| format!("{} {:.2}%", b.label(), b.accuracy * 100.0))
                    .collect();
                eprintln!(
                    "{name}: {:.4}% of {} squares ({})",
                    m.accuracy * 100.0,
                    m.squares,
                    by_px.join(", ")
                );
            }
            eprintln!("model card: {}", opts.out.join("card.md").display());
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// `--board-context`: fits the correction for `--init` and writes it into `--out`.
fn fit_board_context(
    opts: &Opts,
    cfg: &TrainingConfig,
    train_sets: Vec<PieceSet>,
    heldout: Vec<PieceSet>,
) -> Result<ExitCode> {
    let init = opts
        .init
        .as_deref()
        .context("--board-context needs --init")?;
    anyhow::ensure!(
        (0.0..=1.0).contains(&opts.context_free),
        "--context-free {}: a share must be between 0 and 1",
        opts.context_free
    );
    let classifier = Classifier::load(init, opts.backend)
        .with_context(|| format!("--init {}", init.display()))?
        .with_board_context(None);
    let fit = BoardContextFit {
        boards: opts.context_boards,
        epochs: opts.context_epochs,
        hidden: opts.context_hidden,
        members: usize::from(opts.context_members),
        scope: opts.context_scope,
        free_placement: opts.context_free,
        look_alikes: opts.context_look_alikes,
        weight_decay: opts.context_weight_decay,
        seed: cfg.seed,
        ..BoardContextFit::default()
    };
    let (context, report) = fit_and_measure(
        &classifier,
        train_sets,
        heldout,
        cfg,
        &fit,
        &|line: &str| eprintln!("{line}"),
    )?;
    context.save(&opts.out)?;
    for (name, f) in &report.validation {
        let pct = |n: usize| 100.0 * n as f64 / (64 * f.boards).max(1) as f64;
        eprintln!(
            "{name}: squares {:.4}% -> {:.4}%, exact boards {} -> {} of {}",
            pct(f.base_squares_right),
            pct(f.squares_right),
            f.base_exact,
            f.exact,
            f.boards
        );
    }
    let path = opts.out.join("board-context-report.json");
    fenscan::io::atomic_write(&path, serde_json::to_string_pretty(&report)?.as_bytes())
        .with_context(|| format!("cannot write {}", path.display()))?;
    eprintln!("board context written to {}", opts.out.display());
    Ok(ExitCode::SUCCESS)
}

fn console_is_tty() -> bool {
    use std::io::IsTerminal;
    std::io::stderr().is_terminal()
}
