//! The whole pipeline with the shipped checkpoint: synth-rendered screenshots with clutter
//! are read exactly; pictures without a board are rejected.

use std::path::Path;

use fenscan::board_top::PictureTop;
use fenscan::recognize::{Constraints, RecognizeOptions};
use fenscan::render::SynthConfig;

use crate::util::{
    TempDir, assert_exit, own_set_renderer, run_bin, run_bin_in, screenshot_degradations, shipped,
};

/// Screenshot-like scenes, white below: clutter around, overlays on, mild degradations,
/// boards from `min_board` to 480 px, upright and flat.
pub(crate) fn screenshots(min_board: u32) -> SynthConfig {
    let mut cfg = SynthConfig {
        degrade: screenshot_degradations(),
        ..SynthConfig::default()
    };
    cfg.scene.cropped = 0.0;
    cfg.scene.min_board = min_board;
    cfg.scene.max_board = 480;
    cfg.scene.rotation.probability = 0.0;
    cfg.scene.perspective.probability = 0.0;
    cfg.look.black_bottom = 0.0;
    cfg
}

/// The pipeline's defaults, told that white is below.
pub(crate) fn white_below() -> RecognizeOptions {
    RecognizeOptions {
        orientation: Some(fenscan::render::Orientation::White),
        ..RecognizeOptions::default()
    }
}

#[test]
fn readme_sample_gives_its_fen() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/samples");
    let expected = std::fs::read_to_string(dir.join("sample.fen")).unwrap();
    // From a folder without checkpoints/: the shipped checkpoint is built in.
    let elsewhere = TempDir::new("elsewhere");
    let out = run_bin_in(
        "infer",
        &elsewhere.0,
        &[dir.join("sample.png").to_str().unwrap()],
    );
    assert_exit(&out, 0);
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), expected.trim());
}

#[test]
fn cluttered_screenshots_are_read() {
    let mut cfg = screenshots(240);
    cfg.positions.random_placement = 0.0;
    let renderer = own_set_renderer(cfg);
    let rec = shipped();
    let opts = white_below();
    let n = 8;
    let mut exact = 0;
    let mut wrong_squares = 0;
    let mut report = Vec::new();
    for i in 0..n {
        let r = renderer.render(2024, i);
        match rec.recognize(&r.image, &opts) {
            Ok(got) => {
                let err = got.board.quad.max_corner_distance(&r.quad) / r.quad.mean_side();
                // Nothing is drawn over these boards.
                assert!(got.hidden.is_empty(), "image {i}: hidden {:?}", got.hidden);
                if got.placement == r.placement {
                    exact += 1;
                } else {
                    wrong_squares += (0..64)
                        .filter(|&k| got.placement.0[k] != r.placement.0[k])
                        .count();
                    report.push(format!(
                        "{i}: {} read as {} (corner error {:.3})",
                        r.placement, got.placement, err
                    ));
                }
                assert!(err < 0.02, "image {i}: corner error {err:.3} of the side");
            }
            Err(e) => report.push(format!("{i}: {e}")),
        }
    }
    // Accuracy is measured by `infer eval` (BENCHMARKS.md); this guards the pipeline.
    assert!(
        exact >= n - 2 && wrong_squares <= 8,
        "only {exact}/{n} exact, {wrong_squares} squares wrong:\n{}",
        report.join("\n")
    );
}

#[test]
fn editor_boards_keep_their_pieces() {
    // Free placements (boards of kings, one colour only, pawns on rank 8): neither the
    // board-context correction nor the decoder may bend them into a game position.
    let mut cfg = screenshots(320);
    cfg.positions.random_placement = 0.0;
    cfg.positions.thinned_game = 0.0;
    cfg.positions.free_placement = 1.0;
    let renderer = own_set_renderer(cfg);
    let rec = shipped();
    let opts = white_below();
    let n: u64 = 8;
    let (mut exact, mut lost, mut odd, mut not_a_game) = (0usize, 0usize, 0usize, 0usize);
    let mut report = Vec::new();
    for i in 0..n {
        let r = renderer.render(77, i);
        let kings = r
            .placement
            .pieces()
            .filter(|(_, p)| p.role == shakmaty::Role::King)
            .count();
        odd += usize::from(kings != 2);
        match rec.recognize(&r.image, &opts) {
            Ok(got) => {
                exact += usize::from(got.placement == r.placement);
                not_a_game += usize::from(got.constraints == Constraints::NotAGame);
                lost += (0..64)
                    .filter(|&k| {
                        r.placement.0[k].piece().is_some() && got.placement.0[k].piece().is_none()
                    })
                    .count();
                if got.placement != r.placement {
                    report.push(format!("{i}: {} read as {}", r.placement, got.placement));
                }
            }
            Err(e) => report.push(format!("{i}: {e}")),
        }
    }
    let n = n as usize;
    assert!(
        odd >= n / 2,
        "only {odd} of {n} boards are odd: the test needs them"
    );
    assert!(not_a_game >= 1, "no board was recognised as no game");
    assert!(
        exact + 2 >= n && lost <= 2,
        "only {exact}/{n} exact, {lost} pieces lost:\n{}",
        report.join("\n")
    );
}

#[test]
fn only_unsure_squares_are_read_again() {
    // Hard boards (the default degradations), so that some squares are unsure.
    let mut cfg = SynthConfig::default();
    cfg.look.black_bottom = 0.0;
    cfg.scene.rotation.probability = 0.0;
    cfg.scene.perspective.probability = 0.0;
    let renderer = own_set_renderer(cfg);
    let rec = shipped();
    let without = RecognizeOptions {
        lookalike: None,
        relook: None,
        ..white_below()
    };
    let with = RecognizeOptions {
        relook: Some(fenscan::relook::RelookConfig::default()),
        ..without.clone()
    };
    let below = fenscan::relook::RelookConfig::default().unsure_below;
    let mut relooked = 0;
    for i in 0..12 {
        let r = renderer.render(77, i);
        let (Ok(a), Ok(b)) = (
            rec.recognize(&r.image, &without),
            rec.recognize(&r.image, &with),
        ) else {
            continue;
        };
        for (sa, sb) in a.squares.iter().zip(&b.squares) {
            let unsure = sa.top[0].probability < below;
            assert_eq!(
                b.relooked.contains(&sa.square),
                unsure,
                "image {i} {}",
                sa.square
            );
            if unsure {
                relooked += 1;
                let sum: f32 = sb.top.iter().map(|t| t.probability).sum();
                assert!(
                    sum <= 1.0 + 1e-4,
                    "image {i} {}: probabilities sum over 1",
                    sa.square
                );
            } else {
                assert_eq!(
                    sa.top, sb.top,
                    "image {i} {}: a sure square changed",
                    sa.square
                );
            }
        }
    }
    assert!(
        relooked > 0,
        "no square was unsure on 12 hard boards: the test tests nothing"
    );
}

#[test]
fn pictures_turned_a_quarter_are_read_upright() {
    // A phone photo without its orientation tag, a page scanned sideways: the pieces lie
    // on their side, and the board is read in the turn whose pieces stand upright.
    let mut cfg = screenshots(240);
    cfg.positions.random_placement = 0.0;
    let renderer = own_set_renderer(cfg);
    let rec = shipped();
    let opts = white_below();
    let mut report = Vec::new();
    let n = 6;
    for i in 0..n {
        let r = renderer.render(77, i);
        let upright = rec.recognize(&r.image, &opts).expect("upright board read");
        assert_eq!(upright.picture_top, PictureTop::Top);
        for (turned, top) in [
            (image::imageops::rotate90(&r.image), PictureTop::Right),
            (image::imageops::rotate270(&r.image), PictureTop::Left),
        ] {
            match rec.recognize(&turned, &opts) {
                Ok(got) if got.placement == upright.placement && got.picture_top == top => {}
                Ok(got) => report.push(format!(
                    "{i} {top:?}: {} read as {} ({:?})",
                    upright.placement, got.placement, got.picture_top
                )),
                Err(e) => report.push(format!("{i} {top:?}: {e}")),
            }
        }
    }
    assert!(
        report.len() <= 1,
        "{} of {} turned pictures not read as upright:\n{}",
        report.len(),
        2 * n,
        report.join("\n")
    );
}

#[test]
fn pictures_without_a_board_are_rejected() {
    let t = TempDir::new("noboard");
    let rec = shipped();
    let opts = RecognizeOptions::default();
    // A UI-like picture: panels, text; a smooth gradient; noise; stripes.
    let ui = image::RgbImage::from_fn(800, 500, |x, y| {
        let panel = (x / 160 + y / 125) % 3;
        let text = (y % 25 < 12) && (x % 9 < 6) && (x / 160) % 2 == 1;
        let v = if text {
            30
        } else {
            [240u8, 210, 180][panel as usize]
        };
        image::Rgb([v, v, v.saturating_sub(10)])
    });
    let gradient = image::RgbImage::from_fn(640, 480, |x, y| {
        image::Rgb([(x / 3) as u8, (y / 2) as u8, 128])
    });
    let mut state = 12345u32;
    let noise = image::RgbImage::from_fn(400, 400, |_, _| {
        state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        let v = (state >> 24) as u8;
        image::Rgb([v, v, v])
    });
    let stripes = image::RgbImage::from_fn(500, 500, |x, _| {
        if (x / 20) % 2 == 0 {
            image::Rgb([0, 0, 0])
        } else {
            image::Rgb([255, 255, 255])
        }
    });
    for (name, img) in [
        ("ui", ui),
        ("gradient", gradient),
        ("noise", noise),
        ("stripes", stripes),
    ] {
        assert!(
            rec.recognize(&img, &opts).is_err(),
            "{name}: a board was reported"
        );
        let path = t.join(&format!("{name}.png"));
        img.save(&path).unwrap();
        let out = run_bin("infer", &[path.to_str().unwrap()]);
        assert_exit(&out, 3);
        assert!(out.stdout.is_empty(), "{name}: printed a FEN");
        // Programs get the finder's verdict as fields, beside the message.
        let out = run_bin("infer", &["--json", path.to_str().unwrap()]);
        assert_exit(&out, 3);
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert!(v["fen"].is_null(), "{name}: {v}");
        let no_board = &v["no_board"];
        assert!(
            v["error"]
                .as_str()
                .unwrap()
                .starts_with("no chess board found")
        );
        assert_eq!(no_board["corners_needed"], 22, "{name}: {v}");
        assert!(no_board["inner_corners"].as_u64().is_some(), "{name}: {v}");
        let reasons = ["too_few_corners", "faint_squares", "sheared", "text_like"];
        assert!(
            reasons.contains(&no_board["reason"].as_str().unwrap()),
            "{name}: {v}"
        );
    }
}

#[test]
fn json_output_has_the_fields() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/samples");
    let t = TempDir::new("json");
    let dbg = t.join("debug.png");
    let crops = t.join("crops.png");
    let out = run_bin(
        "infer",
        &[
            "--json",
            "--to-move",
            "b",
            "--castling",
            "auto",
            "--debug-image",
            dbg.to_str().unwrap(),
            "--debug-crops",
            crops.to_str().unwrap(),
            dir.join("sample.png").to_str().unwrap(),
        ],
    );
    assert!(out.status.code() == Some(0) || out.status.code() == Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    for key in [
        "fen",
        "placement",
        "orientation",
        "board",
        "straightened",
        "squares",
        "uncertain",
        "unlike_twins",
        "hidden",
        "relooked",
        "labels_cleared",
        "marks_cleared",
        "tones",
        "twins",
        "changes",
        "problems",
        "lichess_url",
        "turn_from",
        "ep_from",
    ] {
        assert!(!v[key].is_null(), "missing {key}: {v}");
    }
    // The sample highlights no move: none named, and the side given by the user.
    assert!(
        v["last_move"].is_null() && v.get("last_move").is_some(),
        "{v}"
    );
    assert_eq!(v["turn_from"], "given");
    // Its coordinates decide the orientation: no guess.
    assert_eq!(v["orientation"]["source"], "coordinates");
    assert_eq!(v["orientation"]["doubtful"], false);
    let tones = &v["tones"];
    assert!(tones["dark"].as_f64().unwrap() < tones["mid"].as_f64().unwrap());
    assert!(tones["mid"].as_f64().unwrap() < tones["light"].as_f64().unwrap());
    assert_eq!(
        tones["gamma"].as_f64(),
        Some(1.0),
        "a clear board is not bent"
    );
    assert_eq!(v["squares"].as_array().unwrap().len(), 64);
    assert_eq!(v["squares"][0]["top"].as_array().unwrap().len(), 3);
    assert!(v["fen"].as_str().unwrap().contains(" b "));
    let pic = image::open(&dbg).unwrap();
    assert!(pic.width() > pic.height());
    // The crop sheet: 8x8 crops of the shipped model's 32 pixels, 4x larger, 2-pixel gaps.
    let sheet = image::open(&crops).unwrap().to_rgb8();
    assert_eq!(sheet.dimensions(), (8 * 128 + 9 * 2, 8 * 128 + 9 * 2));
    assert_eq!(sheet.get_pixel(0, 0).0, [128, 128, 128], "gap");
    // Each crop pixel is drawn as a 4x4 block, and the crops are not blank.
    let block = |x: u32, y: u32| *sheet.get_pixel(2 + x * 4, 2 + y * 4);
    for (x, y) in [(0, 0), (5, 17), (31, 31)] {
        for (dx, dy) in [(1, 0), (0, 3), (3, 3)] {
            assert_eq!(
                *sheet.get_pixel(2 + x * 4 + dx, 2 + y * 4 + dy),
                block(x, y)
            );
        }
    }
    let distinct: std::collections::HashSet<[u8; 3]> = sheet.pixels().map(|p| p.0).collect();
    assert!(distinct.len() > 50, "{} colours", distinct.len());
}

#[test]
fn a_board_cropped_through_its_edge_file_is_placed_right_and_the_cut_squares_unsure() {
    // A user's crop through the middle of the a-file: its squares are half outside.
    let renderer = own_set_renderer(screenshots(320));
    let rec = shipped();
    let opts = white_below();
    for i in 0..4 {
        let r = renderer.render(43, i);
        let whole = rec.recognize(&r.image, &opts).expect("board read");
        assert!(whole.cut_off.is_empty(), "image {i}: {:?}", whole.cut_off);
        let (x0, _, x1, _) = r.quad.bounds();
        let left = (x0 + (x1 - x0) / 16.0).round() as u32;
        let (w, h) = r.image.dimensions();
        let cropped = image::imageops::crop_imm(&r.image, left, 0, w - left, h).to_image();
        let got = rec.recognize(&cropped, &opts).expect("cropped board read");
        // Found where it is, not a file over (the cut-off file cannot be judged by its
        // tones, and the margin beyond the h-file must not pull the window over).
        let truth = fenscan::quad::Quad(r.quad.0.map(|p| [p[0] - left as f32, p[1]]));
        let err = got.board.quad.max_corner_distance(&truth) / truth.mean_side();
        assert!(err < 0.02, "image {i}: corners off by {err:.3} of the side");
        let mut cut: Vec<String> = got.cut_off.iter().map(|s| s.to_string()).collect();
        cut.sort();
        let a_file: Vec<String> = (1..=8).map(|rank| format!("a{rank}")).collect();
        assert_eq!(cut, a_file, "image {i}: board at {:?}", got.board.quad);
        for s in &got.cut_off {
            assert!(
                got.uncertain.iter().any(|u| u.square == *s),
                "image {i}: {s} cut off but not reported unsure"
            );
        }
    }
}

#[test]
fn a_guessed_orientation_says_how_to_turn_the_board() {
    // Boards without coordinates whose side at the bottom only the position hints (or
    // nothing does): infer says so, and names the flag that turns the reading round. The
    // README sample's labels decide it: no such note.
    let mut cfg = screenshots(240);
    cfg.look.coordinates_inside = 0.0;
    cfg.look.coordinates_outside = 0.0;
    cfg.positions.random_placement = 1.0;
    cfg.positions.thinned_game = 0.0;
    let renderer = own_set_renderer(cfg);
    let rec = shipped();
    let t = TempDir::new("guessed");
    let mut checked = 0;
    for i in 0..12 {
        let r = renderer.render(44, i);
        let got = rec
            .recognize(&r.image, &RecognizeOptions::default())
            .expect("board read");
        let path = t.join(&format!("{i}.png"));
        r.image.save(&path).unwrap();
        let out = run_bin("infer", &[path.to_str().unwrap()]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            err.contains("read it again with `--orientation "),
            got.orientation.doubtful(),
            "board {i}: {:?}\n{err}",
            got.orientation
        );
        checked += usize::from(got.orientation.doubtful());
    }
    assert!(
        checked > 0,
        "no doubtful orientation among the boards drawn"
    );
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/samples/sample.png");
    let out = run_bin("infer", &[sample.to_str().unwrap()]);
    assert!(!String::from_utf8_lossy(&out.stderr).contains("--orientation"));
}
