//! Labelled pictures as they travel: each image of each set is read as it is and after each
//! of a few everyday changes (doubled, shrunk to half and to a third, saved again as a poor JPEG, cropped to the
//! board or a little inside it, turned a few degrees, photographed at a slant, washed out, darkened, squashed,
//! out of focus, noisy, under warm light, in greys; the stronger of two settings is where
//! the pipeline starts to break), with the
//! shipped checkpoint and the pipeline's defaults, as `infer eval` runs it. Exact boards per
//! set, kind and change. The crops use the board the upright reading found (a picture whose
//! board is not found upright is not cropped).
//!
//! `cargo bench --bench perturbed -- SET...` (a folder with manifest.csv or labels.jsonl),
//! e.g. `cargo bench --bench perturbed -- ../shared/dev/*/`. With `PERTURBED_DUMP=DIR`, each
//! changed picture read wrongly (where the picture as it is reads right) is written there
//! as a PNG to look at. `BENCH_CHECKPOINT=DIR` reads with that checkpoint instead of the
//! shipped one.

use std::collections::BTreeMap;
use std::path::Path;

use fenscan::quad::Quad;
use fenscan::recognize::RecognizeOptions;
use fenscan::render::camera;
use image::{Rgb, RgbImage, imageops};
use rayon::prelude::*;

#[path = "common/labelled.rs"]
mod labelled;

/// The changes, in table order ("as is" first).
const CHANGES: [&str; 22] = [
    "as is",
    "double",
    "half",
    "third",
    "quarter",
    "jpeg 30",
    "board",
    "inside",
    "left 6",
    "turn 3",
    "turn 10",
    "tilt",
    "washed",
    "dark",
    "squash 75",
    "squash 60",
    "blur 5",
    "blur 10",
    "noise 10",
    "noise 20",
    "warm",
    "grey",
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
        "half" => shrunk(img, 2),
        "third" => shrunk(img, 3),
        "quarter" => shrunk(img, 4),
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
        // A crop through the a-file: the picture's left side cut off up to 6% of the board
        // inside its edge (half an edge square), the rest kept.
        "left 6" => {
            let (x0, _, x1, _) = quad?.bounds();
            let left = (x0 + 0.06 * (x1 - x0)).round().clamp(0.0, (w - 1) as f32) as u32;
            imageops::crop_imm(img, left, 0, w - left, h).to_image()
        }
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
        // A picture stored with the wrong aspect ratio: an app that squeezes a 4:3 photo
        // into a square (75%), or a 16:9 one (about 60%).
        "squash 75" => camera::squashed(img, 0.75, true),
        "squash 60" => camera::squashed(img, 0.6, true),
        // Out of focus: blurred by 5% and 10% of a square (the board as found upright).
        "blur 5" => imageops::blur(img, (0.05 * quad?.mean_side() / 8.0).max(0.5)),
        "blur 10" => imageops::blur(img, (0.10 * quad?.mean_side() / 8.0).max(0.5)),
        // A phone's sensor noise in a dim room (Gaussian, 10 and 20 grey levels, seeded).
        "noise 10" => noisy(img, 10.0),
        "noise 20" => noisy(img, 20.0),
        // Tungsten light, no white balance: blue cut, green a little.
        "warm" => {
            let mut out = img.clone();
            for p in out.pixels_mut() {
                let [r, g, b] = p.0.map(f32::from);
                p.0 = [r, 0.85 * g, 0.6 * b].map(|v| v.round().clamp(0.0, 255.0) as u8);
            }
            out
        }
        // A greyscale print or screenshot.
        "grey" => image::DynamicImage::ImageRgb8(img.clone())
            .grayscale()
            .to_rgb8(),
        _ => unreachable!("unknown change {change}"),
    })
}

/// `img` shrunk to 1/`k` of its size (Triangle filter, as a browser or an app shrinks).
fn shrunk(img: &RgbImage, k: u32) -> RgbImage {
    let (w, h) = img.dimensions();
    imageops::resize(
        img,
        w.div_ceil(k),
        h.div_ceil(k),
        imageops::FilterType::Triangle,
    )
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

/// `img` with Gaussian noise of standard deviation `sd` on every channel (a fixed seed, so
/// every run reads the same pictures).
fn noisy(img: &RgbImage, sd: f32) -> RgbImage {
    use rand::{RngExt, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
    let mut out = img.clone();
    for c in out.iter_mut() {
        // Box-Muller.
        let (u1, u2): (f32, f32) = (rng.random_range(1e-7..1.0), rng.random());
        let z = (-2.0 * u1.ln()).sqrt() * (std::f32::consts::TAU * u2).cos();
        *c = (f32::from(*c) + sd * z).round().clamp(0.0, 255.0) as u8;
    }
    out
}
