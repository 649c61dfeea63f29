//! Finding the board: X-corners (where four squares meet) on a regular 7x7 lattice, then a
//! homography from lattice indices to pixels gives the four outer corners. Works for
//! screenshots with clutter, cropped boards, hatched book diagrams and moderate perspective.

mod lattice;
mod many;
mod refine;
pub mod saddle;
mod tone;
mod tone_fit;

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

/// No board in the image: the best lattice of X-corners the finder saw, and why it is not
/// taken for a board.
#[derive(Debug, Clone, PartialEq, Serialize, thiserror::Error)]
#[error("no chess board found (best candidate: {best} of 49 inner corners on a lattice, {needed} needed{why})", why = self.reason.explain())]
pub struct BoardNotFound {
    /// Inner corners of the best candidate.
    #[serde(rename = "inner_corners")]
    pub best: usize,
    /// Inner corners required.
    #[serde(rename = "corners_needed")]
    pub needed: usize,
    /// Why the best candidate was turned down.
    #[serde(flatten)]
    pub reason: NotFoundReason,
}

/// Why the finder's best candidate is not a board.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(tag = "reason", rename_all = "snake_case")]
pub enum NotFoundReason {
    /// No lattice with enough inner corners.
    TooFewCorners,
    /// Its outline is sheared further than any photographed board.
    Sheared,
    /// Its light and dark squares hardly differ (see [`FoundBoard::square_contrast`]).
    FaintSquares {
        /// The candidate's square contrast.
        contrast: f32,
        /// The least a board of its lattice needs.
        #[serde(rename = "contrast_needed")]
        needed: f32,
    },
    /// A lattice turned about 45 degrees with too few corners and faint squares, or one
    /// whose pattern goes on past its edges: lines of text look like that.
    TextLike,
}

impl NotFoundReason {
    /// The clause the error message adds after the corner count.
    fn explain(&self) -> String {
        match self {
            NotFoundReason::TooFewCorners => String::new(),
            NotFoundReason::Sheared => {
                "; its outline is sheared further than a photographed board's".into()
            }
            NotFoundReason::FaintSquares { contrast, needed } => format!(
                "; its light and dark squares hardly differ: contrast {contrast:.2}, {needed:.2} needed"
            ),
            NotFoundReason::TextLike => {
                "; it is turned and its pattern looks like lines of text".into()
            }
        }
    }
}

impl BoardNotFound {
    fn new(best: usize, needed: usize, reason: NotFoundReason) -> BoardNotFound {
        BoardNotFound {
            best,
            needed,
            reason,
        }
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
/// from detection pixels to image pixels. Each source pixel's grey (`weights` in 256ths of
/// the red, green and blue channels, summing to 256) is averaged over the detection pixel
/// it falls in.
fn prepare(img: &RgbImage, max_side: u32, weights: [u32; 3]) -> (GrayImage, f32, f32) {
    let ([gray], fx, fy) = prepare_views(img, max_side, [weights]);
    (gray, fx, fy)
}

/// [`prepare`] for several greys at once (one pass over the picture).
fn prepare_views<const N: usize>(
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
    // The lattice with the most corners seen (see below).
    let mut most: Option<Lattice> = None;
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
            if most.as_ref().is_none_or(|m| l.count > m.count) {
                most = Some(l.clone());
            }
            // A lattice and the same one with strays between its corners (the hatching of
            // a squeezed diagram) are one board, each perhaps seen in part.
            if let Some((b, at)) = &best
                && let Some(joined) = b.merged(&l)
            {
                best = Some((joined, *at));
                continue;
            }
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
    // A clearly larger lattice with fewer corners wins (a thumbnail beside the main board);
    // when it has too few to be a board, the lattice with the most corners may be one (a
    // small board on a page, beside a larger pattern of stray points).
    let enough = |l: &Lattice| l.count >= cfg.min_corners;
    let Some(lattice) = best.filter(enough).or_else(|| most.filter(enough)) else {
        return Err(BoardNotFound::new(
            found,
            cfg.min_corners,
            NotFoundReason::TooFewCorners,
        ));
    };
    let found = lattice.count;
    let (src, dst): (Vec<Point>, Vec<Point>) = lattice.members.iter().cloned().unzip();
    let h = Homography::fit(&src, &dst).ok_or(BoardNotFound::new(
        found,
        cfg.min_corners,
        NotFoundReason::Sheared,
    ))?;
    let blur = (lattice.spacing * 0.08).max(1.0) as usize;
    // The lattice may sit a row off the board when corners hide along one edge and labels
    // or a frame mimic corners along the other; the squares' colours settle it.
    let along = |axis: usize, index: f32| {
        lattice
            .members
            .iter()
            .filter(|(ij, _)| ij[axis] == index)
            .count()
    };
    let edge_corners = [
        [along(0, 0.0), along(0, 6.0)],
        [along(1, 0.0), along(1, 6.0)],
    ];
    let offset = settle_window(integral, &h, blur, edge_corners);
    // Every inner corner looked for again with a kernel sized to its own squares.
    let h = refine::refine(integral, &h, offset, kernel, cfg.min_score).unwrap_or(h);
    // In grey alone; kept for the tone fit's check below.
    let grey_contrast = square_contrast(integral, &h, offset, blur);
    let mut square_contrast = grey_contrast;
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
    let quad = outline(&h, offset, (fx, fy));
    // Sheared further than any photographed board: a pattern of something else.
    if !quad.is_convex() || quad.min_angle() < MIN_CORNER_ANGLE {
        return Err(BoardNotFound::new(
            found,
            cfg.min_corners,
            NotFoundReason::Sheared,
        ));
    }
    // A lattice of X-corners can appear by chance in noise or texture; a board also has
    // two clearly different square colours in a checker pattern.
    // Turned boards are rare and grids of blocks (text) look like turned boards to the
    // diagonal kernel: they need more corners or clearer squares.
    let weak_turned = kernel == Kernel::Diagonal
        && lattice.count < CLEAR_LATTICE
        && square_contrast < TURNED_MIN_CONTRAST;
    // Lines of upright text hold turned lattices of X-corners for the diagonal kernel, and
    // their pattern goes on past the lattice; a board ends at its edge.
    let unbounded_turned = kernel == Kernel::Diagonal
        && outside_alternation(integral, &h, offset, blur) >= TURNED_MAX_OUTSIDE_ALTERNATION;
    if square_contrast < min_contrast {
        return Err(BoardNotFound::new(
            found,
            cfg.min_corners,
            NotFoundReason::FaintSquares {
                contrast: square_contrast,
                needed: min_contrast,
            },
        ));
    }
    if weak_turned || unbounded_turned {
        return Err(BoardNotFound::new(
            found,
            cfg.min_corners,
            NotFoundReason::TextLike,
        ));
    }
    // An outline extrapolated from part of a lattice can sit a good share of a square off
    // the board; the squares' tones pull it back (the gates above judged the lattice as
    // found, so what is a board does not change). The correction must also leave the
    // squares at least as clear on the ring further in that the gates measure: sparse dots
    // near the square edges can make a false peak of the fit's own measure.
    let fitted = tone_fit::fit_to_tones(integral, &h, offset, blur)
        .filter(|fitted| tone::square_contrast(integral, fitted, offset, blur) >= grey_contrast);
    let (quad, square_contrast) = match fitted {
        Some(fitted) => {
            let h =
                refine::refine(integral, &fitted, offset, kernel, cfg.min_score).unwrap_or(fitted);
            let corrected = outline(&h, offset, (fx, fy));
            if corrected.is_convex() && corrected.min_angle() >= MIN_CORNER_ANGLE {
                (
                    corrected,
                    square_contrast.max(tone::square_contrast(integral, &h, offset, blur)),
                )
            } else {
                (quad, square_contrast)
            }
        }
        None => (quad, square_contrast),
    };
    Ok(FoundBoard {
        quad,
        inner_corners: lattice.count,
        square_contrast,
    })
}

/// The board's four outer corners in image pixels, from the lattice homography `h` (in
/// detection pixels, inner corners at `offset + (0..7)`) and the detection image's scale.
fn outline(h: &Homography, offset: [f32; 2], (fx, fy): (f32, f32)) -> Quad {
    Quad(
        [[-1.0, -1.0], [7.0, -1.0], [7.0, 7.0], [-1.0, 7.0]].map(|p| {
            let q = h.apply([p[0] + offset[0], p[1] + offset[1]]);
            [q[0] * fx, q[1] * fy]
        }),
    )
}

/// A board found by the diagonal kernel needs a clear lattice ([`CLEAR_LATTICE`] corners)
/// or this square contrast.
const TURNED_MIN_CONTRAST: f32 = 1.0;
/// A board found by the diagonal kernel must alternate less than this much just off its
/// edges, relative to its own lines (see [`tone::outside_alternation`]): at most 0.27 on
/// the turned boards of the perspective sets, 0.46-1.95 on lattices in lines of text.
const TURNED_MAX_OUTSIDE_ALTERNATION: f32 = 0.4;

/// Inner corners that make a lattice clear enough to stop searching finer scales.
const CLEAR_LATTICE: usize = 40;
/// Share of the usual square contrast a clear lattice needs.
const CLEAR_LATTICE_CONTRAST: f32 = 0.6;

/// Smallest interior angle (degrees) of a found board.
const MIN_CORNER_ANGLE: f32 = 45.0;

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
