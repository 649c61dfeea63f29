//! Checkpoints: the shipped one fits the current architecture; bad ones give clear errors;
//! save then load gives the same outputs.

use std::path::Path;

use burn::prelude::*;
use fenscan::classifier::checkpoint::{
    FORMAT_VERSION, ModelSpec, SECOND_MODEL_DIR, SECOND_OPINION_FILE, SecondOpinion, load_model,
    save_model,
};
use fenscan::classifier::model::SquareClassifier;
use fenscan::classifier::seeded::seeded_module;
use fenscan::classifier::{Backend, CheckpointError, Classifier, SquareClassifierConfig};
use fenscan::squares::CropConfig;

use crate::util::{TempDir, assert_exit, run_bin};

fn tiny_spec() -> ModelSpec {
    ModelSpec {
        format_version: FORMAT_VERSION,
        model: SquareClassifierConfig::new()
            .with_widths(vec![4, 8])
            .with_input_size(16),
        crop: CropConfig {
            size: 16,
            context: 0.125,
        },
    }
}

/// A freshly initialised model of `spec`, its weights drawn from `seed`.
fn fresh_model(spec: &ModelSpec, seed: u64) -> SquareClassifier {
    let device = Backend::Flex.device().unwrap();
    seeded_module(&device, seed, || spec.model.init(&device))
}

#[test]
fn builtin_checkpoint_is_the_shipped_one() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("checkpoints/default");
    let disk = Classifier::load(&dir, Backend::Flex).unwrap();
    let builtin = Classifier::builtin(Backend::Flex).expect("the built-in checkpoint loads");
    assert_eq!(builtin.spec(), disk.spec());
    assert_eq!(builtin.second_opinion(), disk.second_opinion());
    // Noisy crops, so that both models are asked (a plain crop is empty without a model).
    let n = disk.crop().size;
    let crops: Vec<image::RgbImage> = (0..8u32)
        .map(|k| {
            image::RgbImage::from_fn(n, n, |x, y| {
                let v = ((x * 37 + y * 91 + k * 53) % 251) as u8;
                image::Rgb([v, v.wrapping_mul(3), 255 - v])
            })
        })
        .collect();
    assert_eq!(builtin.probabilities(&crops), disk.probabilities(&crops));
    // The same board-context correction: settings and what its network makes of an input.
    let (b, d) = (
        builtin.board_context().expect("built-in board context"),
        disk.board_context().expect("shipped board context"),
    );
    assert_eq!(b.config(), d.config());
    let len = d.config().input_len();
    let x = |c: &fenscan::classifier::board_context::BoardContext| {
        let input: Vec<f32> = (0..2 * len)
            .map(|i| ((i % 17) as f32 - 8.0) / 4.0)
            .collect();
        let x = burn::prelude::Tensor::<2>::from_data(
            burn::prelude::TensorData::new(input, [2, len]),
            c.device(),
        );
        c.correction(x).into_data().try_to_vec::<f32>().unwrap()
    };
    assert_eq!(x(b), x(d));
}

#[test]
fn shipped_checkpoint_loads() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("checkpoints/default");
    let c = Classifier::load(&dir, Backend::Flex)
        .expect("checkpoints/default decodes into the current architecture");
    // The whole checkpoint (both models' weights, cards, logs) within 4 MB.
    fn bytes_under(dir: &Path) -> u64 {
        std::fs::read_dir(dir)
            .unwrap()
            .map(|e| {
                let p = e.unwrap().path();
                if p.is_dir() {
                    bytes_under(&p)
                } else {
                    std::fs::metadata(&p).unwrap().len()
                }
            })
            .sum()
    }
    assert!(
        bytes_under(&dir) <= 4 * 1024 * 1024,
        "shipped checkpoint over 4 MB"
    );
    assert!(
        c.second_opinion().is_some(),
        "the shipped second model is loaded"
    );
    assert!(dir.join("card.json").is_file());
    let crops = vec![image::RgbImage::new(c.crop().size, c.crop().size); 2];
    let p = c.probabilities(&crops);
    assert_eq!(p.len(), 2);
    assert!((p[0].iter().sum::<f32>() - 1.0).abs() < 1e-3);
}

#[test]
fn save_then_load_gives_identical_outputs() {
    let t = TempDir::new("ckpt");
    let device = Backend::Flex.device().unwrap();
    let spec = tiny_spec();
    let model = fresh_model(&spec, 3);
    save_model(&t.0, &spec, &model).unwrap();
    let (spec2, loaded) = load_model(&t.0, &device).unwrap();
    assert_eq!(spec2, spec);
    let x: Vec<f32> = (0..3 * 3 * 16 * 16)
        .map(|i| (i % 29) as f32 / 29.0)
        .collect();
    let x = Tensor::<4>::from_data(burn::prelude::TensorData::new(x, [3, 3, 16, 16]), &device);
    let a: Vec<f32> = model.forward(x.clone()).into_data().try_into_vec().unwrap();
    let b: Vec<f32> = loaded.forward(x).into_data().try_into_vec().unwrap();
    assert_eq!(a, b);
}

#[test]
fn bad_checkpoints_are_clear_errors() {
    let t = TempDir::new("badckpt");
    let device = Backend::Flex.device().unwrap();
    // missing folder
    assert!(matches!(
        load_model(&t.join("nope"), &device),
        Err(CheckpointError::Missing { .. })
    ));
    // corrupt weights
    let spec = tiny_spec();
    let model = fresh_model(&spec, 11);
    save_model(&t.0, &spec, &model).unwrap();
    std::fs::write(t.join("model.bpk"), b"this is not a burnpack file at all").unwrap();
    assert!(matches!(
        load_model(&t.0, &device),
        Err(CheckpointError::Weights { .. })
    ));
    // weights of another architecture
    let other = TempDir::new("badckpt2");
    let spec_big = ModelSpec {
        model: spec.model.clone().with_widths(vec![8, 16]),
        ..spec.clone()
    };
    save_model(&other.0, &spec_big, &fresh_model(&spec_big, 12)).unwrap();
    std::fs::copy(other.join("model.bpk"), t.join("model.bpk")).unwrap();
    assert!(matches!(
        load_model(&t.0, &device),
        Err(CheckpointError::Weights { .. })
    ));
    // a crop context out of range (a square's middle would fall outside its crop)
    let good = std::fs::read_to_string(t.join("config.json")).unwrap();
    let mut bent: serde_json::Value = serde_json::from_str(&good).unwrap();
    bent["crop"]["context"] = serde_json::json!(-0.45);
    std::fs::write(t.join("config.json"), bent.to_string()).unwrap();
    let err = load_model(&t.0, &device).err().unwrap();
    assert!(
        matches!(&err, CheckpointError::BadConfig { reason, .. } if reason.contains("crop.context")),
        "{err}"
    );
    std::fs::write(t.join("config.json"), good).unwrap();
    // wrong version
    let text = std::fs::read_to_string(t.join("config.json"))
        .unwrap()
        .replace(
            &format!("\"format_version\": {FORMAT_VERSION}"),
            "\"format_version\": 999",
        );
    std::fs::write(t.join("config.json"), text).unwrap();
    let err = load_model(&t.0, &device).err().unwrap();
    assert!(
        matches!(err, CheckpointError::Version { found: 999, .. }),
        "{err}"
    );
    // and through the binary: exit 2 with the reason
    let img = t.join("x.png");
    image::RgbImage::new(64, 64).save(&img).unwrap();
    let out = run_bin(
        "infer",
        &["--checkpoint", t.0.to_str().unwrap(), img.to_str().unwrap()],
    );
    assert_exit(&out, 2);
    assert!(String::from_utf8_lossy(&out.stderr).contains("format version 999"));
}

/// A checkpoint folder with a tiny first model and, in `second/`, another tiny model.
fn cascade_checkpoint(t: &TempDir, opinion: &str) {
    let spec = tiny_spec();
    save_model(&t.0, &spec, &fresh_model(&spec, 13)).unwrap();
    let second = ModelSpec {
        model: spec.model.clone().with_widths(vec![8, 8]),
        ..spec.clone()
    };
    save_model(
        &t.join(SECOND_MODEL_DIR),
        &second,
        &fresh_model(&second, 14),
    )
    .unwrap();
    std::fs::write(t.join(SECOND_OPINION_FILE), opinion).unwrap();
}

#[test]
fn second_model_rereads_only_the_unsure_squares() {
    let t = TempDir::new("cascade");
    cascade_checkpoint(&t, r#"{"format_version": 1, "below": 1.0, "weight": 1.0}"#);
    let both = Classifier::load(&t.0, Backend::Flex).unwrap();
    assert_eq!(
        both.second_opinion(),
        Some(SecondOpinion {
            format_version: 1,
            below: 1.0,
            weight: 1.0
        })
    );
    let first = Classifier::load(&t.0, Backend::Flex)
        .unwrap()
        .without_second();
    let second = Classifier::load(&t.join(SECOND_MODEL_DIR), Backend::Flex).unwrap();
    let crops: Vec<image::RgbImage> = (0..5)
        .map(|i| {
            image::RgbImage::from_fn(16, 16, |x, y| {
                image::Rgb([(x * 9 + i * 40) as u8, (y * 7) as u8, 90])
            })
        })
        .collect();
    let close = |a: &[[f32; 13]], b: &[[f32; 13]]| {
        a.iter()
            .flatten()
            .zip(b.iter().flatten())
            .all(|(x, y)| (x - y).abs() < 1e-5)
    };
    // Every square is below 1.0 and the second model's word replaces the first's.
    assert!(close(
        &both.probabilities(&crops),
        &second.probabilities(&crops)
    ));
    assert!(!close(
        &first.probabilities(&crops),
        &second.probabilities(&crops)
    ));
    // Below 0 nothing is re-read: the first model's probabilities stand.
    let opinion = t.join(SECOND_OPINION_FILE);
    std::fs::write(
        &opinion,
        r#"{"format_version": 1, "below": 0.0, "weight": 1.0}"#,
    )
    .unwrap();
    let none = Classifier::load(&t.0, Backend::Flex).unwrap();
    assert!(close(
        &none.probabilities(&crops),
        &first.probabilities(&crops)
    ));
    // A blend: half of each.
    std::fs::write(
        &opinion,
        r#"{"format_version": 1, "below": 1.0, "weight": 0.5}"#,
    )
    .unwrap();
    let half = Classifier::load(&t.0, Backend::Flex).unwrap();
    let (p, a, b) = (
        half.probabilities(&crops),
        first.probabilities(&crops),
        second.probabilities(&crops),
    );
    assert!((0..5).all(|i| (0..13).all(|k| (p[i][k] - (a[i][k] + b[i][k]) / 2.0).abs() < 1e-5)));
}

#[test]
fn bad_second_opinions_are_clear_errors() {
    let t = TempDir::new("badcascade");
    cascade_checkpoint(&t, r#"{"format_version": 1, "below": 1.5, "weight": 1.0}"#);
    let err = Classifier::load(&t.0, Backend::Flex).err().unwrap();
    assert!(matches!(err, CheckpointError::BadConfig { .. }), "{err}");
    cascade_checkpoint(&t, r#"{"format_version": 1, "below": 0.9}"#);
    assert!(Classifier::load(&t.0, Backend::Flex).is_err());
    // The second model must cut squares like the first.
    cascade_checkpoint(&t, r#"{"format_version": 1, "below": 0.9, "weight": 1.0}"#);
    let other = ModelSpec {
        model: tiny_spec().model.with_input_size(24),
        crop: CropConfig {
            size: 24,
            context: 0.125,
        },
        ..tiny_spec()
    };
    save_model(&t.join(SECOND_MODEL_DIR), &other, &fresh_model(&other, 15)).unwrap();
    let err = Classifier::load(&t.0, Backend::Flex).err().unwrap();
    assert!(err.to_string().contains("same crop"), "{err}");
    // A missing second model names what is missing.
    std::fs::remove_dir_all(t.join(SECOND_MODEL_DIR)).unwrap();
    let err = Classifier::load(&t.0, Backend::Flex).err().unwrap();
    assert!(matches!(err, CheckpointError::Missing { .. }), "{err}");
}
