//! The two searches and what they share. `mcts` is the Monte Carlo tree search that self-play,
//! the network and rollout agents and analysis run: one driver over one tree, with proven results,
//! Gumbel root search, leaf batching and an evaluator trait the network implements. `alphabeta`
//! is the classical reference opponent: iterative-deepening negamax with its own evaluation and
//! transposition table. Neither uses the other; both take a `Budget` (`budget`), a `SearchCap`
//! (`cap`) over it, and the one-move tactics of `tactics`.
//!
//! The types most callers need are re-exported here.

pub mod alphabeta;
pub mod budget;
pub mod cap;
pub mod mcts;
pub mod tactics;

pub use budget::{format_duration, parse_duration, Budget};
pub use cap::SearchCap;
pub use mcts::{
    ChildStats, Choice, Decision, Evaluation, Evaluator, Fpu, Proof, Request, RolloutEvaluator,
    Search, SearchConfig, Selection, Step, Tree, UniformEvaluator,
};
