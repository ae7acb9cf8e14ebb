//! Policy indices. A slide or jump is (direction, distance, from-square): channel
//! `direction * 18 + distance - 1` of a per-square map, so a fully convolutional head with
//! `POLICY_CHANNELS` outputs serves every board up to 19×19. A jump never shares an index with a
//! legal slide (the square it jumps is occupied). Two indices follow for `stop` and `pass`.

use crate::rules::square::{Square, MAX_SIZE};
use crate::rules::{Move, MoveKind, Symmetry};

/// Longest distance a move can cover on the largest board.
pub const MAX_DISTANCE: usize = MAX_SIZE - 1;
/// Per-square policy channels of the network.
pub const POLICY_CHANNELS: usize = 4 * MAX_DISTANCE;

/// Length of the policy vector for a board of side `size`.
pub fn policy_size(size: usize) -> usize {
    POLICY_CHANNELS * size * size + 2
}

fn direction(from: Square, to: Square, size: usize) -> usize {
    let (f1, r1) = (from as usize % size, from as usize / size);
    let (f2, r2) = (to as usize % size, to as usize / size);
    match () {
        _ if f2 > f1 => 0,
        _ if f2 < f1 => 1,
        _ if r2 > r1 => 2,
        _ => 3,
    }
}

/// The policy index of a move on a board of side `size`.
pub fn policy_index(mv: Move, size: usize) -> usize {
    let n = size * size;
    match mv.kind() {
        MoveKind::Stop => POLICY_CHANNELS * n,
        MoveKind::Pass => POLICY_CHANNELS * n + 1,
        MoveKind::Slide | MoveKind::Jump => {
            let dir = direction(mv.from(), mv.to(), size);
            let channel = dir * MAX_DISTANCE + mv.distance(size) - 1;
            channel * n + mv.from() as usize
        }
    }
}

/// The slide an index stands for (a jump comes back as the slide over the same squares);
/// `None` for an index that leaves the board.
pub fn index_move(index: usize, size: usize) -> Option<Move> {
    let n = size * size;
    if index == POLICY_CHANNELS * n {
        return Some(Move::STOP);
    }
    if index == POLICY_CHANNELS * n + 1 {
        return Some(Move::PASS);
    }
    let (channel, from) = (index / n, index % n);
    if channel >= POLICY_CHANNELS {
        return None;
    }
    let (dir, distance) = (channel / MAX_DISTANCE, channel % MAX_DISTANCE + 1);
    let (df, dr) = crate::rules::square::DIRECTIONS[dir];
    let (f, r) = (
        (from % size) as i32 + df * distance as i32,
        (from / size) as i32 + dr * distance as i32,
    );
    if f < 0 || r < 0 || f >= size as i32 || r >= size as i32 {
        return None;
    }
    Some(Move::slide(
        from as Square,
        (r as usize * size + f as usize) as Square,
    ))
}

/// Where each policy index goes under a symmetry: `perm[i]` is the index of the image of move `i`.
pub fn policy_permutation(sym: Symmetry, size: usize) -> Vec<usize> {
    (0..policy_size(size))
        .map(|i| match index_move(i, size) {
            Some(mv) => policy_index(mv.transformed(sym, size), size),
            None => i,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::presets::PRESET_NAMES;
    use crate::rules::{Position, Variant};
    use rand::{Rng, SeedableRng};

    /// Positions from a random game of every preset.
    fn sample_positions() -> Vec<Position> {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        let mut out = Vec::new();
        for name in PRESET_NAMES {
            let v = Variant::load(name).expect("preset");
            let mut pos = Position::start(&v);
            let mut moves = Vec::new();
            for _ in 0..60 {
                if pos.needs_roll() {
                    pos.set_roll(rng.random_range(1..=6));
                }
                pos.legal_moves(&mut moves);
                if moves.is_empty() {
                    break;
                }
                out.push(pos.clone());
                pos.play_unchecked(moves[rng.random_range(0..moves.len())]);
            }
        }
        out
    }

    #[test]
    fn legal_moves_have_distinct_indices_that_round_trip() {
        for pos in sample_positions() {
            let size = pos.variant().size;
            let mut moves = Vec::new();
            pos.legal_moves(&mut moves);
            let mut seen = std::collections::HashSet::new();
            for mv in moves {
                let i = policy_index(mv, size);
                assert!(i < policy_size(size));
                assert!(seen.insert(i), "two moves share index {i} in {pos:?}");
                let back = index_move(i, size).expect("on the board");
                assert_eq!((back.from(), back.to()), (mv.from(), mv.to()));
            }
        }
    }

    #[test]
    fn permutation_matches_transformed_moves() {
        for pos in sample_positions().into_iter().step_by(7) {
            let v = pos.variant().clone();
            let mut moves = Vec::new();
            pos.legal_moves(&mut moves);
            for &sym in &v.symmetries {
                let perm = policy_permutation(sym, v.size);
                for &mv in &moves {
                    assert_eq!(
                        perm[policy_index(mv, v.size)],
                        policy_index(mv.transformed(sym, v.size), v.size)
                    );
                }
            }
        }
    }
}
