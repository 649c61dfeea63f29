//! Value noise: smooth deterministic randomness for textures and paper.

/// Hash of a lattice point, in 0..1.
fn lattice(ix: i32, iy: i32, seed: u32) -> f32 {
    let mut h = (ix as u32).wrapping_mul(374_761_393)
        ^ (iy as u32).wrapping_mul(668_265_263)
        ^ seed.wrapping_mul(2_246_822_519);
    h = (h ^ (h >> 13)).wrapping_mul(1_274_126_177);
    (h ^ (h >> 16)) as f32 / u32::MAX as f32
}

/// Floor without a libm call (this runs per pixel for textures and paper): a cast
/// truncates towards zero, one less below it.
fn floor(v: f32) -> f32 {
    let t = v as i32 as f32;
    if t > v { t - 1.0 } else { t }
}

/// The smoothstep weight of the fractional part `t`.
fn smooth(t: f32) -> f32 {
    t * t * (3.0 - 2.0 * t)
}

/// Cheap deterministic value noise in 0..1 (hash of lattice points, bilinear blend).
pub fn value_noise(x: f32, y: f32, seed: u32) -> f32 {
    let (x0, y0) = (floor(x), floor(y));
    let (sx, sy) = (smooth(x - x0), smooth(y - y0));
    let (ix, iy) = (x0 as i32, y0 as i32);
    let hash = |ix, iy| lattice(ix, iy, seed);
    let a = hash(ix, iy) + (hash(ix + 1, iy) - hash(ix, iy)) * sx;
    let b = hash(ix, iy + 1) + (hash(ix + 1, iy + 1) - hash(ix, iy + 1)) * sx;
    a + (b - a) * sy
}

/// [`value_noise`] along image rows, with the lattice values of the two rows around `y`
/// kept: the same values for a fraction of the hashing (an image's pixels share lattice
/// points with their neighbours).
pub struct NoiseRows {
    seed: u32,
    /// The current row, its lattice row (`floor(y)`) and smoothstep weight.
    y: f32,
    iy: Option<i32>,
    sy: f32,
    /// The lattice values of rows `iy` and `iy + 1` at `ix = 0..len`.
    top: Vec<f32>,
    bottom: Vec<f32>,
}

impl NoiseRows {
    /// For `x` in `0..=max_x` (other `x` are computed without the cache).
    pub fn new(seed: u32, max_x: f32) -> NoiseRows {
        let len = floor(max_x.max(0.0)) as usize + 2;
        NoiseRows {
            seed,
            y: 0.0,
            iy: None,
            sy: 0.0,
            top: vec![0.0; len],
            bottom: vec![0.0; len],
        }
    }

    /// Moves to row `y`.
    pub fn set_row(&mut self, y: f32) {
        let y0 = floor(y);
        self.y = y;
        self.sy = smooth(y - y0);
        let iy = y0 as i32;
        if self.iy == Some(iy) {
            return;
        }
        if self.iy.is_some_and(|old| old.checked_add(1) == Some(iy)) {
            std::mem::swap(&mut self.top, &mut self.bottom);
        } else {
            for (ix, v) in self.top.iter_mut().enumerate() {
                *v = lattice(ix as i32, iy, self.seed);
            }
        }
        for (ix, v) in self.bottom.iter_mut().enumerate() {
            *v = lattice(ix as i32, iy + 1, self.seed);
        }
        self.iy = Some(iy);
    }

    /// `value_noise(x, y, seed)` for the `y` of the last [`Self::set_row`].
    #[inline]
    pub fn at(&self, x: f32) -> f32 {
        let x0 = floor(x);
        let ix = x0 as i32;
        if ix < 0 || ix as usize + 1 >= self.top.len() {
            // Outside the cached columns: the plain computation (same values).
            return value_noise(x, self.y, self.seed);
        }
        let sx = smooth(x - x0);
        let i = ix as usize;
        let (t, b) = (&self.top, &self.bottom);
        let a = t[i] + (t[i + 1] - t[i]) * sx;
        let b = b[i] + (b[i + 1] - b[i]) * sx;
        a + (b - a) * self.sy
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_give_the_values_of_value_noise_bit_for_bit() {
        for (scale, seed) in [(0.7f32, 7u32), (1.0 / 37.0, 99), (1.0 / 113.0, 0x9e37)] {
            let mut rows = NoiseRows::new(seed, 200.0 * scale);
            for y in (0..120).chain(300..305).chain(10..12) {
                let fy = y as f32 * scale;
                rows.set_row(fy);
                // Columns inside the cache, and a few outside it (negative, beyond).
                for x in (-3..215).step_by(1) {
                    let fx = x as f32 * scale;
                    assert_eq!(
                        rows.at(fx).to_bits(),
                        value_noise(fx, fy, seed).to_bits(),
                        "x {fx} y {fy} seed {seed}"
                    );
                }
            }
        }
    }
}
