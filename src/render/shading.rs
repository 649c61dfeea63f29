//! Engraved shading on white pieces: old books and some newspaper fonts draw white pieces
//! with hatch lines inside the body, so a white piece carries a lot of black ink. Without
//! this a classifier learns "white piece = mostly paper" and reads such a piece as black.

use rand::{Rng, RngExt};
use resvg::tiny_skia::Pixmap;

/// How the white pieces of one board are shaded (one style per board, as in a book).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PieceShading {
    /// Distance between hatch lines as a share of the piece size.
    period: f32,
    /// Hatch line width as a share of the period.
    width: f32,
    /// Direction of the lines: unit normal `(nx, ny)`.
    normal: (f32, f32),
    /// Only pixels right of this share of the piece width are shaded (0: all of the body).
    from_x: f32,
    /// Grey level of the lines (0 black).
    ink: u8,
}

impl PieceShading {
    /// A random shading style.
    pub fn random(rng: &mut impl Rng) -> PieceShading {
        let angle: f32 = match rng.random_range(0..4) {
            0 => 0.0,
            1 => 45.0,
            2 => -45.0,
            _ => rng.random_range(-60.0..60.0),
        };
        let (s, c) = angle.to_radians().sin_cos();
        PieceShading {
            period: rng.random_range(0.05..0.12),
            width: rng.random_range(0.3..0.6),
            normal: (s, c),
            from_x: if rng.random_bool(0.5) {
                0.0
            } else {
                rng.random_range(0.35..0.6)
            },
            ink: rng.random_range(0..90),
        }
    }

    /// A copy of `piece` (a white piece's raster) with hatch lines over its light body.
    /// Outlines and dark details stay as drawn; transparent pixels stay transparent.
    pub fn apply(&self, piece: &Pixmap) -> Pixmap {
        let mut out = piece.clone();
        let (w, h) = (out.width() as usize, out.height() as usize);
        let period = (self.period * w as f32).max(2.0);
        let line = (period * self.width).max(1.0);
        let from_x = self.from_x * w as f32;
        let (nx, ny) = self.normal;
        let data = out.data_mut();
        for y in 0..h {
            for x in 0..w {
                let i = (y * w + x) * 4;
                let a = data[i + 3];
                // Premultiplied RGBA: the body is nearly opaque and light.
                if a < 200 || (x as f32) < from_x {
                    continue;
                }
                let light = u32::from(data[i]) + u32::from(data[i + 1]) + u32::from(data[i + 2]);
                if light < 3 * 150 * u32::from(a) / 255 {
                    continue;
                }
                let d = (x as f32 * nx + y as f32 * ny).rem_euclid(period);
                if d < line {
                    let v = (u32::from(self.ink) * u32::from(a) / 255) as u8;
                    data[i] = v;
                    data[i + 1] = v;
                    data[i + 2] = v;
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn hatches_only_the_light_opaque_body() {
        let mut pm = Pixmap::new(40, 40).unwrap();
        // Left half: an opaque white body; right half transparent.
        for y in 0..40 {
            for x in 0..20 {
                let i = (y * 40 + x) * 4;
                pm.data_mut()[i..i + 4].copy_from_slice(&[255, 255, 255, 255]);
            }
        }
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let mut shading = PieceShading::random(&mut rng);
        shading.from_x = 0.0;
        let out = shading.apply(&pm);
        let data = out.data();
        let dark = (0..40 * 20)
            .filter(|&p| {
                let (x, y) = (p % 20, p / 20);
                data[(y * 40 + x) * 4] < 100
            })
            .count();
        assert!(dark > 40 && dark < 800 - 40, "{dark} hatched pixels");
        // The transparent half is untouched.
        assert!((0..40).all(|y| (20..40).all(|x| data[(y * 40 + x) * 4 + 3] == 0)));
    }
}
