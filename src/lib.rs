//! tavlei: a research toolkit for the tafl family of board games.
//!
//! Layers, each using only those below it (checked by `tests/layers.rs`): small helpers
//! (`atomic`, `config`, `npy`, `numeric`, `units`, `workers`, then `store`); `rules` (its own crate,
//! `crates/tavlei-rules`); `interop` (OpenTafl formats, game records); `encode`; `search` (which
//! knows evaluators only through a trait, so it needs no libtorch); `nn` (the network, and its
//! evaluator) beside `data`; `selfplay`; `train`; `report`; `eval`; `engine`; `play`;
//! `pipeline`; `serve` (the browser's page and API); and the command line on top.

/// The rules engine, its own crate (`crates/tavlei-rules`: no libtorch, usable on its own).
pub use tavlei_rules as rules;

pub mod atomic;
pub mod config;
pub mod data;
pub mod encode;
pub mod engine;
pub mod eval;
pub mod interop;
pub mod nn;
pub mod nnue;
pub mod npy;
pub mod numeric;
pub mod pipeline;
pub mod play;
pub mod report;
pub mod search;
pub mod selfplay;
pub mod serve;
pub mod store;
pub mod train;
pub mod units;
pub mod workers;
