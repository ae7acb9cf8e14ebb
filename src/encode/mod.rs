//! Positions to network input planes, and moves to policy indices. Both are versioned: a network
//! or dataset made under another `ENCODING_VERSION` is refused.

pub mod planes;
pub mod policy;

/// Bumped whenever planes or policy indices change meaning.
pub const ENCODING_VERSION: u32 = 1;
