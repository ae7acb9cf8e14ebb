//! Self-play: many games at once, each with its own search tree, feeding one batched evaluator;
//! finished games become training samples in shards and records that `tavlei replay` accepts.

pub mod config;
pub mod game;
pub mod generator;
pub mod lane;
pub mod starts;
pub mod teacher;
pub mod workers;

pub use config::SelfplayConfig;
pub use generator::{
    generate, generate_shards, generate_shards_on_workers, shard_count, shard_plan,
    GenerateSummary, Progress,
};
pub use teacher::generate_teacher;
pub use workers::Seats;
