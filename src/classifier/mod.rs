//! The 13-class square classifier: model, backends, checkpoints.

pub mod backend;
pub mod batched;
pub mod board_context;
pub mod board_inputs;
pub mod builtin;
pub mod checkpoint;
pub mod fused;
pub mod model;
pub mod reader;
pub mod seeded;
pub mod soup;

pub use backend::Backend;
pub use builtin::BUILTIN_NAME;
pub use checkpoint::{CheckpointError, Classifier, ModelSpec, top_probability};
pub use fused::FusedClassifier;
pub use model::{SquareClassifier, SquareClassifierConfig};
