//! Hard bounds on one search, over whatever its budget asks: whoever searches for other people
//! (a server) bounds each search by a clock, and a tree search by the memory its nodes hold, so
//! that no agent spec (`ab:12`, `mcts:1000000`) can hold a core for hours or take gigabytes.

use std::time::Duration;

/// No bound where a field is `None`. A capped search still completes its first iteration (or
/// its root's expansion and one simulation), so it always has a move to give.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SearchCap {
    /// The longest the search may run.
    pub time: Option<Duration>,
    /// The most memory a tree search's nodes may hold (alpha-beta's table is fixed by its
    /// settings).
    pub tree_bytes: Option<usize>,
}
