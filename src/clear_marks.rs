//! Squares read as men that show only a coloured mark: empty once it is painted out.
//!
//! Analysis boards let a user write on squares: kokopu-react's text markers are letters in
//! one bright colour (a blue "b", a yellow "B"), and arrows and move hints are bands and
//! dots of one colour. On an empty square the classifier may read such a letter as a man
//! (a red "B" as a white queen). A man is drawn with an outline and a fill of other tones
//! than the square's, while a mark is one colour laid over the square, its anti-aliased
//! edge a blend of the two. So a square read as a man whose every pixel is the square's
//! tone, or that tone blended towards one saturated colour, is painted with the square's
//! tone; when it is then plain, in a tone the board's plain squares share (see
//! [`crate::squares::plain`]), the square is empty.

use image::{Rgb, RgbImage};
use serde::Serialize;

use crate::class::SquareClass;
use crate::classifier::reader::plain_empty;
use crate::decode::best;
use crate::squares::CropConfig;
use crate::squares::plain::{plain_tone, tone_shared};

/// Settings of the look for coloured marks.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct ClearMarksConfig {
    /// Least chroma (largest channel minus smallest, grey levels) of a mark's colour:
    /// black and white men and grey shadows are far below it, the bright colours of
    /// markers and arrows far above. Default 90.
    pub min_chroma: u8,
    /// How far (grey levels, any channel) a pixel may lie from the blend of the square's
    /// tone and the mark's colour and still be counted as the mark. Default 14.
    pub blend_tolerance: f32,
    /// Least share of the square the mark must cover: a few pixels of colour are not what
    /// the classifier took for a man. Default 0.02.
    pub min_cover: f32,
}

impl Default for ClearMarksConfig {
    fn default() -> Self {
        ClearMarksConfig {
            min_chroma: 90,
            blend_tolerance: 14.0,
            min_cover: 0.02,
        }
    }
}

/// Least distance (grey levels, any channel) from the square's tone of the pixels the
/// mark's colour is taken from: well past anti-aliasing and gradients.
const INK_AWAY: f32 = 40.0;

/// Looks again at the squares of `probs` (crop order, see [`crate::squares::cut`]) read as
/// men whose crops (`crops`, cut with `crop_cfg`) show one coloured mark on a plain square:
/// such a square becomes empty. Returns the squares changed.
pub fn apply(
    crops: &[RgbImage],
    crop_cfg: &CropConfig,
    probs: &mut [[f32; 13]],
    cfg: &ClearMarksConfig,
) -> Vec<usize> {
    let empty = SquareClass::Empty.index();
    let mut tones: Option<Vec<Option<[u8; 3]>>> = None;
    let mut cleared = Vec::new();
    for (i, (crop, p)) in crops.iter().zip(probs.iter_mut()).enumerate().take(64) {
        if best(p, |_| true) == empty {
            continue;
        }
        let Some(clean) = paint_out_mark(crop, crop_cfg, cfg) else {
            continue;
        };
        let shared = plain_tone(&clean, crop_cfg).is_some_and(|t| {
            let tones = tones
                .get_or_insert_with(|| crops.iter().map(|c| plain_tone(c, crop_cfg)).collect());
            tone_shared(t, tones, i)
        });
        if shared {
            *p = plain_empty();
            cleared.push(i);
        }
    }
    cleared
}

/// `crop` with the pixels that blend its square's tone towards one saturated colour
/// painted with that tone; `None` when the square shows no such colour (or too little of
/// it).
pub fn paint_out_mark(
    crop: &RgbImage,
    crop_cfg: &CropConfig,
    cfg: &ClearMarksConfig,
) -> Option<RgbImage> {
    let size = crop.width().min(crop.height()) as f32;
    let square = size / (1.0 + 2.0 * crop_cfg.context);
    let from = (crop_cfg.context * square).ceil() as u32;
    let to =
        (((crop_cfg.context + 1.0) * square).floor() as u32).min(crop.width().min(crop.height()));
    if to <= from + 4 {
        return None;
    }
    let pixels: Vec<[f32; 3]> = (from..to)
        .flat_map(|y| (from..to).map(move |x| (x, y)))
        .map(|(x, y)| crop.get_pixel(x, y).0.map(f32::from))
        .collect();
    // The square's tone: what most of it shows (a mark covers far less than half).
    let ground = median(pixels.iter());
    let off = |p: &[f32; 3]| (0..3).map(|c| (p[c] - ground[c]).abs()).fold(0.0, f32::max);
    // The mark's colour: the pixels farthest from the tone (the mark's solid middle).
    let mut far: Vec<&[f32; 3]> = pixels.iter().filter(|p| off(p) > INK_AWAY).collect();
    if (far.len() as f32) < cfg.min_cover * pixels.len() as f32 {
        return None;
    }
    far.sort_by(|a, b| off(b).total_cmp(&off(a)));
    far.truncate(far.len().div_ceil(3));
    let mark = median(far.into_iter());
    let chroma = mark.iter().copied().fold(f32::MIN, f32::max)
        - mark.iter().copied().fold(f32::MAX, f32::min);
    if chroma < cfg.min_chroma as f32 {
        return None;
    }
    let towards: [f32; 3] = std::array::from_fn(|c| mark[c] - ground[c]);
    let length2: f32 = towards.iter().map(|v| v * v).sum::<f32>().max(1.0);
    let fill = Rgb(ground.map(|v| v.round().clamp(0.0, 255.0) as u8));
    let mut out = crop.clone();
    for y in from..to {
        for x in from..to {
            let p = crop.get_pixel(x, y).0.map(f32::from);
            let d: [f32; 3] = std::array::from_fn(|c| p[c] - ground[c]);
            let t = (0..3).map(|c| d[c] * towards[c]).sum::<f32>() / length2;
            let residual = (0..3)
                .map(|c| (d[c] - t.clamp(0.0, 1.0) * towards[c]).abs())
                .fold(0.0, f32::max);
            if residual <= cfg.blend_tolerance {
                out.put_pixel(x, y, fill);
            }
        }
    }
    Some(out)
}

/// The median of each channel of `pixels` (none: zero).
fn median<'a>(pixels: impl Iterator<Item = &'a [f32; 3]> + Clone) -> [f32; 3] {
    std::array::from_fn(|c| {
        let mut v: Vec<f32> = pixels.clone().map(|p| p[c]).collect();
        if v.is_empty() {
            return 0.0;
        }
        let mid = v.len() / 2;
        *v.select_nth_unstable_by(mid, f32::total_cmp).1
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIGHT: [u8; 3] = [240, 217, 181];
    const DARK: [u8; 3] = [181, 136, 99];

    /// A 32 px crop of a plain square of `tone` with `ink` drawn over it: `ink(x, y)` gives
    /// a colour and how much of it covers the pixel (anti-aliased edges blend).
    fn square(tone: [u8; 3], ink: impl Fn(u32, u32) -> Option<([u8; 3], f32)>) -> RgbImage {
        RgbImage::from_fn(32, 32, |x, y| {
            let inside = (4..28).contains(&x) && (4..28).contains(&y);
            let base = if inside { tone } else { [90, 60, 40] };
            Rgb(match ink(x, y) {
                Some((c, a)) => {
                    std::array::from_fn(|k| (base[k] as f32 * (1.0 - a) + c[k] as f32 * a) as u8)
                }
                None => base,
            })
        })
    }

    /// A thick letter-like stroke: a ring with a soft edge.
    fn ring(colour: [u8; 3]) -> impl Fn(u32, u32) -> Option<([u8; 3], f32)> {
        move |x, y| {
            let r = ((x as f32 - 15.5).powi(2) + (y as f32 - 15.5).powi(2)).sqrt();
            let a = (2.5 - (r - 7.0).abs()).clamp(0.0, 1.0);
            (a > 0.0).then_some((colour, a))
        }
    }

    /// A board of plain squares with `crop` at reading index 28 (e5, a dark square), read
    /// as a white queen; returns whether the mark was cleared.
    fn cleared(crop: RgbImage) -> bool {
        let mut crops: Vec<RgbImage> = (0..64)
            .map(|i| {
                let tone = if crate::placement::square_shade(i) == 0 {
                    LIGHT
                } else {
                    DARK
                };
                square(tone, |_, _| None)
            })
            .collect();
        crops[28] = crop;
        let mut probs = vec![plain_empty(); 64];
        let mut queen = [0.01f32; 13];
        let white_queen = shakmaty::Piece {
            color: shakmaty::Color::White,
            role: shakmaty::Role::Queen,
        };
        queen[SquareClass::Piece(white_queen).index()] = 0.88;
        probs[28] = queen;
        let out = apply(
            &crops,
            &CropConfig::default(),
            &mut probs,
            &ClearMarksConfig::default(),
        );
        let emptied = best(&probs[28], |_| true) == SquareClass::Empty.index();
        assert_eq!(out == vec![28], emptied);
        emptied
    }

    #[test]
    fn a_bright_letter_on_an_empty_square_is_painted_out() {
        assert_eq!(crate::placement::square_shade(28), 1, "e5 is dark");
        assert!(cleared(square(DARK, ring([40, 90, 230]))), "blue");
        assert!(cleared(square(DARK, ring([230, 40, 40]))), "red");
        assert!(cleared(square(DARK, ring([240, 240, 60]))), "yellow");
    }

    #[test]
    fn men_and_grey_marks_are_left_to_the_model() {
        // Grey and black ink is what men are drawn in.
        assert!(!cleared(square(DARK, ring([30, 30, 30]))));
        assert!(!cleared(square(DARK, ring([250, 250, 250]))));
        // A man (white fill, black outline) under a bright arrow.
        let man_under_arrow = square(DARK, |x, y| {
            if (14..18).contains(&y) {
                Some(([230, 40, 40], 0.8))
            } else if (9..23).contains(&x) && (8..25).contains(&y) {
                let edge = x == 9 || x == 22 || y == 8 || y == 24;
                Some((if edge { [0, 0, 0] } else { [255, 255, 255] }, 1.0))
            } else {
                None
            }
        });
        assert!(!cleared(man_under_arrow));
        // Two marks of different colours: not one colour laid over the square.
        let two = square(DARK, |x, y| {
            ring([40, 90, 230])(x, y).map(|(c, a)| (if x < 16 { c } else { [40, 200, 60] }, a))
        });
        assert!(!cleared(two));
        // A speck of colour is not what the model read as a man.
        assert!(!cleared(square(DARK, |x, y| ((x, y) == (16, 16))
            .then_some(([40, 90, 230], 1.0)))));
    }

    #[test]
    fn a_mark_on_a_tone_no_other_square_shares_is_left_alone() {
        assert!(!cleared(square([205, 210, 60], ring([40, 90, 230]))));
    }
}
