//! Orientation from coordinate labels: boards drawn from either side with labels inside
//! the squares or outside the frame are read the right way up; boards without labels
//! give no reading (the position decides then).

use fenscan::coordinates::read_coordinates;
use fenscan::render::config::OverlayConfig;
use fenscan::render::{Coordinates, PieceSet, Renderer, SynthConfig, pieces::builtin_dir};

use crate::util::screenshot_degradations;

fn config(inside: f64, outside: f64) -> SynthConfig {
    let mut cfg = SynthConfig {
        overlays: OverlayConfig::NONE,
        degrade: screenshot_degradations(),
        ..SynthConfig::default()
    };
    cfg.scene.min_board = 400;
    cfg.scene.max_board = 800;
    // Not cropped to the board: outside labels stay in the picture.
    cfg.scene.cropped = 0.0;
    cfg.scene.rotation.probability = 0.0;
    cfg.scene.perspective.probability = 0.0;
    cfg.look.black_bottom = 0.5;
    cfg.look.coordinates_inside = inside;
    cfg.look.coordinates_outside = outside;
    cfg
}

#[test]
fn labels_tell_which_side_is_at_the_bottom() {
    let renderer = Renderer::new(
        vec![PieceSet::load(&builtin_dir()).unwrap()],
        config(0.5, 0.5),
    )
    .unwrap();
    let (mut right, mut read, mut report) = (0, 0, Vec::new());
    let n = 16;
    for i in 0..n {
        let r = renderer.render(5, i);
        assert_ne!(r.coordinates, Coordinates::None);
        match read_coordinates(&r.image, &r.quad) {
            Some(reading) => {
                read += 1;
                if reading.orientation == r.orientation {
                    right += 1;
                } else {
                    report.push(format!("{i}: {:?} read as {reading:?}", r.orientation));
                }
            }
            None => report.push(format!(
                "{i}: {:?} {:?} not read",
                r.orientation, r.coordinates
            )),
        }
    }
    // Never the wrong way round; most boards read.
    assert_eq!(right, read, "{}", report.join("\n"));
    assert!(
        read >= n as usize * 3 / 4,
        "only {read}/{n} read:\n{}",
        report.join("\n")
    );
}

#[test]
fn boards_without_labels_give_no_reading() {
    let renderer = Renderer::new(
        vec![PieceSet::load(&builtin_dir()).unwrap()],
        config(0.0, 0.0),
    )
    .unwrap();
    for i in 0..8 {
        let r = renderer.render(6, i);
        if r.coordinates == Coordinates::None {
            let reading = read_coordinates(&r.image, &r.quad);
            assert!(
                reading.is_none() || reading.map(|x| x.orientation) == Some(r.orientation),
                "{i}: {reading:?} from a board without labels"
            );
        }
    }
}
