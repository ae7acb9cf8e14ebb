//! When iterative deepening starts another iteration. An iteration that the limit interrupts is
//! not thrown away: its first root move is the previous best, searched with a full window, so any
//! later move that beat it is trusted (see `AlphaBeta::search`). Starting one is therefore wasted
//! only when even that first move cannot finish; the clock predicts that cost from the last
//! iteration (its first move's cost times the growth measured between whole iterations) and
//! starts no iteration predicted to be wasted. Everything else the limit allows is searched, so a
//! timed search spends nearly all of its time.

use std::time::{Duration, Instant};

/// Time and nodes since some mark.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Spent {
    secs: f64,
    nodes: u64,
}

/// What a complete iteration cost, in all and for its first root move.
#[derive(Clone, Copy, Debug, PartialEq)]
struct IterationCost {
    total: Spent,
    first: Spent,
}

/// The limits of one search and what its iterations cost so far.
#[derive(Clone, Debug)]
pub(super) struct IterationClock {
    start: Instant,
    time: Option<Duration>,
    nodes: Option<u64>,
    /// `new_iteration_share`: no iteration starts after this share of the time.
    share: f64,
    /// `predict_iterations`: skip an iteration predicted to be wasted.
    predict: bool,
    /// When (and after how many nodes) the iteration in progress started.
    began: Spent,
    /// Its first root move's cost, once that move finished.
    first: Option<Spent>,
    /// The complete iterations, oldest first.
    done: Vec<IterationCost>,
}

impl IterationClock {
    pub(super) fn new(
        start: Instant,
        time: Option<Duration>,
        nodes: Option<u64>,
        share: f32,
        predict: bool,
    ) -> IterationClock {
        IterationClock {
            start,
            time,
            nodes,
            share: f64::from(share),
            predict,
            began: Spent::default(),
            first: None,
            done: Vec::new(),
        }
    }

    fn spent(&self, nodes: u64) -> Spent {
        Spent {
            secs: self.start.elapsed().as_secs_f64(),
            nodes,
        }
    }

    fn since(&self, mark: Spent, nodes: u64) -> Spent {
        let now = self.spent(nodes);
        Spent {
            secs: now.secs - mark.secs,
            nodes: now.nodes.saturating_sub(mark.nodes),
        }
    }

    /// An iteration starts, `nodes` into the search.
    pub(super) fn begin(&mut self, nodes: u64) {
        self.began = self.spent(nodes);
        self.first = None;
    }

    /// The iteration's first root move finished.
    pub(super) fn first_move_done(&mut self, nodes: u64) {
        if self.first.is_none() {
            self.first = Some(self.since(self.began, nodes));
        }
    }

    /// The iteration finished; one with no first move recorded (a chance root, which has no move
    /// to keep) counts as one move.
    pub(super) fn end(&mut self, nodes: u64) {
        let total = self.since(self.began, nodes);
        self.done.push(IterationCost {
            total,
            first: self.first.unwrap_or(total),
        });
    }

    /// Whether to start another iteration, `nodes` into the search.
    pub(super) fn start_another(&self, nodes: u64) -> bool {
        let now = self.spent(nodes);
        if let Some(t) = self.time {
            if now.secs >= t.as_secs_f64() * self.share {
                return false;
            }
        }
        if self.nodes.is_some_and(|n| nodes >= n) {
            return false;
        }
        if !self.predict {
            return true;
        }
        let Some(first) = self.predicted_first_move() else {
            return true;
        };
        let time_fits = self
            .time
            .is_none_or(|t| now.secs + first.secs <= t.as_secs_f64());
        let nodes_fit = self
            .nodes
            .is_none_or(|n| nodes as f64 + first.nodes as f64 <= n as f64);
        time_fits && nodes_fit
    }

    /// The next iteration's first root move's cost: the last one's times the growth of whole
    /// iterations in nodes (deterministic, unlike time). Alpha-beta's growth alternates between
    /// odd and even depths, so of the last two growths the smaller is taken: a wrong guess that
    /// starts a wasted iteration costs only wall time, one that skips a useful one costs play.
    /// None before three iterations have been measured (one growth alone is misled by its
    /// parity: on a Brandubh position depth 2 grew ninefold over depth 1, depth 3 fourfold).
    fn predicted_first_move(&self) -> Option<Spent> {
        let n = self.done.len();
        if n < 3 {
            return None;
        }
        let growth = |a: &IterationCost, b: &IterationCost| {
            (b.total.nodes as f64 / a.total.nodes.max(1) as f64).max(1.0)
        };
        let g = growth(&self.done[n - 2], &self.done[n - 1])
            .min(growth(&self.done[n - 3], &self.done[n - 2]));
        let last = self.done[n - 1].first;
        Some(Spent {
            secs: last.secs * g,
            nodes: (last.nodes as f64 * g) as u64,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clock_with(costs: &[(u64, u64)], budget: u64) -> IterationClock {
        let mut clock = IterationClock::new(Instant::now(), None, Some(budget), 1.0, true);
        let mut nodes = 0;
        for &(first, total) in costs {
            clock.begin(nodes);
            clock.first_move_done(nodes + first);
            nodes += total;
            clock.end(nodes);
        }
        clock
    }

    #[test]
    fn predicts_the_first_move_from_the_smaller_recent_growth() {
        // growths 10 then 4: the next first move is predicted at 40 * 4 = 160 nodes
        let clock = clock_with(&[(5, 10), (50, 100), (40, 400)], 10_000);
        assert_eq!(clock.predicted_first_move().map(|s| s.nodes), Some(160));
        // 510 spent: 160 more fits a budget of 670, not one of 669
        assert!(clock_with(&[(5, 10), (50, 100), (40, 400)], 670).start_another(510));
        assert!(!clock_with(&[(5, 10), (50, 100), (40, 400)], 669).start_another(510));
    }

    #[test]
    fn without_prediction_or_history_every_iteration_the_limit_allows_starts() {
        let mut clock = clock_with(&[(5, 10), (50, 100), (40, 400)], 669);
        clock.predict = false;
        assert!(clock.start_another(510));
        assert!(!clock.start_another(669));
        // two iterations measured: too few to predict from
        assert!(clock_with(&[(5, 10), (500, 510)], 530).start_another(520));
    }
}
