//! Print effects: a 1-bit scan's threshold, a halftone screen, ink spreading on paper.

use image::RgbImage;

/// Grey, then black or white at `threshold` (0..1) of the range.
pub(super) fn threshold_grey(img: &mut RgbImage, threshold: f32) {
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
pub(super) fn halftone(img: &mut RgbImage, period: f32, angle: f32) {
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
pub(super) fn ink_spread(img: &mut RgbImage, radius: u32) {
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
