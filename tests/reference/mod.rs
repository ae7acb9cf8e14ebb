//! A slow, independent reference for the rules engine. It keeps its own board and state, reads
//! the rule parameters directly (special squares by coordinates and names) and walks the board
//! square by square, sharing nothing with `src/rules` but the public types (`Move`, `Piece`,
//! the parsed `Rules`) and one predicate (the edge fort, see `board.rs`).
// Each test crate that includes this module uses only part of it.
#![allow(dead_code)]

mod board;
mod captures;
mod geometry;
mod movegen;

pub use board::RefBoard;
