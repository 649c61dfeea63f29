use super::*;
use crate::coordinates::read_coordinates;
use crate::coordinates::tests::{DARK, LIGHT, brown_board};
use crate::quad::Quad;
use crate::render::text::{draw_text, fonts};
use image::RgbImage;

/// A board drawn as chessground's own stylesheet draws a small one (40-px squares):
/// 9-px labels at 0.8 opacity, grey and white by turns, rank digits across their
/// squares' top lines (20 px up, then down 39% of a square), capital file letters half
/// a square and 24 px right of their squares' left sides, in the next file's square.
/// White at the bottom unless `black`.
fn chessground_small(black: bool) -> (RgbImage, Quad) {
    let cell = 40.0f32;
    let margin = 60.0;
    let (mut pm, quad) = brown_board(cell, margin);
    let (light, dark) = (LIGHT, DARK);
    let font = &fonts()[0];
    // 11 px, not 9: a browser's hinted 9-px text has crisper strokes than this
    // rasteriser's, whose thin strokes fade too much to be read at 9 px. The test is
    // about where the labels stand.
    let px = 11.0;
    // Label colour over the square under it: grey 72 or white at 0.8 opacity.
    let ink = |grey: bool, under: [u8; 3]| -> [u8; 3] {
        let v = if grey { 72.0 } else { 255.0 };
        std::array::from_fn(|c| (0.8 * v + 0.2 * f32::from(under[c])) as u8)
    };
    for k in 0..8 {
        let grey = k % 2 == 0;
        // Row k from the top: its rank, drawn across the row's top line.
        let rank = if black {
            b'1' + k as u8
        } else {
            b'8' - k as u8
        };
        let top = margin + k as f32 * cell - 20.0 + 0.39 * cell;
        let under = if k % 2 == 0 { light } else { dark };
        draw_text(
            &mut pm,
            font,
            px,
            margin + 4.0,
            top,
            ink(grey, under),
            &char::from(rank).to_string(),
        );
        // File k from the left, drawn in file k + 1's square.
        let file = if black {
            b'H' - k as u8
        } else {
            b'A' + k as u8
        };
        let centre = margin + k as f32 * cell + cell / 2.0 + 24.0;
        let under = if (7 + k + 1) % 2 == 0 { light } else { dark };
        let y = margin + 8.0 * cell - 12.0;
        draw_text(
            &mut pm,
            font,
            px,
            centre - 3.0,
            y,
            ink(!grey, under),
            &char::from(file).to_string(),
        );
    }
    (crate::render::scene::to_rgb(&pm), quad)
}

#[test]
fn labels_across_the_square_lines_are_read() {
    for black in [false, true] {
        let (img, quad) = chessground_small(black);
        let board = Straightened::new(&img, &quad).unwrap();
        assert_eq!(
            super::super::read_spots(&board),
            None,
            "the spots see no label"
        );
        let read = read_coordinates(&img, &quad).expect("the labels are read");
        let want = if black {
            Orientation::Black
        } else {
            Orientation::White
        };
        assert_eq!(read.orientation, want, "{read:?}");
        assert!(read.agreeing >= MIN_LINED_UP, "{read:?}");
    }
}

fn found(along: f32, index: usize) -> Found {
    Found {
        along,
        across: 0.3,
        height: 12.0,
        index,
        bounds: [0; 4],
    }
}

#[test]
fn labels_must_line_up_with_one_shift() {
    // Files from black's side, each half a square right of its square's middle.
    let black: Vec<Found> = [7, 6, 5, 3]
        .iter()
        .map(|&i| found(8.0 - i as f32, i))
        .collect();
    assert_eq!(lined_up(&black, Orientation::Black).0, 4);
    assert_eq!(lined_up(&black, Orientation::White).0, 0);
    let read = decide(&[black.clone(), vec![], vec![], vec![]]).unwrap();
    assert_eq!(read.orientation, Orientation::Black);
    // The same letters at scattered places line up for neither side.
    let scattered: Vec<Found> = [(0.3, 7), (2.9, 6), (3.4, 5), (6.6, 3)]
        .iter()
        .map(|&(a, i)| found(a, i))
        .collect();
    assert_eq!(decide(&[scattered, vec![], vec![], vec![]]), None);
    // A label twice (a misread) counts once; two labels are not enough.
    let twice = vec![found(1.0, 7), found(2.0, 6), found(2.05, 6)];
    assert_eq!(lined_up(&twice, Orientation::Black).0, 2);
    assert_eq!(decide(&[twice, vec![], vec![], vec![]]), None);
    // Labels drawn at other sizes are not one style.
    let mut mixed = black.clone();
    mixed[1].height = 30.0;
    mixed[2].across = 0.6;
    assert_eq!(lined_up(&mixed, Orientation::Black).0, 2);
    // Other labels that line up the other way, once the winners are set aside, leave
    // the reading undecided.
    let mut contested = black;
    contested.extend([found(0.5, 0), found(1.5, 1), found(2.5, 2)]);
    assert_eq!(lined_up(&contested, Orientation::White).0, 3);
    assert_eq!(decide(&[contested, vec![], vec![], vec![]]), None);
    // On a textured board (dozens of glyphs, all read as one label here) four labels
    // in line are not enough; five are.
    let texture: Vec<Found> = (0..40).map(|k| found(k as f32 * 0.2, 2)).collect();
    let four: Vec<Found> = [7, 6, 5, 3]
        .iter()
        .map(|&i| found(8.0 - i as f32, i))
        .collect();
    assert_eq!(
        decide(&[four.clone(), texture.clone(), vec![], vec![]]),
        None
    );
    let mut five = four;
    five.push(found(7.0, 1));
    let read = decide(&[five, texture, vec![], vec![]]).unwrap();
    assert_eq!((read.orientation, read.agreeing), (Orientation::Black, 5));
}

/// Every band lies in the ring the straightened board samples once.
#[test]
fn every_band_lies_in_the_ring() {
    for edge in Edge::ALL {
        let ([x0, y0, x1, y1], _, _) = band(edge);
        assert!(x1 <= CANVAS && y1 <= CANVAS);
        assert!(
            (y0..y1).all(|y| crate::coordinates::straightened::in_ring(y, x0, x1)),
            "{edge:?}"
        );
    }
}
