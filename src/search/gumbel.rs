//! Gumbel root search (sequential halving): with few simulations it still improves the policy.
//! Sample the top `m` actions by Gumbel noise plus logits, then in rounds give each survivor an
//! equal share of the budget and keep the better half by `g + logit + σ(q)`.

use rand::Rng;

use super::tree::{ChildStats, SearchConfig, Tree};

pub struct GumbelRoot {
    /// Root children still in play (indices into `Tree::root_children`).
    alive: Vec<usize>,
    gumbel: Vec<f32>,
    logits: Vec<f32>,
    /// Forced visits left in the current round.
    schedule: std::collections::VecDeque<usize>,
    budget: u32,
    rounds: u32,
}

fn sigma(q: f32, max_visits: u32, cfg: &SearchConfig) -> f32 {
    (cfg.gumbel_c_visit + max_visits as f32) * cfg.gumbel_c_scale * q
}

impl GumbelRoot {
    /// Starts a search of `budget` simulations at an expanded root.
    pub fn new<R: Rng>(tree: &Tree, cfg: &SearchConfig, budget: u32, rng: &mut R) -> GumbelRoot {
        let children = tree.root_children();
        let logits: Vec<f32> = children.iter().map(|c| c.prior.max(1e-12).ln()).collect();
        let gumbel: Vec<f32> = children
            .iter()
            .map(|_| {
                let u: f32 = rng.random_range(1e-9..1.0);
                -(-u.ln()).ln()
            })
            .collect();
        let mut order: Vec<usize> = (0..children.len()).collect();
        order.sort_by(|&a, &b| (gumbel[b] + logits[b]).total_cmp(&(gumbel[a] + logits[a])));
        order.truncate(cfg.gumbel_actions.max(1).min(children.len()));
        let rounds = (order.len() as f32).log2().ceil().max(1.0) as u32;
        GumbelRoot {
            alive: order,
            gumbel,
            logits,
            schedule: Default::default(),
            budget,
            rounds,
        }
    }

    fn score(&self, i: usize, children: &[ChildStats], max_visits: u32, cfg: &SearchConfig) -> f32 {
        let q = children[i].q.unwrap_or(0.0);
        self.gumbel[i]
            + self.logits[i]
            + if children[i].visits > 0 {
                sigma(q, max_visits, cfg)
            } else {
                0.0
            }
    }

    /// The root child the next simulation must go through.
    pub fn next_forced(&mut self, tree: &Tree, cfg: &SearchConfig) -> usize {
        if let Some(i) = self.schedule.pop_front() {
            return i;
        }
        let children = tree.root_children();
        let max_visits = children.iter().map(|c| c.visits).max().unwrap_or(0);
        // a finished round halves the field (the first call only plans the first round)
        if tree.root_visits() > 1 && self.alive.len() > 1 {
            let mut ranked = self.alive.clone();
            ranked.sort_by(|&a, &b| {
                self.score(b, &children, max_visits, cfg)
                    .total_cmp(&self.score(a, &children, max_visits, cfg))
            });
            ranked.truncate(self.alive.len().div_ceil(2));
            self.alive = ranked;
        }
        let per = (self.budget / (self.rounds * self.alive.len() as u32)).max(1);
        for _ in 0..per {
            self.schedule.extend(self.alive.iter().copied());
        }
        self.schedule.pop_front().unwrap_or(0)
    }

    /// The action to play: the best survivor by `g + logit + σ(q)`.
    pub fn chosen(&self, tree: &Tree, cfg: &SearchConfig) -> usize {
        let children = tree.root_children();
        let max_visits = children.iter().map(|c| c.visits).max().unwrap_or(0);
        *self
            .alive
            .iter()
            .max_by(|&&a, &&b| {
                self.score(a, &children, max_visits, cfg)
                    .total_cmp(&self.score(b, &children, max_visits, cfg))
            })
            .unwrap_or(&0)
    }

    /// The improved policy: softmax(logits + σ(completed q)), unvisited actions completed with
    /// the root's value.
    pub fn improved_policy(&self, tree: &Tree, cfg: &SearchConfig) -> Vec<f32> {
        let children = tree.root_children();
        let max_visits = children.iter().map(|c| c.visits).max().unwrap_or(0);
        let v = tree.root_value();
        let scores: Vec<f32> = children
            .iter()
            .zip(&self.logits)
            .map(|(c, &l)| l + sigma(c.q.unwrap_or(v), max_visits, cfg))
            .collect();
        let max = scores.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let exps: Vec<f32> = scores.iter().map(|s| (s - max).exp()).collect();
        let sum: f32 = exps.iter().sum();
        exps.into_iter().map(|e| e / sum).collect()
    }
}
