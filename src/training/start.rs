//! A run's starting weights: resumed from its own last checkpoint, taken from `--init`
//! (optionally averaged with `--average-with`), or fresh.

use crate::classifier::checkpoint::load_model;
use crate::classifier::model::SquareClassifier;
use crate::classifier::seeded::seeded_module;

use super::{RunOptions, RunState, TrainError, TrainingConfig};

/// The model to train and the step it has reached. Refuses to start over a checkpoint
/// already in `run.out` unless resuming, to resume with another configuration, and an
/// `--init` (or `--average-with`) of another architecture.
pub(super) fn starting_model(
    cfg: &TrainingConfig,
    run: &RunOptions,
    device: &burn::prelude::Device,
) -> Result<(SquareClassifier, u64), TrainError> {
    let out = &run.out;
    let state_path = out.join("state.json");
    if run.resume {
        let text = std::fs::read_to_string(&state_path).map_err(|source| TrainError::Io {
            path: state_path.clone(),
            source,
        })?;
        let state: RunState = serde_json::from_str(&text)
            .map_err(|e| TrainError::Output(format!("{}: {e}", state_path.display())))?;
        if state.config != *cfg {
            return Err(TrainError::Output(format!(
                "cannot resume in {}: it was started with another configuration",
                out.display()
            )));
        }
        let (_, model) = load_model(out, device)?;
        return Ok((model, state.step));
    }
    if out.join("model.bpk").exists() || state_path.exists() {
        return Err(TrainError::Output(format!(
            "{} already holds a checkpoint: pass --resume to continue it, or choose another --out",
            out.display()
        )));
    }
    let Some(init) = &run.init else {
        let model = seeded_module(device, cfg.seed, || cfg.model.init(device));
        return Ok((model, 0));
    };
    let (spec, model) = load_model(init, device)?;
    if spec != cfg.spec() {
        return Err(TrainError::Config(format!(
            "--init {}: its architecture or crop differs from this run's configuration",
            init.display()
        )));
    }
    let Some((other, share)) = &run.average_with else {
        return Ok((model, 0));
    };
    let (other_spec, other_model) = load_model(other, device)?;
    let mismatch = || {
        TrainError::Config(format!(
            "--average-with {}: its architecture or crop differs from --init {}",
            other.display(),
            init.display()
        ))
    };
    if other_spec != spec {
        return Err(mismatch());
    }
    let soup =
        crate::classifier::soup::average(model, &other_model, *share).ok_or_else(mismatch)?;
    Ok((soup, 0))
}
