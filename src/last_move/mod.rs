//! The last move, as an app highlights it: lichess, chess.com and most boards on screen
//! tint the two squares of the move just played. Those two squares tell who moved last, so
//! who is to move, which a FEN needs and a picture otherwise does not show.
//!
//! Each square's ground is the colour of a thin band just inside its edge (where a man
//! seldom reaches); a square is tinted when its ground lies clearly off the usual ground
//! of its square colour. A pair of tinted squares is the last move when one tint laid over
//! both explains them (an app draws it half transparent: on a light and a dark square the
//! two results differ by a share of the squares' own difference), exactly one of them holds
//! a man, and that man could have come from the other square in one move. Anything less
//! clear (no such pair, or more than one) finds nothing: the caller then keeps its default.

pub mod geometry;
mod ground;

use serde::Serialize;
use shakmaty::{Color, Piece, Role, Square};

pub use geometry::could_have_moved;
use ground::Plane;
pub use ground::{Ground, channel_median, grounds};

use crate::class::SquareClass;
use crate::placement::{Placement, square_at};

/// A last move seen on the board.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct LastMove {
    /// The square it left (empty now).
    #[serde(serialize_with = "ser_square")]
    pub from: Square,
    /// The square it went to.
    #[serde(serialize_with = "ser_square")]
    pub to: Square,
    /// The man on `to` (a promoted pawn shows as its new piece).
    #[serde(serialize_with = "ser_piece")]
    pub piece: Piece,
    /// How far the fainter of the two squares' grounds lies from its square colour's usual
    /// ground, in units of the least that counts as tinted (1 = just enough).
    pub strength: f32,
}

impl LastMove {
    /// The side that played it.
    pub fn mover(&self) -> Color {
        self.piece.color
    }

    /// Its two squares.
    pub fn squares(&self) -> MoveSquares {
        MoveSquares {
            from: self.from,
            to: self.to,
        }
    }

    /// The side to move now.
    pub fn to_move(&self) -> Color {
        !self.piece.color
    }

    /// The move in UCI notation (`e2e4`; `e7e8q` for a promotion).
    pub fn uci(&self) -> String {
        let promoted = geometry::could_be_promotion(self.piece, self.from, self.to);
        let suffix = if promoted {
            self.piece.role.char().to_string()
        } else {
            String::new()
        };
        format!("{}{}{suffix}", self.from, self.to)
    }

    /// The square a pawn that just moved two passed over, when that is what was played.
    pub fn double_step_over(&self) -> Option<Square> {
        let (f, t) = (i32::from(self.from.rank()), i32::from(self.to.rank()));
        (self.piece.role == Role::Pawn && self.from.file() == self.to.file() && (f - t).abs() == 2)
            .then(|| {
                Square::from_coords(self.from.file(), shakmaty::Rank::new(((f + t) / 2) as u32))
            })
    }
}

/// A move's two squares, as labels give them: `e2e4` in JSON and CSV (a promotion's
/// letter, `e7e8q`, is read and left aside).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveSquares {
    /// The square the man left.
    pub from: Square,
    /// The square it went to.
    pub to: Square,
}

impl std::fmt::Display for MoveSquares {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}{}", self.from, self.to)
    }
}

impl std::str::FromStr for MoveSquares {
    type Err = String;

    fn from_str(s: &str) -> Result<MoveSquares, String> {
        let bad = || format!("`{s}` is not a move's two squares (like e2e4)");
        let t = s.trim();
        if !(4..=5).contains(&t.len()) || !t.is_ascii() {
            return Err(bad());
        }
        let from: Square = t[..2].parse().map_err(|_| bad())?;
        let to: Square = t[2..4].parse().map_err(|_| bad())?;
        if from == to || (t.len() == 5 && !"qrbn".contains(&t[4..])) {
            return Err(bad());
        }
        Ok(MoveSquares { from, to })
    }
}

impl Serialize for MoveSquares {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for MoveSquares {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<MoveSquares, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

fn ser_square<S: serde::Serializer>(sq: &Square, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&sq.to_string())
}

fn ser_piece<S: serde::Serializer>(p: &Piece, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(SquareClass::Piece(*p).name())
}

/// The least distance (RGB, 0..255 a channel) from its square colour's usual ground at which
/// a square counts as tinted, on a board whose squares of one colour all look alike. The
/// apps' highlights move a square's ground by 40-110 (lichess's green over its brown
/// squares about 50 on the dark ones; chess.com's yellow about 100).
const MIN_TINT: f32 = 22.0;
/// ... and at least this many times the spread of that colour's grounds about their fit
/// (the median distance): wood, marble or a scan's noise.
const SPREAD_FACTOR: f32 = 3.0;
/// The usual grounds of a square colour are fitted again without this many of its 32
/// squares, those furthest off the first fit: a move tints at most two, marks a few more.
const REFIT_WITHOUT: usize = 6;
/// The least colour in a tinted square's shift (its distance from the grey axis) on a grey
/// board: the squares of a grey print or scan (hatching, dust) shift lighter or darker,
/// while an app's highlight is a colour ...
const MIN_CHROMA: f32 = 12.0;
/// ... except on a coloured board (one of its square colours at least this far from the
/// grey axis), where a shade alone is a mark too (cm-chessboard's square marker: black at
/// 11% opacity), when its squares are flat as a screenshot's (their grounds' median distance
/// from their fit at most `FLAT_SPREAD`): light and shadow across a photo shade squares too.
const COLOURED_BOARD: f32 = 20.0;
const FLAT_SPREAD: f32 = 3.0;
/// More tinted squares than this: the grounds are not flat enough to tell a highlight.
const MAX_TINTED: usize = 6;

/// The last move on a board whose squares' grounds are `grounds` (true squares in reading
/// order a8..h1, as `placement`), or `None` when no highlighted pair clearly shows one.
pub fn find(grounds: &[Ground], placement: &Placement) -> Option<LastMove> {
    find_marked(grounds, placement, false)
}

/// [`find`]; with `frames_alone` true, an empty square only framed along its edge (not
/// tinted whole) counts as the square a man left only when no third square is marked.
fn find_marked(grounds: &[Ground], placement: &Placement, frames_alone: bool) -> Option<LastMove> {
    if grounds.len() < 64 {
        return None;
    }
    let squares: Vec<Square> = (0..64).filter_map(square_at).collect();
    let bands: Vec<[f32; 3]> = grounds.iter().map(|g| g.band).collect();
    let usual = UsualGrounds::fit(&bands, &squares);
    let tinted: Vec<usize> = (0..64).filter(|&i| usual.tinted(i, bands[i])).collect();
    if tinted.len() < 2 || tinted.len() > MAX_TINTED {
        return None;
    }
    let frames = !frames_alone || tinted.len() == 2;
    let mut found = Vec::new();
    for (n, &a) in tinted.iter().enumerate() {
        for &b in &tinted[n + 1..] {
            if !one_tint(bands[a], usual.at[a], bands[b], usual.at[b]) {
                continue;
            }
            let (from, to, piece) = match (placement.0[a], placement.0[b]) {
                (SquareClass::Empty, SquareClass::Piece(p)) => (a, b, p),
                (SquareClass::Piece(p), SquareClass::Empty) => (b, a, p),
                _ => continue,
            };
            // The empty square tinted whole (its middle as its band), or framed along its
            // edge (its band's corners as the band: chessboard.js's inset glow); not
            // ringed by a circle, which leaves the corners.
            let like_band = |c: [f32; 3]| {
                distance(c, bands[from]) <= 14f32.max(0.25 * distance(bands[from], usual.at[from]))
            };
            let marked =
                like_band(grounds[from].middle) || (frames && like_band(grounds[from].corners));
            if marked && could_have_moved(placement, piece, squares[from], squares[to]) {
                found.push(LastMove {
                    from: squares[from],
                    to: squares[to],
                    piece,
                    strength: usual.strength(a, bands[a]).min(usual.strength(b, bands[b])),
                });
            }
        }
    }
    match found.as_slice() {
        [one] => Some(*one),
        _ => None,
    }
}

/// The usual ground of each square, and how far off it counts as tinted.
struct UsualGrounds {
    /// Per square (reading order): its colour's grounds over the board, fitted as a plane
    /// (light falling unevenly across a photo).
    at: Vec<[f32; 3]>,
    /// Per square colour (light, dark): the least shift that counts as a tint.
    least: [f32; 2],
    /// Whether a shade without colour counts as a tint (a flat, coloured board).
    shade_counts: bool,
    /// Whether each square is dark.
    dark: Vec<bool>,
}

impl UsualGrounds {
    fn fit(bands: &[[f32; 3]], squares: &[Square]) -> UsualGrounds {
        let dark: Vec<bool> = squares.iter().map(|s| s.is_dark()).collect();
        let at_square = |i: usize| {
            let s = squares[i];
            (u32::from(s.file()) as f32, u32::from(s.rank()) as f32)
        };
        let mut at = vec![[0f32; 3]; 64];
        let mut least = [0f32; 2];
        let mut spread = 0f32;
        for colour in [false, true] {
            let members: Vec<usize> = (0..64).filter(|&i| dark[i] == colour).collect();
            let fit = |kept: &[usize]| -> Vec<[f32; 3]> {
                let points: Vec<_> = kept.iter().map(|&i| (at_square(i), bands[i])).collect();
                let plane = Plane::fit(&points);
                members.iter().map(|&i| plane.at(at_square(i))).collect()
            };
            // Fitted once on all, then again without the squares furthest off (the tinted
            // ones among them).
            let first = fit(&members);
            let mut order: Vec<usize> = (0..members.len()).collect();
            order.sort_by(|&a, &b| {
                distance(bands[members[a]], first[a])
                    .total_cmp(&distance(bands[members[b]], first[b]))
            });
            let kept: Vec<usize> = order[..members.len() - REFIT_WITHOUT]
                .iter()
                .map(|&k| members[k])
                .collect();
            let second = fit(&kept);
            let mut off: Vec<f32> = Vec::new();
            for (k, &i) in members.iter().enumerate() {
                at[i] = second[k];
                if kept.contains(&i) {
                    off.push(distance(bands[i], second[k]));
                }
            }
            off.sort_by(f32::total_cmp);
            let median = off[off.len() / 2];
            spread = spread.max(median);
            least[usize::from(colour)] = MIN_TINT.max(SPREAD_FACTOR * median);
        }
        let shade_counts = spread <= FLAT_SPREAD && at.iter().any(|&c| chroma(c) >= COLOURED_BOARD);
        UsualGrounds {
            at,
            least,
            shade_counts,
            dark,
        }
    }

    /// Whether square `i`, whose band reads `band`, is tinted.
    fn tinted(&self, i: usize, band: [f32; 3]) -> bool {
        let shift = sub(band, self.at[i]);
        dot(shift, shift).sqrt() >= self.least[usize::from(self.dark[i])]
            && (self.shade_counts || chroma(shift) >= MIN_CHROMA)
    }

    /// How far off square `i` lies, in units of the least that counts.
    fn strength(&self, i: usize, band: [f32; 3]) -> f32 {
        distance(band, self.at[i]) / self.least[usize::from(self.dark[i])]
    }
}

/// Which side is at the bottom, by the last move highlighted: `image_grounds` and
/// `image_reading` in the picture's reading order (top-left first), as if white were at the
/// bottom. A pawn's step, castling and a promotion fit one way up only; a knight's jump or a
/// rook's slide fits both, and says nothing. `None` also when no move is seen either way.
/// Beside a third marked square, a move's empty square must be tinted whole: a frame along
/// its edge alone may be an annotator's (a book diagram's framed squares).
pub fn orientation_from_move(
    image_grounds: &[Ground],
    image_reading: &Placement,
) -> Option<crate::render::Orientation> {
    use crate::render::Orientation;
    if image_grounds.len() < 64 {
        return None;
    }
    // Beside more marks than the move's two, a frame around an empty square is as likely an
    // annotator's (a book's framed squares) as a move's: only a square tinted whole counts.
    let upright = find_marked(image_grounds, image_reading, true);
    let turned_grounds: Vec<Ground> = image_grounds[..64].iter().rev().copied().collect();
    let turned = find_marked(&turned_grounds, &image_reading.rotated_180(), true);
    match (upright, turned) {
        (Some(_), None) => Some(Orientation::White),
        (None, Some(_)) => Some(Orientation::Black),
        _ => None,
    }
}

/// Whether one half-transparent tint laid over grounds `ba` and `bb` can give `oa` and
/// `ob`: over `a` it gives `(1 - t) ba + t T`, over `b` `(1 - t) bb + t T`, so
/// `oa - ob = (1 - t)(ba - bb)` with the tint's opacity `t` well inside 0..1 (squares of
/// one colour: `oa` = `ob`). Two squares marked in different colours fail it.
fn one_tint(oa: [f32; 3], ba: [f32; 3], ob: [f32; 3], bb: [f32; 3]) -> bool {
    let d_o = sub(oa, ob);
    let d_b = sub(ba, bb);
    let shift = distance(oa, ba).max(distance(ob, bb));
    let tolerance = 14f32.max(0.2 * shift);
    let nb = dot(d_b, d_b);
    if nb.sqrt() < 16.0 {
        return dot(d_o, d_o).sqrt() <= tolerance;
    }
    let k = dot(d_o, d_b) / nb;
    let residual = sub(d_o, d_b.map(|v| v * k));
    (0.05..=0.92).contains(&k) && dot(residual, residual).sqrt() <= tolerance
}

/// The part of a colour shift off the grey axis.
fn chroma(shift: [f32; 3]) -> f32 {
    let mean = (shift[0] + shift[1] + shift[2]) / 3.0;
    let off = shift.map(|v| v - mean);
    dot(off, off).sqrt()
}

fn sub(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn dot(a: [f32; 3], b: [f32; 3]) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn distance(a: [f32; 3], b: [f32; 3]) -> f32 {
    let d = sub(a, b);
    dot(d, d).sqrt()
}

#[cfg(test)]
mod tests;
