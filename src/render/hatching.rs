//! The line and dot patterns of printed dark squares, clean or rough.
//!
//! Clean patterns are ruled: straight parallel lines (or a dot grid) of one weight. Real
//! prints are often not: worn plates, hand-drawn diagrams and poor scans give lines that
//! wander and tilt, thicken and thin, and break. A board drawn rough gets [`RoughLines`].

use rand::{Rng, RngExt};
use resvg::tiny_skia::{FillRule, Path, PathBuilder, Pixmap, Rect, Stroke, Transform};

use super::theme::paint;

/// Line pattern of a printed dark square: direction, spacing and weight vary by book.
#[derive(Clone, Copy, Debug)]
pub struct Hatching {
    diagonal: bool,
    rising: bool,
    /// Distance between line centres, across the lines.
    pub(super) spacing: f32,
    pub(super) width: f32,
}

impl Hatching {
    pub(super) fn random(cell: f32, diagonal: bool, rng: &mut impl Rng) -> Hatching {
        // From coarse (4 lines a square, across the lines) to the fine engraving of printed
        // books (20 thin lines).
        let spacing = (cell / rng.random_range(4.0..20.0f32)).max(2.0);
        // Printed hatching leaves at least as much paper as ink between its lines: denser
        // patterns print as a black square that swallows the pieces on it.
        let width = (cell / rng.random_range(14.0..40.0f32))
            .min(spacing * 0.5)
            .max(0.6);
        Hatching {
            diagonal,
            rising: rng.random_bool(0.6),
            spacing,
            width,
        }
    }

    /// Paper left between two lines, in pixels across them.
    pub fn paper_between(&self) -> f32 {
        self.spacing - self.width
    }

    /// The pattern's lines across `rect`, each as its two ends on the square's edges.
    fn lines(&self, rect: Rect, cell: f32) -> Vec<[(f32, f32); 2]> {
        let spacing = self.spacing;
        let (l, t, r, b) = (rect.left(), rect.top(), rect.right(), rect.bottom());
        let mut out = Vec::new();
        if self.diagonal {
            // Lines x = y + d (falling, "\") or x = -y + d (rising, "/") in square-local
            // coordinates, clipped to the square; d steps by spacing * sqrt 2 so that the
            // lines are `spacing` apart across them (closer, they printed as more ink than
            // paper).
            let step = spacing * std::f32::consts::SQRT_2;
            let mut d = -cell + step / 2.0;
            while d < cell {
                let (ys, ye) = ((-d).max(0.0), (cell - d).min(cell));
                if ye > ys {
                    out.push(if self.rising {
                        [(r - (ys + d), t + ys), (r - (ye + d), t + ye)]
                    } else {
                        [(l + ys + d, t + ys), (l + ye + d, t + ye)]
                    });
                }
                d += step;
            }
        } else {
            let mut yy = t + spacing / 2.0;
            while yy < b {
                out.push([(l, yy), (r, yy)]);
                yy += spacing;
            }
        }
        out
    }
}

/// How far a rough print strays from the ruled pattern. Drawn once a board: one plate, one
/// hand, one scan.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RoughLines {
    /// Largest sideways wander of a line (or shift of a dot), as a share of the spacing.
    pub wander: f32,
    /// Share of a line's short pieces (or of the dots) left out.
    pub breaks: f32,
    /// Line widths and dot sizes vary by up to this share either way.
    pub weight_spread: f32,
    /// Largest tilt of a line away from the pattern's direction, in radians.
    pub tilt: f32,
}

impl RoughLines {
    /// From barely worn to sketchy: wander up to a third of the spacing, up to a third of
    /// the line broken away, weights +-50%, tilts up to 8 degrees.
    pub fn random(rng: &mut impl Rng) -> RoughLines {
        RoughLines {
            wander: rng.random_range(0.05..0.35),
            breaks: rng.random_range(0.0..0.35),
            weight_spread: rng.random_range(0.0..0.5),
            tilt: rng.random_range(0.0..8.0f32).to_radians(),
        }
    }
}

/// Draws `h`'s lines over the dark square `rect`, ruled or, with `rough`, worn.
pub(super) fn hatch(
    pm: &mut Pixmap,
    rect: Rect,
    cell: f32,
    ink: [u8; 3],
    h: &Hatching,
    rough: Option<(&RoughLines, &mut dyn Rng)>,
) {
    let lines = h.lines(rect, cell);
    let Some((rough, rng)) = rough else {
        // One path, one stroke: ruled lines of one weight.
        let mut pb = PathBuilder::new();
        for [a, b] in &lines {
            pb.move_to(a.0, a.1);
            pb.line_to(b.0, b.1);
        }
        if let Some(path) = pb.finish() {
            stroke(pm, &path, ink, h.width);
        }
        return;
    };
    for [a, b] in lines {
        // Each line its own weight, within what keeps about as much paper as ink.
        let width = (h.width * (1.0 + rough.weight_spread * signed(rng)))
            .min(h.spacing * 0.55)
            .max(0.5);
        if let Some(path) = rough_line(a, b, rect, h.spacing, rough, rng) {
            stroke(pm, &path, ink, width);
        }
    }
}

/// A line from `a` to `b` tilted about its middle, wandering sideways in short pieces, some
/// of them left out; kept inside `rect`.
fn rough_line(
    a: (f32, f32),
    b: (f32, f32),
    rect: Rect,
    spacing: f32,
    rough: &RoughLines,
    rng: &mut dyn Rng,
) -> Option<Path> {
    let (mx, my) = ((a.0 + b.0) / 2.0, (a.1 + b.1) / 2.0);
    let (sin, cos) = (rough.tilt * signed(rng)).sin_cos();
    let turn = |p: (f32, f32)| {
        let (dx, dy) = (p.0 - mx, p.1 - my);
        (mx + dx * cos - dy * sin, my + dx * sin + dy * cos)
    };
    let (a, b) = (turn(a), turn(b));
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    let len = (dx * dx + dy * dy).sqrt();
    if len < 0.5 {
        return None;
    }
    let (nx, ny) = (-dy / len, dx / len);
    let pieces = (len / (spacing * 1.5)).ceil().max(2.0) as usize;
    let inside = |x: f32, y: f32| {
        (
            x.clamp(rect.left(), rect.right()),
            y.clamp(rect.top(), rect.bottom()),
        )
    };
    // A smooth wander: each vertex keeps most of the last one's offset.
    let mut offset = 0.0f32;
    let mut vertex = |i: usize, rng: &mut dyn Rng| {
        offset = 0.6 * offset + 0.4 * rough.wander * spacing * signed(rng) * 2.0;
        let t = i as f32 / pieces as f32;
        inside(a.0 + dx * t + nx * offset, a.1 + dy * t + ny * offset)
    };
    let mut pb = PathBuilder::new();
    let mut pen_down = false;
    let mut last = vertex(0, rng);
    for i in 1..=pieces {
        let next = vertex(i, rng);
        if rng.random::<f32>() < rough.breaks {
            pen_down = false;
        } else {
            if !pen_down {
                pb.move_to(last.0, last.1);
                pen_down = true;
            }
            pb.line_to(next.0, next.1);
        }
        last = next;
    }
    pb.finish()
}

fn stroke(pm: &mut Pixmap, path: &Path, ink: [u8; 3], width: f32) {
    let stroke = Stroke {
        width,
        ..Stroke::default()
    };
    pm.stroke_path(path, &paint(ink, 255), &stroke, Transform::identity(), None);
}

/// Stipple over the dark square `rect`: a staggered dot grid, or with `rough` dots shifted,
/// resized and some missing.
pub(super) fn dots(
    pm: &mut Pixmap,
    rect: Rect,
    cell: f32,
    ink: [u8; 3],
    mut rough: Option<(&RoughLines, &mut dyn Rng)>,
) {
    let spacing = (cell / 6.0).max(2.5);
    let r = (cell / 40.0).max(0.6);
    let mut pb = PathBuilder::new();
    let mut yy = rect.top() + spacing / 2.0;
    let mut odd = false;
    while yy < rect.bottom() {
        let mut xx = rect.left() + if odd { spacing } else { spacing / 2.0 };
        while xx < rect.right() {
            match rough.as_mut() {
                None => pb.push_circle(xx, yy, r),
                Some((rough, rng)) => {
                    let shift = rough.wander * spacing;
                    let (x, y) = (xx + shift * signed(rng), yy + shift * signed(rng));
                    let radius = r * (1.0 + rough.weight_spread * signed(rng));
                    let inside = (rect.left()..rect.right()).contains(&x)
                        && (rect.top()..rect.bottom()).contains(&y);
                    if rng.random::<f32>() >= rough.breaks && inside {
                        pb.push_circle(x, y, radius.max(0.4));
                    }
                }
            }
            xx += spacing;
        }
        yy += spacing / 1.3;
        odd = !odd;
    }
    if let Some(path) = pb.finish() {
        pm.fill_path(
            &path,
            &paint(ink, 255),
            FillRule::Winding,
            Transform::identity(),
            None,
        );
    }
}

/// Uniform in [-1, 1) (from one `f32` draw, as every rough pattern so far was drawn).
/// The square's lines showing through a black piece drawn on it (an overprinting plate, a
/// scan that lets the pattern through): in paper over the piece's dark parts, `weight`
/// times the pattern's own width. A white man's paper body is left alone: printed pieces
/// keep their paper, and hatching inside a white outline is what a missing fill looks like
/// (synth drew typeset white men so until session 13, and the models learnt it).
/// `piece` is the piece's raster; `square` is the square's top-left corner in the
/// raster's coordinates, so that the lines keep the square's phase. Returns an overlay the
/// size of the raster, to be drawn over the piece where the piece was drawn.
pub(super) fn show_through(
    piece: &Pixmap,
    square: (f32, f32),
    cell: f32,
    h: &Hatching,
    weight: f32,
    paper: [u8; 3],
) -> Option<Pixmap> {
    let mut lines = Pixmap::new(piece.width(), piece.height())?;
    let rect = Rect::from_xywh(square.0, square.1, cell, cell)?;
    let thin = Hatching {
        width: (h.width * weight).max(0.5),
        ..*h
    };
    hatch(&mut lines, rect, cell, [255, 255, 255], &thin, None);
    let mut out = Pixmap::new(piece.width(), piece.height())?;
    for ((o, p), m) in out
        .pixels_mut()
        .iter_mut()
        .zip(piece.pixels())
        .zip(lines.pixels())
    {
        let p = p.demultiply();
        let luma = super::luma(p) / 255.0;
        // Strongest over solid black; mid greys (an outline's antialiasing) get little,
        // light parts nothing.
        let darkness = ((0.5 - luma) * 2.0).clamp(0.0, 1.0);
        let a = f32::from(m.alpha()) / 255.0 * f32::from(p.alpha()) / 255.0 * darkness;
        let [r, g, b] = paper;
        *o = resvg::tiny_skia::ColorU8::from_rgba(r, g, b, (a * 255.0).round() as u8).premultiply();
    }
    Some(out)
}

fn signed(rng: &mut dyn Rng) -> f32 {
    rng.random::<f32>() * 2.0 - 1.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    fn ink_share(pm: &Pixmap) -> f32 {
        let n = (pm.width() * pm.height()) as f32;
        pm.pixels()
            .iter()
            .map(|p| 1.0 - p.red() as f32 / 255.0)
            .sum::<f32>()
            / n
    }

    fn hatched(cell: f32, h: &Hatching, rough: Option<&RoughLines>, seed: u64) -> Pixmap {
        let side = cell as u32;
        let mut pm = Pixmap::new(side, side).unwrap();
        pm.fill(resvg::tiny_skia::Color::WHITE);
        let rect = Rect::from_xywh(0.0, 0.0, cell, cell).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let draw: &mut dyn Rng = &mut rng;
        hatch(&mut pm, rect, cell, [0, 0, 0], h, rough.map(|r| (r, draw)));
        pm
    }

    #[test]
    fn hatching_leaves_at_least_as_much_paper_as_ink() {
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        for cell in [12.0, 24.0, 60.0, 120.0f32] {
            for _ in 0..200 {
                let h = Hatching::random(cell, true, &mut rng);
                assert!(h.spacing >= 2.0);
                assert!(
                    h.width <= h.spacing * 0.5 || h.width <= 0.6,
                    "cell {cell}: width {} spacing {}",
                    h.width,
                    h.spacing
                );
            }
        }
    }

    #[test]
    fn hatched_squares_print_at_most_about_half_ink() {
        // Measured on the pixels: diagonal lines stepped along x once came out 1.4 times
        // closer than meant, and printed 70% ink. Rough lines vary in weight around the
        // same mean.
        let mut rng = ChaCha8Rng::seed_from_u64(4);
        let cell = 60.0;
        for diagonal in [true, false] {
            for i in 0..40 {
                let h = Hatching::random(cell, diagonal, &mut rng);
                let rough = RoughLines::random(&mut rng);
                for r in [None, Some(&rough)] {
                    let ink = ink_share(&hatched(cell, &h, r, i));
                    assert!(ink <= 0.56, "{h:?} {r:?}: {ink:.2} ink");
                }
            }
        }
    }

    #[test]
    fn rough_lines_stay_in_the_square_and_differ_from_ruled_ones() {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let cell = 48.0;
        let h = Hatching::random(cell, true, &mut rng);
        let rough = RoughLines {
            wander: 0.3,
            breaks: 0.3,
            weight_spread: 0.4,
            tilt: 0.1,
        };
        // Drawn inside a larger canvas: nothing may land outside the square (but for the
        // half line width that any stroke reaching an edge has, as ruled lines do).
        let mut pm = Pixmap::new(96, 96).unwrap();
        pm.fill(resvg::tiny_skia::Color::WHITE);
        let rect = Rect::from_xywh(24.0, 24.0, cell, cell).unwrap();
        let mut draw = ChaCha8Rng::seed_from_u64(1);
        hatch(
            &mut pm,
            rect,
            cell,
            [0, 0, 0],
            &h,
            Some((&rough, &mut draw)),
        );
        let stray = (0..96u32 * 96)
            .filter(|&i| {
                let (x, y) = (i % 96, i / 96);
                let outside = !(20..76).contains(&x) || !(20..76).contains(&y);
                outside && pm.pixels()[i as usize].red() < 250
            })
            .count();
        assert_eq!(stray, 0, "ink outside the square");
        let ruled = hatched(cell, &h, None, 1);
        let worn = hatched(cell, &h, Some(&rough), 1);
        assert_ne!(ruled.data(), worn.data());
        // Breaks leave paper where the ruled lines had ink.
        assert!(ink_share(&worn) < ink_share(&ruled) * 0.95);
        // The same draws give the same square.
        assert_eq!(worn.data(), hatched(cell, &h, Some(&rough), 1).data());
    }

    #[test]
    fn lines_show_through_in_paper_on_black_and_not_on_white() {
        // A 24 px raster: the left half solid black, the right half solid white.
        let mut piece = Pixmap::new(24, 24).unwrap();
        for (i, px) in piece.pixels_mut().iter_mut().enumerate() {
            let v = if i % 24 < 12 { 0 } else { 255 };
            *px = resvg::tiny_skia::ColorU8::from_rgba(v, v, v, 255).premultiply();
        }
        let h = Hatching {
            diagonal: true,
            rising: true,
            spacing: 4.0,
            width: 1.5,
        };
        let through = |pm: &Pixmap| show_through(pm, (0.0, 0.0), 24.0, &h, 1.0, [255; 3]).unwrap();
        let over = through(&piece);
        let (mut on_black, mut on_white) = (0, 0);
        for (i, px) in over.pixels().iter().enumerate() {
            if px.alpha() < 128 {
                continue;
            }
            assert_eq!(px.demultiply().red(), 255, "lines in paper");
            if i % 24 < 12 {
                on_black += 1;
            } else {
                on_white += 1;
            }
        }
        // Lines cover a fair share of the black half, not all of it, and none of the white.
        assert!(
            on_black > 24 && on_black < 200 && on_white == 0,
            "{on_black} {on_white}"
        );
        // Nothing where the piece is transparent.
        let empty = Pixmap::new(24, 24).unwrap();
        let over = through(&empty);
        assert!(over.pixels().iter().all(|p| p.alpha() == 0));
    }
}
