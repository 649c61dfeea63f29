//! X-corner (saddle) detection: where four squares meet, diagonally opposite quadrants agree
//! and neighbouring ones differ. Box means from an integral image make each scale O(pixels)
//! and blur away hatching, dots and thin piece outlines.

use image::GrayImage;

/// Integral image of a greyscale picture (one extra row and column of zeros).
pub struct Integral {
    w: usize,
    h: usize,
    sums: Vec<u64>,
}

impl Integral {
    /// Builds the integral image.
    pub fn new(img: &GrayImage) -> Integral {
        let (w, h) = (img.width() as usize, img.height() as usize);
        let mut sums = vec![0u64; (w + 1) * (h + 1)];
        let raw = img.as_raw();
        for y in 0..h {
            let mut row = 0u64;
            for x in 0..w {
                row += raw[y * w + x] as u64;
                sums[(y + 1) * (w + 1) + x + 1] = sums[y * (w + 1) + x + 1] + row;
            }
        }
        Integral { w, h, sums }
    }

    /// Mean of the box `[x0, x1) x [y0, y1)` (caller keeps it inside the image).
    #[inline]
    fn mean(&self, x0: usize, y0: usize, x1: usize, y1: usize) -> f32 {
        let s = |x: usize, y: usize| self.sums[y * (self.w + 1) + x];
        let total = s(x1, y1) + s(x0, y0) - s(x1, y0) - s(x0, y1);
        total as f32 / ((x1 - x0) * (y1 - y0)) as f32
    }
}

/// A candidate X-corner.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Saddle {
    /// Position (pixel corner coordinates: the point between pixels).
    pub x: f32,
    /// Position.
    pub y: f32,
    /// Strength (grey levels).
    pub score: f32,
    /// +1 when the top-left/bottom-right quadrants are the brighter pair, -1 otherwise.
    pub parity: i8,
}

/// Saddle points at quadrant size `q` pixels: response, non-maximum suppression in a
/// `q`-radius window, and the `limit` strongest above `min_score`.
pub fn saddles(integral: &Integral, q: usize, min_score: f32, limit: usize) -> Vec<Saddle> {
    let (w, h) = (integral.w, integral.h);
    if w < 2 * q + 2 || h < 2 * q + 2 {
        return Vec::new();
    }
    // A gap of a pixel or two around the centre line keeps anti-aliased edges out.
    let gap = q / 6;
    let mut resp = vec![0f32; w * h];
    let mut sign = vec![0i8; w * h];
    for y in q + gap..h - q - gap {
        for x in q + gap..w - q - gap {
            let tl = integral.mean(x - q - gap, y - q - gap, x - gap, y - gap);
            let br = integral.mean(x + gap, y + gap, x + q + gap, y + q + gap);
            let tr = integral.mean(x + gap, y - q - gap, x + q + gap, y - gap);
            let bl = integral.mean(x - q - gap, y + gap, x - gap, y + q + gap);
            let d = (tl + br - tr - bl) / 2.0;
            let r = d.abs() - (tl - br).abs() - (tr - bl).abs();
            if r > 0.0 {
                resp[y * w + x] = r;
                sign[y * w + x] = if d > 0.0 { 1 } else { -1 };
            }
        }
    }
    let radius = (q / 2).max(1);
    let mut out = Vec::new();
    for y in radius..h.saturating_sub(radius) {
        for x in radius..w.saturating_sub(radius) {
            let v = resp[y * w + x];
            if v < min_score {
                continue;
            }
            let mut is_max = true;
            'nms: for yy in y - radius..=y + radius {
                for xx in x - radius..=x + radius {
                    let o = resp[yy * w + xx];
                    if o > v || (o == v && (yy, xx) < (y, x)) {
                        is_max = false;
                        break 'nms;
                    }
                }
            }
            if is_max {
                out.push(Saddle {
                    x: x as f32,
                    y: y as f32,
                    score: v,
                    parity: sign[y * w + x],
                });
            }
        }
    }
    out.sort_by(|a, b| b.score.total_cmp(&a.score));
    out.truncate(limit);
    out
}
