//! Procedural turned-wood piece sets: men drawn the way photographs and 3D renders show a
//! Staunton set (slender, lathe-turned, shaded round, no outline), each set from a seed.
//!
//! The fetched styles are nearly all flat drawings whose men fill their squares; men of a
//! 3D set stand thin and small inside them, a rook no taller than a flat set's pawn, and the
//! classifier reads them as pawns. These sets give training that kind of men in endless
//! variety (proportions, turnings, colours, light) without copying anyone's artwork. They are
//! written as ordinary SVG sets (`synth staunton`), so every tool that takes `--pieces`
//! reads them.

use std::fmt::Write as _;
use std::path::Path;

use rand::{Rng, RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::restyle::hsv;
use crate::class::{ROLES, SquareClass};

mod shape;
use shape::{Shape, shape};

/// The ground line and centre of every piece, in the 100 x 100 view box.
const GROUND: f32 = 95.0;
const CENTRE: f32 = 50.0;

/// One set's shape and colour parameters, drawn from its seed.
struct SetStyle {
    /// The king's height in view-box units; the other men are fractions of it.
    king: f32,
    /// Width multiplier of every turning (slender or stout sets).
    girth: f32,
    /// How much each man's own proportions stray from the standard ones.
    wobble: f32,
    /// The knight looks left (or right).
    knight_left: bool,
    /// Where the light falls across a man (0 left edge, 1 right edge).
    highlight: f32,
    /// How dark a man's sides are against its body colour (0.35-0.7).
    side_dark: f32,
    /// Body colours, white then black (0-255).
    bodies: [[f32; 3]; 2],
    /// An outline of this width (view-box units), or none (most 3D renders have none).
    outline: Option<f32>,
    /// A soft shadow on the ground.
    shadow: bool,
    /// Rings where the turnings meet.
    rings: bool,
    /// How far below the eye the men stand: the base's lower edge bows by this much.
    bow: f32,
}

impl SetStyle {
    fn random(rng: &mut impl Rng) -> SetStyle {
        // White: ivory plastic, light wood or pale grey; black: black, dark wood, red-brown.
        let white = match rng.random_range(0..3) {
            0 => hsv(
                rng.random_range(0.08..0.15),
                rng.random_range(0.03..0.25),
                rng.random_range(0.86..0.98),
            ),
            1 => hsv(
                rng.random_range(0.07..0.12),
                rng.random_range(0.25..0.5),
                rng.random_range(0.75..0.92),
            ),
            _ => hsv(0.0, 0.0, rng.random_range(0.78..0.95)),
        };
        let black = match rng.random_range(0..3) {
            0 => hsv(0.0, 0.0, rng.random_range(0.06..0.2)),
            1 => hsv(
                rng.random_range(0.04..0.09),
                rng.random_range(0.4..0.75),
                rng.random_range(0.18..0.35),
            ),
            _ => hsv(
                rng.random_range(0.98..1.0),
                rng.random_range(0.45..0.7),
                rng.random_range(0.2..0.38),
            ),
        };
        SetStyle {
            king: rng.random_range(74.0..90.0),
            girth: rng.random_range(0.75..1.15),
            wobble: rng.random_range(0.0..0.12),
            knight_left: rng.random_bool(0.5),
            highlight: rng.random_range(0.22..0.45),
            side_dark: rng.random_range(0.35..0.7),
            bodies: [white, black],
            outline: rng.random_bool(0.25).then(|| rng.random_range(0.5..1.3)),
            shadow: rng.random_bool(0.5),
            rings: rng.random_bool(0.6),
            bow: rng.random_range(0.0..3.5),
        }
    }
}

/// The 12 SVG documents of set `index` of the run seeded `seed`, in class order wP..bK.
/// The same seed and index give the same set whatever else is drawn.
pub fn staunton_set(seed: u64, index: u64) -> Vec<(SquareClass, String)> {
    let mut rng =
        ChaCha8Rng::seed_from_u64(seed.wrapping_add(index.wrapping_mul(0x9e37_79b9_7f4a_7c15)));
    let style = SetStyle::random(&mut rng);
    // One shape per kind, shared by both colours (as a real set is turned).
    let shapes: Vec<Shape> = ROLES.iter().map(|&r| shape(r, &style, &mut rng)).collect();
    SquareClass::ALL
        .iter()
        .filter_map(|&class| match class {
            SquareClass::Piece(p) => {
                let shape = &shapes[ROLES.iter().position(|&r| r == p.role)?];
                let colour = usize::from(p.color == shakmaty::Color::Black);
                Some((class, svg(shape, &style, colour)))
            }
            SquareClass::Empty => None,
        })
        .collect()
}

/// The folder (and set) name of set `index` of the run seeded `seed`.
pub fn staunton_set_name(seed: u64, index: u64) -> String {
    format!("staunton-{seed}-{index:03}")
}

/// Writes sets `0..count` of the run seeded `seed` into `out/staunton-<seed>-<i>/`, each
/// file atomically. Returns the folders written.
pub fn write_staunton_sets(out: &Path, seed: u64, count: u64) -> std::io::Result<Vec<String>> {
    let mut names = Vec::new();
    for i in 0..count {
        let name = staunton_set_name(seed, i);
        let dir = out.join(&name);
        std::fs::create_dir_all(&dir)?;
        for (class, doc) in staunton_set(seed, i) {
            crate::io::atomic_write(&dir.join(format!("{}.svg", class.name())), doc.as_bytes())?;
        }
        names.push(name);
    }
    Ok(names)
}

/// `c` scaled towards black (`f` < 1) or mixed towards white by `-f` (`f` < 0).
fn shade(c: [f32; 3], f: f32) -> String {
    let c = if f >= 0.0 {
        c.map(|v| v * f)
    } else {
        c.map(|v| v + (255.0 - v) * -f)
    };
    let [r, g, b] = c.map(|v| v.round().clamp(0.0, 255.0) as u8);
    format!("#{r:02x}{g:02x}{b:02x}")
}

fn path(points: &[[f32; 2]], close: bool) -> String {
    let mut d = String::new();
    for (i, p) in points.iter().enumerate() {
        let _ = write!(
            d,
            "{}{:.2},{:.2} ",
            if i == 0 { 'M' } else { 'L' },
            p[0],
            p[1]
        );
    }
    if close {
        d.push('Z');
    }
    d
}

fn svg(shape: &Shape, style: &SetStyle, colour: usize) -> String {
    let body = style.bodies[colour];
    let dark = colour == 1;
    // Round shading across the man: dark sides, a highlight where the light falls.
    let side = shade(body, style.side_dark);
    let light = shade(body, if dark { -0.3 } else { -0.6 });
    let mid = shade(body, 1.0);
    let hl = style.highlight;
    let mut doc = String::from(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 100 100\" width=\"100\" height=\"100\">\n",
    );
    let _ = writeln!(
        doc,
        "<defs><linearGradient id=\"round\" x1=\"0\" y1=\"0\" x2=\"1\" y2=\"0\">\
<stop offset=\"0\" stop-color=\"{side}\"/><stop offset=\"{:.2}\" stop-color=\"{light}\"/>\
<stop offset=\"{:.2}\" stop-color=\"{mid}\"/><stop offset=\"1\" stop-color=\"{side}\"/>\
</linearGradient></defs>",
        hl,
        (hl + 0.3).min(0.9)
    );
    if style.shadow {
        let _ = writeln!(
            doc,
            "<ellipse cx=\"{:.2}\" cy=\"{:.2}\" rx=\"{:.2}\" ry=\"{:.2}\" fill=\"#000000\" fill-opacity=\"0.25\"/>",
            CENTRE + 2.0,
            GROUND - 0.5,
            shape.base * 1.15,
            2.0 + style.bow
        );
    }
    // The base's lower edge bows down when the men are seen from a little above.
    let mut outline = shape.outline.clone();
    if style.bow > 0.0 {
        for p in &mut outline {
            if (p[1] - GROUND).abs() < 0.01 {
                p[1] -= style.bow * 0.5;
            }
        }
    }
    let mut d = path(&outline, false);
    let _ = write!(
        d,
        "Q{:.2},{:.2} {:.2},{:.2} Z",
        CENTRE,
        GROUND + style.bow * 0.5,
        outline[0][0],
        outline[0][1]
    );
    let stroke = match style.outline {
        Some(width) => format!(
            " stroke=\"{}\" stroke-width=\"{width:.2}\" stroke-linejoin=\"round\"",
            shade(body, if dark { 0.3 } else { 0.35 })
        ),
        None => String::new(),
    };
    let _ = writeln!(doc, "<path d=\"{d}\" fill=\"url(#round)\"{stroke}/>");
    let line = shade(body, if dark { -0.35 } else { 0.45 });
    if style.rings {
        for &(y, x) in &shape.rings {
            let y = GROUND - y;
            let _ = writeln!(
                doc,
                "<path d=\"M{:.2},{y:.2} Q{CENTRE:.2},{:.2} {:.2},{y:.2}\" fill=\"none\" stroke=\"{line}\" stroke-width=\"0.8\"/>",
                CENTRE - x,
                y + 1.0 + style.bow * 0.5,
                CENTRE + x
            );
        }
    }
    for m in &shape.marks {
        // A closed mark is a part of its own (a queen's ball), shaded like the body.
        let closed = m.len() > 3 && m.first() == m.last();
        let fill = if closed { "url(#round)" } else { "none" };
        let _ = writeln!(
            doc,
            "<path d=\"{}\" fill=\"{fill}\" stroke=\"{line}\" stroke-width=\"1.2\" stroke-linecap=\"round\"/>",
            path(m, closed)
        );
    }
    doc.push_str("</svg>\n");
    doc
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::pieces::PieceSet;

    fn rendered(seed: u64, index: u64) -> (tempdir::Dir, PieceSet) {
        let dir = tempdir::Dir::new(&format!("staunton-{seed}-{index}"));
        let set_dir = dir.0.join("set");
        std::fs::create_dir_all(&set_dir).unwrap();
        for (class, doc) in staunton_set(seed, index) {
            std::fs::write(set_dir.join(format!("{}.svg", class.name())), doc).unwrap();
        }
        let set = PieceSet::load(&set_dir).unwrap();
        (dir, set)
    }

    mod tempdir {
        pub struct Dir(pub std::path::PathBuf);
        impl Dir {
            pub fn new(tag: &str) -> Dir {
                let d = std::env::temp_dir().join(format!("fenscan-{tag}-{}", std::process::id()));
                let _ = std::fs::remove_dir_all(&d);
                std::fs::create_dir_all(&d).unwrap();
                Dir(d)
            }
        }
        impl Drop for Dir {
            fn drop(&mut self) {
                let _ = std::fs::remove_dir_all(&self.0);
            }
        }
    }

    /// Rows of the 96-px raster holding ink, and the mean grey of its inked pixels.
    fn ink(set: &PieceSet, class: SquareClass) -> (usize, f32, usize) {
        let p = set.raster(class, 96).unwrap();
        let mut rows = 0;
        let (mut grey, mut n) = (0.0, 0usize);
        for y in 0..96 {
            let mut any = false;
            for x in 0..96 {
                let px = p.pixel(x, y).unwrap().demultiply();
                if px.alpha() > 200 {
                    any = true;
                    grey += (px.red() as f32 + px.green() as f32 + px.blue() as f32) / 3.0;
                    n += 1;
                }
            }
            rows += usize::from(any);
        }
        (rows, grey / n.max(1) as f32, n)
    }

    #[test]
    fn same_seed_same_set_and_sets_differ() {
        assert_eq!(staunton_set(7, 3), staunton_set(7, 3));
        assert_ne!(staunton_set(7, 3), staunton_set(7, 4));
        assert_ne!(staunton_set(7, 3), staunton_set(8, 3));
    }

    #[test]
    fn men_load_stand_in_staunton_order_and_are_coloured() {
        for index in 0..6 {
            let (_dir, set) = rendered(11, index);
            let height = |c: &str| ink(&set, SquareClass::from_name(c).unwrap()).0;
            // The king is the tallest man, the pawn the shortest; a rook is short too.
            assert!(height("wK") > height("wQ"), "set {index}");
            assert!(height("wQ") > height("wB"), "set {index}");
            assert!(height("wB") > height("wR"), "set {index}");
            assert!(height("wR") > height("wP"), "set {index}");
            assert!(height("wN") > height("wP"), "set {index}");
            for kind in ["P", "N", "B", "R", "Q", "K"] {
                let (_, white, wn) =
                    ink(&set, SquareClass::from_name(&format!("w{kind}")).unwrap());
                let (_, black, bn) =
                    ink(&set, SquareClass::from_name(&format!("b{kind}")).unwrap());
                assert!(
                    white > black + 60.0,
                    "set {index} {kind}: {white} vs {black}"
                );
                // Slender: a man covers well under half of its square.
                assert!(
                    wn > 96 * 96 / 30 && wn < 96 * 96 * 45 / 100,
                    "set {index} {kind}: {wn}"
                );
                assert_eq!(wn, bn, "set {index} {kind}: both colours share a shape");
            }
        }
    }

    #[test]
    fn sets_are_written_as_loadable_folders() {
        let dir = tempdir::Dir::new("staunton-write");
        let names = write_staunton_sets(&dir.0, 5, 2).unwrap();
        assert_eq!(names, ["staunton-5-000", "staunton-5-001"]);
        let sets = PieceSet::load_dirs(std::slice::from_ref(&dir.0)).unwrap();
        assert_eq!(sets.len(), 2);
        assert_eq!(sets[1].name, "staunton-5-001");
    }
}
