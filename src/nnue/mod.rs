//! The learned evaluation's main-crate half (issue 43): training positions labelled by a search
//! (`positions`, `label`); the trainer and export live beside them. The network itself, its
//! features and integer inference are the `tavlei-nnue` crate.

pub mod error;
pub mod label;
pub mod positions;
pub mod records;
// trainer modules (nnue-train) go below this line
pub mod train;

pub use error::NnueDataError;
pub use positions::{read_positions, write_positions, LabelledPosition, PositionSet};
