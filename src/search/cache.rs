//! A bounded evaluation cache keyed by position hash (die roll included): transpositions and
//! revisited positions skip the evaluator.

use std::collections::HashMap;

use super::evaluator::Evaluation;

pub struct EvalCache {
    map: HashMap<u64, Evaluation>,
    capacity: usize,
    pub hits: u64,
    pub misses: u64,
}

impl EvalCache {
    pub fn new(capacity: usize) -> EvalCache {
        EvalCache {
            map: HashMap::with_capacity(capacity.min(1 << 16)),
            capacity,
            hits: 0,
            misses: 0,
        }
    }

    pub fn get(&mut self, key: u64) -> Option<Evaluation> {
        let found = self.map.get(&key).cloned();
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
