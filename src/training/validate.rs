//! The end of a run: the saved checkpoint measured on the fixed validation sets (a) and (b)
//! through the classifier infer loads, and the model card that records it.

use burn::module::Module;

use super::data::make_squares;
use super::eval::evaluate;
use super::mistakes::{mistake_lines, mistake_sheet};
use super::{ModelCard, RunOptions, TrainError, TrainingConfig};
use crate::classifier::Classifier;
use crate::classifier::checkpoint::{FORMAT_VERSION, parameter_count};
use crate::classifier::model::SquareClassifier;
use crate::render::Renderer;

pub(super) const VAL_A_SEED: u64 = 0xA11C_E5E7;
pub(super) const VAL_B_SEED: u64 = 0xB0B0_5E75;
/// Most crops on a mistake sheet.
const MISTAKES_SHOWN: usize = 480;

/// What the run produced, for the card.
pub(super) struct Trained<'a> {
    pub model: &'a SquareClassifier,
    pub steps: u64,
    pub train_seconds: f64,
    pub train_names: Vec<String>,
    pub heldout_names: Vec<String>,
}

/// Measures the checkpoint in `run.out` (or, for a run of no steps, the `--init` one as
/// it is, second model included) on (a), drawn by `renderer`'s piece sets, and (b), drawn
/// by `run.heldout_sets` (taken), both without training-only augmentations; returns the
/// card (not yet written).
pub(super) fn validate(
    cfg: &TrainingConfig,
    run: &mut RunOptions,
    renderer: &Renderer,
    trained: Trained<'_>,
) -> Result<ModelCard, TrainError> {
    let out = run.out.clone();
    let heldout_sets = std::mem::take(&mut run.heldout_sets);
    // Validation runs the saved checkpoint through the classifier infer loads (folded,
    // batched on the CPU): the card describes exactly what ships. Evaluating a checkpoint
    // (no steps) reads it from --init, so a second model there is measured too.
    let shipped_dir = match &run.init {
        Some(dir) if cfg.steps == 0 && run.average_with.is_none() => dir.as_path(),
        _ => out.as_path(),
    };
    let classifier = Classifier::load(shipped_dir, run.backend)?;
    // Both fixed validation sets: every square of `val_boards` boards of a fixed stream,
    // the same whatever the training seed, so runs can be compared.
    let validate = |renderer: &Renderer, seed: u64, name: &str, tag: &str| {
        let set = make_squares(renderer, seed, cfg.val_boards, &cfg.sampling(1.0));
        // Every square of each board, in order: read as infer reads a board.
        let (metrics, mistakes) = evaluate(&classifier, &set, 256, true);
        if run.mistake_sheets {
            if let Some(sheet) = mistake_sheet(&set, &mistakes, MISTAKES_SHOWN) {
                let path = out.join(format!("mistakes-{tag}.png"));
                let bytes = crate::io::png_bytes(&sheet)
                    .map_err(|e| TrainError::Output(format!("{}: {e}", path.display())))?;
                crate::io::atomic_write(&path, &bytes)
                    .map_err(|source| TrainError::Io { path, source })?;
            }
            let path = out.join(format!("mistakes-{tag}.jsonl"));
            crate::io::atomic_write(&path, mistake_lines(&set, &mistakes).as_bytes())
                .map_err(|source| TrainError::Io { path, source })?;
        }
        Ok::<_, TrainError>((name.to_string(), metrics))
    };
    // Validation draws what infer meets, without training-only augmentations (piece
    // tint and stretch), so that (a) and (b) compare across runs with and without them.
    let val_synth = cfg.synth.without_training_augmentations();
    let val_renderer = renderer
        .with_config(val_synth)
        .map_err(TrainError::Config)?;
    let mut validation = vec![validate(
        &val_renderer,
        VAL_A_SEED,
        "a: synthetic, training piece sets",
        "a",
    )?];
    if !heldout_sets.is_empty() {
        let rb = Renderer::new(heldout_sets, val_synth).map_err(TrainError::Config)?;
        validation.push(validate(
            &rb,
            VAL_B_SEED,
            "b: synthetic, held-out piece sets",
            "b",
        )?);
    }
    let weights_bytes = std::fs::metadata(out.join("model.bpk"))
        .map(|m| m.len())
        .unwrap_or(0);
    Ok(ModelCard {
        format_version: FORMAT_VERSION,
        parameters: parameter_count(&trained.model.valid()),
        weights_bytes,
        steps: trained.steps,
        init: run.init.as_ref().map(|p| p.display().to_string()),
        train_piece_sets: trained.train_names,
        heldout_piece_sets: trained.heldout_names,
        backend: run.backend.to_string(),
        train_seconds: trained.train_seconds,
        validation,
        notes: classifier
            .second_opinion()
            .map(|o| {
                vec![format!(
                    "validated with the checkpoint's second model (second/): squares below {} \
                     re-read, its probabilities weighted {}",
                    o.below, o.weight
                )]
            })
            .unwrap_or_default(),
    })
}
