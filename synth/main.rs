//! `synth`: render labelled chess-board images and square datasets.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use clap::{Args, Parser, Subcommand};
use fenscan::dataset::writer::{
    DatasetKind, ExistingDir, RunSpec, prepare, write_boards, write_squares,
};
use fenscan::render::{PieceSet, Renderer, SynthConfig};
use fenscan::squares::CropConfig;
use indicatif::{ProgressBar, ProgressStyle};

#[derive(Parser)]
#[command(
    name = "synth",
    version,
    about = "Render random chess positions as realistic board images with exact labels"
)]
struct Opts {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Whole images plus labels.jsonl (placement, orientation, corners, style, effects).
    Boards(RunArgs),
    /// Square crops, cut as infer cuts them, in `DIR/<class>/*.png`.
    Squares {
        #[command(flatten)]
        run: RunArgs,
        /// Largest simulated board-finder error, as a fraction of a square.
        #[arg(long, default_value_t = 0.06)]
        corner_jitter: f32,
    },
    /// A contact sheet: a grid of random samples, to look at the variety.
    Sheet {
        /// Output PNG.
        #[arg(long)]
        out: PathBuf,
        /// Number of samples.
        #[arg(long, default_value_t = 24)]
        count: u64,
        /// Seed.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        #[command(flatten)]
        style: StyleArgs,
        /// Replace OUT if it exists.
        #[arg(long)]
        overwrite: bool,
    },
    /// Every piece set's 12 pieces in a row (K Q R B N P, white then black), one set a
    /// row: to check that a new set loads each piece into the right class.
    Pieces {
        /// Output PNG.
        #[arg(long)]
        out: PathBuf,
        /// A folder holding piece sets (as for `boards`). Repeatable.
        #[arg(long = "pieces", value_name = "DIR")]
        pieces: Vec<PathBuf>,
        /// Replace OUT if it exists.
        #[arg(long)]
        overwrite: bool,
    },
    /// Procedural turned (3D-looking) Staunton piece sets, written as SVG sets into
    /// `OUT/staunton-<seed>-<i>/` for `--pieces OUT`: slender men shaded round, in
    /// proportions, colours and light drawn from the seed.
    Staunton {
        /// Output folder (must not hold sets of the same seed unless --overwrite).
        #[arg(long)]
        out: PathBuf,
        /// Number of sets.
        #[arg(long, default_value_t = 12)]
        count: u64,
        /// Seed: set i of a seed is the same whatever the count.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Replace sets of the same names.
        #[arg(long)]
        overwrite: bool,
    },
}

#[derive(Args)]
struct StyleArgs {
    /// A folder holding piece sets, one sub-folder per set with wK.svg ... bP.svg (or .png).
    /// Repeatable. Default: the project's own set in data/pieces.
    #[arg(long = "pieces", value_name = "DIR")]
    pieces: Vec<PathBuf>,
    /// A JSON file with the rendering configuration (see fenscan::render::config); missing
    /// fields keep their defaults.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
}

#[derive(Args)]
struct RunArgs {
    /// Number of boards.
    #[arg(long)]
    count: u64,
    /// Output folder.
    #[arg(long)]
    out: PathBuf,
    /// Seed: the same seed and arguments give byte-identical output.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    #[command(flatten)]
    style: StyleArgs,
    /// Worker threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
    /// Continue an interrupted run in OUT.
    #[arg(long, conflicts_with = "overwrite")]
    resume: bool,
    /// Replace a previous synth run in OUT.
    #[arg(long)]
    overwrite: bool,
}

fn main() -> ExitCode {
    match run(Opts::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("synth: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn load_renderer(style: &StyleArgs) -> Result<Renderer> {
    let cfg: SynthConfig = match &style.config {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("cannot read config {}", path.display()))?;
            serde_json::from_str(&text).with_context(|| format!("config {}", path.display()))?
        }
        None => SynthConfig::default(),
    };
    let sets = PieceSet::load_dirs(&style.pieces)?;
    Renderer::new(sets, cfg).map_err(|e| anyhow::anyhow!("invalid configuration: {e}"))
}

fn bar(total: u64, start: u64, unit: &str) -> ProgressBar {
    let pb = ProgressBar::new(total);
    let style = ProgressStyle::with_template(&format!(
        "{{bar:40}} {{pos}}/{{len}} {unit} {{per_sec}} ETA {{eta}}"
    ))
    .unwrap_or_else(|_| ProgressStyle::default_bar());
    pb.set_style(style);
    pb.set_position(start);
    pb
}

fn run(opts: Opts) -> Result<()> {
    match opts.command {
        Command::Boards(args) => generate(args, DatasetKind::Boards, None),
        Command::Squares { run, corner_jitter } => {
            if !(0.0..=0.5).contains(&corner_jitter) {
                bail!("--corner-jitter {corner_jitter}: must be between 0 and 0.5");
            }
            generate(run, DatasetKind::Squares, Some(corner_jitter))
        }
        Command::Sheet {
            out,
            count,
            seed,
            style,
            overwrite,
        } => {
            refuse_overwrite(&out, overwrite)?;
            let renderer = load_renderer(&style)?;
            let sheet = fenscan::render::sheet::contact_sheet(&renderer, seed, count.clamp(1, 400));
            write_png(&out, &sheet)?;
            eprintln!("wrote {} ({} samples)", out.display(), count);
            Ok(())
        }
        Command::Pieces {
            out,
            pieces,
            overwrite,
        } => {
            refuse_overwrite(&out, overwrite)?;
            let sets = PieceSet::load_dirs(&pieces)?;
            write_png(&out, &fenscan::render::sheet::piece_sheet(&sets))?;
            eprintln!("wrote {} ({} sets)", out.display(), sets.len());
            Ok(())
        }
        Command::Staunton {
            out,
            count,
            seed,
            overwrite,
        } => {
            if count == 0 {
                bail!("--count must be at least 1");
            }
            for i in 0..count {
                let name = fenscan::render::staunton::staunton_set_name(seed, i);
                refuse_overwrite(&out.join(name), overwrite)?;
            }
            let names = fenscan::render::staunton::write_staunton_sets(&out, seed, count)
                .with_context(|| format!("cannot write piece sets into {}", out.display()))?;
            eprintln!("wrote {} piece sets into {}", names.len(), out.display());
            Ok(())
        }
    }
}

/// Checked before any work: an existing file is replaced only when asked.
fn refuse_overwrite(out: &std::path::Path, overwrite: bool) -> Result<()> {
    if out.exists() && !overwrite {
        bail!("{} exists: pass --overwrite to replace it", out.display());
    }
    Ok(())
}

/// Writes `img` as a PNG, atomically.
fn write_png(out: &std::path::Path, img: &image::RgbImage) -> Result<()> {
    let bytes = fenscan::io::png_bytes(img)?;
    fenscan::io::atomic_write(out, &bytes)
        .with_context(|| format!("cannot write {}", out.display()))
}

fn generate(args: RunArgs, kind: DatasetKind, jitter: Option<f32>) -> Result<()> {
    if args.count == 0 {
        bail!("--count must be at least 1");
    }
    let renderer = load_renderer(&args.style)?;
    if let (DatasetKind::Squares, Some(why)) = (kind, renderer.config().squares_refused()) {
        bail!("invalid configuration: {why}");
    }
    let spec = RunSpec {
        kind,
        seed: args.seed,
        count: args.count,
        piece_sets: renderer.sets().iter().map(|s| s.name.clone()).collect(),
        config: *renderer.config(),
        crop: jitter.map(|_| CropConfig::default()),
        corner_jitter: jitter,
    };
    let existing = if args.resume {
        ExistingDir::Resume
    } else if args.overwrite {
        ExistingDir::Overwrite
    } else {
        ExistingDir::Refuse
    };
    let start = prepare(&args.out, &spec, existing)?;
    let threads = args
        .threads
        .unwrap_or_else(|| {
            std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1)
        })
        .max(1);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()?;
    let pb = bar(args.count, start, "boards");
    let progress = |done: u64| pb.set_position(done);
    let chunk = (threads * 4) as u64;
    pool.install(|| match kind {
        DatasetKind::Boards => write_boards(&renderer, &args.out, &spec, start, chunk, &progress),
        DatasetKind::Squares => write_squares(&renderer, &args.out, &spec, start, chunk, &progress),
    })?;
    pb.finish();
    eprintln!(
        "wrote {} boards to {}",
        args.count - start,
        args.out.display()
    );
    Ok(())
}
