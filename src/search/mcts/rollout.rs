//! Rollouts with decisive moves (Teytaud & Teytaud 2010, "On the huge benefit of decisive moves in
//! Monte-Carlo tree search algorithms"): a playout takes a move that wins at once when it has one,
//! and otherwise blocks the king's open line to an escape square when the king threatens one. And
//! a cheap move prior for rollout searches: winning, capturing, blocking and king moves first.

use rand::Rng;

use crate::rules::playout::{playout_with, PlayoutResult};
use crate::rules::{Move, Position, Side, Square};
use crate::search::tactics::{adjacent, escape_lines, wins_at_once};

/// Buffers a decisive playout reuses.
#[derive(Default)]
pub struct Scratch {
    moves: Vec<Move>,
    squares: Vec<Square>,
    candidates: Vec<Move>,
}

/// Picks the move of a decisive playout: a win at once, else a block of an open escape line
/// (attackers), else uniformly at random. `moves` must be non-empty.
fn decisive_choice<R: Rng>(
    pos: &Position,
    moves: &[Move],
    rng: &mut R,
    squares: &mut Vec<Square>,
    candidates: &mut Vec<Move>,
) -> Move {
    if let Some(&w) = moves.iter().find(|&&m| wins_at_once(pos, m)) {
        return w;
    }
    if pos.side_to_move() == Side::Attackers && escape_lines(pos, squares) > 0 {
        candidates.clear();
        candidates.extend(moves.iter().filter(|m| squares.contains(&m.to())));
        if !candidates.is_empty() {
            return candidates[rng.random_range(0..candidates.len())];
        }
    }
    moves[rng.random_range(0..moves.len())]
}

/// One playout from `start` to the end of the game with decisive moves.
pub fn decisive_playout<R: Rng>(
    start: &Position,
    rng: &mut R,
    scratch: &mut Scratch,
) -> PlayoutResult {
    let Scratch {
        moves,
        squares,
        candidates,
    } = scratch;
    playout_with(start, rng, moves, |pos, legal, rng| {
        decisive_choice(pos, legal, rng, squares, candidates)
    })
}

/// A cheap prior over `moves` (they sum to 1): a move that wins at once outweighs everything;
/// then blocks of the king's open lines, likely captures, king moves and attackers closing in
/// on the king. Captures are guessed by the custodial pattern only (enemy next to the target
/// square, a friend or a corner beyond it), which is what makes the prior cheap.
pub fn cheap_prior(pos: &Position, moves: &[Move], squares: &mut Vec<Square>) -> Vec<f32> {
    let me = pos.side_to_move();
    let v = pos.variant();
    let king = pos.king();
    let threatened = me == Side::Attackers && escape_lines(pos, squares) > 0;
    let friend = |sq: Square, from: Square| {
        sq != from
            && (pos.piece_at(sq).is_some_and(|p| p.side == me)
                || v.flags[sq as usize] & crate::rules::variant::CORNER != 0)
    };
    let mut weights: Vec<f32> = moves
        .iter()
        .map(|&m| {
            if !m.moves_a_piece() {
                return 1.0;
            }
            if wins_at_once(pos, m) {
                return 1000.0;
            }
            let mut w = 1.0;
            if threatened && squares.contains(&m.to()) {
                w += 8.0;
            }
            let captures = (0..4).any(|d| {
                v.neighbour(m.to(), d).is_some_and(|n| {
                    Some(n) != king
                        && pos.piece_at(n).is_some_and(|p| p.side != me)
                        && v.neighbour(n, d).is_some_and(|b| friend(b, m.from()))
                })
            });
            if captures {
                w += 4.0;
            }
            if let Some(k) = king {
                // king moves, and attackers closing in on the king
                if m.from() == k || (me == Side::Attackers && adjacent(pos, m.to(), k)) {
                    w += 2.0;
                }
            }
            w
        })
        .collect();
    let sum: f32 = weights.iter().sum();
    for w in &mut weights {
        *w /= sum.max(f32::MIN_POSITIVE);
    }
    weights
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn decisive_playouts_end_and_report_an_outcome() {
        let v = crate::rules::Variant::load("brandubh").expect("preset");
        let pos = Position::start(&v);
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
        let mut scratch = Scratch::default();
        for _ in 0..20 {
            let r = decisive_playout(&pos, &mut rng, &mut scratch);
            assert!(r.plies > 0 && r.legal_moves > 0);
        }
        let mut moves = Vec::new();
        pos.legal_moves(&mut moves);
        let p = cheap_prior(&pos, &moves, &mut Vec::new());
        assert_eq!(p.len(), moves.len());
        assert!((p.iter().sum::<f32>() - 1.0).abs() < 1e-4);
    }
}
