//! The squares' colours under a fitted lattice: how clearly light and dark squares differ
//! (a board, not a texture that happens to have corners), and which rows belong to the
//! board when the lattice could sit a row off it.

use super::saddle::Integral;
use crate::quad::Homography;

/// Mean grey of square (`row`, `col`) (0..8 on the board; -1 and 8 are just off it) on a
/// ring just inside its edges, where pieces rarely reach; each sample a box mean of `blur`
/// pixels so that dotted or hatched squares count by their average tone. `None` when the
/// square lies outside the image.
fn square_tone(
    integral: &Integral,
    h: &Homography,
    row: i32,
    col: i32,
    blur: usize,
) -> Option<f32> {
    let (w, hh) = (integral.width(), integral.height());
    let at = [0.12f32, 0.37, 0.63, 0.88];
    let mut sum = 0.0;
    let mut n = 0.0;
    for &a in &at {
        for (u, v) in [(a, 0.12), (a, 0.88), (0.12, a), (0.88, a)] {
            let p = h.apply([col as f32 - 1.0 + u, row as f32 - 1.0 + v]);
            if p[0] >= 0.0 && p[1] >= 0.0 && p[0] < w as f32 && p[1] < hh as f32 {
                let (x, y) = (p[0] as usize, p[1] as usize);
                sum += integral.mean(
                    x.saturating_sub(blur),
                    y.saturating_sub(blur),
                    (x + blur + 1).min(w),
                    (y + blur + 1).min(hh),
                );
                n += 1.0;
            }
        }
    }
    // Most of the ring must be in the image to say anything.
    (n >= 12.0).then(|| sum / n)
}

/// Light/dark separation of the 64 squares of the board `offset` (whole squares) from the
/// one `h` describes: |mean(light) - mean(dark)| / (sd(light) + sd(dark) + 4).
pub fn square_contrast(integral: &Integral, h: &Homography, offset: [f32; 2], blur: usize) -> f32 {
    let (dc, dr) = (offset[0] as i32, offset[1] as i32);
    let mut groups: [Vec<f32>; 2] = [Vec::new(), Vec::new()];
    for r in 0..8 {
        for c in 0..8 {
            if let Some(t) = square_tone(integral, h, r + dr, c + dc, blur) {
                groups[((r + c) % 2) as usize].push(t);
            }
        }
    }
    let stats = |g: &[f32]| {
        let m = g.iter().sum::<f32>() / g.len().max(1) as f32;
        let sd = (g.iter().map(|x| (x - m).powi(2)).sum::<f32>() / g.len().max(1) as f32).sqrt();
        (m, sd)
    };
    let ((ma, sa), (mb, sb)) = (stats(&groups[0]), stats(&groups[1]));
    (ma - mb).abs() / (sa + sb + 4.0)
}

/// How strongly a line of 8 squares alternates: the mean tone step between neighbours.
/// `index` is a row (`horizontal`) or column, -1..=8, within columns/rows `from..from + 8`.
fn alternation(
    integral: &Integral,
    h: &Homography,
    blur: usize,
    index: i32,
    from: i32,
    horizontal: bool,
) -> f32 {
    let tones: Vec<Option<f32>> = (from..from + 8)
        .map(|k| {
            if horizontal {
                square_tone(integral, h, index, k, blur)
            } else {
                square_tone(integral, h, k, index, blur)
            }
        })
        .collect();
    let steps: Vec<f32> = tones
        .windows(2)
        .filter_map(|p| Some((p[0]? - p[1]?).abs()))
        .collect();
    // A line mostly outside the image does not alternate.
    if steps.len() < 5 {
        return 0.0;
    }
    steps.iter().sum::<f32>() / 7.0
}

/// The offset (in squares, at most one each way) of the board from the lattice window
/// `h` describes: a row or column moves in when it alternates light/dark more clearly
/// than the one it would push out (a line off the board is margin, frame or labels).
pub fn settle_window(integral: &Integral, h: &Homography, blur: usize) -> [f32; 2] {
    let mut offset = [0i32, 0i32];
    for horizontal in [true, false] {
        let axis = usize::from(horizontal);
        let other = offset[1 - axis];
        let line = |i: i32| alternation(integral, h, blur, i, other, horizontal);
        let (first, last) = (line(0), line(7));
        // Moving towards -1 brings line -1 in and pushes line 7 out, and the other way.
        let (before, after) = (line(-1), line(8));
        if before > 1.5 * last && before > after {
            offset[axis] = -1;
        } else if after > 1.5 * first && after > before {
            offset[axis] = 1;
        }
    }
    [offset[0] as f32, offset[1] as f32]
}
