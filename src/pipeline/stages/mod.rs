//! The stages of a generation, each of which checks for its output first, so a rerun skips what
//! is done: self-play shards (and `selfplay.json`) and teacher games, the trained checkpoint,
//! `match.json` and the direct measurements against the anchors (`vs-gen0.json`,
//! `vs-anchor.json`). Generation 0's network is made (or taken from `start_from`) before them.

pub mod evaluate;
pub mod init;
pub mod selfplay;
pub mod train;
