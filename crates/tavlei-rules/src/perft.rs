//! Perft: the number of move sequences of a given length, the standard check of a move
//! generator. A die roll is a chance node: its six outcomes are summed and use no depth.

use rayon::prelude::*;

use super::moves::Move;
use super::position::Position;

/// The count, with the subtrees of the first moves shared out over rayon's threads from depth 3
/// (below that the work is too small to split).
pub fn perft(pos: &Position, depth: u32) -> u64 {
    if depth < 3 || pos.needs_roll() {
        let mut buffers = vec![Vec::with_capacity(128); depth as usize + 1];
        return count(pos, depth, &mut buffers);
    }
    let mut moves = Vec::new();
    pos.legal_moves(&mut moves);
    moves
        .par_iter()
        .map_init(
            || vec![Vec::with_capacity(128); depth as usize],
            |buffers, &mv| {
                let mut child = pos.clone();
                child.play_unchecked(mv);
                count(&child, depth - 1, buffers)
            },
        )
        .sum()
}

fn count(pos: &Position, depth: u32, buffers: &mut [Vec<Move>]) -> u64 {
    if depth == 0 {
        return 1;
    }
    if pos.needs_roll() {
        return (1..=6)
            .map(|roll| {
                let mut rolled = pos.clone();
                rolled.set_roll(roll);
                count(&rolled, depth, buffers)
            })
            .sum();
    }
    let (moves, rest) = buffers.split_first_mut().expect("one buffer per ply");
    pos.legal_moves(moves);
    if depth == 1 {
        return moves.len() as u64;
    }
    let mut total = 0;
    for &mv in moves.iter() {
        let mut child = pos.clone();
        child.play_unchecked(mv);
        total += count(&child, depth - 1, rest);
    }
    total
}
