//! The single integration-test binary (one link of the Burn stack).

mod augment;
mod bent;
mod checkpoint;
mod cli;
mod fen_check;
mod finder;
mod hidden;
mod last_move;
mod many_boards;
mod orientation;
mod piece_sources;
mod pipeline;
mod render;
mod render_scenes;
mod tones;
mod training;
mod util;
