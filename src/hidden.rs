//! Squares hidden by something over the board: a game-over dialog or a pop-up in an app's
//! screenshot, anything opaque laid over the squares (glare that washed a block of squares
//! out to one flat white would count; synth's softer glare is never taken for a panel).
//! The classifier reads such squares as plain empty squares, surely, since an opaque panel
//! looks like nothing but ground; the FEN would then be silently wrong. A panel gives
//! itself away by its colour: one flat colour over light and dark squares alike (or over
//! one colour's squares, when it matches the other's ground), lying off the squares' own
//! ground, on a block of neighbouring squares. Such squares are reported (the pipeline adds them to the unsure
//! squares and gives them as empty unless a man is read there surely), since nothing on
//! the picture says what stands beneath. (Men drawn over an opaque block of highlighted
//! squares would be reported too; apps draw highlights half transparent.)

use image::RgbImage;

use crate::classifier::top_probability;
use crate::decode::best;
use crate::last_move::{Ground, channel_median};
use crate::placement::square_shade as parity;

/// Share of the other square colour's squares within a one-colour panel's rectangle that
/// must show its colour.
const OTHERS_ALIKE: f32 = 0.75;

/// Hidden-square settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HiddenConfig {
    /// A pixel has a colour when no channel differs from it by more than this (0-255).
    /// Default 24.
    pub tolerance: f32,
    /// The squares of one panel have one colour: their median colours differ by at most
    /// this in any channel (a flat fill stays within JPEG's noise; uneven light over a
    /// board, which also drives light and dark squares towards one grey, changes square
    /// by square by more). Default 10.
    pub panel_spread: f32,
    /// A square is flat when at least this share of its pixels lie within `tolerance` of
    /// its median colour. Default 0.7.
    pub flat_share: f32,
    /// ... and off its ground when that colour differs from the usual ground of its
    /// square colour by more than this in some channel. Default 32.
    pub off_ground: f32,
    /// A panel is a block of at least this many flat squares off their ground, of one
    /// colour, touching one another (sides or corners). Default 3.
    pub min_block: usize,
    /// ... filling at least this share of the rectangle of squares around them (a
    /// diagonal of tinted squares is a bishop's moves, not a panel). Default 0.4.
    pub min_fill: f32,
    /// The panel reaches on over the squares next to it with at least this share of their
    /// pixels in its colour ... Default 0.25.
    pub hidden_share: f32,
    /// ... unless the classifier reads a man there at least this surely (a man beside the
    /// panel, its square only partly covered, is seen). Default 0.9.
    pub seen_man: f32,
}

impl Default for HiddenConfig {
    fn default() -> Self {
        HiddenConfig {
            tolerance: 24.0,
            panel_spread: 10.0,
            flat_share: 0.7,
            off_ground: 32.0,
            min_block: 3,
            min_fill: 0.4,
            hidden_share: 0.25,
            seen_man: 0.9,
        }
    }
}

/// The squares (indices in the crops' reading order) hidden by a panel over the board,
/// none when there is no panel. `grounds` ([`crate::last_move::grounds`]) and `probs` (the
/// readings) are in the same order; `context` is the crops' context border as a share of
/// a square.
pub fn find(
    crops: &[RgbImage],
    context: f32,
    grounds: &[Ground],
    probs: &[[f32; 13]],
    cfg: &HiddenConfig,
) -> Vec<usize> {
    if crops.len() != 64 || grounds.len() != 64 || probs.len() < 64 {
        return Vec::new();
    }
    let squares: Vec<Vec<[u8; 3]>> = crops.iter().map(|c| square_pixels(c, context)).collect();
    let medians: Vec<[f32; 3]> = squares.iter().map(|p| median_colour(p)).collect();
    let usual = usual_grounds(grounds);
    // Where light and dark squares differ in texture only (a printed board's sparse dots
    // or thin hatching: their medians are the paper's), a flat colour over both says
    // nothing: uneven light makes such a patch.
    if differ(usual[0], usual[1]) <= cfg.off_ground {
        return Vec::new();
    }
    let seed: Vec<bool> = (0..64)
        .map(|i| {
            share_near(&squares[i], medians[i], cfg.tolerance) >= cfg.flat_share
                && differ(medians[i], usual[parity(i)]) > cfg.off_ground
        })
        .collect();
    let seen =
        |i: usize| best(&probs[i], |_| true) != 0 && top_probability(&probs[i]) >= cfg.seen_man;
    let mut hidden = [false; 64];
    let mut done = [false; 64];
    for start in 0..64 {
        if !seed[start] || done[start] {
            continue;
        }
        let block = grow(start, |i, j| {
            seed[j] && differ(medians[i], medians[j]) <= cfg.panel_spread
        });
        block.iter().for_each(|&i| done[i] = true);
        let Some((cover, like_ground)) = panel_colour(&block, &medians, usual, cfg) else {
            continue;
        };
        // The panel reaches on over squares it covers in part (its text and buttons,
        // its edges), not over men seen clearly.
        let covered = |j: usize| {
            !seen(j) && share_near(&squares[j], cover, cfg.tolerance) >= cfg.hidden_share
        };
        let panel = grow(start, |_, j| {
            block.contains(&j) || (!like_ground[parity(j)] && covered(j))
        });
        // A panel is a rectangle: what lies inside the one its squares span is under it
        // too, even where something is read surely (a dialog's buttons and text have
        // colours of their own, and the classifier reads men into them).
        let (r0, r1, c0, c1) = bounds(&panel);
        for r in r0..=r1 {
            for c in c0..=c1 {
                hidden[r * 8 + c] = true;
            }
        }
    }
    (0..64).filter(|&i| hidden[i]).collect()
}

/// The squares joined to `start` through neighbours (sides or corners): `joins(i, j)` says
/// whether neighbour `j` of member `i` belongs.
fn grow(start: usize, joins: impl Fn(usize, usize) -> bool) -> Vec<usize> {
    let mut members = vec![start];
    let mut k = 0;
    while k < members.len() {
        let i = members[k];
        k += 1;
        let (r, c) = ((i / 8) as i32, (i % 8) as i32);
        for (dr, dc) in [
            (-1, -1),
            (-1, 0),
            (-1, 1),
            (0, -1),
            (0, 1),
            (1, -1),
            (1, 0),
            (1, 1),
        ] {
            let (nr, nc) = (r + dr, c + dc);
            if !(0..8).contains(&nr) || !(0..8).contains(&nc) {
                continue;
            }
            let j = (nr * 8 + nc) as usize;
            if !members.contains(&j) && joins(i, j) {
                members.push(j);
            }
        }
    }
    members
}

/// The colour of a block of flat off-ground squares when it is a panel, with which square
/// colours' grounds look like it (light, dark: such squares cannot show whether they are
/// covered, and count only inside the panel's rectangle). A panel has enough squares,
/// spread over rows and files both, filling their rectangle, in one fill (uneven light
/// drifts from square to square and chains neighbours of ever other greys), and is opaque:
/// on both square colours, or on one only when it has the other's ground colour and the
/// other colour's squares in its rectangle show it too. Half-transparent highlights come
/// out in two colours over light and dark squares.
fn panel_colour(
    block: &[usize],
    medians: &[[f32; 3]],
    usual: [[f32; 3]; 2],
    cfg: &HiddenConfig,
) -> Option<([f32; 3], [bool; 2])> {
    if block.len() < cfg.min_block {
        return None;
    }
    let colours: Vec<[u8; 3]> = block.iter().map(|&i| medians[i].map(|v| v as u8)).collect();
    let cover = median_colour(&colours);
    if block
        .iter()
        .any(|&i| differ(medians[i], cover) > cfg.panel_spread)
    {
        return None;
    }
    let (r0, r1, c0, c1) = bounds(block);
    let (rows, cols) = (r1 - r0 + 1, c1 - c0 + 1);
    if rows < 2 || cols < 2 || (block.len() as f32) < cfg.min_fill * (rows * cols) as f32 {
        return None;
    }
    let like_ground = [0, 1].map(|p| differ(usual[p], cover) <= cfg.off_ground);
    let on = [0, 1].map(|p| block.iter().any(|&i| parity(i) == p));
    if on[0] && on[1] {
        return Some((cover, like_ground));
    }
    let other = usize::from(on[0]);
    let others: Vec<usize> = (r0..=r1)
        .flat_map(|r| (c0..=c1).map(move |c| r * 8 + c))
        .filter(|&i| parity(i) == other)
        .collect();
    let alike = others
        .iter()
        .filter(|&&i| differ(medians[i], cover) <= cfg.panel_spread)
        .count();
    (like_ground[other] && alike as f32 >= OTHERS_ALIKE * others.len() as f32)
        .then_some((cover, like_ground))
}

/// First and last row, first and last file of a block.
fn bounds(block: &[usize]) -> (usize, usize, usize, usize) {
    let rows = block.iter().map(|&i| i / 8);
    let cols = block.iter().map(|&i| i % 8);
    (
        rows.clone().min().unwrap_or(0),
        rows.max().unwrap_or(0),
        cols.clone().min().unwrap_or(0),
        cols.max().unwrap_or(0),
    )
}

/// The usual ground of light (0) and dark (1) squares: the per-channel median of every
/// such square's edge band.
fn usual_grounds(bands: &[Ground]) -> [[f32; 3]; 2] {
    [0, 1].map(|p| {
        let colours: Vec<[u8; 3]> = (0..bands.len())
            .filter(|&i| parity(i) == p)
            .map(|i| bands[i].band.map(|v| v as u8))
            .collect();
        median_colour(&colours)
    })
}

/// The pixels of the square itself, its context border left out.
fn square_pixels(crop: &RgbImage, context: f32) -> Vec<[u8; 3]> {
    let size = crop.width().min(crop.height()) as f32;
    let inset = (size * context / (1.0 + 2.0 * context)).round() as u32;
    let end = (size as u32).saturating_sub(inset);
    let mut out = Vec::new();
    for y in inset..end {
        for x in inset..end {
            out.push(crop.get_pixel(x, y).0);
        }
    }
    out
}

fn median_colour(pixels: &[[u8; 3]]) -> [f32; 3] {
    std::array::from_fn(|k| channel_median(pixels.iter().map(|p| p[k]).collect()))
}

/// Share of `pixels` within `tolerance` of `colour` in every channel.
fn share_near(pixels: &[[u8; 3]], colour: [f32; 3], tolerance: f32) -> f32 {
    if pixels.is_empty() {
        return 0.0;
    }
    let near = pixels
        .iter()
        .filter(|p| differ(p.map(f32::from), colour) <= tolerance)
        .count();
    near as f32 / pixels.len() as f32
}

/// The largest difference between two colours in one channel.
fn differ(a: [f32; 3], b: [f32; 3]) -> f32 {
    (0..3).map(|k| (a[k] - b[k]).abs()).fold(0.0, f32::max)
}

#[cfg(test)]
mod tests;
