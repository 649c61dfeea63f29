//! The single integration-test binary (one link of the Burn stack).

mod cli;
mod fen_check;
mod render;
mod util;
