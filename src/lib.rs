//! tavlei: a research toolkit for the tafl family of board games.
//!
//! Layers, each knowing only those before it: `rules` (variants, move generation, notation),
//! then search, self-play, data, training and evaluation.

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
pub mod npy;
pub mod pipeline;
pub mod play;
pub mod report;
pub mod search;
pub mod selfplay;
pub mod store;
pub mod train;
pub mod units;
pub mod workers;
