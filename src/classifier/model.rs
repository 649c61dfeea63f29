//! The square classifier: a small CNN from a 3xNxN crop to 13 class scores.

use burn::nn::conv::{Conv2d, Conv2dConfig};
use burn::nn::pool::{AdaptiveAvgPool2d, AdaptiveAvgPool2dConfig, MaxPool2d, MaxPool2dConfig};
use burn::nn::{BatchNorm, BatchNormConfig, Linear, LinearConfig, PaddingConfig2d, Relu};
use burn::prelude::*;

/// Shape of the classifier; saved as `config.json` beside the weights, and the only thing
/// infer needs (with the weights) to rebuild the model.
#[derive(Config, Debug, PartialEq)]
pub struct SquareClassifierConfig {
    /// Side of the input crop in pixels.
    #[config(default = 32)]
    pub input_size: usize,
    /// Input channels (3: RGB).
    #[config(default = 3)]
    pub channels: usize,
    /// Output channels of each conv block; each block halves the resolution.
    #[config(default = "vec![16, 32, 64]")]
    pub widths: Vec<usize>,
    /// Number of classes.
    #[config(default = 13)]
    pub num_classes: usize,
    /// Stride of the first convolution (2 quarters the work of everything after it).
    #[config(default = 2)]
    pub stem_stride: usize,
    /// Convolutions per block (1 or 2).
    #[config(default = 2)]
    pub convs_per_block: usize,
}

/// One or two 3x3 convolutions with batch norm and ReLU, then 2x2 max pooling.
#[derive(Module, Debug)]
pub struct ConvBlock {
    pub(crate) conv1: Conv2d,
    pub(crate) norm1: BatchNorm,
    pub(crate) conv2: Option<Conv2d>,
    pub(crate) norm2: Option<BatchNorm>,
    pub(crate) pool: MaxPool2d,
    activation: Relu,
}

impl ConvBlock {
    fn new(input: usize, output: usize, stride: usize, convs: usize, device: &Device) -> ConvBlock {
        let conv = |i, o, s| {
            Conv2dConfig::new([i, o], [3, 3])
                .with_stride([s, s])
                .with_padding(PaddingConfig2d::Explicit(1, 1, 1, 1))
                .with_bias(false)
                .init(device)
        };
        ConvBlock {
            conv1: conv(input, output, stride),
            norm1: BatchNormConfig::new(output).init(device),
            conv2: (convs > 1).then(|| conv(output, output, 1)),
            norm2: (convs > 1).then(|| BatchNormConfig::new(output).init(device)),
            pool: MaxPool2dConfig::new([2, 2]).with_strides([2, 2]).init(),
            activation: Relu::new(),
        }
    }

    /// # Shapes
    /// input `[batch, in, h, w]` -> output `[batch, out, h/(2*stride), w/(2*stride)]`
    fn forward(&self, x: Tensor<4>) -> Tensor<4> {
        let mut x = self
            .activation
            .forward(self.norm1.forward(self.conv1.forward(x)));
        if let (Some(conv), Some(norm)) = (&self.conv2, &self.norm2) {
            x = self.activation.forward(norm.forward(conv.forward(x)));
        }
        self.pool.forward(x)
    }
}

/// The classifier.
#[derive(Module, Debug)]
pub struct SquareClassifier {
    pub(crate) blocks: Vec<ConvBlock>,
    pub(crate) pool: AdaptiveAvgPool2d,
    pub(crate) head: Linear,
}

impl SquareClassifierConfig {
    /// A freshly initialised model on `device`.
    pub fn init(&self, device: &Device) -> SquareClassifier {
        let mut blocks = Vec::new();
        let mut input = self.channels;
        for (i, &w) in self.widths.iter().enumerate() {
            let stride = if i == 0 { self.stem_stride.max(1) } else { 1 };
            blocks.push(ConvBlock::new(
                input,
                w,
                stride,
                self.convs_per_block,
                device,
            ));
            input = w;
        }
        SquareClassifier {
            blocks,
            pool: AdaptiveAvgPool2dConfig::new([1, 1]).init(),
            head: LinearConfig::new(input, self.num_classes).init(device),
        }
    }
}

impl SquareClassifier {
    /// Class scores (logits).
    ///
    /// # Shapes
    /// input `[batch, channels, size, size]` (values 0..=1) -> output `[batch, num_classes]`
    pub fn forward(&self, images: Tensor<4>) -> Tensor<2> {
        // Centre the inputs so the first layer starts from a balanced range.
        let mut x = images.sub_scalar(0.5).mul_scalar(4.0);
        for block in &self.blocks {
            x = block.forward(x);
        }
        let [batch, channels, _, _] = x.dims();
        let x = self.pool.forward(x).reshape([batch, channels]);
        self.head.forward(x)
    }
}
