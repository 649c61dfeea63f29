//! fenscan: from a picture of a chess board to a checked FEN.
//!
//! # Pipeline
//!
//! ```text
//! image ──► board::find ──► squares::cut ──► classifier ──► orientation ──► decode ──► Fen + check
//!           (4 corners)     (64 crops)       (13 classes)   (white/black    (chess
//!                                                            at bottom?)     constraints)
//! ```
//!
//! # Use as a library
//!
//! The binaries only parse arguments and print; the whole pipeline is here. Reading the
//! shipped sample screenshot with the checkpoint built into the crate:
//!
//! ```
//! use fenscan::classifier::{Backend, Classifier};
//! use fenscan::recognize::{RecognizeOptions, Recognizer, TurnChoice};
//!
//! let image = fenscan::io::open_image("data/samples/sample.png".as_ref())?;
//! let recognizer = Recognizer::new(Classifier::builtin(Backend::Flex)?);
//! let mut options = RecognizeOptions::default();
//! // What the picture cannot show comes from the user (here: black to move).
//! options.fields.turn = TurnChoice::Given(shakmaty::Color::Black);
//! let read = recognizer.recognize(&image, &options)?;
//! assert_eq!(
//!     read.fen.to_string(),
//!     "rnb1kb1r/p2ppp1p/1p5n/2p3p1/2B1P3/P4P2/1PP1Q1PP/RNB1K1NR b - - 0 1"
//! );
//! // Squares below the threshold, constraint changes and checker problems, for the user.
//! assert!(read.uncertain.is_empty() && read.changes.is_empty() && read.problems.is_empty());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Square order
//!
//! Everywhere in this crate, 64 squares are listed in *reading order*: index 0 is a8, 7 is
//! h8, 8 is a7 and 63 is h1, i.e. rank 8 first and files a..h, as a FEN placement is written
//! and as the squares of a board image seen from white's side are read, top-left first. A
//! board image seen from black's side read the same way gives [`Placement::rotated_180`].
//!
//! # Class indices
//!
//! | index | class | index | class |
//! |---|---|---|---|
//! | 0 | empty | | |
//! | 1 | white pawn | 7 | black pawn |
//! | 2 | white knight | 8 | black knight |
//! | 3 | white bishop | 9 | black bishop |
//! | 4 | white rook | 10 | black rook |
//! | 5 | white queen | 11 | black queen |
//! | 6 | white king | 12 | black king |

pub mod board;
pub mod board_top;
pub mod class;
pub mod classifier;
pub mod clear_labels;
pub mod clear_marks;
pub mod fen;
pub mod placement;

pub use class::SquareClass;
pub use fen::{Castling, Fen, FenField};
pub use placement::Placement;
pub mod coordinates;
pub mod dataset;
pub mod debug_image;
pub mod decode;
pub mod eval;
pub mod hidden;
pub mod io;
pub mod last_move;
pub mod levels;
pub mod lookalike;
pub mod orientation;
pub mod quad;
pub mod recognize;
pub mod relook;
pub mod render;
pub mod square_readings;
pub mod squares;
pub mod training;
