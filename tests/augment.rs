//! synth's training-only options (tinted, stretched, mirrored, heavy-lined, warped and
//! small men, grey black men, worn print, hatch through men, inner lines and marks, other
//! widgets' frames and dots): each drawn only when asked for, and validation's config of a
//! mix with them on draws the very bytes of the mix without them.

use fenscan::SquareClass;
use fenscan::render::{Renderer, SynthConfig};
use fenscan::squares::{CropConfig, cut};

use crate::render::clean_config;
use crate::util::own_set_renderer;

/// Renderers for `plain` and for `asked` (`plain` with training-only options on), after
/// checking that validation's config of `asked` draws `plain`'s very bytes (boards 0-2 of
/// `seed`): what every training-only option promises.
fn plain_and_asked(plain: SynthConfig, asked: SynthConfig, seed: u64) -> (Renderer, Renderer) {
    let (a, b) = (own_set_renderer(plain), own_set_renderer(asked));
    let validation = b
        .with_config(asked.without_training_augmentations())
        .unwrap();
    for i in 0..3 {
        assert_eq!(validation.render(seed, i).image, a.render(seed, i).image);
    }
    (a, b)
}

/// Share of a crop's pixels far from the median colour of its outer ring (the square's
/// colour, which a piece drawn at most the square's size hardly reaches): the piece's ink.
fn ink_share(crop: &image::RgbImage) -> f32 {
    let (w, h) = crop.dimensions();
    let ring: Vec<[u8; 3]> = crop
        .enumerate_pixels()
        .filter(|(x, y, _)| *x < 2 || *y < 2 || *x + 2 >= w || *y + 2 >= h)
        .map(|(_, _, p)| p.0)
        .collect();
    let median = |c: usize| {
        let mut v: Vec<u8> = ring.iter().map(|p| p[c]).collect();
        v.sort_unstable();
        v[v.len() / 2]
    };
    let bg = [median(0), median(1), median(2)];
    let unlike = crop
        .pixels()
        .filter(|p| (0..3).map(|c| p.0[c].abs_diff(bg[c]) as u32).sum::<u32>() > 120)
        .count();
    unlike as f32 / (w * h) as f32
}

#[test]
fn small_pieces_are_drawn_smaller() {
    let mut plain = clean_config();
    plain.scene.perspective.probability = 0.0;
    let mut small = plain;
    small.look.small_pieces = 1.0;
    let (a, b) = plain_and_asked(plain, small, 9);
    let crop = CropConfig {
        size: 64,
        context: 0.0,
    };
    let mean_ink = |r: &Renderer| {
        let (mut sum, mut n) = (0.0, 0);
        for i in 0..4 {
            let board = fenscan::dataset::writer::board_squares(r, 9, i, &crop, 0.0);
            for (class, c) in board.classes.iter().zip(&board.crops) {
                if *class != SquareClass::Empty {
                    sum += ink_share(c);
                    n += 1;
                }
            }
        }
        sum / n as f32
    };
    let (ink_plain, ink_small) = (mean_ink(&a), mean_ink(&b));
    // Scales 0.5-0.75 against 0.75-1: about half the area.
    assert!(
        ink_small < 0.75 * ink_plain && ink_small > 0.2 * ink_plain,
        "ink {ink_small} against {ink_plain}"
    );
    for i in 0..4 {
        assert!(
            b.render(9, i)
                .overlays
                .contains(&"small_pieces".to_string())
        );
    }
}

#[test]
fn restyled_pieces_are_drawn_only_when_asked_for() {
    let plain = clean_config();
    let mut restyled = plain;
    restyled.look.tinted_pieces = 1.0;
    restyled.look.stretched_pieces = 1.0;
    restyled.look.mirrored_pieces = 1.0;
    restyled.look.heavy_lines = 1.0;
    restyled.look.warped_pieces = 1.0;
    restyled.look.small_pieces = 1.0;
    let (a, b) = plain_and_asked(plain, restyled, 5);
    for i in 0..3 {
        let (x, y) = (a.render(5, i), b.render(5, i));
        assert!(!x.overlays.iter().any(|o| o.ends_with("_pieces")));
        assert!(!x.overlays.iter().any(|o| o == "heavy_lines"));
        assert!(y.overlays.iter().any(|o| o == "heavy_lines"));
        assert!(
            y.overlays.contains(&"tinted_pieces".to_string()),
            "{:?}",
            y.overlays
        );
        assert!(y.overlays.contains(&"stretched_pieces".to_string()));
        assert!(y.overlays.contains(&"mirrored_pieces".to_string()));
        assert!(y.overlays.contains(&"warped_pieces".to_string()));
        assert!(y.overlays.contains(&"small_pieces".to_string()));
        // The same position (drawn before the look); the pixels differ.
        assert_eq!(x.placement, y.placement);
        assert_ne!(x.image, y.image);
    }
}

#[test]
fn grey_black_men_are_drawn_only_when_asked_for_and_lighter() {
    let mut plain = clean_config();
    // White at the bottom: crops in image order are then the placement's a8 to h1.
    plain.look.black_bottom = 0.0;
    let mut grey = plain;
    grey.look.grey_black_men = 1.0;
    let (a, b) = plain_and_asked(plain, grey, 7);
    let crop = CropConfig::default();
    // Mean brightness of the middle of the squares holding black men.
    let black_men = |r: &fenscan::render::Rendered| {
        let crops = cut(&r.image, &r.quad, &crop).unwrap();
        let (mut sum, mut n) = (0.0, 0.0);
        for (k, c) in crops.iter().enumerate() {
            if let SquareClass::Piece(p) = r.placement.0[k]
                && p.color == shakmaty::Color::Black
            {
                for y in 12..20 {
                    for x in 12..20 {
                        sum += c.get_pixel(x, y).0.iter().map(|&v| v as f64).sum::<f64>() / 3.0;
                        n += 1.0;
                    }
                }
            }
        }
        sum / n
    };
    for i in 0..3 {
        let (x, y) = (a.render(7, i), b.render(7, i));
        assert!(!x.overlays.iter().any(|o| o == "grey_black_men"));
        assert!(
            y.overlays.iter().any(|o| o == "grey_black_men"),
            "{:?}",
            y.overlays
        );
        assert_eq!(x.placement, y.placement);
        // Grey bodies (30-60% of full brightness) instead of the set's black ones.
        let (before, after) = (black_men(&x), black_men(&y));
        assert!(
            after > before + 20.0,
            "board {i}: {before:.0} -> {after:.0}"
        );
    }
}

/// Book boards drawn plainly and with one training-only augmentation (`augment`, whose
/// overlay label is `label`), board by board from one seed. Checks that validation's config
/// draws the plain bytes, that the plain boards never carry the label, that the position is
/// the same either way and that a labelled board really changed; returns the themes of the
/// labelled ones.
fn augmented_book_themes(
    augment: impl Fn(&mut SynthConfig),
    label: &str,
    seed: u64,
    boards: u64,
) -> Vec<String> {
    let mut plain = clean_config();
    plain.look.book_theme = 1.0;
    let mut augmented = plain;
    augment(&mut augmented);
    let (a, b) = (own_set_renderer(plain), own_set_renderer(augmented));
    let validation = b
        .with_config(augmented.without_training_augmentations())
        .unwrap();
    let mut themes = Vec::new();
    for i in 0..boards {
        let (x, y) = (a.render(seed, i), b.render(seed, i));
        assert_eq!(validation.render(seed, i).image, x.image);
        assert!(!x.overlays.iter().any(|o| o == label));
        assert_eq!(x.placement, y.placement);
        if y.overlays.iter().any(|o| o == label) {
            assert_ne!(x.image, y.image, "board {i}: {label} drew nothing");
            themes.push(y.theme.clone());
        }
    }
    themes
}

#[test]
fn rough_print_wears_only_printed_patterns_and_only_when_asked_for() {
    let worn = augmented_book_themes(|c| c.look.rough_print = 1.0, "rough_print", 9, 8);
    for theme in &worn {
        assert_ne!(theme, "book-grey", "flat grey has no lines to wear");
    }
    assert!(worn.len() >= 2, "{} of 8 book boards worn", worn.len());
}

#[test]
fn inner_lines_and_marks_are_drawn_only_when_asked_for() {
    let lined = augmented_book_themes(|c| c.look.inner_lines = 1.0, "inner_lines", 17, 8);
    assert!(
        lined.len() >= 2,
        "{} of 8 book boards with inner lines",
        lined.len()
    );
    let marked = augmented_book_themes(|c| c.look.inner_marks = 1.0, "inner_marks", 19, 8);
    assert!(
        marked.len() >= 2,
        "{} of 8 book boards with inner marks",
        marked.len()
    );
}

#[test]
fn hatch_shows_through_pieces_only_on_lined_boards_and_only_when_asked_for() {
    let shown = augmented_book_themes(|c| c.look.hatch_through = 1.0, "hatch_through", 13, 10);
    for theme in &shown {
        assert!(
            theme == "book-hatched" || theme.starts_with("book-lined"),
            "{theme}: only line patterns show through"
        );
    }
    assert!(
        shown.len() >= 2,
        "{} of 10 book boards with lines through the pieces",
        shown.len()
    );
}

#[test]
fn other_widgets_frames_and_dots_are_drawn_only_when_asked_for() {
    let plain = SynthConfig::default();
    let mut marked = plain;
    marked.overlays.frames = 1.0;
    marked.overlays.dots = 1.0;
    let (a, b) = plain_and_asked(plain, marked, 8);
    for i in 0..3 {
        let (x, y) = (a.render(8, i), b.render(8, i));
        for label in ["frames", "dots"] {
            assert!(!x.overlays.iter().any(|o| o == label));
            assert!(y.overlays.iter().any(|o| o == label), "{:?}", y.overlays);
        }
        assert_eq!(x.placement, y.placement);
        assert_ne!(x.image, y.image);
    }
}
