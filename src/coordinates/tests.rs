//! Tests of the label reader: votes, spots, and boards drawn as widgets draw them.

use resvg::tiny_skia::{Color, Pixmap};

use super::*;
use crate::render::text::{draw_text, fonts};

/// Every label spot lies in the ring the straightened board samples once (a spot
/// off it would be sampled on its own: right, but slower).
#[test]
fn every_spot_lies_in_the_ring() {
    let spots = spots();
    assert_eq!(spots.len(), 8 * 4 * 4);
    for rect in spots
        .iter()
        .flat_map(|spot| [Some(spot.rect), spot.wider])
        .flatten()
    {
        let [x0, y0, x1, y1] = rect;
        assert!(
            (y0..y1).all(|y| straightened::in_ring(y, x0, x1)),
            "{rect:?}"
        );
    }
}

#[test]
fn votes_decide_only_when_one_side_is_clearly_ahead() {
    let mut votes = [[0usize; 2]; GROUPS];
    assert_eq!(decide(&votes), None);
    // Four labels of one edge read from black's side.
    votes[3] = [0, 4];
    let read = decide(&votes).unwrap();
    assert_eq!(read.orientation, Orientation::Black);
    assert_eq!((read.agreeing, read.disagreeing), (4, 0));
    // Too few in any one group.
    votes[3] = [0, 2];
    assert_eq!(decide(&votes), None);
    // Stray white readings scattered over other groups, as many as the black group
    // holds: a tie.
    votes[3] = [0, 3];
    votes[7] = [2, 0];
    votes[12] = [1, 0];
    assert_eq!(decide(&votes), None);
    // One more black label breaks it.
    votes[3] = [0, 4];
    let read = decide(&votes).unwrap();
    assert_eq!(read.orientation, Orientation::Black);
    assert_eq!((read.agreeing, read.disagreeing), (4, 3));
}

/// A board seen from black's side with its labels on a narrow light frame (a third of
/// a square) and a dark page beyond it, as cm-chessboard draws its "frame" border:
/// file letters (in capitals when `capitals`) below, rank digits on the left when
/// `ranks`. 12 px labels on 60 px squares.
fn framed_board(capitals: bool, ranks: bool) -> (RgbImage, Quad) {
    let cell = 60.0f32;
    let frame = cell / 3.0;
    let page = cell;
    let total = (8.0 * cell + 2.0 * (frame + page)) as u32;
    let mut pm = Pixmap::new(total, total).unwrap();
    pm.fill(Color::from_rgba8(22, 21, 18, 255));
    let origin = page + frame;
    fill(&mut pm, page, page, 8.0 * cell + 2.0 * frame, LIGHT);
    brown_squares(&mut pm, origin, cell);
    let font = &fonts()[0];
    let px = 12.0;
    for k in 0..8 {
        let file = char::from(if capitals { b'H' } else { b'h' } - k as u8).to_string();
        let centre = origin + (k as f32 + 0.5) * cell;
        let below = origin + 8.0 * cell + (frame - px) / 2.0;
        draw_text(&mut pm, font, px, centre - 3.0, below, [30, 30, 30], &file);
        if ranks {
            let rank = char::from(b'1' + k as u8).to_string();
            let x = page + frame / 2.0 - 3.0;
            draw_text(&mut pm, font, px, x, centre - px / 2.0, [30, 30, 30], &rank);
        }
    }
    let end = origin + 8.0 * cell;
    (
        crate::render::scene::to_rgb(&pm),
        Quad([[origin, origin], [end, origin], [end, end], [origin, end]]),
    )
}

/// lichess's brown square colours.
pub(super) const LIGHT: [u8; 3] = [240, 217, 181];
pub(super) const DARK: [u8; 3] = [181, 136, 99];

/// A dark page with a brown board of `cell`-px squares `margin` px in from each side
/// (a light square at the top left), and the board's outline.
pub(super) fn brown_board(cell: f32, margin: f32) -> (Pixmap, Quad) {
    let total = (8.0 * cell + 2.0 * margin) as u32;
    let mut pm = Pixmap::new(total, total).unwrap();
    pm.fill(Color::from_rgba8(22, 21, 18, 255));
    brown_squares(&mut pm, margin, cell);
    let end = margin + 8.0 * cell;
    (
        pm,
        Quad([[margin, margin], [end, margin], [end, end], [margin, end]]),
    )
}

/// lichess's brown squares, `cell` px each, from `origin` px in from the top left (a
/// light square there).
fn brown_squares(pm: &mut Pixmap, origin: f32, cell: f32) {
    for r in 0..8 {
        for f in 0..8 {
            let colour = if (r + f) % 2 == 0 { LIGHT } else { DARK };
            let (x, y) = (origin + f as f32 * cell, origin + r as f32 * cell);
            fill(pm, x, y, cell, colour);
        }
    }
}

/// Fills a `w` x `w` square at (x, y) with `c`.
fn fill(pm: &mut Pixmap, x: f32, y: f32, w: f32, c: [u8; 3]) {
    let rect = resvg::tiny_skia::Rect::from_xywh(x, y, w, w).unwrap();
    let paint = crate::render::theme::paint(c, 255);
    pm.fill_rect(rect, &paint, resvg::tiny_skia::Transform::identity(), None);
}

/// Like chessground's own stylesheet on a large board seen from black's side: 10-px
/// labels (a seventh of a 70-px square) in grey or white at 0.8 opacity, rank digits
/// at the top left of the left column's squares, capital file letters at the bottom
/// right of the bottom row's. Each is under 2% of its spot, and faint.
#[test]
fn small_faint_labels_inside_the_squares_are_read() {
    let cell = 70.0f32;
    let margin = 40.0;
    let (mut pm, quad) = brown_board(cell, margin);
    let (light, dark) = (LIGHT, DARK);
    // The label colour: grey 72 on light squares, white on dark ones, at 0.8 opacity.
    let label = |on: [u8; 3], of: [u8; 3]| -> [u8; 3] {
        let ink = if of == dark { 72.0 } else { 255.0 };
        std::array::from_fn(|c| (0.8 * ink + 0.2 * f32::from(on[c])) as u8)
    };
    let font = &fonts()[0];
    let px = 10.0;
    for r in 0..8 {
        for f in 0..8 {
            let (x, y) = (margin + f as f32 * cell, margin + r as f32 * cell);
            let (own, other) = if (r + f) % 2 == 0 {
                (light, dark)
            } else {
                (dark, light)
            };
            if f == 0 {
                let rank = char::from(b'1' + r as u8).to_string();
                draw_text(
                    &mut pm,
                    font,
                    px,
                    x + 4.0,
                    y + 3.0,
                    label(own, other),
                    &rank,
                );
            }
            if r == 7 {
                let file = char::from(b'H' - f as u8).to_string();
                let fx = x + cell - 14.0;
                draw_text(
                    &mut pm,
                    font,
                    px,
                    fx,
                    y + cell - 13.0,
                    label(own, other),
                    &file,
                );
            }
        }
    }
    let labels =
        read_labels(&crate::render::scene::to_rgb(&pm), &quad).expect("the faint labels are read");
    assert_eq!(labels.reading.orientation, Orientation::Black);
    // Where the letters stand (in squares: 14 px left of their square's right side,
    // 13 px above its foot), on every square of the bottom row; and no box anywhere
    // but at a label's place (the bottom row's bottom right corners, the left
    // column's top left ones, where the digits stand).
    let boxes: Vec<[f32; 4]> = labels.boxes.iter().map(|b| b.map(|v| v * 8.0)).collect();
    let covers = |b: &[f32; 4], x: f32, y: f32| b[0] <= x && x <= b[2] && b[1] <= y && y <= b[3];
    for k in 0..8 {
        let letter = k as f32 + 1.0 - 9.0 / cell;
        assert!(
            boxes.iter().any(|b| covers(b, letter, 7.88)),
            "file {k}: {boxes:?}"
        );
    }
    let at_a_label = |b: &[f32; 4]| {
        let letter = b[1] > 7.5 && b[0].fract() > 0.5;
        let digit = b[2] < 0.5 && b[3].fract() < 0.5;
        letter || digit
    };
    assert!(boxes.iter().all(at_a_label), "{boxes:?}");
    // Nothing is placed in the squares' middles.
    assert!(!boxes.iter().any(|b| covers(b, 3.5, 3.5)));
}

/// One style's labels read on two squares of an edge stand, as the union of their
/// boxes in their squares, on each of the edge's eight squares.
#[test]
fn labels_read_on_some_squares_stand_on_every_square_of_their_edge() {
    let offset = MARGIN * SQUARE as f32;
    // Straightened pixels of a box `[x0, y0, x1, y1]` given in squares.
    let px = |b: [f32; 4]| b.map(|v| (v * SQUARE as f32 + offset).round() as usize);
    // Letters at the bottom right of a1 and c1 (c's a little taller).
    let row = [px([0.7, 7.6, 0.9, 7.85]), px([2.7, 7.55, 2.9, 7.85])];
    let boxes = every_square_of(&row, true);
    assert_eq!(boxes.len(), 8);
    for (k, b) in boxes.iter().enumerate() {
        let b = b.map(|v| v * 8.0);
        let want = [k as f32 + 0.7, 7.55, k as f32 + 0.9, 7.85];
        assert!(
            b.iter().zip(want).all(|(a, w)| (a - w).abs() < 0.02),
            "{k}: {b:?}"
        );
    }
    // Digits at the top left of the left column's squares, along y.
    let row = [px([0.05, 2.05, 0.2, 2.25])];
    let boxes = every_square_of(&row, false);
    let b = boxes[5].map(|v| v * 8.0);
    assert!(
        (b[1] - 5.05).abs() < 0.02 && (b[0] - 0.05).abs() < 0.02,
        "{b:?}"
    );
    // A box off the board's squares along the edge says nothing.
    assert!(every_square_of(&[px([-0.5, 7.6, -0.3, 7.8])], true).is_empty());
}

/// The margin read as a whole is mostly page there, so only its half next to the board
/// finds the labels.
#[test]
fn labels_on_a_narrow_frame_beside_a_dark_page_are_read() {
    let (img, quad) = framed_board(false, true);
    let read = read_coordinates(&img, &quad).expect("the frame's labels are read");
    assert_eq!(read.orientation, Orientation::Black);
}

/// File letters in capitals (chessground's own stylesheet) are read as files.
#[test]
fn file_letters_in_capitals_are_read() {
    let (img, quad) = framed_board(true, false);
    let read = read_coordinates(&img, &quad).expect("capital file letters are read");
    assert_eq!(read.orientation, Orientation::Black);
    // Every one of them (against lower-case letters alone, half of them match by
    // chance: C, c and the like).
    assert_eq!((read.agreeing, read.disagreeing), (8, 0), "{read:?}");
}

/// Square side and margin (px) of [`large_labels_board`].
const LARGE_CELL: f32 = 29.0;
const LARGE_MARGIN: f32 = 30.0;

/// A brown board of 29 px squares with chessboard.js's 14 px labels, white at the bottom:
/// rank digits at the top left of the left column's squares, and the file letters of the
/// files `files` accepts (0 = a) at the bottom right of the bottom row's, each label in the
/// other square colour.
fn large_labels_board(files: impl Fn(usize) -> bool) -> (Pixmap, Quad) {
    let (cell, margin) = (LARGE_CELL, LARGE_MARGIN);
    let (mut pm, quad) = brown_board(cell, margin);
    let font = &fonts()[0];
    // ab_glyph's scale is the font's whole height (ascent to descent), a browser's
    // font-size its em: DejaVu's 14 px em is 16.3 px of it.
    let px = 16.3;
    let ascent = {
        use ab_glyph::{Font, ScaleFont};
        font.as_scaled(ab_glyph::PxScale::from(px)).ascent()
    };
    let other = |r: usize, f: usize| {
        if (r + f).is_multiple_of(2) {
            DARK
        } else {
            LIGHT
        }
    };
    for k in 0..8 {
        let rank = char::from(b'8' - k as u8).to_string();
        let y = margin + k as f32 * cell;
        draw_text(&mut pm, font, px, margin + 2.0, y + 2.0, other(k, 0), &rank);
        if files(k) {
            // Baseline at 0.8 of the bottom row's squares, 3 px in from the right.
            let file = char::from(b'a' + k as u8).to_string();
            let (x, baseline) = (margin + k as f32 * cell, margin + 7.8 * cell);
            let top = baseline - ascent;
            draw_text(&mut pm, font, px, x + cell - 11.0, top, other(7, k), &file);
        }
    }
    (pm, quad)
}

/// chessboard.js on a small board: its labels keep their 14 px while the squares shrink
/// to 29 px, so a file letter in a square's bottom right corner rises past the corner's
/// half of the square (`b`'s stem, `f`). The labels' boxes cover every letter's ink,
/// ascenders and all, so that `clear_labels` can paint out the whole of it.
#[test]
fn large_labels_on_a_small_board_are_read_whole() {
    let (cell, margin) = (LARGE_CELL, LARGE_MARGIN);
    let (pm, quad) = large_labels_board(|_| true);
    let img = crate::render::scene::to_rgb(&pm);
    let labels = read_labels(&img, &quad).expect("the labels are read");
    assert_eq!(labels.reading.orientation, Orientation::White);
    // The ink of each file letter, in board units, lies in one of the boxes (a pixel to
    // spare: a box is where the ink is past half its contrast).
    let slack = 1.0 / (8.0 * cell);
    for k in 0..8 {
        let (x0, y0) = (margin + k as f32 * cell, margin + 7.0 * cell);
        let ground = if (7 + k as usize).is_multiple_of(2) {
            LIGHT
        } else {
            DARK
        };
        let mut ink = [f32::MAX, f32::MAX, f32::MIN, f32::MIN];
        for y in y0 as u32..(y0 + cell) as u32 {
            for x in (x0 + cell / 2.0) as u32..(x0 + cell) as u32 {
                let p = img.get_pixel(x, y).0;
                let away: i32 = (0..3)
                    .map(|c| (i32::from(p[c]) - i32::from(ground[c])).abs())
                    .sum();
                if away > 60 {
                    let (u, v) = (
                        (x as f32 - margin) / (8.0 * cell),
                        (y as f32 - margin) / (8.0 * cell),
                    );
                    ink = [ink[0].min(u), ink[1].min(v), ink[2].max(u), ink[3].max(v)];
                }
            }
        }
        assert!(ink[0] < ink[2], "file {k}: no ink drawn");
        let covered = labels.boxes.iter().any(|b| {
            b[0] - slack <= ink[0]
                && b[1] - slack <= ink[1]
                && ink[2] <= b[2] + slack
                && ink[3] <= b[3] + slack
        });
        assert!(covered, "file {k}: ink {ink:?} outside {:?}", labels.boxes);
    }
}

/// A small man standing whole in the wider corner of an edge square (here a dark bar on
/// h1, where chessboard.js would write "h") is found there as a glyph, but reads as no
/// label the reading expects: it does not widen the labels' boxes, which would paint it
/// out of its square.
#[test]
fn a_man_in_a_wider_corner_is_not_a_label() {
    let (cell, margin) = (LARGE_CELL, LARGE_MARGIN);
    // Only the x-height letters (a, c, e), so that the labels' boxes stay below the bar's
    // top.
    let (mut pm, quad) = large_labels_board(|k| k % 2 == 0 && k <= 4);
    // The bar: 0.5-0.75 of h1 across, 0.42-0.9 down.
    let (x0, y0) = (margin + 7.5 * cell, margin + 7.42 * cell);
    let bar = resvg::tiny_skia::Rect::from_xywh(x0, y0, 0.25 * cell, 0.48 * cell).unwrap();
    let paint = crate::render::theme::paint([40, 30, 20], 255);
    pm.fill_rect(bar, &paint, resvg::tiny_skia::Transform::identity(), None);
    let labels = read_labels(&crate::render::scene::to_rgb(&pm), &quad).expect("labels read");
    assert_eq!(labels.reading.orientation, Orientation::White);
    // No box on the bottom row reaches up to the bar's top (the file letters' boxes; the
    // rank digits' stand at the left of their squares).
    let bottom_row: Vec<[f32; 4]> = labels
        .boxes
        .iter()
        .map(|b| b.map(|v| v * 8.0))
        .filter(|b| b[1] > 7.0 && b[0].fract() > 0.5)
        .collect();
    assert!(!bottom_row.is_empty(), "{:?}", labels.boxes);
    assert!(
        bottom_row.iter().all(|b| b[1] > 7.46),
        "a box reaches the bar: {bottom_row:?}"
    );
}

/// A spot says why it holds no label: a blank corner (nothing reaches into it, so the
/// wider corner is not looked at) or ink that is no label standing free there (b1's "b",
/// its stem cut by the half corner's side, which the wider corner holds whole).
#[test]
fn a_blank_corner_is_told_from_a_label_it_cuts() {
    let (pm, quad) = large_labels_board(|_| true);
    let img = crate::render::scene::to_rgb(&pm);
    let board = Straightened::new(&img, &quad).expect("straightened");
    let offset = MARGIN * SQUARE as f32;
    let px = |b: [f32; 4]| b.map(|v| (v * SQUARE as f32 + offset).round() as usize);
    // b1 is column 1, row 7 in squares from the top left.
    assert_eq!(
        glyph_at(&board, px([1.5, 7.5, 2.0, 8.0])).err(),
        Some(NoGlyph::NotALabel)
    );
    assert!(glyph_at(&board, px([1.375, 7.375, 2.0, 8.0])).is_ok());
    assert_eq!(
        glyph_at(&board, px([1.0, 7.0, 1.5, 7.5])).err(),
        Some(NoGlyph::Blank)
    );
}

/// chessboard.js's rank digits stand 2 px from its dark border: in the top-left corner
/// spot the border is the darkest ink, its contrast sets the threshold, and a digit in
/// the other square's colour falls under it. The border passes through the spot's side,
/// so the spot is looked at again without it: each digit is read in the corner itself
/// (before, only a wider corner sometimes read it, and a board whose file letters
/// decided alone had no boxes for its digits, which `clear_labels` then could not paint
/// out).
#[test]
fn rank_digits_beside_a_dark_border_are_read() {
    let (cell, margin) = (56.0f32, 40.0f32);
    let end = margin + 8.0 * cell;
    let total = end + margin;
    // A white page, the board's 2 px border just outside its squares, the squares.
    let mut pm = Pixmap::new(total as u32, total as u32).unwrap();
    pm.fill(Color::WHITE);
    fill(
        &mut pm,
        margin - 2.0,
        margin - 2.0,
        8.0 * cell + 4.0,
        [64, 64, 64],
    );
    brown_squares(&mut pm, margin, cell);
    let font = &fonts()[0];
    for k in 0..8 {
        let rank = char::from(b'8' - k as u8).to_string();
        let other = if k % 2 == 0 { DARK } else { LIGHT };
        let y = margin + k as f32 * cell;
        draw_text(&mut pm, font, 16.3, margin + 2.0, y + 2.0, other, &rank);
        // The file letters at the bottom right, read by themselves.
        let file = char::from(b'a' + k as u8).to_string();
        let other = if k % 2 == 0 { LIGHT } else { DARK };
        let x = margin + (k as f32 + 1.0) * cell - 11.0;
        draw_text(&mut pm, font, 16.3, x, end - 20.0, other, &file);
    }
    // The board as a finder may give it, a pixel and a half wide of the squares: the
    // border reaches into the spots.
    let (a, b) = (margin - 1.5, end + 1.5);
    let quad = Quad([[a, a], [b, a], [b, b], [a, b]]);
    let img = crate::render::scene::to_rgb(&pm);
    // Each digit is read in its square's top-left corner, the half the spots look at
    // first.
    let board = Straightened::new(&img, &quad).expect("straightened");
    let (s, m) = (SQUARE, (MARGIN * SQUARE as f32) as usize);
    for k in 0..8 {
        let spot = [m, m + k * s, m + s / 2, m + k * s + s / 2];
        let glyph = glyph_at(&board, spot).map(|(g, _)| best_label(&g, templates(), true));
        assert_eq!(
            glyph,
            Ok(Some(char::from(b'8' - k as u8))),
            "rank {}",
            8 - k
        );
    }
    let labels = read_labels(&img, &quad).expect("labels read");
    assert_eq!(labels.reading.orientation, Orientation::White);
    // The digits' boxes too (the left column's top-left corners), not only the letters'.
    let digits = labels
        .boxes
        .iter()
        .map(|b| b.map(|v| v * 8.0))
        .filter(|b| b[0] > 0.0 && b[2] < 0.5 && b[3].fract() < 0.7)
        .count();
    assert_eq!((labels.boxes.len(), digits), (16, 8), "{:?}", labels.boxes);
}
