//! Searching one position alone (batches of one): for agents, tests and analysis. It drives the
//! same `Search` as self-play and the arena.

use rand::Rng;

use super::batch::evaluate_pending;
use super::config::SearchConfig;
use super::driver::{Choice, Search, Step};
use super::evaluator::Evaluator;
use super::tree::Tree;
use crate::search::Budget;

pub use super::driver::Decision;

/// Runs a search of `budget` from `search`'s root, evaluating its leaves as it gathers them (one
/// at a time, or up to `leaf_batch` per call), and picks the best move. `None` when the root has
/// no legal move.
pub fn run<R: Rng>(
    search: &mut Search,
    evaluator: &mut dyn Evaluator,
    rng: &mut R,
) -> Option<Decision> {
    while search.step(None, rng) == Step::NeedsEval {
        evaluate_pending(&mut [(&mut *search, &mut *rng)], evaluator, None);
    }
    search.decide(Choice::Best, rng)
}

/// Runs `simulations` simulations (after the root's expansion) on `tree` and picks the best
/// move; the tree keeps its statistics for reuse. `None` when the root has no legal move.
pub fn think<R: Rng>(
    tree: &mut Tree,
    evaluator: &mut dyn Evaluator,
    simulations: u32,
    cfg: &SearchConfig,
    rng: &mut R,
) -> Option<Decision> {
    let placeholder = Tree::new(tree.root_position().clone());
    let mut search = Search::from_tree(
        std::mem::replace(tree, placeholder),
        cfg.clone(),
        Budget::Nodes(simulations),
    );
    let decision = run(&mut search, evaluator, rng);
    *tree = search.into_tree();
    decision
}
