//! The men's silhouettes: turned profiles from the ground up (base, stem, collar, head),
//! the knight's head as an outline, in the 100 x 100 view box.

use rand::{Rng, RngExt};
use shakmaty::Role;

use super::{CENTRE, GROUND, SetStyle};

/// A man's silhouette in view-box units, plus its painted details.
pub(super) struct Shape {
    pub(super) outline: Vec<[f32; 2]>,
    /// Lines drawn over the body (a bishop's cut, a horse's eye and mane), as polylines.
    pub(super) marks: Vec<Vec<[f32; 2]>>,
    /// Heights (above the ground) and half-widths of the rings where turnings meet.
    pub(super) rings: Vec<(f32, f32)>,
    /// Half-width of the base (for the shadow).
    pub(super) base: f32,
}

/// A turned profile: (height above ground, half-width) from the ground up.
type Profile = Vec<(f32, f32)>;

pub(super) fn shape(role: Role, style: &SetStyle, rng: &mut impl Rng) -> Shape {
    let k = style.king;
    let mut j = |x: f32| x * (1.0 + rng.random_range(-style.wobble..=style.wobble));
    let g = style.girth;
    // Standard proportions (fractions of the king's height), then each man's own strays.
    let (height, base) = match role {
        Role::Pawn => (0.55, 0.21),
        Role::Knight => (0.74, 0.23),
        Role::Bishop => (0.8, 0.22),
        Role::Rook => (0.6, 0.23),
        Role::Queen => (0.9, 0.24),
        Role::King => (1.0, 0.25),
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
    match role {
        Role::Knight => {
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
        Role::Rook => {
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
            let collar_at = h * j(if role == Role::Pawn { 0.5 } else { 0.55 }).min(0.7);
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
            match role {
                Role::Pawn => {
                    let r = w(j(0.12));
                    ball(&mut profile, h - r, r, neck);
                }
                Role::Bishop => {
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
                Role::Queen => {
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
