//! Resampling: what a browser, a phone or a web encoder does to a picture's pixels (area
//! shrink, enlargement, Gaussian blur, a JPEG round trip), in integer arithmetic so that
//! every machine draws the same bytes.

use image::RgbImage;

use crate::squares::block_starts;

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
pub(super) fn shrink(img: &RgbImage, sw: u32, sh: u32) -> RgbImage {
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
pub(super) fn upscale(small: &RgbImage, w: u32, h: u32, nearest: bool) -> RgbImage {
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
pub(super) fn gaussian_blur(img: &RgbImage, sigma: f32) -> RgbImage {
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
