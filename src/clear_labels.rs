//! Squares under a coordinate label, read again with the label painted out.
//!
//! Boards that draw their coordinates inside the edge squares (chessboard.js, chess.com,
//! lichess) put a letter or digit in a square's corner. On an empty square of a style the
//! classifier has not seen, a large label can read as a piece (chessboard.js's "b" on an
//! empty b1 as a white knight; a "letter" piece set's men are letters, and its empty b1
//! read as a knight 97% sure). The label reader knows where the labels stand
//! ([`crate::coordinates::read_labels`]): each square read as a piece whose crop holds a
//! label's place is looked at again with that place filled with the colour around it. A
//! square then plain, in a tone the board's plain squares share (see
//! [`crate::squares::plain`]), is empty, however sure the first reading was; an unsure
//! one that may be empty is read again by the classifier, and taken to be empty when
//! that reading says so more surely than the first said anything.

use image::{Rgb, RgbImage};
use serde::Serialize;

use crate::class::SquareClass;
use crate::classifier::reader::plain_empty;
use crate::classifier::{Classifier, top_probability};
use crate::decode::best;
use crate::squares::plain::{plain_tone, tone_shared};

/// Settings of the second look.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct ClearLabelsConfig {
    /// Squares whose top probability is below this are read again by the classifier when
    /// a label stands in their crop. Default 0.9 (the squares `infer` reports as
    /// uncertain by default).
    pub unsure_below: f32,
    /// How far around a label's ink box (in squares) its pixels are painted out: the ink
    /// box holds the pixels past half the label's contrast, its anti-aliased edge lies
    /// beyond. Default 0.05 (about a pixel of a 32 px crop).
    pub pad: f32,
    /// Least probability of empty in the first reading for a square to be read again by
    /// the classifier: a label puts a piece on an empty square, so a square the first
    /// reading does not think may be empty is left to the plain test. Default 0.2.
    pub empty_at_least: f32,
}

impl Default for ClearLabelsConfig {
    fn default() -> Self {
        ClearLabelsConfig {
            unsure_below: 0.9,
            pad: 0.05,
            empty_at_least: 0.2,
        }
    }
}

/// How far beyond the painted box (squares) the colour around a label is taken from.
const RIM: f32 = 0.08;

/// Looks again at the squares of `probs` (crop order, see [`crate::squares::cut`]) read
/// as pieces whose crops (`crops`, cut as `classifier` cuts them) hold one of the label
/// `boxes` (board units, see [`crate::coordinates::LabelReading`]), with the labels
/// painted out: a square then plain in a tone the board's plain squares share becomes
/// empty; an unsure one that may be empty takes the classifier's new reading where it
/// reads the square empty, and more surely than the first. Returns the squares changed.
pub fn apply(
    classifier: &Classifier,
    crops: &[RgbImage],
    boxes: &[[f32; 4]],
    probs: &mut [[f32; 13]],
    cfg: &ClearLabelsConfig,
) -> Vec<usize> {
    if boxes.is_empty() {
        return Vec::new();
    }
    let crop_cfg = classifier.crop();
    let empty = SquareClass::Empty.index();
    // The plain squares' tones, taken when a square first needs them.
    let mut tones: Option<Vec<Option<[u8; 3]>>> = None;
    let mut kept = Vec::new();
    let (mut which, mut cleared) = (Vec::new(), Vec::new());
    for (i, (crop, p)) in crops.iter().zip(probs.iter_mut()).enumerate().take(64) {
        let reads_empty = best(p, |_| true) == empty;
        let may_be_empty = top_probability(p) < cfg.unsure_below && p[empty] >= cfg.empty_at_least;
        if reads_empty && !may_be_empty {
            continue;
        }
        let Some(clean) = paint_out(crop, i, crop_cfg.context, boxes, cfg.pad) else {
            continue;
        };
        // Nothing but the label stood there: the square is as plain as the board's own.
        let plain = !reads_empty
            && plain_tone(&clean, crop_cfg).is_some_and(|t| {
                let tones = tones
                    .get_or_insert_with(|| crops.iter().map(|c| plain_tone(c, crop_cfg)).collect());
                tone_shared(t, tones, i)
            });
        if plain {
            *p = plain_empty();
            kept.push(i);
        } else if may_be_empty {
            which.push(i);
            cleared.push(clean);
        }
    }
    // A label box is where a style puts its labels, missed ones included; on a square
    // holding a piece that reaches into that corner, painting it out takes some of the
    // piece away (a black rook's corner painted light reads as a white rook, a faint white
    // piece as nothing). So the new reading is kept only when it reads the square empty,
    // and more surely than the first read it.
    if !which.is_empty() {
        for (&i, p) in which.iter().zip(classifier.read_board(&cleared)) {
            let reads_empty = best(&p, |_| true) == empty;
            if reads_empty && p[empty] > top_probability(&probs[i]) {
                probs[i] = p;
                kept.push(i);
            }
        }
    }
    kept.sort_unstable();
    kept
}

/// `crop` (square `index` in reading order, cut with `context`) with the pixels of every
/// label box that reaches into it painted with the colour around that label; `None` when
/// no box reaches in (or none has colour around it in the crop).
fn paint_out(
    crop: &RgbImage,
    index: usize,
    context: f32,
    boxes: &[[f32; 4]],
    pad: f32,
) -> Option<RgbImage> {
    let (row, col) = ((index / 8) as f32, (index % 8) as f32);
    let (w, h) = (crop.width() as usize, crop.height() as usize);
    if w == 0 || h == 0 {
        return None;
    }
    let span = 1.0 + 2.0 * context;
    // Board units (squares here: x8) of each crop pixel's centre, along each axis.
    let along = |n: usize, start: f32| -> Vec<f32> {
        (0..n)
            .map(|k| start - context + (k as f32 + 0.5) / n as f32 * span)
            .collect()
    };
    let (us, vs) = (along(w, col), along(h, row));
    let mut out = crop.clone();
    let mut painted = false;
    // The crop's extent in squares.
    let (u0, u1, v0, v1) = (
        col - context,
        col + 1.0 + context,
        row - context,
        row + 1.0 + context,
    );
    for b in boxes {
        // The box in squares, padded.
        let [x0, y0, x1, y1] = b.map(|v| v * 8.0);
        if x1 + pad < u0 || x0 - pad > u1 || y1 + pad < v0 || y0 - pad > v1 {
            continue;
        }
        let inside =
            |u: f32, v: f32, m: f32| u >= x0 - m && u <= x1 + m && v >= y0 - m && v <= y1 + m;
        // The label's own square: its colour around the label is the background (the
        // crop's context beyond the square shows the neighbours' colour).
        let (sx, sy) = (((x0 + x1) / 2.0).floor(), ((y0 + y1) / 2.0).floor());
        let mut rim: [Vec<u8>; 3] = Default::default();
        let mut reached = false;
        for (y, &v) in vs.iter().enumerate() {
            for (x, &u) in us.iter().enumerate() {
                if inside(u, v, pad) {
                    reached = true;
                } else if inside(u, v, pad + RIM) && u.floor() == sx && v.floor() == sy {
                    let p = crop.get_pixel(x as u32, y as u32).0;
                    for c in 0..3 {
                        rim[c].push(p[c]);
                    }
                }
            }
        }
        if !reached || rim[0].is_empty() {
            continue;
        }
        let colour = Rgb(rim.map(|mut c| {
            let mid = c.len() / 2;
            *c.select_nth_unstable(mid).1
        }));
        for (y, &v) in vs.iter().enumerate() {
            for (x, &u) in us.iter().enumerate() {
                if inside(u, v, pad) {
                    out.put_pixel(x as u32, y as u32, colour);
                }
            }
        }
        painted = true;
    }
    painted.then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A label in the bottom-right corner of square b1 (reading order 57) is painted with
    /// the square's colour around it; a box elsewhere on the board leaves the crop alone.
    #[test]
    fn a_label_in_the_crop_is_painted_with_the_colour_around_it() {
        let context = 0.125;
        let n = 32u32;
        // The crop of b1: its square light (200), the context around it dark (100), a
        // black label box at the square's bottom-right corner.
        let span = 1.0 + 2.0 * context;
        let square_of = |k: u32| ((k as f32 + 0.5) / n as f32 * span - context).floor() as i32;
        let label = [1.7f32, 7.75, 1.9, 7.95].map(|v| v / 8.0);
        let crop = RgbImage::from_fn(n, n, |x, y| {
            let (u, v) = (
                1.0 + (x as f32 + 0.5) / n as f32 * span - context,
                7.0 + (y as f32 + 0.5) / n as f32 * span - context,
            );
            if (1.7..=1.9).contains(&u) && (7.75..=7.95).contains(&v) {
                Rgb([0, 0, 0])
            } else if square_of(x) == 0 && square_of(y) == 0 {
                Rgb([200, 190, 180])
            } else {
                Rgb([100, 90, 80])
            }
        });
        let clean = paint_out(&crop, 57, context, &[label], 0.05).expect("the label is in b1");
        for (x, y, p) in clean.enumerate_pixels() {
            let was = crop.get_pixel(x, y);
            if was.0 == [0, 0, 0] {
                assert_eq!(p.0, [200, 190, 180], "({x}, {y})");
            }
        }
        // The square's far corner is untouched.
        assert_eq!(clean.get_pixel(8, 8), crop.get_pixel(8, 8));
        // A label on h8 does not reach b1's crop.
        let far = [7.7f32, 0.0, 7.9, 0.2].map(|v| v / 8.0);
        assert!(paint_out(&crop, 57, context, &[far], 0.05).is_none());
    }

    /// With the shipped classifier: a square read as a piece for the large letter at its
    /// corner is plain once the letter is painted out, and empty; a textured square is
    /// read again by the classifier, empty too; a square holding a piece and a letter, and
    /// a square without a label in its crop, are left alone.
    #[test]
    fn a_letter_read_as_a_piece_is_empty_once_painted_out() {
        let classifier = Classifier::builtin(crate::classifier::Backend::Flex).unwrap();
        let (context, n) = (classifier.crop().context, classifier.crop().size);
        let span = 1.0 + 2.0 * context;
        // Board units (squares) of crop pixel k of square `start`.
        let at = |start: usize, k: u32| start as f32 - context + (k as f32 + 0.5) / n as f32 * span;
        // A light square amid dark ones, with a thick dark "b"-sized block of strokes at
        // its bottom right (0.65-0.9 across, 0.5-0.9 down) when `letter`, fine grain
        // across it when `grain`, a dark disc in its middle when `piece`.
        let crop = |index: usize, letter: bool, grain: bool, piece: bool| {
            let (row, col) = (index / 8, index % 8);
            RgbImage::from_fn(n, n, |x, y| {
                let (u, v) = (at(col, x), at(row, y));
                let (fu, fv) = (u - col as f32, v - row as f32);
                let own = (0.0..1.0).contains(&fu) && (0.0..1.0).contains(&fv);
                let stroke = (0.65..0.72).contains(&fu)
                    || ((0.65..0.9).contains(&fu) && ((0.68..0.74).contains(&fv) || fv > 0.84))
                    || ((0.83..0.9).contains(&fu) && fv > 0.68);
                let disc = (fu - 0.45).powi(2) + (fv - 0.45).powi(2) < 0.09;
                if letter && own && stroke && (0.5..0.9).contains(&fv) {
                    Rgb([120, 80, 50])
                } else if piece && disc {
                    Rgb([30, 30, 30])
                } else if own {
                    let g = if grain {
                        ((x * 7 + y * 3) % 5) as u8 * 9
                    } else {
                        0
                    };
                    Rgb([240 - g, 217 - g, 181 - g])
                } else {
                    Rgb([181, 136, 99])
                }
            })
        };
        let crops: Vec<RgbImage> = (0..64)
            .map(|i| crop(i, (56..=58).contains(&i), i == 56, i == 58))
            .collect();
        let boxes: Vec<[f32; 4]> = (0..8)
            .map(|k| [k as f32 + 0.62, 7.46, k as f32 + 0.93, 7.94].map(|v| v / 8.0))
            .collect();
        let knight = SquareClass::Piece(shakmaty::Piece {
            color: shakmaty::Color::White,
            role: shakmaty::Role::Knight,
        })
        .index();
        let empty = SquareClass::Empty.index();
        let read_as = |knight_p: f32, empty_p: f32| {
            let mut p = [(1.0 - knight_p - empty_p) / 11.0; 13];
            (p[knight], p[empty]) = (knight_p, empty_p);
            p
        };
        let mut probs = vec![crate::classifier::reader::plain_empty(); 64];
        // b1 read as a knight surely; a1 (grain) unsure; c1 (a piece) and b2 (no label)
        // unsure.
        probs[57] = read_as(0.97, 0.01);
        for i in [56, 58, 49] {
            probs[i] = read_as(0.5, 0.39);
        }
        let before = probs.clone();
        // The letter as drawn reads as a piece (a white knight, 84%, with the shipped pair).
        let as_drawn = classifier.read_board(&crops[57..58])[0];
        assert!(as_drawn[empty] < 0.5, "{as_drawn:?}");
        let kept = apply(
            &classifier,
            &crops,
            &boxes,
            &mut probs,
            &ClearLabelsConfig::default(),
        );
        assert_eq!(kept, vec![56, 57]);
        for i in [56, 57] {
            assert!(probs[i][empty] > 0.5, "{i}: {:?}", probs[i]);
        }
        assert_eq!(probs[49], before[49]);
        assert_eq!(probs[58], before[58]);
    }
}
