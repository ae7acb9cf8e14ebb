//! The learned evaluation (`ab:B:nnue=FILE`): a quantised NNUE network whose accumulators the
//! search keeps one per ply, each made from its parent's by the squares the move changed, so a
//! leaf costs the network's small head rather than a pass over the board.

use std::path::Path;
use std::sync::Arc;

use tavlei_nnue::{Accumulator, Network, NnueError, EVAL_PER_LOGIT};

use super::heuristic::EVAL_LIMIT;
use super::negamax::MAX_PLY;
use crate::rules::{Side, Variant};

/// A network and the search's accumulator stack: `accumulators[ply]` holds the position at
/// `ply` from the root of the current search.
#[derive(Clone)]
pub struct LearnedEval {
    network: Arc<Network>,
    accumulators: Vec<Accumulator>,
    /// When set, every score also recomputes its accumulator from the board and counts any
    /// difference (`audit`): the incremental updates checked inside a real search.
    audit: Option<Audit>,
}

/// The network only (the accumulators are scratch).
impl std::fmt::Debug for LearnedEval {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LearnedEval")
            .field("network", &self.network)
            .field("audit", &self.audit)
            .finish()
    }
}

/// What an audited search saw: leaves scored, and those whose incremental accumulator differed
/// from the one computed afresh from their board.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Audit {
    pub scored: u64,
    pub mismatches: u64,
}

/// Score units per logit of the side to move's win (the network's own scale).
pub const LEARNED_PER_LOGIT: i32 = EVAL_PER_LOGIT;

impl LearnedEval {
    /// Loads `path` and checks that it was trained for the variant named `variant` (the search
    /// checks the board size again when it meets the variant's positions).
    pub fn load(path: &Path, variant: &str) -> Result<LearnedEval, NnueError> {
        let network = Network::load(path)?;
        network.check_variant_name(variant)?;
        Ok(LearnedEval::new(Arc::new(network)))
    }

    /// Shares a loaded network (a search per thread, one copy of the weights).
    pub fn new(network: Arc<Network>) -> LearnedEval {
        let accumulators = (0..=MAX_PLY).map(|_| network.new_accumulator()).collect();
        LearnedEval {
            network,
            accumulators,
            audit: None,
        }
    }

    pub fn network(&self) -> &Arc<Network> {
        &self.network
    }

    /// Whether the network's board is `variant`'s (the search refuses to evaluate otherwise).
    pub fn fits(&self, variant: &Variant) -> bool {
        self.network.check_variant(variant).is_ok()
    }

    /// Sets the accumulator at `ply` from the board (the root, or a position reached without
    /// its parent).
    pub fn refresh(&mut self, cells: &[u8], ply: usize) {
        self.network.refresh(cells, &mut self.accumulators[ply]);
    }

    /// Sets the accumulator at `ply` (> 0) from the one at `ply - 1`, the parent's board
    /// `before` and the child's `after`.
    pub fn advance(&mut self, before: &[u8], after: &[u8], ply: usize) {
        let (parents, children) = self.accumulators.split_at_mut(ply);
        self.network
            .update(&parents[ply - 1], before, after, &mut children[0]);
    }

    /// The score of the position at `ply` (its board `cells`) for `side` to move,
    /// `LEARNED_PER_LOGIT` per logit, kept within the static scores' bound so that it never
    /// reads as a found win.
    pub fn score(&mut self, ply: usize, cells: &[u8], side: Side) -> i32 {
        let accumulator = &self.accumulators[ply];
        if let Some(audit) = &mut self.audit {
            let mut fresh = self.network.new_accumulator();
            self.network.refresh(cells, &mut fresh);
            audit.scored += 1;
            audit.mismatches += u64::from(fresh != *accumulator);
        }
        self.network
            .evaluate(accumulator, side)
            .clamp(-EVAL_LIMIT, EVAL_LIMIT)
    }

    /// Starts checking every score's accumulator against one computed from its board (slow:
    /// for tests and debugging).
    pub fn start_audit(&mut self) {
        self.audit = Some(Audit::default());
    }

    /// What the audit has seen since `start_audit` (none without one).
    pub fn audit(&self) -> Option<Audit> {
        self.audit
    }
}
