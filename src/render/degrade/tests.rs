use super::*;
use rand::SeedableRng;

/// An effect drawn on every picture, up to `strength`.
fn always(strength: f32) -> crate::render::config::Effect {
    crate::render::config::Effect {
        probability: 1.0,
        strength,
    }
}

#[test]
fn noise_in_four_runs_is_the_noise_of_one_stream() {
    // Sizes around the cut into runs (uneven last run, and too small to cut).
    for (w, h) in [(37, 29), (64, 1), (7, 9), (128, 96)] {
        let grey = |x: u32, y: u32| image::Rgb([(x * 7 % 256) as u8, (y * 13 % 256) as u8, 128]);
        let mut img = RgbImage::from_fn(w, h, grey);
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(u64::from(w * h));
        noise(&mut img, 9.0, &mut rng);
        // The one-stream reference, as the effect was first written.
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(u64::from(w * h));
        let mut s = XorShift64::new(rng.random::<u64>() | 1);
        let colour = rng.random_range(0.0..1.0f32);
        let mut expected = RgbImage::from_fn(w, h, grey);
        for p in expected.pixels_mut() {
            let z = (s.next_f32() + s.next_f32() + s.next_f32() - 1.5) * 2.0;
            for c in 0..3 {
                let n = z + colour * (s.next_f32() - 0.5) * 2.0;
                p.0[c] = to_u8(p.0[c] as f32 + n * 9.0);
            }
        }
        assert_eq!(img, expected, "{w}x{h}");
        assert_ne!(img, RgbImage::from_fn(w, h, grey), "noise changed nothing");
    }
}

#[test]
fn ink_spread_leaves_the_paper_between_hatch_lines() {
    let cfg = DegradeConfig {
        ink: always(0.1),
        ..DegradeConfig::NONE
    };
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
    // Lines 2 px wide, 3 px of paper between them, on squares of 80 px: a spread of up
    // to 8 px would close them; it stays under a pixel (none).
    let lines = RgbImage::from_fn(64, 64, |_, y| {
        image::Rgb([if y % 5 < 2 { 0 } else { 255 }; 3])
    });
    for _ in 0..20 {
        let mut img = lines.clone();
        let d = degrade(&mut img, 80.0, Medium::LineArt, Some(3.0), &cfg, &mut rng);
        assert!(d.effects.is_empty(), "{:?}", d.effects);
        assert_eq!(img, lines);
    }
    // Without hatching the same draw does spread.
    let mut img = lines.clone();
    let d = degrade(&mut img, 80.0, Medium::LineArt, None, &cfg, &mut rng);
    assert!(d.effects[0].starts_with("ink:"), "{:?}", d.effects);
}

#[test]
fn sharpen_rings_an_edge_and_leaves_flat_paper() {
    let cfg = DegradeConfig {
        sharpen: always(2.0),
        ..DegradeConfig::NONE
    };
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
    // Mid-grey on the left, light grey on the right: a halo brightens the light side
    // next to the edge and darkens the grey side; far from it nothing moves.
    let edge = RgbImage::from_fn(64, 16, |x, _| {
        image::Rgb([if x < 32 { 100 } else { 200 }; 3])
    });
    let mut img = edge.clone();
    let d = degrade(&mut img, 60.0, Medium::LineArt, None, &cfg, &mut rng);
    assert!(d.effects[0].starts_with("sharpen:"), "{:?}", d.effects);
    assert!(img.get_pixel(32, 8).0[0] > 200, "light side brightened");
    assert!(img.get_pixel(31, 8).0[0] < 100, "dark side darkened");
    assert_eq!(img.get_pixel(2, 8), edge.get_pixel(2, 8));
    assert_eq!(img.get_pixel(61, 8), edge.get_pixel(61, 8));
}

#[test]
fn fade_lifts_black_and_squeezes_the_range_keeping_the_order() {
    let cfg = DegradeConfig {
        fade: always(0.6),
        ..DegradeConfig::NONE
    };
    for seed in 0..8 {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let mut img = RgbImage::from_fn(3, 1, |x, _| image::Rgb([[0, 128, 255][x as usize]; 3]));
        let d = degrade(&mut img, 60.0, Medium::Screen, None, &cfg, &mut rng);
        assert!(d.effects[0].starts_with("fade:"), "{:?}", d.effects);
        let [black, grey, white] = [0, 1, 2].map(|x| img.get_pixel(x, 0).0[0]);
        assert!(
            black > 0 && black < grey && grey < white,
            "{black} {grey} {white}"
        );
        // Strength 0.1 to 0.6 of the range lost.
        let kept = f32::from(white - black) / 255.0;
        assert!((0.39..=0.91).contains(&kept), "{kept}");
    }
}

#[test]
fn dim_darkens_and_crushes_the_shadows_keeping_black_and_the_order() {
    let cfg = DegradeConfig {
        dim: always(1.4),
        ..DegradeConfig::NONE
    };
    for seed in 0..8 {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let mut img =
            RgbImage::from_fn(4, 1, |x, _| image::Rgb([[0, 64, 128, 255][x as usize]; 3]));
        let d = degrade(&mut img, 60.0, Medium::Screen, None, &cfg, &mut rng);
        assert!(d.effects[0].starts_with("dim:"), "{:?}", d.effects);
        let [black, shadow, grey, white] = [0, 1, 2, 3].map(|x| img.get_pixel(x, 0).0[0]);
        assert_eq!(black, 0);
        assert!(shadow < grey && grey < white, "{shadow} {grey} {white}");
        // Exposure 0.6-0.95; a gamma over 1 takes more from the shadows than the mids.
        assert!((150..=243).contains(&white), "{white}");
        assert!(
            f32::from(shadow) / 64.0 < f32::from(grey) / 128.0,
            "{shadow} {grey}"
        );
    }
}

#[test]
fn defocus_blurs_in_squares_whatever_the_board_size() {
    let cfg = DegradeConfig {
        defocus: always(0.12),
        ..DegradeConfig::NONE
    };
    // A black-white edge across a board of 20 px squares and one of 80 px squares: the
    // ramp is four times as wide on the larger, the same share of a square.
    let ramp = |cell: f32| {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        let w = (cell * 4.0) as u32;
        let mut img = RgbImage::from_fn(w, 8, |x, _| {
            image::Rgb([if x < w / 2 { 0 } else { 255 }; 3])
        });
        let d = degrade(&mut img, cell, Medium::Screen, None, &cfg, &mut rng);
        assert!(d.effects[0].starts_with("defocus:"), "{:?}", d.effects);
        (0..w)
            .filter(|&x| (20..236).contains(&img.get_pixel(x, 4).0[0]))
            .count() as f32
    };
    let (small, large) = (ramp(20.0), ramp(80.0));
    assert!(small >= 1.0, "{small}");
    assert!((large / small - 4.0).abs() < 1.2, "{small} {large}");
}
