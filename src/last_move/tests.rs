use super::*;

const BROWN: ([f32; 3], [f32; 3]) = ([240.0, 217.0, 181.0], [181.0, 136.0, 99.0]);
const GREEN: ([f32; 3], [f32; 3]) = ([238.0, 238.0, 210.0], [118.0, 150.0, 86.0]);

/// Grounds of a board in `colours` (light, dark), with `tints` (square, colour, opacity)
/// laid over, and each square moved by up to `noise` a channel (a fixed pattern).
fn board(
    colours: ([f32; 3], [f32; 3]),
    tints: &[(Square, [f32; 3], f32)],
    noise: f32,
) -> Vec<Ground> {
    (0..64)
        .map(|i| {
            let sq = square_at(i).unwrap();
            let mut g = if sq.is_dark() { colours.1 } else { colours.0 };
            for &(s, t, a) in tints {
                if s == sq {
                    g = [0, 1, 2].map(|k| (1.0 - a) * g[k] + a * t[k]);
                }
            }
            let wobble = ((i * 37 + 11) % 17) as f32 / 16.0 * 2.0 - 1.0;
            let g = g.map(|v| (v + wobble * noise).clamp(0.0, 255.0));
            // A tint fills the square: its middle (when empty) is the band's colour.
            Ground {
                band: g,
                corners: g,
                middle: g,
            }
        })
        .collect()
}

fn placement(fen: &str) -> Placement {
    fen.parse().unwrap()
}

const AFTER_E4: &str = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR";
const LICHESS: [f32; 3] = [155.0, 199.0, 0.0];

#[test]
fn lichess_last_move_on_brown() {
    let g = board(
        BROWN,
        &[(Square::E2, LICHESS, 0.41), (Square::E4, LICHESS, 0.41)],
        0.0,
    );
    let m = find(&g, &placement(AFTER_E4)).expect("the highlighted move");
    assert_eq!((m.from, m.to), (Square::E2, Square::E4));
    assert_eq!(m.mover(), Color::White);
    assert_eq!(m.to_move(), Color::Black);
    assert_eq!(m.uci(), "e2e4");
    assert_eq!(m.double_step_over(), Some(Square::E3));
    assert!(m.strength >= 1.0);
}

#[test]
fn chess_com_yellow_on_green_with_wood_like_noise() {
    // A knight's move by black: e2/e4 played, then Nc6 (b8 light, c6 light).
    let p = placement("r1bqkbnr/pppppppp/2n5/8/4P3/8/PPPP1PPP/RNBQKBNR");
    let yellow = [254.0, 254.0, 0.0];
    let g = board(
        GREEN,
        &[(Square::B8, yellow, 0.5), (Square::C6, yellow, 0.5)],
        6.0,
    );
    let m = find(&g, &p).expect("the highlighted move");
    assert_eq!(
        (m.from, m.to, m.mover()),
        (Square::B8, Square::C6, Color::Black)
    );
    assert_eq!(m.double_step_over(), None);
    assert_eq!(m.to_move(), Color::White);
}

#[test]
fn no_highlight_no_move() {
    assert_eq!(find(&board(BROWN, &[], 0.0), &placement(AFTER_E4)), None);
    assert_eq!(find(&board(GREEN, &[], 6.0), &placement(AFTER_E4)), None);
}

#[test]
fn marks_that_are_no_move_find_nothing() {
    let p = placement(AFTER_E4);
    let red = [235.0, 97.0, 80.0];
    // Two colours: a red mark and a green one.
    let g = board(
        BROWN,
        &[(Square::E2, red, 0.8), (Square::E4, LICHESS, 0.41)],
        0.0,
    );
    assert_eq!(find(&g, &p), None);
    // One tint, but no pawn goes from h4 to e4; and both squares empty.
    let g = board(
        BROWN,
        &[(Square::H4, LICHESS, 0.41), (Square::E4, LICHESS, 0.41)],
        0.0,
    );
    assert_eq!(find(&g, &p), None);
    let g = board(
        BROWN,
        &[(Square::E3, LICHESS, 0.41), (Square::D4, LICHESS, 0.41)],
        0.0,
    );
    assert_eq!(find(&g, &p), None);
    // Both occupied (a selected man and its target).
    let g = board(
        BROWN,
        &[(Square::E4, LICHESS, 0.41), (Square::D7, LICHESS, 0.41)],
        0.0,
    );
    assert_eq!(find(&g, &p), None);
}

#[test]
fn two_moves_that_fit_are_not_guessed_between() {
    // e2-e4 and g1-f3 both highlighted alike: which was last cannot be told.
    let p = placement("rnbqkbnr/pppppppp/8/8/4P3/5N2/PPPP1PPP/RNBQKB1R");
    let tints: Vec<_> = [Square::E2, Square::E4, Square::G1, Square::F3]
        .into_iter()
        .map(|s| (s, LICHESS, 0.41))
        .collect();
    assert_eq!(find(&board(BROWN, &tints, 0.0), &p), None);
}

#[test]
fn a_promotion_names_its_piece() {
    let p = placement("4Q2k/8/8/8/8/8/8/4K3");
    let g = board(
        BROWN,
        &[(Square::E7, LICHESS, 0.41), (Square::E8, LICHESS, 0.41)],
        0.0,
    );
    let m = find(&g, &p).expect("the promotion");
    assert_eq!(m.uci(), "e7e8q");
    // A knight's jump from the seventh rank to the eighth, which no pawn makes, is no
    // promotion.
    let jump = LastMove {
        from: Square::C7,
        to: Square::A8,
        piece: Piece {
            color: Color::White,
            role: Role::Knight,
        },
        ..m
    };
    assert_eq!(jump.uci(), "c7a8");
    assert_eq!(m.double_step_over(), None);
}

#[test]
fn grounds_come_from_the_band_inside_the_edge() {
    // A 32-px crop with 1/8 square of context: the square spans pixels 3.2..28.8. Its
    // ground is pale green; a dark man fills the middle; the context around is brown.
    let crop = image::RgbImage::from_fn(32, 32, |x, y| {
        let (fx, fy) = (x as f32 + 0.5, y as f32 + 0.5);
        let inside = (3.2..28.8).contains(&fx) && (3.2..28.8).contains(&fy);
        let man = (8.0..24.0).contains(&fx) && (6.0..27.0).contains(&fy);
        image::Rgb(match (inside, man) {
            (true, true) => [20, 20, 20],
            (true, false) => [200, 210, 110],
            _ => [181, 136, 99],
        })
    });
    let g = grounds(&[crop], 0.125);
    assert_eq!(g[0].band, [200.0, 210.0, 110.0]);
    assert_eq!(g[0].middle, [20.0, 20.0, 20.0]);
    // The man stays clear of the band's corners.
    assert_eq!(g[0].corners, [200.0, 210.0, 110.0]);
}

#[test]
fn a_grey_shift_is_no_highlight() {
    // A grey print: one light square darker (dust, a hatching of the scan) and one empty
    // square beside a man, as a rook's move would have them.
    let grey = ([250.0, 250.0, 250.0], [150.0, 150.0, 150.0]);
    let p = placement("r7/8/8/8/8/8/8/7K");
    let g = board(
        grey,
        &[
            (Square::A7, [60.0, 60.0, 60.0], 0.5),
            (Square::A8, [60.0, 60.0, 60.0], 0.5),
        ],
        0.0,
    );
    assert_eq!(find(&g, &p), None);
    // The same squares tinted green are a move.
    let g = board(
        grey,
        &[(Square::A7, LICHESS, 0.5), (Square::A8, LICHESS, 0.5)],
        0.0,
    );
    assert_eq!(find(&g, &p).map(|m| m.uci()), Some("a7a8".to_string()));
}

#[test]
fn move_squares_read_and_write_as_uci() {
    let m: MoveSquares = "e7e8q".parse().unwrap();
    assert_eq!((m.from, m.to), (Square::E7, Square::E8));
    assert_eq!(m.to_string(), "e7e8");
    assert_eq!(serde_json::to_string(&m).unwrap(), "\"e7e8\"");
    let back: MoveSquares = serde_json::from_str("\"g1f3\"").unwrap();
    assert_eq!((back.from, back.to), (Square::G1, Square::F3));
    for bad in ["", "e2", "e2e2", "e2e9", "e7e8k", "e2e4 x", "é2e4"] {
        assert!(bad.parse::<MoveSquares>().is_err(), "{bad}");
    }
}

#[test]
fn a_circled_square_is_no_move_a_framed_one_is() {
    let tints = [(Square::E2, LICHESS, 0.41), (Square::E4, LICHESS, 0.41)];
    let e2 = crate::placement::reading_index(Square::E2);
    // e2 circled: the band tinted where the circle passes, its corners and middle not.
    let mut g = board(BROWN, &tints, 0.0);
    g[e2].middle = BROWN.0;
    g[e2].corners = BROWN.0;
    assert_eq!(find(&g, &placement(AFTER_E4)), None);
    // e2 framed along its edge (chessboard.js's inset glow): the corners tinted too.
    let mut g = board(BROWN, &tints, 0.0);
    g[e2].middle = BROWN.0;
    let named = find(&g, &placement(AFTER_E4)).map(|m| m.uci());
    assert_eq!(named.as_deref(), Some("e2e4"));
}

#[test]
fn a_pawns_step_tells_which_side_is_below() {
    use crate::render::Orientation;
    let p = placement(AFTER_E4);
    let g = board(
        BROWN,
        &[(Square::E2, LICHESS, 0.41), (Square::E4, LICHESS, 0.41)],
        0.0,
    );
    // As the picture shows it with white below, and turned (black below).
    assert_eq!(orientation_from_move(&g, &p), Some(Orientation::White));
    let turned: Vec<Ground> = g.iter().rev().copied().collect();
    assert_eq!(
        orientation_from_move(&turned, &p.rotated_180()),
        Some(Orientation::Black)
    );
    // A knight's jump fits both ways up; no highlight says nothing.
    let after_nf3 = placement("rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R");
    let g = board(
        BROWN,
        &[(Square::G1, LICHESS, 0.41), (Square::F3, LICHESS, 0.41)],
        0.0,
    );
    assert_eq!(orientation_from_move(&g, &after_nf3), None);
    assert_eq!(orientation_from_move(&board(BROWN, &[], 0.0), &p), None);
}

#[test]
fn a_shade_marks_a_move_on_a_flat_coloured_board_only() {
    // cm-chessboard's square marker: black at 11% opacity.
    let p = placement(AFTER_E4);
    let black = [0.0, 0.0, 0.0];
    let shaded = [(Square::E2, black, 0.11), (Square::E4, black, 0.11)];
    let m = find(&board(BROWN, &shaded, 0.0), &p).expect("a shaded move on a flat board");
    assert_eq!(m.uci(), "e2e4");
    // The same shade on a photo's uneven squares, or on a grey print, is no mark.
    assert_eq!(find(&board(BROWN, &shaded, 8.0), &p), None);
    let grey = ([235.0, 235.0, 235.0], [140.0, 140.0, 140.0]);
    assert_eq!(find(&board(grey, &shaded, 0.0), &p), None);
}

#[test]
fn frames_beside_other_marks_do_not_turn_the_board() {
    use crate::render::Orientation;
    // A book diagram's annotator framed three squares; two of them fit a pawn's step.
    let p = placement(AFTER_E4);
    let green = [0.0, 160.0, 0.0];
    let grey = ([235.0, 235.0, 235.0], [140.0, 140.0, 140.0]);
    let marks = [
        (Square::E2, green, 0.5),
        (Square::E4, green, 0.5),
        (Square::B7, green, 0.5),
    ];
    let e2 = crate::placement::reading_index(Square::E2);
    let mut g = board(grey, &marks, 0.0);
    g[e2].middle = grey.0;
    assert_eq!(orientation_from_move(&g, &p), None);
    // Filled whole, the move's squares still tell it beside a third mark (a check).
    let g = board(grey, &marks, 0.0);
    assert_eq!(orientation_from_move(&g, &p), Some(Orientation::White));
    // And framed, with no other mark, they do (chessboard.js's inset glow).
    let mut g = board(grey, &marks[..2], 0.0);
    g[e2].middle = grey.0;
    assert_eq!(orientation_from_move(&g, &p), Some(Orientation::White));
}
