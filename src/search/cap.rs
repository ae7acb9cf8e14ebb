//! Hard bounds on one search, over whatever its budget asks: whoever searches for other people
//! (a server) bounds each search by a clock, and a tree search by the memory its nodes hold, so
//! that no agent spec (`ab:12`, `mcts:1000000`) can hold a core for hours or take gigabytes.

use std::time::Duration;

/// No bound where a field is `None`. A capped search still completes its first iteration (or
/// its root's expansion and one simulation), so it always has a move to give.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SearchCap {
    /// The longest the search may run.
    pub time: Option<Duration>,
    /// The most memory a tree search's nodes may hold (alpha-beta's table is fixed by its
    /// settings).
    pub tree_bytes: Option<usize>,
}

#[cfg(test)]
mod tests {
    use std::time::Instant;

    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    use super::*;
    use crate::rules::{Position, Variant};
    use crate::search::alphabeta::{AlphaBeta, AlphaBetaConfig, Limit};
    use crate::search::mcts::single;
    use crate::search::{Budget, Search, SearchConfig, UniformEvaluator};

    fn copenhagen() -> Position {
        Position::start(&Variant::load("copenhagen").expect("a preset"))
    }

    #[test]
    fn a_tree_search_stops_at_its_memory_cap_whatever_its_simulations() {
        let cap = 4 << 20;
        let mut search = Search::new(
            copenhagen(),
            SearchConfig::default(),
            Budget::Nodes(100_000),
        );
        search.set_cap(SearchCap {
            time: None,
            tree_bytes: Some(cap),
        });
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let decision = single::run(&mut search, &mut UniformEvaluator, &mut rng).expect("a move");
        let bytes = search.tree().allocated_bytes();
        // the vector doubles: it stops at the first growth past the cap
        assert!((cap..=2 * cap).contains(&bytes), "{bytes} bytes");
        assert!(decision.simulations > 100 && decision.simulations < 100_000);
    }

    #[test]
    fn a_tree_search_stops_at_its_clock_whatever_its_simulations() {
        let mut search = Search::new(
            copenhagen(),
            SearchConfig::default(),
            Budget::Nodes(100_000),
        );
        search.set_cap(SearchCap {
            time: Some(Duration::from_millis(100)),
            tree_bytes: None,
        });
        let started = Instant::now();
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let decision = single::run(&mut search, &mut UniformEvaluator, &mut rng).expect("a move");
        // uncapped, the 100,000 simulations take seconds
        let simulations = decision.simulations;
        assert!(simulations > 0 && simulations < 100_000, "{simulations}");
        assert!(started.elapsed() < Duration::from_secs(10));
    }

    #[test]
    fn alpha_beta_to_a_depth_stops_at_its_clock() {
        let mut ab = AlphaBeta::new(AlphaBetaConfig::default(), 1);
        ab.set_cap(SearchCap {
            time: Some(Duration::from_millis(100)),
            tree_bytes: None,
        });
        let started = Instant::now();
        let found = ab.search(&copenhagen(), Limit::Depth(5));
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "{:?}",
            started.elapsed()
        );
        assert!(found.best.is_some());
        assert!(found.depth >= 1 && found.depth < 5, "depth {}", found.depth);
        // the cap shortens a time limit too, and leaves a shorter one alone
        let started = Instant::now();
        ab.search(&copenhagen(), Limit::Time(Duration::from_secs(600)));
        assert!(started.elapsed() < Duration::from_secs(10));
    }
}
