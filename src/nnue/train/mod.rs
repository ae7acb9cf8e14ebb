//! Training the learned evaluation through tch: the float model (`model`), positions to
//! tensors with symmetry augmentation and the held-out split (`batch`), settings (`config`) and
//! the resumable loop with its export to the integer evaluation file (`trainer`).

pub mod batch;
pub mod config;
pub mod model;
pub mod trainer;

pub use config::NnueTrainConfig;
pub use trainer::{train, NnueTrainError, NnueTrainRequest, NnueTrainSummary};
