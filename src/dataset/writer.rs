//! Writing datasets: boards (`images/` + `labels.jsonl`) or square crops (`<class>/*.png`),
//! in parallel, deterministically, atomically per file, and resumable.

use std::io::Write;
use std::path::{Path, PathBuf};

use rand::RngExt;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::labels::{LabelRecord, read_labels};
use crate::class::SquareClass;
use crate::io::{atomic_write, png_bytes};
use crate::render::{Renderer, SynthConfig, item_rng};
use crate::squares::{CropConfig, cut};

/// What a dataset folder holds and how it was made; saved as `synth.json` so a resumed run
/// can check it continues the same run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunSpec {
    /// `boards` or `squares`.
    pub kind: DatasetKind,
    /// Seed of the run.
    pub seed: u64,
    /// Number of boards to render.
    pub count: u64,
    /// Names of the piece sets used, in order.
    pub piece_sets: Vec<String>,
    /// Rendering configuration.
    pub config: SynthConfig,
    /// Crop settings (squares only).
    pub crop: Option<CropConfig>,
    /// Largest corner error simulated for square crops, as a fraction of a square (squares
    /// only).
    pub corner_jitter: Option<f32>,
}

/// The two dataset layouts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DatasetKind {
    /// Whole images with `labels.jsonl`.
    Boards,
    /// Square crops in one folder per class.
    Squares,
}

/// What to do with a folder that already holds files.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExistingDir {
    /// Refuse to touch it.
    Refuse,
    /// Continue the interrupted run it holds.
    Resume,
    /// Remove the files a previous synth run wrote there, then start afresh.
    Overwrite,
}

/// Why a dataset could not be written.
#[derive(Debug, thiserror::Error)]
pub enum DatasetError {
    /// The output folder is not empty and neither resume nor overwrite was asked.
    #[error(
        "{0} is not empty: pass --resume to continue the run it holds, or --overwrite to replace it"
    )]
    NotEmpty(PathBuf),
    /// Resume asked but the folder holds a different run.
    #[error("cannot resume in {dir}: {why}")]
    Mismatch {
        /// The folder.
        dir: PathBuf,
        /// What differs.
        why: String,
    },
    /// A file operation failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// Something else (encoding, bad labels file).
    #[error("{0}")]
    Other(String),
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> DatasetError + '_ {
    move |source| DatasetError::Io {
        path: path.to_path_buf(),
        source,
    }
}

const SPEC_FILE: &str = "synth.json";
const LABELS_FILE: &str = "labels.jsonl";
const PROGRESS_FILE: &str = "progress.json";

/// Prepares `dir` for `spec`; returns the index of the first board still to render.
pub fn prepare(dir: &Path, spec: &RunSpec, existing: ExistingDir) -> Result<u64, DatasetError> {
    std::fs::create_dir_all(dir).map_err(io_err(dir))?;
    let non_empty = std::fs::read_dir(dir)
        .map_err(io_err(dir))?
        .next()
        .is_some();
    if non_empty {
        match existing {
            ExistingDir::Refuse => return Err(DatasetError::NotEmpty(dir.to_path_buf())),
            ExistingDir::Overwrite => remove_own_files(dir)?,
            ExistingDir::Resume => {
                let path = dir.join(SPEC_FILE);
                let text = std::fs::read_to_string(&path).map_err(io_err(&path))?;
                let old: RunSpec =
                    serde_json::from_str(&text).map_err(|e| DatasetError::Mismatch {
                        dir: dir.to_path_buf(),
                        why: format!("{SPEC_FILE} is unreadable: {e}"),
                    })?;
                let same = RunSpec {
                    count: old.count,
                    ..spec.clone()
                };
                if old != same {
                    return Err(DatasetError::Mismatch {
                        dir: dir.to_path_buf(),
                        why: "it was made with other settings (seed, piece sets, kind or config); use the same arguments".into(),
                    });
                }
                let done = match spec.kind {
                    DatasetKind::Boards => resume_labels(dir)?,
                    DatasetKind::Squares => {
                        let p = dir.join(PROGRESS_FILE);
                        match std::fs::read_to_string(&p) {
                            Ok(t) => serde_json::from_str::<Progress>(&t)
                                .map(|p| p.done)
                                .unwrap_or(0),
                            Err(_) => 0,
                        }
                    }
                };
                write_spec(dir, spec)?;
                return Ok(done);
            }
        }
    }
    write_spec(dir, spec)?;
    Ok(0)
}

fn write_spec(dir: &Path, spec: &RunSpec) -> Result<(), DatasetError> {
    let path = dir.join(SPEC_FILE);
    let text =
        serde_json::to_string_pretty(spec).map_err(|e| DatasetError::Other(e.to_string()))?;
    atomic_write(&path, text.as_bytes()).map_err(io_err(&path))
}

/// Keeps the complete lines of labels.jsonl (dropping a line cut by an interruption) and
/// returns how many boards are done.
fn resume_labels(dir: &Path) -> Result<u64, DatasetError> {
    let path = dir.join(LABELS_FILE);
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(DatasetError::Io { path, source: e }),
    };
    let (records, good) = read_labels(&text).map_err(DatasetError::Other)?;
    if good != text.len() {
        atomic_write(&path, &text.as_bytes()[..good]).map_err(io_err(&path))?;
    }
    for r in &records {
        if !dir.join(&r.file).is_file() {
            return Err(DatasetError::Mismatch {
                dir: dir.to_path_buf(),
                why: format!("labels.jsonl names {} but the file is missing", r.file),
            });
        }
    }
    Ok(records.len() as u64)
}

fn remove_own_files(dir: &Path) -> Result<(), DatasetError> {
    for name in [SPEC_FILE, LABELS_FILE, PROGRESS_FILE] {
        let p = dir.join(name);
        if p.exists() {
            std::fs::remove_file(&p).map_err(io_err(&p))?;
        }
    }
    let mut folders = vec!["images".to_string()];
    folders.extend(SquareClass::ALL.iter().map(|c| c.name().to_string()));
    for name in folders {
        let p = dir.join(&name);
        if p.is_dir() {
            std::fs::remove_dir_all(&p).map_err(io_err(&p))?;
        }
    }
    Ok(())
}

#[derive(Serialize, Deserialize)]
struct Progress {
    done: u64,
}

/// Image file name of board `index`.
pub fn board_file(index: u64) -> String {
    format!("images/{index:07}.png")
}

/// Renders boards `start..spec.count` into `dir`, `chunk` at a time in parallel; calls
/// `progress(done)` after each chunk.
pub fn write_boards(
    renderer: &Renderer,
    dir: &Path,
    spec: &RunSpec,
    start: u64,
    chunk: u64,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<(), DatasetError> {
    let images = dir.join("images");
    std::fs::create_dir_all(&images).map_err(io_err(&images))?;
    let labels_path = dir.join(LABELS_FILE);
    let mut labels = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&labels_path)
        .map_err(io_err(&labels_path))?;
    let mut next = start;
    while next < spec.count {
        let end = (next + chunk.max(1)).min(spec.count);
        let lines: Vec<Result<String, DatasetError>> = (next..end)
            .into_par_iter()
            .map(|i| {
                let r = renderer.render(spec.seed, i);
                let file = board_file(i);
                let path = dir.join(&file);
                let bytes = png_bytes(&r.image).map_err(|e| DatasetError::Other(e.to_string()))?;
                atomic_write(&path, &bytes).map_err(io_err(&path))?;
                let rec = LabelRecord::new(file, &r);
                serde_json::to_string(&rec).map_err(|e| DatasetError::Other(e.to_string()))
            })
            .collect();
        // Labels are appended in index order, each after its image exists.
        for line in lines {
            let line = line?;
            labels
                .write_all(format!("{line}\n").as_bytes())
                .map_err(io_err(&labels_path))?;
        }
        labels.sync_data().map_err(io_err(&labels_path))?;
        next = end;
        progress(next);
    }
    Ok(())
}

/// Renders boards `start..spec.count` and saves their 64 square crops, cut by the same
/// [`cut`] infer uses after corners jittered like a real board finder's.
pub fn write_squares(
    renderer: &Renderer,
    dir: &Path,
    spec: &RunSpec,
    start: u64,
    chunk: u64,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<(), DatasetError> {
    for class in SquareClass::ALL {
        let p = dir.join(class.name());
        std::fs::create_dir_all(&p).map_err(io_err(&p))?;
    }
    let crop = spec.crop.unwrap_or_default();
    let jitter = spec.corner_jitter.unwrap_or(0.0);
    let mut next = start;
    while next < spec.count {
        let end = (next + chunk.max(1)).min(spec.count);
        (next..end)
            .into_par_iter()
            .try_for_each(|i| -> Result<(), DatasetError> {
                let board = board_squares(renderer, spec.seed, i, &crop, jitter);
                for (sq, (class, img)) in board.classes.iter().zip(board.crops).enumerate() {
                    let path = dir.join(class.name()).join(format!("{i:07}_{sq:02}.png"));
                    let bytes = png_bytes(&img).map_err(|e| DatasetError::Other(e.to_string()))?;
                    atomic_write(&path, &bytes).map_err(io_err(&path))?;
                }
                Ok(())
            })?;
        next = end;
        let p = dir.join(PROGRESS_FILE);
        let text = serde_json::to_string(&Progress { done: next }).unwrap_or_default();
        atomic_write(&p, text.as_bytes()).map_err(io_err(&p))?;
        progress(next);
    }
    Ok(())
}

/// The square crops of one rendered board.
#[derive(Clone, Debug)]
pub struct BoardSquares {
    /// True class of each crop.
    pub classes: Vec<SquareClass>,
    /// The 64 crops in image reading order.
    pub crops: Vec<image::RgbImage>,
    /// Side of a square in pixels of detail (see [`crate::render::Rendered::square_px`]).
    pub square_px: f32,
    /// Name of the piece set the board was drawn with.
    pub piece_set: String,
    /// Crops of empty squares with a letter or sign on them, bit = crop index (see
    /// [`crate::render::Rendered::lettered`]).
    pub lettered: u64,
}

/// The 64 crops of board `index` with their true classes, in image reading order. The
/// corners are moved by up to `jitter` of a square, as a real board finder might leave them.
pub fn board_squares(
    renderer: &Renderer,
    seed: u64,
    index: u64,
    crop: &CropConfig,
    jitter: f32,
) -> BoardSquares {
    let r = renderer.render_board_area(seed, index);
    // A separate stream for the jitter keeps the board identical to the one `boards` draws.
    let mut rng = item_rng(seed ^ 0x6a09_e667_f3bc_c908, index);
    let cell = r.quad.mean_side() / 8.0;
    let mut quad = r.quad;
    for p in quad.0.iter_mut() {
        p[0] += rng.random_range(-jitter..=jitter) * cell;
        p[1] += rng.random_range(-jitter..=jitter) * cell;
    }
    let crops = cut(&r.image, &quad, crop)
        .or_else(|_| cut(&r.image, &r.quad, crop))
        .unwrap_or_default();
    let classes = (0..64)
        .map(|i| r.placement.0[r.orientation.placement_index(i / 8, i % 8)])
        .collect();
    BoardSquares {
        classes,
        crops,
        square_px: r.square_px,
        piece_set: r.piece_set.clone(),
        lettered: r.lettered,
    }
}
