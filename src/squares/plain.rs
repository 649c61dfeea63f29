//! Plain squares: crops that are empty without asking a model (on a clean screenshot half
//! the board, and so half the classifier's time).

use image::RgbImage;

use super::CropConfig;

/// Widest spread of a channel, in grey levels, over a plain square (anti-aliasing and
/// gradients of flat themes stay within it; any piece outline is far outside).
pub const PLAIN_RANGE: u8 = 12;

/// Largest step of a channel between neighbouring pixels of a plain square's middle: a
/// gradient or JPEG noise climbs a level or two a pixel, while the edge of a man drawn
/// in a tone close to the square's (a white man on an off-white square, 12 levels apart)
/// steps at once.
pub const PLAIN_STEP: u8 = 5;

/// How far apart (grey levels, any channel) two plain squares' middles may be and still
/// count as the same tone.
pub const SAME_TONE: i32 = 8;

/// How many other plain squares of a board must share a plain square's tone for it to be
/// empty without a model: the board's light and dark squares are each many, while a man
/// drawn as a plain block over the middle (Bauhaus rooks) or a lone highlighted square
/// is seen once or twice.
pub const TONE_SHARED_BY: usize = 3;

/// The mean tone of a crop's middle when the crop shows a plain square: every channel
/// within [`PLAIN_RANGE`] grey levels and no step over [`PLAIN_STEP`] over the square's
/// middle (a tenth of a square in from each edge, where any piece draws its outline).
/// Noise, JPEG, textures, coordinates or a move dot make a square not plain.
pub fn plain_tone(crop: &RgbImage, cfg: &CropConfig) -> Option<[u8; 3]> {
    let size = crop.width().min(crop.height()) as f32;
    let square = size / (1.0 + 2.0 * cfg.context);
    let from = ((cfg.context + 0.1) * square).ceil() as u32;
    let to = ((cfg.context + 0.9) * square).floor() as u32;
    if to <= from + 2 {
        return None;
    }
    let (mut lo, mut hi) = ([255u8; 3], [0u8; 3]);
    let mut sum = [0u32; 3];
    for y in from..to {
        for x in from..to {
            let p = crop.get_pixel(x, y).0;
            let left = (x > from).then(|| crop.get_pixel(x - 1, y).0);
            let up = (y > from).then(|| crop.get_pixel(x, y - 1).0);
            for c in 0..3 {
                lo[c] = lo[c].min(p[c]);
                hi[c] = hi[c].max(p[c]);
                sum[c] += p[c] as u32;
                let steep =
                    |q: Option<[u8; 3]>| q.is_some_and(|q| q[c].abs_diff(p[c]) > PLAIN_STEP);
                if hi[c] - lo[c] > PLAIN_RANGE || steep(left) || steep(up) {
                    return None;
                }
            }
        }
    }
    let n = (to - from) * (to - from);
    Some(std::array::from_fn(|c| ((sum[c] + n / 2) / n) as u8))
}

/// Whether a crop cut with `cfg` shows a plain square (see [`plain_tone`]), taken alone.
pub fn is_plain_square(crop: &RgbImage, cfg: &CropConfig) -> bool {
    plain_tone(crop, cfg).is_some()
}

/// Which of a board's crops are empty without a model: plain, and of a tone at least
/// [`TONE_SHARED_BY`] other plain crops share.
pub fn plain_squares(crops: &[RgbImage], cfg: &CropConfig) -> Vec<bool> {
    let tones: Vec<Option<[u8; 3]>> = crops.iter().map(|c| plain_tone(c, cfg)).collect();
    tones
        .iter()
        .enumerate()
        .map(|(i, tone)| tone.is_some_and(|t| tone_shared(t, &tones, i)))
        .collect()
}

/// Whether at least [`TONE_SHARED_BY`] of the plain `tones` other than number `except`
/// are within [`SAME_TONE`] of `tone`.
pub fn tone_shared(tone: [u8; 3], tones: &[Option<[u8; 3]>], except: usize) -> bool {
    let alike = tones
        .iter()
        .enumerate()
        .filter(|&(j, u)| {
            j != except
                && u.is_some_and(|u| {
                    (0..3).all(|c| (tone[c] as i32 - u[c] as i32).abs() <= SAME_TONE)
                })
        })
        .count();
    alike >= TONE_SHARED_BY
}

#[cfg(test)]
mod tests {
    use image::{Rgb, RgbImage};

    use super::*;

    /// A 32 px crop of a square of `tone` (a slight gradient down it) with its neighbours'
    /// colour in the context, and `block` filled over `from..to` of the crop.
    fn square(tone: [u8; 3], block: Option<([u8; 3], std::ops::Range<u32>)>) -> RgbImage {
        RgbImage::from_fn(32, 32, |x, y| {
            if let Some((b, r)) = &block
                && r.contains(&x)
                && r.contains(&y)
            {
                return Rgb(*b);
            }
            let inside = (4..28).contains(&x) && (4..28).contains(&y);
            Rgb(if inside {
                [tone[0], tone[1] + (y / 6) as u8, tone[2]]
            } else {
                [90, 60, 40]
            })
        })
    }

    #[test]
    fn plain_squares_are_told_from_pieces_and_marks() {
        let cfg = CropConfig::default();
        let flat = square([200, 180, 150], None);
        assert!(is_plain_square(&flat, &cfg));
        // A one-pixel outline anywhere in the middle (a piece's edge), or a move dot.
        for (x, y) in [(7, 7), (16, 16), (25, 24)] {
            let mut marked = flat.clone();
            marked.put_pixel(x, y, Rgb([40, 40, 40]));
            assert!(!is_plain_square(&marked, &cfg), "({x}, {y})");
        }
        // A mark in the square's corner (a coordinate label) is outside the middle.
        let mut labelled = flat.clone();
        labelled.put_pixel(4, 27, Rgb([40, 40, 40]));
        assert!(is_plain_square(&labelled, &cfg));
    }

    #[test]
    fn a_man_close_to_the_square_tone_is_not_plain() {
        let cfg = CropConfig::default();
        // A small white block on an off-white square, 12 levels apart: within the range a
        // gradient may span, but stepped at once (Scid's Bauhaus pawns).
        let pawn = square([243, 243, 243], Some(([255, 255, 255], 13..19)));
        assert!(!is_plain_square(&pawn, &cfg));
        // The same 12 levels climbed a level a pixel are a gradient: plain.
        let gradient = RgbImage::from_fn(32, 32, |x, _| Rgb([243 - (x / 3) as u8; 3]));
        assert!(is_plain_square(&gradient, &cfg));
    }

    #[test]
    fn a_block_over_the_middle_is_read_by_the_model() {
        let cfg = CropConfig::default();
        let (light, dark) = ([240, 217, 181], [181, 136, 99]);
        // A board of plain squares, two of them a black block from 7% to 93% of the
        // square (a Bauhaus rook: plain over the middle) and one a lone highlighted square.
        let mut crops: Vec<RgbImage> = (0..64)
            .map(|i| {
                square(
                    if crate::placement::square_shade(i) == 0 {
                        light
                    } else {
                        dark
                    },
                    None,
                )
            })
            .collect();
        let rook = square(light, Some(([10, 10, 10], 5..28)));
        assert!(is_plain_square(&rook, &cfg), "the block alone looks plain");
        crops[0] = rook.clone();
        crops[7] = rook;
        crops[20] = square([205, 210, 60], None);
        let plain = plain_squares(&crops, &cfg);
        assert!(!plain[0] && !plain[7] && !plain[20]);
        assert_eq!(plain.iter().filter(|&&p| p).count(), 61);
        // Alone (one square re-read) nothing shares a tone: the model reads it.
        assert_eq!(plain_squares(&crops[1..2], &cfg), vec![false]);
    }
}
