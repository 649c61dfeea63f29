//! Faded tones: a photo of a screen in daylight, a newspaper's grey paper and ink, an old
//! scan squeeze a board's tones towards a middle grey. The classifier learnt colour from
//! boards whose black men are near black; on a faded board they read grey, and grey men
//! are read as either colour. An underexposed photo (a dim room) keeps its blacks but
//! crushes its shadows: black men merge into dark squares, and the whites are grey. This
//! step measures the tones over the board and, when their range is narrow or the lightest
//! is dim, stretches them back (the same curve on every channel, so hues keep), for a dim
//! board bent to lift its shadows, and keeps that reading when it is surer.

use image::RgbImage;
use serde::Serialize;

use crate::board_top::sureness;
use crate::quad::Quad;
use crate::squares::sample_bilinear;

/// Tone ranges (grey levels) under which a board is also read stretched. Chosen on the
/// synthetic board sets (BENCHMARKS.md, session 25): 0-4% of their unfaded boards span
/// under 170 levels (7-35% under 210); a wider gate changed more boards either way on
/// pictures that were not faded, for no net gain. A sparse board whose few men leave
/// little ink can pass too; the comparison of the two readings keeps it as it was.
pub const FADED_BELOW: f32 = 170.0;
/// Lightest greys under which a board counts as underexposed (a photo in a dim room, the
/// shadows crushed: the range may stay wide) and is also read with its tones stretched and
/// its shadows lifted. On rendered boards the white men and light squares reach 230-255;
/// chosen on the synthetic board sets (BENCHMARKS.md, session 26): 220 gained more dim
/// boards but changed twice as many others either way.
pub const DIM_BELOW: f32 = 200.0;
/// Where an underexposed board's median grey is lifted to, as a share of its range (the
/// dev pictures' medians lie at 0.45-1.0 of theirs).
const MID_TARGET: f32 = 0.65;
/// Samples a side over the board (a grid of `GRID` x `GRID` points).
const GRID: usize = 160;
/// Share of the board's side left out at each edge, so that no sample reaches into a
/// frame or the page around the board.
const INSET: f32 = 0.01;
/// Share of the samples at each end that is ignored (noise, a speck of glare).
const TAIL: f32 = 0.002;
/// Where the stretched tones land: near black and near white, as on a rendered board.
const TARGET: (f32, f32) = (8.0, 247.0);

/// The darkest, middle (median) and lightest grey (Rec. 709 luma, 0..255) over the board,
/// ignoring the extreme `TAIL` at each end. `None` when the outline is degenerate.
pub fn board_tones(img: &RgbImage, quad: &Quad) -> Option<(f32, f32, f32)> {
    let h = quad.homography()?;
    let mut lumas: Vec<f32> = Vec::with_capacity(GRID * GRID);
    let at = |k: usize| INSET + (1.0 - 2.0 * INSET) * (k as f32 + 0.5) / GRID as f32;
    for j in 0..GRID {
        for i in 0..GRID {
            let (u, v) = (at(i), at(j));
            let [x, y] = h.apply([u, v]);
            let [r, g, b] = sample_bilinear(img, x, y);
            lumas.push(0.2126 * r + 0.7152 * g + 0.0722 * b);
        }
    }
    let n = lumas.len();
    let k = ((n as f32 * TAIL) as usize).min(n - 1);
    let lo = *lumas.select_nth_unstable_by(k, f32::total_cmp).1;
    let hi = *lumas.select_nth_unstable_by(n - 1 - k, f32::total_cmp).1;
    let mid = *lumas.select_nth_unstable_by(n / 2, f32::total_cmp).1;
    Some((lo, mid, hi))
}

/// The gamma that lifts the board's median tone `mid`, as a share of `lo..hi`, to
/// `MID_TARGET`; 1 when it is there already. Never below 0.4 (a lift that strong would
/// mostly raise noise).
pub fn lifting_gamma(lo: f32, mid: f32, hi: f32) -> f32 {
    let m = ((mid - lo) / (hi - lo).max(1.0)).clamp(0.01, 0.99);
    if m >= MID_TARGET {
        return 1.0;
    }
    (MID_TARGET.ln() / m.ln()).clamp(0.4, 1.0)
}

/// `img` with the tones `lo..hi` stretched to the full range (clamped outside it), and
/// bent by `g` (a gamma under 1 lifts the shadows).
pub fn stretched(img: &RgbImage, (lo, hi): (f32, f32), g: f32) -> RgbImage {
    let lut: [u8; 256] = std::array::from_fn(|v| {
        let t = ((v as f32 - lo) / (hi - lo).max(1.0))
            .clamp(0.0, 1.0)
            .powf(g);
        (t * (TARGET.1 - TARGET.0) + TARGET.0)
            .round()
            .clamp(0.0, 255.0) as u8
    });
    let mut out = img.clone();
    for c in out.iter_mut() {
        *c = lut[*c as usize];
    }
    out
}

/// The tones over a board.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct BoardTones {
    /// Its darkest grey (0..255; the extreme 0.2% of samples left out).
    pub dark: f32,
    /// Its median grey.
    pub mid: f32,
    /// Its lightest grey.
    pub light: f32,
    /// Whether the range was narrow enough to try reading it stretched.
    pub faded: bool,
    /// Whether its lightest grey was dark enough to try reading it stretched.
    pub dim: bool,
    /// The gamma the stretched copy was bent by (1: a straight line).
    pub gamma: f32,
    /// Whether the stretched reading was surer, and so was kept.
    pub stretched: bool,
}

/// The picture, the board's readings and its crops, when stretched.
pub type StretchedReading<C> = (RgbImage, Vec<[f32; 13]>, C);
/// The board's tones, and the stretched reading when it is surer.
pub type SettledTones<C> = (BoardTones, Option<StretchedReading<C>>);

/// Measures the tones of the board at `quad`; when they span less than `below` or the
/// lightest is under [`DIM_BELOW`], reads the board again from the picture with them
/// stretched (and a dim board's shadows lifted; `read` cuts and classifies a picture)
/// and returns that reading too if it is surer than `probs` (by
/// [`crate::board_top`]'s measure, the mean log top probability). `None` when the outline is
/// degenerate.
pub fn settle_tones<C, E>(
    img: &RgbImage,
    quad: &Quad,
    below: f32,
    probs: &[[f32; 13]],
    read: impl FnOnce(&RgbImage) -> Result<(Vec<[f32; 13]>, C), E>,
) -> Result<Option<SettledTones<C>>, E> {
    let Some((dark, mid, light)) = board_tones(img, quad) else {
        return Ok(None);
    };
    let faded = light - dark < below;
    let dim = light < DIM_BELOW;
    // Only an underexposed board has its shadows crushed; a faded one keeps them apart.
    let gamma = if dim {
        lifting_gamma(dark, mid, light)
    } else {
        1.0
    };
    let mut surer = None;
    if faded || dim {
        let candidate = stretched(img, (dark, light), gamma);
        let (stretched_probs, crops) = read(&candidate)?;
        if sureness(&stretched_probs) > sureness(probs) {
            surer = Some((candidate, stretched_probs, crops));
        }
    }
    let tones = BoardTones {
        dark,
        mid,
        light,
        faded,
        dim,
        gamma,
        stretched: surer.is_some(),
    };
    Ok(Some((tones, surer)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::Rgb;

    fn checkerboard(dark: u8, light: u8) -> RgbImage {
        RgbImage::from_fn(80, 80, |x, y| {
            if (x / 10 + y / 10) % 2 == 0 {
                Rgb([light; 3])
            } else {
                Rgb([dark; 3])
            }
        })
    }

    #[test]
    fn tones_are_measured_inside_the_outline() {
        // A black frame around a faded board: the frame is outside the outline.
        let mut img = RgbImage::from_pixel(100, 100, Rgb([0, 0, 0]));
        image::imageops::replace(&mut img, &checkerboard(100, 200), 10, 10);
        let (lo, _, hi) = board_tones(&img, &Quad::square(10.0, 10.0, 80.0)).unwrap();
        assert!(
            (lo - 100.0).abs() < 1.0 && (hi - 200.0).abs() < 1.0,
            "{lo} {hi}"
        );
    }

    #[test]
    fn stretching_spreads_the_range_and_keeps_the_order() {
        let img = checkerboard(100, 200);
        let out = stretched(&img, (100.0, 200.0), 1.0);
        assert_eq!(out.get_pixel(0, 0).0, [247; 3]);
        assert_eq!(out.get_pixel(10, 0).0, [8; 3]);
    }

    #[test]
    fn a_dim_board_is_lifted_so_its_median_lands_at_the_target() {
        // Median at 0.4 of the range: lifted to MID_TARGET.
        let g = lifting_gamma(0.0, 80.0, 200.0);
        assert!((0.4f32.powf(g) - MID_TARGET).abs() < 1e-4, "{g}");
        // Already light enough: a straight line.
        assert_eq!(lifting_gamma(0.0, 150.0, 200.0), 1.0);
        // A median near black: the lift is capped.
        assert_eq!(lifting_gamma(0.0, 1.0, 200.0), 0.4);
        // The bent stretch keeps the ends and lifts the middle.
        let img = RgbImage::from_fn(3, 1, |x, _| Rgb([[0, 80, 200][x as usize]; 3]));
        let out = stretched(&img, (0.0, 200.0), g);
        let [black, shadow, white] = [0, 1, 2].map(|x| out.get_pixel(x, 0).0[0]);
        assert_eq!((black, white), (8, 247));
        let want = 8.0 + 239.0 * MID_TARGET;
        assert!((f32::from(shadow) - want).abs() <= 1.0, "{shadow}");
    }

    fn reading(top: f32) -> Vec<[f32; 13]> {
        let mut p = [(1.0 - top) / 12.0; 13];
        p[0] = top;
        vec![p; 64]
    }

    #[test]
    fn only_faded_boards_are_read_again_and_the_surer_reading_wins() {
        let quad = Quad::square(0.0, 0.0, 80.0);
        let first = reading(0.7);
        // A clear board: not read again.
        let clear = checkerboard(10, 240);
        let never = |_: &RgbImage| -> Result<(Vec<[f32; 13]>, ()), ()> {
            panic!("a clear board was read again")
        };
        let (tones, surer) = settle_tones(&clear, &quad, FADED_BELOW, &first, never)
            .unwrap()
            .unwrap();
        assert!(!tones.faded && !tones.stretched && surer.is_none());
        // A faded board: read again from the stretched picture.
        let faded = checkerboard(100, 200);
        let read_sure = |img: &RgbImage| {
            assert_eq!(
                img.get_pixel(10, 0).0,
                [8; 3],
                "the stretched picture is read"
            );
            Ok::<_, ()>((reading(0.99), "stretched crops"))
        };
        let (tones, surer) = settle_tones(&faded, &quad, FADED_BELOW, &first, read_sure)
            .unwrap()
            .unwrap();
        assert!(tones.faded && tones.stretched);
        assert_eq!(surer.unwrap().2, "stretched crops");
        // ... but kept only when surer.
        let read_unsure = |_: &RgbImage| Ok::<_, ()>((reading(0.5), "stretched crops"));
        let (tones, surer) = settle_tones(&faded, &quad, FADED_BELOW, &first, read_unsure)
            .unwrap()
            .unwrap();
        assert!(tones.faded && !tones.stretched && surer.is_none());
        // A dim board (blacks black, the lightest grey 190): read again, bent.
        let dim = checkerboard(0, 190);
        let read_dim = |img: &RgbImage| {
            assert_eq!(
                img.get_pixel(0, 0).0,
                [247; 3],
                "the stretched picture is read"
            );
            Ok::<_, ()>((reading(0.99), "dim crops"))
        };
        let (tones, surer) = settle_tones(&dim, &quad, FADED_BELOW, &first, read_dim)
            .unwrap()
            .unwrap();
        assert!(!tones.faded && tones.dim && tones.stretched && surer.is_some());
        assert!(tones.gamma <= 1.0);
    }
}
