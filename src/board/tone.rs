//! The squares' colours under a fitted lattice: how clearly light and dark squares differ
//! (a board, not a texture that happens to have corners), and which rows belong to the
//! board when the lattice could sit a row off it.

use image::{GrayImage, RgbImage};

use super::occlusion::Covered;
use super::saddle::Integral;
use crate::quad::Homography;

/// Where [`square_tone`] samples a square, as a share of its side from its edges.
pub(super) const RING: f32 = 0.12;

/// Mean grey of square (`row`, `col`) (0..8 on the board; -1 and 8 are just off it) on a
/// ring `ring` of a side inside its edges, where pieces rarely reach; each sample a box
/// mean of `blur` pixels so that dotted or hatched squares count by their average tone.
/// `None` when the square lies outside the image.
pub(super) fn square_tone(
    integral: &Integral,
    h: &Homography,
    (row, col): (i32, i32),
    blur: usize,
    ring: f32,
) -> Option<f32> {
    let (near, far) = (ring, 1.0 - ring);
    let at = [near, 0.37, 0.63, far];
    let mut sum = 0.0;
    let mut n = 0.0;
    for &a in &at {
        for (u, v) in [(a, near), (a, far), (near, a), (far, a)] {
            if let Some(t) = point_tone(integral, h, (row, col), (u, v), blur) {
                sum += t;
                n += 1.0;
            }
        }
    }
    // Most of the ring must be in the image to say anything.
    (n >= 12.0).then(|| sum / n)
}

/// The mean tone of the `blur`-pixel box around point (u, v) (shares of a side) of square
/// (`row`, `col`) of the window `h`, or `None` off the picture.
fn point_tone(
    integral: &Integral,
    h: &Homography,
    (row, col): (i32, i32),
    (u, v): (f32, f32),
    blur: usize,
) -> Option<f32> {
    let (w, hh) = (integral.width(), integral.height());
    let p = h.apply([col as f32 - 1.0 + u, row as f32 - 1.0 + v]);
    (p[0] >= 0.0 && p[1] >= 0.0 && p[0] < w as f32 && p[1] < hh as f32).then(|| {
        let (x, y) = (p[0] as usize, p[1] as usize);
        integral.mean(
            x.saturating_sub(blur),
            y.saturating_sub(blur),
            (x + blur + 1).min(w),
            (y + blur + 1).min(hh),
        )
    })
}

/// Light/dark separation of the 64 squares of the board `offset` (whole squares) from the
/// one `h` describes: |mean(light) - mean(dark)| / (sd(light) + sd(dark) + 4).
pub fn square_contrast(integral: &Integral, h: &Homography, offset: [f32; 2], blur: usize) -> f32 {
    square_contrast_on_ring(integral, h, offset, blur, RING)
}

/// [`square_contrast`] with each square sampled `ring` of a side inside its edges.
pub fn square_contrast_on_ring(
    integral: &Integral,
    h: &Homography,
    offset: [f32; 2],
    blur: usize,
    ring: f32,
) -> f32 {
    contrast_of_squares(
        integral,
        h,
        offset,
        blur,
        ring,
        Spread::Deviation,
        &|_, _| true,
    )
}

/// [`square_contrast`] over the squares not under a card laid over the board (see
/// [`Covered`]: the card's own tone would count as a third square colour), each colour's
/// tone and spread taken as `spread` says.
pub fn square_contrast_uncovered(
    integral: &Integral,
    h: &Homography,
    offset: [f32; 2],
    blur: usize,
    covered: &Covered,
    spread: Spread,
) -> f32 {
    contrast_of_squares(integral, h, offset, blur, RING, spread, &|r, c| {
        !covered.touches(r, c)
    })
}

/// Least difference (grey levels) between the two colours' median tones for
/// [`Spread::Median`] to see squares at all.
const MIN_MEDIAN_STEP: f32 = 10.0;

/// How a square contrast takes each colour's tone and spread.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Spread {
    /// Mean and standard deviation.
    Deviation,
    /// Median and 1.4826 times the median absolute deviation (scaled to a standard
    /// deviation's): men reaching into the rings of a faint board's squares (lightly
    /// hatched dark squares at a few pixels a line) spread both colours' tones and hide a
    /// difference that the empty squares, most of either colour, show plainly.
    Median,
}

/// The contrast of the squares (`row`, `col`, 0..8 of the window) that `counts`.
fn contrast_of_squares(
    integral: &Integral,
    h: &Homography,
    offset: [f32; 2],
    blur: usize,
    ring: f32,
    spread: Spread,
    counts: &dyn Fn(i32, i32) -> bool,
) -> f32 {
    let (dc, dr) = (offset[0] as i32, offset[1] as i32);
    let mut groups: [Vec<f32>; 2] = [Vec::new(), Vec::new()];
    for r in 0..8 {
        for c in 0..8 {
            if !counts(r, c) {
                continue;
            }
            if let Some(t) = square_tone(integral, h, (r + dr, c + dc), blur, ring) {
                groups[((r + c) % 2) as usize].push(t);
            }
        }
    }
    let stats = |g: &[f32]| match spread {
        Spread::Deviation => {
            let m = g.iter().sum::<f32>() / g.len().max(1) as f32;
            let sd =
                (g.iter().map(|x| (x - m).powi(2)).sum::<f32>() / g.len().max(1) as f32).sqrt();
            (m, sd)
        }
        Spread::Median => {
            let m = median(g.to_vec());
            (
                m,
                1.4826 * median(g.iter().map(|x| (x - m).abs()).collect()),
            )
        }
    };
    let ((ma, sa), (mb, sb)) = (stats(&groups[0]), stats(&groups[1]));
    // Medians of a texture's squares (a halftone page under a chance lattice) can differ
    // by a few grey levels with next to no spread: a board's colours differ visibly.
    if spread == Spread::Median && (ma - mb).abs() < MIN_MEDIAN_STEP {
        return 0.0;
    }
    (ma - mb).abs() / (sa + sb + 4.0)
}

/// The median of `values` (0 when there are none).
fn median(mut values: Vec<f32>) -> f32 {
    values.sort_by(f32::total_cmp);
    match values.len() {
        0 => 0.0,
        n if n % 2 == 1 => values[n / 2],
        n => 0.5 * (values[n / 2 - 1] + values[n / 2]),
    }
}

/// How strongly a line of 8 squares alternates: the mean tone step between neighbours,
/// or with `signed` the mean step taken with the checker's alternating sign (up, down,
/// up...), so that a steady gradient (uneven light) cancels out. `index` is a row
/// (`horizontal`) or column, -1..=8, within columns/rows `from..from + 8`. `None` when the
/// line lies mostly outside the picture.
pub(super) fn alternation(
    integral: &Integral,
    h: &Homography,
    blur: usize,
    index: i32,
    from: i32,
    horizontal: bool,
    signed: bool,
) -> Option<f32> {
    let tones: Vec<Option<f32>> = (from..from + 8)
        .map(|k| {
            if horizontal {
                square_tone(integral, h, (index, k), blur, RING)
            } else {
                square_tone(integral, h, (k, index), blur, RING)
            }
        })
        .collect();
    let steps: Vec<f32> = tones
        .windows(2)
        .enumerate()
        .filter_map(|(k, p)| {
            let step = p[0]? - p[1]?;
            Some(match (signed, k % 2) {
                (false, _) => step.abs(),
                (true, 0) => step,
                (true, _) => -step,
            })
        })
        .collect();
    if steps.len() < 5 {
        return None;
    }
    Some((steps.iter().sum::<f32>() / 7.0).abs())
}

/// How strongly the lines of squares just off the board (the rows and columns -1 and 8)
/// alternate light/dark in the checker's rhythm, relative to the board's own lines: the
/// strongest of the four over the mean of the sixteen (steps taken with alternating sign,
/// so a gradient of light across the margin does not count). A board ends at its edge
/// (margin, frame, labels: under 0.4 on nearly all boards of the synthetic sets); a
/// pattern that goes on past the lattice (lines of text) alternates as much outside as
/// inside. Lines mostly outside the picture count as not alternating.
pub fn outside_alternation(
    integral: &Integral,
    h: &Homography,
    offset: [f32; 2],
    blur: usize,
) -> f32 {
    let (dc, dr) = (offset[0] as i32, offset[1] as i32);
    let line = |i: i32, horizontal: bool| {
        let (index, from) = if horizontal {
            (i + dr, dc)
        } else {
            (i + dc, dr)
        };
        // Lines mostly outside the picture count as not alternating.
        alternation(integral, h, blur, index, from, horizontal, true).unwrap_or(0.0)
    };
    let inside = (0..8).map(|i| line(i, true) + line(i, false)).sum::<f32>() / 16.0;
    let outside = [
        line(-1, true),
        line(8, true),
        line(-1, false),
        line(8, false),
    ]
    .into_iter()
    .fold(0.0, f32::max);
    outside / inside.max(1e-3)
}

/// How unlike each square's two diagonal pairs of corners are (the tone just inside one
/// pair against the other's), the median over the squares, in units of the gap between
/// light and dark squares. A board's square is one tone into its corners (men stand in
/// the middle): near 0. Lines of text seen as a turned lattice are stripes across its
/// diamonds: a diamond's left and right tips lie on its own stripe, its top and bottom tips
/// on the neighbouring ones, so the pairs differ by about the whole gap.
pub fn corner_split(integral: &Integral, h: &Homography, offset: [f32; 2], blur: usize) -> f32 {
    let (dc, dr) = (offset[0] as i32, offset[1] as i32);
    let sample =
        |row: i32, col: i32, u: f32, v: f32| point_tone(integral, h, (row, col), (u, v), blur);
    let (near, far) = (CORNER_INSET, 1.0 - CORNER_INSET);
    let mut splits = Vec::new();
    let mut tones = [Vec::new(), Vec::new()];
    for r in 0..8 {
        for c in 0..8 {
            let (row, col) = (r + dr, c + dc);
            if let Some(t) = square_tone(integral, h, (row, col), blur, RING) {
                tones[((r + c) % 2) as usize].push(t);
            }
            let corners = [
                sample(row, col, near, near),
                sample(row, col, far, far),
                sample(row, col, far, near),
                sample(row, col, near, far),
            ];
            if let [Some(a), Some(b), Some(c2), Some(d)] = corners {
                splits.push(((a + b) - (c2 + d)).abs() / 2.0);
            }
        }
    }
    let mean = |v: &[f32]| v.iter().sum::<f32>() / v.len().max(1) as f32;
    let gap = (mean(&tones[0]) - mean(&tones[1])).abs().max(1.0);
    if splits.is_empty() {
        return 0.0;
    }
    splits.sort_by(f32::total_cmp);
    splits[splits.len() / 2] / gap
}

/// Where [`corner_split`] samples a square's corners, as a share of its side in from each
/// edge.
const CORNER_INSET: f32 = 0.15;

/// Other views of the picture at the detection size, for boards whose light and dark
/// squares have nearly one grey tone: the red, green and blue channels (two hues of one
/// brightness) and the local texture (sparse dots or fine hatching that average to nearly
/// the paper's tone, on plain light squares).
pub struct OtherViews {
    views: Vec<Integral>,
}

impl OtherViews {
    /// The views of `img`, shrunk as the finder shrinks it; `gray` is its detection image.
    pub fn new(img: &RgbImage, gray: &GrayImage, max_side: u32) -> OtherViews {
        let (channels, _, _) =
            super::shrink::prepare_views(img, max_side, [[256, 0, 0], [0, 256, 0], [0, 0, 256]]);
        let mut views: Vec<Integral> = channels.iter().map(Integral::new).collect();
        views.push(Integral::new(&texture(gray)));
        OtherViews { views }
    }

    /// The clearest light/dark separation of the board's squares (see [`square_contrast`])
    /// in any of the views, the texture's counted at [`TEXTURE_WEIGHT`].
    pub fn best_contrast(&self, h: &Homography, offset: [f32; 2], blur: usize) -> f32 {
        self.views
            .iter()
            .enumerate()
            .map(|(k, view)| {
                let weight = if k == TEXTURE_VIEW {
                    TEXTURE_WEIGHT
                } else {
                    1.0
                };
                weight * square_contrast(view, h, offset, blur)
            })
            .fold(0.0, f32::max)
    }
}

/// Index of the texture among [`OtherViews`]' views (after the three colour channels).
const TEXTURE_VIEW: usize = 3;
/// The texture separates a lattice's squares by chance more easily than tone does (a
/// halftone or a pattern under a misplaced lattice scores up to about half the contrast
/// of a real dotted board on the synthetic book sets, BENCHMARKS.md), so it counts half.
const TEXTURE_WEIGHT: f32 = 0.5;

/// Local texture: the grey steps to the right and downward neighbours of each pixel, added
/// (large on dots, hatching and outlines; near zero on plain paper or flat colour).
fn texture(gray: &GrayImage) -> GrayImage {
    let (w, h) = gray.dimensions();
    GrayImage::from_fn(w, h, |x, y| {
        let v = i32::from(gray.get_pixel(x, y)[0]);
        let right = i32::from(gray.get_pixel((x + 1).min(w - 1), y)[0]);
        let down = i32::from(gray.get_pixel(x, (y + 1).min(h - 1))[0]);
        image::Luma([((v - right).abs() + (v - down).abs()).min(255) as u8])
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A picture whose pixel at board coordinates (u, v) (in squares, the board turned 45
    /// degrees about the picture's centre) has the tone `tone(u, v, x, y)`, and the lattice
    /// window on that board.
    fn turned(side: f32, tone: impl Fn(f32, f32, f32, f32) -> u8) -> (Integral, Homography) {
        let n = 480u32;
        let c = n as f32 / 2.0;
        let r = std::f32::consts::FRAC_1_SQRT_2;
        let to_image = |u: f32, v: f32| {
            let (a, b) = ((u - 4.0) * side, (v - 4.0) * side);
            [c + r * (a - b), c + r * (a + b)]
        };
        let img = image::GrayImage::from_fn(n, n, |x, y| {
            let (dx, dy) = (x as f32 - c, y as f32 - c);
            let (a, b) = (r * (dx + dy), r * (dy - dx));
            image::Luma([tone(a / side + 4.0, b / side + 4.0, x as f32, y as f32)])
        });
        let src = [[0.0, 0.0], [6.0, 0.0], [6.0, 6.0], [0.0, 6.0]];
        let dst = src.map(|p| to_image(p[0] + 1.0, p[1] + 1.0));
        (Integral::new(&img), Homography::fit(&src, &dst).unwrap())
    }

    #[test]
    fn stripes_across_a_turned_lattice_split_its_squares_corners() {
        let side = 40.0;
        let checker = |u: f32, v: f32, _: f32, _: f32| {
            let inside = (0.0..8.0).contains(&u) && (0.0..8.0).contains(&v);
            match (inside, (u.floor() + v.floor()) as i32 % 2 == 0) {
                (false, _) => 200,
                (true, true) => 230,
                (true, false) => 80,
            }
        };
        let (integral, h) = turned(side, checker);
        let board = corner_split(&integral, &h, [0.0, 0.0], 1);
        assert!(board < 0.1, "turned board: {board}");
        // Lines of type: bands across the picture, as far apart as the diamonds' rows.
        let row = side * std::f32::consts::FRAC_1_SQRT_2;
        let stripes = move |_: f32, _: f32, _: f32, y: f32| {
            if ((y - 240.0) / row + 0.5).floor() as i32 % 2 == 0 {
                230
            } else {
                80
            }
        };
        let (integral, h) = turned(side, stripes);
        let text = corner_split(&integral, &h, [0.0, 0.0], 1);
        assert!(text > 0.4, "stripes: {text}");
    }

    /// An 8x8 board of `side`-pixel squares drawn by `square(light, x, y)` at `margin`
    /// pixels from the top left of a paper-white picture, and the lattice homography
    /// (inner corner indices 0..7 to pixels) that describes it.
    fn board(
        side: u32,
        margin: u32,
        square: impl Fn(bool, u32, u32) -> [u8; 3],
    ) -> (RgbImage, Homography) {
        let n = 2 * margin + 8 * side;
        let img = RgbImage::from_fn(n, n, |x, y| {
            if (margin..margin + 8 * side).contains(&x) && (margin..margin + 8 * side).contains(&y)
            {
                let (c, r) = ((x - margin) / side, (y - margin) / side);
                image::Rgb(square((c + r) % 2 == 0, x, y))
            } else {
                image::Rgb([240, 240, 240])
            }
        });
        let at = |i: f32| margin as f32 + (i + 1.0) * side as f32;
        let src = [[0.0, 0.0], [6.0, 0.0], [6.0, 6.0], [0.0, 6.0]];
        let dst = src.map(|p| [at(p[0]), at(p[1])]);
        (img, Homography::fit(&src, &dst).unwrap())
    }

    fn grey_and_views(img: &RgbImage, h: &Homography) -> (f32, f32) {
        let (gray, _, _) = super::super::shrink::prepare(img, 1024, super::super::shrink::LUMA);
        let grey = square_contrast(&Integral::new(&gray), h, [0.0, 0.0], 1);
        let views = OtherViews::new(img, &gray, 1024).best_contrast(h, [0.0, 0.0], 1);
        (grey, views)
    }

    #[test]
    fn squares_of_one_brightness_differ_in_a_colour_channel() {
        // Rose and teal squares of (nearly) the same grey.
        let (img, h) = board(24, 12, |light, _, _| {
            if light {
                [220, 120, 120]
            } else {
                [120, 146, 146]
            }
        });
        let (grey, views) = grey_and_views(&img, &h);
        assert!(grey < 0.35, "grey contrast {grey}");
        assert!(views > 2.0, "best other view {views}");
    }

    #[test]
    fn a_stipple_of_the_paper_s_tone_differs_in_texture() {
        // Light squares plain; dark squares a one-pixel stipple whose mean is the paper's
        // grey.
        let (img, h) = board(24, 12, |light, x, y| match (light, (x + y) % 2) {
            (false, 0) => [215, 215, 215],
            (false, _) => [255, 255, 255],
            _ => [235, 235, 235],
        });
        let (grey, views) = grey_and_views(&img, &h);
        assert!(grey < 0.35, "grey contrast {grey}");
        assert!(views > 0.7, "best other view {views}");
    }

    #[test]
    fn noise_has_no_squares_in_any_view() {
        let mut state = 12345u32;
        let mut next = || {
            state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (state >> 24) as u8
        };
        let img = RgbImage::from_fn(216, 216, |_, _| image::Rgb([next(), next(), next()]));
        let (_, h) = board(24, 12, |_, _, _| [0, 0, 0]);
        let (grey, views) = grey_and_views(&img, &h);
        assert!(
            grey < 0.35 && views < 0.35,
            "grey {grey}, best other view {views}"
        );
    }

    #[test]
    fn men_spreading_a_faint_board_s_tones_leave_its_medians_apart() {
        let none = Covered::default();
        // Light squares 244, dark 230 (a lightly hatched print, averaged); men, dark discs
        // reaching into the squares' rings, on every third square.
        let side = 24u32;
        let (img, h) = board(side, 12, |light, x, y| {
            let (c, r) = ((x - 12) / side, (y - 12) / side);
            let (dx, dy) = ((x - 12) % side, (y - 12) % side);
            let centre = |d: u32| d as f32 + 0.5 - side as f32 / 2.0;
            let man = (c + 8 * r) % 3 == 0 && centre(dx).hypot(centre(dy)) < 0.48 * side as f32;
            match (man, light) {
                (true, _) => [60; 3],
                (false, true) => [244; 3],
                (false, false) => [230; 3],
            }
        });
        let (gray, _, _) = super::super::shrink::prepare(&img, 1024, super::super::shrink::LUMA);
        let integral = Integral::new(&gray);
        let plain = square_contrast(&integral, &h, [0.0, 0.0], 1);
        let robust = square_contrast_uncovered(&integral, &h, [0.0, 0.0], 1, &none, Spread::Median);
        assert!(plain < 0.35, "mean and deviation: {plain}");
        assert!(robust > 1.0, "medians: {robust}");
        // Squares 6 grey levels apart with no spread at all: a texture's chance lattice.
        let (img, h) = board(
            side,
            12,
            |light, _, _| if light { [44; 3] } else { [38; 3] },
        );
        let (gray, _, _) = super::super::shrink::prepare(&img, 1024, super::super::shrink::LUMA);
        let integral = Integral::new(&gray);
        let robust = square_contrast_uncovered(&integral, &h, [0.0, 0.0], 1, &none, Spread::Median);
        assert_eq!(robust, 0.0);
    }
}
