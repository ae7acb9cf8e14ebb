//! What a network is for and where it came from: the part of a file that is not weights.

use std::collections::BTreeMap;

/// The network's variant, sizes and free provenance keys (`seed`, `positions`, ...).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Meta {
    /// The variant's short name (`Rules::name`, e.g. `copenhagen`).
    pub variant: String,
    pub board_size: usize,
    /// Accumulator width `N`.
    pub width: usize,
    /// Hidden units `H` of the head.
    pub hidden: usize,
    /// Free keys the trainer records; never interpreted here.
    pub provenance: BTreeMap<String, String>,
}
