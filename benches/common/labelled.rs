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

/// The shipped checkpoint on the default CPU backend, or the one `BENCH_CHECKPOINT` names
/// (a candidate to compare with it).
pub fn shipped() -> Recognizer {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = std::env::var_os("BENCH_CHECKPOINT")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| root.join("checkpoints/default"));
    match Recognizer::load(&dir, Backend::Flex) {
        Ok(rec) => rec,
        Err(e) => {
            eprintln!("{}: {e}", dir.display());
            std::process::exit(2);
        }
    }
}
