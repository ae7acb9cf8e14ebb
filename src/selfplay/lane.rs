//! A lane: a fixed group of a run's games played together, their pending leaves evaluated in one
//! batch, with an evaluation cache of its own. Game `id` plays in lane `id % lanes`, so which
//! games share a batch depends on the config alone, never on how many threads play the lanes or
//! in which order: a network's forward pass may round a position's outputs differently in
//! different batches, so a lane's games are the same however lanes are scheduled.

use std::time::Instant;

use super::config::SelfplayConfig;
use super::game::{FinishedGame, Game};
use super::starts::Starts;
use crate::rules::Position;
use crate::search::mcts::batch::evaluate_pending;
use crate::search::mcts::cache::EvalCache;
use crate::search::{Evaluation, Evaluator, Request};

/// Batch sizes counted by powers of two: bucket k holds batches of 2^k to 2^(k+1) - 1
/// evaluations, the last one everything larger.
pub const BATCH_BUCKETS: usize = 10;

/// Where a lane's time went, in seconds of this thread's CPU (core-time), and its batches.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LaneCounters {
    pub evaluations: u64,
    pub batches: u64,
    pub cache_hits: u64,
    /// Core-seconds inside the evaluator (forward passes, encoding and read-back included).
    pub forward_seconds: f64,
    /// Core-seconds of the rounds outside the evaluator: tree work, move choice, samples.
    pub tree_seconds: f64,
    /// Batches by size (`BATCH_BUCKETS`).
    pub batch_sizes: [u64; BATCH_BUCKETS],
}

impl LaneCounters {
    pub fn add(&mut self, other: &LaneCounters) {
        self.evaluations += other.evaluations;
        self.batches += other.batches;
        self.cache_hits += other.cache_hits;
        self.forward_seconds += other.forward_seconds;
        self.tree_seconds += other.tree_seconds;
        for (mine, theirs) in self.batch_sizes.iter_mut().zip(other.batch_sizes) {
            *mine += theirs;
        }
    }
}

/// The bucket of a batch of `n` evaluations.
pub fn batch_bucket(n: usize) -> usize {
    (usize::BITS - 1 - n.max(1).leading_zeros()) as usize
}

/// Seconds of CPU this thread has used (user and system), or wall-clock seconds since the first
/// call where the system cannot say.
pub fn thread_cpu_seconds() -> f64 {
    #[cfg(target_os = "linux")]
    {
        let mut t = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: clock_gettime writes one timespec through a pointer to a local.
        let ok = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) } == 0;
        if ok {
            return t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9;
        }
    }
    static FIRST: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
    FIRST.get_or_init(Instant::now).elapsed().as_secs_f64()
}

/// Seconds this thread has spent runnable but waiting for a core (other threads or processes
/// held them), from Linux's schedstat; 0 where the system does not say.
pub fn thread_queued_seconds() -> f64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|t| t.split_whitespace().nth(1)?.parse::<f64>().ok())
        .map_or(0.0, |ns| ns * 1e-9)
}

/// An evaluator that counts the core-time of its calls and their batch sizes.
struct Timed<'a> {
    inner: &'a mut dyn Evaluator,
    seconds: f64,
    size: usize,
}

impl Evaluator for Timed<'_> {
    fn evaluate(&mut self, requests: &[Request<'_>]) -> Vec<Evaluation> {
        let before = thread_cpu_seconds();
        let out = self.inner.evaluate(requests);
        self.seconds += thread_cpu_seconds() - before;
        self.size += requests.len();
        out
    }

    fn describe(&self) -> String {
        self.inner.describe()
    }
}

pub struct Lane {
    /// The lane's games not yet started, in order.
    queue: std::vec::IntoIter<u64>,
    active: Vec<Game>,
    in_flight: usize,
    cache: EvalCache,
    counters: LaneCounters,
    starts: Option<Starts>,
}

/// Games in flight in lane `k` of `lanes` when `total` are in flight in all: shared out evenly,
/// at least one.
pub fn lane_in_flight(total: usize, lanes: usize, k: usize) -> usize {
    let lanes = lanes.max(1);
    (total / lanes + usize::from(k < total % lanes)).max(1)
}

impl Lane {
    /// Lane `k` of `cfg.lanes`, playing those of `games` (ids, in order) that belong to it.
    pub fn new(
        k: usize,
        games: &[u64],
        cfg: &SelfplayConfig,
        start: &Position,
        starts: Option<Starts>,
    ) -> Lane {
        let lanes = cfg.lanes.max(1);
        let ids: Vec<u64> = games
            .iter()
            .copied()
            .filter(|id| id % lanes as u64 == k as u64)
            .collect();
        Lane {
            queue: ids.into_iter(),
            active: Vec::new(),
            in_flight: lane_in_flight(cfg.concurrent_games, lanes, k),
            // the run's cache shared out, so memory does not grow with the lanes
            cache: EvalCache::for_variant(cfg.cache_size / lanes, start.variant()),
            counters: LaneCounters::default(),
            starts,
        }
    }

    /// One round: games started up to the lane's share, every game run to its next leaf (the
    /// finished ones leave), every pending leaf evaluated in one call of `evaluator`. Returns the
    /// games that finished, or `None` once the lane has no game left.
    pub fn round(
        &mut self,
        (start, seed): (&Position, u64),
        cfg: &SelfplayConfig,
        evaluator: &mut dyn Evaluator,
    ) -> Option<Vec<FinishedGame>> {
        let before = thread_cpu_seconds();
        while self.active.len() < self.in_flight {
            match self.queue.next() {
                Some(id) => {
                    let game = Game::new(id, start, seed, cfg, self.starts.as_ref());
                    self.active.push(game);
                }
                None => break,
            }
        }
        if self.active.is_empty() {
            return None;
        }
        let mut finished = Vec::new();
        let mut waiting = Vec::with_capacity(self.active.len());
        for game in self.active.drain(..) {
            match game.advance(cfg, &mut self.cache) {
                Ok(game) => waiting.push(game),
                Err(done) => finished.push(done),
            }
        }
        let mut timed = Timed {
            inner: evaluator,
            seconds: 0.0,
            size: 0,
        };
        let mut searches: Vec<_> = waiting.iter_mut().map(Game::waiting).collect();
        let evaluated = evaluate_pending(&mut searches, &mut timed, Some(&mut self.cache));
        if evaluated > 0 {
            self.counters.evaluations += evaluated as u64;
            self.counters.batches += 1;
            self.counters.batch_sizes[batch_bucket(timed.size).min(BATCH_BUCKETS - 1)] += 1;
        }
        self.counters.forward_seconds += timed.seconds;
        self.counters.tree_seconds += (thread_cpu_seconds() - before - timed.seconds).max(0.0);
        self.active = waiting;
        Some(finished)
    }

    /// The lane's counters, its cache hits included.
    pub fn counters(&self) -> LaneCounters {
        LaneCounters {
            cache_hits: self.cache.hits,
            ..self.counters.clone()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_are_counted_by_powers_of_two() {
        let buckets: Vec<usize> = [1, 2, 3, 4, 7, 8, 63, 64, 100, 511, 512, 4096]
            .iter()
            .map(|&n| batch_bucket(n))
            .collect();
        assert_eq!(buckets, [0, 1, 1, 2, 2, 3, 5, 6, 6, 8, 9, 12]);
    }

    #[test]
    fn games_in_flight_are_shared_out_evenly() {
        let shares: Vec<usize> = (0..4).map(|k| lane_in_flight(10, 4, k)).collect();
        assert_eq!(shares, [3, 3, 2, 2]);
        assert_eq!(lane_in_flight(100, 1, 0), 100);
        assert_eq!(lane_in_flight(2, 4, 3), 1, "never an empty lane");
    }

    #[test]
    fn the_thread_clock_counts_this_threads_work_only() {
        let before = thread_cpu_seconds();
        // another thread's work does not count here
        std::thread::spawn(|| {
            let clock = Instant::now();
            let mut x = 0u64;
            while clock.elapsed().as_millis() < 100 {
                x = x.wrapping_add(std::hint::black_box(1));
            }
            x
        })
        .join()
        .expect("ends");
        let idle = thread_cpu_seconds() - before;
        assert!(idle < 0.05, "{idle}");
    }
}
