//! A slow, independent reference for the rules engine. It keeps its own board and state, reads
//! the rule parameters directly (special squares by coordinates and names) and walks the board
//! square by square, sharing nothing with the engine's code but its public types (`Move`, `Piece`,
//! the parsed `Rules`) and one predicate (the edge fort, see `board.rs`).
// Each test crate that includes this module uses only part of it.
#![allow(dead_code)]

mod board;
mod captures;
mod geometry;
mod movegen;

pub use board::RefBoard;

use tavlei_rules::rules::Repetition;
use tavlei_rules::{Move, Position};

/// Legal moves of an engine position, for callers that hold no reference board
/// (`tests/properties.rs`). Earlier positions live only in the engine's history, so here the end
/// of the game and the repetition ban are read from the engine; `RefBoard` decides both itself.
pub fn reference_moves(pos: &Position) -> Vec<Move> {
    if pos.status().is_some() {
        return Vec::new();
    }
    let mut moves = RefBoard::from_position(pos).legal_moves();
    let end = &pos.variant().rules.end;
    if end.repetition == Repetition::Illegal {
        let fresh: Vec<Move> = moves
            .iter()
            .copied()
            .filter(|&mv| {
                let mut child = pos.clone();
                child.play_unchecked(mv);
                child.occurrences() < end.repetition_count as usize
            })
            .collect();
        if !fresh.is_empty() {
            moves = fresh;
        }
    }
    moves
}
