//! The folded classifier with each convolution done as one matrix product over the whole
//! batch: what infer runs on the CPU.
//!
//! burn-flex convolves each of the 64 small crops separately (layout conversion, im2col
//! tiles and a small matrix product per image); on one core that overhead, not the
//! arithmetic, is most of its time. Here activations stay channel-major over the whole
//! batch (`[channels][batch][h][w]`): the im2col of all crops is built once per layer and
//! multiplied by the weights in one Burn `matmul`, so the arithmetic still runs in the
//! backend's tuned kernel (and its thread pool). Pooling, bias and ReLU are plain loops.
//! A test checks the scores agree with the Burn model's.

use burn::nn::PaddingConfig2d;
use burn::prelude::*;

use super::fused::FusedClassifier;

/// One 3x3 convolution (padding 1) with bias, weights as `[out, in * 9]`.
#[derive(Clone, Debug)]
struct Conv {
    weight: Tensor<2>,
    bias: Vec<f32>,
    inputs: usize,
    stride: usize,
}

/// The folded classifier, run one matrix product a convolution over the whole batch.
#[derive(Clone, Debug)]
pub struct BatchedClassifier {
    /// Per block: its convolutions; every block ends in 2x2 max pooling.
    blocks: Vec<Vec<Conv>>,
    /// Head weights `[in][classes]` and bias.
    head: (Vec<f32>, Vec<f32>),
    classes: usize,
}

fn values<const D: usize>(t: Tensor<D>) -> Option<Vec<f32>> {
    t.into_data().convert::<f32>().try_into_vec::<f32>().ok()
}

impl BatchedClassifier {
    /// Copies the folded model's weights; `None` if it holds something this code cannot run
    /// (a kernel other than 3x3 with padding 1, pooling other than 2x2).
    pub fn new(model: &FusedClassifier) -> Option<BatchedClassifier> {
        let mut blocks = Vec::new();
        for (convs, pool) in model.blocks() {
            if pool.kernel_size != [2, 2] || pool.stride != [2, 2] {
                return None;
            }
            let mut out = Vec::new();
            for conv in convs {
                let [o, i, kh, kw] = conv.weight.dims();
                let [sh, sw] = conv.stride;
                let padded = matches!(conv.padding, PaddingConfig2d::Explicit(1, 1, 1, 1));
                if [kh, kw] != [3, 3]
                    || sh != sw
                    || conv.dilation != [1, 1]
                    || conv.groups != 1
                    || !padded
                {
                    return None;
                }
                let bias = match &conv.bias {
                    Some(b) => values(b.val())?,
                    None => vec![0.0; o],
                };
                out.push(Conv {
                    weight: conv.weight.val().reshape([o, i * 9]),
                    bias,
                    inputs: i,
                    stride: sh,
                });
            }
            blocks.push(out);
        }
        let head = model.head();
        let [_, classes] = head.weight.dims();
        let bias = match &head.bias {
            Some(b) => values(b.val())?,
            None => vec![0.0; classes],
        };
        Some(BatchedClassifier {
            blocks,
            head: (values(head.weight.val())?, bias),
            classes,
        })
    }

    /// Class scores (logits) for `batch` crops of `size`x`size`, given channel-first per crop
    /// (`[batch][3][size][size]`, values 0..=1), as [`FusedClassifier::forward`]; `None` if
    /// the backend returned something other than f32 values.
    pub fn forward(&self, input: &[f32], batch: usize, size: usize) -> Option<Vec<f32>> {
        let features = self.features(input, batch, size)?;
        Some(self.scores(&features, batch))
    }

    /// The head's inputs (the last block's activations averaged over the crop), `[batch]
    /// [channels]`, for the same input as [`Self::forward`].
    pub fn features(&self, input: &[f32], batch: usize, size: usize) -> Option<Vec<f32>> {
        let channels = input.len() / (batch * size * size).max(1);
        // To [channels][batch][h][w], centred as the model expects.
        let plane = size * size;
        let mut x = vec![0f32; input.len()];
        for b in 0..batch {
            for c in 0..channels {
                let src = &input[(b * channels + c) * plane..][..plane];
                let dst = &mut x[(c * batch + b) * plane..][..plane];
                for (d, s) in dst.iter_mut().zip(src) {
                    *d = (s - 0.5) * 4.0;
                }
            }
        }
        let (mut h, mut w) = (size, size);
        for block in &self.blocks {
            let last = block.len().saturating_sub(1);
            for (k, conv) in block.iter().enumerate() {
                let (y, oh, ow) = conv.forward(&x, batch, h, w)?;
                x = y;
                (h, w) = (oh, ow);
                if k < last {
                    x.iter_mut().for_each(|v| *v = v.max(0.0));
                }
            }
            // Max pooling, then ReLU (they commute).
            let channels = x.len() / (batch * h * w).max(1);
            let (ph, pw) = (h / 2, w / 2);
            let mut pooled = vec![0f32; channels * batch * ph * pw];
            for cb in 0..channels * batch {
                let src = &x[cb * h * w..][..h * w];
                let dst = &mut pooled[cb * ph * pw..][..ph * pw];
                for py in 0..ph {
                    for px in 0..pw {
                        let (r0, r1) = (&src[2 * py * w..], &src[(2 * py + 1) * w..]);
                        let m = r0[2 * px]
                            .max(r0[2 * px + 1])
                            .max(r1[2 * px])
                            .max(r1[2 * px + 1]);
                        dst[py * pw + px] = m.max(0.0);
                    }
                }
            }
            x = pooled;
            (h, w) = (ph, pw);
        }
        // Global average, crop-major.
        let channels = x.len() / (batch * h * w).max(1);
        let mut out = vec![0f32; batch * channels];
        for b in 0..batch {
            for c in 0..channels {
                let area = &x[(c * batch + b) * h * w..][..h * w];
                out[b * channels + c] = area.iter().sum::<f32>() / (h * w).max(1) as f32;
            }
        }
        Some(out)
    }

    /// The linear head on [`Self::features`] of `batch` crops.
    pub fn scores(&self, features: &[f32], batch: usize) -> Vec<f32> {
        let channels = features.len() / batch.max(1);
        let (weight, bias) = &self.head;
        let mut out = vec![0f32; batch * self.classes];
        for b in 0..batch {
            let scores = &mut out[b * self.classes..][..self.classes];
            scores.copy_from_slice(bias);
            for (c, &mean) in features[b * channels..][..channels].iter().enumerate() {
                for (s, wt) in scores
                    .iter_mut()
                    .zip(&weight[c * self.classes..][..self.classes])
                {
                    *s += mean * wt;
                }
            }
        }
        out
    }
}

impl Conv {
    /// `x` is `[inputs][batch][h][w]`; returns `[outputs][batch][oh][ow]` and its size.
    fn forward(
        &self,
        x: &[f32],
        batch: usize,
        h: usize,
        w: usize,
    ) -> Option<(Vec<f32>, usize, usize)> {
        let s = self.stride;
        let (oh, ow) = ((h + 2 - 3) / s + 1, (w + 2 - 3) / s + 1);
        let n = batch * oh * ow;
        let k = self.inputs * 9;
        // im2col: row (c, ky, kx), column (b, oy, ox). Written once, in order (no zeroing
        // pass over the whole buffer: only the padding is written as zeros).
        let mut cols: Vec<f32> = Vec::with_capacity(k * n);
        for c in 0..self.inputs {
            for ky in 0..3 {
                for kx in 0..3 {
                    for b in 0..batch {
                        let img = &x[(c * batch + b) * h * w..][..h * w];
                        for oy in 0..oh {
                            let iy = (oy * s + ky) as isize - 1;
                            if iy < 0 || iy >= h as isize {
                                cols.extend(std::iter::repeat_n(0.0, ow));
                                continue;
                            }
                            let line = &img[iy as usize * w..][..w];
                            if s == 1 {
                                // Output x reads input x + kx - 1: one shifted copy.
                                match kx {
                                    0 => {
                                        cols.push(0.0);
                                        cols.extend_from_slice(&line[..w - 1]);
                                    }
                                    1 => cols.extend_from_slice(line),
                                    _ => {
                                        cols.extend_from_slice(&line[1..]);
                                        cols.push(0.0);
                                    }
                                }
                            } else {
                                cols.extend((0..ow).map(|ox| {
                                    let ix = (ox * s + kx) as isize - 1;
                                    if ix >= 0 && ix < w as isize {
                                        line[ix as usize]
                                    } else {
                                        0.0
                                    }
                                }));
                            }
                        }
                    }
                }
            }
        }
        debug_assert_eq!(cols.len(), k * n);
        // y[outputs x n] = weight[outputs x k] * cols[k x n]: one product for the batch.
        let device = self.weight.device();
        let cols = Tensor::<2>::from_data(TensorData::new(cols, [k, n]), &device);
        let mut y = values(self.weight.clone().matmul(cols))?;
        for (row, b) in y.chunks_mut(n).zip(&self.bias) {
            row.iter_mut().for_each(|v| *v += b);
        }
        Some((y, oh, ow))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classifier::seeded::seeded_module;
    use crate::classifier::{Backend, SquareClassifierConfig};

    #[test]
    fn matches_the_burn_model() {
        let device = Backend::Flex.device().unwrap();
        for (seed, (widths, convs, stride)) in [(vec![4, 8], 2, 2), (vec![6, 8, 12], 1, 1)]
            .into_iter()
            .enumerate()
        {
            let config = SquareClassifierConfig::new()
                .with_widths(widths)
                .with_convs_per_block(convs)
                .with_stem_stride(stride)
                .with_input_size(16);
            let model = seeded_module(&device, 9 + seed as u64, || config.init(&device));
            let fused = FusedClassifier::new(&model);
            let cpu = BatchedClassifier::new(&fused).expect("supported");
            let data: Vec<f32> = (0..5 * 3 * 16 * 16)
                .map(|i| ((i * 7919) % 256) as f32 / 255.0)
                .collect();
            let x = Tensor::<4>::from_data(TensorData::new(data.clone(), [5, 3, 16, 16]), &device);
            let want: Vec<f32> = fused.forward(x).into_data().try_into_vec().unwrap();
            let got = cpu.forward(&data, 5, 16).expect("f32 scores");
            assert_eq!(want.len(), got.len());
            let worst = want
                .iter()
                .zip(&got)
                .map(|(a, b)| (a - b).abs())
                .fold(0.0, f32::max);
            assert!(worst < 1e-4, "largest difference {worst}");
        }
    }
}
