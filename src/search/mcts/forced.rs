//! KataGo's forced playouts with policy target pruning (`SearchConfig::forced_playouts`, k; off
//! by default and in every shipped config, kept for the `forced` arm of the sample-efficiency
//! ablation, experiments/learning/ablation.sh). At a noised PUCT root a child with prior P is
//! chosen while it has fewer than `floor(sqrt(k P N))` visits (N the root's), so noise-favoured
//! moves get looked at; before the visits become a training target, the visits a child got only
//! because it was forced are taken back, so forcing widens the search without teaching the
//! network to like the moves it forced. The driver decides once per search whether its root
//! forces (`SearchConfig::forces_playouts`); a search that does not never reaches this file.

use super::config::{Fpu, SearchConfig};
use super::solver::Proof;
use super::tree::{ChildStats, Tree};

impl Tree {
    /// The root child a forced playout goes to, if any: the first child, in the order
    /// `pick_child` reads them (within the widening window, proven losses passed over), short of
    /// its forced visits. `None` also where an earlier child is an unvisited one that
    /// unvisited-first would take anyway: the choice is then `pick_child`'s, as without forcing.
    pub(super) fn forced_playout_child(
        &self,
        cfg: &SearchConfig,
        budget: Option<u32>,
    ) -> Option<usize> {
        let parent = self.nodes[0].seen();
        let window = self.window(0, cfg, budget);
        let mut seen = 0;
        for c in self.child_range(0) {
            if seen >= window {
                break;
            }
            let child = &self.nodes[c];
            let proof = if cfg.solver { child.proof } else { None };
            if proof == Some(Proof::Loss) {
                continue;
            }
            seen += 1;
            let n = child.seen();
            if (n as f32) < cfg.forced_visits(child.prior, parent).floor() {
                return Some(c);
            }
            if n == 0 && proof.is_none() && cfg.fpu == Fpu::UnvisitedFirst {
                return None;
            }
        }
        None
    }
}

/// The root children's visits as a policy target: every child but the most visited gives back
/// up to its forced visits, as long as PUCT would still prefer the most visited child after
/// it; a child left with a single visit is dropped.
pub fn pruned_visits(children: &[ChildStats], cfg: &SearchConfig) -> Vec<f64> {
    let total: u32 = children.iter().map(|c| c.visits).sum();
    let Some(best) = (0..children.len()).max_by_key(|&i| children[i].visits) else {
        return vec![];
    };
    let sqrt_n = (total.max(1) as f32).sqrt();
    let puct =
        |c: &ChildStats, n: f32| c.q.unwrap_or(0.0) + cfg.c_puct * c.prior * sqrt_n / (1.0 + n);
    let best_score = puct(&children[best], children[best].visits as f32);
    children
        .iter()
        .enumerate()
        .map(|(i, c)| {
            if i == best || c.visits == 0 {
                return c.visits as f64;
            }
            let floor = (c.visits as f32 - cfg.forced_visits(c.prior, total).floor()).max(0.0);
            let mut n = c.visits as f32;
            while n > floor && puct(c, n - 1.0) < best_score {
                n -= 1.0;
            }
            if n <= 1.0 {
                0.0
            } else {
                n as f64
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Move;

    fn child(visits: u32, q: f32, prior: f32) -> ChildStats {
        ChildStats {
            mv: Move::PASS,
            visits,
            q: Some(q),
            prior,
            proof: None,
            proof_plies: 0,
        }
    }

    fn forcing() -> SearchConfig {
        SearchConfig {
            forced_playouts: 2.0,
            ..SearchConfig::default()
        }
    }

    #[test]
    fn forced_visits_are_taken_back_as_far_as_puct_and_the_forced_count_allow() {
        let cfg = forcing();
        // 96 visits. A poor move with a small prior (sqrt(2 * 0.05 * 96) = 3.1: 3 forced)
        // falls to 1 and is dropped; a move whose PUCT score beats the best's even one visit
        // fewer keeps all 22
        let a = [
            child(70, 0.5, 0.4),
            child(22, 0.45, 0.3),
            child(4, -0.6, 0.05),
        ];
        assert_eq!(pruned_visits(&a, &cfg), vec![70.0, 22.0, 0.0]);
        // a poor move with a large prior keeps what its prior alone would have won it: at 2
        // visits PUCT would choose it (-0.6 + 1.5 * 0.3 * 10 / 3 = 0.9 > 0.58)
        let poor = [
            child(70, 0.5, 0.4),
            child(22, 0.45, 0.3),
            child(8, -0.6, 0.3),
        ];
        assert_eq!(pruned_visits(&poor, &cfg), vec![70.0, 22.0, 3.0]);
        // a middling move gives back all 7 forced visits and no more
        let b = [child(70, 0.5, 0.4), child(30, 0.3, 0.3)];
        assert_eq!(pruned_visits(&b, &cfg), vec![70.0, 23.0]);
        // here PUCT stops it first: at 37 visits, one fewer would score 0.603 against the
        // best's 0.598 (10 forced would have allowed 30)
        let c = [child(60, 0.5, 0.4), child(40, 0.4, 0.5)];
        assert_eq!(pruned_visits(&c, &cfg), vec![60.0, 37.0]);
    }

    #[test]
    fn without_forcing_nothing_is_taken_back() {
        let children = [
            child(60, 0.5, 0.5),
            child(30, 0.1, 0.5),
            child(10, 0.0, 0.0),
        ];
        let off = SearchConfig::default();
        // forced_visits is 0 when off: no visit can be taken back, only single visits dropped
        let pruned = pruned_visits(&children, &off);
        assert_eq!(pruned, vec![60.0, 30.0, 10.0]);
    }
}
