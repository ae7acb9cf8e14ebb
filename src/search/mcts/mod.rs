//! Monte Carlo tree search: one `Search` driver (`driver`) over one tree (`tree`: PUCT or UCT with
//! first-play urgency or unvisited-first, progressive widening, Dirichlet noise, chance nodes for
//! dice, virtual loss, tree reuse), with proven results (`solver`), Gumbel sequential halving at
//! the root for small budgets (`gumbel`) and KataGo's forced playouts (`forced`); its settings in
//! `config`. The tree never owns a tensor: it hands out pending leaves, and `batch` is the one
//! step that sends the leaves of one or many searches to an `Evaluator` (`evaluator`: a uniform
//! prior, rollouts from `rollout`, or the network in `nn`) through the evaluation cache (`cache`).
//! `single` searches one position alone; `choice` draws a move from visit counts.

pub mod batch;
pub mod cache;
pub mod choice;
pub mod config;
pub mod driver;
pub mod evaluator;
pub mod forced;
pub mod gumbel;
pub mod rollout;
pub mod single;
pub mod solver;
pub mod tree;

pub use config::{Fpu, SearchConfig, Selection};
pub use driver::{Choice, Decision, Search, Step};
pub use evaluator::{Evaluation, Evaluator, Request, RolloutEvaluator, UniformEvaluator};
pub use solver::Proof;
pub use tree::{ChildStats, Tree};
