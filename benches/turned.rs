//! Labelled pictures turned a quarter (a phone photo without its orientation tag, a page
//! scanned sideways): each image of each set is turned a quarter, clockwise and
//! anticlockwise by turns, and read with the shipped checkpoint; exact boards per set and
//! kind, beside the same images upright. The pipeline's defaults, as `infer eval` runs it
//! (the orientation is the pipeline's own).
//!
//! `cargo bench --bench turned -- SET...` (a folder with manifest.csv or labels.jsonl),
//! e.g. `cargo bench --bench turned -- ../shared/dev/*/`. `BENCH_CHECKPOINT=DIR` reads with
//! that checkpoint instead of the shipped one.

use std::collections::BTreeMap;

use fenscan::recognize::RecognizeOptions;
use rayon::prelude::*;

#[path = "common/labelled.rs"]
mod labelled;

fn main() {
    let sets = labelled::sets_from_args("turned");
    let rec = labelled::shipped();
    println!("| set | kind | images | exact upright | exact turned a quarter |");
    println!("| --- | --- | --- | --- | --- |");
    for (set, images) in &sets {
        let results: Vec<(String, bool, bool, String)> = images
            .par_iter()
            .enumerate()
            .map(|(k, li)| {
                let opts = RecognizeOptions::default();
                let Ok(img) = fenscan::io::open_image(&li.file) else {
                    return (li.kind.clone(), false, false, String::new());
                };
                let turned = if k % 2 == 0 {
                    image::imageops::rotate90(&img)
                } else {
                    image::imageops::rotate270(&img)
                };
                let exact = |img: &image::RgbImage| {
                    rec.recognize(img, &opts)
                        .is_ok_and(|r| r.placement == li.placement)
                };
                let (up, turn) = (exact(&img), exact(&turned));
                (li.kind.clone(), up, turn, li.file.display().to_string())
            })
            .collect();
        // kind -> (images, exact upright, exact turned)
        let mut by_kind: BTreeMap<String, (usize, usize, usize)> = BTreeMap::new();
        for (kind, up, turn, file) in &results {
            for key in ["all".to_string(), kind.clone()] {
                let e = by_kind.entry(key).or_default();
                e.0 += 1;
                e.1 += usize::from(*up);
                e.2 += usize::from(*turn);
            }
            if *up && !turn {
                eprintln!("{file}: read upright, not turned");
            }
        }
        for (kind, (n, up, turn)) in by_kind {
            println!("| {set} | {kind} | {n} | {up} | {turn} |");
        }
    }
}
