//! Bent boards (a page curling towards a book's spine, a camera's barrel distortion): the
//! finder measures the bend on the inner corners, and the pipeline reads the board with it
//! taken out. Flat boards have none.

use fenscan::board::{FinderConfig, find};
use fenscan::recognize::RecognizeOptions;
use image::RgbImage;

use crate::pipeline::{screenshots, white_below};
use crate::util::{own_set_renderer, shipped};

/// `img` seen through a lens with barrel distortion `k` centred on `centre`: a point at
/// radius `r` (a share of `radius`) moves to `r (1 - k r^2)`, so straight lines off the
/// centre bow outwards.
fn barrel(img: &RgbImage, centre: [f32; 2], radius: f32, k: f32) -> RgbImage {
    RgbImage::from_fn(img.width(), img.height(), |x, y| {
        let (dx, dy) = (
            (x as f32 + 0.5 - centre[0]) / radius,
            (y as f32 + 0.5 - centre[1]) / radius,
        );
        // Where the distorted picture's pixel comes from: the inverse of r -> r (1 - k r^2)
        // by fixed-point steps (k small).
        let r = (dx * dx + dy * dy).sqrt();
        let mut s = r;
        for _ in 0..4 {
            s = r / (1.0 - k * s * s);
        }
        let f = if r > 0.0 { s / r } else { 1.0 };
        let (sx, sy) = (centre[0] + dx * f * radius, centre[1] + dy * f * radius);
        let p = fenscan::squares::sample_bilinear(img, sx - 0.5, sy - 0.5);
        image::Rgb(p.map(|v| v.clamp(0.0, 255.0).round() as u8))
    })
}

/// Boards filling most of a plain picture, so that the distortion bends their edges.
fn large_board_config() -> fenscan::render::SynthConfig {
    let mut cfg = screenshots(300);
    cfg.positions.random_placement = 0.0;
    cfg.scene.cropped = 1.0;
    cfg.look.book_theme = 0.0;
    cfg
}

fn large_boards() -> fenscan::render::Renderer {
    own_set_renderer(large_board_config())
}

#[test]
fn a_bent_board_is_read_with_its_bend_taken_out() {
    let renderer = large_boards();
    let rec = shipped();
    let (mut straightened, mut exact, mut exact_unstraightened) = (0, 0, 0);
    let n = 4;
    for i in 0..n as u64 {
        let r = renderer.render(49, i);
        // Padded with page around it first: the distortion must keep the board inside.
        let pad = r.image.width() / 5;
        let mut page = RgbImage::from_pixel(
            r.image.width() + 2 * pad,
            r.image.height() + 2 * pad,
            image::Rgb([235, 235, 235]),
        );
        image::imageops::replace(&mut page, &r.image, i64::from(pad), i64::from(pad));
        // The bend moves the board's corners about two thirds of a square from where the
        // inner corners' best homography puts them: unstraightened, corner squares are lost.
        let centre = [
            r.quad.centre()[0] + pad as f32,
            r.quad.centre()[1] + pad as f32,
        ];
        let radius = r.quad.mean_side() / 2f32.sqrt();
        let bent = barrel(&page, centre, radius, 0.15);
        let found = find(&bent, &FinderConfig::default()).expect("the bent board is found");
        let bend = found.bend.as_ref().expect("its bend is measured");
        assert!(bend.largest > 0.05, "image {i}: {bend:?}");
        let got = rec.recognize(&bent, &white_below()).unwrap();
        straightened += usize::from(got.straightened);
        exact += usize::from(got.placement == r.placement);
        let flat_only = RecognizeOptions {
            straighten: false,
            ..white_below()
        };
        let plain = rec.recognize(&bent, &flat_only).unwrap();
        assert!(!plain.straightened);
        exact_unstraightened += usize::from(plain.placement == r.placement);
        // The outline is given in the picture's pixels, straightened where the bend puts
        // the board's corners: nearer the bent board's own than the homography's.
        let corners = fenscan::quad::Quad(r.quad.0.map(|p| {
            let (dx, dy) = (
                (p[0] + pad as f32 - centre[0]) / radius,
                (p[1] + pad as f32 - centre[1]) / radius,
            );
            let f = 1.0 - 0.15 * (dx * dx + dy * dy);
            [centre[0] + dx * f * radius, centre[1] + dy * f * radius]
        }));
        let miss = |q: &fenscan::quad::Quad| q.max_corner_distance(&corners) / corners.mean_side();
        assert!(
            !got.straightened || miss(&got.board.quad) < 0.5 * miss(&plain.board.quad),
            "image {i}: corners {:.4} of the side off straightened, {:.4} not",
            miss(&got.board.quad),
            miss(&plain.board.quad)
        );
    }
    assert!(
        straightened >= n - 1,
        "{straightened} of {n} read straightened"
    );
    assert!(
        exact == n && exact_unstraightened < n,
        "exact: {exact} straightened, {exact_unstraightened} not, of {n}"
    );
}

#[test]
fn flat_boards_have_no_bend() {
    let renderer = large_boards();
    for i in 0..6 {
        let r = renderer.render(50, i);
        let found = find(&r.image, &FinderConfig::default()).unwrap();
        assert!(found.bend.is_none(), "image {i}: {:?}", found.bend);
    }
}

/// synth's page curl and lens bend the very boards drawn without them, and their labels
/// keep the board's corners where the bend puts them: the bent outline the finder reports
/// lands on them.
#[test]
fn synth_bends_boards_and_labels_their_corners() {
    use fenscan::render::config::Effect;
    // Large boards with some page around them: a page lifting towards the camera would
    // carry the corners of a board filling its picture out of it.
    let mut plain = large_board_config();
    plain.scene.cropped = 0.0;
    plain.scene.min_board_fraction = 0.6;
    let (mut curled, mut lensed) = (plain, plain);
    curled.scene.curl = Effect {
        probability: 1.0,
        strength: 60.0,
    };
    lensed.scene.lens = Effect {
        probability: 1.0,
        strength: 0.15,
    };
    let flat = own_set_renderer(plain);
    for (cfg, effect) in [(curled, "curl:"), (lensed, "lens:")] {
        let renderer = own_set_renderer(cfg);
        let (mut bent, mut measured) = (0, 0);
        for i in 0..6 {
            let (x, y) = (flat.render(7, i), renderer.render(7, i));
            assert_eq!(x.placement, y.placement, "{effect} image {i}");
            assert!(!x.effects.iter().any(|e| e.starts_with(effect)));
            let Some(drawn) = y.effects.iter().find(|e| e.starts_with(effect)) else {
                continue;
            };
            bent += 1;
            let found = find(&y.image, &FinderConfig::default()).expect("the board is found");
            let corners = found.bend.as_ref().map_or(found.quad, |b| b.corners());
            let miss = y
                .quad
                .0
                .iter()
                .map(|p| {
                    corners
                        .0
                        .iter()
                        .map(|q| fenscan::quad::dist(*p, *q))
                        .fold(f32::MAX, f32::min)
                })
                .fold(0.0, f32::max)
                / y.quad.mean_side();
            // A mild bend is left to the homography (the bend is measured from a fifth of
            // a square at the corners); a measured one puts the corners closer.
            let within = if found.bend.is_some() { 0.02 } else { 0.03 };
            measured += usize::from(found.bend.is_some());
            assert!(
                miss < within,
                "{drawn} image {i}: corners {miss:.4} of the side off (bend {:?})",
                found.bend.as_ref().map(|b| b.largest)
            );
        }
        assert!(
            measured >= 2,
            "{effect}: bend measured on {measured} of {bent}"
        );
        assert!(bent >= 4, "{effect} drawn on {bent} of 6");
    }
}
