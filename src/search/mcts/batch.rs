//! The one batching step between searches and an evaluator: the waiting leaves of many searches
//! (many games, many analysis queries, or one search's gathered leaves) go to the evaluator in
//! one call, each evaluation is cached and expanded into its search, oldest leaf first. Self-play,
//! the arena, analysis and single searches all use it, so leaf gathering within a search
//! (`SearchConfig::leaf_batch`), batching across games and any device batching live here once.

use rand::Rng;

use super::cache::EvalCache;
use super::driver::Search;
use super::evaluator::{Evaluator, Request};

/// Evaluates every pending leaf of `waiting` in one call of `evaluator`, stores each evaluation
/// in `cache` (when given) and expands it into its search with that search's random generator.
/// Returns the number of leaves evaluated (0: the evaluator was not called).
pub fn evaluate_pending<R: Rng>(
    waiting: &mut [(&mut Search, &mut R)],
    evaluator: &mut dyn Evaluator,
    mut cache: Option<&mut EvalCache>,
) -> usize {
    let evals = {
        let requests: Vec<Request<'_>> = waiting
            .iter()
            .flat_map(|(search, _)| search.pending_leaves())
            .collect();
        if requests.is_empty() {
            return 0;
        }
        evaluator.evaluate(&requests)
    };
    let evaluated = evals.len();
    let mut evals = evals.into_iter();
    for (search, rng) in waiting.iter_mut() {
        for _ in 0..search.tree().pending_count() {
            let eval = evals.next().expect("one evaluation per leaf");
            if let (Some(cache), Some((pos, _))) = (cache.as_deref_mut(), search.pending()) {
                cache.insert(pos, eval.clone());
            }
            search.expand(&eval, *rng);
        }
    }
    evaluated
}
