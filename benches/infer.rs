//! End-to-end speed of `infer` with the shipped checkpoint: 1920x1080 PNG screenshots
//! (synth-rendered, board 240-900 px with clutter), from PNG bytes to checked FEN.
//! Median per image on one thread, throughput on all threads, peak memory.
//!
//! `cargo bench --bench infer` (`-- no-relook`: without the second look at unsure squares,
//! `-- no-unlike-twins`: without the unlike-twins flags, `-- no-board-context`: without the
//! board-context correction, to measure what a step costs; `-- large`: boards of 640-900 px
//! only, as a browser window of that size shows lichess or chess.com)

use std::path::Path;
use std::time::Instant;

use fenscan::classifier::Backend;
use fenscan::recognize::{RecognizeOptions, Recognizer};
use fenscan::render::{PieceSet, Renderer, SynthConfig, pieces::builtin_dir};
use rayon::prelude::*;

fn peak_rss_mb() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok())
        })
        .map(|kb| kb / 1024.0)
        .unwrap_or(0.0)
}

fn main() {
    let mut cfg = SynthConfig::default();
    cfg.scene.cropped = 0.0;
    let large = std::env::args().skip(1).any(|a| a == "large");
    cfg.scene.min_board = if large { 640 } else { 240 };
    cfg.scene.max_board = 900;
    let renderer =
        Renderer::new(vec![PieceSet::load(&builtin_dir()).expect("pieces")], cfg).expect("config");
    // 1920x1080 screenshots: the rendered scene pasted on a canvas of that size.
    let n = 24;
    let pngs: Vec<Vec<u8>> = (0..n)
        .map(|i| {
            let r = renderer.render(7, i);
            let mut canvas = image::RgbImage::from_pixel(1920, 1080, image::Rgb([30, 30, 32]));
            let small = if r.image.width() > 1920 || r.image.height() > 1080 {
                image::imageops::thumbnail(&r.image, 1900, 1060)
            } else {
                r.image
            };
            image::imageops::overlay(&mut canvas, &small, 10, 10);
            fenscan::io::png_bytes(&canvas).expect("png")
        })
        .collect();
    let classifier = fenscan::classifier::Classifier::load(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("checkpoints/default"),
        Backend::Flex,
    )
    .expect("checkpoint");
    let classifier = if std::env::args().skip(1).any(|a| a == "no-board-context") {
        classifier.with_board_context(None)
    } else {
        classifier
    };
    let rec = Recognizer::new(classifier);
    let mut opts = RecognizeOptions::default();
    if std::env::args().skip(1).any(|a| a == "no-relook") {
        opts.relook = None;
    }
    if std::env::args().skip(1).any(|a| a == "no-unlike-twins") {
        opts.unlike_twins_margin = None;
    }
    let stages = std::sync::Mutex::new(Vec::new());
    let run = |bytes: &Vec<u8>| {
        let t = Instant::now();
        let img = fenscan::io::decode_image(bytes, "bench").expect("decode");
        let png_ms = t.elapsed().as_secs_f64() * 1000.0;
        if let Ok(r) = rec.recognize(&img, &opts) {
            let [find, cut, classify, decode] = r.timings_ms;
            if let Ok(mut s) = stages.lock() {
                s.push([png_ms, find, cut, classify, decode]);
            }
        }
    };
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("pool");
    let mut times: Vec<f64> = Vec::new();
    one.install(|| {
        run(&pngs[0]);
        for p in &pngs {
            let t = Instant::now();
            run(p);
            times.push(t.elapsed().as_secs_f64() * 1000.0);
        }
    });
    times.sort_by(f64::total_cmp);
    let median = times[times.len() / 2];
    let t = Instant::now();
    pngs.par_iter().for_each(run);
    let per_s = n as f64 / t.elapsed().as_secs_f64();
    println!(
        "| 1920x1080 PNG, one thread | median {median:.0} ms (min {:.0}, max {:.0}) |",
        times[0],
        times[times.len() - 1]
    );
    println!(
        "| 1920x1080 PNG, {} threads | {per_s:.1} images/s |",
        rayon::current_num_threads()
    );
    println!("| peak resident memory | {:.0} MB |", peak_rss_mb());
    let s = stages.lock().map(|s| s.clone()).unwrap_or_default();
    let names = [
        "PNG decode",
        "find board",
        "cut squares",
        "classify 64",
        "decode + check",
    ];
    for (k, name) in names.iter().enumerate() {
        let mut v: Vec<f64> = s.iter().map(|x| x[k]).collect();
        v.sort_by(f64::total_cmp);
        if let Some(m) = v.get(v.len() / 2) {
            println!("| stage: {name} (median, mixed 1 and 2 threads) | {m:.1} ms |");
        }
    }
}
