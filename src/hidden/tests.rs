use super::*;
use crate::last_move::grounds;
use image::Rgb;

const LIGHT: [u8; 3] = [238, 238, 210];
const DARK: [u8; 3] = [118, 150, 86];
const CONTEXT: f32 = 0.125;

fn ground(i: usize) -> [u8; 3] {
    if parity(i) == 0 { LIGHT } else { DARK }
}

/// A 32 px crop of square `i`: its ground, with a dark disc (a man) when `man`.
fn crop(i: usize, man: bool) -> RgbImage {
    RgbImage::from_fn(32, 32, |x, y| {
        let (dx, dy) = (x as f32 - 15.5, y as f32 - 15.5);
        if man && dx * dx + dy * dy < 64.0 {
            Rgb([30, 30, 30])
        } else {
            Rgb(ground(i))
        }
    })
}

/// A board with men on the first two and last two ranks, read surely as such.
fn board() -> (Vec<RgbImage>, Vec<[f32; 13]>) {
    let man = |i: usize| !(16..48).contains(&i);
    let crops = (0..64).map(|i| crop(i, man(i))).collect();
    let probs = (0..64)
        .map(|i| {
            let mut row = [0.0; 13];
            row[if man(i) { 7 } else { 0 }] = 1.0;
            row
        })
        .collect();
    (crops, probs)
}

/// Paints `rgb` with opacity `alpha` over the crops' squares of rows `rows` and files
/// `cols` (whole squares), the context borders too.
fn paint_over(
    crops: &mut [RgbImage],
    rows: std::ops::Range<usize>,
    cols: std::ops::Range<usize>,
    rgb: [u8; 3],
    alpha: f32,
) {
    for r in rows {
        for c in cols.clone() {
            for p in crops[r * 8 + c].pixels_mut() {
                for (v, &paint) in p.0.iter_mut().zip(&rgb) {
                    *v = (f32::from(*v) * (1.0 - alpha) + f32::from(paint) * alpha).round() as u8;
                }
            }
        }
    }
}

/// The hidden squares of a board, with the default settings.
fn hidden_on(crops: &[RgbImage], probs: &[[f32; 13]]) -> Vec<usize> {
    find(
        crops,
        CONTEXT,
        &grounds(crops, CONTEXT),
        probs,
        &HiddenConfig::default(),
    )
}

/// The squares of rows `rows` and files `cols`, in reading order.
fn block(rows: std::ops::Range<usize>, cols: std::ops::Range<usize>) -> Vec<usize> {
    rows.flat_map(|r| cols.clone().map(move |c| r * 8 + c))
        .collect()
}

#[test]
fn an_opaque_dialog_hides_the_squares_beneath() {
    let (mut crops, probs) = board();
    // Over ranks 6-4 (rows 2-4), files b-e: men beneath would be read as empty squares.
    paint_over(&mut crops, 2..5, 1..5, [43, 41, 39], 1.0);
    let hidden = hidden_on(&crops, &probs);
    assert_eq!(hidden, block(2..5, 1..5));
}

#[test]
fn a_dialog_the_colour_of_the_light_squares_is_still_found() {
    let (mut crops, probs) = board();
    paint_over(&mut crops, 3..6, 2..6, LIGHT, 1.0);
    let hidden = hidden_on(&crops, &probs);
    assert_eq!(hidden, block(3..6, 2..6));
}

#[test]
fn a_panel_over_part_of_the_edge_squares_hides_them_too() {
    let (mut crops, probs) = board();
    paint_over(&mut crops, 2..5, 2..5, [250, 250, 250], 1.0);
    // Half of the squares of file f beside the panel.
    for r in 2..5 {
        for y in 0..32 {
            for x in 0..16 {
                crops[r * 8 + 5].put_pixel(x, y, Rgb([250, 250, 250]));
            }
        }
    }
    let hidden = hidden_on(&crops, &probs);
    for r in 2..5 {
        for c in 2..6 {
            assert!(hidden.contains(&(r * 8 + c)), "{r} {c}: {hidden:?}");
        }
    }
    assert_eq!(hidden.len(), 12);
}

#[test]
fn highlights_are_not_panels() {
    // A last move: two half-transparent squares.
    let (mut crops, probs) = board();
    paint_over(&mut crops, 3..4, 4..5, [255, 255, 0], 0.5);
    paint_over(&mut crops, 4..5, 4..5, [255, 255, 0], 0.5);
    assert!(hidden_on(&crops, &probs).is_empty());
    // A bishop's moves: four tinted squares on one diagonal.
    let (mut crops, probs) = board();
    for k in 0..4 {
        paint_over(&mut crops, 2 + k..3 + k, 1 + k..2 + k, [200, 60, 60], 0.6);
    }
    assert!(hidden_on(&crops, &probs).is_empty());
    // Two ranks of half-transparent squares: light and dark come out in two colours.
    let (mut crops, probs) = board();
    paint_over(&mut crops, 3..5, 0..8, [40, 90, 200], 0.5);
    assert!(hidden_on(&crops, &probs).is_empty());
}

#[test]
fn a_man_seen_beside_a_panel_is_left_out_and_text_inside_it_is_not() {
    let (mut crops, mut probs) = board();
    paint_over(&mut crops, 2..5, 1..5, [43, 41, 39], 1.0);
    // Light text on the panel, which the classifier reads as a white man, surely.
    let text = 3 * 8 + 2;
    for (x, y, p) in crops[text].enumerate_pixels_mut() {
        if (10..22).contains(&x) && (12..16).contains(&y) {
            *p = Rgb([250, 250, 250]);
        }
    }
    probs[text] = [0.0; 13];
    probs[text][1] = 0.99;
    // A man beside it on f5, his square a third covered by the panel's edge, read surely.
    let beside = 3 * 8 + 5;
    for (x, y, p) in crops[beside].enumerate_pixels_mut() {
        if x < 11 {
            *p = Rgb([43, 41, 39]);
        } else if (x as f32 - 20.0).powi(2) + (y as f32 - 15.5).powi(2) < 30.0 {
            *p = Rgb([250, 250, 250]);
        }
    }
    probs[beside] = [0.0; 13];
    probs[beside][1] = 0.99;
    let hidden = hidden_on(&crops, &probs);
    assert!(hidden.contains(&text), "{hidden:?}");
    assert!(!hidden.contains(&beside), "{hidden:?}");
    assert_eq!(hidden.len(), 12);
}

#[test]
fn a_plain_board_has_nothing_hidden() {
    let (crops, probs) = board();
    assert!(hidden_on(&crops, &probs).is_empty());
    assert!(hidden_on(&crops[..10], &probs).is_empty());
}
