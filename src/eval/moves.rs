//! How well the last move an app highlights is read ([`crate::last_move`]), on labelled
//! boards that say which move they show.

use serde::Serialize;

use crate::last_move::MoveSquares;

/// What a labelled picture shows of the last move.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ShownMove {
    /// Its label does not say (a manifest without a `last_move` column).
    #[default]
    Unknown,
    /// No move is highlighted (other marks may be).
    Nothing,
    /// This move is highlighted.
    Move(MoveSquares),
}

impl ShownMove {
    /// From a label's `last_move` cell or field: empty or `-` is nothing shown.
    pub fn from_cell(cell: &str) -> Result<ShownMove, String> {
        match cell.trim() {
            "" | "-" => Ok(ShownMove::Nothing),
            m => m.parse().map(ShownMove::Move),
        }
    }
}

impl Serialize for ShownMove {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            ShownMove::Unknown => s.serialize_none(),
            ShownMove::Nothing => s.serialize_str("-"),
            ShownMove::Move(m) => s.collect_str(m),
        }
    }
}

/// Last moves read, over the found boards whose labels say what they show.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct MoveStats {
    /// Boards showing a move.
    pub shown: usize,
    /// ... whose move was named right.
    pub read: usize,
    /// ... where another move was named.
    pub wrong: usize,
    /// Boards showing none.
    pub none_shown: usize,
    /// ... where a move was named all the same.
    pub named_where_none: usize,
}

impl MoveStats {
    /// Counts one found board.
    pub fn add(&mut self, shown: ShownMove, named: Option<MoveSquares>) {
        match (shown, named) {
            (ShownMove::Unknown, _) => {}
            (ShownMove::Nothing, named) => {
                self.none_shown += 1;
                self.named_where_none += usize::from(named.is_some());
            }
            (ShownMove::Move(m), named) => {
                self.shown += 1;
                self.read += usize::from(named == Some(m));
                self.wrong += usize::from(named.is_some_and(|n| n != m));
            }
        }
    }

    /// A paragraph for the markdown report, when any board said what it shows.
    pub fn markdown(&self) -> Option<String> {
        if self.shown + self.none_shown == 0 {
            return None;
        }
        let pct = |a: usize, b: usize| a as f64 * 100.0 / b.max(1) as f64;
        Some(format!(
            "\n## Last move\n\nBoards showing a highlighted last move: {}; named right on {} ({:.1}%), another move named on {}, none on {}. Boards showing none: {}; a move named on {} ({:.1}%).\n",
            self.shown,
            self.read,
            pct(self.read, self.shown),
            self.wrong,
            self.shown - self.read - self.wrong,
            self.none_shown,
            self.named_where_none,
            pct(self.named_where_none, self.none_shown),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_cells() {
        let e2e4: MoveSquares = "e2e4".parse().unwrap();
        let g1f3: MoveSquares = "g1f3".parse().unwrap();
        let mut s = MoveStats::default();
        s.add(ShownMove::Move(e2e4), Some(e2e4));
        s.add(ShownMove::Move(e2e4), Some(g1f3));
        s.add(ShownMove::Move(e2e4), None);
        s.add(ShownMove::Nothing, Some(g1f3));
        s.add(ShownMove::Nothing, None);
        s.add(ShownMove::Unknown, Some(g1f3));
        assert_eq!(
            s,
            MoveStats {
                shown: 3,
                read: 1,
                wrong: 1,
                none_shown: 2,
                named_where_none: 1
            }
        );
        assert!(s.markdown().unwrap().contains("named right on 1 (33.3%)"));
        assert_eq!(MoveStats::default().markdown(), None);
        assert_eq!(ShownMove::from_cell(" - "), Ok(ShownMove::Nothing));
        assert_eq!(ShownMove::from_cell("g1f3"), Ok(ShownMove::Move(g1f3)));
        assert!(ShownMove::from_cell("g1").is_err());
    }
}
