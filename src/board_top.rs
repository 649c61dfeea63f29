//! Which edge of a found board is its top. The finder knows only the board's geometry: it
//! labels the corners so that the top edge is the one nearest horizontal. Pieces stand
//! upright, so the classifier settles what geometry cannot: a board turned near 45 degrees
//! (two edges are about as horizontal), and a picture turned a quarter (a phone photo
//! without its orientation tag, a page scanned sideways), whose pieces lie on their side.

use serde::Serialize;

use crate::classifier::top_probability;
use crate::quad::Quad;

/// Beyond this turn from upright the board's top is ambiguous (at 45 degrees either of two
/// edges can be the top).
const AMBIGUOUS_TURN_DEGREES: f32 = 30.0;
/// Unsure squares from which a board is also read a quarter turn either way (on pictures
/// turned a quarter, 5% of the boards have fewer: sparse endgames).
const SIDEWAYS_MIN_UNSURE: usize = 4;
/// How much surer (mean log top probability over the 64 squares) another turn's reading
/// must be. A quarter-turned picture's right turn is 0.16 surer on the median. On 4,500
/// upright synthetic boards, exotic piece styles included, 2 boards (both already misread,
/// 13-18 px squares) pass this and the halving of the unsure squares.
const SIDEWAYS_MARGIN: f32 = 0.04;
/// How much less sure than the kept reading the first model's own look at a quarter turn
/// may be for the turn to be read in full (second model, board context). Every turn
/// that won on the quarter-turned sets (qvw13, qpersp: 622 boards) looked at most 0.013
/// less sure to the first model; on upright sets, about 80% of the sideways turns look
/// less sure by more than this (BENCHMARKS.md, session 37).
const GLANCE_SLACK: f32 = 0.04;

/// Share of another reading's men (`men`) a reading must see to win on sureness. Men of a
/// style the models do not know, lying on their side or tilted the wrong way, are read as
/// empty squares, with more sureness than the same men upright: such a reading sees a
/// fraction of the men. On upright boards of turned 3D-looking men (board set stau) the
/// quarter turns that passed the other tests saw at most 0.48 of them; on the
/// quarter-turned sets (qvw13, qpersp) every winning turn saw at least 0.69. Near 45
/// degrees, the two candidate tops of 61 of 68 such boards differed that much, and of none
/// of 210 boards of familiar styles (persp, persp17, qpersp, a turned set of $P's styles)
/// (BENCHMARKS.md, session 38).
const MIN_MEN_SHARE: f32 = 0.6;

/// One reading of a board: the outline it was cut with (its corners in the order top-left,
/// top-right, bottom-right, bottom-left of the board as read), each square's class
/// probabilities and the crops.
pub struct Reading<C> {
    /// The outline, corners relabelled for the top this reading assumes.
    pub quad: Quad,
    /// Class probabilities of the 64 squares, in reading order.
    pub probs: Vec<[f32; 13]>,
    /// The crops read (kept for the later steps).
    pub crops: C,
    /// Mean log top probability (`sureness`) of the first model's own probabilities, before
    /// a second model's look: what a quick look at this turn says.
    pub glance: f32,
}

/// Settles the board's top from its first reading. A board turned near 45 degrees is read
/// with the other near-upright top too and the surer reading kept. A reading unsure of
/// 4 squares or more (`SIDEWAYS_MIN_UNSURE`) is also read a quarter turn either way (and a
/// half turn when the top was ambiguous), and a turn is kept only when the classifier is
/// clearly surer of it, unsure of at most half as many squares, and sees most of the men
/// the kept reading sees (`MIN_MEN_SHARE`; near 45 degrees too, a candidate top that sees
/// far fewer men than the other loses however sure it is). Not a half turn
/// otherwise: symbols that look the same upside down, on a board seen from black's side,
/// would make it a coin toss.
///
/// `read(quad, glance_bar)` cuts and reads the board with a relabelled outline. With a
/// bar, it may stop after the first model's look and answer `None` when that look's mean
/// log top probability (`sureness`) is not above the bar: a quarter turn the first model
/// finds clearly less sure than the kept reading (`GLANCE_SLACK`) is not read in full (on
/// an upright board full of unsure squares, the second model would re-read most squares
/// of each sideways turn).
pub fn settle_top<C, E>(
    first: Reading<C>,
    uncertain_below: f32,
    mut read: impl FnMut(&Quad, Option<f32>) -> Result<Option<Reading<C>>, E>,
) -> Result<Reading<C>, E> {
    let mut best = first;
    // The reading of the near-45-degree choice that lost, so that it is not read again.
    let mut spare = None;
    let ambiguous = turn_degrees(&best.quad).abs() > AMBIGUOUS_TURN_DEGREES;
    if ambiguous && let Some(mut other) = read(&quarter_turn_nearer_upright(&best.quad), None)? {
        if surer_with_the_men(&other.probs, &best.probs) {
            std::mem::swap(&mut best, &mut other);
        }
        spare = Some(other);
    }
    let unsure = count_unsure(&best.probs, uncertain_below);
    if unsure < SIDEWAYS_MIN_UNSURE {
        return Ok(best);
    }
    let mut bar = sureness(&best.probs) + SIDEWAYS_MARGIN;
    let mut turned_best = None;
    let turns: &[usize] = if ambiguous { &[1, 2, 3] } else { &[1, 3] };
    for &turns in turns {
        let quad = turned_quad(&best.quad, turns);
        let turned = match spare.take_if(|r| r.quad == quad) {
            Some(already) => already,
            None => match read(&quad, Some(best.glance - GLANCE_SLACK))? {
                Some(turned) => turned,
                None => continue,
            },
        };
        let s = sureness(&turned.probs);
        if s > bar
            && 2 * count_unsure(&turned.probs, uncertain_below) <= unsure
            && sees_most_men(&turned.probs, &best.probs)
        {
            bar = s;
            turned_best = Some(turned);
        }
    }
    Ok(turned_best.unwrap_or(best))
}

/// Where a board's top edge lies in the picture.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PictureTop {
    /// At the top: the picture is upright (or turned less than 45 degrees).
    Top,
    /// At the right: the picture was turned a quarter clockwise.
    Right,
    /// At the bottom: the picture is upside down.
    Bottom,
    /// At the left: the picture was turned a quarter anticlockwise.
    Left,
}

/// Where the top edge of `q` (corners top-left, top-right, bottom-right, bottom-left of the
/// board) lies in the picture.
pub fn picture_top(q: &Quad) -> PictureTop {
    let t = turn_degrees(q);
    if t.abs() <= 45.0 {
        PictureTop::Top
    } else if t.abs() >= 135.0 {
        PictureTop::Bottom
    } else if t > 0.0 {
        // The top edge runs downwards from the board's top-left corner: it is the right side.
        PictureTop::Right
    } else {
        PictureTop::Left
    }
}

/// How far the quad's top edge (and its bottom edge, averaged) is turned from horizontal,
/// in degrees; positive clockwise (image y points down).
pub fn turn_degrees(q: &Quad) -> f32 {
    let [tl, tr, br, bl] = q.0;
    let (dx, dy) = (tr[0] - tl[0] + br[0] - bl[0], tr[1] - tl[1] + br[1] - bl[1]);
    dy.atan2(dx).to_degrees()
}

/// The same quad with its corners relabelled `turns` quarter turns: the corner that was
/// `turns` places after the top-left becomes the top-left.
fn turned_quad(q: &Quad, turns: usize) -> Quad {
    let mut corners = q.0;
    corners.rotate_left(turns % 4);
    Quad(corners)
}

/// The same quad with its corners relabelled a quarter turn, the way that leaves its top
/// edge nearer horizontal.
pub fn quarter_turn_nearer_upright(q: &Quad) -> Quad {
    let (left, right) = (turned_quad(q, 1), turned_quad(q, 3));
    if turn_degrees(&left).abs() <= turn_degrees(&right).abs() {
        left
    } else {
        right
    }
}

/// Whether reading `a` beats `b` as the board's top near 45 degrees: the one that sees
/// under `MIN_MEN_SHARE` of the other's men loses; otherwise the surer one wins.
fn surer_with_the_men(a: &[[f32; 13]], b: &[[f32; 13]]) -> bool {
    if !sees_most_men(a, b) {
        false
    } else if !sees_most_men(b, a) {
        true
    } else {
        sureness(a) > sureness(b)
    }
}

/// Whether reading `a` sees at least `MIN_MEN_SHARE` of the men reading `b` sees.
fn sees_most_men(a: &[[f32; 13]], b: &[[f32; 13]]) -> bool {
    men(a) >= MIN_MEN_SHARE * men(b)
}

/// The men a reading sees: the sum over its squares of the probability of not being empty.
fn men(probs: &[[f32; 13]]) -> f32 {
    probs.iter().map(|p| 1.0 - p[0]).sum()
}

/// Squares whose best class is below `below`.
fn count_unsure(probs: &[[f32; 13]], below: f32) -> usize {
    probs.iter().filter(|p| top_probability(p) < below).count()
}

/// Mean log-probability of each square's top class: how sure a reading is.
pub(crate) fn sureness(probs: &[[f32; 13]]) -> f32 {
    let n = probs.len().max(1) as f32;
    probs
        .iter()
        .map(|p| top_probability(p).max(1e-6).ln())
        .sum::<f32>()
        / n
}

#[cfg(test)]
mod tests {
    use super::*;

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

    /// [`reading`] with its last `empty` squares read as sure empty squares.
    fn reading_with_empty(quad: Quad, unsure: usize, empty: usize) -> Reading<()> {
        let probs = (0..64)
            .map(|i| {
                let mut p = [0.0f32; 13];
                let top = if i < unsure { 0.6 } else { 0.99 };
                let class = if i >= 64 - empty { 0 } else { 1 };
                p[class] = top;
                p[class + 1] = 1.0 - top;
                p
            })
            .collect::<Vec<_>>();
        // The first model's look says what the full reading says.
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
}
