//! Monte Carlo tree search: one `Search` driver (PUCT or UCT with first-play urgency or
//! unvisited-first, progressive widening, Dirichlet noise, chance nodes for dice, tree reuse,
//! proven results) with Gumbel sequential halving at the root for small budgets; node or time
//! budgets; evaluators that are a uniform prior, rollouts (pure MCTS, with decisive moves) or the
//! network. The tree never owns a tensor, and one leaf at a time is handed out so that many
//! games can batch their evaluations. Beside it, an alpha-beta player (`alphabeta`, with its
//! evaluation in `heuristic` and transposition table in `ttable`).

pub mod alphabeta;
pub mod batch;
pub mod cache;
pub mod cap;
pub mod choice;
pub mod config;
pub mod driver;
pub mod evaluator;
pub mod forced;
pub mod gumbel;
pub mod heuristic;
pub mod rollout;
pub mod single;
pub mod tree;
pub mod ttable;

pub use cap::SearchCap;
pub use config::{Fpu, SearchConfig, Selection};
pub use driver::{Budget, Choice, Decision, Search, Step};
pub use evaluator::{Evaluation, Evaluator, Request, RolloutEvaluator, UniformEvaluator};
pub use tree::{Proof, Tree};
