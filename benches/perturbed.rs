//! Labelled pictures as they travel: each image of each set is read as it is and after each
//! of a few everyday changes (doubled, shrunk to half and to a third, saved again as a poor JPEG, cropped to the
//! board or a little inside it, turned a few degrees, photographed at a slant, washed out, darkened), with the
//! shipped checkpoint and the pipeline's defaults, as `infer eval` runs it. Exact boards per
//! set, kind and change. The crops use the board the upright reading found (a picture whose
//! board is not found upright is not cropped).
//!
//! `cargo bench --bench perturbed -- SET...` (a folder with manifest.csv or labels.jsonl),
//! e.g. `cargo bench --bench perturbed -- ../shared/dev/*/`. With `PERTURBED_DUMP=DIR`, each
//! changed picture read wrongly (where the picture as it is reads right) is written there
//! as a PNG to look at.

use std::collections::BTreeMap;
use std::path::Path;

use fenscan::quad::Quad;
use fenscan::recognize::RecognizeOptions;
use image::{Rgb, RgbImage, imageops};
use rayon::prelude::*;

#[path = "common/labelled.rs"]
mod labelled;

/// The changes, in table order ("as is" first).
const CHANGES: [&str; 12] = [
    "as is", "double", "half", "third", "jpeg 30", "board", "inside", "turn 3", "turn 10", "tilt",
    "washed", "dark",
];

fn main() {
    let sets = labelled::sets_from_args("perturbed");
    let rec = labelled::shipped();
    println!("| set | kind | images | {} |", CHANGES.join(" | "));
    println!("| --- | --- | --- |{}", " --- |".repeat(CHANGES.len()));
    for (set, images) in &sets {
        let results: Vec<(String, Vec<bool>)> = images
            .par_iter()
            .map(|li| {
                let opts = RecognizeOptions::default();
                let Ok(img) = fenscan::io::open_image(&li.file) else {
                    return (li.kind.clone(), vec![false; CHANGES.len()]);
                };
                let upright = rec.recognize(&img, &opts).ok();
                let quad = upright.as_ref().map(|r| r.board.quad);
                let exact: Vec<bool> = CHANGES
                    .iter()
                    .enumerate()
                    .map(|(k, change)| {
                        if k == 0 {
                            return upright
                                .as_ref()
                                .is_some_and(|r| r.placement == li.placement);
                        }
                        let Some(changed) = apply(change, &img, quad.as_ref()) else {
                            return false;
                        };
                        let ok = rec
                            .recognize(&changed, &opts)
                            .is_ok_and(|r| r.placement == li.placement);
                        let right_as_is = upright
                            .as_ref()
                            .is_some_and(|r| r.placement == li.placement);
                        if !ok && right_as_is {
                            eprintln!("{}: read as is, not {change}", li.file.display());
                            dump(&changed, &li.file, change);
                        } else if ok && !right_as_is {
                            eprintln!("{}: read {change}, not as is", li.file.display());
                        }
                        ok
                    })
                    .collect();
                (li.kind.clone(), exact)
            })
            .collect();
        // kind -> (images, exact per change)
        let mut by_kind: BTreeMap<String, (usize, Vec<usize>)> = BTreeMap::new();
        for (kind, exact) in &results {
            for key in ["all".to_string(), kind.clone()] {
                let e = by_kind
                    .entry(key)
                    .or_insert_with(|| (0, vec![0; CHANGES.len()]));
                e.0 += 1;
                for (count, ok) in e.1.iter_mut().zip(exact) {
                    *count += usize::from(*ok);
                }
            }
        }
        for (kind, (n, counts)) in by_kind {
            let cells: Vec<String> = counts.iter().map(|c| c.to_string()).collect();
            println!("| {set} | {kind} | {n} | {} |", cells.join(" | "));
        }
    }
}

/// Writes a changed picture to `$PERTURBED_DUMP/<stem>-<change>.png`, when that is set.
fn dump(img: &RgbImage, file: &Path, change: &str) {
    let Some(dir) = std::env::var_os("PERTURBED_DUMP") else {
        return;
    };
    let stem = file.file_stem().map(|s| s.to_string_lossy().into_owned());
    let name = format!(
        "{}-{}.png",
        stem.unwrap_or_default(),
        change.replace(' ', "")
    );
    let path = Path::new(&dir).join(name);
    if let Err(e) =
        std::fs::create_dir_all(&dir).and_then(|_| img.save(&path).map_err(std::io::Error::other))
    {
        eprintln!("{}: {e}", path.display());
    }
}

/// The picture after `change`; `None` when it needs the board and none was found.
fn apply(change: &str, img: &RgbImage, quad: Option<&Quad>) -> Option<RgbImage> {
    let (w, h) = img.dimensions();
    Some(match change {
        // A high-density screen's screenshot, one shared at half size, a thumbnail.
        "double" => imageops::resize(img, w * 2, h * 2, imageops::FilterType::Triangle),
        "half" => imageops::resize(
            img,
            w.div_ceil(2),
            h.div_ceil(2),
            imageops::FilterType::Triangle,
        ),
        "third" => imageops::resize(
            img,
            w.div_ceil(3),
            h.div_ceil(3),
            imageops::FilterType::Triangle,
        ),
        "jpeg 30" => {
            let mut bytes = Vec::new();
            image::codecs::jpeg::JpegEncoder::new_with_quality(&mut bytes, 30)
                .encode_image(img)
                .ok()?;
            image::load_from_memory(&bytes).ok()?.to_rgb8()
        }
        // The board's bounding box (a user's crop), and 2% of its side inside it.
        "board" => crop_to(img, quad?, 0.0),
        "inside" => crop_to(img, quad?, -0.02),
        // Turned on a canvas grown by a tenth of the longer side each way, so that no
        // corner of the picture is cut off.
        "turn 3" => turned(img, 3.0),
        "turn 10" => turned(img, -10.0),
        // Photographed from below and a little to the left: the top edge shorter and
        // lower on the left.
        "tilt" => {
            let (w, h) = (w as f32, h as f32);
            let from = [(0.0, 0.0), (w, 0.0), (w, h), (0.0, h)];
            let to = [
                (0.12 * w, 0.06 * h),
                (0.9 * w, 0.0),
                (w, h),
                (0.0, 0.95 * h),
            ];
            let projection =
                imageproc::geometric_transformations::Projection::from_control_points(from, to)?;
            imageproc::geometric_transformations::warp(
                img,
                projection,
                imageproc::geometric_transformations::Interpolation::Bilinear,
                imageproc::geometric_transformations::Border::Constant(Rgb([255, 255, 255])),
            )
        }
        // A photo of a screen in daylight: the tones squeezed towards light grey.
        "washed" => map_pixels(img, |v| 90.0 + 0.6 * v),
        // An underexposed photo.
        "dark" => map_pixels(img, |v| 255.0 * (v / 255.0).powf(2.2) * 0.8),
        _ => unreachable!("unknown change {change}"),
    })
}

/// `img` turned `degrees` clockwise about its centre on a white canvas a fifth larger.
fn turned(img: &RgbImage, degrees: f32) -> RgbImage {
    let pad = img.width().max(img.height()) / 10;
    let mut canvas = RgbImage::from_pixel(
        img.width() + 2 * pad,
        img.height() + 2 * pad,
        Rgb([255, 255, 255]),
    );
    imageops::replace(&mut canvas, img, i64::from(pad), i64::from(pad));
    imageproc::geometric_transformations::rotate_about_center(
        &canvas,
        degrees.to_radians(),
        imageproc::geometric_transformations::Interpolation::Bilinear,
        imageproc::geometric_transformations::Border::Constant(Rgb([255, 255, 255])),
    )
}

/// Crops to the quad's bounding box grown by `margin` of its width/height (negative: inside).
fn crop_to(img: &RgbImage, quad: &Quad, margin: f32) -> RgbImage {
    let (x0, y0, x1, y1) = quad.bounds();
    let (mx, my) = ((x1 - x0) * margin, (y1 - y0) * margin);
    let (w, h) = img.dimensions();
    let left = (x0 - mx).round().clamp(0.0, (w - 1) as f32) as u32;
    let top = (y0 - my).round().clamp(0.0, (h - 1) as f32) as u32;
    let right = ((x1 + mx).round() as u32).clamp(left + 1, w);
    let bottom = ((y1 + my).round() as u32).clamp(top + 1, h);
    imageops::crop_imm(img, left, top, right - left, bottom - top).to_image()
}

fn map_pixels(img: &RgbImage, f: impl Fn(f32) -> f32) -> RgbImage {
    let mut out = img.clone();
    for p in out.pixels_mut() {
        for c in p.0.iter_mut() {
            *c = f(*c as f32).round().clamp(0.0, 255.0) as u8;
        }
    }
    out
}
