//! Warped pieces, a training augmentation: sets differ in the details of their shapes (a
//! bishop's mitre, the curve of a knight's mane, the height of a pawn's collar) more than in
//! anything the other restyles change. A board with warped pieces bends each of its pieces
//! by one smooth random displacement field of a few hundredths of the piece's size, so the
//! roles are learnt from the whole shape rather than from the exact contour of the sets we
//! can fetch.

use rand::{Rng, RngExt};
use resvg::tiny_skia::{Pixmap, PremultipliedColorU8};
use std::f32::consts::TAU;

/// Number of sine waves summed along each axis.
const WAVES: usize = 3;

/// One wave of the field: a displacement of `amplitude` (a share of the raster's side)
/// along one axis, varying as a sine across the raster in direction `(fx, fy)` (cycles per
/// side).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Wave {
    amplitude: f32,
    fx: f32,
    fy: f32,
    phase: f32,
}

impl Wave {
    /// The wave's values over a `w` x `h` raster of side `side`, row by row. The sine of a
    /// sum splits into a column part and a row part (sin(a + b) = sin a cos b + cos a sin
    /// b), so a raster costs `w + h` sines rather than one a pixel.
    fn add_to(&self, w: usize, h: usize, side: f32, out: &mut [f32]) {
        let angle = |f: f32, i: usize| TAU * f * (i as f32 + 0.5) / side;
        let columns: Vec<(f32, f32)> = (0..w).map(|x| angle(self.fx, x).sin_cos()).collect();
        let rows: Vec<(f32, f32)> = (0..h)
            .map(|y| (angle(self.fy, y) + self.phase).sin_cos())
            .collect();
        for (y, &(sin_b, cos_b)) in rows.iter().enumerate() {
            let row = &mut out[y * w..(y + 1) * w];
            for (o, &(sin_a, cos_a)) in row.iter_mut().zip(&columns) {
                *o += self.amplitude * (sin_a * cos_b + cos_a * sin_b);
            }
        }
    }
}

/// The displacement field of one board's pieces.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PieceWarp {
    /// Waves displacing horizontally, then vertically.
    waves: [[Wave; WAVES]; 2],
}

impl PieceWarp {
    /// A random field: along each axis three sines of 0.4-1.2 cycles per side in random
    /// directions, together moving a point by at most 2.5-5% of the piece's size along
    /// that axis, so a piece bends and swells but keeps its parts and its role.
    pub fn random(rng: &mut impl Rng) -> PieceWarp {
        let most = rng.random_range(0.025..0.05f32);
        let mut axis = || {
            [(); WAVES].map(|_| {
                let angle = rng.random_range(0.0..TAU);
                let cycles = rng.random_range(0.4..1.2f32);
                Wave {
                    amplitude: most / WAVES as f32,
                    fx: cycles * angle.cos(),
                    fy: cycles * angle.sin(),
                    phase: rng.random_range(0.0..TAU),
                }
            })
        };
        PieceWarp {
            waves: [axis(), axis()],
        }
    }

    /// The largest displacement the field can give along either axis, as a share of the
    /// raster's side.
    pub fn most(&self) -> f32 {
        self.waves
            .iter()
            .map(|axis| axis.iter().map(|w| w.amplitude.abs()).sum::<f32>())
            .fold(0.0, f32::max)
    }

    /// `src` with each pixel taken from where the field says it comes from (bilinear, in
    /// premultiplied colour; outside the raster is transparent).
    pub fn apply(&self, src: &Pixmap) -> Pixmap {
        let (w, h) = (src.width() as usize, src.height() as usize);
        let side = w.max(h) as f32;
        let mut out = src.clone();
        let pixels = src.pixels();
        let at = |x: i64, y: i64| -> [f32; 4] {
            if x < 0 || y < 0 || x >= w as i64 || y >= h as i64 {
                return [0.0; 4];
            }
            let p = pixels[y as usize * w + x as usize];
            [p.red(), p.green(), p.blue(), p.alpha()].map(f32::from)
        };
        // Displacement (a share of the side) of every pixel, horizontally and vertically.
        let shifts = self.waves.map(|axis| {
            let mut field = vec![0.0f32; w * h];
            for wave in &axis {
                wave.add_to(w, h, side, &mut field);
            }
            field
        });
        for y in 0..h {
            for x in 0..w {
                let sx = x as f32 + shifts[0][y * w + x] * side;
                let sy = y as f32 + shifts[1][y * w + x] * side;
                let (x0, y0) = (sx.floor(), sy.floor());
                let (tx, ty) = (sx - x0, sy - y0);
                let (x0, y0) = (x0 as i64, y0 as i64);
                let corners = [
                    (at(x0, y0), (1.0 - tx) * (1.0 - ty)),
                    (at(x0 + 1, y0), tx * (1.0 - ty)),
                    (at(x0, y0 + 1), (1.0 - tx) * ty),
                    (at(x0 + 1, y0 + 1), tx * ty),
                ];
                let mut c = [0.0f32; 4];
                for (p, weight) in corners {
                    for k in 0..4 {
                        c[k] += p[k] * weight;
                    }
                }
                let a = c[3].round().clamp(0.0, 255.0) as u8;
                // Premultiplied: no channel may exceed the opacity.
                let [r, g, b] = [c[0], c[1], c[2]].map(|v| (v.round() as u8).min(a));
                out.pixels_mut()[y * w + x] = PremultipliedColorU8::from_rgba(r, g, b, a)
                    .unwrap_or(PremultipliedColorU8::TRANSPARENT);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use resvg::tiny_skia::ColorU8;

    /// A black disc of radius 12 centred on a transparent 40x40 canvas.
    fn disc() -> Pixmap {
        let mut pm = Pixmap::new(40, 40).unwrap();
        for y in 0..40 {
            for x in 0..40 {
                let (dx, dy) = (x as f32 - 19.5, y as f32 - 19.5);
                if dx * dx + dy * dy <= 144.0 {
                    pm.pixels_mut()[y * 40 + x] = ColorU8::from_rgba(0, 0, 0, 255).premultiply();
                }
            }
        }
        pm
    }

    #[test]
    fn no_field_leaves_the_piece_as_drawn() {
        let still = Wave {
            amplitude: 0.0,
            fx: 1.0,
            fy: 0.0,
            phase: 0.0,
        };
        let warp = PieceWarp {
            waves: [[still; WAVES]; 2],
        };
        let pm = disc();
        assert_eq!(warp.apply(&pm).data(), pm.data());
    }

    #[test]
    fn a_uniform_shift_moves_the_piece_by_its_amount() {
        // A field of constant 0.1 horizontally: every pixel comes from 4 pixels to its
        // right, so the disc moves 4 pixels left.
        let flat = |amplitude| Wave {
            amplitude,
            fx: 0.0,
            fy: 0.0,
            phase: std::f32::consts::FRAC_PI_2,
        };
        let warp = PieceWarp {
            waves: [[flat(0.1), flat(0.0), flat(0.0)], [flat(0.0); WAVES]],
        };
        let (pm, out) = (disc(), warp.apply(&disc()));
        for y in 0..40 {
            for x in 0..36 {
                assert_eq!(
                    out.pixels()[y * 40 + x].alpha(),
                    pm.pixels()[y * 40 + x + 4].alpha(),
                    "({x}, {y})"
                );
            }
        }
    }

    #[test]
    fn random_fields_bend_a_piece_a_little_and_keep_it_whole() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(9);
        let pm = disc();
        let ink = |p: &Pixmap| p.pixels().iter().map(|c| c.alpha() as f32).sum::<f32>();
        for _ in 0..50 {
            let warp = PieceWarp::random(&mut rng);
            assert!((0.025..0.05).contains(&warp.most()), "{warp:?}");
            let out = warp.apply(&pm);
            assert_ne!(out.data(), pm.data());
            // The disc's area changes by a little only, and its centre stays solid.
            let ratio = ink(&out) / ink(&pm);
            assert!((0.75..1.3).contains(&ratio), "{ratio} {warp:?}");
            assert_eq!(out.pixels()[20 * 40 + 20].alpha(), 255);
            // Nothing appears far from the disc: at most 2 pixels (5% of the side) of
            // displacement along each axis, and the bilinear sample's reach of a pixel
            // along each.
            for y in 0..40 {
                for x in 0..40 {
                    let (dx, dy) = (x as f32 - 19.5, y as f32 - 19.5);
                    if (dx * dx + dy * dy).sqrt() > 12.0 + 3.0 * std::f32::consts::SQRT_2 {
                        assert_eq!(out.pixels()[y * 40 + x].alpha(), 0, "({x}, {y})");
                    }
                }
            }
        }
    }
}
