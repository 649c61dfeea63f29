//! Classifier speed per model size: inference for the 64 squares of one board (1 and all
//! threads) and training throughput, on the chosen backend (flex by default); then the
//! shipped checkpoint (with its second model, if any) on the squares of rendered boards.
//!
//! `cargo bench --bench model [-- ndarray]`

use std::time::Instant;

use burn::module::Module;
use burn::nn::loss::CrossEntropyLossConfig;
use burn::optim::{AdamConfig, GradientsParams};
use burn::prelude::*;
use fenscan::classifier::batched::BatchedClassifier;
use fenscan::classifier::{
    Backend, Classifier, FusedClassifier, SquareClassifierConfig, top_probability,
};
use fenscan::render::{PieceSet, Renderer, SynthConfig, pieces::builtin_dir};
use fenscan::squares::cut;

fn main() {
    let backend: Backend = std::env::args()
        .nth(1)
        .filter(|a| !a.starts_with('-'))
        .and_then(|a| a.parse().ok())
        .unwrap_or_default();
    let device = backend.device().expect("backend available");
    println!(
        "| backend | widths | convs/block | input | stem stride | params | 64-square inference | folded | batched (infer) | training |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for (widths, convs, input, stride) in [
        (vec![16, 32, 64], 1, 32, 2),
        (vec![16, 32, 64], 2, 32, 2),
        (vec![24, 48, 96], 2, 32, 2),
        (vec![32, 64, 128], 1, 32, 2),
        (vec![32, 64, 128], 2, 32, 2),
        // The stem at full resolution: the same weights see twice the detail.
        (vec![16, 32, 64], 2, 32, 1),
    ] {
        let cfg = SquareClassifierConfig::new()
            .with_widths(widths.clone())
            .with_input_size(input)
            .with_convs_per_block(convs)
            .with_stem_stride(stride);
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
            "| {backend} | {widths:?} | {convs} | {input} | {stride} | {params} | {infer_ms:.1} ms | {fused_ms:.1} ms | {cpu_ms:.1} ms | {sps:.0} crops/s |"
        );
    }
    shipped(backend);
}

/// The shipped checkpoint as infer runs it, on the 64 squares of each of 24 rendered boards
/// (default synth mix, the project's piece set): mean time per board, and how many squares
/// a board its second model re-reads.
fn shipped(backend: Backend) {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("checkpoints/default");
    let classifier = Classifier::load(&dir, backend).expect("shipped checkpoint");
    let renderer = Renderer::new(
        vec![PieceSet::load(&builtin_dir()).expect("pieces")],
        SynthConfig::default(),
    )
    .expect("config");
    let boards: Vec<Vec<image::RgbImage>> = (0..24)
        .map(|i| {
            let r = renderer.render(11, i);
            cut(&r.image, &r.quad, classifier.crop()).expect("rendered quads cut")
        })
        .collect();
    let reread = classifier.second_opinion().map(|o| {
        let first = Classifier::load(&dir, backend)
            .expect("shipped")
            .without_second();
        let unsure: usize = boards
            .iter()
            .flat_map(|b| first.probabilities(b))
            .filter(|p| top_probability(p) < o.below)
            .count();
        unsure as f64 / boards.len() as f64
    });
    let time = |c: &Classifier| {
        for b in &boards[..3] {
            let _ = c.probabilities(b);
        }
        let t = Instant::now();
        for _ in 0..3 {
            for b in &boards {
                let _ = c.probabilities(b);
            }
        }
        t.elapsed().as_secs_f64() * 1000.0 / (3 * boards.len()) as f64
    };
    let ms = time(&classifier);
    let first_ms = time(
        &Classifier::load(&dir, backend)
            .expect("shipped")
            .without_second(),
    );
    println!();
    println!(
        "shipped checkpoint ({backend}), 64 squares of a rendered board: {ms:.1} ms (first model alone {first_ms:.1} ms); second model: {}",
        match reread {
            Some(n) => format!("re-reads {n:.1} squares a board"),
            None => "none".into(),
        }
    );
}
