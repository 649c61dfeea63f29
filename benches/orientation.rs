//! Orientation from the position alone, as infer decides it on boards whose coordinate
//! labels cannot be read: real positions from chess text files, each read as drawn from
//! white's side and, half turned, as drawn from black's side. Per corpus: right, undecided
//! (white assumed) and wrong, each way up; plus random valid placements (which say
//! nothing) turned to black's side.
//!
//! `data/fetch-positions && cargo bench --bench orientation [-- PATH...]`; without PATH,
//! every folder under data/positions. PATH: a .pgn, .fen/.epd, .eco or .olv file, or a
//! folder of them.

use std::path::PathBuf;
use std::process::ExitCode;

use fenscan::orientation::corpus::read_corpus;
use fenscan::orientation::{OrientationSource, could_be_from_a_game, from_position};
use fenscan::placement::Placement;
use fenscan::render::Orientation;
use fenscan::render::positions::random_placement;
use rand::SeedableRng;

/// Right, undecided, wrong.
#[derive(Default)]
struct Tally([usize; 3]);

impl Tally {
    fn add(&mut self, as_read: &Placement, truth: Orientation) {
        let d = from_position(as_read);
        let k = if d.source == OrientationSource::Default {
            1
        } else if d.orientation == truth {
            0
        } else {
            2
        };
        self.0[k] += 1;
    }

    fn cell(&self, n: usize) -> String {
        let pct = |k: usize| 100.0 * self.0[k] as f64 / n.max(1) as f64;
        format!("{:.1}% / {:.1}% / {:.1}%", pct(0), pct(1), pct(2))
    }
}

fn main() -> ExitCode {
    let args: Vec<PathBuf> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .map(PathBuf::from)
        .collect();
    let paths = if args.is_empty() {
        let mut dirs: Vec<PathBuf> = std::fs::read_dir("data/positions")
            .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
            .unwrap_or_default();
        dirs.sort();
        dirs
    } else {
        args
    };
    if paths.is_empty() {
        eprintln!("orientation: no positions; run data/fetch-positions or name files");
        return ExitCode::FAILURE;
    }
    println!(
        "| corpus | positions | from a game | white below: right / undecided / wrong | \
         black below: right / undecided (white assumed) / wrong |"
    );
    println!("| --- | --- | --- | --- | --- |");
    for path in &paths {
        let corpus = match read_corpus(path) {
            Ok(c) => c,
            Err(e) => {
                eprintln!("orientation: {e}");
                return ExitCode::FAILURE;
            }
        };
        let game: Vec<&Placement> = corpus
            .positions
            .iter()
            .filter(|p| could_be_from_a_game(p))
            .collect();
        let (mut white, mut black) = (Tally::default(), Tally::default());
        for p in &game {
            white.add(p, Orientation::White);
            black.add(&p.rotated_180(), Orientation::Black);
        }
        println!(
            "| {} | {} | {} | {} | {} |",
            corpus.name,
            corpus.positions.len(),
            game.len(),
            white.cell(game.len()),
            black.cell(game.len())
        );
    }
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
    let n = 2000;
    let mut random = Tally::default();
    for _ in 0..n {
        random.add(&random_placement(&mut rng), Orientation::White);
    }
    println!(
        "| random valid placements (seed 1), drawn white below | {n} | {n} | {} | |",
        random.cell(n)
    );
    ExitCode::SUCCESS
}
