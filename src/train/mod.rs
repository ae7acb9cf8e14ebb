//! Training the policy-value network on self-play samples: a replay window of shards, D4
//! augmentation, policy cross-entropy over legal moves plus value MSE (on the result, or blended
//! with a short-horizon target), optionally the opponent's reply as an auxiliary policy target,
//! plus L2; SGD with momentum or Adam under a learning-rate schedule, metrics, and checkpoints
//! that resume exactly.

pub mod batch;
pub mod config;
pub mod metrics;
pub mod optimizer;
pub mod reply;
pub mod side_balance;
pub mod trainer;
pub mod value_target;

pub use config::TrainConfig;
pub use trainer::{train, TrainError, TrainSummary};
