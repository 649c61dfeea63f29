use super::*;
use crate::classifier::seeded::seeded_module;

/// A fresh directory under the system temp dir, removed on drop.
struct Scratch(PathBuf);

impl Scratch {
    fn new(tag: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!(
            "fenscan-board-context-{tag}-{}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A whole board read by a pretend model: kings on e1 and e8, a white rook on a1, the
/// rest empty; features are small distinct numbers.
fn board(features: usize, pieces: &[(usize, usize)]) -> Reading {
    let mut probs = vec![[0.01f32 / 12.0; 13]; 64];
    for p in probs.iter_mut() {
        p[0] = 0.99;
    }
    for &(square, class) in pieces {
        probs[square] = [0.02 / 12.0; 13];
        probs[square][class] = 0.98;
    }
    Reading {
        probs,
        features: (0..64 * features).map(|i| (i % 7) as f32 * 0.1).collect(),
        feature_len: features,
        read: vec![true; 64],
    }
}

fn position(features: usize) -> Reading {
    board(features, &[(4, 6), (60, 12), (0, 4)])
}

fn context(scope: CorrectionScope, seed: u64) -> BoardContext {
    let device = Device::flex();
    let mut config = BoardContextConfig::new(4).with_hidden(8).with_scope(scope);
    let len = config.input_len();
    config.input_mean = vec![0.1; len];
    config.input_scale = vec![0.5; len];
    let net = seeded_module(&device, seed, || config.init(&device));
    BoardContext::new(config, vec![net], device)
}

/// `context` with its zero output layer replaced by random weights.
fn randomised(context: BoardContext, seed: u64) -> BoardContext {
    let device = context.device().clone();
    let config = context.config().clone();
    let net = seeded_module(&device, seed, || {
        let mut net = config.init(&device);
        net.out = LinearConfig::new(config.hidden, config.scope.outputs()).init(&device);
        net
    });
    BoardContext::new(config, vec![net], device)
}

fn largest_change(a: &[[f32; 13]], b: &[[f32; 13]]) -> f32 {
    a.iter()
        .flatten()
        .zip(b.iter().flatten())
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f32::max)
}

#[test]
fn an_unfitted_correction_changes_nothing() {
    for scope in [CorrectionScope::Full, CorrectionScope::Colour] {
        let reading = position(4);
        let fixed = context(scope, 1).apply(&reading);
        assert!(largest_change(&fixed, &reading.probs) < 1e-5, "{scope:?}");
    }
}

#[test]
fn a_fitted_correction_changes_positions_but_not_odd_boards() {
    let context = randomised(context(CorrectionScope::Full, 2), 3);
    let reading = position(4);
    assert!(largest_change(&context.apply(&reading), &reading.probs) > 1e-3);
    // A gallery of white queens, a board without kings, a wrong feature width.
    let gallery = board(4, &(0..40).map(|s| (s, 5)).collect::<Vec<_>>());
    let lone_knight = board(4, &[(27, 2)]);
    for odd in [gallery, lone_knight, position(5)] {
        assert_eq!(context.apply(&odd), odd.probs);
    }
}

#[test]
fn boards_that_read_like_positions() {
    let probs = |pieces: &[(usize, usize)]| board(1, pieces).probs;
    assert!(reads_like_a_position(&probs(&[(4, 6), (60, 12)])));
    // A king read in the wrong colour still counts: it is what the correction fixes.
    assert!(reads_like_a_position(&probs(&[(4, 12), (60, 12)])));
    assert!(!reads_like_a_position(&probs(&[])));
    assert!(!reads_like_a_position(&probs(&[
        (4, 6),
        (5, 6),
        (6, 6),
        (60, 12)
    ])));
    let crowd: Vec<(usize, usize)> = (0..19).map(|s| (s, 1)).chain([(60, 12), (40, 6)]).collect();
    assert!(!reads_like_a_position(&probs(&crowd)));
}

#[test]
fn the_colour_scope_keeps_empty_squares_and_piece_kinds() {
    let context = randomised(context(CorrectionScope::Colour, 4), 5);
    let mut reading = position(4);
    // An unsure square: knight or bishop, either colour, or empty.
    reading.probs[20] = [
        0.2, 0.0, 0.3, 0.1, 0.0, 0.0, 0.0, 0.0, 0.1, 0.3, 0.0, 0.0, 0.0,
    ];
    let fixed = context.apply(&reading);
    assert!(largest_change(&fixed, &reading.probs) > 1e-3);
    for (before, after) in reading.probs.iter().zip(&fixed) {
        assert!((before[0] - after[0]).abs() < 1e-4);
        for kind in 1..7 {
            let pair = |p: &[f32; 13]| p[kind] + p[kind + 6];
            assert!((pair(before) - pair(after)).abs() < 1e-4, "kind {kind}");
        }
    }
}

#[test]
fn saved_and_loaded_it_corrects_the_same() {
    let dir = Scratch::new("saved");
    let context = randomised(context(CorrectionScope::Full, 6), 7);
    context.save(dir.path()).unwrap();
    let loaded = BoardContext::load(dir.path(), &Device::flex())
        .unwrap()
        .expect("saved files");
    assert_eq!(loaded.config(), context.config());
    let reading = position(4);
    assert!(largest_change(&loaded.apply(&reading), &context.apply(&reading)) < 1e-6);
    assert!(
        BoardContext::load(&dir.path().join("none"), &Device::flex())
            .unwrap()
            .is_none()
    );
}

/// One correction of `nets`' members.
fn members(nets: &[BoardContextNet]) -> BoardContext {
    let one = context(CorrectionScope::Full, 20);
    BoardContext::new(one.config().clone(), nets.to_vec(), one.device().clone())
}

#[test]
fn members_average_their_corrections_and_survive_a_save() {
    let nets: Vec<BoardContextNet> = [21, 22]
        .iter()
        .map(|&s| randomised(context(CorrectionScope::Full, s), s + 100).nets()[0].clone())
        .collect();
    let both = members(&nets);
    assert_eq!(both.config().members, 2);
    let input = |c: &BoardContext| {
        let len = c.config().input_len();
        let v: Vec<f32> = (0..3 * len)
            .map(|i| ((i % 11) as f32 - 5.0) / 3.0)
            .collect();
        Tensor::<2>::from_data(TensorData::new(v, [3, len]), c.device())
    };
    let out = |c: &BoardContext| {
        c.correction(input(c))
            .into_data()
            .try_to_vec::<f32>()
            .unwrap()
    };
    let mean = out(&both);
    let (a, b) = (out(&members(&nets[..1])), out(&members(&nets[1..])));
    for ((m, x), y) in mean.iter().zip(&a).zip(&b) {
        assert!((m - (x + y) / 2.0).abs() < 1e-5);
    }
    assert!(a.iter().zip(&b).any(|(x, y)| (x - y).abs() > 1e-3));
    let dir = Scratch::new("members");
    both.save(dir.path()).unwrap();
    let loaded = BoardContext::load(dir.path(), &Device::flex())
        .unwrap()
        .unwrap();
    assert_eq!(loaded.config(), both.config());
    let reading = position(4);
    assert!(largest_change(&loaded.apply(&reading), &both.apply(&reading)) < 1e-6);
    // Weights of two members under a config that says three.
    let path = dir.path().join(BOARD_CONTEXT_CONFIG);
    let mut config = both.config().clone();
    config.members = 3;
    std::fs::write(&path, serde_json::to_string(&config).unwrap()).unwrap();
    let err = BoardContext::load(dir.path(), &Device::flex()).unwrap_err();
    assert!(matches!(err, CheckpointError::Weights { .. }), "{err}");
}

#[test]
fn settings_added_later_default_to_their_old_meaning() {
    let dir = Scratch::new("older");
    let context = randomised(context(CorrectionScope::Full, 10), 11);
    context.save(dir.path()).unwrap();
    let path = dir.path().join(BOARD_CONTEXT_CONFIG);
    let mut value: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let fields = value.as_object_mut().unwrap();
    fields.remove("scope");
    fields.remove("look_alikes");
    fields.remove("members");
    std::fs::write(&path, value.to_string()).unwrap();
    let loaded = BoardContext::load(dir.path(), &Device::flex())
        .unwrap()
        .unwrap();
    assert_eq!(loaded.config(), context.config());
}

#[test]
fn damaged_files_are_clear_errors() {
    let dir = Scratch::new("damaged");
    randomised(context(CorrectionScope::Full, 8), 9)
        .save(dir.path())
        .unwrap();
    let weights = dir.path().join(BOARD_CONTEXT_WEIGHTS);
    let bytes = std::fs::read(&weights).unwrap();
    std::fs::write(&weights, &bytes[..bytes.len() / 2]).unwrap();
    let err = BoardContext::load(dir.path(), &Device::flex()).unwrap_err();
    assert!(matches!(err, CheckpointError::Weights { .. }), "{err}");
    let config = dir.path().join(BOARD_CONTEXT_CONFIG);
    let no_statistics = r#"{"format_version": 1, "features": 4, "hidden": 8,
        "scope": "full", "input_mean": [], "input_scale": []}"#;
    std::fs::write(&config, no_statistics).unwrap();
    let err = BoardContext::load(dir.path(), &Device::flex()).unwrap_err();
    assert!(err.to_string().contains("input statistics"), "{err}");
    std::fs::write(&config, "not json").unwrap();
    let err = BoardContext::load(dir.path(), &Device::flex()).unwrap_err();
    assert!(matches!(err, CheckpointError::BadConfig { .. }), "{err}");
}
