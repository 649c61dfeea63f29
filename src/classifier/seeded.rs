//! Seeded initialisation that stays reproducible when several threads build models.
//!
//! Burn's CPU backends keep one random generator for the whole process, and a fresh
//! module draws its weights lazily, on first use. Two runs training side by side (tests,
//! or a library user's threads) would therefore interleave their draws and lose "same seed,
//! same model". Seeding, building and drawing every parameter under one lock keeps each
//! model's weights a function of its seed alone.

use std::sync::Mutex;

use burn::module::{Module, ModuleVisitor, Param};
use burn::prelude::{Device, Int, Tensor};

static RNG: Mutex<()> = Mutex::new(());

/// Seeds `device`'s generator with `seed` and builds a module with `init`, every parameter
/// drawn before another thread can touch the generator.
pub fn seeded_module<M: Module>(device: &Device, seed: u64, init: impl FnOnce() -> M) -> M {
    // A poisoned lock only means another thread panicked while initialising; the
    // generator is reseeded below, so its state does not matter.
    let _guard = RNG.lock().unwrap_or_else(|e| e.into_inner());
    device.seed(seed);
    let module = init();
    module.visit(&mut DrawAll);
    module
}

/// Touches every parameter, which makes a lazily initialised one draw its values.
struct DrawAll;

impl ModuleVisitor for DrawAll {
    fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<D>>) {
        let _ = param.val();
    }
    fn visit_int<const D: usize>(&mut self, param: &Param<Tensor<D, Int>>) {
        let _ = param.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classifier::SquareClassifierConfig;
    use crate::classifier::soup::float_weights;

    fn weights(device: &Device, seed: u64) -> Vec<f32> {
        let config = SquareClassifierConfig::new()
            .with_widths(vec![4, 8])
            .with_input_size(16);
        let model = seeded_module(device, seed, || config.init(device));
        float_weights(&model)
            .into_iter()
            .flat_map(|t| t.iter::<f32>().collect::<Vec<_>>())
            .collect()
    }

    #[test]
    fn models_built_side_by_side_depend_only_on_their_seed() {
        let device = Device::flex();
        let alone = weights(&device, 21);
        let side_by_side: Vec<Vec<f32>> = std::thread::scope(|s| {
            let runs: Vec<_> = (0..6)
                .map(|k| {
                    s.spawn({
                        let device = device.clone();
                        move || weights(&device, if k % 2 == 0 { 21 } else { 22 })
                    })
                })
                .collect();
            runs.into_iter().map(|r| r.join().unwrap()).collect()
        });
        for (k, w) in side_by_side.iter().enumerate() {
            assert_eq!(*w == alone, k % 2 == 0, "thread {k}");
        }
    }
}
