//! Image degradations: what cameras, scanners, compression and screens do to a picture.

use image::RgbImage;
use rand::{Rng, RngExt};

use super::config::{DegradeConfig, Effect};
use super::noise::NoiseRows;
use super::xorshift::XorShift64;
use crate::squares::{block_starts, to_u8};

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
    if rng.random_bool(cfg.color.probability) {
        color_shift(img, cfg.color.strength, rng);
        applied.push("color".into());
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

/// Encodes as JPEG at `quality` and decodes again.
pub fn jpeg_round_trip(img: &RgbImage, quality: u8) -> Option<RgbImage> {
    // jpeg-encoder (its portable code path, so every machine writes the same bytes): 4:2:0
    // chroma below quality 90 as most cameras and web encoders, and several times faster
    // than the image crate's encoder.
    let (w, h) = (
        u16::try_from(img.width()).ok()?,
        u16::try_from(img.height()).ok()?,
    );
    let mut buf = Vec::new();
    jpeg_encoder::Encoder::new(&mut buf, quality.clamp(1, 100))
        .encode(img.as_raw(), w, h, jpeg_encoder::ColorType::Rgb)
        .ok()?;
    image::load_from_memory_with_format(&buf, image::ImageFormat::Jpeg)
        .ok()
        .map(|i| i.into_rgb8())
}

/// Shrinks `img` to `sw` x `sh` (each no larger than the image's) by averaging the block of
/// source pixels whose columns and rows map onto each target pixel, as a browser or phone
/// shrinks a picture.
fn shrink(img: &RgbImage, sw: u32, sh: u32) -> RgbImage {
    let (w, h) = (img.width() as usize, img.height() as usize);
    let (sw, sh) = (
        sw.clamp(1, w.max(1) as u32) as usize,
        sh.clamp(1, h.max(1) as u32) as usize,
    );
    if w == 0 || h == 0 {
        return img.clone();
    }
    // Target pixel (c, r) averages source columns cols[c]..cols[c + 1], rows
    // rows[r]..rows[r + 1].
    let (cols, rows) = (block_starts(w, sw), block_starts(h, sh));
    let raw = img.as_raw();
    let mut out = vec![0u8; sw * sh * 3];
    let mut sums = vec![0u32; sw * 3];
    // The band's rows summed first, column by column (one long loop on vector lanes), then
    // each block's columns: the same integer sums.
    let mut column_sums = vec![0u32; w * 3];
    for (ty, line) in out.chunks_exact_mut(sw * 3).enumerate() {
        column_sums.fill(0);
        for row in raw[rows[ty] * w * 3..rows[ty + 1] * w * 3].chunks_exact(w * 3) {
            for (acc, &v) in column_sums.iter_mut().zip(row) {
                *acc += u32::from(v);
            }
        }
        for (c, sum) in sums.chunks_exact_mut(3).enumerate() {
            sum.fill(0);
            for p in column_sums[cols[c] * 3..cols[c + 1] * 3].chunks_exact(3) {
                sum[0] += p[0];
                sum[1] += p[1];
                sum[2] += p[2];
            }
        }
        let band = (rows[ty + 1] - rows[ty]) as u32;
        for (c, (o, sum)) in line
            .chunks_exact_mut(3)
            .zip(sums.chunks_exact(3))
            .enumerate()
        {
            let n = band * (cols[c + 1] - cols[c]).max(1) as u32;
            for k in 0..3 {
                o[k] = ((sum[k] + n / 2) / n) as u8;
            }
        }
    }
    RgbImage::from_raw(sw as u32, sh as u32, out).unwrap_or_else(|| img.clone())
}

/// Enlarges `small` to `w` x `h`, nearest-neighbour or bilinear (pixel centres aligned, edges
/// clamped). Source columns and weights are computed once per column, not per pixel.
fn upscale(small: &RgbImage, w: u32, h: u32, nearest: bool) -> RgbImage {
    let (sw, sh) = (small.width() as usize, small.height() as usize);
    // Source index pair and weight (of the second, in 1/256) along one axis.
    let taps = |n: u32, src: usize| -> Vec<(usize, usize, u32)> {
        let scale = src as f32 / n as f32;
        (0..n)
            .map(|i| {
                let f = (i as f32 + 0.5) * scale;
                if nearest {
                    let k = (f as usize).min(src - 1);
                    return (k, k, 0);
                }
                let f = (f - 0.5).max(0.0);
                let k = (f as usize).min(src - 1);
                let t = ((f - k as f32) * 256.0) as u32;
                (k, (k + 1).min(src - 1), t.min(256))
            })
            .collect()
    };
    let (xs, ys) = (taps(w, sw), taps(h, sh));
    let raw = small.as_raw();
    let mut out = vec![0u8; w as usize * h as usize * 3];
    let mut row0 = vec![0u32; w as usize * 3];
    let mut row1 = vec![0u32; w as usize * 3];
    let horizontal = |y: usize, row: &mut [u32]| {
        let line = &raw[y * sw * 3..(y + 1) * sw * 3];
        for (x, &(a, b, t)) in xs.iter().enumerate() {
            for c in 0..3 {
                let (pa, pb) = (u32::from(line[a * 3 + c]), u32::from(line[b * 3 + c]));
                row[x * 3 + c] = pa * (256 - t) + pb * t;
            }
        }
    };
    let mut loaded = (usize::MAX, usize::MAX);
    for (y, &(a, b, t)) in ys.iter().enumerate() {
        if loaded != (a, b) {
            horizontal(a, &mut row0);
            horizontal(b, &mut row1);
            loaded = (a, b);
        }
        let dst = &mut out[y * w as usize * 3..(y + 1) * w as usize * 3];
        for (i, d) in dst.iter_mut().enumerate() {
            // Both weights are in 1/256: the product is in 1/65536; round to nearest.
            *d = ((row0[i] * (256 - t) + row1[i] * t + 32768) >> 16) as u8;
        }
    }
    RgbImage::from_raw(w, h, out).unwrap_or_else(|| RgbImage::new(w, h))
}

/// Gaussian blur in fixed point, separable, edges clamped: a few times faster than a
/// float implementation, and exact to a grey level.
fn gaussian_blur(img: &RgbImage, sigma: f32) -> RgbImage {
    // Radius 2 sigma, as imageproc (this replaced its float blur).
    let r = (2.0 * sigma).ceil().max(1.0) as usize;
    let raw: Vec<f32> = (0..=2 * r)
        .map(|i| {
            let d = i as f32 - r as f32;
            (-d * d / (2.0 * sigma * sigma)).exp()
        })
        .collect();
    let total: f32 = raw.iter().sum();
    let mut kernel: Vec<u32> = raw
        .iter()
        .map(|v| (v / total * 4096.0).round() as u32)
        .collect();
    // Weights sum to exactly 4096 so flat areas keep their value.
    let sum: u32 = kernel.iter().sum();
    kernel[r] = (kernel[r] + 4096).saturating_sub(sum);
    let (w, h) = (img.width() as usize, img.height() as usize);
    let src = img.as_raw();
    // Rows: u8 -> u16 (x16 headroom: 4096 * 255 >> 4 fits).
    let mut rows = vec![0u16; w * h * 3];
    // Each line padded with copies of its edge pixels, so the inner loop needs no clamping.
    let mut padded = vec![0u32; (w + 2 * r) * 3];
    // One tap at a time over the whole line (channels interleaved: tap k of every sample
    // is k pixels along), so the sums run on vector lanes.
    let mut line_acc = vec![0u32; w * 3];
    for y in 0..h {
        let line = &src[y * w * 3..(y + 1) * w * 3];
        for (i, p) in padded.chunks_exact_mut(3).enumerate() {
            let xx = i.saturating_sub(r).min(w - 1);
            for c in 0..3 {
                p[c] = u32::from(line[xx * 3 + c]);
            }
        }
        line_acc.fill(0);
        for (k, &wt) in kernel.iter().enumerate() {
            for (a, &t) in line_acc.iter_mut().zip(&padded[k * 3..k * 3 + w * 3]) {
                *a += wt * t;
            }
        }
        for (o, &a) in rows[y * w * 3..(y + 1) * w * 3].iter_mut().zip(&line_acc) {
            *o = (a >> 4) as u16;
        }
    }
    // Columns: u16 -> u8, rounding.
    let mut out = vec![0u8; w * h * 3];
    let mut acc = vec![0u32; w * 3];
    for y in 0..h {
        acc.iter_mut().for_each(|a| *a = 0);
        for (k, &wt) in kernel.iter().enumerate() {
            let yy = (y + k).saturating_sub(r).min(h - 1);
            let line = &rows[yy * w * 3..(yy + 1) * w * 3];
            for (a, &v) in acc.iter_mut().zip(line) {
                *a += wt * u32::from(v);
            }
        }
        for (o, &a) in out[y * w * 3..(y + 1) * w * 3].iter_mut().zip(&acc) {
            *o = ((a + (1 << 19)) >> 20).min(255) as u8;
        }
    }
    RgbImage::from_raw(w as u32, h as u32, out).unwrap_or_else(|| img.clone())
}

/// Grey, then black or white at `threshold` (0..1) of the range.
fn threshold_grey(img: &mut RgbImage, threshold: f32) {
    let t = (threshold * 255.0 * 1000.0) as u32;
    for p in img.pixels_mut() {
        let [r, g, b] = p.0.map(u32::from);
        // Rec. 601 luma, in thousandths.
        let luma = 299 * r + 587 * g + 114 * b;
        p.0 = [if luma >= t { 255 } else { 0 }; 3];
    }
}

/// Grey printed as a clustered-dot screen of `period` pixels at `angle`: each pixel is ink
/// where the darkness exceeds the screen's spot function there, so dots grow with the
/// darkness (paper stays white, black stays black, mid-grey is a checker of dots).
fn halftone(img: &mut RgbImage, period: f32, angle: f32) {
    let (s, c) = angle.sin_cos();
    let k = std::f32::consts::TAU / period;
    for (x, y, p) in img.enumerate_pixels_mut() {
        let [r, g, b] = p.0.map(f32::from);
        // The lightest tones are the paper itself, not ink.
        let darkness = ((0.92 - (0.299 * r + 0.587 * g + 0.114 * b) / 255.0) / 0.92).max(0.0);
        let (u, v) = (x as f32 * c + y as f32 * s, y as f32 * c - x as f32 * s);
        // Spot function in 0..1: lowest at the dot centres, highest between dots.
        let spot = 0.5 - ((u * k).cos() + (v * k).cos()) / 4.0;
        p.0 = [if darkness > spot { 0 } else { 255 }; 3];
    }
}

/// Darkest value within `radius` pixels (a square window), per channel: dark strokes and
/// shapes grow by `radius`, the way ink spreads on paper.
fn ink_spread(img: &mut RgbImage, radius: u32) {
    let (w, h) = (img.width() as usize, img.height() as usize);
    let r = radius as usize;
    let src = img.as_raw().clone();
    // Rows, then columns (a square window is separable for min).
    let mut rows = vec![0u8; src.len()];
    for y in 0..h {
        let line = &src[y * w * 3..(y + 1) * w * 3];
        let out = &mut rows[y * w * 3..(y + 1) * w * 3];
        for x in 0..w {
            let (x0, x1) = (x.saturating_sub(r), (x + r + 1).min(w));
            let mut m = [255u8; 3];
            for px in line[x0 * 3..x1 * 3].chunks_exact(3) {
                for c in 0..3 {
                    m[c] = m[c].min(px[c]);
                }
            }
            out[x * 3..x * 3 + 3].copy_from_slice(&m);
        }
    }
    let out = img.as_mut();
    let stride = w * 3;
    for y in 0..h {
        let (y0, y1) = (y.saturating_sub(r), (y + r + 1).min(h));
        let dst = &mut out[y * stride..(y + 1) * stride];
        dst.copy_from_slice(&rows[y0 * stride..(y0 + 1) * stride]);
        for yy in y0 + 1..y1 {
            for (d, &v) in dst.iter_mut().zip(&rows[yy * stride..(yy + 1) * stride]) {
                *d = (*d).min(v);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn noise_in_four_runs_is_the_noise_of_one_stream() {
        // Sizes around the cut into runs (uneven last run, and too small to cut).
        for (w, h) in [(37, 29), (64, 1), (7, 9), (128, 96)] {
            let grey =
                |x: u32, y: u32| image::Rgb([(x * 7 % 256) as u8, (y * 13 % 256) as u8, 128]);
            let mut img = RgbImage::from_fn(w, h, grey);
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(u64::from(w * h));
            noise(&mut img, 9.0, &mut rng);
            // The one-stream reference, as the effect was first written.
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(u64::from(w * h));
            let mut s = XorShift64::new(rng.random::<u64>() | 1);
            let colour = rng.random_range(0.0..1.0f32);
            let mut expected = RgbImage::from_fn(w, h, grey);
            for p in expected.pixels_mut() {
                let z = (s.next_f32() + s.next_f32() + s.next_f32() - 1.5) * 2.0;
                for c in 0..3 {
                    let n = z + colour * (s.next_f32() - 0.5) * 2.0;
                    p.0[c] = to_u8(p.0[c] as f32 + n * 9.0);
                }
            }
            assert_eq!(img, expected, "{w}x{h}");
            assert_ne!(img, RgbImage::from_fn(w, h, grey), "noise changed nothing");
        }
    }

    #[test]
    fn upscale_keeps_flat_areas_and_interpolates_edges() {
        let flat = RgbImage::from_pixel(3, 2, image::Rgb([90, 120, 200]));
        for nearest in [false, true] {
            let big = upscale(&flat, 13, 7, nearest);
            assert!(big.pixels().all(|p| p.0 == [90, 120, 200]));
        }
        let mut edge = RgbImage::new(2, 1);
        edge.put_pixel(1, 0, image::Rgb([255, 255, 255]));
        let row = |img: &RgbImage| img.pixels().map(|p| p.0[0]).collect::<Vec<_>>();
        assert_eq!(row(&upscale(&edge, 4, 1, true)), [0, 0, 255, 255]);
        let soft = row(&upscale(&edge, 4, 1, false));
        assert_eq!((soft[0], soft[3]), (0, 255));
        assert!(
            soft[0] < soft[1] && soft[1] < soft[2] && soft[2] < soft[3],
            "{soft:?}"
        );
    }

    #[test]
    fn shrink_averages_blocks() {
        let flat = RgbImage::from_pixel(37, 23, image::Rgb([90, 120, 200]));
        let small = shrink(&flat, 10, 7);
        assert_eq!(small.dimensions(), (10, 7));
        assert!(small.pixels().all(|p| p.0 == [90, 120, 200]));
        // One-pixel stripes halved: every target pixel averages one black and one white.
        let stripes = RgbImage::from_fn(40, 20, |x, _| {
            image::Rgb([if x % 2 == 0 { 0 } else { 255 }; 3])
        });
        let half = shrink(&stripes, 20, 10);
        assert!(
            half.pixels().all(|p| p.0 == [128, 128, 128]),
            "{:?}",
            half.get_pixel(0, 0)
        );
        // Non-integer ratios keep every source pixel in exactly one block: the mean stays.
        let ramp = RgbImage::from_fn(50, 31, |x, y| {
            image::Rgb([(x * 5) as u8, (y * 8) as u8, 60])
        });
        let s = shrink(&ramp, 17, 9);
        let mean = |img: &RgbImage, c: usize| {
            img.pixels().map(|p| p.0[c] as f32).sum::<f32>() / (img.width() * img.height()) as f32
        };
        assert!((mean(&s, 2) - 60.0).abs() < 0.01);
        assert!((mean(&s, 0) - mean(&ramp, 0)).abs() < 4.0);
        assert_eq!(shrink(&ramp, 50, 31), ramp);
    }

    #[test]
    fn blur_matches_a_float_gaussian() {
        let img = RgbImage::from_fn(40, 30, |x, y| {
            image::Rgb([
                ((x * 37 + y * 11) % 256) as u8,
                if (x / 5 + y / 5) % 2 == 0 { 0 } else { 255 },
                77,
            ])
        });
        for sigma in [0.4f32, 1.0, 1.5] {
            let ours = gaussian_blur(&img, sigma);
            let theirs = imageproc::filter::gaussian_blur_f32(&img, sigma);
            // Interior pixels: implementations differ in how they treat the border.
            let worst = (6..24u32)
                .flat_map(|y| (6..34u32).map(move |x| (x, y)))
                .flat_map(|(x, y)| {
                    let (a, b) = (ours.get_pixel(x, y).0, theirs.get_pixel(x, y).0);
                    (0..3).map(move |c| (i32::from(a[c]) - i32::from(b[c])).abs())
                })
                .max()
                .unwrap();
            assert!(worst <= 2, "sigma {sigma}: off by {worst}");
            assert!(
                ours.pixels()
                    .zip(img.pixels())
                    .all(|(a, b)| a.0[2] == b.0[2]),
                "flat channel changed"
            );
        }
    }

    #[test]
    fn ink_spread_leaves_the_paper_between_hatch_lines() {
        let cfg = DegradeConfig {
            ink: crate::render::config::Effect {
                probability: 1.0,
                strength: 0.1,
            },
            ..DegradeConfig::NONE
        };
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
        // Lines 2 px wide, 3 px of paper between them, on squares of 80 px: a spread of up
        // to 8 px would close them; it stays under a pixel (none).
        let lines = RgbImage::from_fn(64, 64, |_, y| {
            image::Rgb([if y % 5 < 2 { 0 } else { 255 }; 3])
        });
        for _ in 0..20 {
            let mut img = lines.clone();
            let d = degrade(&mut img, 80.0, Medium::LineArt, Some(3.0), &cfg, &mut rng);
            assert!(d.effects.is_empty(), "{:?}", d.effects);
            assert_eq!(img, lines);
        }
        // Without hatching the same draw does spread.
        let mut img = lines.clone();
        let d = degrade(&mut img, 80.0, Medium::LineArt, None, &cfg, &mut rng);
        assert!(d.effects[0].starts_with("ink:"), "{:?}", d.effects);
    }

    #[test]
    fn ink_spread_grows_dark_shapes_by_the_radius() {
        let mut img = RgbImage::from_pixel(20, 20, image::Rgb([255, 255, 255]));
        img.put_pixel(10, 10, image::Rgb([0, 50, 100]));
        ink_spread(&mut img, 2);
        for (x, y, p) in img.enumerate_pixels() {
            let inside = (8..=12).contains(&x) && (8..=12).contains(&y);
            assert_eq!(
                p.0,
                if inside { [0, 50, 100] } else { [255; 3] },
                "({x}, {y})"
            );
        }
    }

    #[test]
    fn scan_threshold_is_black_or_white() {
        let mut img = RgbImage::from_fn(16, 16, |x, y| {
            image::Rgb([(x * 16) as u8, (y * 16) as u8, 128])
        });
        threshold_grey(&mut img, 0.5);
        assert!(img.pixels().all(|p| p.0 == [0; 3] || p.0 == [255; 3]));
        assert_eq!(img.get_pixel(0, 0).0, [0; 3]);
        assert_eq!(img.get_pixel(15, 15).0, [255; 3]);
    }

    #[test]
    fn halftone_keeps_paper_and_solid_ink_and_dots_the_greys() {
        // Three bands: paper (250), mid-grey, solid black.
        let mut img = RgbImage::from_fn(90, 60, |x, _| match x / 30 {
            0 => image::Rgb([250; 3]),
            1 => image::Rgb([120; 3]),
            _ => image::Rgb([0; 3]),
        });
        halftone(&mut img, 4.0, 45f32.to_radians());
        let ink = |x0: u32| {
            let band: Vec<_> = (x0..x0 + 30)
                .flat_map(|x| (0..60).map(move |y| (x, y)))
                .collect();
            let dark = band
                .iter()
                .filter(|&&(x, y)| img.get_pixel(x, y).0 == [0; 3])
                .count();
            dark as f32 / band.len() as f32
        };
        assert!(img.pixels().all(|p| p.0 == [0; 3] || p.0 == [255; 3]));
        assert_eq!(ink(0), 0.0, "paper stays white");
        assert!(ink(60) > 0.99, "solid ink stays solid");
        let grey = ink(30);
        assert!(
            (0.35..0.65).contains(&grey),
            "mid-grey is about half ink: {grey}"
        );
    }
}
