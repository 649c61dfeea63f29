//! Boards whose lines bow: a book's page curling towards its spine, and a camera lens's
//! radial distortion. No homography maps such a board onto a square (what `board::bend`
//! measures and `board::unbent` takes out); the labels keep the board's four corners where
//! the bend puts them.

use image::RgbImage;
use rand::{Rng, RngExt};

use crate::quad::{Point, Quad};
use crate::squares::{sample_bilinear, to_u8};

/// Which side of the board the book's spine lies beyond (the page curls towards it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Spine {
    /// Beyond the board's left side as drawn.
    Left,
    /// Beyond its right side.
    Right,
    /// Above it.
    Top,
    /// Below it.
    Bottom,
}

impl Spine {
    fn name(self) -> &'static str {
        match self {
            Spine::Left => "left",
            Spine::Right => "right",
            Spine::Top => "top",
            Spine::Bottom => "bottom",
        }
    }
}

/// A page lying flat up to a line parallel to one of the board's sides, then wrapped round
/// a cylinder towards the spine (down into the gutter, or lifting up), seen by a camera
/// straight above the picture's centre. The page turns by `angle` at the board's edge.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Curl {
    /// Where the spine lies.
    pub spine: Spine,
    /// Where the page starts to bend: from the board's centre towards the spine, as a share
    /// of the board's side (0.5 = the board's edge).
    pub hinge: f32,
    /// How far the page has turned at the board's edge, in radians.
    pub angle: f32,
    /// The camera's height above the page, in board sides.
    pub height: f32,
    /// Lifting towards the camera instead of going down into the gutter.
    pub up: bool,
}

/// How far the page turns at most, beyond which it goes on straight (past the board).
const MOST_TURN: f32 = 80.0 * std::f32::consts::PI / 180.0;
/// Source places tabulated per output pixel along the curl's axis.
const STEPS_PER_PIXEL: f32 = 4.0;

impl Curl {
    /// A curl turning the page by up to `most_deg` degrees at the board's edge.
    pub fn random(most_deg: f32, rng: &mut impl Rng) -> Curl {
        let spine = [Spine::Left, Spine::Right, Spine::Top, Spine::Bottom][rng.random_range(0..4)];
        Curl {
            spine,
            hinge: rng.random_range(-0.1..0.4),
            angle: rng.random_range(0.3..=1.0) * most_deg.to_radians(),
            height: rng.random_range(1.2..3.0),
            up: rng.random_bool(0.25),
        }
    }

    /// The effect's name in a rendered image's list.
    pub fn describe(&self) -> String {
        format!(
            "curl:{}:{:.0}deg{}",
            self.spine.name(),
            self.angle.to_degrees(),
            if self.up { ":up" } else { "" }
        )
    }

    /// `img` with its page curled, and the board's corners (`quad`) where they now show;
    /// `None` when a corner would leave the picture or the curl is degenerate.
    pub fn apply(&self, img: &RgbImage, quad: &Quad) -> Option<(RgbImage, Quad)> {
        let (w, h) = (img.width() as f32, img.height() as f32);
        let axes = Axes::new(self.spine, w, h);
        let corners = quad.0.map(|p| axes.to_local(p));
        let (lo_a, hi_a) = corners.iter().fold((f32::MAX, f32::MIN), |(lo, hi), p| {
            (lo.min(p[0]), hi.max(p[0]))
        });
        let side = quad.mean_side();
        let centre = axes.to_local([w / 2.0, h / 2.0]);
        let hinge = (lo_a + hi_a) / 2.0 + self.hinge * side;
        let radius = (hi_a - hinge) / self.angle;
        if !(radius.is_finite() && radius > 1.0 && self.height > 0.0) {
            return None;
        }
        let shape = Shape {
            hinge,
            radius,
            camera: centre,
            height: self.height * side,
            sign: if self.up { -1.0 } else { 1.0 },
        };
        let moved = corners.map(|p| {
            let (a, m) = shape.forward(p[0]);
            axes.to_picture([a, centre[1] + (p[1] - centre[1]) * m])
        });
        if !moved.iter().all(|p| inside(*p, w, h)) {
            return None;
        }
        let table = shape.inverse_table(axes.length);
        // A gutter's shadow where the page turns out of sight.
        let gutter = img.get_pixel(0, 0).0.map(|v| (f32::from(v) * 0.6) as u8);
        let mut out = RgbImage::new(img.width(), img.height());
        for (y, row) in out.chunks_exact_mut(3 * img.width() as usize).enumerate() {
            for (x, px) in row.chunks_exact_mut(3).enumerate() {
                let local = axes.to_local([x as f32 + 0.5, y as f32 + 0.5]);
                let Some((a, m)) = table.source(local[0]) else {
                    px.copy_from_slice(&gutter);
                    continue;
                };
                let source = axes.to_picture([a, centre[1] + (local[1] - centre[1]) / m]);
                let c = sample_bilinear(img, source[0] - 0.5, source[1] - 0.5);
                for (o, v) in px.iter_mut().zip(c) {
                    *o = to_u8(v);
                }
            }
        }
        Some((out, Quad(moved)))
    }
}

/// Whether `p` lies within a `w` x `h` picture.
fn inside(p: Point, w: f32, h: f32) -> bool {
    p[0] >= 0.0 && p[1] >= 0.0 && p[0] <= w && p[1] <= h
}

/// The picture's axes turned so that the first points towards the spine.
struct Axes {
    spine: Spine,
    width: f32,
    height: f32,
    /// The picture's extent along the first axis.
    length: f32,
}

impl Axes {
    fn new(spine: Spine, width: f32, height: f32) -> Axes {
        let length = match spine {
            Spine::Left | Spine::Right => width,
            Spine::Top | Spine::Bottom => height,
        };
        Axes {
            spine,
            width,
            height,
            length,
        }
    }

    fn to_local(&self, [x, y]: Point) -> Point {
        match self.spine {
            Spine::Right => [x, y],
            Spine::Left => [self.width - x, y],
            Spine::Bottom => [y, x],
            Spine::Top => [self.height - y, x],
        }
    }

    fn to_picture(&self, [a, b]: Point) -> Point {
        match self.spine {
            Spine::Right => [a, b],
            Spine::Left => [self.width - a, b],
            Spine::Bottom => [b, a],
            Spine::Top => [b, self.height - a],
        }
    }
}

/// The curl along its axis, in pixels.
struct Shape {
    hinge: f32,
    radius: f32,
    camera: Point,
    height: f32,
    /// +1 down (away from the camera), -1 up.
    sign: f32,
}

impl Shape {
    /// Where the page's point at `a` along the axis shows, and the scale the camera sees
    /// it at (the across-axis offset from the camera's centre is multiplied by it).
    fn forward(&self, a: f32) -> (f32, f32) {
        let s = a - self.hinge;
        if s <= 0.0 {
            return (a, 1.0);
        }
        let r = self.radius;
        let turn = s / r;
        let (along, depth) = if turn <= MOST_TURN {
            (r * turn.sin(), r * (1.0 - turn.cos()))
        } else {
            let rest = s - r * MOST_TURN;
            (
                r * MOST_TURN.sin() + rest * MOST_TURN.cos(),
                r * (1.0 - MOST_TURN.cos()) + rest * MOST_TURN.sin(),
            )
        };
        let m = self.height / (self.height + self.sign * depth);
        (
            self.camera[0] + (self.hinge + along - self.camera[0]) * m,
            m,
        )
    }

    /// The forward map tabulated from the hinge while what it shows moves on along the
    /// axis (beyond, the page has turned out of sight), up to `length` pixels.
    fn inverse_table(&self, length: f32) -> InverseTable {
        let step = 1.0 / STEPS_PER_PIXEL;
        let mut shown = Vec::new();
        let mut a = self.hinge;
        let mut last = f32::MIN;
        // The page's far part may show compressed: look well past the picture's end.
        while a < self.hinge + 4.0 * length.max(1.0) {
            let (out, m) = self.forward(a);
            if out <= last || !(m > 0.2 && m < 5.0) {
                break;
            }
            shown.push((out, a, m));
            if out > length + 1.0 {
                break;
            }
            last = out;
            a += step;
        }
        InverseTable {
            hinge: self.hinge,
            shown,
        }
    }
}

/// For a place along the curl's axis in the output: the page's place and scale there.
struct InverseTable {
    hinge: f32,
    /// (shown at, page place, scale), shown places increasing.
    shown: Vec<(f32, f32, f32)>,
}

impl InverseTable {
    fn source(&self, out: f32) -> Option<(f32, f32)> {
        if out <= self.hinge {
            return Some((out, 1.0));
        }
        let i = self.shown.partition_point(|e| e.0 < out);
        if i == 0 || i >= self.shown.len() {
            return None;
        }
        let (lo, hi) = (self.shown[i - 1], self.shown[i]);
        let t = (out - lo.0) / (hi.0 - lo.0);
        Some((lo.1 + (hi.1 - lo.1) * t, lo.2 + (hi.2 - lo.2) * t))
    }
}

/// Radial lens distortion centred on the picture: the point at distance `r` from the
/// centre shows what lay at `r (1 + k (r / R)^2)`, `R` half the picture's diagonal.
/// `k > 0` is barrel distortion (a wide phone lens: lines off the centre bow outwards),
/// `k < 0` pincushion.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Lens {
    /// The distortion's strength and kind (barrel above 0).
    pub k: f32,
}

impl Lens {
    /// A lens with `|k|` up to `most`, barrel three times in four.
    pub fn random(most: f32, rng: &mut impl Rng) -> Lens {
        let k = rng.random_range(0.3..=1.0) * most;
        Lens {
            k: if rng.random_bool(0.75) { k } else { -k },
        }
    }

    /// The effect's name in a rendered image's list.
    pub fn describe(&self) -> String {
        format!("lens:{:.3}", self.k)
    }

    /// `img` through the lens and the board's corners where they now show; `None` when a
    /// corner would leave the picture.
    pub fn apply(&self, img: &RgbImage, quad: &Quad) -> Option<(RgbImage, Quad)> {
        let (w, h) = (img.width() as f32, img.height() as f32);
        let c = [w / 2.0, h / 2.0];
        let radius2 = (w * w + h * h) / 4.0;
        // The point p shows what lay at c + (p - c) scale(p).
        let scale = |p: Point| {
            let d = [p[0] - c[0], p[1] - c[1]];
            1.0 + self.k * (d[0] * d[0] + d[1] * d[1]) / radius2
        };
        let source = |p: Point| {
            let f = scale(p);
            [c[0] + (p[0] - c[0]) * f, c[1] + (p[1] - c[1]) * f]
        };
        // Where a corner shows: the fixed point of p = c + (q - c) / scale(p), which the
        // small distortion reaches in a few steps.
        let moved = quad.0.map(|q| {
            let mut p = q;
            for _ in 0..30 {
                let f = scale(p);
                p = [c[0] + (q[0] - c[0]) / f, c[1] + (q[1] - c[1]) / f];
            }
            p
        });
        let exact = |p: &Point, q: &Point| crate::quad::dist(source(*p), *q) < 0.01;
        if !moved.iter().all(|p| inside(*p, w, h))
            || !moved.iter().zip(&quad.0).all(|(p, q)| exact(p, q))
        {
            return None;
        }
        let fill = img.get_pixel(0, 0).0;
        let out = RgbImage::from_fn(img.width(), img.height(), |x, y| {
            let s = source([x as f32 + 0.5, y as f32 + 0.5]);
            if !inside(s, w, h) {
                return image::Rgb(fill);
            }
            image::Rgb(sample_bilinear(img, s[0] - 0.5, s[1] - 0.5).map(to_u8))
        });
        Some((out, Quad(moved)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A plain picture with a board of black and white squares at `quad`'s place.
    fn board_picture(w: u32, h: u32, x0: f32, y0: f32, side: f32) -> (RgbImage, Quad) {
        let img = RgbImage::from_fn(w, h, |x, y| {
            let (u, v) = ((x as f32 - x0) / side * 8.0, (y as f32 - y0) / side * 8.0);
            if !(0.0..8.0).contains(&u) || !(0.0..8.0).contains(&v) {
                return image::Rgb([200, 200, 200]);
            }
            if (u as u32 + v as u32).is_multiple_of(2) {
                image::Rgb([240, 240, 240])
            } else {
                image::Rgb([20, 20, 20])
            }
        });
        (img, Quad::square(x0, y0, side))
    }

    #[test]
    fn a_curl_moves_the_spine_side_corners_only_and_bows_the_edges() {
        let (img, quad) = board_picture(400, 300, 80.0, 40.0, 220.0);
        let curl = Curl {
            spine: Spine::Right,
            hinge: 0.1,
            angle: 50f32.to_radians(),
            height: 1.5,
            up: false,
        };
        let (out, moved) = curl.apply(&img, &quad).unwrap();
        // Top-left and bottom-left lie before the hinge.
        assert_eq!(moved.0[0], quad.0[0]);
        assert_eq!(moved.0[3], quad.0[3]);
        // The right-hand corners come in towards the spine's foreshortening and the centre.
        for k in [1, 2] {
            assert!(moved.0[k][0] < quad.0[k][0] - 10.0, "{:?}", moved.0[k]);
        }
        assert!(moved.0[1][1] > quad.0[1][1] + 2.0 && moved.0[2][1] < quad.0[2][1] - 2.0);
        // The top edge bows: its right end shows where the corner moved to, darker square
        // pattern and all; left of the hinge the picture is untouched.
        assert_eq!(out.get_pixel(100, 100), img.get_pixel(100, 100));
        let (x, y) = (moved.0[1][0] - 3.0, moved.0[1][1] + 3.0);
        assert_ne!(out.get_pixel(x as u32, y as u32).0, [200, 200, 200]);
    }

    #[test]
    fn the_curl_table_inverts_the_forward_map() {
        let shape = Shape {
            hinge: 100.0,
            radius: 60.0,
            camera: [150.0, 120.0],
            height: 300.0,
            sign: 1.0,
        };
        let table = shape.inverse_table(400.0);
        for a in [90.0, 120.0, 150.0, 180.0] {
            let (out, m) = shape.forward(a);
            let (back, m2) = table.source(out).unwrap();
            assert!(
                (back - a).abs() < 0.05 && (m - m2).abs() < 1e-3,
                "{a}: {back} {m2}"
            );
        }
    }

    #[test]
    fn a_barrel_lens_pulls_the_corners_in_and_keeps_the_centre() {
        let (img, quad) = board_picture(400, 400, 40.0, 40.0, 320.0);
        let lens = Lens { k: 0.15 };
        let (out, moved) = lens.apply(&img, &quad).unwrap();
        for (p, q) in moved.0.iter().zip(&quad.0) {
            let (dp, dq) = (
                crate::quad::dist(*p, [200.0, 200.0]),
                crate::quad::dist(*q, [200.0, 200.0]),
            );
            assert!(dp < dq - 5.0, "{p:?} {q:?}");
        }
        assert_eq!(out.get_pixel(200, 200), img.get_pixel(200, 200));
        // A pincushion strong enough to push the corners out of the picture is refused.
        assert!(Lens { k: -0.6 }.apply(&img, &quad).is_none());
    }
}
