//! Searching one position alone (batches of one): for agents, tests and analysis. It drives the
//! same `Search` as self-play and the arena.

use rand::Rng;

use super::driver::{Budget, Choice, Search, Step};
use super::evaluator::Evaluator;
use super::tree::{SearchConfig, Tree};

pub use super::driver::Decision;

/// Runs a search of `budget` from `search`'s root, evaluating one leaf at a time, and picks the
/// best move. `None` when the root has no legal move.
pub fn run<R: Rng>(
    search: &mut Search,
    evaluator: &mut dyn Evaluator,
    rng: &mut R,
) -> Option<Decision> {
    while search.step(None, rng) == Step::NeedsEval {
        let eval = {
            let (pos, moves) = search.pending().expect("a pending leaf");
            evaluator
                .evaluate(&[(pos, moves)])
                .pop()
                .expect("one evaluation")
        };
        search.expand(&eval, rng);
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
