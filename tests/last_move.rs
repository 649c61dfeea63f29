//! The last move an app highlights: synth draws and labels it, the pipeline names it and
//! takes the side to move (and an en-passant square) from it when asked, `infer` says what
//! it saw, and `infer eval` counts it.

use fenscan::fen::check::in_check;
use fenscan::recognize::{EpChoice, FieldSource, RecognizeOptions, TurnChoice};
use fenscan::render::SynthConfig;
use shakmaty::Color;

use crate::util::{
    TempDir, assert_exit, own_set_renderer, run_bin, screenshot_degradations, shipped,
};

/// Flat screenshots, white below, with a played move on every board (`played_move`) or
/// on none; no other highlighted squares.
fn screenshots(played_move: f64) -> SynthConfig {
    let mut cfg = SynthConfig {
        degrade: screenshot_degradations(),
        ..SynthConfig::default()
    };
    cfg.scene.min_board = 240;
    cfg.scene.rotation.probability = 0.0;
    cfg.scene.perspective.probability = 0.0;
    cfg.look.black_bottom = 0.0;
    cfg.look.book_theme = 0.0;
    cfg.overlays.last_move = 0.0;
    cfg.overlays.marks = 0.0;
    cfg.overlays.played_move = played_move;
    cfg
}

fn from_the_picture() -> RecognizeOptions {
    let mut opts = RecognizeOptions {
        orientation: Some(fenscan::render::Orientation::White),
        ..RecognizeOptions::default()
    };
    opts.fields.turn = TurnChoice::FromLastMove;
    opts.fields.ep = EpChoice::FromLastMove;
    opts
}

#[test]
fn a_highlighted_move_gives_the_side_to_move() {
    let renderer = own_set_renderer(screenshots(1.0));
    let rec = shipped();
    let opts = from_the_picture();
    let (mut shown_on, mut named) = (0, 0);
    let mut report = Vec::new();
    for i in 0..10 {
        let r = renderer.render(39, i);
        // Printed themes never get one (apps highlight moves, books do not).
        let Some(shown) = r.last_move else {
            assert!(!r.overlays.iter().any(|o| o == "played_move"));
            continue;
        };
        shown_on += 1;
        let got = rec.recognize(&r.image, &opts).unwrap();
        match got.last_move {
            Some(m) if m.squares() == shown => {
                named += 1;
                assert_eq!(got.turn_from, FieldSource::LastMove);
                assert_eq!(got.fen.turn, !m.mover());
                assert_eq!(m.piece, r.placement.get(shown.to).piece().unwrap());
                assert_eq!(got.ep_from, FieldSource::LastMove);
            }
            other => report.push(format!("{i}: {shown} shown, {other:?} named")),
        }
    }
    assert!(shown_on >= 6, "{shown_on} of 10 boards show a move");
    assert!(
        named + 1 >= shown_on,
        "{named}/{shown_on} named:\n{}",
        report.join("\n")
    );
}

#[test]
fn no_highlight_no_move_and_the_default_side() {
    let renderer = own_set_renderer(screenshots(0.0));
    let rec = shipped();
    let opts = from_the_picture();
    for i in 0..4 {
        let r = renderer.render(39, i);
        assert_eq!(r.last_move, None);
        let got = rec.recognize(&r.image, &opts).unwrap();
        assert_eq!(got.last_move, None, "board {i}");
        // No move shown: the side in check when one is, else white.
        let checked = |side| in_check(&got.placement, side) == Some(true);
        let expected = match (checked(Color::White), checked(Color::Black)) {
            (true, false) => (Color::White, FieldSource::Check),
            (false, true) => (Color::Black, FieldSource::Check),
            _ => (Color::White, FieldSource::Default),
        };
        assert_eq!((got.fen.turn, got.turn_from), expected, "board {i}");
        assert_eq!(
            (got.fen.ep_square, got.ep_from),
            (None, FieldSource::Default)
        );
    }
    // The user's side is kept whatever the picture shows.
    let shown = own_set_renderer(screenshots(1.0)).render(39, 0);
    let mut given = from_the_picture();
    given.fields.turn = TurnChoice::Given(Color::White);
    let got = rec.recognize(&shown.image, &given).unwrap();
    assert_eq!(
        (got.fen.turn, got.turn_from),
        (Color::White, FieldSource::Given)
    );
}

#[test]
fn labels_carry_the_move_and_eval_counts_it() {
    let t = TempDir::new("moves");
    let config = t.0.join("moves.json");
    std::fs::write(
        &config,
        r#"{"overlays": {"played_move": 1.0, "last_move": 0.0, "marks": 0.0}, "look": {"black_bottom": 0.0, "book_theme": 0.0, "random_theme": 1.0},
 "scene": {"min_board": 240, "rotation": {"probability": 0.0, "strength": 0.0}, "perspective": {"probability": 0.0, "strength": 0.0}}}"#,
    )
    .unwrap();
    let set = t.0.join("set");
    let builtin = fenscan::render::pieces::builtin_dir();
    let out = run_bin(
        "synth",
        &[
            "boards",
            "--count",
            "3",
            "--seed",
            "5",
            "--config",
            config.to_str().unwrap(),
            "--pieces",
            builtin.to_str().unwrap(),
            "--out",
            set.to_str().unwrap(),
        ],
    );
    assert_exit(&out, 0);
    let labels = std::fs::read_to_string(set.join("labels.jsonl")).unwrap();
    let moves: Vec<String> = labels
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            v["last_move"]
                .as_str()
                .expect("a labelled move")
                .to_string()
        })
        .collect();
    assert_eq!(moves.len(), 3);
    // The CLI: the move and the side it gives, on stderr; the side in the FEN with auto.
    let first = set.join("images/0000000.png");
    let out = run_bin(
        "infer",
        &[
            "--to-move",
            "auto",
            "--orientation",
            "white",
            first.to_str().unwrap(),
        ],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("last move {}", moves[0])),
        "{stderr}"
    );
    let fen = String::from_utf8_lossy(&out.stdout);
    let to_move = if stderr.contains(": white to move") {
        " w "
    } else {
        " b "
    };
    assert!(fen.contains(to_move), "{fen} / {stderr}");
    assert_exit(
        &run_bin("infer", &["--to-move", "x", first.to_str().unwrap()]),
        2,
    );
    // eval: every move named right.
    let report = t.0.join("r");
    let out = run_bin(
        "infer",
        &[
            "eval",
            set.to_str().unwrap(),
            "--orientation",
            "white",
            "--report",
            report.to_str().unwrap(),
        ],
    );
    assert_exit(&out, 0);
    let md = std::fs::read_to_string(t.0.join("r.md")).unwrap();
    assert!(
        md.contains("highlighted last move: 3; named right on 3"),
        "{md}"
    );
}
