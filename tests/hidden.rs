//! A dialog drawn over the board (synth's `overlays.dialog`): the squares beneath are
//! reported as hidden and unsure, so no square is silently wrong; `infer` says so.

use fenscan::SquareClass;
use fenscan::recognize::{Constraints, RecognizeOptions};
use fenscan::render::SynthConfig;

use crate::util::{TempDir, own_set_renderer, run_bin, screenshot_degradations, shipped};

/// Flat screenshots, white below, each with a dialog over its board.
fn with_dialogs() -> SynthConfig {
    let mut cfg = SynthConfig {
        degrade: screenshot_degradations(),
        ..SynthConfig::default()
    };
    cfg.scene.min_board = 320;
    cfg.scene.max_board = 480;
    cfg.scene.rotation.probability = 0.0;
    cfg.scene.perspective.probability = 0.0;
    cfg.look.black_bottom = 0.0;
    cfg.overlays.dialog = 1.0;
    cfg
}

#[test]
fn squares_under_a_dialog_are_reported_hidden() {
    let renderer = own_set_renderer(with_dialogs());
    let rec = shipped();
    let opts = RecognizeOptions {
        orientation: Some(fenscan::render::Orientation::White),
        ..RecognizeOptions::default()
    };
    let mut report = Vec::new();
    let mut silent = 0;
    for i in 0..6 {
        let r = renderer.render(61, i);
        assert!(r.overlays.iter().any(|o| o == "dialog"), "image {i}");
        let Ok(got) = rec.recognize(&r.image, &opts) else {
            report.push(format!("{i}: no board"));
            continue;
        };
        assert!(got.hidden.len() >= 4, "image {i}: hidden {:?}", got.hidden);
        assert_eq!(got.constraints, Constraints::PartlyHidden, "image {i}");
        for s in &got.hidden {
            assert!(
                got.uncertain.iter().any(|u| u.square == *s),
                "image {i}: {s}"
            );
            // Given as empty unless a man is read there surely.
            let reading = got.squares.iter().find(|r| r.square == *s).unwrap();
            if reading.top[0].probability < 0.9 {
                assert_eq!(got.placement.get(*s), SquareClass::Empty, "image {i}: {s}");
            }
        }
        // The men beneath read as empty squares: each such mistake is reported.
        for (k, (want, read)) in r.placement.0.iter().zip(&got.placement.0).enumerate() {
            let square = fenscan::placement::square_at(k).unwrap();
            if want != read && !got.uncertain.iter().any(|u| u.square == square) {
                silent += 1;
                report.push(format!(
                    "{i}: {square} {want:?} read as {read:?}, not reported"
                ));
            }
        }
    }
    assert!(silent <= 1, "{}", report.join("\n"));
}

#[test]
fn infer_warns_of_hidden_squares() {
    let renderer = own_set_renderer(with_dialogs());
    let t = TempDir::new("dialog");
    let path = t.join("dialog.png");
    renderer.render(61, 0).image.save(&path).unwrap();
    let out = run_bin("infer", &["--orientation", "white", path.to_str().unwrap()]);
    assert!(out.status.code() == Some(0) || out.status.code() == Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("hidden by something drawn over the board"),
        "{stderr}"
    );
    let out = run_bin(
        "infer",
        &[
            "--orientation",
            "white",
            "--no-hidden",
            path.to_str().unwrap(),
        ],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("hidden by something"), "{stderr}");
    // Not an error in itself: the FEN is still printed.
    assert!(!out.stdout.is_empty());
}
