//! Board themes: flat two-colour palettes, procedural wood and marble, book/newspaper
//! hatching, greyscale; each painted with a little random jitter.

use rand::{Rng, RngExt};
use resvg::tiny_skia::{Color, Paint, Pixmap, Rect, Transform};

use super::hatching::{Hatching, RoughLines, dots, hatch};
use super::noise::value_noise;

/// How squares are painted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Style {
    /// Solid colours.
    Flat,
    /// Wood grain drawn procedurally.
    Wood,
    /// Marble veins drawn procedurally.
    Marble,
    /// Printed diagram: white light squares, dark squares hatched with diagonal lines.
    BookHatched,
    /// Printed diagram: dark squares covered by horizontal lines.
    BookLined,
    /// Printed diagram: dark squares dotted (stipple).
    BookDotted,
    /// Printed diagram: dark squares in flat grey.
    BookGrey,
}

/// A board theme: a name, two colours and a painting style.
#[derive(Clone, Debug, PartialEq)]
pub struct Theme {
    /// Name recorded in labels.
    pub name: String,
    /// Light-square colour.
    pub light: [u8; 3],
    /// Dark-square colour (for book styles: the ink colour).
    pub dark: [u8; 3],
    /// How squares are painted.
    pub style: Style,
}

fn hex(s: &str) -> [u8; 3] {
    let v = u32::from_str_radix(s, 16).unwrap_or(0);
    [(v >> 16) as u8, (v >> 8) as u8, v as u8]
}

/// The fixed theme list (27 themes); [`random_theme`] adds random palettes on top.
pub fn themes() -> Vec<Theme> {
    let flat = [
        ("lichess-brown", "f0d9b5", "b58863"),
        ("lichess-blue", "dee3e6", "8ca2ad"),
        ("lichess-green", "ffffdd", "86a666"),
        ("lichess-blue2", "97b2c7", "546f82"),
        ("lichess-purple", "9f90b0", "7d4a8d"),
        ("lichess-ic", "ececec", "c1c18e"),
        ("chesscom-green", "eeeed2", "769656"),
        ("chesscom-brown", "edd6b0", "b88762"),
        ("chesscom-icy", "dee3e6", "788a94"),
        ("chesscom-dark", "9e9e9e", "5c5c5c"),
        ("chesscom-orange", "fce4b2", "d08b18"),
        ("chesscom-coral", "b1e4b9", "70a2a3"),
        ("chesscom-8bit", "f3f3f4", "6a9b41"),
        ("pink", "f1f1c9", "f07272"),
        ("tournament", "e8e8e8", "316549"),
        ("sand", "e4d8c2", "a08a6c"),
        ("olive", "e5e5c5", "8f9e5f"),
        ("navy", "d7dde8", "4a5d7e"),
    ];
    let mut out: Vec<Theme> = flat
        .iter()
        .map(|(n, l, d)| Theme {
            name: n.to_string(),
            light: hex(l),
            dark: hex(d),
            style: Style::Flat,
        })
        .collect();
    let more = [
        ("wood-light", "e8c99b", "a7743f", Style::Wood),
        ("wood-dark", "c9995e", "6e4422", Style::Wood),
        ("marble-grey", "e6e6e3", "8d8f91", Style::Marble),
        ("marble-green", "dfe6da", "5d7a63", Style::Marble),
        ("book-hatched", "ffffff", "000000", Style::BookHatched),
        ("book-lined", "ffffff", "1a1a1a", Style::BookLined),
        ("book-dotted", "fdfdf8", "202020", Style::BookDotted),
        ("book-grey", "ffffff", "b4b4b4", Style::BookGrey),
        ("greyscale", "d0d0d0", "808080", Style::Flat),
    ];
    out.extend(more.iter().map(|(n, l, d, s)| Theme {
        name: n.to_string(),
        light: hex(l),
        dark: hex(d),
        style: *s,
    }));
    out
}

/// A printed-diagram theme (with probability `book_share`), a random palette (with
/// probability `random_share`) or a theme from the list (its book themes only if
/// `allow_books`). Colours get a small random jitter.
pub fn random_theme(
    random_share: f64,
    book_share: f64,
    allow_books: bool,
    rng: &mut impl Rng,
) -> Theme {
    let mut theme = if rng.random_bool(if allow_books { book_share } else { 0.0 }) {
        let books: Vec<Theme> = themes().into_iter().filter(is_book_theme).collect();
        // Diagonal hatching is the classic book and magazine diagram; flat grey is the
        // modern one; horizontal lines and dots are rarer (older books, newspapers).
        let weight = |t: &Theme| match t.style {
            Style::BookHatched => 9,
            Style::BookGrey => 5,
            _ => 3,
        };
        let total: u32 = books.iter().map(weight).sum();
        let mut pick = rng.random_range(0..total);
        let mut chosen = books[0].clone();
        for t in &books {
            if pick < weight(t) {
                chosen = t.clone();
                break;
            }
            pick -= weight(t);
        }
        chosen
    } else if rng.random_bool(random_share) {
        let hue: f32 = rng.random_range(0.0..360.0);
        let sat: f32 = rng.random_range(0.05..0.6);
        let light = hsv(hue, sat * 0.4, rng.random_range(0.75..0.98));
        let dark = hsv(
            hue + rng.random_range(-30.0..30.0),
            sat,
            rng.random_range(0.3..0.7),
        );
        Theme {
            name: "random".into(),
            light,
            dark,
            style: Style::Flat,
        }
    } else {
        let mut all = themes();
        if !allow_books {
            all.retain(|t| !is_book_theme(t));
        }
        all[rng.random_range(0..all.len())].clone()
    };
    for c in theme.light.iter_mut().chain(theme.dark.iter_mut()) {
        *c = (*c as i32 + rng.random_range(-8..=8)).clamp(0, 255) as u8;
    }
    theme
}

fn hsv(h: f32, s: f32, v: f32) -> [u8; 3] {
    let h = h.rem_euclid(360.0) / 60.0;
    let c = v * s;
    let x = c * (1.0 - (h % 2.0 - 1.0).abs());
    let (r, g, b) = match h as u32 {
        0 => (c, x, 0.0),
        1 => (x, c, 0.0),
        2 => (0.0, c, x),
        3 => (0.0, x, c),
        4 => (x, 0.0, c),
        _ => (c, 0.0, x),
    };
    let m = v - c;
    [r, g, b].map(|t| ((t + m) * 255.0).round().clamp(0.0, 255.0) as u8)
}

/// Solid paint of an RGB colour with an alpha.
pub fn paint(rgb: [u8; 3], alpha: u8) -> Paint<'static> {
    let mut p = Paint::default();
    p.set_color(Color::from_rgba8(rgb[0], rgb[1], rgb[2], alpha));
    p.anti_alias = true;
    p
}

/// Paints the 8x8 squares of a board whose top-left corner is `(x, y)` with squares of
/// `cell` pixels. The top-left square is light (a8 seen from white, h1 from black: both light).
/// Returns the line pattern of a hatched or lined theme (its paper between the lines is
/// what ink spread may eat before the dark squares print solid black).
/// `rough` draws the lines or dots of a printed theme worn (it takes draws from `rng`
/// only then).
pub fn paint_squares(
    pm: &mut Pixmap,
    x: f32,
    y: f32,
    cell: f32,
    theme: &Theme,
    rough: Option<&RoughLines>,
    rng: &mut impl Rng,
) -> Option<Hatching> {
    let seed: u32 = rng.random();
    let grain_vertical = rng.random_bool(0.5);
    let hatching = Hatching::random(cell, theme.style == Style::BookHatched, rng);
    for row in 0..8 {
        for col in 0..8 {
            let dark = (row + col) % 2 == 1;
            let Some(rect) =
                Rect::from_xywh(x + col as f32 * cell, y + row as f32 * cell, cell, cell)
            else {
                continue;
            };
            let base = if dark && !is_book(theme.style) {
                theme.dark
            } else {
                theme.light
            };
            pm.fill_rect(rect, &paint(base, 255), Transform::identity(), None);
            if dark {
                match theme.style {
                    Style::BookHatched | Style::BookLined => hatch(
                        pm,
                        rect,
                        cell,
                        theme.dark,
                        &hatching,
                        rough.map(|r| (r, &mut *rng as &mut dyn Rng)),
                    ),
                    Style::BookDotted => dots(
                        pm,
                        rect,
                        cell,
                        theme.dark,
                        rough.map(|r| (r, &mut *rng as &mut dyn Rng)),
                    ),
                    Style::BookGrey => {
                        pm.fill_rect(rect, &paint(theme.dark, 255), Transform::identity(), None)
                    }
                    _ => {}
                }
            }
            if matches!(theme.style, Style::Wood | Style::Marble) {
                texture(
                    pm,
                    rect,
                    base,
                    theme.style,
                    seed.wrapping_add((row * 8 + col) as u32),
                    grain_vertical ^ ((row + col) % 2 == 0),
                );
            }
        }
    }
    matches!(theme.style, Style::BookHatched | Style::BookLined).then_some(hatching)
}

fn is_book(style: Style) -> bool {
    matches!(
        style,
        Style::BookHatched | Style::BookLined | Style::BookDotted | Style::BookGrey
    )
}

/// Whether a theme looks like a printed diagram.
pub fn is_book_theme(theme: &Theme) -> bool {
    is_book(theme.style)
}

/// Whether a theme's dark squares are a printed pattern of lines or dots (what rough print
/// wears; flat grey has none).
pub fn has_line_or_dot_pattern(theme: &Theme) -> bool {
    matches!(
        theme.style,
        Style::BookHatched | Style::BookLined | Style::BookDotted
    )
}

/// How a theme's board would be printed, for the print effects.
pub fn medium(theme: &Theme) -> super::degrade::Medium {
    use super::degrade::Medium;
    match theme.style {
        Style::BookGrey => Medium::Tone,
        s if is_book(s) => Medium::LineArt,
        _ => Medium::Screen,
    }
}

fn texture(pm: &mut Pixmap, rect: Rect, base: [u8; 3], style: Style, seed: u32, vertical: bool) {
    let w = pm.width() as i32;
    let h = pm.height() as i32;
    let (x0, y0) = (
        rect.left().floor().max(0.0) as i32,
        rect.top().floor().max(0.0) as i32,
    );
    let (x1, y1) = (
        rect.right().ceil().min(w as f32) as i32,
        rect.bottom().ceil().min(h as f32) as i32,
    );
    let scale = rect.width().max(1.0);
    let pixels = pm.pixels_mut();
    for yy in y0..y1 {
        for xx in x0..x1 {
            let (u, v) = (
                (xx as f32 - rect.left()) / scale,
                (yy as f32 - rect.top()) / scale,
            );
            let (a, b) = if vertical { (u, v) } else { (v, u) };
            let f = match style {
                Style::Wood => {
                    let n = value_noise(a * 3.0, b * 0.6, seed);
                    let rings = ((a * 14.0 + n * 4.0) * std::f32::consts::PI).sin();
                    0.88 + 0.12 * rings * 0.5 + 0.06 * value_noise(a * 30.0, b * 3.0, seed ^ 7)
                }
                _ => {
                    let n = value_noise(u * 4.0, v * 4.0, seed)
                        + 0.5 * value_noise(u * 9.0, v * 9.0, seed ^ 3);
                    let vein = ((u + v) * 6.0 + n * 5.0).sin().abs().powf(0.25);
                    0.82 + 0.18 * vein
                }
            };
            let c = base.map(|ch| (ch as f32 * f).clamp(0.0, 255.0) as u8);
            pixels[(yy * w + xx) as usize] =
                resvg::tiny_skia::ColorU8::from_rgba(c[0], c[1], c[2], 255).premultiply();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn diagonal_hatching_is_the_commonest_book_style() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let mut counts = std::collections::HashMap::new();
        for _ in 0..4000 {
            let t = random_theme(0.0, 1.0, true, &mut rng);
            assert!(is_book_theme(&t), "{}", t.name);
            *counts.entry(t.style).or_insert(0) += 1;
        }
        // Weights 9 : 5 : 3 : 3 of 20.
        let share = |s: Style| counts.get(&s).copied().unwrap_or(0) as f64 / 4000.0;
        assert!(
            (share(Style::BookHatched) - 0.45).abs() < 0.03,
            "{counts:?}"
        );
        assert!((share(Style::BookGrey) - 0.25).abs() < 0.03, "{counts:?}");
        assert!((share(Style::BookLined) - 0.15).abs() < 0.03, "{counts:?}");
        assert!((share(Style::BookDotted) - 0.15).abs() < 0.03, "{counts:?}");
    }
}
