//! Training with a tiny model: the loss falls, an interrupted run resumes from its step.

use std::sync::atomic::{AtomicBool, Ordering};

use fenscan::classifier::{Backend, SquareClassifierConfig};
use fenscan::render::{PieceSet, pieces::builtin_dir};
use fenscan::squares::CropConfig;
use fenscan::training::{RunOptions, TrainingConfig, train};

use crate::util::TempDir;

fn tiny() -> TrainingConfig {
    let mut cfg = TrainingConfig {
        model: SquareClassifierConfig::new()
            .with_widths(vec![8, 16])
            .with_input_size(16),
        crop: CropConfig {
            size: 16,
            context: 0.125,
        },
        steps: 50,
        batch_size: 32,
        learning_rate: 3e-3,
        warmup_steps: 5,
        boards_per_epoch: 6,
        steps_per_epoch: 25,
        checkpoint_every: 25,
        val_boards: 2,
        ..TrainingConfig::default()
    };
    cfg.synth.scene.max_board = 200;
    cfg.synth.scene.cropped = 1.0;
    cfg
}

fn options(out: &std::path::Path, resume: bool) -> RunOptions {
    RunOptions {
        out: out.to_path_buf(),
        init: None,
        average_with: None,
        resume,
        backend: Backend::Flex,
        train_sets: vec![PieceSet::load(&builtin_dir()).unwrap()],
        heldout_sets: Vec::new(),
        mistake_sheets: false,
    }
}

#[test]
fn loss_falls_and_resume_continues() {
    let t = TempDir::new("train");
    let out = t.join("run");
    let cfg = tiny();
    let losses = std::sync::Mutex::new(Vec::new());
    let stop = AtomicBool::new(false);
    // Interrupt after the first report (step 25): a checkpoint is written.
    let r = train(&cfg, options(&out, false), &stop, &|p| {
        if p.phase == "training" {
            losses.lock().unwrap().push(p.loss);
            stop.store(true, Ordering::SeqCst);
        }
    })
    .unwrap();
    assert!(r.is_none(), "the run should report the interruption");
    let state: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("state.json")).unwrap()).unwrap();
    assert_eq!(state["step"], 25);
    // A second start without --resume is refused; with it, the run finishes from step 25.
    assert!(train(&cfg, options(&out, false), &AtomicBool::new(false), &|_| {}).is_err());
    let card = train(&cfg, options(&out, true), &AtomicBool::new(false), &|p| {
        if p.phase == "training" {
            losses.lock().unwrap().push(p.loss);
        }
    })
    .unwrap()
    .expect("finished");
    assert_eq!(card.steps, 50);
    let losses = losses.lock().unwrap();
    assert_eq!(losses.len(), 2);
    assert!(losses[1] < losses[0], "loss did not fall: {losses:?}");
    assert!(out.join("card.md").is_file() && out.join("metrics.jsonl").is_file());
    assert!(!out.join("state.json").exists());
}

/// The scores the checkpoint in `dir` gives a fixed batch of two 16-pixel crops.
fn scores(dir: &std::path::Path) -> Vec<f32> {
    let device = Backend::Flex.device().unwrap();
    let (_, model) = fenscan::classifier::checkpoint::load_model(dir, &device).unwrap();
    let x: Vec<f32> = (0..2 * 3 * 16 * 16)
        .map(|i| (i % 17) as f32 / 17.0)
        .collect();
    let x = burn::prelude::Tensor::<4>::from_data(
        burn::prelude::TensorData::new(x, [2, 3, 16, 16]),
        &device,
    );
    model.forward(x).into_data().try_into_vec().unwrap()
}

#[test]
fn same_seed_same_model() {
    let t = TempDir::new("train-det");
    let mut cfg = tiny();
    cfg.steps = 10;
    cfg.checkpoint_every = 10;
    let stop = AtomicBool::new(false);
    let (a, b) = (t.join("a"), t.join("b"));
    let card_a = train(&cfg, options(&a, false), &stop, &|_| {})
        .unwrap()
        .expect("finished");
    train(&cfg, options(&b, false), &stop, &|_| {}).unwrap();
    // Compare what the models compute (the files also hold random parameter ids).
    let (ya, yb) = (scores(&a), scores(&b));
    assert_eq!(
        ya, yb,
        "two CPU runs with the same seed gave different models"
    );

    // `--steps 0` from a checkpoint only evaluates it: same scores, a card with accuracies.
    let c = t.join("c");
    let mut eval_cfg = cfg.clone();
    eval_cfg.steps = 0;
    let mut opts = options(&c, false);
    opts.init = Some(a.clone());
    opts.mistake_sheets = true;
    let card = train(&eval_cfg, opts, &stop, &|_| {})
        .unwrap()
        .expect("finished");
    assert_eq!(card.steps, 0);
    assert_eq!(card.validation.len(), 1);
    // Measured through the classifier infer loads (folded, batched): the same accuracy as
    // the training run's own validation, up to rounding in near-ties.
    let (trained, evaluated) = (&card_a.validation[0].1, &card.validation[0].1);
    assert!(
        (trained.accuracy - evaluated.accuracy).abs() < 0.01,
        "{} vs {}",
        trained.accuracy,
        evaluated.accuracy
    );
    // A 10-step model makes mistakes: their sheet is written.
    assert!(evaluated.accuracy < 1.0 && c.join("mistakes-a.png").is_file());
    let yc = scores(&c);
    assert_eq!(ya, yc, "evaluating a checkpoint changed it");
}

#[test]
fn fine_tuning_from_the_command_line_keeps_the_checkpoints_architecture() {
    let t = TempDir::new("train-cli");
    let a = t.join("a");
    let mut cfg = tiny();
    cfg.steps = 2;
    train(&cfg, options(&a, false), &AtomicBool::new(false), &|_| {}).unwrap();
    // Only the validation size is configured: the model comes from --init.
    let config = t.join("small.json");
    std::fs::write(&config, r#"{"val_boards": 1}"#).unwrap();
    let b = t.join("b");
    let out = crate::util::run_bin(
        "train",
        &[
            "--init",
            a.to_str().unwrap(),
            "--out",
            b.to_str().unwrap(),
            "--steps",
            "0",
            "--config",
            config.to_str().unwrap(),
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let spec: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(b.join("config.json")).unwrap()).unwrap();
    assert_eq!(spec["model"]["widths"], serde_json::json!([8, 16]));
    assert!(b.join("card.md").is_file());

    // A model averaged with itself is itself; a missing checkpoint to average with is a
    // clear error that names it.
    let averaged = |with: &std::path::Path, out: &std::path::Path| {
        crate::util::run_bin(
            "train",
            &[
                "--init",
                a.to_str().unwrap(),
                "--average-with",
                with.to_str().unwrap(),
                "--out",
                out.to_str().unwrap(),
                "--steps",
                "0",
                "--config",
                config.to_str().unwrap(),
            ],
        )
    };
    let c = t.join("c");
    let out = averaged(&a, &c);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(scores(&a), scores(&c));
    let missing = t.join("no-such-checkpoint");
    let out = averaged(&missing, &t.join("d"));
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no-such-checkpoint"), "{err}");
}
