//! The board finder on photo-like boards: the fixed perspective set of
//! `data/configs/perspective.json` (seed 7, the project's own piece set: perspective up to a
//! quarter of the side, half of the boards turned up to 45 degrees, clutter, the default
//! degradations), corner error and found rate; pages of text without a board (how many are
//! taken for one); then the time per 12-megapixel photo.
//!
//! `cargo bench --bench finder [-- COUNT [SEED]]` (default 300 boards, seed 7; the published
//! figures are seed 7, other seeds are fresh sets to develop on)

use std::path::Path;
use std::time::Instant;

use fenscan::board::{FinderConfig, find};
use fenscan::classifier::Backend;
use fenscan::eval::corner_error;
use fenscan::recognize::{RecognizeOptions, Recognizer};
use fenscan::render::{PieceSet, Renderer, SynthConfig, pieces::builtin_dir};
use rayon::prelude::*;

fn main() {
    let numbers: Vec<u64> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let count = numbers.first().copied().unwrap_or(300);
    let seed = numbers.get(1).copied().unwrap_or(7);
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("data/configs/perspective.json")).expect("config");
    let cfg: SynthConfig = serde_json::from_str(&text).expect("config parses");
    let renderer =
        Renderer::new(vec![PieceSet::load(&builtin_dir()).expect("pieces")], cfg).expect("config");
    let finder = FinderConfig::default();
    // (corner error or None when not found, milliseconds, what the board is)
    let results: Vec<(Option<f32>, f64, String)> = (0..count)
        .into_par_iter()
        .map(|i| {
            let r = renderer.render(seed, i);
            let t = Instant::now();
            let found = find(&r.image, &finder).ok();
            let ms = t.elapsed().as_secs_f64() * 1000.0;
            let what = format!(
                "{}, {:.0} px a square, {}",
                r.theme,
                r.quad.mean_side() / 8.0,
                r.effects.join(" ")
            );
            (found.map(|f| corner_error(&f.quad, &r.quad)), ms, what)
        })
        .collect();
    for (i, (error, _, what)) in results.iter().enumerate() {
        match error {
            None => println!("board {i}: not found ({what})"),
            Some(e) if *e >= 0.02 => println!("board {i}: corner error {:.1}% ({what})", e * 100.0),
            _ => {}
        }
    }
    let mut errors: Vec<f32> = results.iter().filter_map(|r| r.0).collect();
    errors.sort_by(f32::total_cmp);
    let pct = |q: f64| {
        errors[((q * errors.len() as f64).ceil() as usize).clamp(1, errors.len()) - 1] * 100.0
    };
    let within = errors.iter().filter(|&&e| e < 0.02).count();
    println!(
        "| perspective set, {count} boards | found {} | within 2% of the side {} ({:.1}%) |",
        errors.len(),
        within,
        within as f64 * 100.0 / count as f64
    );
    if !errors.is_empty() {
        println!(
            "| corner error (share of the side) | median {:.2}% | 99th percentile {:.2}% |",
            pct(0.5),
            pct(0.99)
        );
    }

    // Pages of text without a board: every face at six sizes of type (lines of glyphs
    // hold lattices of X-corners); then screen-sized pages, 8-72 px type.
    let faces = fenscan::render::text::fonts().len();
    let pages: Vec<(usize, f32, u32, u32)> = (0..faces)
        .flat_map(|f| [16.0, 20.0, 24.0, 30.0, 36.0, 44.0].map(|s| (f, s, 940, 600)))
        .collect();
    let screens: Vec<(usize, f32, u32, u32)> = (0..faces.min(6))
        .flat_map(|f| {
            [
                8.0, 10.0, 12.0, 14.0, 16.0, 20.0, 24.0, 28.0, 32.0, 40.0, 56.0, 72.0,
            ]
            .into_iter()
            .flat_map(move |s| [(1280, 720), (1920, 1080), (2560, 1440)].map(|(w, h)| (f, s, w, h)))
        })
        .collect();
    for (what, pages) in [("text pages", pages), ("screen-sized text pages", screens)] {
        let taken = false_boards(&pages, &finder);
        println!(
            "| {what} without a board, {} | taken for a board {} | {} |",
            pages.len(),
            taken.len(),
            taken.join(", ")
        );
    }

    // A 12-megapixel photo: a perspective render scaled up to 4000 x 3000.
    let rec =
        Recognizer::load(&root.join("checkpoints/default"), Backend::Flex).expect("checkpoint");
    let photos: Vec<image::RgbImage> = (0..5)
        .map(|i| {
            let r = renderer.render(8, i);
            image::imageops::resize(&r.image, 4000, 3000, image::imageops::FilterType::Triangle)
        })
        .collect();
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("pool");
    let (mut find_ms, mut all_ms) = (Vec::new(), Vec::new());
    one.install(|| {
        for p in &photos {
            let t = Instant::now();
            let _ = find(p, &finder);
            find_ms.push(t.elapsed().as_secs_f64() * 1000.0);
            let t = Instant::now();
            let _ = rec.recognize(p, &RecognizeOptions::default());
            all_ms.push(t.elapsed().as_secs_f64() * 1000.0);
        }
    });
    find_ms.sort_by(f64::total_cmp);
    all_ms.sort_by(f64::total_cmp);
    println!(
        "| 12 MP photo, one thread, decoded | find board: median {:.0} ms | whole pipeline: median {:.0} ms |",
        find_ms[find_ms.len() / 2],
        all_ms[all_ms.len() / 2]
    );
}

/// The pages of text (face, type size, width, height) the finder takes for a board.
fn false_boards(pages: &[(usize, f32, u32, u32)], finder: &FinderConfig) -> Vec<String> {
    pages
        .par_iter()
        .filter_map(|&(font, size, w, h)| {
            let page = fenscan::render::text::text_page(font, size, w, h, 40.0)?;
            find(&page, finder)
                .ok()
                .map(|_| format!("face {font} at {size} px on {w}x{h}"))
        })
        .collect()
}
