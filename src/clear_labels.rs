//! Unsure squares under a coordinate label, read again with the label painted out.
//!
//! Boards that draw their coordinates inside the edge squares (chessboard.js, chess.com,
//! lichess) put a letter or digit in a square's corner. On an empty square of a style the
//! classifier has not seen, a large label can read as a piece (chessboard.js's "b" on an
//! empty b1 as a white knight). The label reader knows where the labels it read stand
//! ([`crate::coordinates::read_labels`]): each unsure square whose crop holds one is read
//! again with the label's pixels filled with the colour around them, and is taken to be
//! empty when that reading says so more surely than the first said anything.

use image::{Rgb, RgbImage};
use serde::Serialize;

use crate::class::SquareClass;
use crate::classifier::{Classifier, top_probability};

/// Settings of the re-read.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct ClearLabelsConfig {
    /// Squares whose top probability is below this are read again when a label stands in
    /// their crop. Default 0.9 (the squares `infer` reports as uncertain by default).
    pub unsure_below: f32,
    /// How far around a label's ink box (in squares) its pixels are painted out: the ink
    /// box holds the pixels past half the label's contrast, its anti-aliased edge lies
    /// beyond. Default 0.05 (about a pixel of a 32 px crop).
    pub pad: f32,
    /// Least probability of empty in the first reading for a square to be read again: a
    /// label puts a piece on an empty square, so a square the first reading does not
    /// think may be empty is left alone. Default 0.2.
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

/// Reads again the unsure squares of `probs` (crop order, see [`crate::squares::cut`])
/// that may be empty and whose crops (`crops`, cut with `context`) hold one of the label ink `boxes` (board
/// units, see [`crate::coordinates::LabelReading`]), with the labels painted out, and
/// replaces their probabilities with the new reading where it reads the square empty,
/// and more surely than the first. Returns those squares.
pub fn apply(
    classifier: &Classifier,
    crops: &[RgbImage],
    context: f32,
    boxes: &[[f32; 4]],
    probs: &mut [[f32; 13]],
    cfg: &ClearLabelsConfig,
) -> Vec<usize> {
    if boxes.is_empty() {
        return Vec::new();
    }
    let empty = SquareClass::Empty.index();
    let mut which = Vec::new();
    let mut cleared = Vec::new();
    for (i, (crop, p)) in crops.iter().zip(probs.iter()).enumerate().take(64) {
        if top_probability(p) >= cfg.unsure_below || p[empty] < cfg.empty_at_least {
            continue;
        }
        if let Some(clean) = paint_out(crop, i, context, boxes, cfg.pad) {
            which.push(i);
            cleared.push(clean);
        }
    }
    if which.is_empty() {
        return which;
    }
    // A label box is where a style puts its labels, missed ones included; on a square
    // holding a piece that reaches into that corner, painting it out takes some of the
    // piece away (a black rook's corner painted light reads as a white rook, a faint white
    // piece as nothing). So the new reading is kept only when it reads the square empty,
    // and more surely than the first read it.
    let mut kept = Vec::new();
    for (&i, p) in which.iter().zip(classifier.read_board(&cleared)) {
        let reads_empty = (0..13).all(|k| p[k] <= p[empty]);
        if reads_empty && p[empty] > top_probability(&probs[i]) {
            probs[i] = p;
            kept.push(i);
        }
    }
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
    for b in boxes {
        // The box in squares, padded.
        let [x0, y0, x1, y1] = b.map(|v| v * 8.0);
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

    /// With the shipped classifier: an unsure square read as a piece for the large letter
    /// at its corner reads empty once the letter is painted out; a square without
    /// a label in its crop, and one the first reading gives no chance of being empty, are
    /// left alone.
    #[test]
    fn a_letter_read_as_a_piece_is_read_empty_once_painted_out() {
        let classifier = Classifier::builtin(crate::classifier::Backend::Flex).unwrap();
        let (context, n) = (classifier.crop().context, classifier.crop().size);
        let span = 1.0 + 2.0 * context;
        // Board units (squares) of crop pixel k of square `start`.
        let at = |start: usize, k: u32| start as f32 - context + (k as f32 + 0.5) / n as f32 * span;
        // A light square amid dark ones; a thick dark "b"-sized block of strokes at its
        // bottom right (0.65-0.9 across, 0.5-0.9 down).
        let crop = |index: usize, letter: bool| {
            let (row, col) = (index / 8, index % 8);
            RgbImage::from_fn(n, n, |x, y| {
                let (u, v) = (at(col, x), at(row, y));
                let (fu, fv) = (u - col as f32, v - row as f32);
                let own = (0.0..1.0).contains(&fu) && (0.0..1.0).contains(&fv);
                let stroke = (0.65..0.72).contains(&fu)
                    || ((0.65..0.9).contains(&fu) && ((0.68..0.74).contains(&fv) || fv > 0.84))
                    || ((0.83..0.9).contains(&fu) && fv > 0.68);
                if letter && own && stroke && (0.5..0.9).contains(&fv) {
                    Rgb([120, 80, 50])
                } else if own {
                    Rgb([240, 217, 181])
                } else {
                    Rgb([181, 136, 99])
                }
            })
        };
        let crops: Vec<RgbImage> = (0..64).map(|i| crop(i, i == 57 || i == 58)).collect();
        let boxes: Vec<[f32; 4]> = (0..8)
            .map(|k| [k as f32 + 0.62, 7.46, k as f32 + 0.93, 7.94].map(|v| v / 8.0))
            .collect();
        let knight = SquareClass::Piece(shakmaty::Piece {
            color: shakmaty::Color::White,
            role: shakmaty::Role::Knight,
        })
        .index();
        let empty = SquareClass::Empty.index();
        let mut unsure = [0.01f32; 13];
        (unsure[knight], unsure[empty]) = (0.5, 0.39);
        let mut hopeless = [0.005f32; 13];
        (hopeless[knight], hopeless[empty]) = (0.85, 0.095);
        let mut probs = vec![[0.0f32; 13]; 64];
        for i in [49, 57] {
            probs[i] = unsure;
        }
        probs[58] = hopeless;
        let before = probs.clone();
        // The letter as drawn reads as a piece (a white knight, 84%, with the shipped pair).
        let as_drawn = classifier.read_board(&crops[57..58])[0];
        assert!(as_drawn[empty] < 0.5, "{as_drawn:?}");
        let kept = apply(
            &classifier,
            &crops,
            context,
            &boxes,
            &mut probs,
            &ClearLabelsConfig::default(),
        );
        assert_eq!(kept, vec![57]);
        assert!(probs[57][empty] > 0.5, "{:?}", probs[57]);
        assert_eq!(probs[49], before[49]);
        assert_eq!(probs[58], before[58]);
    }
}
