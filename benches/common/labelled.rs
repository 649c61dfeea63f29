//! What the benches over labelled sets share: the sets named on the command line, each
//! read with its labels, and the shipped checkpoint.

use std::path::Path;

use fenscan::classifier::Backend;
use fenscan::eval::{LabelledImage, read_set};
use fenscan::recognize::Recognizer;

/// The labelled sets named on the command line (a folder with manifest.csv or
/// labels.jsonl), each with its images; exits with a usage line when there are none, and
/// with the error when one cannot be read.
pub fn sets_from_args(bench: &str) -> Vec<(String, Vec<LabelledImage>)> {
    let sets: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    if sets.is_empty() {
        eprintln!("usage: cargo bench --bench {bench} -- SET...");
        std::process::exit(2);
    }
    sets.into_iter()
        .map(|set| match read_set(Path::new(&set)) {
            Ok(images) => (set, images),
            Err(e) => {
                eprintln!("{set}: {e}");
                std::process::exit(2);
            }
        })
        .collect()
}

/// The shipped checkpoint on the default CPU backend.
pub fn shipped() -> Recognizer {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    Recognizer::load(&root.join("checkpoints/default"), Backend::Flex)
        .expect("the shipped checkpoint loads")
}
