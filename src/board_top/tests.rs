use super::*;
use crate::class::SquareClass;

/// A 100-pixel square about (100, 100) turned `deg` clockwise.
fn turn(deg: f32) -> Quad {
    let (s, c) = deg.to_radians().sin_cos();
    Quad(
        [[-50.0, -50.0], [50.0, -50.0], [50.0, 50.0], [-50.0, 50.0]]
            .map(|[x, y]| [100.0 + x * c - y * s, 100.0 + x * s + y * c]),
    )
}

#[test]
fn quarter_turn_picks_the_other_near_upright_labelling() {
    let q = turn(40.0);
    assert!((turn_degrees(&q) - 40.0).abs() < 1e-3);
    let alt = quarter_turn_nearer_upright(&q);
    assert!(
        (turn_degrees(&alt) + 50.0).abs() < 1e-3,
        "{}",
        turn_degrees(&alt)
    );
    assert!(alt.is_convex());
    let q = turn(-35.0);
    assert!((turn_degrees(&quarter_turn_nearer_upright(&q)) - 55.0).abs() < 1e-3);
}

#[test]
fn sureness_prefers_confident_readings() {
    let mut sure = [[0.0f32; 13]; 64];
    let mut unsure = [[0.0f32; 13]; 64];
    for i in 0..64 {
        sure[i][0] = 0.98;
        sure[i][1] = 0.02;
        unsure[i][0] = 0.6;
        unsure[i][1] = 0.4;
    }
    assert!(sureness(&sure) > sureness(&unsure));
}

#[test]
fn picture_top_names_the_side_the_boards_top_is_on() {
    let q = turn(10.0);
    assert_eq!(picture_top(&q), PictureTop::Top);
    assert_eq!(picture_top(&turned_quad(&q, 1)), PictureTop::Right);
    assert_eq!(picture_top(&turned_quad(&q, 2)), PictureTop::Bottom);
    assert_eq!(picture_top(&turned_quad(&q, 3)), PictureTop::Left);
}

/// A reading of `unsure` squares at 0.6 and the rest at 0.99, every square a man.
fn reading(quad: Quad, unsure: usize) -> Reading<()> {
    reading_with_empty(quad, unsure, 0)
}

/// [`reading`] with its last `empty` squares read as sure empty squares. The men are
/// possible: the kings on b8 and g8 (as read), knights elsewhere.
fn reading_with_empty(quad: Quad, unsure: usize, empty: usize) -> Reading<()> {
    let class_of = |c: char| SquareClass::from_fen_char(c).unwrap().index();
    let men = |i: usize| match i {
        1 => class_of('K'),
        6 => class_of('k'),
        _ => class_of('N'),
    };
    let probs = (0..64)
        .map(|i| {
            let top = if i < unsure { 0.6 } else { 0.99 };
            let class = if i >= 64 - empty { 0 } else { men(i) };
            two_classes(class, top)
        })
        .collect::<Vec<_>>();
    with_glance(quad, probs)
}

/// Probabilities with `top` on `class` and the rest on the next class.
fn two_classes(class: usize, top: f32) -> [f32; 13] {
    let mut p = [0.0f32; 13];
    p[class] = top;
    p[(class + 1) % 13] = 1.0 - top;
    p
}

/// A reading of `probs` whose first model's look says what the full reading says.
fn with_glance(quad: Quad, probs: Vec<[f32; 13]>) -> Reading<()> {
    let glance = sureness(&probs);
    Reading {
        quad,
        probs,
        crops: (),
        glance,
    }
}

/// Settles the top of an upright `q` whose reading in each relabelling (0-3 quarter
/// turns) has the given unsure squares; returns the turns of the kept reading, how
/// many readings were begun and how many of them were read in full.
fn settle_counted(q: Quad, unsure: [usize; 4]) -> (usize, usize, usize) {
    let (mut reads, mut full) = (0, 0);
    let kept = settle_top(reading(q, unsure[0]), 0.9, |quad, bar| {
        reads += 1;
        let turns = (0..4).find(|&t| turned_quad(&q, t) == *quad).unwrap();
        let r = reading(*quad, unsure[turns]);
        if bar.is_some_and(|bar| r.glance <= bar) {
            return Ok::<_, ()>(None);
        }
        full += 1;
        Ok(Some(r))
    })
    .unwrap();
    let turns = (0..4).find(|&t| turned_quad(&q, t) == kept.quad).unwrap();
    (turns, reads, full)
}

/// [`settle_counted`] without the count of full readings.
fn settle(q: Quad, unsure: [usize; 4]) -> (usize, usize) {
    let (turns, reads, _) = settle_counted(q, unsure);
    (turns, reads)
}

#[test]
fn a_turn_the_first_look_finds_clearly_less_sure_is_not_read_in_full() {
    let q = turn(5.0);
    // Both sideways turns clearly less sure at first look: begun, neither read in full.
    assert_eq!(settle_counted(q, [16, 30, 0, 30]), (0, 2, 0));
    // One a little less sure (within the slack): read in full, and not kept.
    assert_eq!(settle_counted(q, [16, 17, 0, 40]), (0, 2, 1));
    // One surer at first look: that one is read in full, and kept.
    assert_eq!(settle_counted(q, [16, 30, 40, 2]), (3, 2, 1));
    // Near 45 degrees the other near-upright top is always read in full.
    assert_eq!(settle_counted(turn(40.0), [2, 20, 20, 0]), (3, 1, 1));
}

#[test]
fn a_turn_that_reads_the_men_away_is_not_kept() {
    let q = turn(5.0);
    // 30 men, 16 of them unsure; a quarter turn sure of everything but seeing only 10
    // men (unknown men on their side read as empty squares) loses; one seeing 24 wins.
    for (turned_empty, kept_turns) in [(54, 0), (40, 1)] {
        let kept = settle_top(reading_with_empty(q, 16, 34), 0.9, |quad, _| {
            let turned = *quad == turned_quad(&q, 1);
            let r = if turned {
                reading_with_empty(*quad, 0, turned_empty)
            } else {
                reading_with_empty(*quad, 30, 34)
            };
            Ok::<_, ()>(Some(r))
        })
        .unwrap();
        assert_eq!(
            kept.quad,
            turned_quad(&q, kept_turns),
            "{turned_empty} empty"
        );
    }
}

#[test]
fn near_45_degrees_a_top_that_reads_the_men_away_loses() {
    let q = turn(40.0);
    let alt = quarter_turn_nearer_upright(&q);
    // (first reading, the other top's reading) as (unsure, empty) squares; which wins.
    for ((first, other), other_wins) in [
        // The other top is surer but sees 8 men of 30: the first stays.
        (((2, 34), (0, 56)), false),
        // The other top is surer and sees 28 of 30: it wins.
        (((2, 34), (0, 36)), true),
        // The first is surer but sees 8 men against 30: the other wins.
        (((0, 56), (2, 34)), true),
    ] {
        let kept = settle_top(reading_with_empty(q, first.0, first.1), 0.9, |quad, _| {
            Ok::<_, ()>(Some(reading_with_empty(*quad, other.0, other.1)))
        })
        .unwrap();
        let expected = if other_wins { alt } else { q };
        assert_eq!(kept.quad, expected, "{first:?} against {other:?}");
    }
}

#[test]
fn a_reading_unsure_all_over_is_tried_a_quarter_turn_either_way() {
    let q = turn(5.0);
    // Sure enough: no other turn is read.
    assert_eq!(settle(q, [3, 0, 0, 0]), (0, 0));
    // Pieces lying down: the quarter turn the classifier is sure of wins.
    assert_eq!(settle(q, [16, 30, 40, 2]), (3, 2));
    assert_eq!(settle(q, [16, 1, 40, 30]), (1, 2));
    // Not surer by the margin and by half the unsure squares: kept as found.
    assert_eq!(settle(q, [16, 12, 0, 12]), (0, 2));
    // Upside down is not tried on a board that is not near 45 degrees.
    assert_eq!(settle(q, [16, 30, 0, 30]), (0, 2));
}

/// A sparse board: its men as (square in reading order, FEN letter), the other
/// squares empty, every square read at `top`.
fn sparse(quad: Quad, men: &[(usize, char)], top: f32) -> Reading<()> {
    let probs = (0..64)
        .map(|i| {
            let class = men
                .iter()
                .find(|(at, _)| *at == i)
                .map_or(0, |(_, c)| SquareClass::from_fen_char(*c).unwrap().index());
            two_classes(class, top)
        })
        .collect();
    with_glance(quad, probs)
}

#[test]
fn impossible_men_are_kings_missing_or_side_by_side_and_pawns_on_the_edge_rows() {
    let q = turn(0.0);
    let probs = |men: &[(usize, char)]| sparse(q, men, 0.99).probs;
    assert!(!impossible_men(&probs(&[
        (4, 'k'),
        (60, 'K'),
        (12, 'p'),
        (52, 'P')
    ])));
    // Kings side by side, one missing, two of one side.
    assert!(impossible_men(&probs(&[(27, 'k'), (36, 'K')])));
    assert!(impossible_men(&probs(&[(4, 'k'), (52, 'P')])));
    assert!(impossible_men(&probs(&[(4, 'k'), (60, 'K'), (62, 'K')])));
    // A pawn on the top or bottom row, whichever side is at the bottom.
    assert!(impossible_men(&probs(&[(4, 'k'), (60, 'K'), (2, 'P')])));
    assert!(impossible_men(&probs(&[(4, 'k'), (60, 'K'), (58, 'p')])));
}

#[test]
fn impossible_men_read_surely_give_way_to_a_possible_turn() {
    let q = turn(5.0);
    // Sure of every square but one, and impossible (kings side by side): the quarter
    // turn that reads possible men a little more surely, unsure of none, wins.
    let impossible = |top| sparse(q, &[(27, 'k'), (28, 'K'), (40, 'p')], top);
    let settled = |first: Reading<()>, turned: fn(Quad) -> Reading<()>| {
        settle_top(first, 0.9, |quad, _| {
            let r = if *quad == turned_quad(&q, 1) {
                turned(*quad)
            } else {
                sparse(*quad, &[(0, 'Q')], 0.9)
            };
            Ok::<_, ()>(Some(r))
        })
        .unwrap()
        .quad
    };
    let mut first = impossible(0.99);
    first.probs[63] = two_classes(0, 0.8);
    let possible: fn(Quad) -> Reading<()> =
        |quad| sparse(quad, &[(3, 'k'), (59, 'K'), (20, 'p')], 0.995);
    assert_eq!(settled(first, possible), turned_quad(&q, 1));
    // Not when the turn is impossible too, nor when it is no surer.
    let mut first = impossible(0.99);
    first.probs[63] = two_classes(0, 0.8);
    let also_impossible: fn(Quad) -> Reading<()> =
        |quad| sparse(quad, &[(3, 'k'), (4, 'K')], 0.995);
    assert_eq!(settled(first, also_impossible), q);
    let mut first = impossible(0.995);
    first.probs[63] = two_classes(0, 0.8);
    let less_sure: fn(Quad) -> Reading<()> = |quad| sparse(quad, &[(3, 'k'), (59, 'K')], 0.99);
    assert_eq!(settled(first, less_sure), q);
    // Possible men read as surely are not read again.
    let first = sparse(q, &[(3, 'k'), (59, 'K'), (20, 'p')], 0.99);
    let kept = settle_top(first, 0.9, |_, _| Err::<Option<Reading<()>>, _>(()));
    assert_eq!(kept.map(|r| r.quad), Ok(q));
}

#[test]
fn a_board_near_45_degrees_may_turn_any_way() {
    let q = turn(40.0);
    // Its other near-upright top is read first, and kept when surer.
    // (Turned 40 degrees clockwise, that is the top turned a quarter back: 3 turns.)
    assert_eq!(settle(q, [2, 20, 20, 0]), (3, 1));
    assert_eq!(settle(q, [0, 20, 20, 2]), (0, 1));
    // Unsure either way: the three other turns of the surer one, the half turn too (the
    // near-upright turn already read is not read again).
    assert_eq!(settle(q, [16, 20, 2, 30]), (2, 3));
    assert_eq!(settle(q, [20, 20, 2, 16]), (2, 3));
}
