//! A learned evaluation of tafl positions for alpha-beta, in the NNUE style: sparse board
//! features feed an accumulator that a search updates move by move (only the squares a move
//! changes), then a small clipped-ReLU head gives a score for the side to move, all in integers.
//!
//! The feature set is the contract between this crate (inference) and the trainer (which
//! computes the same indices for its float model): see `features`.

mod accumulator;
mod error;
pub mod features;
mod file;
mod float;
mod kernels;
mod meta;
mod network;

pub use accumulator::Accumulator;
pub use error::NnueError;
pub use features::{FeatureChange, FeatureSet};
pub use file::{FORMAT, VERSION};
pub use float::FloatNetwork;
pub use meta::Meta;
pub use network::{Network, MAX_WIDTH};

/// Score units per logit of the side to move's win.
pub const EVAL_PER_LOGIT: i32 = 1000;
/// Scale of the first layer and of activations (`a_q = 127 a`).
pub const QA: i32 = 127;
/// Scale of the head's weights.
pub const QB: i32 = 64;
/// `log2(QB)`: the head divides by QB with an arithmetic shift.
pub(crate) const QB_SHIFT: u32 = 6;
