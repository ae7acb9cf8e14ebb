//! What an agent thinks of a position: the move it would play, its value for the side to move,
//! and its candidate moves with their statistics, best first. The engines (OpenTafl's `analyze`,
//! `tavlei analyze`) report it; `Player::analyse` makes it.

use crate::rules::Move;
use crate::search::{Decision, Proof, Search};

/// One candidate move at the root.
#[derive(Clone, Debug, PartialEq)]
pub struct Candidate {
    pub mv: Move,
    /// Simulations through this move (0 for agents that do not count them).
    pub visits: u32,
    /// The policy's probability (the network's, the rollout search's prior, uniform for random);
    /// `None` for alpha-beta.
    pub prior: Option<f32>,
    /// Value after this move for the side to move at the root, in [-1, 1]; `None` when the
    /// search has not looked at it.
    pub value: Option<f32>,
    /// The solver's proof of this move, when it has one.
    pub proof: Option<Proof>,
    /// The expected line, starting with `mv`.
    pub pv: Vec<Move>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Analysis {
    /// The move the agent plays here.
    pub best: Move,
    /// The position's value for the side to move, in [-1, 1].
    pub value: f32,
    /// Simulations (tree searches) or nodes (alpha-beta) spent.
    pub work: u64,
    /// Alpha-beta's deepest completed iteration.
    pub depth: Option<u32>,
    /// The tree search solver's proof of the position, when it has one.
    pub proof: Option<Proof>,
    /// The candidates, `best` first, then by visits and prior.
    pub candidates: Vec<Candidate>,
}

impl Analysis {
    /// A finished tree search's root: every child with its statistics and expected line.
    pub fn of_search(search: &Search, decision: &Decision) -> Analysis {
        let tree = search.tree();
        let candidates = tree
            .root_children()
            .iter()
            .enumerate()
            .map(|(k, c)| Candidate {
                mv: c.mv,
                visits: c.visits,
                prior: Some(c.prior),
                value: c.q,
                proof: c.proof,
                pv: tree.principal_variation(k),
            })
            .collect();
        Analysis {
            best: decision.best,
            value: decision.value,
            work: decision.simulations as u64,
            depth: None,
            proof: decision.proof,
            candidates,
        }
        .sorted()
    }

    /// Puts `best` first and the rest by visits, then prior (stable for equal statistics).
    pub fn sorted(mut self) -> Analysis {
        let best = self.best;
        self.candidates.sort_by(|a, b| {
            (b.mv == best)
                .cmp(&(a.mv == best))
                .then(b.visits.cmp(&a.visits))
                .then(b.prior.unwrap_or(0.0).total_cmp(&a.prior.unwrap_or(0.0)))
        });
        self
    }
}
