//! Finding the board: X-corners (where four squares meet) on a regular 7x7 lattice, then a
//! homography from lattice indices to pixels gives the four outer corners. Works for
//! screenshots with clutter, cropped boards, hatched book diagrams and moderate perspective.

mod bend;
mod lattice;
mod many;
mod not_found;
mod occlusion;
mod refine;
pub mod saddle;
mod shrink;
mod tone;
mod tone_fit;
mod window;

use std::cell::OnceCell;

use image::RgbImage;
use serde::{Deserialize, Serialize};

use crate::quad::{Homography, Point, Quad};
pub use bend::{Bend, unbent};
use lattice::{Lattice, best_lattice, grow_lattice};
pub use many::{find_all, reading_order};
pub use not_found::{BoardNotFound, NotFoundReason};
use occlusion::{Covered, covered_corners};
use saddle::{Integral, Kernel, saddles};
use shrink::{LUMA, prepare};
use tone::{
    OtherViews, Spread, corner_split, outside_alternation, square_contrast,
    square_contrast_uncovered,
};
use window::{LineCorners, settle_window};

/// Board finder settings (a field left out of a settings file takes its default).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct FinderConfig {
    /// Detection runs on the image shrunk to at most this many pixels a side. Default 1024.
    pub max_side: u32,
    /// When that finds no board in a larger image, detection runs once more on the image
    /// shrunk to at most this many pixels a side (0: never). Default 2048.
    pub finer_max_side: u32,
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
    /// When the best lattice is turned down as faint, search once more judging a faint
    /// lattice's squares by their median tones as well (see [`find`]). Default true.
    pub faint_medians: bool,
}

impl Default for FinderConfig {
    fn default() -> Self {
        FinderConfig {
            max_side: 1024,
            finer_max_side: 2048,
            scales: vec![3, 4, 6, 8, 11, 15, 20, 27, 36],
            min_score: 5.0,
            min_corners: 22,
            max_points: 500,
            min_square_contrast: 0.35,
            faint_medians: true,
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
    /// How many more lie under something flat laid over the board (a game-over card):
    /// predicted inside the seen corners' span where the picture is flat, in a tone unlike
    /// both square colours, in one block with no seen corner in its rectangle. They count
    /// towards [`FinderConfig::min_corners`]; 0 on a board whose lattice did not need them.
    pub covered_corners: usize,
    /// How clearly light and dark squares differ: the gap between the two square colours
    /// over their spread (near the square edges, where pieces rarely reach). In grey; when
    /// the grey hardly differs, the clearest of the colour channels and (counted half) the
    /// local texture.
    pub square_contrast: f32,
    /// How the board's lines bend away from its outline's homography (a page curling
    /// towards a book's spine, a camera's barrel distortion), when its inner corners show
    /// it; `None` for a flat board (see [`Bend`]).
    pub bend: Option<Bend>,
}

/// Finds the board in `img`.
///
/// A small board in a large screenshot (a database program's board between its docks and
/// lists, an eighth of a 1600 px screen) has squares of a dozen or so pixels once the image
/// is shrunk to `max_side`, and a board full of men hides most of its inner corners under
/// them: too few are left to make a board. When nothing is found, the image is searched once
/// more, shrunk less (`finer_max_side`), and a board found there is kept only if its squares
/// were that small in the first search: a larger one the first search would have seen, so
/// it is a pattern that only looks like a board up close (lines of large type). Or if it
/// shows a clear lattice (most of its 49 inner corners) where the first search's best was
/// turned down as faint: a large board in perspective whose first search settled on a
/// lattice off its squares. (Type the first search calls text-like can show a clear turned
/// lattice up close.) The error is the first search's.
///
/// When the best candidate is turned down as faint, the search runs once more judging a
/// faint lattice's squares by the medians of their tones as well: a faint board whose men
/// spread its squares' tones. Only then: a lattice so accepted could otherwise win over a
/// board's own (a lattice a file off it, which the other kernel's board beats when the
/// faint one is turned down).
pub fn find(img: &RgbImage, cfg: &FinderConfig) -> Result<FoundBoard, BoardNotFound> {
    match find_judged(img, cfg, Faint::ByMeans) {
        Err(e) if cfg.faint_medians && matches!(e.reason, NotFoundReason::FaintSquares { .. }) => {
            find_judged(img, cfg, Faint::AlsoByMedians).map_err(|_| e)
        }
        found => found,
    }
}

/// How a lattice whose squares' tones hardly differ is judged.
#[derive(Clone, Copy, PartialEq)]
enum Faint {
    /// By their means and deviations (and the other views).
    ByMeans,
    /// ... and by their medians.
    AlsoByMedians,
}

/// [`find`] with faint lattices judged as `faint` says.
fn find_judged(
    img: &RgbImage,
    cfg: &FinderConfig,
    faint: Faint,
) -> Result<FoundBoard, BoardNotFound> {
    let first = find_at(img, cfg, cfg.max_side, faint);
    let longer = img.width().max(img.height());
    match first {
        Err(e) if cfg.finer_max_side > cfg.max_side && longer > cfg.max_side => {
            let first_scale = cfg.max_side as f32 / longer as f32;
            match find_at(img, cfg, cfg.finer_max_side, faint) {
                Ok(b)
                    if b.quad.mean_side() / 8.0 * first_scale <= FINER_MAX_SQUARE
                        || (b.inner_corners >= CLEAR_LATTICE
                            && matches!(e.reason, NotFoundReason::FaintSquares { .. })) =>
                {
                    Ok(b)
                }
                _ => Err(e),
            }
        }
        found => found,
    }
}

/// [`find`] on `img` shrunk to at most `max_side` pixels a side.
fn find_at(
    img: &RgbImage,
    cfg: &FinderConfig,
    max_side: u32,
    faint: Faint,
) -> Result<FoundBoard, BoardNotFound> {
    let (gray, fx, fy) = prepare(img, max_side, LUMA);
    let integral = Integral::new(&gray);
    // Built only for a lattice whose squares' grey tones hardly differ.
    let other_views = OnceCell::new();
    let views = || other_views.get_or_init(|| OtherViews::new(img, &gray, max_side));
    // Upright corners first; a board turned by around 45 degrees only shows its corners to
    // the diagonal kernel, which is tried when the upright one finds nothing or only a
    // partial lattice: on a turned board the upright kernel's best may be a pattern inside
    // the squares (hatching), or, near 40 degrees, a lattice through corners and square
    // centres along a half diagonal. The diagonal kernel finds nothing on upright boards.
    let search = Search {
        integral: &integral,
        other_views: &views,
        scale: (fx, fy),
        cfg,
        faint,
    };
    match search.with_kernel(Kernel::Upright) {
        Ok(upright) if upright.inner_corners < CLEAR_LATTICE => {
            match search.with_kernel(Kernel::Diagonal) {
                Ok(diagonal) if diagonal.inner_corners > upright.inner_corners => Ok(diagonal),
                _ => Ok(upright),
            }
        }
        Ok(found) => Ok(found),
        Err(upright) => search.with_kernel(Kernel::Diagonal).map_err(|diagonal| {
            if diagonal.best > upright.best {
                diagonal
            } else {
                upright
            }
        }),
    }
}

/// One search of the shrunk picture: its grey's integral image, the other views of it
/// (built on first use), the scale back to the picture's pixels, and the settings.
struct Search<'a> {
    integral: &'a Integral,
    other_views: &'a dyn Fn() -> &'a OtherViews,
    scale: (f32, f32),
    cfg: &'a FinderConfig,
    faint: Faint,
}

impl Search<'_> {
    /// No board: the best candidate had `found` inner corners, turned down for `reason`.
    fn not_found(&self, found: usize, reason: NotFoundReason) -> BoardNotFound {
        BoardNotFound::new(found, self.cfg.min_corners, reason)
    }

    /// The board the inner corners of `kernel` show, or why there is none.
    fn with_kernel(&self, kernel: Kernel) -> Result<FoundBoard, BoardNotFound> {
        let (integral, cfg) = (self.integral, self.cfg);
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
                    Some((b, _)) => {
                        l.beats(b) || (l.count == b.count && 1.3 * l.spacing >= b.spacing)
                    }
                };
                if better {
                    let found_at = match &best {
                        Some((b, at)) if b.count >= CLEAR_LATTICE && l.count >= CLEAR_LATTICE => {
                            *at
                        }
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
        // Failing that, a lattice of fewer may be a board with a card over it (see below).
        fn with_at_least(l: &Option<Lattice>, least: usize) -> Option<&Lattice> {
            l.as_ref().filter(|l| l.count >= least)
        }
        let partial = COVERED_MIN_SEEN.min(cfg.min_corners);
        let Some(lattice) = with_at_least(&best, cfg.min_corners)
            .or_else(|| with_at_least(&most, cfg.min_corners))
            .or_else(|| with_at_least(&best, partial))
            .or_else(|| with_at_least(&most, partial))
        else {
            return Err(self.not_found(found, NotFoundReason::TooFewCorners));
        };
        let board = self.board_on(lattice, kernel);
        // A lattice of too few corners that is no covered board is turned down for its count.
        if lattice.count < cfg.min_corners {
            return board.map_err(|_| self.not_found(lattice.count, NotFoundReason::TooFewCorners));
        }
        board
    }

    /// The board whose inner corners `lattice` found, or why it is not one.
    fn board_on(&self, lattice: &Lattice, kernel: Kernel) -> Result<FoundBoard, BoardNotFound> {
        let (integral, cfg, (fx, fy)) = (self.integral, self.cfg, self.scale);
        let found = lattice.count;
        let (src, dst): (Vec<Point>, Vec<Point>) = lattice.members.iter().cloned().unzip();
        let h = Homography::fit(&src, &dst)
            .ok_or_else(|| self.not_found(found, NotFoundReason::Sheared))?;
        let blur = (lattice.spacing * 0.08).max(1.0) as usize;
        // The lattice may sit a row off the board when corners hide along one edge and labels
        // or a frame mimic corners along the other, or two when two lines of corners were
        // not found (a page curling away); the squares' colours settle it.
        let mut line_corners: LineCorners = [[0; 7]; 2];
        for (ij, _) in &lattice.members {
            for axis in 0..2 {
                line_corners[axis][ij[axis] as usize] += 1;
            }
        }
        let offset = settle_window(integral, &h, blur, line_corners, kernel == Kernel::Upright);
        // Every inner corner looked for again with a kernel sized to its own squares.
        let h = refine::refine(integral, &h, offset, kernel, cfg.min_score).unwrap_or(h);
        // In grey alone; kept for the tone fit's check below.
        let grey_contrast = square_contrast(integral, &h, offset, blur);
        // A nearly complete lattice is no accident: its squares may be fainter (dotted print
        // shrunk to a few pixels a dot averages to a pale grey).
        let min_contrast = if lattice.count >= CLEAR_LATTICE {
            cfg.min_square_contrast * CLEAR_LATTICE_CONTRAST
        } else {
            cfg.min_square_contrast
        };
        // A card laid over the board (a game-over dialog) hides corners and spoils the
        // contrast; its corners count as seen and its squares are left out of the contrast.
        let covered = if lattice.count < cfg.min_corners || grey_contrast < min_contrast {
            covered_corners(integral, &h, offset, blur, &lattice.members)
        } else {
            Covered::default()
        };
        if lattice.count + covered.count() < cfg.min_corners {
            return Err(self.not_found(found, NotFoundReason::TooFewCorners));
        }
        let mut square_contrast = if covered.count() > 0 {
            square_contrast_uncovered(integral, &h, offset, blur, &covered, Spread::Deviation)
        } else {
            grey_contrast
        };
        if square_contrast < min_contrast {
            // Squares of one brightness in two hues, or sparse dots on paper: the colour
            // channels or the texture may tell them apart where the grey tone cannot.
            square_contrast =
                square_contrast.max((self.other_views)().best_contrast(&h, offset, blur));
            if self.faint == Faint::AlsoByMedians {
                square_contrast = square_contrast.max(square_contrast_uncovered(
                    integral,
                    &h,
                    offset,
                    blur,
                    &covered,
                    Spread::Median,
                ));
            }
        }
        let quad = outline(&h, offset, (fx, fy));
        // Sheared further than any photographed board: a pattern of something else.
        if !quad.is_convex() || quad.min_angle() < MIN_CORNER_ANGLE {
            return Err(self.not_found(found, NotFoundReason::Sheared));
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
        // ... and they are stripes across the turned squares, which a board's squares are not.
        let striped_turned = kernel == Kernel::Diagonal
            && corner_split(integral, &h, offset, blur) >= TURNED_MAX_CORNER_SPLIT;
        let gate = ramped_contrast(cfg.min_square_contrast, lattice.count);
        if square_contrast < gate {
            return Err(self.not_found(
                found,
                NotFoundReason::FaintSquares {
                    contrast: square_contrast,
                    needed: gate,
                },
            ));
        }
        if weak_turned || unbounded_turned || striped_turned {
            return Err(self.not_found(found, NotFoundReason::TextLike));
        }
        // An outline extrapolated from part of a lattice can sit a good share of a square off
        // the board; the squares' tones pull it back (the gates above judged the lattice as
        // found, so what is a board does not change). The correction must also leave the
        // squares at least as clear on the ring further in that the gates measure: sparse dots
        // near the square edges can make a false peak of the fit's own measure.
        let fitted = tone_fit::fit_to_tones(integral, &h, offset, blur).filter(|fitted| {
            tone::square_contrast(integral, fitted, offset, blur) >= grey_contrast
        });
        let (quad, square_contrast, h) = match fitted {
            Some(fitted) => {
                let fitted_h = refine::refine(integral, &fitted, offset, kernel, cfg.min_score)
                    .unwrap_or(fitted);
                let corrected = outline(&fitted_h, offset, (fx, fy));
                if corrected.is_convex() && corrected.min_angle() >= MIN_CORNER_ANGLE {
                    (
                        corrected,
                        square_contrast
                            .max(tone::square_contrast(integral, &fitted_h, offset, blur)),
                        fitted_h,
                    )
                } else {
                    (quad, square_contrast, h)
                }
            }
            None => (quad, square_contrast, h),
        };
        Ok(FoundBoard {
            quad,
            inner_corners: lattice.count,
            covered_corners: covered.count(),
            square_contrast,
            bend: bend::measure(integral, &h, offset, kernel, cfg.min_score, (fx, fy), quad),
        })
    }
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
/// Most [`tone::corner_split`] a turned board may show: on the perspective set's 33 boards
/// found by the diagonal kernel at most 0.14; the pages of type taken for turned boards
/// before it, 0.41-0.54.
const TURNED_MAX_CORNER_SPLIT: f32 = 0.3;

/// Fewest inner corners seen on a lattice that corners covered by a card (see
/// [`FoundBoard::covered_corners`]) can make up to a board.
const COVERED_MIN_SEEN: usize = 12;

/// Inner corners that make a lattice clear enough to stop searching finer scales.
const CLEAR_LATTICE: usize = 40;
/// Share of the usual square contrast a clear lattice needs.
const CLEAR_LATTICE_CONTRAST: f32 = 0.6;

/// The square contrast a lattice of `count` inner corners needs: `base` up to
/// [`RAMP_FROM`] corners, then falling in a straight line to `base * CLEAR_LATTICE_CONTRAST`
/// at [`CLEAR_LATTICE`]: the more of its corners a lattice shows, the less likely it is an
/// accident of texture, and the fainter its squares may be (dotted print).
fn ramped_contrast(base: f32, count: usize) -> f32 {
    let t = (count.saturating_sub(RAMP_FROM) as f32 / (CLEAR_LATTICE - RAMP_FROM) as f32).min(1.0);
    base * (1.0 - t * (1.0 - CLEAR_LATTICE_CONTRAST))
}

/// Inner corners from which a lattice needs less square contrast (see [`ramped_contrast`]):
/// 70% of the 49. A halftone page (board set dbook14's picture 284) held a false lattice
/// of 32 corners, taken when the ramp began at 22.
const RAMP_FROM: usize = 34;

/// Smallest interior angle (degrees) of a found board.
const MIN_CORNER_ANGLE: f32 = 45.0;

/// Largest square, in the first search's pixels, of a board the finer search may add (see
/// [`find`]): the first search finds boards of 6-100 px squares, but full boards under 17
/// px a square can show it too few inner corners.
const FINER_MAX_SQUARE: f32 = 22.0;
