//! synth's renderer and dataset writer: determinism, labels that agree with the pixels,
//! resume, bad input.

use fenscan::SquareClass;
use fenscan::dataset::labels::read_labels;
use fenscan::render::config::{DegradeConfig, Effect, OverlayConfig};
use fenscan::render::{PieceSet, Renderer, SynthConfig, pieces::builtin_dir};
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

#[test]
fn quarter_turned_pictures_keep_their_board_and_labels() {
    let upright = clean_config();
    let mut turned = upright;
    turned.scene.quarter_turn = 1.0;
    let (a, b) = (own_set_renderer(upright), own_set_renderer(turned));
    let mut ways = std::collections::HashSet::new();
    for i in 0..6 {
        let (x, y) = (a.render(9, i), b.render(9, i));
        assert_eq!(x.placement, y.placement);
        assert!(!x.effects.iter().any(|e| e.starts_with("quarter_turn")));
        let way = y.effects.last().unwrap().clone();
        let clockwise = match way.as_str() {
            "quarter_turn:clockwise" => true,
            "quarter_turn:anticlockwise" => false,
            other => panic!("image {i}: last effect {other}"),
        };
        ways.insert(clockwise);
        // The same picture turned (the turn is drawn after everything else).
        let expected = if clockwise {
            image::imageops::rotate90(&x.image)
        } else {
            image::imageops::rotate270(&x.image)
        };
        assert_eq!(y.image, expected, "image {i}");
        // Each corner of the board still names the same spot of the board: a point just
        // inside it from each corner shows the same pixel in both pictures.
        for k in 0..4 {
            let inside = |q: &fenscan::quad::Quad| {
                let (c, o) = (q.0[k], q.0[(k + 2) % 4]);
                [c[0] + 0.05 * (o[0] - c[0]), c[1] + 0.05 * (o[1] - c[1])]
            };
            let (p, q) = (inside(&x.quad), inside(&y.quad));
            assert_eq!(
                x.image.get_pixel(p[0] as u32, p[1] as u32),
                y.image.get_pixel(q[0] as u32, q[1] as u32),
                "image {i}, corner {k}"
            );
        }
    }
    assert_eq!(ways.len(), 2, "both ways drawn");
}

#[test]
fn squashed_pictures_keep_their_board_and_labels() {
    let plain = clean_config();
    let mut squashed = plain;
    squashed.scene.squash = fenscan::render::config::Effect {
        probability: 1.0,
        strength: 0.6,
    };
    let (a, b) = (own_set_renderer(plain), own_set_renderer(squashed));
    let mut axes = std::collections::HashSet::new();
    for i in 0..6 {
        let (x, y) = (a.render(9, i), b.render(9, i));
        assert_eq!(x.placement, y.placement);
        let effect = y.effects.last().unwrap().clone();
        let (axis, share) = effect
            .strip_prefix("squash:")
            .and_then(|e| e.split_once(':'))
            .unwrap_or_else(|| panic!("image {i}: last effect {effect}"));
        let share: f32 = share.parse().unwrap();
        assert!((0.6..=1.0).contains(&share), "image {i}: {effect}");
        axes.insert(axis.to_string());
        // One side squeezed, the other kept; the board's corners squeezed with it.
        let ((w0, h0), (w1, h1)) = (x.image.dimensions(), y.image.dimensions());
        let (kept, squeezed, k) = match axis {
            "width" => ((h0, h1), (w0, w1), 0),
            "height" => ((w0, w1), (h0, h1), 1),
            other => panic!("image {i}: axis {other}"),
        };
        assert_eq!(kept.0, kept.1, "image {i}");
        let ratio = squeezed.1 as f32 / squeezed.0 as f32;
        assert!(
            (ratio - share).abs() < 0.01,
            "image {i}: {ratio} for {share}"
        );
        for c in 0..4 {
            let expected = x.quad.0[c][k] * ratio;
            assert!(
                (y.quad.0[c][k] - expected).abs() < 0.5,
                "image {i}, corner {c}"
            );
            assert_eq!(
                y.quad.0[c][1 - k],
                x.quad.0[c][1 - k],
                "image {i}, corner {c}"
            );
        }
    }
    assert_eq!(axes.len(), 2, "both axes drawn");
}

/// A set whose white men have no dark ink (a white body, a light grey rim) vanishes on a
/// book's white squares: it is measured as faint and never drawn on a book theme, while the
/// project's own set is not faint and is.
#[test]
fn white_men_without_dark_ink_are_not_drawn_on_book_themes() {
    let tmp = TempDir::new("faint-set");
    let dir = tmp.0.join("faint");
    std::fs::create_dir_all(&dir).unwrap();
    for class in &SquareClass::ALL[1..] {
        let name = class.name();
        let (fill, rim) = if name.starts_with('w') {
            ("#ffffff", "#d0d0d0")
        } else {
            ("#101010", "#000000")
        };
        let svg = format!(
            "<svg xmlns='http://www.w3.org/2000/svg' width='45' height='45'>\
             <circle cx='22.5' cy='22.5' r='15' fill='{fill}' stroke='{rim}' stroke-width='2'/></svg>"
        );
        std::fs::write(dir.join(format!("{name}.svg")), svg).unwrap();
    }
    let faint = PieceSet::load(&dir).unwrap();
    assert!(faint.white_men_faint(), "{}", faint.white_dark_share());
    let own = PieceSet::load(&builtin_dir()).unwrap();
    assert!(!own.white_men_faint(), "{}", own.white_dark_share());

    let mut cfg = clean_config();
    cfg.look.book_theme = 1.0;
    let on_faint = Renderer::new(vec![faint], cfg).unwrap();
    let on_own = own_set_renderer(cfg);
    for i in 0..6 {
        assert!(!on_faint.render(3, i).theme.starts_with("book"));
        assert!(on_own.render(3, i).theme.starts_with("book"));
    }
}

/// An app's panels (evaluation bar, player strips) come from a stream of their own: the
/// same boards as without them, the squares' pixels untouched, pixels changed only outside
/// the board, and the label says what was drawn.
#[test]
fn app_panels_change_only_the_surroundings() {
    let plain = clean_config();
    let mut with = plain;
    with.scene.app_panels = 1.0;
    let (a, b) = (own_set_renderer(plain), own_set_renderer(with));
    let mut kinds = std::collections::HashSet::new();
    for i in 0..8 {
        let (x, y) = (a.render(5, i), b.render(5, i));
        assert_eq!(x.placement, y.placement, "image {i}");
        assert_eq!(x.quad, y.quad, "image {i}");
        assert_eq!(x.image.dimensions(), y.image.dimensions(), "image {i}");
        // The squares, a pixel in from their edge (bilinear sampling reaches one pixel).
        let squares = y.quad.grown(-1.5 / y.quad.mean_side());
        let mut outside_changed = 0;
        for (px, py, p) in y.image.enumerate_pixels() {
            if squares.contains([px as f32 + 0.5, py as f32 + 0.5]) {
                assert_eq!(p, x.image.get_pixel(px, py), "image {i}: ({px}, {py})");
            } else if p != x.image.get_pixel(px, py) {
                outside_changed += 1;
            }
        }
        let panels = y.effects.iter().find_map(|e| e.strip_prefix("panels:"));
        assert!(x.effects.iter().all(|e| !e.starts_with("panels:")));
        match panels {
            Some(drawn) => {
                assert!(
                    outside_changed > 0,
                    "image {i}: {drawn} drawn, no pixel changed"
                );
                kinds.extend(drawn.split('+').map(str::to_string));
            }
            None => assert_eq!(outside_changed, 0, "image {i}"),
        }
    }
    assert!(
        kinds.contains("eval_bar") && kinds.contains("players"),
        "{kinds:?}"
    );
}
