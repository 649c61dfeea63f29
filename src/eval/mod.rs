//! Whole-pipeline evaluation on labelled images: square accuracy, exact boards, boards with
//! one and with two or more wrong squares, orientation, board-not-found rate, a 13x13
//! confusion matrix, breakdowns by kind and source, and every failing file.

use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde::Serialize;

use crate::dataset::labels::read_labels;
use crate::last_move::MoveSquares;
use crate::placement::{Placement, square_at};
use crate::quad::Quad;
use crate::recognize::{RecognizeOptions, Recognizer};
use crate::render::Orientation;

mod markdown;
mod moves;
pub use markdown::to_markdown;
pub use moves::{MoveStats, ShownMove};

/// One labelled image.
#[derive(Clone, Debug, PartialEq)]
pub struct LabelledImage {
    /// Path of the image.
    pub file: PathBuf,
    /// True placement.
    pub placement: Placement,
    /// `screenshot`, `diagram`, `photo` or `synthetic`.
    pub kind: String,
    /// True orientation; `None` when unknown.
    pub orientation: Option<Orientation>,
    /// Where it comes from (repository, piece set).
    pub source: String,
    /// True outer board corners in image order (TL, TR, BR, BL), when known (synth labels).
    pub quad: Option<Quad>,
    /// The last move highlighted, when the label says (synth labels; a manifest's
    /// `last_move` column, e.g. `e2e4`, empty or `-` for none).
    pub last_move: ShownMove,
}

/// Splits one CSV line (double quotes, doubled quotes inside).
fn csv_fields(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                cur.push('"');
                chars.next();
            }
            ('"', _) => quoted = !quoted,
            (',', false) => out.push(std::mem::take(&mut cur)),
            _ => cur.push(c),
        }
    }
    out.push(cur);
    out
}

/// Reads a labelled set: a folder with `manifest.csv` (file, placement, kind, orientation,
/// source_repo, ...) or `labels.jsonl` (synth's output), or such a file itself.
pub fn read_set(path: &Path) -> Result<Vec<LabelledImage>, String> {
    let (dir, file) = if path.is_dir() {
        if path.join("manifest.csv").is_file() {
            (path.to_path_buf(), path.join("manifest.csv"))
        } else {
            (path.to_path_buf(), path.join("labels.jsonl"))
        }
    } else {
        (
            path.parent().unwrap_or(Path::new(".")).to_path_buf(),
            path.to_path_buf(),
        )
    };
    let text = std::fs::read_to_string(&file).map_err(|e| format!("{}: {e}", file.display()))?;
    if file.extension().is_some_and(|e| e == "jsonl") {
        let (records, _) = read_labels(&text)?;
        return Ok(records
            .into_iter()
            .map(|r| LabelledImage {
                file: dir.join(&r.file),
                placement: r.placement,
                kind: "synthetic".into(),
                orientation: Some(r.orientation),
                quad: Some(r.corners.to_quad(r.orientation)),
                source: r.piece_set,
                last_move: r.last_move.map_or(ShownMove::Nothing, ShownMove::Move),
            })
            .collect());
    }
    let mut lines = text.lines();
    let header = csv_fields(lines.next().unwrap_or_default());
    let col = |name: &str| header.iter().position(|h| h.trim() == name);
    let (Some(fc), Some(pc)) = (col("file"), col("placement")) else {
        return Err(format!(
            "{}: needs columns `file` and `placement`",
            file.display()
        ));
    };
    let (kc, oc, sc) = (col("kind"), col("orientation"), col("source_repo"));
    let mc = col("last_move");
    let mut out = Vec::new();
    for (n, line) in lines.enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let f = csv_fields(line);
        let get = |c: Option<usize>| c.and_then(|c| f.get(c)).cloned().unwrap_or_default();
        let placement: Placement = get(Some(pc))
            .trim()
            .parse()
            .map_err(|_| format!("{} line {}: bad placement", file.display(), n + 2))?;
        let orientation = match get(oc).trim() {
            "white-bottom" | "white" | "" => Some(Orientation::White),
            "black-bottom" | "black" => Some(Orientation::Black),
            _ => None,
        };
        out.push(LabelledImage {
            file: dir.join(get(Some(fc)).trim()),
            placement,
            kind: get(kc),
            orientation,
            source: get(sc),
            quad: None,
            last_move: match mc {
                Some(_) => ShownMove::from_cell(&get(mc))
                    .map_err(|e| format!("{} line {}: {e}", file.display(), n + 2))?,
                None => ShownMove::Unknown,
            },
        });
    }
    Ok(out)
}

/// The outcome on one image.
#[derive(Clone, Debug, Serialize)]
pub struct ImageOutcome {
    /// The file.
    pub file: String,
    /// Its kind.
    pub kind: String,
    /// Its source.
    pub source: String,
    /// Predicted placement, when a board was found.
    pub predicted: Option<String>,
    /// True placement.
    pub truth: String,
    /// Wrong squares as `square: truth -> predicted`.
    pub wrong: Vec<String>,
    /// Whether the orientation was right (None: unknown truth or no board).
    pub orientation_ok: Option<bool>,
    /// Why it failed before classification (unreadable, no board).
    pub error: Option<String>,
    /// Largest distance between a found and a true corner, as a share of the true board's
    /// mean side (when the true corners are known).
    pub corner_error: Option<f32>,
    /// Whether the board's lines bend and it was read with the bend taken out (see
    /// [`crate::board::Bend`]).
    pub straightened: bool,
    /// Squares reported as unsure (top probability under the threshold).
    pub unsure: usize,
    /// Wrong squares among those reported unsure.
    pub wrong_unsure: usize,
    /// Squares found empty once their coordinate labels were painted out (see
    /// [`crate::clear_labels`]).
    pub labels_cleared: usize,
    /// Wrong squares among those.
    pub wrong_labels_cleared: usize,
    /// Squares found empty once a coloured mark over them was painted out (see
    /// [`crate::clear_marks`]).
    pub marks_cleared: usize,
    /// Wrong squares among those.
    pub wrong_marks_cleared: usize,
    /// The last move the label says is highlighted (`null`: it does not say; `-`: none).
    pub shown_move: ShownMove,
    /// The last move the pipeline named.
    pub named_move: Option<MoveSquares>,
}

impl ImageOutcome {
    /// The outcome for `li` before it is read: nothing predicted, nothing counted.
    fn unread(li: &LabelledImage) -> ImageOutcome {
        ImageOutcome {
            file: li.file.display().to_string(),
            kind: li.kind.clone(),
            source: li.source.clone(),
            predicted: None,
            truth: li.placement.to_string(),
            wrong: Vec::new(),
            orientation_ok: None,
            error: None,
            corner_error: None,
            straightened: false,
            unsure: 0,
            wrong_unsure: 0,
            labels_cleared: 0,
            wrong_labels_cleared: 0,
            marks_cleared: 0,
            wrong_marks_cleared: 0,
            shown_move: li.last_move,
            named_move: None,
        }
    }
}

/// Counts for a group of images.
#[derive(Clone, Debug, Default, Serialize)]
pub struct GroupStats {
    /// Images.
    pub images: usize,
    /// Boards found.
    pub found: usize,
    /// Boards read exactly.
    pub exact: usize,
    /// Boards with exactly one wrong square.
    pub one_wrong: usize,
    /// Boards with two or more wrong squares.
    pub two_plus_wrong: usize,
    /// Squares compared (64 per found board).
    pub squares: usize,
    /// Squares right.
    pub squares_right: usize,
    /// Orientation decisions compared / right.
    pub orientation_checked: usize,
    /// Orientation right.
    pub orientation_right: usize,
    /// Corner errors of found boards with known corners (share of the side).
    pub corner_errors: Vec<f32>,
    /// Boards read with their bend taken out (see [`crate::board::Bend`]).
    pub straightened: usize,
    /// Those read exactly.
    pub straightened_exact: usize,
    /// Squares reported as unsure.
    pub unsure: usize,
    /// Wrong squares that were reported as unsure.
    pub wrong_unsure: usize,
    /// Boards with wrong squares, every one of them reported as unsure (the user was
    /// warned of each mistake).
    pub all_errors_flagged: usize,
    /// Squares found empty once their coordinate labels were painted out.
    pub labels_cleared: usize,
    /// Wrong squares among those.
    pub wrong_labels_cleared: usize,
    /// Squares found empty once a coloured mark over them was painted out (see
    /// [`crate::clear_marks`]).
    pub marks_cleared: usize,
    /// Wrong squares among those.
    pub wrong_marks_cleared: usize,
    /// Last moves read, where the labels say.
    pub moves: MoveStats,
}

impl GroupStats {
    fn add(&mut self, o: &ImageOutcome) {
        self.images += 1;
        if o.predicted.is_some() {
            self.found += 1;
            self.squares += 64;
            self.squares_right += 64 - o.wrong.len();
            match o.wrong.len() {
                0 => self.exact += 1,
                1 => self.one_wrong += 1,
                _ => self.two_plus_wrong += 1,
            }
            self.unsure += o.unsure;
            self.wrong_unsure += o.wrong_unsure;
            self.labels_cleared += o.labels_cleared;
            self.wrong_labels_cleared += o.wrong_labels_cleared;
            self.marks_cleared += o.marks_cleared;
            self.wrong_marks_cleared += o.wrong_marks_cleared;
            if !o.wrong.is_empty() && o.wrong_unsure == o.wrong.len() {
                self.all_errors_flagged += 1;
            }
            self.moves.add(o.shown_move, o.named_move);
            self.straightened += usize::from(o.straightened);
            self.straightened_exact += usize::from(o.straightened && o.wrong.is_empty());
        }
        if let Some(ok) = o.orientation_ok {
            self.orientation_checked += 1;
            self.orientation_right += usize::from(ok);
        }
        if let Some(e) = o.corner_error {
            self.corner_errors.push(e);
        }
    }

    /// The `q` quantile (0..=1) of the corner errors, nearest rank.
    pub fn corner_error_quantile(&self, q: f64) -> Option<f32> {
        let mut v = self.corner_errors.clone();
        if v.is_empty() {
            return None;
        }
        v.sort_by(f32::total_cmp);
        let rank = ((q * v.len() as f64).ceil() as usize).clamp(1, v.len());
        Some(v[rank - 1])
    }

    /// Boards found with every corner within `tolerance` (share of the side), of all
    /// images with known corners.
    pub fn found_within(&self, tolerance: f32) -> usize {
        self.corner_errors
            .iter()
            .filter(|&&e| e <= tolerance)
            .count()
    }

    /// Share of boards read exactly (of all images).
    pub fn exact_rate(&self) -> f64 {
        self.exact as f64 / self.images.max(1) as f64
    }

    /// Share of squares right (of found boards).
    pub fn square_accuracy(&self) -> f64 {
        self.squares_right as f64 / self.squares.max(1) as f64
    }
}

/// A full evaluation report.
#[derive(Clone, Debug, Serialize)]
pub struct EvalReport {
    /// All images together.
    pub total: GroupStats,
    /// By kind.
    pub by_kind: Vec<(String, GroupStats)>,
    /// By source.
    pub by_source: Vec<(String, GroupStats)>,
    /// `confusion[true][predicted]` over found boards.
    pub confusion: Vec<Vec<usize>>,
    /// Every image that was not read exactly.
    pub failures: Vec<ImageOutcome>,
}

/// Runs the pipeline on every image (in parallel) and compares with the labels. Images
/// whose orientation is unknown are evaluated with the orientation the pipeline chose and
/// their placement compared as is.
pub fn evaluate(
    recognizer: &Recognizer,
    images: &[LabelledImage],
    opts: &RecognizeOptions,
    progress: &(dyn Fn() + Sync),
) -> EvalReport {
    let outcomes: Vec<(ImageOutcome, Option<Placement>)> = images
        .par_iter()
        .map(|li| {
            let r = one(recognizer, li, opts);
            progress();
            r
        })
        .collect();
    let mut total = GroupStats::default();
    let mut by_kind: Vec<(String, GroupStats)> = Vec::new();
    let mut by_source: Vec<(String, GroupStats)> = Vec::new();
    let mut confusion = vec![vec![0usize; 13]; 13];
    let mut failures = Vec::new();
    for ((o, predicted), li) in outcomes.iter().zip(images) {
        total.add(o);
        for (groups, key) in [(&mut by_kind, &o.kind), (&mut by_source, &o.source)] {
            match groups.iter_mut().find(|(k, _)| k == key) {
                Some((_, g)) => g.add(o),
                None => {
                    let mut g = GroupStats::default();
                    g.add(o);
                    groups.push((key.clone(), g));
                }
            }
        }
        if let Some(p) = predicted {
            for i in 0..64 {
                confusion[li.placement.0[i].index()][p.0[i].index()] += 1;
            }
        }
        if o.predicted.is_none() || !o.wrong.is_empty() {
            failures.push(o.clone());
        }
    }
    by_kind.sort_by(|a, b| a.0.cmp(&b.0));
    by_source.sort_by(|a, b| a.0.cmp(&b.0));
    EvalReport {
        total,
        by_kind,
        by_source,
        confusion,
        failures,
    }
}

fn one(
    recognizer: &Recognizer,
    li: &LabelledImage,
    opts: &RecognizeOptions,
) -> (ImageOutcome, Option<Placement>) {
    let mut out = ImageOutcome::unread(li);
    let img = match crate::io::open_image(&li.file) {
        Ok(img) => img,
        Err(e) => {
            out.error = Some(e.to_string());
            return (out, None);
        }
    };
    match recognizer.recognize(&img, opts) {
        Err(e) => {
            out.error = Some(e.to_string());
            (out, None)
        }
        Ok(rec) => {
            out.predicted = Some(rec.placement.to_string());
            out.orientation_ok = li.orientation.map(|o| o == rec.orientation.orientation);
            out.corner_error = li.quad.map(|q| corner_error(&rec.board.quad, &q));
            out.straightened = rec.straightened;
            out.unsure = rec.uncertain.len();
            out.labels_cleared = rec.labels_cleared.len();
            out.marks_cleared = rec.marks_cleared.len();
            out.named_move = rec.last_move.map(|m| m.squares());
            for i in 0..64 {
                let (t, p) = (li.placement.0[i], rec.placement.0[i]);
                if t != p {
                    let sq = square_at(i);
                    out.wrong_unsure +=
                        usize::from(rec.uncertain.iter().any(|u| Some(u.square) == sq));
                    out.wrong_labels_cleared +=
                        usize::from(rec.labels_cleared.iter().any(|&c| Some(c) == sq));
                    out.wrong_marks_cleared +=
                        usize::from(rec.marks_cleared.iter().any(|&c| Some(c) == sq));
                    let sq = sq.map(|s| s.to_string()).unwrap_or_default();
                    out.wrong
                        .push(format!("{sq}: {} -> {}", t.name(), p.name()));
                }
            }
            (out, Some(rec.placement))
        }
    }
}

/// Largest corner distance over the true board's mean side, the corners paired in the way
/// that fits best (a finder may start its corner list on another corner of a rotated board).
pub fn corner_error(found: &Quad, truth: &Quad) -> f32 {
    (0..4)
        .map(|shift| {
            let mut q = found.0;
            q.rotate_left(shift);
            Quad(q).max_corner_distance(truth)
        })
        .fold(f32::INFINITY, f32::min)
        / truth.mean_side().max(1.0)
}

/// Where `infer eval --report OUT` writes its two files: OUT.md and OUT.json. The
/// extensions are added to the whole name (a report called `run1.5` is `run1.5.md`, not
/// `run1.md`); an OUT already ending in `.md` or `.json` names the same pair.
pub fn report_paths(out: &Path) -> (PathBuf, PathBuf) {
    let stem = match out.extension().and_then(|e| e.to_str()) {
        Some("md" | "json") => out.with_extension(""),
        _ => out.to_path_buf(),
    };
    let with = |ext: &str| {
        let mut name = stem.clone().into_os_string();
        name.push(ext);
        PathBuf::from(name)
    };
    (with(".md"), with(".json"))
}

#[cfg(test)]
mod tests;
