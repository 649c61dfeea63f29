//! Weight averaging: a fine-tuned model averaged with the model it was fine-tuned from
//! (both share one starting point, so their weights sit in one basin and their average is
//! a model of its own; it tends to keep what each does well).

use burn::module::{Module, ModuleMapper, ModuleVisitor, Param};
use burn::prelude::*;

use super::model::SquareClassifier;

/// `a` moved `share_b` of the way to `b`, weight by weight (batch-norm statistics
/// included). `None` when the two models differ in shape.
pub fn average(
    a: SquareClassifier,
    b: &SquareClassifier,
    share_b: f32,
) -> Option<SquareClassifier> {
    let others = float_weights(b);
    let shapes_a: Vec<_> = float_weights(&a)
        .iter()
        .map(|t| t.shape().clone())
        .collect();
    let shapes_b: Vec<_> = others.iter().map(|t| t.shape().clone()).collect();
    if shapes_a != shapes_b {
        return None;
    }
    let mut blend = Blend {
        others: others.into_iter(),
        share_b,
    };
    Some(a.map(&mut blend))
}

/// Every float parameter of `module` (batch-norm statistics included), in visiting order.
pub(crate) fn float_weights<M: Module>(module: &M) -> Vec<TensorData> {
    let mut c = Collect(Vec::new());
    module.visit(&mut c);
    c.0
}

struct Collect(Vec<TensorData>);

impl ModuleVisitor for Collect {
    fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<D>>) {
        self.0.push(param.val().into_data());
    }
}

struct Blend {
    others: std::vec::IntoIter<TensorData>,
    share_b: f32,
}

impl ModuleMapper for Blend {
    fn map_float<const D: usize>(&mut self, param: Param<Tensor<D>>) -> Param<Tensor<D>> {
        let other = self.others.next();
        let t = self.share_b;
        param.map(|x| match other {
            Some(data) => {
                let y = Tensor::<D>::from_data(data, &x.device());
                x.mul_scalar(1.0 - t).add(y.mul_scalar(t))
            }
            None => x,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classifier::SquareClassifierConfig;
    use crate::classifier::seeded::seeded_module;

    fn tiny(widths: Vec<usize>) -> SquareClassifierConfig {
        SquareClassifierConfig {
            input_size: 16,
            channels: 3,
            widths,
            num_classes: 13,
            stem_stride: 2,
            convs_per_block: 1,
        }
    }

    #[test]
    fn halfway_between_two_models_is_their_mean() {
        let device = Device::flex();
        let a = seeded_module(&device, 1, || tiny(vec![4, 8]).init(&device));
        let b = seeded_module(&device, 2, || tiny(vec![4, 8]).init(&device));
        let weights = |m: &SquareClassifier| {
            float_weights(m)
                .into_iter()
                .flat_map(|t| t.convert::<f32>().try_into_vec::<f32>().unwrap_or_default())
                .collect::<Vec<f32>>()
        };
        let (wa, wb) = (weights(&a), weights(&b));
        assert_ne!(wa, wb);
        let mid = weights(&average(a, &b, 0.5).unwrap());
        assert_eq!(mid.len(), wa.len());
        for ((m, x), y) in mid.iter().zip(&wa).zip(&wb) {
            assert!((m - (x + y) / 2.0).abs() < 1e-6);
        }
        let wider = seeded_module(&device, 3, || tiny(vec![4, 16]).init(&device));
        let narrow = seeded_module(&device, 4, || tiny(vec![4, 8]).init(&device));
        assert!(average(narrow, &wider, 0.5).is_none());
    }
}
