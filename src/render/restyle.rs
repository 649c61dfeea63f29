//! Restyled piece sets, training augmentations that give the classifier more styles than
//! the sets we can fetch.
//!
//! Tint: the 120-odd piece sets we can fetch are nearly all
//! drawn white-and-black, but real boards show cream and brown men, red and white ones,
//! grey and blue. A tinted board redraws each colour's pieces as a duotone of their own
//! lightness: white men run from a dark line colour to a light body colour, black men from
//! a dark body colour to a light highlight colour. White's body stays clearly lighter than
//! black's, so colour is still readable, but not from one fixed shade.
//!
//! Stretch: sets differ in proportions (KDE Knights' Staunton men are tall and thin, a
//! bishop there is as narrow as a pawn elsewhere); a stretched board draws all its pieces
//! narrower or wider and a little taller or shorter, so shape, not width, tells the roles.
//!
//! Grey black men: programs that fill one outline in two colours (XBoard with its own men,
//! or with a set whose gradients it renders flat) draw black men as the white men's
//! drawing with a grey body, far lighter than the black of the sets we fetch. Such a board
//! draws each black man from its white twin's raster, dark lines and a grey body.
//!
//! Mirror: most sets draw their knights facing left and cut their bishops' mitres one way;
//! some face right. A mirrored board draws every piece flipped left to right (a stretch
//! with a negative width).
//!
//! Heavy lines: sets differ in line weight as much as in shape (hairline Staunton
//! drawings, bold diagram fonts, markers of children's books); a board with heavy lines
//! widens every dark line of its pieces by a few hundredths of the piece's size, inside
//! the piece's outline, so the roles are learnt from shape rather than from one weight.

use rand::{Rng, RngExt};
use resvg::tiny_skia::{ColorU8, FilterQuality, Pixmap, PixmapPaint, Transform};
use shakmaty::Color;

/// The two duotones of one board (one style per board, as a piece set has).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PieceTint {
    /// White pieces: (darkest, lightest) colour.
    white: ([f32; 3], [f32; 3]),
    /// Black pieces: (darkest, lightest) colour, or `None` to leave them as drawn.
    black: Option<([f32; 3], [f32; 3])>,
}

/// An RGB colour from hue (0..1), saturation and value.
pub(crate) fn hsv(h: f32, s: f32, v: f32) -> [f32; 3] {
    let i = (h * 6.0).floor();
    let f = h * 6.0 - i;
    let (p, q, t) = (v * (1.0 - s), v * (1.0 - f * s), v * (1.0 - (1.0 - f) * s));
    let rgb = match i as i32 % 6 {
        0 => [v, t, p],
        1 => [q, v, p],
        2 => [p, v, t],
        3 => [p, q, v],
        4 => [t, p, v],
        _ => [v, p, q],
    };
    rgb.map(|c| c * 255.0)
}

/// A colour of any hue with saturation and value drawn from the given ranges.
fn random_colour(
    rng: &mut impl Rng,
    saturation: std::ops::Range<f32>,
    value: std::ops::Range<f32>,
) -> [f32; 3] {
    let hue = rng.random();
    let s = rng.random_range(saturation);
    hsv(hue, s, rng.random_range(value))
}

impl PieceTint {
    /// A random tint: a light body for white (cream, grey, pale colours), and for black, in
    /// three boards of four, a dark body of any hue (brown, red, navy, green, grey).
    pub fn random(rng: &mut impl Rng) -> PieceTint {
        let line = random_colour(rng, 0.0..0.6, 0.0..0.3);
        let body = random_colour(rng, 0.0..0.3, 0.8..1.0);
        let black = rng.random_bool(0.75).then(|| {
            let dark = random_colour(rng, 0.0..0.85, 0.08..0.4);
            let light = random_colour(rng, 0.0..0.3, 0.7..1.0);
            (dark, light)
        });
        PieceTint {
            white: (line, body),
            black,
        }
    }

    /// Black men drawn from the white men's drawing (see the module's comment): a duotone
    /// from a dark line (at most 20% of full brightness) to a grey body of little colour
    /// (30-60%), applied to the white men's rasters with [`PieceTint::apply`] as white.
    pub fn grey_body(rng: &mut impl Rng) -> PieceTint {
        let line = random_colour(rng, 0.0..0.3, 0.0..0.2);
        let body = random_colour(rng, 0.0..0.25, 0.3..0.6);
        PieceTint {
            white: (line, body),
            black: None,
        }
    }

    /// Whether pieces of `color` change.
    pub fn tints(&self, color: Color) -> bool {
        color == Color::White || self.black.is_some()
    }

    /// `src` (a piece of `color`, premultiplied) with its pixels mapped through the duotone.
    pub fn apply(&self, src: &Pixmap, color: Color) -> Pixmap {
        let mut out = src.clone();
        let (lo, hi) = match color {
            Color::White => self.white,
            Color::Black => match self.black {
                Some(pair) => pair,
                None => return out,
            },
        };
        for p in out.pixels_mut() {
            let c = p.demultiply();
            if c.alpha() == 0 {
                continue;
            }
            let l = super::luma(c) / 255.0;
            let [r, g, b] =
                [0, 1, 2].map(|k| (lo[k] + (hi[k] - lo[k]) * l).round().clamp(0.0, 255.0) as u8);
            *p = ColorU8::from_rgba(r, g, b, c.alpha()).premultiply();
        }
        out
    }
}

/// The proportions of one board's pieces.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PieceStretch {
    /// Width factor.
    x: f32,
    /// Height factor (at most 1: a piece never grows out of its square).
    y: f32,
}

impl PieceStretch {
    /// The piece as drawn.
    pub const NONE: PieceStretch = PieceStretch { x: 1.0, y: 1.0 };

    /// This stretch, then flipped left to right.
    pub fn mirrored(self) -> PieceStretch {
        PieceStretch {
            x: -self.x,
            y: self.y,
        }
    }

    /// Whether pieces come out flipped left to right.
    pub fn is_mirrored(&self) -> bool {
        self.x < 0.0
    }

    /// Whether pieces come out narrower, wider or shorter than drawn.
    pub fn changes_proportions(&self) -> bool {
        self.x.abs() != 1.0 || self.y != 1.0
    }

    /// A random stretch: width 0.65..1.25 of the drawn piece, height 0.85..1.
    pub fn random(rng: &mut impl Rng) -> PieceStretch {
        PieceStretch {
            x: rng.random_range(0.65..1.25),
            y: rng.random_range(0.85..1.0),
        }
    }

    /// `src` redrawn on a canvas of the same size, scaled about its centre horizontally
    /// (a negative width factor mirrors) and about its foot (the bottom edge) vertically,
    /// so a shorter piece still stands where it stood.
    pub fn apply(&self, src: &Pixmap) -> Pixmap {
        let (w, h) = (src.width() as f32, src.height() as f32);
        let Some(mut out) = Pixmap::new(src.width(), src.height()) else {
            return src.clone();
        };
        let transform = Transform::from_row(
            self.x,
            0.0,
            0.0,
            self.y,
            w / 2.0 * (1.0 - self.x),
            h * (1.0 - self.y),
        );
        let paint = PixmapPaint {
            quality: FilterQuality::Bilinear,
            ..Default::default()
        };
        out.draw_pixmap(0, 0, src.as_ref(), &paint, transform, None);
        out
    }
}

/// Dark lines of one board's pieces drawn heavier.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HeavyLines {
    /// How far each dark line grows on either side, as a share of the raster's side.
    share: f32,
}

/// Least opacity of a pixel whose colour can spread into its neighbours (the antialiased
/// rim outside a piece's outline does not).
const INK_ALPHA: u8 = 128;

impl HeavyLines {
    /// A random weight: lines grow 1.2-3.5% of the piece's size on each side (at least a
    /// pixel).
    pub fn random(rng: &mut impl Rng) -> HeavyLines {
        HeavyLines {
            share: rng.random_range(0.012..0.035),
        }
    }

    /// `src` with each pixel inside the piece taking the darkest colour within the growth
    /// radius (a square window: the luma-keyed minimum, row pass then column pass); the
    /// outline, opacity included, is kept.
    pub fn apply(&self, src: &Pixmap) -> Pixmap {
        let (w, h) = (src.width() as usize, src.height() as usize);
        let r = (self.share * w.max(h) as f32).round().max(1.0) as usize;
        let colours: Vec<ColorU8> = src.pixels().iter().map(|p| p.demultiply()).collect();
        // (luma, index of the pixel whose colour it is); pixels too faint to be ink never win.
        let key = |i: usize| {
            let c = colours[i];
            if c.alpha() >= INK_ALPHA {
                (super::luma(c), i)
            } else {
                (f32::INFINITY, i)
            }
        };
        let darker = |a: (f32, usize), b: (f32, usize)| if b.0 < a.0 { b } else { a };
        let mut rows = vec![(f32::INFINITY, 0usize); w * h];
        for y in 0..h {
            for x in 0..w {
                let (lo, hi) = (x.saturating_sub(r), (x + r).min(w - 1));
                rows[y * w + x] = (lo..=hi)
                    .map(|xx| key(y * w + xx))
                    .fold((f32::INFINITY, y * w + x), darker);
            }
        }
        let mut out = src.clone();
        for y in 0..h {
            for x in 0..w {
                let i = y * w + x;
                let own = colours[i];
                if own.alpha() == 0 {
                    continue;
                }
                let (lo, hi) = (y.saturating_sub(r), (y + r).min(h - 1));
                let (luma, from) = (lo..=hi)
                    .map(|yy| rows[yy * w + x])
                    .fold((f32::INFINITY, i), darker);
                if luma < super::luma(own) {
                    let c = colours[from];
                    out.pixels_mut()[i] =
                        ColorU8::from_rgba(c.red(), c.green(), c.blue(), own.alpha()).premultiply();
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

    #[test]
    fn white_bodies_stay_lighter_than_black_bodies() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        let luma = |c: [f32; 3]| 0.299 * c[0] + 0.587 * c[1] + 0.114 * c[2];
        for _ in 0..500 {
            let t = PieceTint::random(&mut rng);
            if let Some((dark, _)) = t.black {
                assert!(luma(t.white.1) > luma(dark) + 40.0, "{t:?}");
            }
            assert!(luma(t.white.1) > luma(t.white.0) + 70.0, "{t:?}");
        }
    }

    #[test]
    fn grey_bodies_lie_between_the_black_and_the_white_of_fetched_sets() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        let luma = |c: [f32; 3]| 0.299 * c[0] + 0.587 * c[1] + 0.114 * c[2];
        for _ in 0..500 {
            let t = PieceTint::grey_body(&mut rng);
            let (line, body) = t.white;
            assert!(luma(line) <= 0.2 * 255.0 + 0.5, "{t:?}");
            assert!(
                (0.25 * 255.0..=0.6 * 255.0 + 0.5).contains(&luma(body)),
                "{t:?}"
            );
            assert!(luma(body) > luma(line) + 20.0, "{t:?}");
            assert!(t.black.is_none());
        }
    }

    #[test]
    fn a_white_body_takes_the_tint_and_lines_stay_dark() {
        let mut pm = Pixmap::new(2, 1).unwrap();
        pm.pixels_mut()[0] = ColorU8::from_rgba(255, 255, 255, 255).premultiply();
        pm.pixels_mut()[1] = ColorU8::from_rgba(0, 0, 0, 255).premultiply();
        let t = PieceTint {
            white: ([10.0, 0.0, 0.0], [240.0, 220.0, 180.0]),
            black: None,
        };
        let out = t.apply(&pm, Color::White);
        let px = |i: usize| out.pixels()[i].demultiply();
        assert_eq!((px(0).red(), px(0).green(), px(0).blue()), (240, 220, 180));
        assert_eq!((px(1).red(), px(1).green(), px(1).blue()), (10, 0, 0));
        assert!(!t.tints(Color::Black));
        assert_eq!(t.apply(&pm, Color::Black).data(), pm.data());
    }

    #[test]
    fn a_narrower_piece_keeps_its_centre_and_its_foot() {
        // An opaque 20x20 block, bottom-centred on a 40x40 canvas.
        let mut pm = Pixmap::new(40, 40).unwrap();
        for y in 20..40 {
            for x in 10..30 {
                pm.pixels_mut()[y * 40 + x] = ColorU8::from_rgba(0, 0, 0, 255).premultiply();
            }
        }
        let out = PieceStretch { x: 0.5, y: 0.75 }.apply(&pm);
        let solid = |x: usize, y: usize| out.pixels()[y * 40 + x].alpha() > 200;
        // Width 20 -> 10, centred: x 15..25. Height 20 -> 15, standing on the bottom: y 25..40.
        assert!(solid(16, 39) && solid(23, 26) && solid(20, 30));
        assert!(!solid(12, 30) && !solid(27, 30) && !solid(20, 22));
    }

    #[test]
    fn heavy_lines_widen_a_dark_line_inside_the_outline_only() {
        // A white 30x30 body (x, y 5..35) on a transparent 40x40 canvas, with a black
        // vertical line at x 19..21.
        let mut pm = Pixmap::new(40, 40).unwrap();
        for y in 5..35 {
            for x in 5..35 {
                let v = if (19..21).contains(&x) { 0 } else { 255 };
                pm.pixels_mut()[y * 40 + x] = ColorU8::from_rgba(v, v, v, 255).premultiply();
            }
        }
        let heavy = HeavyLines { share: 0.05 }; // 2 pixels on each side
        let out = heavy.apply(&pm);
        let px = |x: usize, y: usize| out.pixels()[y * 40 + x].demultiply();
        for y in 5..35 {
            for x in 5..35 {
                let black = (17..23).contains(&x);
                assert_eq!(px(x, y).red() == 0, black, "({x}, {y})");
                assert_eq!(px(x, y).alpha(), 255);
            }
        }
        // Nothing grows outside the piece.
        assert!((0..40).all(|x| px(x, 2).alpha() == 0 && px(x, 37).alpha() == 0));
        assert_eq!(px(2, 20).alpha(), 0);
        // A faint rim pixel is not ink: it darkens nothing.
        let mut rim = Pixmap::new(5, 1).unwrap();
        rim.pixels_mut()[0] = ColorU8::from_rgba(0, 0, 0, 60).premultiply();
        for x in 1..5 {
            rim.pixels_mut()[x] = ColorU8::from_rgba(255, 255, 255, 255).premultiply();
        }
        let kept = HeavyLines { share: 0.4 }.apply(&rim);
        assert_eq!(kept.pixels()[1].demultiply().red(), 255);
    }

    #[test]
    fn a_mirrored_piece_is_flipped_in_place() {
        // An L: a bar at the left (x 4..8, y 10..40) and a foot to the right (y 36..40).
        let mut pm = Pixmap::new(40, 40).unwrap();
        for y in 10..40 {
            for x in 4..30 {
                if x < 8 || y >= 36 {
                    pm.pixels_mut()[y * 40 + x] = ColorU8::from_rgba(0, 0, 0, 255).premultiply();
                }
            }
        }
        let mirror = PieceStretch::NONE.mirrored();
        assert!(mirror.is_mirrored() && !mirror.changes_proportions());
        let out = mirror.apply(&pm);
        for y in 0..40 {
            for x in 0..40 {
                assert_eq!(
                    out.pixels()[y * 40 + x].alpha(),
                    pm.pixels()[y * 40 + (39 - x)].alpha(),
                    "({x}, {y})"
                );
            }
        }
        let both = PieceStretch { x: 0.5, y: 1.0 }.mirrored();
        assert_eq!(both, PieceStretch { x: -0.5, y: 1.0 });
        assert!(both.is_mirrored() && both.changes_proportions());
    }
}
