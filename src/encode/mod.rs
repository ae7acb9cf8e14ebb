//! Positions to network input planes, and moves to policy indices. Both are versioned: every
//! checkpoint and shard names the encoding it was made under, and a network is always fed the
//! planes of its own version, so networks trained before an encoding change still load and play.

pub mod planes;
pub mod policy;

pub use planes::Encoding;

/// The encoding new networks and datasets are made under (`Encoding::CURRENT.version()`).
pub const ENCODING_VERSION: u32 = 2;
