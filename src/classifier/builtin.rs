//! The shipped checkpoint (`checkpoints/default` when the library was built), compiled in,
//! so that `infer` works from any folder and after `cargo install` without a checkpoint
//! folder beside it. Cargo rebuilds the library when any of these files changes.

use std::path::PathBuf;

use super::backend::Backend;
use super::board_context::{BOARD_CONTEXT_CONFIG, BOARD_CONTEXT_WEIGHTS, BoardContext};
use super::checkpoint::{
    CheckpointError, Classifier, SECOND_MODEL_DIR, SECOND_OPINION_FILE, model_from_bytes,
    parse_second_opinion, parse_spec,
};

/// How errors and reports name the built-in checkpoint.
pub const BUILTIN_NAME: &str = "<built-in checkpoints/default>";

const CONFIG: &str = include_str!("../../checkpoints/default/config.json");
const WEIGHTS: &[u8] = include_bytes!("../../checkpoints/default/model.bpk");
const SECOND_OPINION: &str = include_str!("../../checkpoints/default/second-opinion.json");
const SECOND_CONFIG: &str = include_str!("../../checkpoints/default/second/config.json");
const SECOND_WEIGHTS: &[u8] = include_bytes!("../../checkpoints/default/second/model.bpk");
const CONTEXT_CONFIG: &str = include_str!("../../checkpoints/default/board-context.json");
const CONTEXT_WEIGHTS: &[u8] = include_bytes!("../../checkpoints/default/board-context.bpk");

impl Classifier {
    /// The shipped checkpoint (first and second model, board context) from the bytes built
    /// into the program: the same classifier as `Classifier::load("checkpoints/default", backend)`
    /// on the source tree it was built from.
    pub fn builtin(backend: Backend) -> Result<Classifier, CheckpointError> {
        let device = backend.device().map_err(CheckpointError::Backend)?;
        let name = |file: &str| PathBuf::from(BUILTIN_NAME).join(file);
        let load = |config: &str, weights: &[u8], dir: PathBuf| {
            let spec = parse_spec(config, dir.join("config.json"))?;
            let model = model_from_bytes(&spec, weights.to_vec(), dir.join("model.bpk"), &device)?;
            Ok::<_, CheckpointError>(Classifier::from_model(model, spec, device.clone()))
        };
        let first = load(CONFIG, WEIGHTS, PathBuf::from(BUILTIN_NAME))?;
        let second = load(SECOND_CONFIG, SECOND_WEIGHTS, name(SECOND_MODEL_DIR))?;
        let opinion = parse_second_opinion(SECOND_OPINION, name(SECOND_OPINION_FILE))?;
        let context = BoardContext::from_parts(
            CONTEXT_CONFIG,
            name(BOARD_CONTEXT_CONFIG),
            CONTEXT_WEIGHTS.to_vec(),
            name(BOARD_CONTEXT_WEIGHTS),
            &device,
        )?;
        first
            .with_board_context(Some(context))
            .with_second(second, opinion)
    }
}
