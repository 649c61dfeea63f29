//! Coordinate labels on a drawn board: inside the edge squares or outside the frame.

use rand::{Rng, RngExt};
use resvg::tiny_skia::Pixmap;

use super::board::{BoardLook, Orientation};
use super::overlay::Grid;
use super::text::{draw_text, fonts, text_width};

/// Files from the left edge to the right as drawn.
fn file_labels(o: Orientation) -> Vec<char> {
    let files: Vec<char> = "abcdefgh".chars().collect();
    match o {
        Orientation::White => files,
        Orientation::Black => files.into_iter().rev().collect(),
    }
}

/// Ranks from the top edge to the bottom as drawn.
fn rank_labels(o: Orientation) -> Vec<char> {
    let ranks: Vec<char> = "87654321".chars().collect();
    match o {
        Orientation::White => ranks,
        Orientation::Black => ranks.into_iter().rev().collect(),
    }
}

/// File and rank labels inside the edge squares, in the other square colour (as lichess
/// and chess.com draw them).
pub(super) fn inside_coordinates(
    pm: &mut Pixmap,
    grid: &Grid,
    look: &BoardLook<'_>,
    rng: &mut impl Rng,
) {
    let fonts = fonts();
    let Some(font) = fonts.get(rng.random_range(0..fonts.len().max(1))) else {
        return;
    };
    let px = grid.cell * rng.random_range(0.18..0.28);
    let pad = grid.cell * 0.05;
    let files = file_labels(look.orientation);
    let ranks = rank_labels(look.orientation);
    // Label colour: the other square colour, as lichess and chess.com do.
    for (col, file) in files.iter().enumerate() {
        let dark = (7 + col) % 2 == 1;
        let rgb = if dark {
            look.theme.light
        } else {
            look.theme.dark
        };
        let label = file.to_string();
        let x = grid.x + (col as f32 + 1.0) * grid.cell - text_width(font, px, &label) - pad;
        let y = grid.y + 8.0 * grid.cell - px * 1.15 - pad;
        draw_text(pm, font, px, x, y, rgb, &label);
    }
    for (row, rank) in ranks.iter().enumerate() {
        let dark = row % 2 == 1;
        let rgb = if dark {
            look.theme.light
        } else {
            look.theme.dark
        };
        draw_text(
            pm,
            font,
            px,
            grid.x + pad,
            grid.y + row as f32 * grid.cell + pad,
            rgb,
            &rank.to_string(),
        );
    }
}

/// File and rank labels in the margin outside the frame, as books print them: below and
/// left, sometimes on all four sides.
pub(super) fn outside_coordinates(
    pm: &mut Pixmap,
    grid: &Grid,
    look: &BoardLook<'_>,
    margin: f32,
    rng: &mut impl Rng,
) {
    let fonts = fonts();
    let Some(font) = fonts.get(rng.random_range(0..fonts.len().max(1))) else {
        return;
    };
    let px = (margin * rng.random_range(0.55..0.8)).max(5.0);
    let files = file_labels(look.orientation);
    let ranks = rank_labels(look.orientation);
    let ink = [rng.random_range(0..60u8); 3];
    let side = grid.cell * 8.0;
    let both_sides = rng.random_bool(0.3);
    for (col, file) in files.iter().enumerate() {
        let label = file.to_string();
        let x = grid.x + (col as f32 + 0.5) * grid.cell - text_width(font, px, &label) / 2.0;
        draw_text(
            pm,
            font,
            px,
            x,
            grid.y + side + look.frame * 2.0 + (margin - px) / 2.0,
            ink,
            &label,
        );
        if both_sides {
            draw_text(
                pm,
                font,
                px,
                x,
                grid.y - look.frame * 2.0 - margin + (margin - px) / 2.0,
                ink,
                &label,
            );
        }
    }
    for (row, rank) in ranks.iter().enumerate() {
        let label = rank.to_string();
        let y = grid.y + (row as f32 + 0.5) * grid.cell - px * 0.6;
        let x = grid.x - look.frame * 2.0 - margin / 2.0 - text_width(font, px, &label) / 2.0;
        draw_text(pm, font, px, x, y, ink, &label);
        if both_sides {
            draw_text(
                pm,
                font,
                px,
                grid.x + side + look.frame * 2.0 + margin / 2.0
                    - text_width(font, px, &label) / 2.0,
                y,
                ink,
                &label,
            );
        }
    }
}
