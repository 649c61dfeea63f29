//! The finder's answer when there is no board: the best candidate it saw and why it was
//! turned down.

use serde::Serialize;

/// No board in the image: the best lattice of X-corners the finder saw, and why it is not
/// taken for a board.
#[derive(Debug, Clone, PartialEq, Serialize, thiserror::Error)]
#[error("no chess board found (best candidate: {best} of 49 inner corners on a lattice, {needed} needed{why})", why = self.reason.explain())]
pub struct BoardNotFound {
    /// Inner corners of the best candidate.
    #[serde(rename = "inner_corners")]
    pub best: usize,
    /// Inner corners required.
    #[serde(rename = "corners_needed")]
    pub needed: usize,
    /// Why the best candidate was turned down.
    #[serde(flatten)]
    pub reason: NotFoundReason,
}

/// Why the finder's best candidate is not a board.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(tag = "reason", rename_all = "snake_case")]
pub enum NotFoundReason {
    /// No lattice with enough inner corners.
    TooFewCorners,
    /// Its outline is sheared further than any photographed board.
    Sheared,
    /// Its light and dark squares hardly differ (see [`super::FoundBoard::square_contrast`]).
    FaintSquares {
        /// The candidate's square contrast.
        contrast: f32,
        /// The least a board of its lattice needs.
        #[serde(rename = "contrast_needed")]
        needed: f32,
    },
    /// A lattice turned about 45 degrees with too few corners and faint squares, or one
    /// whose pattern goes on past its edges: lines of text look like that.
    TextLike,
}

impl NotFoundReason {
    /// The clause the error message adds after the corner count.
    fn explain(&self) -> String {
        match self {
            NotFoundReason::TooFewCorners => String::new(),
            NotFoundReason::Sheared => {
                "; its outline is sheared further than a photographed board's".into()
            }
            NotFoundReason::FaintSquares { contrast, needed } => format!(
                "; its light and dark squares hardly differ: contrast {contrast:.2}, {needed:.2} needed"
            ),
            NotFoundReason::TextLike => {
                "; it is turned and its pattern looks like lines of text".into()
            }
        }
    }
}

impl BoardNotFound {
    pub(super) fn new(best: usize, needed: usize, reason: NotFoundReason) -> BoardNotFound {
        BoardNotFound {
            best,
            needed,
            reason,
        }
    }
}
