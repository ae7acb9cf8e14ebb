//! A bounded evaluation cache: transpositions and revisited positions skip the evaluator. The key
//! holds everything an evaluator sees (`cache_key`: board, side to move, berserk piece, die roll,
//! the ply counters and how often the position has occurred), so a hit returns exactly what the
//! evaluator would. Variants whose legal moves depend on the history (the repetition ban) get no
//! cache at all, and an entry is only used for the same number of moves.

use std::collections::HashMap;

use super::evaluator::Evaluation;
use crate::numeric::splitmix64;
use crate::rules::Position;

/// The cache key of a position: its hash with the die roll (`Position::key`), the plies and the
/// plies the length cap counts (the progress plane of either encoding), the plies since the last
/// capture and the occurrences of the position (what the repetition rule and the network's
/// repetition planes see), each counter mixed by splitmix64 so that they do not cancel out.
pub fn cache_key(pos: &Position) -> u64 {
    pos.key()
        ^ splitmix64(pos.ply() as u64)
        ^ splitmix64((1 << 32) | pos.plies_since_capture() as u64)
        ^ splitmix64((2 << 32) | pos.occurrences() as u64)
        ^ splitmix64((3 << 32) | pos.counted_plies() as u64)
}

pub struct EvalCache {
    map: HashMap<u64, Evaluation>,
    capacity: usize,
    pub hits: u64,
    pub misses: u64,
}

impl EvalCache {
    /// A cache for positions of `variant` (none where history changes the legal moves).
    pub fn for_variant(capacity: usize, variant: &crate::rules::Variant) -> EvalCache {
        let history_matters =
            variant.rules.end.repetition == crate::rules::rules::Repetition::Illegal;
        EvalCache::new(if history_matters { 0 } else { capacity })
    }

    pub fn new(capacity: usize) -> EvalCache {
        EvalCache {
            // small at first, grown as filled: a game played alone (a study's worker makes a
            // fresh cache per game) then does not map and unmap megabytes each time
            map: HashMap::with_capacity(capacity.min(1 << 10)),
            capacity,
            hits: 0,
            misses: 0,
        }
    }

    /// The evaluation stored for `pos`, if it has one prior per move of the `moves` now legal.
    pub fn get(&mut self, pos: &Position, moves: usize) -> Option<Evaluation> {
        let found = self
            .map
            .get(&cache_key(pos))
            .filter(|e| e.priors.len() == moves)
            .cloned();
        match found {
            Some(_) => self.hits += 1,
            None => self.misses += 1,
        }
        found
    }

    pub fn insert(&mut self, pos: &Position, eval: Evaluation) {
        if self.capacity == 0 {
            return;
        }
        let key = cache_key(pos);
        // simplest bound: start afresh when full (recent positions are refilled quickly)
        if self.map.len() >= self.capacity {
            self.map.clear();
        }
        self.map.insert(key, eval);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Variant;

    fn eval(value: f32, moves: usize) -> Evaluation {
        Evaluation {
            priors: vec![1.0 / moves as f32; moves],
            value,
        }
    }

    #[test]
    fn the_key_tells_apart_what_the_network_sees() {
        let v = Variant::load("brandubh").expect("preset");
        let start = Position::start(&v);
        // the start position again after a shuffle: same board, more plies, a second occurrence
        let mut again = start.clone();
        for mv in ["a4-a5", "d5-c5", "a5-a4", "c5-d5"] {
            again.play(mv).expect("legal");
        }
        assert_eq!(again.hash(), start.hash());
        assert_ne!(cache_key(&again), cache_key(&start));
        let mut cache = EvalCache::new(16);
        let mut moves = Vec::new();
        start.legal_moves(&mut moves);
        cache.insert(&start, eval(0.25, moves.len()));
        assert_eq!(cache.get(&again, moves.len()), None);
        assert_eq!(
            cache.get(&start.clone(), moves.len()).map(|e| e.value),
            Some(0.25)
        );
        // a different number of legal moves is never served
        assert_eq!(cache.get(&start, moves.len() + 1), None);
    }

    #[test]
    fn positions_with_one_key_look_the_same_to_the_network() {
        // same board, ply, plies since capture and occurrences; only the passes differ, and with
        // them the progress plane of encoding 2
        let v = Variant::load("brandubh").expect("preset");
        let state = crate::rules::RecordedState {
            ply: 6,
            passes: 0,
            plies_since_capture: 6,
            berserk: None,
            occurrences: 1,
        };
        let mut a = Position::start(&v);
        a.restore_state(&state);
        let mut b = Position::start(&v);
        b.restore_state(&crate::rules::RecordedState { passes: 2, ..state });
        let enc = crate::encode::Encoding::CURRENT;
        assert_ne!(enc.encode(&a), enc.encode(&b));
        assert_ne!(cache_key(&a), cache_key(&b));
        let mut c = Position::start(&v);
        c.restore_state(&state);
        assert_eq!(cache_key(&a), cache_key(&c));
        assert_eq!(enc.encode(&a), enc.encode(&c));
    }
}
