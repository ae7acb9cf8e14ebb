//! The policy-value network: its definition, devices and checkpoints (libtorch through `tch`).
//! tch tensors are not `Sync`: one thread owns a network and serves batches.

pub mod checkpoint;
pub mod device;
pub mod evaluator;
pub mod folded;
pub mod grow;
pub mod int8;
pub mod model;
pub mod onnx;
pub mod precision;
pub mod seeded;
pub mod threads;

pub use checkpoint::{CheckpointError, CheckpointMeta, Network};
pub use evaluator::NetworkEvaluator;
pub use model::Architecture;
pub use precision::Precision;
