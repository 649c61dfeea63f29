//! The classifier in inference form: each batch norm folded into the convolution before it.
//!
//! At inference a batch norm is a fixed per-channel scale and shift, so it can live in the
//! convolution's weights and bias. That removes several full passes over every activation
//! (the dominant cost of this small network on a CPU); the outputs agree with the trained
//! form to float rounding.

use burn::module::Param;
use burn::nn::conv::Conv2d;
use burn::nn::pool::{AdaptiveAvgPool2d, MaxPool2d};
use burn::nn::{BatchNorm, Linear};
use burn::prelude::*;
use burn::tensor::activation::relu;

use super::model::SquareClassifier;

/// A [`SquareClassifier`] with its batch norms folded in; for inference only.
#[derive(Debug)]
pub struct FusedClassifier {
    blocks: Vec<(Vec<Conv2d>, MaxPool2d)>,
    pool: AdaptiveAvgPool2d,
    head: Linear,
}

impl FusedClassifier {
    /// Folds `model`'s batch norms (their running statistics) into its convolutions.
    pub fn new(model: &SquareClassifier) -> FusedClassifier {
        let blocks = model
            .blocks
            .iter()
            .map(|b| {
                let mut convs = vec![fold(&b.conv1, &b.norm1)];
                if let (Some(conv), Some(norm)) = (&b.conv2, &b.norm2) {
                    convs.push(fold(conv, norm));
                }
                (convs, b.pool.clone())
            })
            .collect();
        FusedClassifier {
            blocks,
            pool: model.pool.clone(),
            head: model.head.clone(),
        }
    }

    /// The blocks: convolutions (batch norms folded in) and the pooling after them.
    pub fn blocks(&self) -> &[(Vec<Conv2d>, MaxPool2d)] {
        &self.blocks
    }

    /// The linear head.
    pub fn head(&self) -> &Linear {
        &self.head
    }

    /// Class scores (logits), as [`SquareClassifier::forward`].
    ///
    /// # Shapes
    /// input `[batch, channels, size, size]` (values 0..=1) -> output `[batch, num_classes]`
    pub fn forward(&self, images: Tensor<4>) -> Tensor<2> {
        self.head.forward(self.features(images))
    }

    /// The head's inputs: the last block's activations averaged over the crop.
    ///
    /// # Shapes
    /// input `[batch, channels, size, size]` (values 0..=1) -> output `[batch, widths.last]`
    pub fn features(&self, images: Tensor<4>) -> Tensor<2> {
        let mut x = images.sub_scalar(0.5).mul_scalar(4.0);
        for (convs, pool) in &self.blocks {
            let last = convs.len() - 1;
            for (i, conv) in convs.iter().enumerate() {
                x = conv.forward(x);
                if i < last {
                    x = relu(x);
                }
            }
            // ReLU commutes with max pooling: pooling first leaves it a quarter of the work.
            x = relu(pool.forward(x));
        }
        let [batch, channels, _, _] = x.dims();
        self.pool.forward(x).reshape([batch, channels])
    }
}

/// `norm(conv(x))` as one convolution: `w' = w * s`, `b' = beta + (b - mean) * s` with
/// `s = gamma / sqrt(var + eps)` per output channel.
fn fold(conv: &Conv2d, norm: &BatchNorm) -> Conv2d {
    let scale = norm
        .gamma
        .val()
        .div(norm.running_var.value().add_scalar(norm.epsilon).sqrt());
    let [out] = scale.dims();
    let weight = conv.weight.val().mul(scale.clone().reshape([out, 1, 1, 1]));
    let bias = match &conv.bias {
        Some(b) => b.val(),
        None => Tensor::zeros([out], &scale.device()),
    };
    let bias = norm
        .beta
        .val()
        .add(bias.sub(norm.running_mean.value()).mul(scale));
    Conv2d {
        weight: Param::from_tensor(weight),
        bias: Some(Param::from_tensor(bias)),
        ..conv.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classifier::seeded::seeded_module;
    use crate::classifier::{Backend, SquareClassifierConfig};
    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn folded_model_gives_the_same_scores() {
        let device = Backend::Flex.device().unwrap();
        let config = SquareClassifierConfig::new()
            .with_widths(vec![4, 8])
            .with_input_size(16);
        let model = seeded_module(&device, 5, || config.init(&device));
        // Values from a local generator: the backend's is shared with other tests.
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let mut uniform = |n: usize, lo: f32, hi: f32| {
            let v: Vec<f32> = (0..n).map(|_| rng.random_range(lo..hi)).collect();
            Tensor::<1>::from_data(TensorData::new(v, [n]), &device)
        };
        // Fresh batch norms are the identity; train-like statistics make the test mean it.
        let model = {
            let mut m = model;
            for b in &mut m.blocks {
                for norm in [Some(&mut b.norm1), b.norm2.as_mut()].into_iter().flatten() {
                    let [n] = norm.gamma.val().dims();
                    norm.gamma = Param::from_tensor(uniform(n, 0.5, 2.0));
                    norm.beta = Param::from_tensor(uniform(n, -1.0, 1.0));
                    norm.running_mean.update(uniform(n, -0.5, 0.5));
                    norm.running_var.update(uniform(n, 0.2, 3.0));
                }
            }
            m
        };
        let x = uniform(6 * 3 * 16 * 16, 0.0, 1.0).reshape([6, 3, 16, 16]);
        let a: Vec<f32> = model.forward(x.clone()).into_data().try_into_vec().unwrap();
        let b: Vec<f32> = FusedClassifier::new(&model)
            .forward(x)
            .into_data()
            .try_into_vec()
            .unwrap();
        let worst = a
            .iter()
            .zip(&b)
            .map(|(p, q)| (p - q).abs())
            .fold(0.0, f32::max);
        let spread = a.iter().map(|v| v.abs()).fold(0.0, f32::max);
        assert!(spread > 0.01, "scores are not trivially zero");
        assert!(worst < 1e-4 * spread.max(1.0), "largest difference {worst}");
    }
}
