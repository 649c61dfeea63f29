//! A square's ground: the colour of a thin band just inside its edge, of that band's four
//! corners, and of its middle.

use image::RgbImage;

/// Width of the band a square's ground is read from, as a share of the square (at least a
/// pixel): men stay inside about 0.85 of their square, so the outer tenth is mostly ground.
const BAND: f32 = 0.1;
/// Share of the square, around its centre, that its middle is read from.
const MIDDLE: f32 = 0.4;
/// The band's corners: its pixels within this share of the square of a corner (where a
/// frame drawn along the edge passes and a circle inside it does not).
const CORNER: f32 = 0.25;

/// The ground colours of one square.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ground {
    /// The per-channel median of a band just inside the square's edge.
    pub band: [f32; 3],
    /// ... of the band's four corners.
    pub corners: [f32; 3],
    /// ... of its middle (a man's colours when one stands there).
    pub middle: [f32; 3],
}

/// The ground of each crop. `context` is the crops' context border as a share of a square.
pub fn grounds(crops: &[RgbImage], context: f32) -> Vec<Ground> {
    crops.iter().map(|c| ground(c, context)).collect()
}

fn ground(crop: &RgbImage, context: f32) -> Ground {
    let (w, h) = crop.dimensions();
    let size = w.min(h) as f32;
    let inset = size * context / (1.0 + 2.0 * context);
    let square = size - 2.0 * inset;
    let band = (square * BAND).max(1.0);
    let middle = square * (1.0 - MIDDLE) / 2.0;
    let corner = square * CORNER;
    let mut at_band: [Vec<u8>; 3] = Default::default();
    let mut at_corners: [Vec<u8>; 3] = Default::default();
    let mut at_middle: [Vec<u8>; 3] = Default::default();
    for (x, y, px) in crop.enumerate_pixels() {
        let (fx, fy) = (x as f32 + 0.5 - inset, y as f32 + 0.5 - inset);
        // Distance to the square's nearest edge; the outermost half pixel is left out (the
        // grid lines of some boards, and a finder a little off).
        let edge = fx.min(fy).min(square - fx).min(square - fy);
        let into = if (0.5..=0.5 + band).contains(&edge) {
            if fx.min(square - fx) < corner && fy.min(square - fy) < corner {
                for (k, ch) in at_corners.iter_mut().enumerate() {
                    ch.push(px.0[k]);
                }
            }
            &mut at_band
        } else if edge >= middle {
            &mut at_middle
        } else {
            continue;
        };
        for (k, ch) in into.iter_mut().enumerate() {
            ch.push(px.0[k]);
        }
    }
    Ground {
        band: at_band.map(channel_median),
        corners: at_corners.map(channel_median),
        middle: at_middle.map(channel_median),
    }
}

/// The median of 8-bit values (0 for none).
pub fn channel_median(mut v: Vec<u8>) -> f32 {
    if v.is_empty() {
        return 0.0;
    }
    let mid = v.len() / 2;
    *v.select_nth_unstable(mid).1 as f32
}

/// A colour changing linearly across the board: `c + x * dx + y * dy` a channel.
pub(super) struct Plane {
    c: [f32; 3],
    dx: [f32; 3],
    dy: [f32; 3],
}

/// A square's place on the board (file, rank: 0..8) and a colour there.
pub(super) type PlacedColour = ((f32, f32), [f32; 3]);

impl Plane {
    /// The least-squares plane through `points` (a square's place and colour); flat when
    /// they do not span one (all on a line).
    pub(super) fn fit(points: &[PlacedColour]) -> Plane {
        let n = points.len().max(1) as f32;
        let mean = |f: fn(&PlacedColour) -> f32| points.iter().map(f).sum::<f32>() / n;
        let (mx, my) = (mean(|p| p.0.0), mean(|p| p.0.1));
        let (mut sxx, mut syy, mut sxy) = (0f32, 0f32, 0f32);
        for ((x, y), _) in points {
            sxx += (x - mx) * (x - mx);
            syy += (y - my) * (y - my);
            sxy += (x - mx) * (y - my);
        }
        let det = sxx * syy - sxy * sxy;
        let mut plane = Plane {
            c: [0.0; 3],
            dx: [0.0; 3],
            dy: [0.0; 3],
        };
        for k in 0..3 {
            let mv = points.iter().map(|p| p.1[k]).sum::<f32>() / n;
            let (mut sxv, mut syv) = (0f32, 0f32);
            for ((x, y), v) in points {
                sxv += (x - mx) * (v[k] - mv);
                syv += (y - my) * (v[k] - mv);
            }
            let (dx, dy) = if det.abs() > 1e-3 {
                ((syy * sxv - sxy * syv) / det, (sxx * syv - sxy * sxv) / det)
            } else {
                (0.0, 0.0)
            };
            plane.dx[k] = dx;
            plane.dy[k] = dy;
            plane.c[k] = mv - dx * mx - dy * my;
        }
        plane
    }

    pub(super) fn at(&self, (x, y): (f32, f32)) -> [f32; 3] {
        [0, 1, 2].map(|k| self.c[k] + x * self.dx[k] + y * self.dy[k])
    }
}
