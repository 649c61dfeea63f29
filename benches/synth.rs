//! synth throughput: boards/s and squares/s at 512 px with the default mix, on all cores.
//!
//! `cargo bench --bench synth [-- boards|squares]` (prints one markdown table row per
//! measurement; a name runs only that one). `-- checksum` prints a hash of the 400 boards
//! and their squares instead, to show that a speed-up left the output byte-identical.

use std::time::Instant;

use fenscan::dataset::writer::board_squares;
use fenscan::render::{PieceSet, Renderer, SynthConfig, pieces::builtin_dir};
use fenscan::squares::CropConfig;
use rayon::prelude::*;

fn main() {
    let mut cfg = SynthConfig::default();
    cfg.scene.min_board = 512;
    cfg.scene.max_board = 512;
    let sets = vec![PieceSet::load(&builtin_dir()).expect("built-in piece set")];
    let renderer = Renderer::new(sets, cfg).expect("valid config");
    let threads = rayon::current_num_threads();
    let only: Option<String> = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let wanted = |name: &str| only.as_deref().is_none_or(|o| o == name);
    let n = 400u64;
    // warm the piece cache
    (0..16)
        .into_par_iter()
        .for_each(|i| drop(renderer.render(99, i)));

    if only.as_deref() == Some("checksum") {
        let crop = CropConfig::default();
        let hashes: Vec<u64> = (0..n)
            .into_par_iter()
            .map(|i| {
                let board = renderer.render(1, i);
                let squares = board_squares(&renderer, 2, i, &crop, 0.06).crops;
                let mut h = fnv(board.image.as_raw(), 0xcbf2_9ce4_8422_2325);
                for c in &squares {
                    h = fnv(c.as_raw(), h);
                }
                h
            })
            .collect();
        println!(
            "checksum of {n} boards and their squares: {:016x}",
            fnv(
                &hashes
                    .iter()
                    .flat_map(|h| h.to_le_bytes())
                    .collect::<Vec<u8>>(),
                0xcbf2_9ce4_8422_2325
            )
        );
        return;
    }
    if wanted("boards") {
        let t = Instant::now();
        let pixels: u64 = (0..n)
            .into_par_iter()
            .map(|i| {
                let r = renderer.render(1, i);
                u64::from(r.image.width()) * u64::from(r.image.height())
            })
            .sum();
        let secs = t.elapsed().as_secs_f64();
        println!(
            "| boards, 512 px board, default mix | {threads} threads | {:.1} boards/s | mean image {:.2} MP |",
            n as f64 / secs,
            pixels as f64 / n as f64 / 1e6
        );
    }

    if !wanted("squares") {
        return;
    }
    let crop = CropConfig::default();
    let t = Instant::now();
    (0..n)
        .into_par_iter()
        .for_each(|i| drop(board_squares(&renderer, 2, i, &crop, 0.06).crops));
    let secs = t.elapsed().as_secs_f64();
    println!(
        "| squares (render + cut 64 crops of 32 px) | {threads} threads | {:.0} squares/s | {:.1} boards/s |",
        64.0 * n as f64 / secs,
        n as f64 / secs
    );
}

/// FNV-1a over `bytes`, continuing from `h`.
fn fnv(bytes: &[u8], mut h: u64) -> u64 {
    for &b in bytes {
        h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    h
}
