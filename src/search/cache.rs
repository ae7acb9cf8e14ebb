//! A bounded evaluation cache keyed by position hash (die roll included): transpositions and
//! revisited positions skip the evaluator. The key leaves out the ply counters (the network's
//! progress planes), an approximation; variants whose legal moves depend on the history (the
//! repetition ban) get no cache at all, and an entry is only used for the same number of moves.

use std::collections::HashMap;

use super::evaluator::Evaluation;

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
            map: HashMap::with_capacity(capacity.min(1 << 16)),
            capacity,
            hits: 0,
            misses: 0,
        }
    }

    /// The evaluation stored for `key`, if it has one prior per move of the `moves` now legal.
    pub fn get(&mut self, key: u64, moves: usize) -> Option<Evaluation> {
        let found = self
            .map
            .get(&key)
            .filter(|e| e.priors.len() == moves)
            .cloned();
        match found {
            Some(_) => self.hits += 1,
            None => self.misses += 1,
        }
        found
    }

    pub fn insert(&mut self, key: u64, eval: Evaluation) {
        if self.capacity == 0 {
            return;
        }
        // simplest bound: start afresh when full (recent positions are refilled quickly)
        if self.map.len() >= self.capacity {
            self.map.clear();
        }
        self.map.insert(key, eval);
    }
}
