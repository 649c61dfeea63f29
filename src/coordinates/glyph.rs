//! Label glyphs: the ink of one label spot, cut out and normalised, and matched against
//! the labels drawn in the embedded faces.

use std::sync::OnceLock;

use resvg::tiny_skia::{Color, Pixmap};

use super::{MIN_INK_CONTRAST, Straightened};
use crate::render::text::{draw_text, fonts};

/// Side of the normalised glyph.
pub(super) const GLYPH: usize = 16;
/// The labels: files in either case (chessground's own stylesheet and some apps write
/// them in capitals), ranks.
const LABELS: &str = "abcdefghABCDEFGH12345678";
/// Least correlation of a label with its best template.
const MIN_MATCH: f32 = 0.45;

/// Why a spot holds no label.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum NoGlyph {
    /// No ink: the spot is as plain as its background.
    Blank,
    /// Ink, but not one label standing free (a piece, a frame, a label cut by the spot's
    /// side, or too much or too little of it).
    NotALabel,
}

/// A label's glyph normalised to `GLYPH` x `GLYPH`, with its ink box `[x0, y0, x1, y1]`
/// in straightened pixels.
pub(super) type Glyph = (Vec<f32>, [usize; 4]);

/// The ink in `rect`, normalised to `GLYPH` x `GLYPH` (aspect kept, centred), when it
/// looks like one label: clearly darker or lighter than the spot's background, a small
/// share of it, and not touching the spot's edges (a piece or a neighbouring square would);
/// with the ink's bounding box `[x0, y0, x1, y1]` in straightened pixels. A line along
/// the spot's side that set the contrast (a frame) is left out for a second look.
pub(super) fn glyph_at(board: &Straightened<'_>, rect: [usize; 4]) -> Result<Glyph, NoGlyph> {
    let [x0, y0, x1, y1] = rect;
    let (w, h) = (x1 - x0, y1 - y0);
    let mut values: Vec<u8> = Vec::with_capacity(w * h);
    for y in y0..y1 {
        board.gray_row(y, x0, x1, &mut values);
    }
    let (mut ink, all_ink) = free_ink(&values, w, h, None)?;
    if count(&ink) < 8 {
        // The ink that touches the spot's border: something larger passing through.
        let passing: Vec<bool> = all_ink.iter().zip(&ink).map(|(&a, &f)| a && !f).collect();
        if count(&passing) > 0 && along_the_border(&passing, w, h) {
            // A line along the spot's side (the board's frame) set the contrast, and a
            // label fainter than it fell under the threshold (chessboard.js's rank
            // digits beside its dark border): the spot's tones again without it.
            ink = free_ink(&values, w, h, Some(&passing))
                .map_err(|_| NoGlyph::NotALabel)?
                .0;
        }
    }
    let n = count(&ink);
    if n < 8 || n * 3 > w * h {
        return Err(NoGlyph::NotALabel);
    }
    let [bx0, by0, bx1, by1] = ink_bounds(&ink, w, h).ok_or(NoGlyph::NotALabel)?;
    let (gw, gh) = (bx1 - bx0, by1 - by0);
    // A label is small.
    if gh < 5 || gh * 10 > h * 9 || gw * 10 > w * 9 {
        return Err(NoGlyph::NotALabel);
    }
    let glyph = standardise(normalise(&ink, w, [bx0, by0, bx1, by1]));
    Ok((glyph, [x0 + bx0, y0 + by0, x0 + bx1, y0 + by1]))
}

/// Whether all of `mask` lies within a sixth of the spot's side from its border, as a
/// frame line does (a piece or a label cut by the spot's side reaches further in).
fn along_the_border(mask: &[bool], w: usize, h: usize) -> bool {
    let (bx, by) = (w.div_ceil(6), h.div_ceil(6));
    mask.iter().enumerate().all(|(i, &m)| {
        let (x, y) = (i % w, i / w);
        !m || x < bx || y < by || x + bx >= w || y + by >= h
    })
}

/// How many pixels of `mask` are set.
fn count(mask: &[bool]) -> usize {
    mask.iter().filter(|&&b| b).count()
}

/// The ink of a `w` x `h` spot of grey `values` that stands free of its border, and all
/// its ink (what is not free touches the border: something larger passing through). Ink
/// is whatever lies past half the contrast from the background (the median), on the side
/// of the tones' further extreme. Pixels in `skip` (border-connected ink of an earlier
/// look) count in no tone, and are passing ink with whatever touches them.
fn free_ink(
    values: &[u8],
    w: usize,
    h: usize,
    skip: Option<&[bool]>,
) -> Result<(Vec<bool>, Vec<bool>), NoGlyph> {
    let skipped = |i: usize| skip.is_some_and(|s| s[i]);
    // Tone histogram: median (the background) and the extreme percentiles.
    let mut histogram = [0usize; 256];
    let mut total = 0;
    for (i, &v) in values.iter().enumerate() {
        if !skipped(i) {
            histogram[v as usize] += 1;
            total += 1;
        }
    }
    if total == 0 {
        return Err(NoGlyph::Blank);
    }
    let percentile = |q: usize| {
        let target = (total * q / 100).min(total - 1);
        let mut seen = 0;
        (0..256)
            .find(|&v| {
                seen += histogram[v];
                seen > target
            })
            .unwrap_or(255) as i32
    };
    let background = percentile(50);
    // Ink is on the side of the background away from the spot's extremes.
    let extremes = |low: usize, high: usize| {
        let (dark, light) = (percentile(low), percentile(high));
        let ink_is_dark = background - dark >= light - background;
        let contrast = if ink_is_dark {
            background - dark
        } else {
            light - background
        };
        (ink_is_dark, contrast)
    };
    let (mut ink_is_dark, mut contrast) = extremes(2, 98);
    // A label under 2% of its spot (chessground's 9-px labels, faint and thin) leaves
    // those percentiles on the background: the 1st and 99th may reach it.
    if contrast < MIN_INK_CONTRAST {
        (ink_is_dark, contrast) = extremes(1, 99);
    }
    if contrast < MIN_INK_CONTRAST {
        return Err(NoGlyph::Blank);
    }
    let threshold = contrast / 2;
    let ink: Vec<bool> = values
        .iter()
        .enumerate()
        .map(|(i, &v)| {
            let d = if ink_is_dark {
                background - v as i32
            } else {
                v as i32 - background
            };
            d > threshold || skipped(i)
        })
        .collect();
    // Ink connected to the spot's border is something larger passing through (a piece,
    // the frame, the page beyond the margin): only what stands free is a label. Skipped
    // pixels reach the border, so ink touching them (their fringe at a lower threshold)
    // goes with them.
    let free = free_standing(&ink, w, h);
    Ok((free, ink))
}

/// The bounding box `[x0, y0, x1, y1]` (exclusive ends) of the ink in a `w` x `h` mask.
fn ink_bounds(ink: &[bool], w: usize, h: usize) -> Option<[usize; 4]> {
    let mut b = [w, h, 0, 0];
    for y in 0..h {
        for x in 0..w {
            if ink[y * w + x] {
                b = [b[0].min(x), b[1].min(y), b[2].max(x + 1), b[3].max(y + 1)];
            }
        }
    }
    (b[2] > b[0] && b[3] > b[1]).then_some(b)
}

/// The ink pixels not connected (8-neighbours) to the border of the `w` x `h` box.
fn free_standing(ink: &[bool], w: usize, h: usize) -> Vec<bool> {
    let mut keep = ink.to_vec();
    let mut stack: Vec<usize> = (0..w)
        .flat_map(|x| [x, (h - 1) * w + x])
        .chain((0..h).flat_map(|y| [y * w, y * w + w - 1]))
        .filter(|&i| ink[i])
        .collect();
    while let Some(i) = stack.pop() {
        if !keep[i] {
            continue;
        }
        keep[i] = false;
        let (x, y) = ((i % w) as i64, (i / w) as i64);
        for dy in -1..=1 {
            for dx in -1..=1 {
                let (nx, ny) = (x + dx, y + dy);
                if nx >= 0 && ny >= 0 && (nx as usize) < w && (ny as usize) < h {
                    let j = ny as usize * w + nx as usize;
                    if keep[j] {
                        stack.push(j);
                    }
                }
            }
        }
    }
    keep
}

/// Scales the ink inside `bbox` to fit `GLYPH` x `GLYPH`, centred, as coverage 0..=1.
pub(super) fn normalise(ink: &[bool], width: usize, bbox: [usize; 4]) -> Vec<f32> {
    let [x0, y0, x1, y1] = bbox;
    let (gw, gh) = ((x1 - x0) as f32, (y1 - y0) as f32);
    let scale = GLYPH as f32 / gw.max(gh);
    let (ox, oy) = (
        (GLYPH as f32 - gw * scale) / 2.0,
        (GLYPH as f32 - gh * scale) / 2.0,
    );
    let mut out = vec![0f32; GLYPH * GLYPH];
    let mut hits = vec![0f32; GLYPH * GLYPH];
    for y in y0..y1 {
        for x in x0..x1 {
            let gx = (ox + (x - x0) as f32 * scale + scale / 2.0) as usize;
            let gy = (oy + (y - y0) as f32 * scale + scale / 2.0) as usize;
            if gx < GLYPH && gy < GLYPH {
                hits[gy * GLYPH + gx] += 1.0;
                if ink[y * width + x] {
                    out[gy * GLYPH + gx] += 1.0;
                }
            }
        }
    }
    for (o, h) in out.iter_mut().zip(&hits) {
        if *h > 0.0 {
            *o /= h;
        }
    }
    blur(&out)
}

/// A 3x3 box blur, so that strokes a pixel apart still overlap.
fn blur(g: &[f32]) -> Vec<f32> {
    let mut out = vec![0f32; g.len()];
    for y in 0..GLYPH {
        for x in 0..GLYPH {
            let mut s = 0.0;
            let mut n = 0.0;
            for dy in -1i32..=1 {
                for dx in -1i32..=1 {
                    let (xx, yy) = (x as i32 + dx, y as i32 + dy);
                    if (0..GLYPH as i32).contains(&xx) && (0..GLYPH as i32).contains(&yy) {
                        s += g[yy as usize * GLYPH + xx as usize];
                        n += 1.0;
                    }
                }
            }
            out[y * GLYPH + x] = s / n;
        }
    }
    out
}

/// The label whose templates match `glyph` best (digits or letters only), when the match
/// is good and clearly better than the best other label.
pub(super) fn best_label(
    glyph: &[f32],
    templates: &[(char, Vec<f32>)],
    digit: bool,
) -> Option<char> {
    let mut best: Vec<(char, f32)> = Vec::new();
    for (c, t) in templates {
        if c.is_ascii_digit() != digit {
            continue;
        }
        let score = correlation(glyph, t);
        // A file's two cases are one label (`c` and `C` look alike).
        let c = c.to_ascii_lowercase();
        match best.iter_mut().find(|(k, _)| *k == c) {
            Some(entry) => entry.1 = entry.1.max(score),
            None => best.push((c, score)),
        }
    }
    best.sort_by(|a, b| b.1.total_cmp(&a.1));
    let (first, second) = (best.first()?, best.get(1)?);
    (first.1 >= MIN_MATCH && first.1 - second.1 >= 0.05).then_some(first.0)
}

/// Zero mean and unit length, so that correlation is a dot product.
pub(super) fn standardise(mut v: Vec<f32>) -> Vec<f32> {
    let mean = v.iter().sum::<f32>() / v.len() as f32;
    v.iter_mut().for_each(|x| *x -= mean);
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-6);
    v.iter_mut().for_each(|x| *x /= norm);
    v
}

/// Normalised cross-correlation of two standardised vectors.
fn correlation(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// The labels in each embedded face, normalised like the glyphs read (built once).
pub(super) fn templates() -> &'static [(char, Vec<f32>)] {
    static TEMPLATES: OnceLock<Vec<(char, Vec<f32>)>> = OnceLock::new();
    TEMPLATES.get_or_init(|| {
        let mut out = Vec::new();
        for font in fonts() {
            for c in LABELS.chars() {
                let size = 64usize;
                let Some(mut pm) = Pixmap::new(size as u32, size as u32) else {
                    continue;
                };
                pm.fill(Color::WHITE);
                draw_text(&mut pm, &font, 40.0, 12.0, 8.0, [0, 0, 0], &c.to_string());
                let ink: Vec<bool> = pm
                    .pixels()
                    .iter()
                    .map(|p| p.demultiply().red() < 128)
                    .collect();
                if let Some(bounds) = ink_bounds(&ink, size, size) {
                    out.push((c, standardise(normalise(&ink, size, bounds))));
                }
            }
        }
        out
    })
}
