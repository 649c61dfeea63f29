//! Look-alikes: one board is drawn in one piece set, so a square the classifier is unsure of
//! usually has a twin elsewhere on the same board that it read clearly: the same piece on the
//! same square colour, pixel for pixel up to noise. A lone black pawn that the model half
//! takes for a white one is settled by the six black pawns beside it. This step compares each
//! unsure crop with the clearly read crops of its likely classes (normalised correlation,
//! allowing a small shift) and, when one class has a clearly closer twin, multiplies that
//! class's probability by a fixed likelihood ratio. It never invents a class the classifier
//! ruled out: the evidence only reorders classes already in the running.

use image::RgbImage;
use serde::Serialize;

use crate::class::SquareClass;
use crate::classifier::top_probability;

/// Look-alike settings.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct LookalikeConfig {
    /// Squares whose top probability is below this are compared with their twins. Default 0.95.
    pub unsure_below: f32,
    /// Squares read at least this surely serve as references. Default 0.97.
    pub reference_above: f32,
    /// A class considered for an unsure square has at least this probability. Default 0.02.
    pub candidate_above: f32,
    /// The closest twin must correlate at least this well with the unsure crop. Default 0.85.
    pub min_similarity: f32,
    /// ... and this much better than the closest twin of any other candidate class, if
    /// there is one. Default 0.05.
    pub margin: f32,
    /// How much a clear twin multiplies its class's probability (then renormalised).
    /// Default 20.
    pub likelihood_ratio: f32,
}

impl Default for LookalikeConfig {
    fn default() -> Self {
        LookalikeConfig {
            unsure_below: 0.95,
            reference_above: 0.97,
            candidate_above: 0.02,
            min_similarity: 0.98,
            margin: 0.05,
            likelihood_ratio: 20.0,
        }
    }
}

/// One unsure square that a twin on the board swayed. Indices are in the crops' order (the
/// image's reading order); the pipeline maps them to chess squares.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Lookalike {
    /// The unsure square.
    pub index: usize,
    /// Its twin, read clearly.
    pub twin: usize,
    /// Their correlation (1 = identical up to brightness and contrast).
    pub similarity: f32,
    /// The class the classifier preferred.
    pub from: SquareClass,
    /// The class preferred after the comparison (may equal `from`: then it was confirmed).
    pub to: SquareClass,
}

/// Most references compared per class (the surest ones): a full board has at most 8 of a
/// kind on one square colour, and four agreeing twins say as much as eight.
const REFERENCES_PER_CLASS: usize = 4;
/// Largest shift tried between two crops, in crop pixels: the grid a board finder lays on a
/// board is off by a fraction of a square, differently at each corner.
const MAX_SHIFT: i32 = 2;
/// A crop whose compared window varies this little (grey levels, standard deviation) is a
/// flat square: correlation means nothing there.
const FLAT_STD: f32 = 4.0;

/// Compares the unsure squares with their twins and updates `probs` (one row per crop, same
/// order) in place. Squares are 8 x 8 in the crops' order; a square's colour is its parity.
pub fn apply(crops: &[RgbImage], probs: &mut [[f32; 13]], cfg: &LookalikeConfig) -> Vec<Lookalike> {
    let n = crops.len().min(probs.len()).min(64);
    let windows: Vec<Option<Window>> = crops.iter().take(n).map(Window::new).collect();
    let mut found = Vec::new();
    let before: Vec<[f32; 13]> = probs[..n].to_vec();
    for i in 0..n {
        let row = &before[i];
        if top_probability(row) >= cfg.unsure_below {
            continue;
        }
        let Some(win) = &windows[i] else { continue };
        // Best twin per candidate class.
        let mut best: Vec<(usize, usize, f32)> = Vec::new(); // (class, twin, similarity)
        for class in (0..13).filter(|&c| row[c] >= cfg.candidate_above) {
            let mut refs: Vec<usize> = (0..n)
                .filter(|&j| {
                    j != i
                        && parity(j) == parity(i)
                        && argmax(&before[j]) == class
                        && before[j][class] >= cfg.reference_above
                        && windows[j].is_some()
                })
                .collect();
            refs.sort_by(|&a, &b| before[b][class].total_cmp(&before[a][class]));
            refs.truncate(REFERENCES_PER_CLASS);
            let twin = refs
                .iter()
                .filter_map(|&j| windows[j].as_ref().map(|w| (j, win.similarity(w))))
                .max_by(|a, b| a.1.total_cmp(&b.1));
            if let Some((j, s)) = twin {
                best.push((class, j, s));
            }
        }
        best.sort_by(|a, b| b.2.total_cmp(&a.2));
        let Some(&(class, twin, similarity)) = best.first() else {
            continue;
        };
        let runner_up = best.get(1).map_or(f32::NEG_INFINITY, |b| b.2);
        if similarity < cfg.min_similarity || similarity - runner_up < cfg.margin {
            continue;
        }
        let from = argmax(row);
        let p = &mut probs[i];
        p[class] *= cfg.likelihood_ratio;
        let total: f32 = p.iter().sum();
        p.iter_mut().for_each(|v| *v /= total);
        let to = argmax(p);
        found.push(Lookalike {
            index: i,
            twin,
            similarity,
            from: SquareClass::from_index(from).unwrap_or_default(),
            to: SquareClass::from_index(to).unwrap_or_default(),
        });
    }
    found
}

fn parity(i: usize) -> usize {
    (i / 8 + i % 8) % 2
}

fn argmax(row: &[f32; 13]) -> usize {
    (0..13)
        .max_by(|&a, &b| row[a].total_cmp(&row[b]))
        .unwrap_or(0)
}

/// The part of a crop that is the square itself (its context border left out), as
/// per-channel values. The window compared is a `MAX_SHIFT` smaller inner part, slid over
/// the other crop's full square.
struct Window {
    side: usize,
    /// Channel-major values of the square part of the crop.
    values: Vec<f32>,
}

impl Window {
    fn new(crop: &RgbImage) -> Option<Window> {
        let size = crop.width().min(crop.height()) as usize;
        // The crop holds the square plus a 1/8 square of context each side (squares::cut's
        // default); keep roughly the square.
        let border = size / 10;
        let side = size.checked_sub(2 * border)?;
        if side <= 2 * MAX_SHIFT as usize + 4 {
            return None;
        }
        let mut values = vec![0f32; 3 * side * side];
        for y in 0..side {
            for x in 0..side {
                let px = crop.get_pixel((x + border) as u32, (y + border) as u32).0;
                for c in 0..3 {
                    values[c * side * side + y * side + x] = px[c] as f32;
                }
            }
        }
        let w = Window { side, values };
        let inner = w.inner(0, 0);
        (std_dev(&inner) >= FLAT_STD).then_some(w)
    }

    /// The centre part shifted by (dx, dy).
    fn inner(&self, dx: i32, dy: i32) -> Vec<f32> {
        let m = MAX_SHIFT as usize;
        let s = self.side - 2 * m;
        let mut out = Vec::with_capacity(3 * s * s);
        for c in 0..3 {
            for y in 0..s {
                let sy = (y as i32 + m as i32 + dy) as usize;
                let base = c * self.side * self.side + sy * self.side;
                let sx = (m as i32 + dx) as usize;
                out.extend_from_slice(&self.values[base + sx..base + sx + s]);
            }
        }
        out
    }

    /// The best normalised correlation of this window's centre with the other's, over
    /// shifts up to `MAX_SHIFT`.
    fn similarity(&self, other: &Window) -> f32 {
        if other.side != self.side {
            return f32::NEG_INFINITY;
        }
        let a = self.inner(0, 0);
        let mut best = f32::NEG_INFINITY;
        for dy in -MAX_SHIFT..=MAX_SHIFT {
            for dx in -MAX_SHIFT..=MAX_SHIFT {
                best = best.max(correlation(&a, &other.inner(dx, dy)));
            }
        }
        best
    }
}

fn std_dev(v: &[f32]) -> f32 {
    let n = v.len().max(1) as f32;
    let mean = v.iter().sum::<f32>() / n;
    (v.iter().map(|x| (x - mean) * (x - mean)).sum::<f32>() / n).sqrt()
}

/// Pearson correlation of two equally long vectors (0 when either is flat).
fn correlation(a: &[f32], b: &[f32]) -> f32 {
    let n = a.len().min(b.len()).max(1) as f32;
    let (ma, mb) = (a.iter().sum::<f32>() / n, b.iter().sum::<f32>() / n);
    let (mut ab, mut aa, mut bb) = (0f32, 0f32, 0f32);
    for (x, y) in a.iter().zip(b) {
        let (x, y) = (x - ma, y - mb);
        ab += x * y;
        aa += x * x;
        bb += y * y;
    }
    if aa <= f32::EPSILON || bb <= f32::EPSILON {
        0.0
    } else {
        ab / (aa * bb).sqrt()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::Rgb;

    /// A 32 px crop: light or dark square with a disc (filled dark, or an outlined ring) of
    /// radius `r`, centred at an offset.
    fn crop(light: bool, filled: bool, r: f32, off: (f32, f32)) -> RgbImage {
        let bg = if light { 235u8 } else { 120 };
        RgbImage::from_fn(32, 32, |x, y| {
            let (dx, dy) = (x as f32 - 16.0 - off.0, y as f32 - 16.0 - off.1);
            let d = (dx * dx + dy * dy).sqrt();
            let outline = if filled { d <= r } else { (d - r).abs() <= 1.2 };
            let v = if outline {
                20
            } else if !filled && d < r {
                250
            } else {
                bg
            };
            Rgb([v, v, v])
        })
    }

    fn probs_for(class: usize, p: f32, other: usize) -> [f32; 13] {
        let mut row = [0.0f32; 13];
        row[class] = p;
        row[other] = 1.0 - p;
        row
    }

    /// Board with black "pawns" (filled discs) on light squares 0, 2, 4 read surely, and an
    /// unsure one on square 6 that the model leans to call white (a ring).
    #[test]
    fn a_clear_twin_settles_an_unsure_square() {
        let empty = crop(true, false, 0.0, (0.0, 0.0));
        let mut crops = vec![empty; 64];
        let mut probs = vec![probs_for(0, 1.0, 0); 64];
        for i in [0, 2, 4] {
            crops[i] = crop(true, true, 7.0, (0.0, 0.0));
            probs[i] = probs_for(7, 0.995, 1);
        }
        crops[9] = crop(true, false, 7.0, (0.0, 0.0)); // a white pawn, read surely
        probs[9] = probs_for(1, 0.99, 7);
        crops[6] = crop(true, true, 7.0, (1.0, -1.0)); // shifted by the finder
        probs[6] = probs_for(1, 0.7, 7);
        let found = apply(&crops, &mut probs, &LookalikeConfig::default());
        assert_eq!(found.len(), 1, "{found:?}");
        let l = found[0];
        assert_eq!(
            (l.index, l.from, l.to),
            (
                6,
                SquareClass::from_index(1).unwrap(),
                SquareClass::from_index(7).unwrap()
            )
        );
        assert!([0, 2, 4].contains(&l.twin));
        assert!(l.similarity > 0.95, "{}", l.similarity);
        assert!(probs[6][7] > 0.8 && (probs[6].iter().sum::<f32>() - 1.0).abs() < 1e-4);
    }

    #[test]
    fn no_twin_on_the_same_square_colour_changes_nothing() {
        let empty = crop(true, false, 0.0, (0.0, 0.0));
        let mut crops = vec![empty; 64];
        let mut probs = vec![probs_for(0, 1.0, 0); 64];
        crops[1] = crop(false, true, 7.0, (0.0, 0.0)); // a dark square: other parity
        probs[1] = probs_for(7, 0.995, 1);
        crops[6] = crop(true, true, 7.0, (0.0, 0.0));
        probs[6] = probs_for(1, 0.7, 7);
        let before = probs[6];
        assert!(apply(&crops, &mut probs, &LookalikeConfig::default()).is_empty());
        assert_eq!(probs[6], before);
    }

    #[test]
    fn a_ruled_out_class_is_never_brought_back() {
        let empty = crop(true, false, 0.0, (0.0, 0.0));
        let mut crops = vec![empty; 64];
        let mut probs = vec![probs_for(0, 1.0, 0); 64];
        crops[0] = crop(true, true, 7.0, (0.0, 0.0));
        probs[0] = probs_for(7, 0.995, 1);
        crops[6] = crop(true, true, 7.0, (0.0, 0.0));
        // The model is unsure between a white pawn and a white bishop; black pawn at 0.
        probs[6] = probs_for(1, 0.6, 3);
        assert!(apply(&crops, &mut probs, &LookalikeConfig::default()).is_empty());
        assert_eq!(probs[6][7], 0.0);
    }

    #[test]
    fn twins_of_two_candidates_alike_are_no_evidence() {
        let empty = crop(true, false, 0.0, (0.0, 0.0));
        let mut crops = vec![empty; 64];
        let mut probs = vec![probs_for(0, 1.0, 0); 64];
        let disc = crop(true, true, 7.0, (0.0, 0.0));
        crops[0] = disc.clone();
        probs[0] = probs_for(7, 0.995, 1);
        crops[2] = disc.clone();
        probs[2] = probs_for(1, 0.995, 7);
        crops[6] = disc;
        probs[6] = probs_for(1, 0.6, 7);
        assert!(apply(&crops, &mut probs, &LookalikeConfig::default()).is_empty());
    }
}
