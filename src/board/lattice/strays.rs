//! A lattice with strays between a board's corners: cells half the size, most of its
//! points on the board's lattice. A squeezed hatched diagram shows one (its hatching runs
//! along the squares' half-diagonal, as long as a squeezed square's short side, and answers
//! the corner kernel at some square centres); it is the board, perhaps seen in part.

use super::{Lattice, best_window};
use crate::board::saddle::Saddle;
use crate::quad::Point;

impl Lattice {
    /// Whether this lattice is `coarser` with stray points between its corners: cells of
    /// half the size, two thirds or more of its points on `coarser`'s nodes. A board's own
    /// corners put half of them off any coarser lattice.
    pub(super) fn strays_of(&self, coarser: &Lattice) -> bool {
        self.on_nodes_of(coarser)
            .is_some_and(|on| 3 * on.len() >= 2 * self.members.len())
    }

    /// This lattice's corners on the nodes of `coarser`, a lattice with cells about twice
    /// as large (`None` otherwise), with their node indices.
    fn on_nodes_of(&self, coarser: &Lattice) -> Option<Vec<([i32; 2], Point)>> {
        let ratio = self.cell / coarser.cell;
        if !(0.4..=0.6).contains(&ratio) || coarser.count < 12 {
            return None;
        }
        // Affine: the coarser lattice may be a band of the board, and a homography
        // extrapolates a band poorly.
        let to_nodes = affine_fit(&coarser.members)?;
        let on: Vec<([i32; 2], Point)> = self
            .members
            .iter()
            .filter_map(|&(_, p)| {
                let [a, b] = to_nodes(p);
                let near = (a - a.round()).abs() < 0.2 && (b - b.round()).abs() < 0.2;
                near.then(|| ([a.round() as i32, b.round() as i32], p))
            })
            .collect();
        Some(on)
    }

    /// When one of the two lattices is the other with strays between its corners: the
    /// coarser one joined by the finer one's corners on its nodes (the two may have seen
    /// different parts of the board).
    pub(in crate::board) fn merged(&self, other: &Lattice) -> Option<Lattice> {
        [(self, other), (other, self)]
            .into_iter()
            .find_map(|(coarser, finer)| {
                // Only a finer lattice that would win or tie on its corners needs joining.
                if finer.count < coarser.count {
                    return None;
                }
                let on = finer.on_nodes_of(coarser)?;
                (3 * on.len() >= 2 * finer.members.len()).then(|| coarser.joined(&on))
            })
            .filter(|joined| joined.count >= self.count.min(other.count))
    }

    /// This lattice with `more` corners at the given node indices.
    fn joined(&self, more: &[([i32; 2], Point)]) -> Lattice {
        // Window indices 0..7 to -3..3, so that best_window (nodes -8..=8) sees a ring of
        // five nodes around them.
        let as_saddle = |p: Point| Saddle {
            x: p[0],
            y: p[1],
            score: 0.0,
            parity: 0,
        };
        let saddles: Vec<(i32, i32, Saddle)> = self
            .members
            .iter()
            .map(|&([i, j], p)| (i as i32, j as i32, as_saddle(p)))
            .chain(more.iter().map(|&([i, j], p)| (i, j, as_saddle(p))))
            .map(|(i, j, s)| (i - 3, j - 3, s))
            .filter(|&(i, j, _)| i.abs() <= 8 && j.abs() <= 8)
            .collect();
        let cells: Vec<(i32, i32, &Saddle)> = saddles.iter().map(|(i, j, s)| (*i, *j, s)).collect();
        Lattice {
            spacing: self.spacing,
            longer_step: self.longer_step,
            cell: self.cell,
            ..best_window(&cells)
        }
    }
}

/// The least-squares affine map from the points of `members` to their lattice indices.
fn affine_fit(members: &[([f32; 2], Point)]) -> Option<impl Fn(Point) -> [f32; 2]> {
    use nalgebra::{Matrix3, Vector3};
    let n = members.len() as f64;
    // Centred on the points' mean, for a well-conditioned system.
    let mean = members.iter().fold([0.0f64; 2], |m, (_, p)| {
        [m[0] + p[0] as f64 / n, m[1] + p[1] as f64 / n]
    });
    let mut normal = Matrix3::<f64>::zeros();
    let mut rhs = [Vector3::<f64>::zeros(); 2];
    for (idx, p) in members {
        let x = Vector3::new(p[0] as f64 - mean[0], p[1] as f64 - mean[1], 1.0);
        normal += x * x.transpose();
        for (r, &i) in rhs.iter_mut().zip(idx) {
            *r += x * i as f64;
        }
    }
    let inverse = normal.try_inverse()?;
    let [ra, rb] = rhs.map(|r| inverse * r);
    Some(move |p: Point| {
        let x = Vector3::new(p[0] as f64 - mean[0], p[1] as f64 - mean[1], 1.0);
        [ra.dot(&x) as f32, rb.dot(&x) as f32]
    })
}

#[cfg(test)]
mod tests {
    use super::super::lattice_from;
    use super::*;

    /// The inner corners of rows `rows` of a squeezed board (squares 36 x 60 px), with
    /// the checker's parity.
    fn corners(rows: std::ops::Range<i32>) -> Vec<Saddle> {
        rows.flat_map(|j| {
            (0..7).map(move |i| Saddle {
                x: 100.0 + 36.0 * i as f32,
                y: 100.0 + 60.0 * j as f32,
                score: 50.0,
                parity: if (i + j) % 2 == 0 { 1 } else { -1 },
            })
        })
        .collect()
    }

    #[test]
    fn a_lattice_of_corners_and_square_centres_joins_the_board_it_strays_from() {
        // The board's lower three rows of corners, seen as a lattice of its own.
        let lower = corners(4..7);
        let board = lattice_from(&lower[0], [36.0, 0.0], [0.0, 60.0], &lower).unwrap();
        assert_eq!(board.count, 21);
        // Its upper four rows and five square centres between them, on the lattice along
        // the squares' half-diagonal (node (i, j) at i (36, 0) + j (-18, 30) from a8's
        // corner): more corners than the board's lattice, cells half the size.
        let mut upper = corners(0..4);
        for (i, j) in [(1, 1), (2, 1), (3, 3), (4, 3), (5, 5)] {
            upper.push(Saddle {
                x: 100.0 + 36.0 * i as f32 - 18.0 * j as f32,
                y: 100.0 + 30.0 * j as f32,
                score: 50.0,
                parity: if (i + j) % 2 == 0 { 1 } else { -1 },
            });
        }
        let strays = lattice_from(&upper[0], [36.0, 0.0], [-18.0, 30.0], &upper).unwrap();
        assert!(strays.count > board.count, "{}", strays.count);
        assert!(strays.strays_of(&board));
        assert!(board.beats(&strays) && !strays.beats(&board));
        // Joined, the board has the corners of both: all seven rows.
        let joined = board.merged(&strays).expect("one board");
        assert!(joined.count > 40, "{}", joined.count);
        assert_eq!(joined.cell, board.cell);
        for (_, p) in &joined.members {
            let (i, j) = ((p[0] - 100.0) / 36.0, (p[1] - 100.0) / 60.0);
            assert!(i.fract() == 0.0 && j.fract() == 0.0, "{p:?} is no corner");
        }
    }
}
