//! Image degradations: what cameras, scanners, compression and screens do to a picture.

use image::RgbImage;
use rand::{Rng, RngExt};

use super::config::{DegradeConfig, Effect};
use super::noise::NoiseRows;
use super::print::{halftone, ink_spread, threshold_grey};
use super::resample::{gaussian_blur, jpeg_round_trip, shrink, upscale};
use super::xorshift::XorShift64;
use crate::squares::to_u8;

/// Fewest pixels of detail a square for a 1-bit scan.
const MIN_SCAN_DETAIL: f32 = 32.0;

/// What the picture is, as far as print effects care.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Medium {
    /// A screen (screenshots, photos of monitors): never printed or scanned.
    Screen,
    /// A printed diagram in line art (hatched, lined or dotted dark squares): a 1-bit scan
    /// keeps its squares.
    LineArt,
    /// A printed diagram with flat grey dark squares: a 1-bit scan dithers the grey (a hard
    /// threshold would turn every square white or black and erase the board).
    Tone,
}

/// What [`degrade`] did.
#[derive(Clone, Debug, PartialEq)]
pub struct Degraded {
    /// Names (with strengths) of the effects applied, in order.
    pub effects: Vec<String>,
    /// Side of a square in pixels of detail: the square's size in the image, or the size
    /// a rescale shrank it to (the image keeps its size, not its detail).
    pub square_px: f32,
}

/// Applies each effect of `cfg` with its probability. `cell` is the board's square size in
/// pixels (the rescale effect needs it); `medium` says whether the board is printed (only
/// those are ever halftoned or scanned to black and white); `line_gap` is the paper between
/// the lines of hatched dark squares, in image pixels, if the board has them.
pub fn degrade(
    img: &mut RgbImage,
    cell: f32,
    medium: Medium,
    line_gap: Option<f32>,
    cfg: &DegradeConfig,
    rng: &mut impl Rng,
) -> Degraded {
    let mut applied = Vec::new();
    let mut square_px = cell;
    let printed = medium != Medium::Screen;
    if rng.random_bool(cfg.ink.probability) {
        let mut radius = (rng.random_range(0.0..=cfg.ink.strength.max(0.0)) * cell).round();
        // Spread thickens a diagonal line by up to 2.8 times the radius: keep half of the
        // paper between hatch lines, or the dark squares print solid black and swallow the
        // pieces on them (no reader could tell what stood there).
        if let Some(gap) = line_gap {
            radius = radius.min((gap / 5.66).floor());
        }
        if radius >= 1.0 {
            ink_spread(img, radius as u32);
            applied.push(format!("ink:{radius:.0}px"));
        }
    }
    // Printing comes before the camera: a halftone screen sits on white paper, and any
    // colour cast, blur or rescale comes after it. Drawn only for printed boards, so the
    // random streams of screen boards stay as they were before this effect existed; below
    // ~24 pixels a square a screen of dots only erases the pieces.
    if printed && cell >= 24.0 && rng.random_bool(cfg.halftone.probability) {
        let share = rng.random_range(0.03..cfg.halftone.strength.max(0.031));
        let period = (share * cell).max(2.0);
        let angle = if rng.random_bool(0.6) {
            45.0
        } else {
            rng.random_range(0.0..90.0f32)
        };
        halftone(img, period, angle.to_radians());
        applied.push(format!("halftone:{period:.1}px"));
    }
    if let Some(a) = draw_strength(cfg.paper, 0.02, rng) {
        paper(img, a, rng);
        applied.push("paper".into());
    }
    // A 1-bit scan thresholds the page itself, at the resolution it was scanned: before any
    // resize, blur, colour cast, uneven light, moire or glare of a screen or camera showing
    // it later (thresholding after a shadow printed whole boards black; after a shrink or a
    // blur, it erased dotted squares, thin outlines and the white pieces drawn with them).
    // Under ~32 pixels a square a sharp scan still drops the dots of dotted squares and the
    // thin outlines of white pieces whole.
    if rng.random_bool(cfg.scan.probability) && printed && cell >= MIN_SCAN_DETAIL {
        let s = cfg.scan.strength.clamp(0.0, 0.45);
        let threshold = 0.5 + rng.random_range(-s..=s);
        if medium == Medium::Tone {
            halftone(img, 2.0, 45f32.to_radians());
            applied.push("scan:dithered".into());
        } else {
            threshold_grey(img, threshold);
            applied.push(format!("scan:{threshold:.2}"));
        }
    }
    if rng.random_bool(cfg.rescale.probability) && cell > cfg.rescale.strength + 1.0 {
        let target = rng.random_range(cfg.rescale.strength..cell);
        let f = target / cell;
        let (w, h) = (img.width(), img.height());
        let (sw, sh) = (
            ((w as f32 * f).round() as u32).max(1),
            ((h as f32 * f).round() as u32).max(1),
        );
        // Area-average down (what a browser or phone does when shrinking), then nearest or
        // bilinear back up (blocky or soft enlargements).
        let down = shrink(img, sw, sh);
        *img = upscale(&down, w, h, rng.random_bool(0.3));
        applied.push(format!("rescale:{:.0}px", target));
        square_px = target;
    }
    // Blur, noise and heavy JPEG on top of a board with little detail leave nothing a
    // person could read: their strength shrinks with the detail left (full from 24 px a
    // square, 40% at 10 px and below).
    let legible = (square_px / 24.0).clamp(0.4, 1.0);
    if rng.random_bool(cfg.blur.probability) {
        let sigma = rng.random_range(0.3..(cfg.blur.strength * legible).max(0.31));
        *img = gaussian_blur(img, sigma);
        applied.push(format!("blur:{sigma:.2}"));
    }
    // Out of focus: a blur measured in squares. Drawn only when switched on, as sharpening
    // is.
    if cfg.defocus.probability > 0.0 && rng.random_bool(cfg.defocus.probability) {
        let share = rng.random_range(0.02..cfg.defocus.strength.max(0.021));
        *img = gaussian_blur(img, share * square_px);
        applied.push(format!("defocus:{share:.3}"));
    }
    // Scanners, cameras and editors sharpen what they capture: after the optics' blur,
    // before the file's noise and compression. Drawn only when switched on, so the random
    // streams of configs without it stay as they were.
    if cfg.sharpen.probability > 0.0 && rng.random_bool(cfg.sharpen.probability) {
        let amount = rng.random_range(0.3..cfg.sharpen.strength.max(0.31));
        // Halos 1-10% of a square wide (a phone's fine sharpening to a scanner's wide
        // rings), within 0.6-6 px.
        let sigma = (rng.random_range(0.01..0.10f32) * cell).clamp(0.6, 6.0);
        unsharp_mask(img, sigma, amount);
        applied.push(format!("sharpen:{amount:.2}@{sigma:.1}px"));
    }
    if rng.random_bool(cfg.color.probability) {
        color_shift(img, cfg.color.strength, rng);
        applied.push("color".into());
    }
    // Drawn only when switched on, as sharpening is.
    if cfg.fade.probability > 0.0 && rng.random_bool(cfg.fade.probability) {
        let lost = rng.random_range(0.1..cfg.fade.strength.max(0.11));
        // Mostly the blacks lift (glare on a screen, grey ink on newsprint).
        let lift = lost * rng.random_range(0.4..1.0f32);
        fade(img, lift, lost);
        applied.push(format!("fade:{lost:.2}"));
    }
    // Drawn only when switched on, as sharpening is.
    if cfg.dim.probability > 0.0 && rng.random_bool(cfg.dim.probability) {
        let gamma = rng.random_range(1.3..(1.0 + cfg.dim.strength).max(1.31));
        let exposure = rng.random_range(0.6..0.95f32);
        dim(img, exposure, gamma);
        applied.push(format!("dim:{exposure:.2}^{gamma:.2}"));
    }
    if let Some(s) = draw_strength(cfg.lighting, 0.1, rng) {
        lighting(img, s, rng);
        applied.push("lighting".into());
    }
    if let Some(a) = draw_strength(cfg.moire, 0.02, rng) {
        moire(img, a, rng);
        applied.push("moire".into());
    }
    if let Some(s) = draw_strength(cfg.glare, 0.1, rng) {
        glare(img, s, rng);
        applied.push("glare".into());
    }
    if rng.random_bool(cfg.noise.probability) {
        let sd = rng.random_range(1.0..(cfg.noise.strength * legible).max(1.1));
        noise(img, sd, rng);
        applied.push(format!("noise:{sd:.1}"));
    }
    if rng.random_bool(cfg.jpeg.probability) {
        let lowest = cfg.jpeg.strength + (1.0 - legible) * 50.0;
        let q = rng.random_range(lowest.clamp(1.0, 95.0) as u8..=95);
        if let Some(out) = jpeg_round_trip(img, q) {
            *img = out;
            applied.push(format!("jpeg:{q}"));
        }
    }
    Degraded {
        effects: applied,
        square_px,
    }
}

/// Unsharp masking: each pixel pushed away from its Gaussian-blurred surround by `amount`
/// times the difference.
fn unsharp_mask(img: &mut RgbImage, sigma: f32, amount: f32) {
    let soft = gaussian_blur(img, sigma);
    for (v, &b) in img.iter_mut().zip(soft.iter()) {
        let v0 = f32::from(*v);
        *v = to_u8(v0 + amount * (v0 - f32::from(b)));
    }
}

/// Whether `effect` applies (one draw), and then its strength, drawn from `low` up to the
/// effect's largest.
fn draw_strength(effect: Effect, low: f32, rng: &mut impl Rng) -> Option<f32> {
    rng.random_bool(effect.probability)
        .then(|| rng.random_range(low..effect.strength.max(low + 0.01)))
}

/// Multiplies the channels of each pixel by a factor, which `factors(y, row)` writes for
/// a whole row at a time (a loop of its own, so plain arithmetic runs on vector lanes).
fn scale_pixels(img: &mut RgbImage, mut factors: impl FnMut(u32, &mut [f32])) {
    let w = img.width() as usize;
    if w == 0 {
        return;
    }
    let mut row_factors = vec![0f32; w];
    for (y, row) in img.chunks_exact_mut(w * 3).enumerate() {
        factors(y as u32, &mut row_factors);
        for (p, &k) in row.chunks_exact_mut(3).zip(&row_factors) {
            for c in p {
                *c = to_u8(f32::from(*c) * k);
            }
        }
    }
}

fn color_shift(img: &mut RgbImage, s: f32, rng: &mut impl Rng) {
    let gain: [f32; 3] = std::array::from_fn(|_| 1.0 + rng.random_range(-s..=s) * 0.5);
    let brightness = rng.random_range(-s..=s) * 60.0;
    let contrast = 1.0 + rng.random_range(-s..=s);
    let gamma = 1.0 + rng.random_range(-s..=s);
    let desaturate = if rng.random_bool(0.2) {
        rng.random_range(0.0..1.0f32)
    } else {
        0.0
    };
    // One lookup table per channel: the per-pixel work is then a table read.
    let lut: [[u8; 256]; 3] = std::array::from_fn(|c| {
        std::array::from_fn(|v| {
            let v =
                ((v as f32 * gain[c] - 128.0) * contrast + 128.0 + brightness).clamp(0.0, 255.0);
            (255.0 * (v / 255.0).powf(gamma)).round().clamp(0.0, 255.0) as u8
        })
    });
    for p in img.pixels_mut() {
        if desaturate > 0.0 {
            let grey = (p.0[0] as f32 + p.0[1] as f32 + p.0[2] as f32) / 3.0;
            for c in 0..3 {
                p.0[c] = to_u8(p.0[c] as f32 + (grey - p.0[c] as f32) * desaturate);
            }
        }
        for c in 0..3 {
            p.0[c] = lut[c][p.0[c] as usize];
        }
    }
}

/// Squeezes the tones into `255 * lift ..= 255 * (lift + 1 - lost)`.
fn fade(img: &mut RgbImage, lift: f32, lost: f32) {
    map_tones(img, |v| 255.0 * lift + v * (1.0 - lost));
}

/// Darkens every tone to `255 exposure (v/255)^gamma`, crushing the shadows.
fn dim(img: &mut RgbImage, exposure: f32, gamma: f32) {
    map_tones(img, |v| 255.0 * exposure * (v / 255.0).powf(gamma));
}

/// Maps every channel of every pixel through `curve` (0..255 to 0..255), by a table.
fn map_tones(img: &mut RgbImage, curve: impl Fn(f32) -> f32) {
    let lut: [u8; 256] = std::array::from_fn(|v| to_u8(curve(v as f32)));
    for c in img.iter_mut() {
        *c = lut[*c as usize];
    }
}

fn lighting(img: &mut RgbImage, s: f32, rng: &mut impl Rng) {
    let angle: f32 = rng.random_range(0.0..std::f32::consts::TAU);
    let (dx, dy) = (angle.cos(), angle.sin());
    let (w, h) = (img.width() as f32, img.height() as f32);
    let span = (w * dx.abs() + h * dy.abs()).max(1.0);
    let offset = (if dx < 0.0 { -w * dx } else { 0.0 }) + (if dy < 0.0 { -h * dy } else { 0.0 });
    scale_pixels(img, |y, row| {
        let along_y = y as f32 * dy;
        for (x, f) in row.iter_mut().enumerate() {
            // Exact: columns stay far below 2^24.
            let t = (x as i32 as f32 * dx + along_y + offset) / span;
            *f = 1.0 - s * t * t;
        }
    });
}

fn glare(img: &mut RgbImage, s: f32, rng: &mut impl Rng) {
    let (w, h) = (img.width() as f32, img.height() as f32);
    let (cx, cy) = (rng.random_range(0.0..w), rng.random_range(0.0..h));
    let (rx, ry) = (
        rng.random_range(0.05..0.4) * w,
        rng.random_range(0.05..0.4) * h,
    );
    // Outside the ellipse where the glare adds under half a grey level nothing changes
    // (the rounding in to_u8 undoes it): only the box around it is computed.
    let reach = ((510.0 * s).max(1.0).ln() / 2.0 + 0.05).sqrt();
    let x_range =
        ((cx - rx * reach).floor().max(0.0) as u32)..((cx + rx * reach).ceil().min(w) as u32);
    let y_range =
        ((cy - ry * reach).floor().max(0.0) as u32)..((cy + ry * reach).ceil().min(h) as u32);
    for y in y_range {
        for x in x_range.clone() {
            let p = img.get_pixel_mut(x, y);
            let d = ((x as f32 - cx) / rx).powi(2) + ((y as f32 - cy) / ry).powi(2);
            let a = s * (-d * 2.0).exp();
            p.0 = p.0.map(|c| to_u8(c as f32 + (255.0 - c as f32) * a));
        }
    }
}

fn moire(img: &mut RgbImage, a: f32, rng: &mut impl Rng) {
    let period = rng.random_range(2.0..6.0f32);
    let angle: f32 = rng.random_range(0.0..std::f32::consts::PI);
    let beat = rng.random_range(40.0..200.0f32);
    let (kx, ky) = (
        angle.cos() * std::f32::consts::TAU / period,
        angle.sin() * std::f32::consts::TAU / period,
    );
    // The beat depends on x + y only: one sine per diagonal instead of one per pixel.
    let beats: Vec<f32> = (0..img.width() + img.height())
        .map(|d| (d as f32 / beat).sin())
        .collect();
    scale_pixels(img, |y, row| {
        let along_y = y as f32 * ky;
        for (x, f) in row.iter_mut().enumerate() {
            let v = (x as f32 * kx + along_y).sin() * beats[x + y as usize];
            *f = 1.0 + a * v;
        }
    });
}

fn paper(img: &mut RgbImage, a: f32, rng: &mut impl Rng) {
    let seed: u32 = rng.random();
    let scale = rng.random_range(30.0..120.0f32);
    let w = img.width() as usize;
    if w == 0 {
        return;
    }
    let last = (w - 1) as f32;
    let (mut coarse, mut grain) = (
        NoiseRows::new(seed, last / scale),
        NoiseRows::new(seed ^ 0x9e37, last * 0.7),
    );
    for (y, row) in img.chunks_exact_mut(w * 3).enumerate() {
        coarse.set_row(y as f32 / scale);
        grain.set_row(y as f32 * 0.7);
        for (x, p) in row.chunks_exact_mut(3).enumerate() {
            let n = coarse.at(x as f32 / scale) - 0.5;
            let g = grain.at(x as f32 * 0.7) - 0.5;
            for c in p {
                *c = to_u8(f32::from(*c) * (1.0 + a * n) + 30.0 * a * g);
            }
        }
    }
}

fn noise(img: &mut RgbImage, sd: f32, rng: &mut impl Rng) {
    // A fast per-pixel generator seeded from the image's stream: ChaCha per pixel would
    // dominate the cost of a large image.
    let stream = XorShift64::new(rng.random::<u64>() | 1);
    let colour = rng.random_range(0.0..1.0f32);
    let add = |p: &mut [u8], s: &mut XorShift64| {
        // Sum of uniforms: close enough to Gaussian for sensor noise, and cheap.
        let z = (s.next_f32() + s.next_f32() + s.next_f32() - 1.5) * 2.0;
        for c in p.iter_mut() {
            let n = z + colour * (s.next_f32() - 0.5) * 2.0;
            *c = to_u8(f32::from(*c) + n * sd);
        }
    };
    // Six draws a pixel, one after the other, made a chain of dependent steps that took
    // most of the time: the image is cut into four runs, each starting where the one stream
    // would be by then (jump-ahead), stepped side by side. The same values in the same
    // places as one run.
    const RUNS: usize = 4;
    const DRAWS: u64 = 6;
    let raw: &mut [u8] = img;
    let pixels = raw.len() / 3;
    if pixels < RUNS * 16 {
        let mut s = stream;
        raw.chunks_exact_mut(3).for_each(|p| add(p, &mut s));
        return;
    }
    let per_run = pixels.div_ceil(RUNS);
    let mut runs: Vec<&mut [u8]> = raw.chunks_mut(per_run * 3).collect();
    let mut streams: Vec<XorShift64> = (0..runs.len())
        .map(|k| stream.jumped(DRAWS * (k * per_run) as u64))
        .collect();
    let together = runs.iter().map(|r| r.len() / 3).min().unwrap_or(0);
    for i in 0..together {
        for (run, s) in runs.iter_mut().zip(streams.iter_mut()) {
            add(&mut run[i * 3..i * 3 + 3], s);
        }
    }
    for (run, s) in runs.iter_mut().zip(streams.iter_mut()) {
        run[together * 3..]
            .chunks_exact_mut(3)
            .for_each(|p| add(p, s));
    }
}

#[cfg(test)]
mod tests;
