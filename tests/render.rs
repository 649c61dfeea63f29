//! synth's renderer and dataset writer: determinism, labels that agree with the pixels,
//! resume, bad input.

use fenscan::SquareClass;
use fenscan::dataset::labels::read_labels;
use fenscan::render::config::{DegradeConfig, Effect, OverlayConfig};
use fenscan::render::{PieceSet, SynthConfig, pieces::builtin_dir};
use fenscan::squares::{CropConfig, cut};

use crate::util::{TempDir, assert_exit, own_set_renderer, run_bin};

/// No overlays, no degradations, flat named themes only: pixels can be checked exactly.
pub(crate) fn clean_config() -> SynthConfig {
    let mut cfg = SynthConfig {
        overlays: OverlayConfig::NONE,
        degrade: DegradeConfig::NONE,
        ..SynthConfig::default()
    };
    cfg.look.random_theme = 0.0;
    cfg.look.shaded_pieces = 0.0;
    cfg.look.coordinates_inside = 0.0;
    cfg.look.coordinates_outside = 0.0;
    cfg.scene.max_board = 500;
    // Uncropped: a crop a few pixels inside the board would cut edge squares short.
    cfg.scene.cropped = 0.0;
    cfg.scene.perspective = Effect {
        probability: 0.5,
        strength: 0.2,
    };
    cfg
}

#[test]
fn same_seed_same_image() {
    let r = own_set_renderer(SynthConfig::default());
    for i in 0..3 {
        let a = r.render(11, i);
        let b = r.render(11, i);
        assert_eq!(a.image.as_raw(), b.image.as_raw());
        assert_eq!(a.placement, b.placement);
    }
    assert_ne!(
        r.render(11, 0).image.as_raw(),
        r.render(12, 0).image.as_raw()
    );
}

#[test]
fn scan_and_shading_are_applied_and_labelled() {
    let mut cfg = clean_config();
    cfg.degrade.scan = Effect {
        probability: 1.0,
        strength: 0.2,
    };
    cfg.look.shaded_pieces = 1.0;
    // Only printed diagrams are scanned, with 32+ pixels a square.
    cfg.look.book_theme = 1.0;
    cfg.scene.min_board = 400;
    let r = own_set_renderer(cfg).render(3, 0);
    assert!(
        r.effects.iter().any(|e| e.starts_with("scan:")),
        "{:?}",
        r.effects
    );
    assert!(
        r.overlays.iter().any(|o| o == "shaded_pieces"),
        "{:?}",
        r.overlays
    );
    // A 1-bit scan: only black and white, and plenty of both.
    let black = r.image.pixels().filter(|p| p.0 == [0; 3]).count();
    let white = r.image.pixels().filter(|p| p.0 == [255; 3]).count();
    let n = (r.image.width() * r.image.height()) as usize;
    assert_eq!(black + white, n);
    assert!(
        black > n / 50 && white > n / 50,
        "{black} black, {white} white of {n}"
    );
}

#[test]
fn board_area_render_is_the_same_board_cut_smaller() {
    let r = own_set_renderer(SynthConfig::default());
    for i in 0..12 {
        let full = r.render(21, i);
        let area = r.render_board_area(21, i);
        assert_eq!(full.placement, area.placement);
        assert_eq!(full.orientation, area.orientation);
        assert_eq!(full.piece_set, area.piece_set);
        assert!(area.image.width() <= full.image.width());
        assert!(area.image.height() <= full.image.height());
        // The board is whole in the smaller image (a cropped scene may cut 2% of it), at its
        // full size.
        let (w, h) = (area.image.width() as f32, area.image.height() as f32);
        let slack = 0.03 * full.quad.mean_side();
        let inside = |p: &[f32; 2]| {
            p[0] >= -slack && p[1] >= -slack && p[0] <= w + slack && p[1] <= h + slack
        };
        assert!(area.quad.0.iter().all(inside), "{:?} in {w}x{h}", area.quad);
        assert!(
            (area.quad.mean_side() - full.quad.mean_side()).abs() < 0.05 * full.quad.mean_side()
        );
    }
}

#[test]
fn labels_agree_with_pixels() {
    let r = own_set_renderer(clean_config());
    let crop = CropConfig {
        size: 24,
        context: 0.0,
    };
    let mut checked = 0;
    for i in 0..12 {
        let out = r.render(5, i);
        if out.theme.starts_with("book")
            || out.theme.starts_with("wood")
            || out.theme.starts_with("marble")
        {
            continue; // textured squares: the brightness test below needs flat colours
        }
        let crops = cut(&out.image, &out.quad, &crop).unwrap();
        // Corners of the square (rarely covered by a piece) show the square colour: light
        // squares (row + col even) must be brighter than dark ones, which only holds if the
        // labelled corners put the grid on the squares.
        let corner_brightness = |img: &image::RgbImage| -> f32 {
            let mut s = 0.0;
            for (x, y) in [(1, 1), (22, 1), (1, 22), (22, 22)] {
                let p = img.get_pixel(x, y).0;
                s += p.iter().map(|&c| c as f32).sum::<f32>();
            }
            s
        };
        let mut light = Vec::new();
        let mut dark = Vec::new();
        for (k, c) in crops.iter().enumerate() {
            if (k / 8 + k % 8) % 2 == 0 {
                light.push(corner_brightness(c))
            } else {
                dark.push(corner_brightness(c))
            }
        }
        light.sort_by(f32::total_cmp);
        dark.sort_by(f32::total_cmp);
        assert!(
            light[4] > dark[dark.len() - 5],
            "image {i} ({}): grid off the squares",
            out.theme
        );
        // Occupancy: an occupied square's centre differs from its corners.
        for (k, c) in crops.iter().enumerate() {
            let class = out.placement.0[out.orientation.placement_index(k / 8, k % 8)];
            let centre = c.get_pixel(12, 12).0;
            let corner = c.get_pixel(2, 2).0;
            let diff: i32 = centre
                .iter()
                .zip(corner)
                .map(|(a, b)| (*a as i32 - b as i32).abs())
                .sum();
            if class == SquareClass::Empty {
                assert!(
                    diff < 30,
                    "image {i} square {k}: labelled empty but centre differs ({diff})"
                );
            }
        }
        checked += 1;
    }
    assert!(checked >= 5, "only {checked} flat boards checked");
}

#[test]
fn boards_command_is_deterministic_and_resumable() {
    let a = TempDir::new("synth-a");
    let b = TempDir::new("synth-b");
    let out_a = a.join("set");
    let out_b = b.join("set");
    let args = |out: &std::path::Path, count: &str| {
        vec![
            "boards".to_string(),
            "--count".into(),
            count.into(),
            "--seed".into(),
            "3".into(),
            "--threads".into(),
            "2".into(),
            "--out".into(),
            out.display().to_string(),
        ]
    };
    let run = |v: Vec<String>| run_bin("synth", &v.iter().map(|s| s.as_str()).collect::<Vec<_>>());
    assert_exit(&run(args(&out_a, "6")), 0);
    // b: first 3, then resume to 6 (as after an interruption)
    assert_exit(&run(args(&out_b, "3")), 0);
    let mut again = args(&out_b, "6");
    assert_exit(&run(again.clone()), 2); // non-empty folder refused
    again.push("--resume".into());
    assert_exit(&run(again), 0);
    let la = std::fs::read_to_string(out_a.join("labels.jsonl")).unwrap();
    let lb = std::fs::read_to_string(out_b.join("labels.jsonl")).unwrap();
    assert_eq!(la, lb);
    let (records, _) = read_labels(&la).unwrap();
    assert_eq!(records.len(), 6);
    for rec in &records {
        let ia = std::fs::read(out_a.join(&rec.file)).unwrap();
        let ib = std::fs::read(out_b.join(&rec.file)).unwrap();
        assert!(ia == ib, "{} differs", rec.file);
    }
    // An interrupted labels file (half a line) is cut back on resume.
    let labels = out_b.join("labels.jsonl");
    let mut text = lb.clone();
    text.push_str("{\"file\":\"images/00");
    std::fs::write(&labels, text).unwrap();
    let mut more = args(&out_b, "7");
    more.push("--resume".into());
    assert_exit(&run(more), 0);
    let (records, _) = read_labels(&std::fs::read_to_string(&labels).unwrap()).unwrap();
    assert_eq!(records.len(), 7);
}

#[test]
fn bad_input_is_a_clear_error() {
    let t = TempDir::new("synth-bad");
    // a piece set with a missing file
    let set = t.join("sets/broken");
    std::fs::create_dir_all(&set).unwrap();
    for name in [
        "wK", "wQ", "wR", "wB", "wN", "wP", "bK", "bQ", "bR", "bB", "bN",
    ] {
        std::fs::copy(
            builtin_dir().join(format!("{name}.svg")),
            set.join(format!("{name}.svg")),
        )
        .unwrap();
    }
    let out = t.join("out");
    let o = run_bin(
        "synth",
        &[
            "boards",
            "--count",
            "1",
            "--out",
            out.to_str().unwrap(),
            "--pieces",
            t.join("sets").to_str().unwrap(),
        ],
    );
    assert_exit(&o, 2);
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("no bP.svg or bP.png"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    // an unreadable SVG
    std::fs::write(set.join("bP.svg"), "<svg this is not xml").unwrap();
    let o = run_bin(
        "synth",
        &[
            "boards",
            "--count",
            "1",
            "--out",
            out.to_str().unwrap(),
            "--pieces",
            t.join("sets").to_str().unwrap(),
        ],
    );
    assert_exit(&o, 2);
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("bP.svg"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    // a bad config value and an unknown field
    let cfg = t.join("cfg.json");
    std::fs::write(&cfg, r#"{"overlays": {"arrows": 1.5}}"#).unwrap();
    let o = run_bin(
        "synth",
        &[
            "boards",
            "--count",
            "1",
            "--out",
            out.to_str().unwrap(),
            "--config",
            cfg.to_str().unwrap(),
        ],
    );
    assert_exit(&o, 2);
    assert!(String::from_utf8_lossy(&o.stderr).contains("overlays.arrows"));
    std::fs::write(&cfg, r#"{"overlay": {}}"#).unwrap();
    let o = run_bin(
        "synth",
        &[
            "boards",
            "--count",
            "1",
            "--out",
            out.to_str().unwrap(),
            "--config",
            cfg.to_str().unwrap(),
        ],
    );
    assert_exit(&o, 2);
    assert!(String::from_utf8_lossy(&o.stderr).contains("unknown field"));
    // unknown option value
    assert_exit(
        &run_bin("synth", &["boards", "--count", "many", "--out", "x"]),
        2,
    );
}

#[test]
fn builtin_set_matches_its_files() {
    let embedded = PieceSet::builtin();
    let files = PieceSet::load(&builtin_dir()).unwrap();
    for class in &SquareClass::ALL[1..] {
        let a = embedded.raster(*class, 40).unwrap();
        let b = files.raster(*class, 40).unwrap();
        assert!(a.data() == b.data(), "{}", class.name());
    }
}

#[test]
fn squares_command_writes_class_folders() {
    let t = TempDir::new("squares");
    let out = t.join("sq");
    let o = run_bin(
        "synth",
        &[
            "squares",
            "--count",
            "2",
            "--seed",
            "4",
            "--out",
            out.to_str().unwrap(),
        ],
    );
    assert_exit(&o, 0);
    let mut total = 0;
    for class in SquareClass::ALL {
        let dir = out.join(class.name());
        assert!(dir.is_dir(), "{} missing", class.name());
        for f in std::fs::read_dir(&dir).unwrap() {
            let img = image::open(f.unwrap().path()).unwrap();
            assert_eq!((img.width(), img.height()), (32, 32));
            total += 1;
        }
    }
    assert_eq!(total, 128);
    // The crops' classes agree with the boards rendered from the same seed.
    let kings = std::fs::read_dir(out.join("wK")).unwrap().count();
    assert_eq!(kings, 2, "one white king per board");
}
