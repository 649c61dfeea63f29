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
use crate::class::SquareClass;

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
    let kinds = ['P', 'N', 'B', 'R', 'Q', 'K'];
    let shapes: Vec<Shape> = kinds.iter().map(|&k| shape(k, &style, &mut rng)).collect();
    SquareClass::ALL[1..]
        .iter()
        .map(|&class| {
            let idx = class.index() - 1;
            let colour = idx / 6;
            (class, svg(&shapes[idx % 6], &style, colour))
        })
        .collect()
}

/// Writes sets `0..count` of the run seeded `seed` into `out/staunton-<seed>-<i>/`, each
/// file atomically. Returns the folders written.
pub fn write_staunton_sets(out: &Path, seed: u64, count: u64) -> std::io::Result<Vec<String>> {
    let mut names = Vec::new();
    for i in 0..count {
        let name = format!("staunton-{seed}-{i:03}");
        let dir = out.join(&name);
        std::fs::create_dir_all(&dir)?;
        for (class, doc) in staunton_set(seed, i) {
            crate::io::atomic_write(&dir.join(format!("{}.svg", class.name())), doc.as_bytes())?;
        }
        names.push(name);
    }
    Ok(names)
}

/// A man's silhouette in view-box units, plus its painted details.
struct Shape {
    outline: Vec<[f32; 2]>,
    /// Lines drawn over the body (a bishop's cut, a horse's eye and mane), as polylines.
    marks: Vec<Vec<[f32; 2]>>,
    /// Heights (above the ground) and half-widths of the rings where turnings meet.
    rings: Vec<(f32, f32)>,
    /// Half-width of the base (for the shadow).
    base: f32,
}

/// A turned profile: (height above ground, half-width) from the ground up.
type Profile = Vec<(f32, f32)>;

fn shape(kind: char, style: &SetStyle, rng: &mut impl Rng) -> Shape {
    let k = style.king;
    let mut j = |x: f32| x * (1.0 + rng.random_range(-style.wobble..=style.wobble));
    let g = style.girth;
    // Standard proportions (fractions of the king's height), then each man's own strays.
    let (height, base) = match kind {
        'P' => (0.55, 0.21),
        'N' => (0.74, 0.23),
        'B' => (0.8, 0.22),
        'R' => (0.6, 0.23),
        'Q' => (0.9, 0.24),
        _ => (1.0, 0.25),
    };
    let h = j(height) * k;
    let bw = j(base) * k * g;
    let plinth = j(0.16) * h;
    let mut profile: Profile = vec![
        (0.0, bw),
        (plinth * 0.35, bw),
        (plinth * 0.55, bw * 0.9),
        (plinth * 0.75, bw * 0.9),
        (plinth, bw * 0.75),
    ];
    let mut rings = vec![(plinth * 0.55, bw * 0.9)];
    let mut marks = Vec::new();
    // The head (top) of the silhouette, left to right, in (height, signed x) pairs.
    let mut top: Vec<(f32, f32)> = Vec::new();
    let w = |x: f32| x * k * g;
    match kind {
        'N' => {
            // A horse's head on the plinth, looking left; mirrored below when it looks right.
            let head = [
                (0.30, 0.00),
                (0.26, 0.18),
                (0.22, 0.35),
                (0.10, 0.45),
                (0.00, 0.52),
                (0.00, 0.62),
                (0.08, 0.72),
                (0.30, 0.88),
                (0.42, 1.00),
                (0.50, 0.90),
                (0.70, 0.85),
                (0.88, 0.65),
                (0.96, 0.40),
                (1.00, 0.00),
            ];
            let width = j(0.46) * k * g;
            let tall = h - plinth;
            let left = CENTRE - width * 0.55;
            let mut pts: Vec<[f32; 2]> = vec![
                [CENTRE - bw, GROUND],
                [CENTRE - bw, GROUND - plinth * 0.35],
                [CENTRE - bw * 0.9, GROUND - plinth * 0.55],
                [CENTRE - bw * 0.9, GROUND - plinth * 0.75],
                [CENTRE - bw * 0.75, GROUND - plinth],
            ];
            pts.extend(head.iter().map(|&(x, y)| {
                [
                    left + j(x) * width,
                    GROUND - plinth - (y + (j(1.0) - 1.0) * 0.2) * tall,
                ]
            }));
            pts.extend([
                [CENTRE + bw * 0.75, GROUND - plinth],
                [CENTRE + bw * 0.9, GROUND - plinth * 0.75],
                [CENTRE + bw * 0.9, GROUND - plinth * 0.55],
                [CENTRE + bw, GROUND - plinth * 0.35],
                [CENTRE + bw, GROUND],
            ]);
            let eye = [left + 0.3 * width, GROUND - plinth - 0.72 * tall];
            marks.push(vec![eye, [eye[0] + 0.06 * width, eye[1] + 0.01 * tall]]);
            marks.push(vec![
                [left + 0.52 * width, GROUND - plinth - 0.86 * tall],
                [left + 0.78 * width, GROUND - plinth - 0.62 * tall],
                [left + 0.84 * width, GROUND - plinth - 0.3 * tall],
            ]);
            let mut shape = Shape {
                outline: pts,
                marks,
                rings,
                base: bw,
            };
            if !style.knight_left {
                mirror(&mut shape);
            }
            return shape;
        }
        'R' => {
            // A tower, a flared top and its battlements.
            let body = w(j(0.14));
            let crown = body * j(1.3);
            profile.extend([
                (plinth * 1.15, body * 1.08),
                (h * 0.5, body * 0.95),
                (h * 0.72, body),
                (h * 0.8, crown),
            ]);
            rings.push((h * 0.8, crown));
            let notch = h * j(0.07);
            let gap = crown * 0.22;
            top = vec![
                (h, -crown),
                (h, -crown * 0.55),
                (h - notch, -crown * 0.55),
                (h - notch, -crown * 0.55 + gap),
                (h, -crown * 0.55 + gap),
                (h, crown * 0.55 - gap),
                (h - notch, crown * 0.55 - gap),
                (h - notch, crown * 0.55),
                (h, crown * 0.55),
                (h, crown),
            ];
        }
        _ => {
            // A stem to a collar, then the man's head.
            let stem = w(j(0.14));
            let collar_at = h * j(if kind == 'P' { 0.5 } else { 0.55 }).min(0.7);
            let collar = w(j(0.12));
            let neck = w(j(0.065));
            profile.extend([
                (plinth * 1.2, stem),
                (collar_at * 0.7, stem * 0.62),
                (collar_at - 1.2, neck * 1.05),
                (collar_at - 1.0, collar),
                (collar_at + 1.0, collar),
                (collar_at + 1.4, neck),
            ]);
            rings.push((collar_at, collar));
            match kind {
                'P' => {
                    let r = w(j(0.12));
                    ball(&mut profile, h - r, r, neck);
                }
                'B' => {
                    // The mitre, a slanted cut across it, a knob on top.
                    let knob = w(0.035);
                    let tip = h - 2.0 * knob;
                    let widest = w(j(0.115));
                    let from = collar_at + 1.4;
                    profile.extend([
                        (from + (tip - from) * 0.2, widest * 0.85),
                        (from + (tip - from) * 0.4, widest),
                        (from + (tip - from) * 0.6, widest * 0.9),
                        (from + (tip - from) * 0.8, widest * 0.55),
                        (tip, knob * 0.5),
                    ]);
                    ball(&mut profile, tip + knob, knob, knob * 0.5);
                    let cut = |f: f32| GROUND - (from + (tip - from) * f);
                    marks.push(vec![
                        [CENTRE - widest * 0.75, cut(0.72)],
                        [CENTRE + widest * 0.3, cut(0.45)],
                    ]);
                }
                'Q' => {
                    // A cup flaring to a crown of points, a ball on top.
                    let rim = w(j(0.15));
                    let cup_top = h * 0.86;
                    let from = collar_at + 1.4;
                    profile.extend([
                        (from + (cup_top - from) * 0.5, rim * 0.6),
                        (cup_top - 1.0, rim),
                    ]);
                    rings.push((cup_top - 1.0, rim));
                    let knob = w(0.04);
                    let points = 5;
                    top.push((cup_top, -rim));
                    for p in 0..points {
                        let x = -rim + (p as f32 + 0.5) * 2.0 * rim / points as f32;
                        // The middle point holds the ball; the outer ones stand lower.
                        let up = h - 2.0 * knob + 0.3 - (p as f32 - 2.0).abs() * 1.2;
                        top.push((up, x));
                        if p + 1 < points {
                            top.push((cup_top + 0.5, x + rim / points as f32));
                        }
                    }
                    top.push((cup_top, rim));
                    marks.push(circle_marks(h - knob, knob));
                }
                _ => {
                    // King: a cup with a flat dome, a cross on top.
                    let rim = w(j(0.14));
                    let cup_top = h * 0.8;
                    let from = collar_at + 1.4;
                    let bar = w(0.022);
                    let arm = w(j(0.065));
                    profile.extend([
                        (from + (cup_top - from) * 0.5, rim * 0.62),
                        (cup_top - 1.0, rim),
                        (cup_top + 1.0, rim * 0.85),
                        (cup_top + 2.0, rim * 0.4),
                        (cup_top + 2.5, bar),
                    ]);
                    rings.push((cup_top - 1.0, rim));
                    let arm_at = cup_top + 2.5 + (h - cup_top - 2.5) * 0.55;
                    top = vec![
                        (arm_at - bar, -bar),
                        (arm_at - bar, -arm),
                        (arm_at + bar, -arm),
                        (arm_at + bar, -bar),
                        (h, -bar),
                        (h, bar),
                        (arm_at + bar, bar),
                        (arm_at + bar, arm),
                        (arm_at - bar, arm),
                        (arm_at - bar, bar),
                    ];
                }
            }
        }
    }
    // Left side up, the head left to right, right side down.
    let mut outline: Vec<[f32; 2]> = profile
        .iter()
        .map(|&(y, x)| [CENTRE - x, GROUND - y])
        .collect();
    outline.extend(top.iter().map(|&(y, x)| [CENTRE + x, GROUND - y]));
    outline.extend(profile.iter().rev().map(|&(y, x)| [CENTRE + x, GROUND - y]));
    Shape {
        outline,
        marks,
        rings,
        base: bw,
    }
}

/// A ball of radius `r` centred `centre` above the ground, from where a neck `neck` wide
/// meets its underside round to its top.
fn ball(profile: &mut Profile, centre: f32, r: f32, neck: f32) {
    let below = (neck / r).clamp(0.0, 1.0).acos();
    let steps = 8;
    let floor = profile.last().map_or(0.0, |p| p.0);
    for s in 0..=steps {
        let t = -below + (std::f32::consts::FRAC_PI_2 + below) * s as f32 / steps as f32;
        // A wobbled neck may reach past the ball's underside: never fold back down.
        let y = (centre + r * t.sin()).max(floor);
        profile.push((y, if s == steps { 0.0 } else { r * t.cos() }));
    }
}

/// A small ball (a queen's finial) as a closed polyline.
fn circle_marks(centre_above_ground: f32, r: f32) -> Vec<[f32; 2]> {
    (0..=16)
        .map(|i| {
            let t = i as f32 / 16.0 * std::f32::consts::TAU;
            [
                CENTRE + r * t.cos(),
                GROUND - centre_above_ground + r * t.sin(),
            ]
        })
        .collect()
}

fn mirror(shape: &mut Shape) {
    let flip = |p: &mut [f32; 2]| p[0] = 2.0 * CENTRE - p[0];
    shape.outline.iter_mut().for_each(flip);
    shape.outline.reverse();
    for m in &mut shape.marks {
        m.iter_mut().for_each(flip);
    }
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
        let closed = m.len() > 3 && m.first() == m.last();
        let fill = if closed {
            format!("url(#round)\" stroke=\"{line}")
        } else {
            format!("none\" stroke=\"{line}")
        };
        let _ = writeln!(
            doc,
            "<path d=\"{}\" fill=\"{fill}\" stroke-width=\"1.2\" stroke-linecap=\"round\"/>",
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
        let sets = PieceSet::load_dirs(&[dir.0.clone()]).unwrap();
        assert_eq!(sets.len(), 2);
        assert_eq!(sets[1].name, "staunton-5-001");
    }
}
