//! A xorshift64 stream with jump-ahead: per-pixel randomness that is cheap to draw and can
//! be split into independent runs that give exactly the values of one run.

/// Marsaglia's xorshift64 (shifts 13, 7, 17). Not for statistics that matter: sensor noise.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct XorShift64 {
    state: u64,
}

/// A linear map over GF(2)^64: column `j` is the image of bit `j`.
#[derive(Clone, Copy)]
struct BitMatrix([u64; 64]);

impl BitMatrix {
    fn apply(&self, v: u64) -> u64 {
        let mut out = 0;
        let mut bits = v;
        while bits != 0 {
            let j = bits.trailing_zeros() as usize;
            out ^= self.0[j];
            bits &= bits - 1;
        }
        out
    }

    /// `self` after `first`.
    fn after(&self, first: &BitMatrix) -> BitMatrix {
        BitMatrix(first.0.map(|col| self.apply(col)))
    }
}

impl XorShift64 {
    /// A stream from `seed` (0 is replaced: the all-zero state never leaves zero).
    pub fn new(seed: u64) -> XorShift64 {
        XorShift64 {
            state: if seed == 0 {
                0x9e37_79b9_7f4a_7c15
            } else {
                seed
            },
        }
    }

    fn step(s: u64) -> u64 {
        let mut s = s;
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    }

    /// The next value, uniform in `0..1` with 24 bits.
    #[inline]
    pub fn next_f32(&mut self) -> f32 {
        self.state = Self::step(self.state);
        (self.state >> 40) as f32 / (1u64 << 24) as f32
    }

    /// The stream `n` draws further on, as if `n` values had been drawn (the step is
    /// linear over GF(2), so this takes matrix squarings, not `n` steps).
    pub fn jumped(&self, n: u64) -> XorShift64 {
        let mut power = BitMatrix(std::array::from_fn(|j| Self::step(1 << j)));
        let mut state = self.state;
        let mut rest = n;
        while rest != 0 {
            if rest & 1 == 1 {
                state = power.apply(state);
            }
            rest >>= 1;
            if rest != 0 {
                power = power.after(&power);
            }
        }
        XorShift64 { state }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_jump_lands_where_the_draws_would() {
        let start = XorShift64::new(0x1234_5678_9abc_def1);
        for n in [0u64, 1, 2, 3, 7, 64, 1000, 6 * 12_345] {
            let mut walked = start;
            for _ in 0..n {
                walked.next_f32();
            }
            assert_eq!(start.jumped(n), walked, "n = {n}");
        }
    }
}
