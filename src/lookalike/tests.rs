use super::*;
use image::Rgb;

/// A 32 px crop: light or dark square with a disc (filled dark, or an outlined ring) of
/// radius `r`, centred at an offset.
fn crop(light: bool, filled: bool, r: f32, off: (f32, f32)) -> RgbImage {
    let bg = if light { 235u8 } else { 120 };
    RgbImage::from_fn(32, 32, |x, y| {
        let (dx, dy) = (x as f32 - 16.0 - off.0, y as f32 - 16.0 - off.1);
        let d = (dx * dx + dy * dy).sqrt();
        let outline = if filled { d <= r } else { (d - r).abs() <= 1.2 };
        let v = if outline {
            20
        } else if !filled && d < r {
            250
        } else {
            bg
        };
        Rgb([v, v, v])
    })
}

fn probs_for(class: usize, p: f32, other: usize) -> [f32; 13] {
    let mut row = [0.0f32; 13];
    row[class] = p;
    row[other] = 1.0 - p;
    row
}

/// Board with black "pawns" (filled discs) on light squares 0, 2, 4 read surely, and an
/// unsure one on square 6 that the model leans to call white (a ring).
#[test]
fn a_clear_twin_settles_an_unsure_square() {
    let empty = crop(true, false, 0.0, (0.0, 0.0));
    let mut crops = vec![empty; 64];
    let mut probs = vec![probs_for(0, 1.0, 0); 64];
    for i in [0, 2, 4] {
        crops[i] = crop(true, true, 7.0, (0.0, 0.0));
        probs[i] = probs_for(7, 0.995, 1);
    }
    crops[9] = crop(true, false, 7.0, (0.0, 0.0)); // a white pawn, read surely
    probs[9] = probs_for(1, 0.99, 7);
    crops[6] = crop(true, true, 7.0, (1.0, -1.0)); // shifted by the finder
    probs[6] = probs_for(1, 0.7, 7);
    let found = apply(&crops, 0.125, &mut probs, &LookalikeConfig::default());
    assert_eq!(found.len(), 1, "{found:?}");
    let l = found[0];
    assert_eq!(
        (l.index, l.from, l.to),
        (
            6,
            SquareClass::from_index(1).unwrap(),
            SquareClass::from_index(7).unwrap()
        )
    );
    assert!([0, 2, 4].contains(&l.twin));
    assert!(l.similarity > 0.95, "{}", l.similarity);
    assert!(probs[6][7] > 0.8 && (probs[6].iter().sum::<f32>() - 1.0).abs() < 1e-4);
}

#[test]
fn a_sure_square_unlike_its_alike_twins_is_singled_out() {
    let mut crops = vec![crop(true, false, 0.0, (0.0, 0.0)); 64];
    let mut probs = vec![probs_for(0, 1.0, 0); 64];
    // Three filled discs read surely as black pawns, one of them shifted a pixel, and a
    // ring (another piece) read just as surely as one: all on light squares.
    for (i, off) in [(0, (0.0, 0.0)), (2, (1.0, 0.0)), (4, (0.0, 1.0))] {
        crops[i] = crop(true, true, 7.0, off);
        probs[i] = probs_for(7, 0.99, 1);
    }
    crops[6] = crop(true, false, 9.0, (0.0, 0.0));
    probs[6] = probs_for(7, 0.99, 1);
    assert_eq!(unlike_twins(&crops, 0.125, &probs, 0.9, 0.2), vec![6]);
    // With only one other black pawn to compare with, nothing is judged.
    probs[2] = probs_for(1, 0.99, 7);
    probs[4] = probs_for(1, 0.99, 7);
    assert!(unlike_twins(&crops, 0.125, &probs, 0.9, 0.2).is_empty());
}

#[test]
fn no_twin_on_the_same_square_colour_changes_nothing() {
    let empty = crop(true, false, 0.0, (0.0, 0.0));
    let mut crops = vec![empty; 64];
    let mut probs = vec![probs_for(0, 1.0, 0); 64];
    crops[1] = crop(false, true, 7.0, (0.0, 0.0)); // a dark square: other parity
    probs[1] = probs_for(7, 0.995, 1);
    crops[6] = crop(true, true, 7.0, (0.0, 0.0));
    probs[6] = probs_for(1, 0.7, 7);
    let before = probs[6];
    assert!(apply(&crops, 0.125, &mut probs, &LookalikeConfig::default()).is_empty());
    assert_eq!(probs[6], before);
}

#[test]
fn a_ruled_out_class_is_never_brought_back() {
    let empty = crop(true, false, 0.0, (0.0, 0.0));
    let mut crops = vec![empty; 64];
    let mut probs = vec![probs_for(0, 1.0, 0); 64];
    crops[0] = crop(true, true, 7.0, (0.0, 0.0));
    probs[0] = probs_for(7, 0.995, 1);
    crops[6] = crop(true, true, 7.0, (0.0, 0.0));
    // The model is unsure between a white pawn and a white bishop; black pawn at 0.
    probs[6] = probs_for(1, 0.6, 3);
    assert!(apply(&crops, 0.125, &mut probs, &LookalikeConfig::default()).is_empty());
    assert_eq!(probs[6][7], 0.0);
}

#[test]
fn twins_of_two_candidates_alike_are_no_evidence() {
    let empty = crop(true, false, 0.0, (0.0, 0.0));
    let mut crops = vec![empty; 64];
    let mut probs = vec![probs_for(0, 1.0, 0); 64];
    let disc = crop(true, true, 7.0, (0.0, 0.0));
    crops[0] = disc.clone();
    probs[0] = probs_for(7, 0.995, 1);
    crops[2] = disc.clone();
    probs[2] = probs_for(1, 0.995, 7);
    crops[6] = disc;
    probs[6] = probs_for(1, 0.6, 7);
    assert!(apply(&crops, 0.125, &mut probs, &LookalikeConfig::default()).is_empty());
}

/// `crop` with seeded grey noise of +-`amp` on every pixel: as two hatched squares of a
/// scan differ, texture for texture.
fn noisy(crop: &RgbImage, seed: u64, amp: f32) -> RgbImage {
    let mut noise =
        crate::render::xorshift::XorShift64::new(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let mut out = crop.clone();
    for px in out.pixels_mut() {
        let n = (noise.next_f32() * 2.0 - 1.0) * amp;
        let v = (f32::from(px.0[0]) + n).clamp(0.0, 255.0) as u8;
        *px = Rgb([v, v, v]);
    }
    out
}

/// A black "pawn" on a textured dark square, unsure, with a black twin that correlates
/// only about 0.95 (the texture differs) and a white twin far behind. `with_white_twin`
/// false: the white reference is left out.
fn textured_board(with_white_twin: bool) -> (Vec<RgbImage>, Vec<[f32; 13]>) {
    let mut crops = vec![crop(true, false, 0.0, (0.0, 0.0)); 64];
    let mut probs = vec![probs_for(0, 1.0, 0); 64];
    let black = crop(false, true, 7.0, (0.0, 0.0));
    crops[1] = noisy(&black, 1, 20.0);
    probs[1] = probs_for(7, 0.995, 1);
    if with_white_twin {
        crops[3] = noisy(&crop(false, false, 7.0, (0.0, 0.0)), 2, 20.0);
        probs[3] = probs_for(1, 0.995, 7);
    }
    crops[5] = noisy(&black, 3, 20.0);
    probs[5] = probs_for(1, 0.55, 7);
    (crops, probs)
}

#[test]
fn a_textured_twin_counts_when_the_other_colour_falls_far_behind() {
    let (crops, mut probs) = textured_board(true);
    let cfg = LookalikeConfig::default();
    let found = apply(&crops, 0.125, &mut probs, &cfg);
    assert_eq!(found.len(), 1, "{found:?}");
    let l = found[0];
    assert_eq!((l.index, l.twin), (5, 1));
    // The test is only worth its name if the twin is below the plain threshold.
    assert!(
        l.similarity >= cfg.contrast_similarity && l.similarity < cfg.min_similarity,
        "{}",
        l.similarity
    );
    assert_eq!(l.to, SquareClass::from_index(7).unwrap());
}

#[test]
fn a_textured_twin_alone_is_not_enough() {
    let (crops, mut probs) = textured_board(false);
    let before = probs[5];
    assert!(apply(&crops, 0.125, &mut probs, &LookalikeConfig::default()).is_empty());
    assert_eq!(probs[5], before);
}
