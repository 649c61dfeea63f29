//! Training data made on the fly: each "epoch" is a fresh set of rendered boards (a pure
//! function of the seed and the epoch number), cut into squares by the same code infer uses.

use rand::seq::SliceRandom;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

use crate::class::SquareClass;
use crate::dataset::writer::board_squares;
use crate::render::Renderer;
use crate::squares::{CropConfig, to_chw};

/// Square crops with labels, stored compactly (u8 pixels, channel-last as cut).
#[derive(Clone, Debug, Default)]
pub struct SquareSet {
    /// Crop side in pixels.
    pub size: usize,
    /// `size * size * 3` bytes per crop.
    pub pixels: Vec<u8>,
    /// Class index per crop.
    pub labels: Vec<u8>,
    /// Pixels of detail per square of the board each crop came from (rounded, at most 255;
    /// see [`crate::render::Rendered::square_px`]): for accuracy by resolution.
    pub square_px: Vec<u8>,
    /// Piece set of the board each crop came from, as an index into `piece_sets` (empty
    /// when not recorded): for accuracy by piece set.
    pub piece_set: Vec<u16>,
    /// Names of the piece sets `piece_set` points into.
    pub piece_sets: Vec<String>,
}

impl SquareSet {
    /// Name of the piece set crop `i` was drawn with, when the set records it.
    pub fn piece_set_of(&self, i: usize) -> Option<&str> {
        let k = *self.piece_set.get(i)?;
        self.piece_sets.get(k as usize).map(String::as_str)
    }

    /// Number of crops.
    pub fn len(&self) -> usize {
        self.labels.len()
    }

    /// Whether there are no crops.
    pub fn is_empty(&self) -> bool {
        self.labels.is_empty()
    }

    /// Crop `i` as an image (`None` past the end).
    pub fn crop(&self, i: usize) -> Option<image::RgbImage> {
        let n = self.size * self.size * 3;
        let side = self.size as u32;
        image::RgbImage::from_raw(side, side, self.pixels.get(i * n..(i + 1) * n)?.to_vec())
    }

    /// Channel-first floats (0..=1) and labels for the crops at `indices`.
    pub fn batch(&self, indices: &[usize]) -> (Vec<f32>, Vec<i64>) {
        let n = self.size * self.size;
        let mut x = Vec::with_capacity(indices.len() * 3 * n);
        let mut y = Vec::with_capacity(indices.len());
        for &i in indices {
            if let Some(img) = self.crop(i) {
                to_chw(&img, &mut x);
            }
            y.push(i64::from(self.labels[i]));
        }
        (x, y)
    }

    /// Count of crops per class.
    pub fn class_counts(&self) -> [usize; 13] {
        let mut c = [0; 13];
        for &l in &self.labels {
            c[l as usize] += 1;
        }
        c
    }
}

/// How squares are drawn from rendered boards.
#[derive(Clone, Copy, Debug)]
pub struct SquareSampling {
    /// Crop geometry.
    pub crop: CropConfig,
    /// Largest simulated corner error, as a fraction of a square.
    pub corner_jitter: f32,
    /// Share of empty squares kept (they outnumber pieces; 1.0 keeps all). Empty squares
    /// with a letter written on them are always kept: they are few, and unlike the rest.
    pub empty_keep: f64,
}

/// Renders boards `0..boards` of stream `seed` and keeps their squares per `sampling`,
/// in parallel; the result does not depend on the thread count.
pub fn make_squares(
    renderer: &Renderer,
    seed: u64,
    boards: u64,
    sampling: &SquareSampling,
) -> SquareSet {
    let size = sampling.crop.size as usize;
    let per_board: Vec<(Vec<u8>, Vec<u8>, u8, String)> = (0..boards)
        .into_par_iter()
        .map(|i| {
            let board = board_squares(renderer, seed, i, &sampling.crop, sampling.corner_jitter);
            let mut rng = ChaCha8Rng::seed_from_u64(seed ^ i.wrapping_mul(0x9e37_79b9_7f4a_7c15));
            let mut px = Vec::new();
            let mut labels = Vec::new();
            for (k, (class, crop)) in board.classes.iter().zip(board.crops).enumerate() {
                // A lettered square draws nothing from `rng`: boards without letters keep
                // their samples.
                let lettered = (board.lettered >> k) & 1 == 1;
                if *class == SquareClass::Empty
                    && !lettered
                    && !rng.random_bool(sampling.empty_keep)
                {
                    continue;
                }
                px.extend_from_slice(crop.as_raw());
                labels.push(class.index() as u8);
            }
            let square_px = board.square_px.round().clamp(0.0, 255.0) as u8;
            (px, labels, square_px, board.piece_set)
        })
        .collect();
    let mut set = SquareSet {
        size,
        ..SquareSet::default()
    };
    for (px, labels, square_px, piece_set) in per_board {
        let k = match set.piece_sets.iter().position(|n| *n == piece_set) {
            Some(k) => k,
            None => {
                set.piece_sets.push(piece_set);
                set.piece_sets.len() - 1
            }
        };
        set.pixels.extend(px);
        set.square_px
            .extend(std::iter::repeat_n(square_px, labels.len()));
        set.piece_set
            .extend(std::iter::repeat_n(k as u16, labels.len()));
        set.labels.extend(labels);
    }
    set
}

/// A seeded permutation of `0..n` for epoch `epoch`.
pub fn shuffled(n: usize, seed: u64, epoch: u64) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ epoch.wrapping_mul(0xd1b5_4a32_d192_ed03));
    order.shuffle(&mut rng);
    order
}
