//! Labelled datasets on disk: `labels.jsonl` for whole boards and image folders of square
//! crops, written atomically and resumable.

pub mod labels;
pub mod writer;
