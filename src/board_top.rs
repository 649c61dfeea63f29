//! Which edge of a found board is its top. The finder knows only the board's geometry: it
//! labels the corners so that the top edge is the one nearest horizontal. Pieces stand
//! upright, so the classifier settles what geometry cannot: a board turned near 45 degrees
//! (two edges are about as horizontal), and a picture turned a quarter (a phone photo
//! without its orientation tag, a page scanned sideways), whose pieces lie on their side.

use serde::Serialize;
use shakmaty::{Color, Rank, Role, Square};

use crate::classifier::top_probability;
use crate::quad::Quad;

/// Beyond this turn from upright the board's top is ambiguous (at 45 degrees either of two
/// edges can be the top).
const AMBIGUOUS_TURN_DEGREES: f32 = 30.0;
/// Unsure squares from which a board is also read a quarter turn either way (on pictures
/// turned a quarter, 5% of the boards have fewer: sparse endgames, read a quarter turn
/// either way too when the men read cannot stand so: see [`impossible_men`]).
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
/// 4 squares or more (`SIDEWAYS_MIN_UNSURE`), or whose most likely men are impossible, is
/// also read a quarter turn either way (and a half turn when the top was ambiguous), and a
/// turn is kept only when the classifier is clearly surer of it and unsure of at most half
/// as many squares (or, against impossible men, reads possible ones more surely, unsure of
/// fewer squares), and sees most of the men the kept reading sees (`MIN_MEN_SHARE`; near
/// 45 degrees too, a candidate top that sees far fewer men than the other loses however
/// sure it is). Not a half turn otherwise: symbols that look the same upside down, on a
/// board seen from black's side, would make it a coin toss.
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
    let impossible = impossible_men(&best.probs);
    if unsure < SIDEWAYS_MIN_UNSURE && !impossible {
        return Ok(best);
    }
    // The sureness a turn must beat: the kept reading's, by a margin unless its men are
    // impossible and the turn's are not.
    let mut kept = sureness(&best.probs);
    let mut bar = kept + SIDEWAYS_MARGIN;
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
        let turned_unsure = count_unsure(&turned.probs, uncertain_below);
        let clearly_surer = s > bar && 2 * turned_unsure <= unsure;
        // Impossible men read surely (a sparse board turned a quarter) give way to a turn
        // that reads possible ones more surely, unsure of fewer squares (when any).
        let possible_instead = impossible
            && !impossible_men(&turned.probs)
            && s > kept
            && turned_unsure < unsure.max(1);
        if (clearly_surer || possible_instead) && sees_most_men(&turned.probs, &best.probs) {
            bar = s;
            kept = s;
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

/// Whether the men a reading sees most likely cannot stand so, whichever side is at the
/// bottom: not one king a side, the kings side by side, or a pawn on the top or bottom row.
/// Men lying on their side (a picture turned a quarter) are read surely as men of other
/// kinds, so a sparse board read so can be sure of nearly every square; what it reads is
/// seldom a position.
fn impossible_men(probs: &[[f32; 13]]) -> bool {
    let Ok(probs) = <&[[f32; 13]; 64]>::try_from(probs) else {
        return false;
    };
    let men = crate::decode::argmax(probs);
    let kings = |color: Color| -> Vec<Square> {
        men.pieces()
            .filter(|&(_, piece)| piece == color.king())
            .map(|(sq, _)| sq)
            .collect()
    };
    let pawn_on_edge_row = men.pieces().any(|(sq, piece)| {
        piece.role == Role::Pawn && matches!(sq.rank(), Rank::First | Rank::Eighth)
    });
    match (&kings(Color::White)[..], &kings(Color::Black)[..]) {
        ([white], [black]) => pawn_on_edge_row || white.distance(*black) <= 1,
        _ => true,
    }
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
mod tests;
