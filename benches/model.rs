//! Classifier speed per model size: inference for the 64 squares of one board (1 and all
//! threads) and training throughput, on the chosen backend (flex by default).
//!
//! `cargo bench --bench model [-- ndarray]`

use std::time::Instant;

use burn::module::Module;
use burn::nn::loss::CrossEntropyLossConfig;
use burn::optim::{AdamConfig, GradientsParams};
use burn::prelude::*;
use fenscan::classifier::batched::BatchedClassifier;
use fenscan::classifier::{Backend, FusedClassifier, SquareClassifierConfig};

fn main() {
    let backend: Backend = std::env::args()
        .nth(1)
        .filter(|a| !a.starts_with('-'))
        .and_then(|a| a.parse().ok())
        .unwrap_or_default();
    let device = backend.device().expect("backend available");
    println!(
        "| backend | widths | convs/block | input | params | 64-square inference | folded | batched (infer) | training |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    for (widths, convs, input) in [
        (vec![16, 32, 64], 1, 32),
        (vec![16, 32, 64], 2, 32),
        (vec![24, 48, 96], 2, 32),
        (vec![32, 64, 128], 1, 32),
        (vec![32, 64, 128], 2, 32),
    ] {
        let cfg = SquareClassifierConfig::new()
            .with_widths(widths.clone())
            .with_input_size(input)
            .with_convs_per_block(convs);
        let model = cfg.init(&device);
        let params = model.num_params();
        let x = Tensor::<4>::random(
            [64, 3, input, input],
            burn::tensor::Distribution::Default,
            &device,
        );
        for _ in 0..3 {
            let _ = model.forward(x.clone()).into_data();
        }
        let n = 30;
        let t = Instant::now();
        for _ in 0..n {
            let _ = model.forward(x.clone()).into_data();
        }
        let infer_ms = t.elapsed().as_secs_f64() * 1000.0 / n as f64;
        // What infer runs: the same model with its batch norms folded in.
        let fused = FusedClassifier::new(&model);
        for _ in 0..3 {
            let _ = fused.forward(x.clone()).into_data();
        }
        let t = Instant::now();
        for _ in 0..n {
            let _ = fused.forward(x.clone()).into_data();
        }
        let fused_ms = t.elapsed().as_secs_f64() * 1000.0 / n as f64;
        // What infer runs on burn-flex: the folded model, one im2col and one matmul a layer.
        let cpu = BatchedClassifier::new(&fused).expect("supported architecture");
        let data: Vec<f32> = x.clone().into_data().try_into_vec().expect("f32 input");
        for _ in 0..3 {
            let _ = cpu.forward(&data, 64, input).expect("f32 scores");
        }
        let t = Instant::now();
        for _ in 0..n {
            let _ = cpu.forward(&data, 64, input).expect("f32 scores");
        }
        let cpu_ms = t.elapsed().as_secs_f64() * 1000.0 / n as f64;

        let ad = device.clone().autodiff();
        let mut m = cfg.init(&ad);
        let mut optim = AdamConfig::new().init();
        let loss_fn = CrossEntropyLossConfig::new().init(&ad);
        let batch = 128;
        let xb = Tensor::<4>::random(
            [batch, 3, input, input],
            burn::tensor::Distribution::Default,
            &ad,
        );
        let yb = Tensor::<1, Int>::from_data(
            TensorData::new(
                (0..batch as i64).map(|i| i % 13).collect::<Vec<_>>(),
                [batch],
            ),
            &ad,
        );
        let steps = if backend == Backend::Ndarray { 2 } else { 10 };
        let t = Instant::now();
        for _ in 0..steps {
            let loss = loss_fn.forward(m.forward(xb.clone()), yb.clone());
            let grads = GradientsParams::from_grads(loss.backward(), &m);
            m = optim.step(1e-3, m, grads);
        }
        let sps = (steps * batch) as f64 / t.elapsed().as_secs_f64();
        println!(
            "| {backend} | {widths:?} | {convs} | {input} | {params} | {infer_ms:.1} ms | {fused_ms:.1} ms | {cpu_ms:.1} ms | {sps:.0} crops/s |"
        );
    }
}
