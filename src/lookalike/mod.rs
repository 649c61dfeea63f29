//! Look-alikes: one board is drawn in one piece set, so a square the classifier is unsure of
//! usually has a twin elsewhere on the same board that it read clearly: the same piece on the
//! same square colour, pixel for pixel up to noise. A lone black pawn that the model half
//! takes for a white one is settled by the six black pawns beside it. This step compares each
//! unsure crop with the clearly read crops of its likely classes (normalised correlation,
//! allowing a small shift) and, when one class has a clearly closer twin, multiplies that
//! class's probability by a fixed likelihood ratio. It never invents a class the classifier
//! ruled out: the evidence only reorders classes already in the running.
//!
//! The same idea flags confident misreadings: [`unlike_twins`] singles out a square read
//! surely as a piece that looks unlike the board's other squares read as that piece, when
//! those look alike (it changes no reading; the pipeline reports the square as unsure).

use image::RgbImage;
use serde::Serialize;

use crate::class::SquareClass;
use crate::classifier::top_probability;
use crate::decode::best;
use crate::placement::square_shade as parity;

/// Look-alike settings.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct LookalikeConfig {
    /// Squares whose top probability is below this are compared with their twins. Default 0.95.
    pub unsure_below: f32,
    /// Squares read at least this surely serve as references. Default 0.97.
    pub reference_above: f32,
    /// A class considered for an unsure square has at least this probability. Default 0.02.
    pub candidate_above: f32,
    /// The closest twin must correlate at least this well with the unsure crop. Default 0.98.
    pub min_similarity: f32,
    /// ... and this much better than the closest twin of any other candidate class, if
    /// there is one. Default 0.05.
    pub margin: f32,
    /// A twin below `min_similarity` still counts when another candidate class has a twin
    /// too and this one correlates at least this well ... Default 0.93.
    pub contrast_similarity: f32,
    /// ... and at least this much better than that other twin. Default 0.5. Hatched squares
    /// of a printed diagram differ square to square, so true twins there correlate only
    /// 0.93-0.97; a wrong-colour twin of the same piece still falls far behind.
    pub contrast_margin: f32,
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
            contrast_similarity: 0.93,
            contrast_margin: 0.5,
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
/// `context` is the crops' context border as a share of a square (`CropConfig::context`).
pub fn apply(
    crops: &[RgbImage],
    context: f32,
    probs: &mut [[f32; 13]],
    cfg: &LookalikeConfig,
) -> Vec<Lookalike> {
    let n = crops.len().min(probs.len()).min(64);
    let windows = windows(&crops[..n], context);
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
        let clear = similarity >= cfg.min_similarity && similarity - runner_up >= cfg.margin;
        let contrasted = runner_up.is_finite()
            && similarity >= cfg.contrast_similarity
            && similarity - runner_up >= cfg.contrast_margin;
        if !clear && !contrasted {
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

/// Squares read surely as a piece that look unlike every other square read as that piece
/// on the same square colour, while those others look alike: one piece set draws one piece
/// one way, so such a square is worth a second look (a confident misreading, usually a
/// colour swap or a bishop read as a pawn). Returns their indices in the crops' order.
pub fn unlike_twins(
    crops: &[RgbImage],
    context: f32,
    probs: &[[f32; 13]],
    sure_above: f32,
    margin: f32,
) -> Vec<usize> {
    let n = crops.len().min(probs.len()).min(64);
    let windows = windows(&crops[..n], context);
    let empty = SquareClass::Empty.index();
    let mut odd = Vec::new();
    for class in (0..13).filter(|&c| c != empty) {
        for colour in 0..2 {
            // The squares read surely as this piece on this square colour.
            let group: Vec<(usize, &Window)> = (0..n)
                .filter(|&j| {
                    parity(j) == colour
                        && argmax(&probs[j]) == class
                        && probs[j][class] >= sure_above
                })
                .filter_map(|j| windows[j].as_ref().map(|w| (j, w)))
                .collect();
            // A square needs at least two others to be judged against.
            if group.len() < 3 {
                continue;
            }
            let g = group.len();
            // One correlation a pair, used both ways: sliding a's centre over b or b's over
            // a differs only in the border pixels the shifts reach, and this halves the work.
            let mut sim = vec![f32::NEG_INFINITY; g * g];
            for a in 0..g {
                for b in a + 1..g {
                    let s = group[a].1.similarity(group[b].1);
                    sim[a * g + b] = s;
                    sim[b * g + a] = s;
                }
            }
            for i in 0..g {
                let own = (0..g)
                    .filter(|&b| b != i)
                    .map(|b| sim[i * g + b])
                    .fold(f32::NEG_INFINITY, f32::max);
                // How alike the others are: each one's best match among the rest (this
                // square left out), the lowest of those.
                let alike = (0..g)
                    .filter(|&a| a != i)
                    .map(|a| {
                        (0..g)
                            .filter(|&b| b != a && b != i)
                            .map(|b| sim[a * g + b])
                            .fold(f32::NEG_INFINITY, f32::max)
                    })
                    .fold(f32::INFINITY, f32::min);
                if own < alike - margin {
                    odd.push(group[i].0);
                }
            }
        }
    }
    odd.sort_unstable();
    odd
}

/// The comparison window of every crop (`None` for a flat or too small one).
fn windows(crops: &[RgbImage], context: f32) -> Vec<Option<Window>> {
    crops.iter().map(|c| Window::new(c, context)).collect()
}

fn argmax(row: &[f32; 13]) -> usize {
    best(row, |_| true)
}

/// The part of a crop that is the square itself (its context border left out), as
/// per-channel values, and its centre (`MAX_SHIFT` in from each side) with the mean taken
/// out: the centre is slid over the other crop's square.
struct Window {
    side: usize,
    /// Channel-major values of the square part of the crop.
    values: Vec<f32>,
    /// The centre, mean removed, and its sum of squares.
    centre: Vec<f32>,
    centre_energy: f64,
}

impl Window {
    fn new(crop: &RgbImage, context: f32) -> Option<Window> {
        let size = crop.width().min(crop.height()) as usize;
        let context = context.clamp(0.0, 0.5);
        let border = (size as f32 * context / (1.0 + 2.0 * context)).round() as usize;
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
        let mut w = Window {
            side,
            values,
            centre: Vec::new(),
            centre_energy: 0.0,
        };
        let mut centre = Vec::with_capacity(3 * w.inner_side() * w.inner_side());
        w.for_each_inner(0, 0, |v| centre.push(v));
        let mean = centre.iter().sum::<f32>() / centre.len().max(1) as f32;
        centre.iter_mut().for_each(|v| *v -= mean);
        let energy: f64 = centre.iter().map(|&v| f64::from(v * v)).sum();
        // A flat square: correlation means nothing there.
        if (energy / centre.len().max(1) as f64).sqrt() < f64::from(FLAT_STD) {
            return None;
        }
        w.centre = centre;
        w.centre_energy = energy;
        Some(w)
    }

    fn inner_side(&self) -> usize {
        self.side - 2 * MAX_SHIFT as usize
    }

    /// Calls `f` on each value of the centre part shifted by (dx, dy), in the order of
    /// `centre`.
    fn for_each_inner(&self, dx: i32, dy: i32, mut f: impl FnMut(f32)) {
        let (m, s) = (MAX_SHIFT, self.inner_side());
        let sx = (m + dx) as usize;
        for c in 0..3 {
            for y in 0..s {
                let sy = (y as i32 + m + dy) as usize;
                let base = c * self.side * self.side + sy * self.side + sx;
                self.values[base..base + s].iter().for_each(|&v| f(v));
            }
        }
    }

    /// The best normalised correlation of this window's centre with the other's square,
    /// over shifts up to `MAX_SHIFT` (no copies: the other's values are read in place).
    fn similarity(&self, other: &Window) -> f32 {
        if other.side != self.side {
            return f32::NEG_INFINITY;
        }
        let n = self.centre.len() as f64;
        let mut best = f32::NEG_INFINITY;
        for dy in -MAX_SHIFT..=MAX_SHIFT {
            for dx in -MAX_SHIFT..=MAX_SHIFT {
                // With the centre's mean removed, sum(a b) is already sum(a (b - mean b)).
                let (mut ab, mut b1, mut bb) = (0f64, 0f64, 0f64);
                let mut a = self.centre.iter();
                other.for_each_inner(dx, dy, |v| {
                    let (v, x) = (f64::from(v), f64::from(*a.next().unwrap_or(&0.0)));
                    ab += x * v;
                    b1 += v;
                    bb += v * v;
                });
                let var_b = bb - b1 * b1 / n;
                if var_b > f64::EPSILON && self.centre_energy > f64::EPSILON {
                    best = best.max((ab / (self.centre_energy * var_b).sqrt()) as f32);
                } else {
                    best = best.max(0.0);
                }
            }
        }
        best
    }
}

#[cfg(test)]
mod tests;
