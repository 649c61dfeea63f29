//! Engraved shading: old books and some newspaper fonts draw white pieces with hatch lines
//! inside the body, so a white piece carries a lot of black ink; without this a classifier
//! learns "white piece = mostly paper" and reads such a piece as black. The same books
//! often cut thin light lines into black pieces, so black pieces get the mirror image:
//! hatch lines alone must not decide the colour.

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
    /// Grey level of the lines on white pieces (0 black).
    ink: u8,
    /// Whether black pieces get light lines too.
    black_too: bool,
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
            width: rng.random_range(0.25..0.5),
            normal: (s, c),
            from_x: if rng.random_bool(0.5) {
                0.0
            } else {
                rng.random_range(0.35..0.6)
            },
            ink: rng.random_range(0..90),
            black_too: rng.random_bool(0.5),
        }
    }

    /// Whether pieces of `color` are shaded in this style.
    pub fn shades(&self, color: shakmaty::Color) -> bool {
        color == shakmaty::Color::White || self.black_too
    }

    /// A copy of `piece` with hatch lines over its body: dark lines over the light body of a
    /// white piece, thinner light lines over the dark body of a black one. Outlines and
    /// details of the other tone stay as drawn; transparent pixels stay transparent.
    pub fn apply(&self, piece: &Pixmap, color: shakmaty::Color) -> Pixmap {
        let white = color == shakmaty::Color::White;
        let mut out = piece.clone();
        let (w, h) = (out.width() as usize, out.height() as usize);
        let width = if white { self.width } else { self.width * 0.35 };
        // A line is at least a pixel wide; on a small piece the period grows with it, so
        // that the lines keep their share of the body (widths under a half: at least two
        // pixels). Held at two pixels, a white piece under one-pixel lines was half ink
        // whatever its style, as dark as a black piece with light lines once shrunk.
        let period = (self.period * w as f32).max(1.0 / self.width);
        let line = (period * width).max(1.0);
        // Light lines cut into a black piece stay thin next to the dark body (at most a
        // fifth of it): a small piece with one-pixel lines every two pixels would be as
        // light as a shaded white one, and no reader could tell them apart.
        let period = if white {
            period
        } else {
            period.max(line * 5.0)
        };
        let ink = if white { self.ink } else { 255 - self.ink / 2 };
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
                let body = if white {
                    light >= 3 * 150 * u32::from(a) / 255
                } else {
                    light < 3 * 100 * u32::from(a) / 255
                };
                if !body {
                    continue;
                }
                let d = (x as f32 * nx + y as f32 * ny).rem_euclid(period);
                if d < line {
                    let v = (u32::from(ink) * u32::from(a) / 255) as u8;
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
        let out = shading.apply(&pm, shakmaty::Color::White);
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
        // A white body given as a black piece is not its dark body: untouched.
        assert_eq!(shading.apply(&pm, shakmaty::Color::Black).data(), pm.data());
    }

    #[test]
    fn small_white_pieces_keep_their_share_of_paper() {
        // A 20-pixel body, lines a quarter of their period: a one-pixel line every four
        // pixels, not every two.
        let mut pm = Pixmap::new(20, 20).unwrap();
        for px in pm.data_mut().chunks_mut(4) {
            px.copy_from_slice(&[255, 255, 255, 255]);
        }
        for (angle, width) in [(0.0f32, 0.25f32), (45.0, 0.25), (0.0, 0.4), (-30.0, 0.3)] {
            let (s, c) = angle.to_radians().sin_cos();
            let shading = PieceShading {
                period: 0.05,
                width,
                normal: (s, c),
                from_x: 0.0,
                ink: 0,
                black_too: false,
            };
            let out = shading.apply(&pm, shakmaty::Color::White);
            let dark = out.data().chunks(4).filter(|p| p[0] < 128).count() as f32 / 400.0;
            assert!(
                (width - 0.12..width + 0.12).contains(&dark),
                "{dark} of the body inked at width {width}, angle {angle}"
            );
        }
    }

    #[test]
    fn black_pieces_get_light_lines_on_their_dark_body() {
        let mut pm = Pixmap::new(40, 40).unwrap();
        for px in pm.data_mut().chunks_mut(4) {
            px.copy_from_slice(&[0, 0, 0, 255]);
        }
        let mut rng = ChaCha8Rng::seed_from_u64(4);
        let mut shading = PieceShading::random(&mut rng);
        shading.from_x = 0.0;
        let out = shading.apply(&pm, shakmaty::Color::Black);
        let light = out.data().chunks(4).filter(|p| p[0] > 150).count();
        assert!(light > 20 && light < 800, "{light} light pixels of 1600");
    }
}
