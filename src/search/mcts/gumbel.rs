//! Gumbel root search (Danihelka et al., "Policy improvement by planning with Gumbel", ICLR
//! 2022), as mctx implements it: sample the top `m` actions by Gumbel noise plus logits, then
//! spend the simulations by sequential halving, each simulation going to the considered action
//! with the best `g + logit + σ(q̂)` among those with the visit count the schedule asks for.
//! `q̂` is the completed Q (an unvisited action gets the value mix `v_mix`), min-max normalised
//! over the root's children, and `σ(q̂) = (c_visit + max N) · c_scale · q̂`. The action played
//! is the best survivor of the last halving; the policy target is `softmax(logits + σ(q̂))`.
//! Visit counts of the schedule are this search's own, so a reused tree does not upset it.
//! (The search before issue 11, σ on raw Q for visited actions only, `gumbel-old`, was last in
//! commit 56237c3.)

use rand::Rng;

use super::config::SearchConfig;
use super::tree::{ChildStats, Tree};
use crate::numeric::{gumbel_noise, softmax};

/// The visit count each simulation's action must have (mctx's
/// `get_sequence_of_considered_visits`): `m` actions, halved each round down to two, every
/// round an equal share of `n`; exactly `n` entries, so the budget is never exceeded.
pub fn considered_visits(m: usize, n: u32) -> Vec<u32> {
    let n = n as usize;
    if m <= 1 {
        return (0..n as u32).collect();
    }
    let log2m = (m as f64).log2().ceil() as usize;
    let mut sequence = Vec::with_capacity(n);
    let mut visits = vec![0u32; m];
    let mut considered = m;
    while sequence.len() < n {
        let extra = (n / (log2m * considered)).max(1);
        for _ in 0..extra {
            sequence.extend_from_slice(&visits[..considered]);
            for v in &mut visits[..considered] {
                *v += 1;
            }
        }
        considered = (considered / 2).max(2);
    }
    sequence.truncate(n);
    sequence
}

/// `σ(q̂)` of every root child: Q completed with the value mix, min-max normalised.
pub fn sigma_completed_q(children: &[ChildStats], raw_value: f32, cfg: &SearchConfig) -> Vec<f32> {
    let total: u32 = children.iter().map(|c| c.visits).sum();
    let (mut weighted, mut prior_sum) = (0.0f32, 0.0f32);
    for c in children {
        if let (Some(q), true) = (c.q, c.visits > 0) {
            let p = c.prior.max(f32::MIN_POSITIVE);
            weighted += p * q;
            prior_sum += p;
        }
    }
    let v_mix = if prior_sum > 0.0 {
        (raw_value + total as f32 * weighted / prior_sum) / (total as f32 + 1.0)
    } else {
        raw_value
    };
    let completed: Vec<f32> = children.iter().map(|c| c.q.unwrap_or(v_mix)).collect();
    let lo = completed.iter().copied().fold(f32::INFINITY, f32::min);
    let hi = completed.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let max_visits = children.iter().map(|c| c.visits).max().unwrap_or(0);
    let scale = (cfg.gumbel_c_visit + max_visits as f32) * cfg.gumbel_c_scale;
    completed
        .iter()
        .map(|&q| scale * (q - lo) / (hi - lo).max(1e-8))
        .collect()
}

pub struct GumbelRoot {
    /// The `m` root children sampled for consideration (indices into `Tree::root_children`).
    considered: Vec<usize>,
    gumbel: Vec<f32>,
    logits: Vec<f32>,
    /// This search's visits to each root child.
    own: Vec<u32>,
    sequence: Vec<u32>,
    /// Simulations handed out so far.
    started: usize,
}

impl GumbelRoot {
    /// Starts a search of `budget` simulations at an expanded root.
    pub fn new<R: Rng>(tree: &Tree, cfg: &SearchConfig, budget: u32, rng: &mut R) -> GumbelRoot {
        let children = tree.root_children();
        let logits: Vec<f32> = children.iter().map(|c| c.prior.max(1e-12).ln()).collect();
        let gumbel = gumbel_noise(children.len(), rng);
        let mut order: Vec<usize> = (0..children.len()).collect();
        order.sort_by(|&a, &b| (gumbel[b] + logits[b]).total_cmp(&(gumbel[a] + logits[a])));
        let m = cfg
            .gumbel_actions
            .max(1)
            .min(children.len())
            .min(budget.max(1) as usize);
        order.truncate(m);
        GumbelRoot {
            sequence: considered_visits(order.len(), budget),
            considered: order,
            gumbel,
            logits,
            own: vec![0; children.len()],
            started: 0,
        }
    }

    fn scores(&self, tree: &Tree, cfg: &SearchConfig) -> Vec<f32> {
        let children = tree.root_children();
        let sigma = sigma_completed_q(&children, tree.root_eval_value(), cfg);
        (0..children.len())
            .map(|i| self.gumbel[i] + self.logits[i] + sigma[i])
            .collect()
    }

    fn best_of(&self, scores: &[f32], wanted: impl Fn(usize) -> bool) -> Option<usize> {
        self.considered
            .iter()
            .copied()
            .filter(|&i| wanted(i))
            .max_by(|&a, &b| scores[a].total_cmp(&scores[b]))
    }

    /// The root child the next simulation must go through.
    pub fn next_forced(&mut self, tree: &Tree, cfg: &SearchConfig) -> usize {
        let scores = self.scores(tree, cfg);
        let pick = match self.sequence.get(self.started) {
            Some(&visits) => self.best_of(&scores, |i| self.own[i] == visits),
            // past the planned budget (a time budget outran its estimate): the best survivor
            None => None,
        }
        .or_else(|| self.survivor(&scores))
        .unwrap_or(0);
        self.started += 1;
        if let Some(v) = self.own.get_mut(pick) {
            *v += 1;
        }
        pick
    }

    /// Takes back the last `next_forced`, whose simulation did not happen (it reached a leaf
    /// already waiting for its evaluation).
    pub fn unforce(&mut self, pick: usize) {
        self.started = self.started.saturating_sub(1);
        if let Some(v) = self.own.get_mut(pick) {
            *v = v.saturating_sub(1);
        }
    }

    /// Simulations the plan is made for.
    pub fn planned(&self) -> u32 {
        self.sequence.len() as u32
    }

    /// Re-plans for `budget` simulations in all (a time budget's measured rate ran ahead of or
    /// behind its estimate). Done only where the halving so far is exactly the start of the new
    /// schedule (each considered action visited as often as the new plan would have by now), so
    /// the search stays a sequential halving; returns whether it re-planned.
    pub fn replan(&mut self, budget: u32) -> bool {
        let budget = budget.max(self.started as u32 + 1);
        let sequence = considered_visits(self.considered.len(), budget);
        // the new schedule's first `started` entries: how many actions went past each level
        let levels = self
            .considered
            .iter()
            .map(|&i| self.own[i])
            .max()
            .unwrap_or(0) as usize;
        let mut past = vec![0usize; levels + 1];
        for &v in &sequence[..self.started.min(sequence.len())] {
            match past.get_mut(v as usize) {
                Some(count) => *count += 1,
                None => return false,
            }
        }
        let fits = (0..=levels).all(|v| {
            let have = self
                .considered
                .iter()
                .filter(|&&i| self.own[i] as usize > v)
                .count();
            have == past[v]
        });
        if fits {
            self.sequence = sequence;
        }
        fits
    }

    /// The best of the considered actions with the most visits of this search.
    fn survivor(&self, scores: &[f32]) -> Option<usize> {
        let most = self.considered.iter().map(|&i| self.own[i]).max()?;
        self.best_of(scores, |i| self.own[i] == most)
    }

    /// The action to play: the best survivor of the last halving.
    pub fn chosen(&self, tree: &Tree, cfg: &SearchConfig) -> usize {
        self.survivor(&self.scores(tree, cfg)).unwrap_or(0)
    }

    /// The improved policy: softmax(logits + σ(completed Q)) over every root child.
    pub fn improved_policy(&self, tree: &Tree, cfg: &SearchConfig) -> Vec<f32> {
        let children = tree.root_children();
        let sigma = sigma_completed_q(&children, tree.root_eval_value(), cfg);
        let scores: Vec<f32> = self.logits.iter().zip(&sigma).map(|(l, s)| l + s).collect();
        softmax(&scores)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn child(visits: u32, q: Option<f32>, prior: f32) -> ChildStats {
        ChildStats {
            mv: crate::rules::Move::STOP,
            visits,
            q,
            prior,
            proof: None,
            proof_plies: 0,
        }
    }

    #[test]
    fn completed_q_fills_unvisited_actions_with_the_value_mix_and_normalises() {
        let cfg = SearchConfig {
            gumbel_c_visit: 50.0,
            gumbel_c_scale: 1.0,
            ..SearchConfig::default()
        };
        // visited: q 0.6 (prior 0.5, 3 visits) and -0.2 (prior 0.3, 1 visit); unvisited: prior 0.2
        let children = [
            child(3, Some(0.6), 0.5),
            child(1, Some(-0.2), 0.3),
            child(0, None, 0.2),
        ];
        let sigma = sigma_completed_q(&children, 0.1, &cfg);
        // by hand: the prior-weighted mean of the visited q is (0.30 - 0.06) / 0.8 = 0.3, so
        // v_mix = (0.1 + 4 * 0.3) / 5 = 0.26 (weighting by visits would give 0.34, the raw
        // value alone 0.1); q spans -0.2 to 0.6 and the scale is 50 + 3, so the unvisited
        // action gets 53 * (0.26 + 0.2) / 0.8 = 30.475, the best 53, the worst 0
        let expected = [53.0, 0.0, 30.475];
        for (got, want) in sigma.iter().zip(expected) {
            assert!((got - want).abs() < 1e-3, "{sigma:?} vs {expected:?}");
        }
    }

    #[test]
    fn the_value_mix_of_agreeing_values_is_that_value() {
        // every visited q and the raw value agree: whatever the priors and visits, v_mix is
        // that value, and an unvisited action sits exactly where it does between the others
        let cfg = SearchConfig::default();
        let children = [
            child(5, Some(0.4), 0.1),
            child(2, Some(0.4), 0.6),
            child(0, None, 0.3),
            child(1, Some(-0.6), 0.0),
        ];
        let sigma = sigma_completed_q(&children, 0.4, &cfg);
        assert!((sigma[2] - sigma[0]).abs() < 1e-4, "{sigma:?}");
    }

    #[test]
    fn completed_q_of_an_unvisited_root_is_flat() {
        let cfg = SearchConfig::default();
        let children = [child(0, None, 0.7), child(0, None, 0.3)];
        let sigma = sigma_completed_q(&children, 0.4, &cfg);
        assert_eq!(sigma, vec![0.0, 0.0], "no information: no preference");
    }

    #[test]
    fn the_schedule_spends_exactly_the_budget() {
        // mctx's example: 4 actions, 16 simulations: [0]*4 + [1]*4 + [2]*2 ... per round
        let s = considered_visits(4, 16);
        assert_eq!(s.len(), 16);
        assert_eq!(&s[..8], &[0, 0, 0, 0, 1, 1, 1, 1]);
        assert_eq!(considered_visits(16, 8).len(), 8);
        assert_eq!(considered_visits(1, 3), vec![0, 1, 2]);
        assert!(considered_visits(2, 0).is_empty());
    }
}
