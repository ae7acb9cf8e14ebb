//! A learned evaluation of tafl positions for alpha-beta, in the NNUE style: sparse board
//! features feed an accumulator that a search updates move by move (only the squares a move
//! changes), then a small clipped-ReLU head gives a score for the side to move, all in integers.
//!
//! The feature set is the contract between this crate (inference) and the trainer (which
//! computes the same indices for its float model): see `features`.

pub mod features;

pub use features::{FeatureChange, FeatureSet};
