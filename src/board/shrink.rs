//! The detection image: the picture greyed and shrunk so its longer side is at most the
//! finder's `max_side`, each detection pixel the average of the source pixels it covers.

use image::{GrayImage, RgbImage};

use crate::squares::block_starts;

/// Rec. 709 luma weights in 256ths: the detection image's grey.
pub(super) const LUMA: [u32; 3] = [54, 183, 19];

/// Greyscale and shrink so the longer side is at most `max_side`; returns the scale factor
/// from detection pixels to image pixels. Each source pixel's grey (`weights` in 256ths of
/// the red, green and blue channels, summing to 256) is averaged over the detection pixel
/// it falls in.
pub(super) fn prepare(img: &RgbImage, max_side: u32, weights: [u32; 3]) -> (GrayImage, f32, f32) {
    let ([gray], fx, fy) = prepare_views(img, max_side, [weights]);
    (gray, fx, fy)
}

/// [`prepare`] for several greys at once (one pass over the picture).
pub(super) fn prepare_views<const N: usize>(
    img: &RgbImage,
    max_side: u32,
    weights: [[u32; 3]; N],
) -> ([GrayImage; N], f32, f32) {
    let (w, h) = img.dimensions();
    let longest = w.max(h).max(1);
    let f = (max_side as f32 / longest as f32).min(1.0);
    let (sw, sh) = (
        ((w as f32 * f) as u32).clamp(1, w.max(1)),
        ((h as f32 * f) as u32).clamp(1, h.max(1)),
    );
    let raw = img.as_raw();
    if (sw, sh) == (w, h) {
        let views = weights.map(|wt| {
            let gray = raw
                .chunks_exact(3)
                .map(|p| (grey(&wt, [p[0].into(), p[1].into(), p[2].into()]) >> 8) as u8)
                .collect();
            GrayImage::from_raw(w, h, gray).expect("one byte a pixel")
        });
        return (views, 1.0, 1.0);
    }
    // Detection pixel (c, r) averages source columns cols[c]..cols[c + 1] and rows
    // rows[r]..rows[r + 1].
    let (cols, rows) = (
        block_starts(w as usize, sw as usize),
        block_starts(h as usize, sh as usize),
    );
    // A band's byte sums fit 16 bits (twice the vector lanes of 32) up to 257 rows, far more
    // than the default shrink takes; a small max_side on a tall picture takes more.
    let grays = if rows.windows(2).all(|r| r[1] - r[0] <= 257) {
        average_cells::<u16, N>(raw, &cols, &rows, &weights)
    } else {
        average_cells::<u32, N>(raw, &cols, &rows, &weights)
    };
    let views = grays.map(|g| GrayImage::from_raw(sw, sh, g).expect("one byte a pixel"));
    (views, w as f32 / sw as f32, h as f32 / sh as f32)
}

/// Grey `weights[k] . rgb`, in 256ths.
fn grey(weights: &[u32; 3], rgb: [u32; 3]) -> u32 {
    weights[0] * rgb[0] + weights[1] * rgb[1] + weights[2] * rgb[2]
}

/// The detection images of [`prepare_views`]: pixel `(c, r)` averages the grey of source
/// columns `cols[c]..cols[c + 1]` and rows `rows[r]..rows[r + 1]` of the 3-byte pixels `raw`.
/// One detection row at a time: every byte of the band of source rows is summed in place
/// first (a long loop of plain adds, on vector lanes; weighing each 3-byte pixel as it comes
/// is not), then each detection pixel's run of columns is summed per channel and weighed:
/// the same integers as summing each pixel's grey, since the grey is linear. `A` holds a
/// band's byte sums.
fn average_cells<A, const N: usize>(
    raw: &[u8],
    cols: &[usize],
    rows: &[usize],
    weights: &[[u32; 3]; N],
) -> [Vec<u8>; N]
where
    A: Copy + Default + std::ops::AddAssign + From<u8> + Into<u32>,
{
    let (w, sw, sh) = (cols[cols.len() - 1], cols.len() - 1, rows.len() - 1);
    let mut grays = [(); N].map(|_| vec![0u8; sw * sh]);
    let mut byte_sums = vec![A::default(); 3 * w];
    // The division by a cell's 256 x pixels as a multiplication (a division per detection
    // pixel was a quarter of the time): exact, see `Reciprocal`. u32 sums are ample: a
    // cell averages far fewer than 2^16 pixels for any image the decoder accepts.
    let widest = cols.windows(2).map(|c| c[1] - c[0]).max().unwrap_or(1);
    let tallest = rows.windows(2).map(|r| r[1] - r[0]).max().unwrap_or(1);
    let reciprocals: Vec<Reciprocal> = (0..=widest * tallest)
        .map(|n| Reciprocal::new(256 * n.max(1) as u32))
        .collect();
    for ty in 0..sh {
        byte_sums.fill(A::default());
        for row in raw[rows[ty] * 3 * w..rows[ty + 1] * 3 * w].chunks_exact(3 * w) {
            for (acc, &v) in byte_sums.iter_mut().zip(row) {
                *acc += A::from(v);
            }
        }
        let band = rows[ty + 1] - rows[ty];
        for (c, run) in cols.windows(2).enumerate() {
            let mut rgb = [0u32; 3];
            for p in byte_sums[3 * run[0]..3 * run[1]].chunks_exact(3) {
                for (s, &v) in rgb.iter_mut().zip(p) {
                    *s += v.into();
                }
            }
            let cell = &reciprocals[band * (run[1] - run[0])];
            for (gray, wt) in grays.iter_mut().zip(weights) {
                gray[ty * sw + c] = cell.divide(grey(wt, rgb)).min(255) as u8;
            }
        }
    }
    grays
}

/// Division of any `u32` by a fixed divisor `d >= 2` as a multiplication: `m = ceil(2^64 /
/// d)`, and `x m / 2^64 = x / d + x e / (d 2^64)` with `e < d`, an error under `1 / d`
/// for `x < 2^32`, too small to change the floor.
struct Reciprocal(u64);

impl Reciprocal {
    fn new(d: u32) -> Reciprocal {
        debug_assert!(d >= 2);
        Reciprocal(((1u128 << 64).div_ceil(u128::from(d))) as u64)
    }

    fn divide(&self, x: u32) -> u32 {
        ((u128::from(x) * u128::from(self.0)) >> 64) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shrink by channel sums gives the same bytes as averaging each source pixel's
    /// grey over its detection pixel, for every view at once, with 16-bit band sums (bands
    /// of a few rows) and 32-bit ones (bands of hundreds).
    #[test]
    fn shrunk_views_average_each_pixels_grey() {
        for (w, h, max_side, shrunk) in [(523, 311, 200, (200, 118)), (61, 1400, 4, (1, 4))] {
            let mut state = 0x9e37_79b9_u32;
            let img = RgbImage::from_fn(w, h, |_, _| {
                let mut next = || {
                    state ^= state << 13;
                    state ^= state >> 17;
                    state ^= state << 5;
                    state as u8
                };
                image::Rgb([next(), next(), next()])
            });
            let weights = [LUMA, [256, 0, 0], [0, 0, 256]];
            let (views, fx, fy) = prepare_views(&img, max_side, weights);
            assert_eq!(views[0].dimensions(), shrunk);
            assert!((fx - w as f32 / shrunk.0 as f32).abs() < 1e-4);
            assert!((fy - h as f32 / shrunk.1 as f32).abs() < 1e-4);
            let (cols, rows) = (
                block_starts(w as usize, shrunk.0 as usize),
                block_starts(h as usize, shrunk.1 as usize),
            );
            for (view, wt) in views.iter().zip(weights) {
                assert_eq!(view, &prepare(&img, max_side, wt).0);
                for (c, r, p) in view.enumerate_pixels() {
                    let (c, r) = (c as usize, r as usize);
                    let mut sum = 0u32;
                    for y in rows[r]..rows[r + 1] {
                        for x in cols[c]..cols[c + 1] {
                            let q = img.get_pixel(x as u32, y as u32).0;
                            sum += grey(&wt, q.map(u32::from));
                        }
                    }
                    let n = ((rows[r + 1] - rows[r]) * (cols[c + 1] - cols[c])) as u32;
                    assert_eq!(p[0], (sum / (256 * n)).min(255) as u8, "pixel ({c}, {r})");
                }
            }
        }
    }

    #[test]
    fn reciprocals_divide_exactly() {
        for d in [
            2u32,
            3,
            7,
            256,
            256 * 3,
            256 * 5 * 7,
            65_536 * 255,
            u32::MAX,
        ] {
            let r = Reciprocal::new(d);
            for x in [0u32, 1, d - 1, d, d + 1, 12_345_678, u32::MAX - 1, u32::MAX] {
                assert_eq!(r.divide(x), x / d, "{x} / {d}");
            }
        }
    }
}
