//! Inner lines: black men drawn with a thin paper-coloured line just inside their outline.
//!
//! Many diagram fonts and book plates draw a black piece as a solid body with a white line
//! running a little inside its edge (round a pawn's foot, along a rook's base). Few of the
//! sets we can fetch do, and a classifier that has not seen it takes that light line for the
//! outline of a white man (the shipped pair reads 58% of such book boards exactly, 74% of
//! the same boards without lines; BENCHMARKS, session 14). A training augmentation: the line follows the dark body's edge, only where the body is thick enough
//! to keep a solid core inside the line (a pawn's thin neck stays solid, as fonts draw it).
//!
//! Inner marks: other fonts put a small paper mark (a triangle, a dot, a slit) in the thick
//! lower part of a black man's body, a highlight. The shipped models read a black pawn with
//! such a triangle as a white pawn (97%; with the triangle inked over, a black pawn at
//! 100%), so a mark, not the body's darkness, was telling them the colour.

use rand::{Rng, RngExt};
use resvg::tiny_skia::{ColorU8, Pixmap};

/// Pieces smaller than this many pixels get no line: at that size it is one pixel of grey.
const MIN_PIECE: u32 = 16;

/// Where the line runs, in shares of the piece's side.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct InnerLine {
    /// Distance of the line from the body's edge.
    inset: f32,
    /// Line width.
    width: f32,
}

impl InnerLine {
    /// A random line: 3-8% of the piece inside its edge, 2.5-5% wide.
    pub fn random(rng: &mut impl Rng) -> InnerLine {
        InnerLine {
            inset: rng.random_range(0.03..0.08),
            width: rng.random_range(0.025..0.05),
        }
    }

    /// `src` (a black piece, premultiplied) with the line drawn in paper white over its
    /// dark body; the piece's silhouette (alpha) is unchanged.
    pub fn apply(&self, src: &Pixmap) -> Pixmap {
        let mut out = src.clone();
        let (w, h) = (src.width() as usize, src.height() as usize);
        let side = src.width().min(src.height());
        if side < MIN_PIECE {
            return out;
        }
        let inset = (self.inset * side as f32).max(1.0);
        let width = (self.width * side as f32).max(1.0);
        let core_margin = width;
        let body = dark_body(src);
        let depth = distance_to(&body.iter().map(|&b| !b).collect::<Vec<_>>(), w, h, true);
        let core: Vec<bool> = depth
            .iter()
            .map(|&d| d >= inset + width + core_margin)
            .collect();
        let to_core = distance_to(&core, w, h, false);
        let reach = width + core_margin + 1.5;
        for (i, px) in out.pixels_mut().iter_mut().enumerate() {
            let d = depth[i];
            if body[i]
                && d > inset
                && d <= inset + width
                && to_core[i] <= reach + (inset + width - d)
            {
                *px = ColorU8::from_rgba(255, 255, 255, px.alpha()).premultiply();
            }
        }
        out
    }
}

/// The shape of an inner mark.
#[derive(Clone, Copy, Debug, PartialEq)]
enum MarkShape {
    /// A triangle pointing up.
    Triangle,
    /// A round dot.
    Dot,
    /// A short horizontal slit.
    Slit,
}

/// A small paper mark inside the thickest lower part of each black man's body.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct InnerMark {
    shape: MarkShape,
    /// The mark's half-size as a share of the body's depth where it sits.
    size: f32,
}

impl InnerMark {
    /// A random mark: triangle, dot or slit, 35-75% of the body's depth there.
    pub fn random(rng: &mut impl Rng) -> InnerMark {
        let shape = match rng.random_range(0..5u8) {
            0 | 1 => MarkShape::Triangle,
            2 | 3 => MarkShape::Dot,
            _ => MarkShape::Slit,
        };
        InnerMark {
            shape,
            size: rng.random_range(0.35..0.75),
        }
    }

    /// `src` (a black piece, premultiplied) with the mark in paper white; silhouette
    /// unchanged, and a rim of body (a third of its depth, 2 pixels at least) kept round it.
    pub fn apply(&self, src: &Pixmap) -> Pixmap {
        let mut out = src.clone();
        let (w, h) = (src.width() as usize, src.height() as usize);
        if src.width().min(src.height()) < MIN_PIECE {
            return out;
        }
        let body = dark_body(src);
        let depth = distance_to(&body.iter().map(|&b| !b).collect::<Vec<_>>(), w, h, true);
        // The body's vertical extent; the mark goes in its lower half, where a highlight sits.
        let rows: Vec<usize> = (0..h)
            .filter(|&y| body[y * w..(y + 1) * w].contains(&true))
            .collect();
        let (Some(&top), Some(&bottom)) = (rows.first(), rows.last()) else {
            return out;
        };
        let middle = (top + bottom) / 2;
        let Some((centre, deepest)) = (middle * w..h * w)
            .map(|i| (i, depth[i]))
            .max_by(|a, b| a.1.total_cmp(&b.1))
        else {
            return out;
        };
        if deepest < 3.0 {
            return out;
        }
        let r = (deepest * self.size).max(1.0);
        // Body kept all round the mark, so that it stays a mark and never opens the outline.
        let keep = (0.3 * deepest).max(2.0);
        let (cx, cy) = ((centre % w) as f32, (centre / w) as f32);
        for (i, px) in out.pixels_mut().iter_mut().enumerate() {
            if !body[i] || depth[i] < keep {
                continue;
            }
            let (dx, dy) = ((i % w) as f32 - cx, (i / w) as f32 - cy);
            let inside = match self.shape {
                MarkShape::Dot => dx * dx + dy * dy <= r * r,
                // Apex r above the centre, base r below it, as wide as it is tall.
                MarkShape::Triangle => dy.abs() <= r && dx.abs() <= (dy + r) / 2.0,
                MarkShape::Slit => dx.abs() <= r * 1.5 && dy.abs() <= (r * 0.3).max(0.5),
            };
            if inside {
                *px = ColorU8::from_rgba(255, 255, 255, px.alpha()).premultiply();
            }
        }
        out
    }
}

/// Which pixels are the piece's dark body: opaque enough and dark.
fn dark_body(src: &Pixmap) -> Vec<bool> {
    src.pixels()
        .iter()
        .map(|p| {
            let c = p.demultiply();
            c.alpha() >= 128 && super::luma(c) < 110.0
        })
        .collect()
}

/// For every pixel, the distance (chamfer 1 / sqrt 2) to the nearest pixel where `source`
/// is true; with `border_is_source` so is everything outside the raster (a body touching
/// the edge still has an edge there). Infinite where no source is reachable.
fn distance_to(source: &[bool], w: usize, h: usize, border_is_source: bool) -> Vec<f32> {
    const DIAGONAL: f32 = std::f32::consts::SQRT_2;
    let mut d: Vec<f32> = source
        .iter()
        .map(|&s| if s { 0.0 } else { f32::INFINITY })
        .collect();
    let outside = if border_is_source { 0.0 } else { f32::INFINITY };
    let at = |d: &Vec<f32>, x: isize, y: isize| -> f32 {
        if x < 0 || y < 0 || x >= w as isize || y >= h as isize {
            outside
        } else {
            d[y as usize * w + x as usize]
        }
    };
    for y in 0..h as isize {
        for x in 0..w as isize {
            let i = y as usize * w + x as usize;
            let best = (at(&d, x - 1, y) + 1.0)
                .min(at(&d, x, y - 1) + 1.0)
                .min(at(&d, x - 1, y - 1) + DIAGONAL)
                .min(at(&d, x + 1, y - 1) + DIAGONAL);
            d[i] = d[i].min(best);
        }
    }
    for y in (0..h as isize).rev() {
        for x in (0..w as isize).rev() {
            let i = y as usize * w + x as usize;
            let best = (at(&d, x + 1, y) + 1.0)
                .min(at(&d, x, y + 1) + 1.0)
                .min(at(&d, x + 1, y + 1) + DIAGONAL)
                .min(at(&d, x - 1, y + 1) + DIAGONAL);
            d[i] = d[i].min(best);
        }
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 40x40 raster: a solid black 24x24 block (the body) joined by a 6-pixel-wide black
    /// bar (a neck) running up to the top edge; transparent elsewhere.
    fn block_with_neck() -> Pixmap {
        let mut pm = Pixmap::new(40, 40).unwrap();
        for (i, px) in pm.pixels_mut().iter_mut().enumerate() {
            let (x, y) = (i % 40, i / 40);
            let block = (8..32).contains(&x) && (12..36).contains(&y);
            let neck = (17..23).contains(&x) && y < 12;
            if block || neck {
                *px = ColorU8::from_rgba(0, 0, 0, 255).premultiply();
            }
        }
        pm
    }

    fn is_white(pm: &Pixmap, x: usize, y: usize) -> bool {
        pm.pixels()[y * 40 + x].demultiply().red() == 255
    }

    #[test]
    fn the_line_runs_inside_the_thick_body_only() {
        let src = block_with_neck();
        let line = InnerLine {
            inset: 0.05,
            width: 0.05,
        };
        // 2 px in, 2 px wide: the edge pixel (x = 8) is at depth 1, the line at depths 3-4.
        let out = line.apply(&src);
        // On the block's left side, halfway down: edge black, then the line, then the core.
        assert!(!is_white(&out, 8, 24), "the edge stays black");
        assert!(
            is_white(&out, 10, 24) || is_white(&out, 11, 24),
            "the line is drawn"
        );
        assert!(!is_white(&out, 20, 24), "the core stays black");
        // The 6-pixel neck is too thin to hold a core: no line in it.
        assert!((0..8).all(|y| (17..23).all(|x| !is_white(&out, x, y))));
        // The silhouette is unchanged.
        for (a, b) in src.pixels().iter().zip(out.pixels()) {
            assert_eq!(a.alpha(), b.alpha());
        }
        // Something was drawn, and only on the body.
        let changed = src
            .pixels()
            .iter()
            .zip(out.pixels())
            .filter(|(a, b)| a != b)
            .count();
        assert!(changed > 40, "{changed} pixels changed");
    }

    #[test]
    fn a_mark_sits_inside_the_lower_body_and_keeps_an_edge() {
        let src = block_with_neck();
        for shape in [MarkShape::Triangle, MarkShape::Dot, MarkShape::Slit] {
            let out = InnerMark { shape, size: 0.6 }.apply(&src);
            let white: Vec<(usize, usize)> = (0..40 * 40)
                .filter(|&i| is_white(&out, i % 40, i / 40))
                .map(|i| (i % 40, i / 40))
                .collect();
            assert!(white.len() >= 6, "{shape:?}: {} pixels", white.len());
            // Inside the block, never on its outer pixel and a half, and centred below the
            // middle of the whole body (rows 0..36), not up in the neck.
            for &(x, y) in &white {
                assert!(
                    (10..30).contains(&x) && (14..34).contains(&y),
                    "{shape:?} at {x},{y}"
                );
            }
            let mean_y = white.iter().map(|&(_, y)| y as f32).sum::<f32>() / white.len() as f32;
            assert!(mean_y >= 18.0, "{shape:?}: centred on row {mean_y}");
            for (a, b) in src.pixels().iter().zip(out.pixels()) {
                assert_eq!(a.alpha(), b.alpha());
            }
        }
    }

    #[test]
    fn tiny_and_white_pieces_are_left_alone() {
        let line = InnerLine {
            inset: 0.05,
            width: 0.05,
        };
        let mut small = Pixmap::new(12, 12).unwrap();
        small.fill(resvg::tiny_skia::Color::BLACK);
        assert_eq!(line.apply(&small).data(), small.data());
        // A white body has no dark pixels to draw on.
        let mut white = Pixmap::new(40, 40).unwrap();
        white.fill(resvg::tiny_skia::Color::WHITE);
        assert_eq!(line.apply(&white).data(), white.data());
        let mark = InnerMark {
            shape: MarkShape::Dot,
            size: 0.6,
        };
        assert_eq!(mark.apply(&small).data(), small.data());
        assert_eq!(mark.apply(&white).data(), white.data());
    }
}
