//! The marks apps draw on a board: highlighted squares, frames and check glows under the
//! men; move dots, circles, arrows, marker dots and crosses over them. Each kind is drawn
//! with its overlay's probability and named in the board's overlay list.

use rand::{Rng, RngExt};
use resvg::tiny_skia::Pixmap;

use super::arrows;
use super::board::BoardLook;
use super::config::OverlayConfig;
use super::overlay::{self, Grid};
use super::theme::is_book_theme;
use crate::class::SquareClass;
use crate::last_move::{MoveSquares, could_have_moved};
use crate::placement::Placement;

/// The marks under the men (drawn before them). Returns the played move drawn
/// (`overlays.played_move`, never on a printed board: apps highlight moves, books do not),
/// if any.
pub(super) fn under_pieces(
    pm: &mut Pixmap,
    grid: &Grid,
    placement: &Placement,
    look: &BoardLook<'_>,
    cfg: &OverlayConfig,
    rng: &mut impl Rng,
    overlays: &mut Vec<String>,
) -> Option<MoveSquares> {
    if rng.random_bool(cfg.last_move) {
        on_random_squares(pm, grid, rng, 2, overlay::highlight);
        overlays.push("last_move".into());
    }
    if rng.random_bool(cfg.marks) {
        let count = rng.random_range(1..=4);
        on_random_squares(pm, grid, rng, count, overlay::highlight);
        overlays.push("marks".into());
    }
    newer_marks(
        pm,
        grid,
        rng,
        (cfg.frames, 3),
        overlay::inset_frame,
        "frames",
        overlays,
    );
    if rng.random_bool(cfg.check_glow) {
        let kings: Vec<usize> = (0..64).filter(|&i| matches!(placement.0[look.orientation.placement_index(i / 8, i % 8)], SquareClass::Piece(p) if p.role == shakmaty::Role::King)).collect();
        if let Some(&k) = kings.get(rng.random_range(0..kings.len().max(1))) {
            overlay::check_glow(pm, grid, (k / 8, k % 8));
            overlays.push("check".into());
        }
    }
    // Guarded as the newer marks are.
    if cfg.played_move > 0.0 && !is_book_theme(look.theme) && rng.random_bool(cfg.played_move) {
        let played = played_move(placement, rng)?;
        let tint = overlay::last_move_tint(rng);
        for sq in [played.from, played.to] {
            overlay::tint_square(pm, grid, look.orientation.displayed(sq), tint);
        }
        overlays.push("played_move".into());
        return Some(played);
    }
    None
}

/// A move that could have just been played in `placement`: a man of a random side and an
/// empty square it could have come from (every such pair of that side equally likely;
/// the other side when this one has none).
fn played_move(placement: &Placement, rng: &mut impl Rng) -> Option<MoveSquares> {
    let first = if rng.random_bool(0.5) {
        shakmaty::Color::White
    } else {
        shakmaty::Color::Black
    };
    for side in [first, !first] {
        let moves: Vec<MoveSquares> = placement
            .pieces()
            .filter(|(_, p)| p.color == side)
            .flat_map(|(to, piece)| {
                shakmaty::Square::ALL
                    .into_iter()
                    .filter(move |&from| could_have_moved(placement, piece, from, to))
                    .map(move |from| MoveSquares { from, to })
            })
            .collect();
        if !moves.is_empty() {
            return Some(moves[rng.random_range(0..moves.len())]);
        }
    }
    None
}

/// The marks over the men (drawn after them); `occupied(row, col)` says where a man stands.
/// Returns the empty squares a letter or sign was written on (`overlays.square_letters`),
/// bit `row * 8 + col`.
pub(super) fn over_pieces(
    pm: &mut Pixmap,
    grid: &Grid,
    occupied: &dyn Fn(usize, usize) -> bool,
    cfg: &OverlayConfig,
    rng: &mut impl Rng,
    overlays: &mut Vec<String>,
) -> u64 {
    let mut lettered = 0u64;
    if rng.random_bool(cfg.move_dots) {
        let from = rng.random_range(0..64usize);
        for _ in 0..rng.random_range(1..=6) {
            let s = rng.random_range(0..64usize);
            if s != from {
                overlay::move_dot(pm, grid, (s / 8, s % 8), occupied(s / 8, s % 8));
            }
        }
        overlays.push("move_dots".into());
    }
    if rng.random_bool(cfg.circles) {
        let count = rng.random_range(1..=3);
        on_random_squares(pm, grid, rng, count, overlay::circle);
        overlays.push("circles".into());
    }
    if rng.random_bool(cfg.arrows) {
        random_arrows(pm, grid, rng, 4, arrows::arrow);
        overlays.push("arrows".into());
    }
    newer_marks(
        pm,
        grid,
        rng,
        (cfg.dots, 6),
        overlay::marker_dot,
        "dots",
        overlays,
    );
    newer_marks(
        pm,
        grid,
        rng,
        (cfg.crosses, 3),
        overlay::cross_mark,
        "crosses",
        overlays,
    );
    // Guarded as the newer marks are.
    if cfg.book_arrows > 0.0 && rng.random_bool(cfg.book_arrows) {
        random_arrows(pm, grid, rng, 3, arrows::book_arrow);
        overlays.push("book_arrows".into());
    }
    // Guarded as the newer marks are.
    if cfg.square_letters > 0.0 && rng.random_bool(cfg.square_letters) {
        for _ in 0..rng.random_range(1..=4) {
            let s = rng.random_range(0..64usize);
            if !occupied(s / 8, s % 8) {
                overlay::square_letter(pm, grid, (s / 8, s % 8), rng);
                lettered |= 1 << s;
            }
        }
        overlays.push("square_letters".into());
    }
    // Last: a dialog lies over everything on the board. Guarded as the newer marks are.
    if cfg.dialog > 0.0 && rng.random_bool(cfg.dialog) {
        overlay::dialog(pm, grid, rng);
        overlays.push("dialog".into());
    }
    lettered
}

/// 1 to `most` arrows drawn by `draw` from random squares to [`arrows::target`]s (none
/// where a target is its own square). `most` is an `i32`, as in the loop this replaced.
fn random_arrows<R: Rng>(
    pm: &mut Pixmap,
    grid: &Grid,
    rng: &mut R,
    most: i32,
    draw: arrows::Draw<R>,
) {
    for _ in 0..rng.random_range(1..=most) {
        let from = rng.random_range(0..64usize);
        let to = arrows::target(from, rng);
        if to != from {
            draw(pm, grid, (from / 8, from % 8), (to / 8, to % 8), rng);
        }
    }
}

/// With probability `chance`, `mark` on 1 to `most` random squares, named `name` in the
/// board's overlay list. Guarded so a zero probability draws nothing from the generator:
/// seeded sets drawn before these overlays existed stay byte for byte the same.
fn newer_marks<R: Rng>(
    pm: &mut Pixmap,
    grid: &Grid,
    rng: &mut R,
    (chance, most): (f64, i32),
    mark: fn(&mut Pixmap, &Grid, (usize, usize), &mut R),
    name: &str,
    overlays: &mut Vec<String>,
) {
    if chance > 0.0 && rng.random_bool(chance) {
        let count = rng.random_range(1..=most);
        on_random_squares(pm, grid, rng, count, mark);
        overlays.push(name.into());
    }
}

/// Draws `mark` on `count` squares drawn at random (one may come twice). `count` is an
/// `i32` as the loops this replaced drew it: another integer type draws other numbers
/// from the generator, and seeded sets would change.
fn on_random_squares<R: Rng>(
    pm: &mut Pixmap,
    grid: &Grid,
    rng: &mut R,
    count: i32,
    mark: fn(&mut Pixmap, &Grid, (usize, usize), &mut R),
) {
    for _ in 0..count {
        let s = rng.random_range(0..64usize);
        mark(pm, grid, (s / 8, s % 8), rng);
    }
}
