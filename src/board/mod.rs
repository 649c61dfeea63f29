//! Finding the board: X-corners (where four squares meet) on a regular 7x7 lattice, then a
//! homography from lattice indices to pixels gives the four outer corners. Works for
//! screenshots with clutter, cropped boards, hatched book diagrams and moderate perspective.

mod lattice;
mod many;
mod refine;
pub mod saddle;
mod tone;

use std::cell::OnceCell;

use image::{GrayImage, RgbImage};
use serde::{Deserialize, Serialize};

use crate::quad::{Homography, Point, Quad};
use crate::squares::block_starts;
use lattice::{Lattice, best_lattice, grow_lattice};
pub use many::{find_all, reading_order};
use saddle::{Integral, Kernel, saddles};
use tone::{OtherViews, outside_alternation, settle_window, square_contrast};

/// Board finder settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FinderConfig {
    /// Detection runs on the image shrunk to at most this many pixels a side. Default 1024.
    pub max_side: u32,
    /// Quadrant sizes tried, in detection pixels (about a third to a half of a square).
    pub scales: Vec<usize>,
    /// Weakest X-corner kept, in grey levels. Default 5.
    pub min_score: f32,
    /// Fewest of the 49 inner corners that must be found on the lattice. Default 22.
    pub min_corners: usize,
    /// Strongest X-corners kept per scale. Default 500.
    pub max_points: usize,
    /// Smallest light/dark square contrast (see [`FoundBoard::square_contrast`]) of a board.
    /// Default 0.35 (noise scores under 0.2; the weakest real board seen, a faded scan, 0.59).
    pub min_square_contrast: f32,
}

impl Default for FinderConfig {
    fn default() -> Self {
        FinderConfig {
            max_side: 1024,
            scales: vec![3, 4, 6, 8, 11, 15, 20, 27, 36],
            min_score: 5.0,
            min_corners: 22,
            max_points: 500,
            min_square_contrast: 0.35,
        }
    }
}

/// No board in the image.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error(
    "no chess board found (best candidate: {best} of 49 inner corners on a lattice, {needed} needed)"
)]
pub struct BoardNotFound {
    /// Inner corners of the best candidate.
    pub best: usize,
    /// Inner corners required.
    pub needed: usize,
}

impl BoardNotFound {
    fn new(best: usize, needed: usize) -> BoardNotFound {
        BoardNotFound { best, needed }
    }
}

/// A found board.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FoundBoard {
    /// Outer corners in image order (top-left, top-right, bottom-right, bottom-left).
    pub quad: Quad,
    /// How many of the 49 inner corners were found on the fitted lattice.
    pub inner_corners: usize,
    /// How clearly light and dark squares differ: the gap between the two square colours
    /// over their spread (near the square edges, where pieces rarely reach). In grey; when
    /// the grey hardly differs, the clearest of the colour channels and (counted half) the
    /// local texture.
    pub square_contrast: f32,
}

/// Rec. 709 luma weights in 256ths: the detection image's grey.
const LUMA: [u32; 3] = [54, 183, 19];

/// Greyscale and shrink so the longer side is at most `max_side`; returns the scale factor
/// from detection pixels to image pixels. One pass: each source pixel's grey (`weights` in
/// 256ths of the red, green and blue channels, summing to 256) is added to the detection
/// pixel it falls in, then averaged.
fn prepare(img: &RgbImage, max_side: u32, weights: [u32; 3]) -> (GrayImage, f32, f32) {
    let (w, h) = img.dimensions();
    let longest = w.max(h).max(1);
    let f = (max_side as f32 / longest as f32).min(1.0);
    let (sw, sh) = (
        ((w as f32 * f) as u32).clamp(1, w.max(1)),
        ((h as f32 * f) as u32).clamp(1, h.max(1)),
    );
    let luma =
        |p: &[u8]| weights[0] * p[0] as u32 + weights[1] * p[1] as u32 + weights[2] * p[2] as u32;
    let raw = img.as_raw();
    if (sw, sh) == (w, h) {
        let gray = raw.chunks_exact(3).map(|p| (luma(p) >> 8) as u8).collect();
        let gray = GrayImage::from_raw(w, h, gray).expect("one byte a pixel");
        return (gray, 1.0, 1.0);
    }
    // Detection pixel (c, r) averages source columns cols[c]..cols[c + 1] and rows
    // rows[r]..rows[r + 1].
    let (cols, rows) = (
        block_starts(w as usize, sw as usize),
        block_starts(h as usize, sh as usize),
    );
    let mut gray = vec![0u8; (sw * sh) as usize];
    // One detection row at a time: sums of luma over its band of source rows (u32 is ample:
    // a cell averages far fewer than 2^16 pixels for any image the decoder accepts).
    // The band's luma is summed per source column first (long loops on vector lanes),
    // then over each detection pixel's run of columns: the same integer sums.
    let mut sums = vec![0u32; sw as usize];
    let mut column_sums = vec![0u32; w as usize];
    for (ty, out) in gray.chunks_exact_mut(sw as usize).enumerate() {
        column_sums.fill(0);
        for row in raw[rows[ty] * 3 * w as usize..rows[ty + 1] * 3 * w as usize]
            .chunks_exact(3 * w as usize)
        {
            for (acc, p) in column_sums.iter_mut().zip(row.chunks_exact(3)) {
                *acc += luma(p);
            }
        }
        for (c, sum) in sums.iter_mut().enumerate() {
            *sum = column_sums[cols[c]..cols[c + 1]].iter().sum();
        }
        let band = (rows[ty + 1] - rows[ty]).max(1) as u32;
        for (c, (o, &sum)) in out.iter_mut().zip(&sums).enumerate() {
            let width = (cols[c + 1] - cols[c]).max(1) as u32;
            *o = (sum / (256 * band * width)).min(255) as u8;
        }
    }
    let small = GrayImage::from_raw(sw, sh, gray).expect("one byte a pixel");
    (small, w as f32 / sw as f32, h as f32 / sh as f32)
}

/// Finds the board in `img`.
pub fn find(img: &RgbImage, cfg: &FinderConfig) -> Result<FoundBoard, BoardNotFound> {
    let (gray, fx, fy) = prepare(img, cfg.max_side, LUMA);
    let integral = Integral::new(&gray);
    // Built only for a lattice whose squares' grey tones hardly differ.
    let other_views = OnceCell::new();
    let views = || other_views.get_or_init(|| OtherViews::new(img, &gray, cfg.max_side));
    // Upright corners first; a board turned by around 45 degrees only shows its corners to
    // the diagonal kernel, which is tried when the upright one finds nothing or only a
    // partial lattice: on a turned board the upright kernel's best may be a pattern inside
    // the squares (hatching), or, near 40 degrees, a lattice through corners and square
    // centres along a half diagonal. The diagonal kernel finds nothing on upright boards.
    match find_with(&integral, &views, Kernel::Upright, (fx, fy), cfg) {
        Ok(upright) if upright.inner_corners < CLEAR_LATTICE => {
            match find_with(&integral, &views, Kernel::Diagonal, (fx, fy), cfg) {
                Ok(diagonal) if diagonal.inner_corners > upright.inner_corners => Ok(diagonal),
                _ => Ok(upright),
            }
        }
        Ok(found) => Ok(found),
        Err(upright) => {
            find_with(&integral, &views, Kernel::Diagonal, (fx, fy), cfg).map_err(|diagonal| {
                if diagonal.best > upright.best {
                    diagonal
                } else {
                    upright
                }
            })
        }
    }
}

fn find_with<'a>(
    integral: &Integral,
    other_views: &dyn Fn() -> &'a OtherViews,
    kernel: Kernel,
    (fx, fy): (f32, f32),
    cfg: &FinderConfig,
) -> Result<FoundBoard, BoardNotFound> {
    let mut best: Option<(Lattice, usize)> = None;
    // Coarse to fine. The fine scales cost the most (a response at every pixel) and are
    // only needed for small boards: once a clear lattice is found (most of its 49 corners;
    // arrows and pieces hide a few), scales down to half its size are still tried (a finer
    // kernel places the same corners more precisely), no further; after any acceptable
    // lattice, scales down to a third of its size (a board's corners answer over a range
    // of kernel sizes; far finer ones only find the pattern inside the squares).
    for &q in cfg.scales.iter().rev() {
        if best.as_ref().is_some_and(|(b, found_at)| {
            (b.count >= CLEAR_LATTICE && 2 * q < *found_at)
                || (b.count >= cfg.min_corners && 3 * q < *found_at)
        }) {
            break;
        }
        let pts = saddles(integral, q, cfg.min_score, cfg.max_points, kernel);
        if pts.len() < cfg.min_corners {
            continue;
        }
        if let Some(l) = best_lattice(&pts, q, kernel, cfg) {
            // The lattice grown from the best seed through a homography (it follows
            // perspective and skips weak points off the board), unless the affine lattice
            // of that seed explains more than a row of corners more.
            let (l, seed) = l;
            let grown = grow_lattice(&seed, &pts);
            let l = if grown.count + 7 >= l.count { grown } else { l };
            // On a tie the finer scale wins unless its lattice is clearly narrower (a
            // pattern inside the squares rather than the squares).
            let better = match &best {
                None => true,
                Some((b, _)) => l.beats(b) || (l.count == b.count && 1.3 * l.spacing >= b.spacing),
            };
            if better {
                let found_at = match &best {
                    Some((b, at)) if b.count >= CLEAR_LATTICE && l.count >= CLEAR_LATTICE => *at,
                    _ => q,
                };
                best = Some((l, found_at));
            }
        }
    }
    let best = best.map(|(lattice, _)| lattice);
    let found = best.as_ref().map(|b| b.count).unwrap_or(0);
    let Some(lattice) = best.filter(|b| b.count >= cfg.min_corners) else {
        return Err(BoardNotFound {
            best: found,
            needed: cfg.min_corners,
        });
    };
    let (src, dst): (Vec<Point>, Vec<Point>) = lattice.members.iter().cloned().unzip();
    let h = Homography::fit(&src, &dst).ok_or(BoardNotFound {
        best: found,
        needed: cfg.min_corners,
    })?;
    let blur = (lattice.spacing * 0.08).max(1.0) as usize;
    // The lattice may sit a row off the board when corners hide along one edge and labels
    // or a frame mimic corners along the other; the squares' colours settle it.
    let offset = settle_window(integral, &h, blur);
    // Every inner corner looked for again with a kernel sized to its own squares.
    let h = refine::refine(integral, &h, offset, kernel, cfg.min_score).unwrap_or(h);
    let mut square_contrast = square_contrast(integral, &h, offset, blur);
    // A nearly complete lattice is no accident: its squares may be fainter (dotted print
    // shrunk to a few pixels a dot averages to a pale grey).
    let min_contrast = if lattice.count >= CLEAR_LATTICE {
        cfg.min_square_contrast * CLEAR_LATTICE_CONTRAST
    } else {
        cfg.min_square_contrast
    };
    if square_contrast < min_contrast {
        // Squares of one brightness in two hues, or sparse dots on paper: the colour
        // channels or the texture may tell them apart where the grey tone cannot.
        square_contrast = square_contrast.max(other_views().best_contrast(&h, offset, blur));
    }
    let corners = [[-1.0, -1.0], [7.0, -1.0], [7.0, 7.0], [-1.0, 7.0]].map(|p| {
        let q = h.apply([p[0] + offset[0], p[1] + offset[1]]);
        [q[0] * fx, q[1] * fy]
    });
    let quad = Quad(corners);
    // Sheared further than any photographed board: a pattern of something else.
    if !quad.is_convex() || quad.min_angle() < MIN_CORNER_ANGLE {
        return Err(BoardNotFound::new(found, cfg.min_corners));
    }
    // A lattice of X-corners can appear by chance in noise or texture; a board also has
    // two clearly different square colours in a checker pattern.
    // Turned boards are rare and grids of blocks (text) look like turned boards to the
    // diagonal kernel: they need more corners or clearer squares.
    let weak_turned = kernel == Kernel::Diagonal
        && lattice.count < TURNED_MIN_CORNERS
        && square_contrast < TURNED_MIN_CONTRAST;
    // Lines of upright text hold turned lattices of X-corners for the diagonal kernel, and
    // their pattern goes on past the lattice; a board ends at its edge.
    let unbounded_turned = kernel == Kernel::Diagonal
        && outside_alternation(integral, &h, offset, blur) >= TURNED_MAX_OUTSIDE_ALTERNATION;
    if square_contrast < min_contrast || weak_turned || unbounded_turned {
        return Err(BoardNotFound::new(found, cfg.min_corners));
    }
    Ok(FoundBoard {
        quad,
        inner_corners: lattice.count,
        square_contrast,
    })
}

/// A board found by the diagonal kernel needs this many corners or this square contrast.
const TURNED_MIN_CORNERS: usize = 36;
const TURNED_MIN_CONTRAST: f32 = 1.0;
/// A board found by the diagonal kernel must alternate less than this much just off its
/// edges, relative to its own lines (see [`tone::outside_alternation`]).
const TURNED_MAX_OUTSIDE_ALTERNATION: f32 = 0.6;

/// Inner corners that make a lattice clear enough to stop searching finer scales.
const CLEAR_LATTICE: usize = 40;
/// Share of the usual square contrast a clear lattice needs.
const CLEAR_LATTICE_CONTRAST: f32 = 0.6;

/// Smallest interior angle (degrees) of a found board.
const MIN_CORNER_ANGLE: f32 = 45.0;
