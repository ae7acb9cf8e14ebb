//! Monte Carlo tree search: PUCT with Dirichlet noise, first-play urgency, chance nodes for dice
//! and tree reuse; Gumbel sequential halving at the root for small budgets; evaluators that are a
//! uniform prior, random rollouts (pure MCTS) or the network. The tree never owns a tensor, and
//! one leaf at a time is handed out so that many games can batch their evaluations.

pub mod alphabeta;
pub mod cache;
pub mod choice;
pub mod evaluator;
pub mod gumbel;
pub mod heuristic;
pub mod single;
pub mod tree;
pub mod ttable;

pub use evaluator::{Evaluation, Evaluator, NetworkEvaluator, RolloutEvaluator, UniformEvaluator};
pub use tree::{SearchConfig, Tree};
