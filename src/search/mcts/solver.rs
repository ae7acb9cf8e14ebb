//! Proven results (MCTS-Solver, Winands et al. 2008): a node whose position is over, or one of
//! whose moves wins at once, is proven; a node with a proven winning child is a proven win, one
//! whose children are all proven losses a proven loss (all proven, one a draw: a proven draw).
//! Proofs are stored, like values, from the chooser's point of view, and a proven node backs up
//! its exact value instead of being searched further. A chance node is proven only when all six
//! rolls are proven alike. Positions in the tree carry their history from the root, so a proof
//! that depends on a repetition is exact for the path that reached it; the tree is a tree, not a
//! graph, so no proof is shared between paths.

use super::config::SearchConfig;
use super::tree::{Edge, State, Tree};
use crate::rules::{Position, Side};
use crate::search::tactics::wins_at_once;

/// A proven game result for one side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Proof {
    Win,
    Draw,
    Loss,
}

impl Proof {
    pub fn flip(self) -> Proof {
        match self {
            Proof::Win => Proof::Loss,
            Proof::Loss => Proof::Win,
            Proof::Draw => Proof::Draw,
        }
    }

    pub fn value(self) -> f32 {
        match self {
            Proof::Win => 1.0,
            Proof::Draw => 0.0,
            Proof::Loss => -1.0,
        }
    }
}

/// The result of a finished game for `side`.
pub(super) fn result_for(side: Side, winner: Option<Side>) -> Proof {
    match winner {
        Some(w) if w == side => Proof::Win,
        Some(_) => Proof::Loss,
        None => Proof::Draw,
    }
}

impl Tree {
    /// The value of a proven result `p` for `side`: a draw is worth the draw value for the
    /// root's side to move and its negation for the other.
    pub(super) fn proof_value(&self, p: Proof, side: Side) -> f32 {
        match p {
            Proof::Draw if side == self.root_position.side_to_move() => self.draw_value,
            Proof::Draw => -self.draw_value,
            _ => p.value(),
        }
    }

    /// Marks a node whose position is over with its `result` for `side`, the side to move
    /// there; returns its value for that side.
    pub(super) fn make_terminal(&mut self, node: usize, result: Proof, side: Side) -> f32 {
        let v = self.proof_value(result, side);
        let n = &mut self.nodes[node];
        n.state = State::Terminal(v);
        n.proof = Some(if n.chooser == side {
            result
        } else {
            result.flip()
        });
        n.proof_plies = 0;
        v
    }

    /// The solver's part of an expansion: with the solver (or `immediate_wins`), the new children
    /// from `first` on whose moves win at once are made terminal; with the solver, the node's proof
    /// is recomputed from them. Returns the value to back up: the evaluation's `value`, a win's
    /// when the mover has a winning move and only `immediate_wins` is on, or the proven value.
    pub(super) fn settle_expansion(
        &mut self,
        node: usize,
        first: usize,
        position: &Position,
        value: f32,
        cfg: &SearchConfig,
    ) -> f32 {
        let side = position.side_to_move();
        let mut value = value;
        if cfg.solver || cfg.immediate_wins {
            let mut wins = false;
            for c in first..self.nodes.len() {
                if let Edge::Move(m) = self.nodes[c].edge {
                    if wins_at_once(position, m) {
                        // the mover won: after the move, the loser (or nobody) is to move
                        let mut next = position.clone();
                        next.play_unchecked(m);
                        let after = next.side_to_move();
                        self.make_terminal(c, result_for(after, Some(side)), after);
                        wins = true;
                    }
                }
            }
            if wins && !cfg.solver {
                value = 1.0;
            }
        }
        if cfg.solver {
            if let Some(p) = self.recompute_proof(node) {
                // the exact value replaces the evaluation's estimate
                let n = &self.nodes[node];
                let mine = if n.chooser == side || node == 0 {
                    p
                } else {
                    p.flip()
                };
                value = self.proof_value(mine, side);
            }
        }
        value
    }

    /// The proof of an expanded or chance node from its children's (None when unproven); stores
    /// it on the node.
    fn recompute_proof(&mut self, node: usize) -> Option<Proof> {
        let range = self.child_range(node);
        if range.is_empty() {
            return self.nodes[node].proof;
        }
        // children's proofs are from the point of view of the side to move at `node`
        let mover = self.nodes[range.start].chooser;
        let (proof, plies) = match self.nodes[node].state {
            State::Expanded => {
                let mut win: Option<u16> = None;
                let mut all_proven = true;
                let mut draw = false;
                let mut longest = 0u16;
                for c in range {
                    let child = &self.nodes[c];
                    match child.proof {
                        Some(Proof::Win) => {
                            win = Some(win.map_or(child.proof_plies, |w| w.min(child.proof_plies)))
                        }
                        Some(Proof::Draw) => draw = true,
                        Some(Proof::Loss) => {}
                        None => all_proven = false,
                    }
                    longest = longest.max(child.proof_plies);
                }
                match win {
                    Some(w) => (Proof::Win, w),
                    None if !all_proven => return None,
                    None if draw => (Proof::Draw, longest),
                    None => (Proof::Loss, longest),
                }
            }
            State::Chance => {
                let first = self.nodes[range.start].proof?;
                let mut longest = 0u16;
                for c in range {
                    if self.nodes[c].proof != Some(first) {
                        return None;
                    }
                    longest = longest.max(self.nodes[c].proof_plies);
                }
                (first, longest)
            }
            _ => return self.nodes[node].proof,
        };
        let n = &mut self.nodes[node];
        let mine = if node == 0 || n.chooser == mover {
            proof
        } else {
            proof.flip()
        };
        n.proof = Some(mine);
        n.proof_plies = plies.saturating_add(1);
        Some(mine)
    }

    /// Recomputes proofs from the end of `path` (a node just proven, or not) up to the root,
    /// stopping at the first node that stays unproven.
    pub(super) fn propagate_proofs(&mut self, path: &[u32]) {
        for (k, &i) in path.iter().rev().enumerate() {
            let i = i as usize;
            let proven = if k == 0 || matches!(self.nodes[i].state, State::Terminal(_)) {
                self.nodes[i].proof.is_some()
            } else {
                self.recompute_proof(i).is_some()
            };
            if !proven {
                break;
            }
        }
    }
}
