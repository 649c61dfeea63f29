//! The model card: what a checkpoint was trained on and how well it does, as `card.json`
//! and a readable `card.md`.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::TrainError;
use super::eval::SquareMetrics;

/// Piece sets listed per validation set in card.md (the least accurate).
const BY_SET_SHOWN: usize = 10;

/// The result: metrics per validation set, written to the model card.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ModelCard {
    /// Checkpoint layout version.
    pub format_version: u32,
    /// Parameter count.
    pub parameters: usize,
    /// Size of model.bpk in bytes.
    pub weights_bytes: u64,
    /// Steps trained (in total, including a fine-tune's starting checkpoint only if resumed).
    pub steps: u64,
    /// Checkpoint the weights started from, if fine-tuned.
    pub init: Option<String>,
    /// Piece sets trained on.
    pub train_piece_sets: Vec<String>,
    /// Piece sets held out (validation set b).
    pub heldout_piece_sets: Vec<String>,
    /// Backend used.
    pub backend: String,
    /// Wall-clock training time in seconds (this run).
    pub train_seconds: f64,
    /// Validation results: (a) seen piece sets, (b) held-out piece sets.
    pub validation: Vec<(String, SquareMetrics)>,
    /// Extra measurements added later (e.g. the full pipeline on real images).
    #[serde(default)]
    pub notes: Vec<String>,
}

/// Writes `card.json` and a readable `card.md`.
pub fn write_card(out: &Path, card: &ModelCard) -> Result<(), TrainError> {
    let path = out.join("card.json");
    crate::io::atomic_write(
        &path,
        serde_json::to_string_pretty(card)
            .unwrap_or_default()
            .as_bytes(),
    )
    .map_err(|source| TrainError::Io {
        path: path.clone(),
        source,
    })?;
    let mut md = String::from("# Model card\n\n");
    md += &format!(
        "- parameters: {}\n- weights: {} bytes (model.bpk, f32)\n- steps: {}\n- backend: {}\n- training time: {:.0} s\n",
        card.parameters, card.weights_bytes, card.steps, card.backend, card.train_seconds
    );
    if let Some(init) = &card.init {
        md += &format!("- fine-tuned from: {init}\n");
    }
    md += &format!(
        "- training piece sets ({}): {}\n",
        card.train_piece_sets.len(),
        card.train_piece_sets.join(", ")
    );
    md += &format!(
        "- held-out piece sets ({}): {}\n\n",
        card.heldout_piece_sets.len(),
        card.heldout_piece_sets.join(", ")
    );
    md += "| validation set | squares | accuracy | top confusions (true -> predicted: count) |\n|---|---|---|---|\n";
    for (name, m) in &card.validation {
        let conf: Vec<String> = m
            .top_confusions(5)
            .iter()
            .map(|(t, p, c)| format!("{t}->{p}: {c}"))
            .collect();
        md += &format!(
            "| {name} | {} | {:.4}% | {} |\n",
            m.squares,
            m.accuracy * 100.0,
            conf.join(", ")
        );
    }
    md += "\nAccuracy by resolution (pixels of detail per square: the square's size in the image, or what a rescale shrank it to):\n\n| validation set | resolution | squares | accuracy |\n|---|---|---|---|\n";
    for (name, m) in &card.validation {
        for b in &m.by_resolution {
            md += &format!(
                "| {} | {} | {} | {:.2}% |\n",
                name.split(':').next().unwrap_or(name),
                b.label(),
                b.squares,
                b.accuracy * 100.0
            );
        }
    }
    // Cards measured before per-set accuracy was recorded have no rows: no empty table.
    if card
        .validation
        .iter()
        .any(|(_, m)| !m.by_piece_set.is_empty())
    {
        md += &format!(
            "\nAccuracy by piece set (the {BY_SET_SHOWN} least accurate of each validation set):\n\n| validation set | piece set | squares | accuracy |\n|---|---|---|---|\n"
        );
    }
    for (name, m) in &card.validation {
        for s in m.by_piece_set.iter().take(BY_SET_SHOWN) {
            md += &format!(
                "| {} | {} | {} | {:.2}% |\n",
                name.split(':').next().unwrap_or(name),
                s.piece_set,
                s.squares,
                s.accuracy * 100.0
            );
        }
    }
    for note in &card.notes {
        md += &format!("\n{note}\n");
    }
    let path = out.join("card.md");
    crate::io::atomic_write(&path, md.as_bytes()).map_err(|source| TrainError::Io { path, source })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::training::eval::PieceSetAccuracy;

    fn card(by_piece_set: Vec<PieceSetAccuracy>) -> ModelCard {
        let metrics = SquareMetrics {
            squares: 64,
            accuracy: 0.5,
            confusion: vec![vec![0; 13]; 13],
            by_resolution: Vec::new(),
            by_piece_set,
        };
        ModelCard {
            format_version: 1,
            parameters: 10,
            weights_bytes: 40,
            steps: 1,
            init: None,
            train_piece_sets: vec!["alpha".into()],
            heldout_piece_sets: Vec::new(),
            backend: "flex".into(),
            train_seconds: 1.0,
            validation: vec![("a: seen sets".into(), metrics)],
            notes: Vec::new(),
        }
    }

    fn written(card: &ModelCard, name: &str) -> String {
        let dir = std::env::temp_dir().join(format!("fenscan-card-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        write_card(&dir, card).unwrap();
        let md = std::fs::read_to_string(dir.join("card.md")).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        md
    }

    #[test]
    fn piece_set_table_only_when_it_has_rows() {
        let md = written(&card(Vec::new()), "empty");
        assert!(!md.contains("Accuracy by piece set"), "{md}");
        let md = written(
            &card(vec![PieceSetAccuracy {
                piece_set: "maya".into(),
                squares: 64,
                accuracy: 0.5,
            }]),
            "rows",
        );
        assert!(md.contains("Accuracy by piece set"), "{md}");
        assert!(md.contains("| a | maya | 64 | 50.00% |"), "{md}");
    }
}
