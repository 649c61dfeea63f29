//! synth's scene variants change the picture around the board, not the board: quarter
//! turns, squashed pictures, app panels; and book themes keep white men legible.

use fenscan::SquareClass;
use fenscan::render::{PieceSet, Renderer, pieces::builtin_dir};

use crate::render::clean_config;
use crate::util::{TempDir, own_set_renderer};

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

#[test]
fn lettered_empty_squares_are_named_and_always_kept_for_training() {
    use fenscan::squares::CropConfig;
    use fenscan::training::data::{SquareSampling, make_squares};
    let mut cfg = clean_config();
    cfg.overlays.square_letters = 1.0;
    let renderer = own_set_renderer(cfg);
    let mut lettered_boards = 0;
    for i in 0..6 {
        let r = renderer.render_board_area(4, i);
        let squares =
            fenscan::dataset::writer::board_squares(&renderer, 4, i, &CropConfig::default(), 0.0);
        assert_eq!(squares.lettered, r.lettered);
        for k in 0..64 {
            if (r.lettered >> k) & 1 == 1 {
                assert_eq!(
                    squares.classes[k],
                    SquareClass::Empty,
                    "board {i}, crop {k}"
                );
            }
        }
        lettered_boards += usize::from(r.lettered != 0);
    }
    // 1-4 letters a board, each on a random square: an occupied one is passed over.
    assert!(
        lettered_boards >= 4,
        "{lettered_boards} of 6 boards lettered"
    );
    // No plain empty square kept, every lettered one kept.
    let sampling = SquareSampling {
        crop: CropConfig::default(),
        corner_jitter: 0.0,
        empty_keep: 0.0,
    };
    let set = make_squares(&renderer, 4, 6, &sampling);
    let empty = SquareClass::Empty.index() as u8;
    let kept_empty = set.labels.iter().filter(|&&l| l == empty).count();
    let lettered: u32 = (0..6)
        .map(|i| renderer.render_board_area(4, i).lettered.count_ones())
        .sum();
    assert_eq!(kept_empty, lettered as usize);
    assert!(kept_empty > 0);
}
