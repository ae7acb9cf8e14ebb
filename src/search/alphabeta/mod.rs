//! The classical reference opponent (`ab:DEPTH`, `ab:t=100ms`): `negamax` is its search
//! (iterative deepening, alpha-beta with principal variation search, move ordering, quiescence,
//! expectimax over the die), `heuristic` its static evaluation read off the variant's rules,
//! `learned` the trained evaluation that may replace it (NNUE, `ab:B:nnue=FILE`), `ttable` its
//! transposition table, `clock` when it starts another iteration, `config` its settings file and
//! `spec_files` the files a spec names (`:eval=`, `:nnue=`).
//! With the tree search it shares only what `search` itself holds: the budget, the cap and the
//! one-move tactics.

mod clock;
pub mod config;
pub mod heuristic;
pub mod learned;
pub mod negamax;
mod spec_files;
pub mod ttable;

pub use config::{AlphaBetaConfig, SearchSettings, MAX_QUIESCENCE};
pub use heuristic::{EvalWeights, Heuristic, EVAL_LIMIT, WEIGHT_NAMES};
pub use learned::{Audit, LearnedEval, LEARNED_PER_LOGIT};
pub use negamax::{is_quiet, AbResult, AlphaBeta, Limit, MAX_PLY, WIN, WIN_BOUND};
pub use spec_files::SpecFiles;
