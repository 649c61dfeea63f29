//! `infer`: read a FEN from a picture of a chess board, check a FEN, or evaluate accuracy.

mod output;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use clap::{Args, Parser, Subcommand};
use fenscan::classifier::{BUILTIN_NAME, Backend, Classifier};
use fenscan::clear_labels::ClearLabelsConfig;
use fenscan::clear_marks::ClearMarksConfig;
use fenscan::fen::check::check_text;
use fenscan::fen::parse::parse_fen;
use fenscan::lookalike::LookalikeConfig;
use fenscan::recognize::{
    CastlingChoice, EpChoice, FenFields, RecognizeOptions, Recognizer, TurnChoice,
};
use fenscan::relook::RelookConfig;
use fenscan::render::Orientation;
use indicatif::ProgressBar;
use rayon::prelude::*;

/// Exit statuses.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[repr(u8)]
pub enum Exit {
    /// Everything read and valid.
    Ok = 0,
    /// The FEN has problems (checker errors).
    Problems = 1,
    /// Usage error, unreadable input or checkpoint.
    Usage = 2,
    /// No board in the image.
    NoBoard = 3,
}

#[derive(Parser)]
#[command(
    name = "infer",
    version,
    about = "Turn a picture of a chess board into a checked FEN",
    args_conflicts_with_subcommands = true
)]
struct Opts {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    read: ReadArgs,
}

#[derive(Subcommand)]
enum Command {
    /// Check a FEN or a piece placement and explain every problem.
    ///
    /// A placement alone is completed with `w - - 0 1` (and the output says so).
    /// Exit status: 0 valid (warnings allowed), 1 problems found, 2 usage error.
    Check {
        /// The FEN, or only its first field (quote it: it contains spaces and `/`).
        fen: String,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Measure accuracy on a labelled set (a folder with manifest.csv or labels.jsonl).
    Eval {
        /// The labelled set.
        set: PathBuf,
        /// Write the report to OUT.md and OUT.json.
        #[arg(long, value_name = "OUT")]
        report: Option<PathBuf>,
        #[command(flatten)]
        model: ModelArgs,
    },
}

#[derive(Args)]
struct ModelArgs {
    /// Checkpoint folder (config.json + model.bpk) [default: the shipped
    /// checkpoints/default, built into this program when it was compiled].
    #[arg(long)]
    checkpoint: Option<PathBuf>,
    /// Compute backend: flex (CPU), ndarray (CPU), wgpu (GPU; --features wgpu).
    #[arg(long, default_value = "flex")]
    backend: Backend,
    /// Board orientation, when known: white (white at the bottom) or black.
    #[arg(long, value_parser = ["white", "black"])]
    orientation: Option<String>,
    /// Turn off the chess-rule decoding (one king a side, no back-rank pawns).
    #[arg(long)]
    no_constraints: bool,
    /// Do not compare unsure squares with their clearly read twins on the same board.
    #[arg(long)]
    no_twins: bool,
    /// Do not report as unsure the squares read surely that look unlike the other squares
    /// read as the same piece on their square colour.
    #[arg(long)]
    no_unlike_twins: bool,
    /// Do not report as unsure the squares hidden by something drawn over the board (a
    /// dialog, a pop-up: one flat colour over light and dark squares alike).
    #[arg(long)]
    no_hidden: bool,
    /// Do not read unsure squares again from slightly shifted windows.
    #[arg(long)]
    no_relook: bool,
    /// Do not look again, with the coordinate labels painted out, at the squares read as
    /// pieces where the board's labels stand.
    #[arg(long)]
    no_clear_labels: bool,
    /// Do not look again, with a coloured mark painted out, at the squares read as men that
    /// show one bright colour laid over a plain square (a text marker, an arrow).
    #[arg(long)]
    no_clear_marks: bool,
    /// Do not read a faded board (tones squeezed towards grey: a photo of a screen in
    /// daylight, newsprint) or a dim one (an underexposed photo) again with its tones
    /// stretched.
    #[arg(long)]
    no_stretch: bool,
    /// Read a board whose lines bend (a page curling towards a book's spine, a camera's
    /// barrel distortion) as it is, without taking the bend out.
    #[arg(long)]
    no_straighten: bool,
    /// Report squares whose best class is below this probability (0.9 flags about three
    /// quarters of the mistakes on hard synthetic boards, ~3 squares a board; see
    /// BENCHMARKS.md).
    #[arg(long, default_value_t = 0.9)]
    threshold: f32,
}

#[derive(Args)]
struct ReadArgs {
    /// Images (PNG, JPEG, WebP, BMP, GIF, TIFF, SVG), folders of images, glob patterns (`"shots/*.png"`,
    /// expanded here when the shell did not), or `-` for standard input.
    images: Vec<PathBuf>,
    #[command(flatten)]
    model: ModelArgs,
    /// Side to move: w, b, or auto (the side that did not play the last move the picture
    /// highlights; when it shows none, the side in check if one is, else white). Without
    /// it: white, and a note when the picture's last move says otherwise.
    #[arg(long, value_parser = ["w", "b", "auto"])]
    to_move: Option<String>,
    /// Castling rights: `-` (none), `auto` (every right the placement allows) or e.g. `KQkq`.
    #[arg(long, default_value = "-")]
    castling: String,
    /// En-passant square (e.g. e3), `-`, or auto (the square a pawn's highlighted double
    /// step passed over, when a pawn of the other side stands beside it ready to take).
    #[arg(long, default_value = "-")]
    ep: String,
    /// Half-move clock.
    #[arg(long, default_value_t = 0)]
    halfmove: u32,
    /// Full-move number.
    #[arg(long, default_value_t = 1)]
    fullmove: u32,
    /// Print everything as JSON.
    #[arg(long)]
    json: bool,
    /// Read every board in each picture (a page of diagrams, several games on one screen;
    /// at most 16), in reading order: rows top to bottom, each row left to right.
    #[arg(long)]
    all_boards: bool,
    /// Write a side-by-side picture (straightened board with predicted letters | diagram of
    /// the FEN) to this PNG (one image only).
    #[arg(long, value_name = "OUT.png")]
    debug_image: Option<PathBuf>,
    /// Write the 64 crops exactly as the classifier reads them (picture layout, 4x larger)
    /// to this PNG (one image only): what the model saw when it misread a square.
    #[arg(long, value_name = "OUT.png")]
    debug_crops: Option<PathBuf>,
}

fn main() -> ExitCode {
    match run(Opts::parse()) {
        Ok(code) => ExitCode::from(code as u8),
        Err(e) => {
            eprintln!("infer: {e:#}");
            ExitCode::from(Exit::Usage as u8)
        }
    }
}

fn run(opts: Opts) -> Result<Exit> {
    match opts.command {
        Some(Command::Check { fen, json }) => {
            let report = check_text(&fen);
            if json {
                println!("{}", serde_json::to_string_pretty(&report)?);
            } else {
                output::print_check(&report);
            }
            Ok(if report.valid {
                Exit::Ok
            } else {
                Exit::Problems
            })
        }
        Some(Command::Eval { set, report, model }) => eval(&set, report.as_deref(), &model),
        None => read(opts.read),
    }
}

/// The pipeline with the checkpoint `--checkpoint` names, or the built-in one, and how
/// reports name it.
fn load_recognizer(model: &ModelArgs) -> Result<(Recognizer, String)> {
    Ok(match &model.checkpoint {
        Some(dir) => (
            Recognizer::load(dir, model.backend)?,
            dir.display().to_string(),
        ),
        None => (
            Recognizer::new(Classifier::builtin(model.backend)?),
            BUILTIN_NAME.to_string(),
        ),
    })
}

fn recognize_options(model: &ModelArgs) -> RecognizeOptions {
    RecognizeOptions {
        constraints: !model.no_constraints,
        lookalike: (!model.no_twins).then(LookalikeConfig::default),
        relook: (!model.no_relook).then(RelookConfig::default),
        clear_labels: (!model.no_clear_labels).then(ClearLabelsConfig::default),
        clear_marks: (!model.no_clear_marks).then(ClearMarksConfig::default),
        orientation: model.orientation.as_deref().map(|o| {
            if o == "black" {
                Orientation::Black
            } else {
                Orientation::White
            }
        }),
        uncertain_below: model.threshold,
        unlike_twins_margin: if model.no_unlike_twins {
            None
        } else {
            RecognizeOptions::default().unlike_twins_margin
        },
        hidden: if model.no_hidden {
            None
        } else {
            RecognizeOptions::default().hidden
        },
        straighten: !model.no_straighten,
        stretch_faded_below: if model.no_stretch {
            None
        } else {
            RecognizeOptions::default().stretch_faded_below
        },
        ..RecognizeOptions::default()
    }
}

fn fen_fields(a: &ReadArgs) -> Result<FenFields> {
    // Parse the user's fields through the FEN parser so they get the same strict checks.
    fn auto_or<'a>(v: &'a str, stand_in: &'static str) -> &'a str {
        if v == "auto" { stand_in } else { v }
    }
    let castling = auto_or(&a.castling, "-");
    let to_move = a.to_move.as_deref().unwrap_or("w");
    let probe = format!(
        "8/8/8/8/8/8/8/8 {} {castling} {} {} {}",
        auto_or(to_move, "w"),
        auto_or(&a.ep, "-"),
        a.halfmove,
        a.fullmove
    );
    let input = parse_fen(&probe).map_err(|errs| {
        anyhow::anyhow!(
            "{}",
            errs.iter()
                .map(|e| e.to_string())
                .collect::<Vec<_>>()
                .join("; ")
        )
    })?;
    let f = input.fen;
    Ok(FenFields {
        turn: if to_move == "auto" {
            TurnChoice::FromLastMove
        } else {
            TurnChoice::Given(f.turn)
        },
        castling: if a.castling == "auto" {
            CastlingChoice::Auto
        } else {
            CastlingChoice::Explicit(f.castling)
        },
        ep: if a.ep == "auto" {
            EpChoice::FromLastMove
        } else {
            EpChoice::Given(f.ep_square)
        },
        halfmove: f.halfmove,
        fullmove: f.fullmove,
    })
}

fn expand_inputs(inputs: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for p in inputs {
        if p.is_dir() {
            let mut files: Vec<PathBuf> = std::fs::read_dir(p)
                .with_context(|| format!("cannot list {}", p.display()))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|f| {
                    f.extension().and_then(|e| e.to_str()).is_some_and(|e| {
                        [
                            "png", "jpg", "jpeg", "webp", "bmp", "gif", "tif", "tiff", "svg",
                            "svgz",
                        ]
                        .contains(&e.to_ascii_lowercase().as_str())
                    })
                })
                .collect();
            files.sort();
            out.extend(files);
        } else if !p.exists() && is_glob(p) {
            // A pattern the shell left alone (quoted, or a shell that does not expand).
            let pattern = p.to_string_lossy();
            let mut files = Vec::new();
            for entry in
                glob::glob(&pattern).with_context(|| format!("{pattern}: not a valid pattern"))?
            {
                files.push(entry.with_context(|| format!("{pattern}: cannot read a match"))?);
            }
            if files.is_empty() {
                bail!("{pattern}: no file matches");
            }
            files.sort();
            out.extend(files);
        } else {
            out.push(p.clone());
        }
    }
    Ok(out)
}

/// Whether a path holds glob characters (`*`, `?`, `[`).
fn is_glob(p: &Path) -> bool {
    p.to_string_lossy().contains(['*', '?', '['])
}

fn read(a: ReadArgs) -> Result<Exit> {
    if a.images.is_empty() {
        bail!("give an image (or `check FEN`, `eval SET`); see --help");
    }
    let files = expand_inputs(&a.images)?;
    if files.is_empty() {
        bail!(
            "no images found in {}",
            a.images
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    if a.debug_image.is_some() && files.len() > 1 {
        bail!("--debug-image takes one image");
    }
    if a.debug_crops.is_some() && files.len() > 1 {
        bail!("--debug-crops takes one image");
    }
    if a.all_boards && (a.debug_image.is_some() || a.debug_crops.is_some()) {
        bail!("--debug-image and --debug-crops draw one board: drop --all-boards");
    }
    let mut opts = recognize_options(&a.model);
    opts.fields = fen_fields(&a)?;
    let (recognizer, _) = load_recognizer(&a.model)?;
    let many = files.len() > 1;
    let pb = if many {
        ProgressBar::new(files.len() as u64)
    } else {
        ProgressBar::hidden()
    };
    let results: Vec<(PathBuf, Result<output::Outcome, String>)> = files
        .par_iter()
        .map(|f| {
            let r = if a.all_boards {
                output::process_all(&recognizer, f, &opts)
            } else {
                output::process(
                    &recognizer,
                    f,
                    &opts,
                    output::DebugFiles {
                        image: a.debug_image.as_deref(),
                        crops: a.debug_crops.as_deref(),
                    },
                )
            };
            pb.inc(1);
            (f.clone(), r)
        })
        .collect();
    pb.finish_and_clear();
    output::print_results(&results, a.json, many, a.to_move.is_some())
}

fn eval(set: &Path, report: Option<&Path>, model: &ModelArgs) -> Result<Exit> {
    let images = fenscan::eval::read_set(set).map_err(|e| anyhow::anyhow!(e))?;
    if images.is_empty() {
        bail!("{}: no labelled images", set.display());
    }
    let (recognizer, name) = load_recognizer(model)?;
    let opts = recognize_options(model);
    let pb = ProgressBar::new(images.len() as u64);
    let r = fenscan::eval::evaluate(&recognizer, &images, &opts, &|| pb.inc(1));
    pb.finish_and_clear();
    let md = fenscan::eval::to_markdown(
        &r,
        &format!(
            "Evaluation of {}{} on {}",
            name,
            match recognizer.classifier().second_opinion() {
                Some(o) => format!(
                    " (with its second model on squares below {}, weight {})",
                    o.below, o.weight
                ),
                None => String::new(),
            },
            set.display()
        ),
    );
    println!("{md}");
    if let Some(out) = report {
        let (md_path, json_path) = fenscan::eval::report_paths(out);
        fenscan::io::atomic_write(&md_path, md.as_bytes())
            .with_context(|| format!("cannot write {}", md_path.display()))?;
        fenscan::io::atomic_write(&json_path, serde_json::to_string_pretty(&r)?.as_bytes())
            .with_context(|| format!("cannot write {}", json_path.display()))?;
    }
    Ok(Exit::Ok)
}
