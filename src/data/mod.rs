//! Training data: samples from self-play, shard files of them, a directory of shards read as a
//! dataset (with a replay window), statistics, and export to NumPy.

pub mod checksum;
pub mod dataset;
pub mod error;
pub mod inspect;
pub mod npz;
pub mod sample;
pub mod shard;

pub use crate::atomic::tmp_path;
pub use dataset::{read_dir, Dataset, ShardInfo};
pub use error::DataError;
pub use inspect::Stats;
pub use npz::{export_npz, NpzSummary};
pub use sample::Sample;
pub use shard::{read_shard, write_shard, Shard};
