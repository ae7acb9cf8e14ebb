//! Uniformly random playouts: the unit of the engine's speed, and a first (weak) look at a
//! variant's balance.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

use super::moves::Move;
use super::outcome::{Outcome, Reason};
use super::piece::Side;
use super::position::Position;

/// One random game from `start`, reusing `moves` as the move buffer.
pub struct PlayoutResult {
    pub outcome: Outcome,
    pub plies: u32,
    /// Legal moves generated over the game (the list is generated in full at every ply).
    pub legal_moves: u64,
}

pub fn random_playout<R: Rng>(
    start: &Position,
    rng: &mut R,
    moves: &mut Vec<Move>,
) -> PlayoutResult {
    playout_with(start, rng, moves, |_, legal, rng| {
        legal[rng.random_range(0..legal.len())]
    })
}

/// One game from `start` to its end, each move picked by `choose` from the non-empty list of
/// legal moves (die rolls drawn from `rng`), reusing `moves` as the move buffer.
pub fn playout_with<R: Rng>(
    start: &Position,
    rng: &mut R,
    moves: &mut Vec<Move>,
    mut choose: impl FnMut(&Position, &[Move], &mut R) -> Move,
) -> PlayoutResult {
    let mut pos = start.clone();
    let mut plies = 0;
    let mut legal_moves = 0u64;
    loop {
        if pos.needs_roll() {
            pos.set_roll(rng.random_range(1..=6));
        }
        pos.legal_moves(moves);
        if moves.is_empty() {
            let outcome = pos.status().unwrap_or_else(|| pos.no_moves_outcome());
            return PlayoutResult {
                outcome,
                plies,
                legal_moves,
            };
        }
        legal_moves += moves.len() as u64;
        let mv = choose(&pos, moves, rng);
        pos.play_unchecked(mv);
        plies += 1;
    }
}

/// One random game written down: each move in notation with its captures (a die roll, where
/// the variant has one, prefixes its move as `3:`), and the outcome.
pub fn random_game_record<R: Rng>(start: &Position, rng: &mut R) -> (Vec<String>, Outcome) {
    let mut pos = start.clone();
    let mut moves = Vec::new();
    let mut record = Vec::new();
    loop {
        if pos.needs_roll() {
            pos.set_roll(rng.random_range(1..=6));
        }
        pos.legal_moves(&mut moves);
        if moves.is_empty() {
            return (
                record,
                pos.status().unwrap_or_else(|| pos.no_moves_outcome()),
            );
        }
        let mv = moves[rng.random_range(0..moves.len())];
        record.push(pos.play_recorded(mv));
    }
}

/// The random numbers of game `game` of a run seeded `seed`: every game has its own, so games
/// can be played in any order and on any thread with the same result.
pub fn game_rng(seed: u64, game: u64) -> ChaCha8Rng {
    let mut z = seed ^ game.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    ChaCha8Rng::seed_from_u64(z ^ (z >> 31))
}

/// `games` random playouts from `start` on rayon's threads (game `k` drawn from
/// `game_rng(seed, k)`, so the totals do not depend on the thread count); `on_game` hears each
/// finished game, from whichever thread played it.
pub fn random_playouts(
    start: &Position,
    games: u64,
    seed: u64,
    on_game: &(dyn Fn() + Sync),
) -> PlayoutStats {
    let results: Vec<PlayoutResult> = (0..games)
        .into_par_iter()
        .map_init(
            || Vec::with_capacity(256),
            |moves, game| {
                let result = random_playout(start, &mut game_rng(seed, game), moves);
                on_game();
                result
            },
        )
        .collect();
    let mut stats = PlayoutStats::default();
    for r in &results {
        stats.record(r);
    }
    stats
}

/// Totals over many playouts.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct PlayoutStats {
    pub games: u64,
    pub plies: u64,
    pub legal_moves: u64,
    pub attacker_wins: u64,
    pub defender_wins: u64,
    pub draws: u64,
    /// Games per end reason, in `Reason::ALL` order.
    pub reasons: Vec<(String, u64)>,
    pub lengths: Vec<u32>,
}

impl PlayoutStats {
    pub fn record(&mut self, result: &PlayoutResult) {
        if self.reasons.is_empty() {
            self.reasons = Reason::ALL
                .iter()
                .map(|r| (r.name().to_string(), 0))
                .collect();
        }
        self.games += 1;
        self.plies += result.plies as u64;
        self.legal_moves += result.legal_moves;
        match result.outcome.winner {
            Some(Side::Attackers) => self.attacker_wins += 1,
            Some(Side::Defenders) => self.defender_wins += 1,
            None => self.draws += 1,
        }
        let index = Reason::ALL
            .iter()
            .position(|&r| r == result.outcome.reason)
            .unwrap_or(0);
        self.reasons[index].1 += 1;
        self.lengths.push(result.plies);
    }

    pub fn mean_length(&self) -> f64 {
        if self.games == 0 {
            return 0.0;
        }
        self.plies as f64 / self.games as f64
    }

    pub fn median_length(&self) -> f64 {
        let mut sorted = self.lengths.clone();
        sorted.sort_unstable();
        match sorted.len() {
            0 => 0.0,
            n if n % 2 == 1 => sorted[n / 2] as f64,
            n => (sorted[n / 2 - 1] + sorted[n / 2]) as f64 / 2.0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Variant;

    #[test]
    fn playout_totals_do_not_depend_on_the_thread_count() {
        let start = Position::start(&Variant::load("tablut").expect("preset"));
        let run = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .expect("pool");
            let heard = std::sync::atomic::AtomicU64::new(0);
            let stats = pool.install(|| {
                random_playouts(&start, 40, 5, &|| {
                    heard.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                })
            });
            assert_eq!(heard.into_inner(), 40);
            stats
        };
        let (one, two) = (run(1), run(2));
        assert_eq!(one.games, 40);
        assert_eq!(
            (one.plies, one.legal_moves, &one.lengths, &one.reasons),
            (two.plies, two.legal_moves, &two.lengths, &two.reasons)
        );
        // and game k is the game its own random numbers play
        let mut moves = Vec::new();
        let third = random_playout(&start, &mut game_rng(5, 2), &mut moves);
        assert_eq!(one.lengths[2], third.plies);
    }
}
