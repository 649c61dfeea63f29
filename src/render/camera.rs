//! How a picture of a drawn scene was taken: cropped around the board, turned a quarter,
//! squeezed by an app, seen by a camera at an angle. Each moves the board's corners with
//! the picture.

use image::RgbImage;
use rand::{Rng, RngExt};

use crate::quad::{Homography, Point, Quad};
use crate::squares::{sample_bilinear, to_u8};

/// The part of `img` within `room` squares (plus two pixels) of the quad's bounding box,
/// and the quad in it.
pub fn crop_around(img: &RgbImage, quad: &Quad, room: f32) -> (RgbImage, Quad) {
    let (w, h) = (img.width(), img.height());
    let (x0, y0, cw, ch) = crop_rect(w as f32, h as f32, quad, room);
    if (cw, ch) == (w, h) {
        return (img.clone(), *quad);
    }
    let cropped = image::imageops::crop_imm(img, x0, y0, cw, ch).to_image();
    let (dx, dy) = (x0 as f32, y0 as f32);
    (cropped, Quad(quad.0.map(|p| [p[0] - dx, p[1] - dy])))
}

/// The picture turned a quarter (clockwise or not) and the board's corners with it, still
/// in the board's own order (its top-left corner as drawn first).
pub fn quarter_turn(img: &RgbImage, quad: &Quad, clockwise: bool) -> (RgbImage, Quad) {
    let (w, h) = (img.width() as f32, img.height() as f32);
    if clockwise {
        let turned = image::imageops::rotate90(img);
        (turned, Quad(quad.0.map(|[x, y]| [h - y, x])))
    } else {
        let turned = image::imageops::rotate270(img);
        (turned, Quad(quad.0.map(|[x, y]| [y, w - x])))
    }
}

/// The picture squeezed to `share` of its width (`across`) or of its height (an app that
/// squeezes a photo into a square).
pub fn squashed(img: &RgbImage, share: f32, across: bool) -> RgbImage {
    let (w, h) = img.dimensions();
    let squeeze = |side: u32| ((side as f32 * share).round() as u32).max(1);
    let (nw, nh) = if across {
        (squeeze(w), h)
    } else {
        (w, squeeze(h))
    };
    image::imageops::resize(img, nw, nh, image::imageops::FilterType::Triangle)
}

/// `quad` in a picture of `from` pixels resized to `to` pixels.
pub fn rescaled(quad: &Quad, from: (u32, u32), to: (u32, u32)) -> Quad {
    let (fx, fy) = (to.0 as f32 / from.0 as f32, to.1 as f32 / from.1 as f32);
    Quad(quad.0.map(|[x, y]| [x * fx, y * fy]))
}

/// The rectangle `(x, y, width, height)` of a `w` x `h` image within `room` squares (plus
/// two pixels for the bilinear reach) of the quad's bounding box (the whole image when that
/// is empty).
fn crop_rect(w: f32, h: f32, quad: &Quad, room: f32) -> (u32, u32, u32, u32) {
    let pad = quad.mean_side() / 8.0 * room + 2.0;
    let (x0, y0, x1, y1) = quad.bounds();
    let (x0, y0) = ((x0 - pad).max(0.0).floor(), (y0 - pad).max(0.0).floor());
    let (x1, y1) = ((x1 + pad).min(w).ceil(), (y1 + pad).min(h).ceil());
    if x1 <= x0 || y1 <= y0 {
        return (0, 0, w as u32, h as u32);
    }
    (x0 as u32, y0 as u32, (x1 - x0) as u32, (y1 - y0) as u32)
}

/// Rotates and skews the image as a camera at an angle would: the board's corners move
/// to new places; the whole image follows the same homography. Returns the new quad.
/// With `keep` (in squares), only the part of the result within that much of the board is
/// computed and returned (as [`crop_around`] would cut it, for the same pixels).
pub fn perspective(
    img: &RgbImage,
    quad: &Quad,
    rotation_deg: f32,
    skew: f32,
    keep: Option<f32>,
    rng: &mut impl Rng,
) -> Option<(RgbImage, Quad)> {
    let (w, h) = (img.width() as f32, img.height() as f32);
    let side = quad.mean_side();
    let c = quad.0.iter().fold([0.0, 0.0], |acc, p| {
        [acc[0] + p[0] / 4.0, acc[1] + p[1] / 4.0]
    });
    let theta = rotation_deg.to_radians();
    let (s, co) = (theta.sin(), theta.cos());
    let mut target: [Point; 4] = quad.0.map(|p| {
        let (dx, dy) = (p[0] - c[0], p[1] - c[1]);
        [c[0] + dx * co - dy * s, c[1] + dx * s + dy * co]
    });
    for p in target.iter_mut() {
        p[0] += rng.random_range(-skew..=skew) * side;
        p[1] += rng.random_range(-skew..=skew) * side;
    }
    // Keep the board inside the image: shrink towards the centre if needed.
    let (min_x, min_y, max_x, max_y) = Quad(target).bounds();
    let fit = ((w - 2.0) / (max_x - min_x))
        .min((h - 2.0) / (max_y - min_y))
        .min(1.0);
    let (mx, my) = ((min_x + max_x) / 2.0, (min_y + max_y) / 2.0);
    let (cx, cy) = (
        w / 2.0 + (mx - w / 2.0) * fit,
        h / 2.0 + (my - h / 2.0) * fit,
    );
    for p in target.iter_mut() {
        p[0] = cx + (p[0] - mx) * fit;
        p[1] = cy + (p[1] - my) * fit;
        p[0] = p[0].clamp(1.0, w - 1.0);
        p[1] = p[1].clamp(1.0, h - 1.0);
    }
    let new_quad = Quad(target);
    if !new_quad.is_convex() {
        return None;
    }
    let back = Homography::fit(&new_quad.0, &quad.0)?;
    let fill = img.get_pixel(0, 0).0;
    let m = back.0.map(|v| v as f32);
    let (width, height) = (img.width() as usize, img.height() as usize);
    let (ox, oy, ow, oh) = match keep {
        Some(room) => {
            let r = crop_rect(w, h, &new_quad, room);
            (r.0 as usize, r.1 as usize, r.2 as usize, r.3 as usize)
        }
        None => (0, 0, width, height),
    };
    let src = img.as_raw();
    let mut out = vec![0u8; ow * oh * 3];
    // Source coordinates of one row, computed in a loop of their own (no branches, so it
    // runs on vector lanes; the same arithmetic, so the same values).
    let (mut xs, mut ys) = (vec![0f32; ow], vec![0f32; ow]);
    // Row by row: the homography's three sums are linear along a row, and the interior
    // samples are bilinear in 8-bit fixed point (the edges go through `sample_bilinear`).
    for (row_index, row) in out.chunks_exact_mut(ow * 3).enumerate() {
        let yf = (oy + row_index) as f32 + 0.5;
        let (u0, v0, d0) = (
            m[(0, 1)] * yf + m[(0, 2)],
            m[(1, 1)] * yf + m[(1, 2)],
            m[(2, 1)] * yf + m[(2, 2)],
        );
        let (mx, my, md) = (m[(0, 0)], m[(1, 0)], m[(2, 0)]);
        for (col, (sx, sy)) in xs.iter_mut().zip(ys.iter_mut()).enumerate() {
            // Exact: columns stay far below 2^24.
            let xf = (ox + col) as i32 as f32 + 0.5;
            let inv = 1.0 / (md * xf + d0);
            *sx = (mx * xf + u0) * inv;
            *sy = (my * xf + v0) * inv;
        }
        for ((px, &sx), &sy) in row.chunks_exact_mut(3).zip(&xs).zip(&ys) {
            if !(sx >= 0.0 && sy >= 0.0 && sx <= w && sy <= h) {
                px.copy_from_slice(&fill);
                continue;
            }
            let (fx, fy) = (sx - 0.5, sy - 0.5);
            // Floor without a libm call: fx and fy are at least -0.5 here.
            let (ix, iy) = ((fx + 1.0) as isize - 1, (fy + 1.0) as isize - 1);
            let (x0, y0) = (ix as f32, iy as f32);
            if ix < 0 || iy < 0 || ix as usize + 1 >= width || iy as usize + 1 >= height {
                let v = sample_bilinear(img, fx, fy);
                px.copy_from_slice(&v.map(to_u8));
                continue;
            }
            let tx = ((fx - x0) * 256.0) as u32;
            let ty = ((fy - y0) * 256.0) as u32;
            let i = (iy as usize * width + ix as usize) * 3;
            let j = i + width * 3;
            let (w00, w01) = ((256 - tx) * (256 - ty), tx * (256 - ty));
            let (w10, w11) = ((256 - tx) * ty, tx * ty);
            for c in 0..3 {
                let v = u32::from(src[i + c]) * w00
                    + u32::from(src[i + 3 + c]) * w01
                    + u32::from(src[j + c]) * w10
                    + u32::from(src[j + 3 + c]) * w11;
                px[c] = ((v + 32768) >> 16) as u8;
            }
        }
    }
    let out = RgbImage::from_raw(ow as u32, oh as u32, out)?;
    let (dx, dy) = (ox as f32, oy as f32);
    Some((out, Quad(new_quad.0.map(|p| [p[0] - dx, p[1] - dy]))))
}
