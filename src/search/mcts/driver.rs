//! The one search driver: self-play (many games batched), the arena (many games, an evaluator
//! per agent) and single-position analysis (`single::think`) all run this loop, so a fix to
//! selection, budgets, Gumbel search or the solver lands everywhere at once.
//!
//! A search is stepped: `step` runs simulations until a leaf needs an evaluation the cache does
//! not hold (`Step::NeedsEval`, then `pending` and `expand`) or the budget is spent
//! (`Step::Done`, then `decide`). The root's own expansion is not a simulation: a budget of n
//! nodes is n simulations after it (0: the raw priors decide). Randomness comes from the
//! caller's generator, so a seeded caller replays alike; a time budget makes play depend on the
//! machine's speed and is not reproducible.

use std::time::Instant;

use rand::Rng;

use super::cache::EvalCache;
use super::choice::sample_with_temperature;
use super::config::{SearchConfig, TIMED_LEAF_BATCH};
use super::evaluator::Evaluation;
use super::gumbel::GumbelRoot;
use super::solver::Proof;
use super::tree::{SelectContext, Selected, Tree};
use crate::rules::{Move, Position};
use crate::search::{Budget, SearchCap};

/// Where a search stands after `step`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// A leaf waits for an evaluation: `pending`, then `expand`.
    NeedsEval,
    /// The budget is spent, the root is proven, or the root position is over.
    Done,
}

/// How `decide` picks the move.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Choice {
    /// The best move (most visits, the Gumbel survivor, or a proven win).
    Best,
    /// Drawn from visits^(1/temperature) (priors when nothing was visited).
    Sample(f32),
}

/// The result of a search at the root.
#[derive(Clone, Debug)]
pub struct Decision {
    pub best: Move,
    /// Policy target over the root's legal moves (visit shares, Gumbel's improved policy, or
    /// the proven win).
    pub policy: Vec<(Move, f32)>,
    /// Root value for the side to move.
    pub value: f32,
    /// The root's proven result, when the solver found one.
    pub proof: Option<Proof>,
    /// Simulations this search ran.
    pub simulations: u32,
}

pub struct Search {
    tree: Tree,
    cfg: SearchConfig,
    budget: Budget,
    plan: Option<GumbelRoot>,
    done: u32,
    clock: Option<Instant>,
    /// Simulations per second of the last timed search, or as given (`set_rate`): Gumbel plans a
    /// time budget with it.
    rate: Option<f64>,
    /// `done` when a Gumbel plan under a time budget was last checked against the clock.
    checked: u32,
    /// Bounds over the budget (`set_cap`).
    cap: SearchCap,
    /// Options no shipped config sets, read from `cfg` once per search so that a simulation
    /// pays nothing for them: whether a proven root ends the search (`solver_stops`), and
    /// whether the root forces playouts (`forced_playouts`).
    stops_when_proven: bool,
    forces_playouts: bool,
}

impl Search {
    pub fn new(root: Position, cfg: SearchConfig, budget: Budget) -> Search {
        Search::from_tree(Tree::new(root), cfg, budget)
    }

    /// A search on an existing (possibly reused) tree.
    pub fn from_tree(mut tree: Tree, cfg: SearchConfig, budget: Budget) -> Search {
        tree.use_draw_value(cfg.draw_value);
        Search {
            tree,
            stops_when_proven: cfg.stops_when_proven(),
            forces_playouts: cfg.forces_playouts(),
            cfg,
            budget,
            plan: None,
            done: 0,
            clock: None,
            rate: None,
            checked: 0,
            cap: SearchCap::default(),
        }
    }

    /// Bounds this search (and the ones `restart` begins) by a clock and a tree size, over its
    /// budget.
    pub fn set_cap(&mut self, cap: SearchCap) {
        self.cap = cap;
    }

    /// Whether a bound of `set_cap` is reached (never before the first simulation).
    fn capped(&self) -> bool {
        let late = self
            .cap
            .time
            .is_some_and(|t| self.clock.is_some_and(|c| c.elapsed() >= t));
        let full = self
            .cap
            .tree_bytes
            .is_some_and(|b| self.tree.allocated_bytes() >= b);
        self.done > 0 && (late || full)
    }

    /// Simulations per second to plan a time budget with before this search has measured its
    /// own (an agent's rate from its earlier moves).
    pub fn set_rate(&mut self, rate: Option<f64>) {
        if rate.is_some_and(|r| r.is_finite() && r > 0.0) {
            self.rate = rate;
        }
    }

    /// Simulations per second of this search so far under a time budget (else the last
    /// measured one), to hand to the agent's next search.
    pub fn measured_rate(&self) -> Option<f64> {
        match (self.clock, self.budget) {
            (Some(clock), Budget::Time(_)) if self.done > 0 => {
                let secs = clock.elapsed().as_secs_f64();
                (secs > 0.0).then(|| self.done as f64 / secs)
            }
            _ => self.rate,
        }
    }

    pub fn into_tree(self) -> Tree {
        self.tree
    }

    pub fn tree(&self) -> &Tree {
        &self.tree
    }

    pub fn config(&self) -> &SearchConfig {
        &self.cfg
    }

    /// What this move's search may spend.
    pub fn budget(&self) -> Budget {
        self.budget
    }

    /// Simulations this search has run.
    pub fn simulations(&self) -> u32 {
        self.done
    }

    /// Starts the next move's search on the current (possibly reused) tree, with its own
    /// settings and budget. Mixes root noise into a reused root when the settings ask for it.
    pub fn restart<R: Rng>(&mut self, cfg: SearchConfig, budget: Budget, rng: &mut R) {
        self.record_rate();
        self.stops_when_proven = cfg.stops_when_proven();
        self.forces_playouts = cfg.forces_playouts();
        self.cfg = cfg;
        self.budget = budget;
        self.plan = None;
        self.done = 0;
        self.checked = 0;
        self.clock = None;
        self.tree.use_draw_value(self.cfg.draw_value);
        self.tree.noise_reused_root(&self.cfg, rng);
    }

    fn record_rate(&mut self) {
        self.rate = self.measured_rate();
    }

    /// Under a time budget, every 8 simulations: when the clock says the Gumbel plan's count
    /// is off by more than a fifth, stretch or shrink the plan to what the time left allows.
    fn keep_plan_to_clock(&mut self) {
        let (Some(plan), Budget::Time(t), Some(clock)) = (&mut self.plan, self.budget, self.clock)
        else {
            return;
        };
        if self.done < self.checked + 8 {
            return;
        }
        self.checked = self.done;
        let elapsed = clock.elapsed().as_secs_f64();
        if elapsed <= 0.0 {
            return;
        }
        let left = (t.as_secs_f64() - elapsed).max(0.0);
        let projected = self.done as f64 * (1.0 + left / elapsed);
        let planned = plan.planned() as f64;
        if (projected - planned).abs() > 0.2 * planned {
            plan.replan(projected.clamp(1.0, 1e7) as u32);
        }
    }

    fn solved(&self) -> bool {
        self.stops_when_proven && self.tree.root_proof().is_some()
    }

    fn spent(&self) -> bool {
        self.capped()
            || match self.budget {
                Budget::Nodes(n) => self.done >= n,
                Budget::Time(t) => self.done > 0 && self.clock.is_some_and(|c| c.elapsed() >= t),
            }
    }

    /// The Gumbel plan's simulation count: the node budget, or for a time budget the last
    /// measured rate times the time (a guess of 4 per considered action before any; the plan is
    /// then kept to the clock as the search goes, `keep_plan_to_clock`).
    fn planned_simulations(&self) -> u32 {
        match self.budget {
            Budget::Nodes(n) => n,
            Budget::Time(t) => match self.rate {
                Some(r) => (r * t.as_secs_f64()).clamp(1.0, 1e7) as u32,
                None => 4 * self.cfg.gumbel_actions.max(1) as u32,
            },
        }
    }

    /// Leaves to gather before asking for evaluations: `leaf_batch` (unset: `TIMED_LEAF_BATCH`
    /// on a time budget, 1 on a node budget), but no more than an eighth of the root's visits (a
    /// small tree has few places worth a leaf, and every leaf gathered at once is chosen without
    /// the others' results).
    fn gather_limit(&self) -> usize {
        let k = match (self.cfg.leaf_batch, self.budget) {
            (Some(k), _) => k.max(1),
            (None, Budget::Time(_)) => TIMED_LEAF_BATCH,
            (None, Budget::Nodes(_)) => 1,
        };
        if k == 1 {
            return 1;
        }
        k.min((self.tree.root_visits() as usize / 8).max(1))
    }

    /// Whether the budget is spent, counting the leaves on their way as simulations.
    fn spent_with(&self, waiting: usize) -> bool {
        match self.budget {
            Budget::Nodes(n) => self.capped() || self.done as usize + waiting >= n as usize,
            Budget::Time(_) => self.spent(),
        }
    }

    /// Runs simulations until leaves need evaluations (`Step::NeedsEval`: up to `leaf_batch` of
    /// them, see `pending_leaves`, each given its evaluation by `expand`, oldest first) or the
    /// search is over. Cached evaluations are used on the way (looked up by position key and
    /// move count).
    pub fn step<R: Rng>(&mut self, mut cache: Option<&mut EvalCache>, rng: &mut R) -> Step {
        self.clock.get_or_insert_with(Instant::now);
        loop {
            if self.tree.root_is_terminal() {
                return self.finished();
            }
            let waiting = self.tree.pending_count();
            if waiting >= self.gather_limit() {
                return Step::NeedsEval;
            }
            if self.tree.root_is_expanded() {
                if self.solved() || self.spent_with(waiting) || self.tree.root_child_count() == 0 {
                    // the leaves on their way are evaluated before the search ends
                    return if waiting > 0 {
                        Step::NeedsEval
                    } else {
                        self.finished()
                    };
                }
                if self.cfg.gumbel && self.plan.is_none() {
                    let n = self.planned_simulations();
                    self.plan = Some(GumbelRoot::new(&self.tree, &self.cfg, n, rng));
                }
                self.keep_plan_to_clock();
            } else if waiting > 0 {
                // the root's own expansion comes alone
                return Step::NeedsEval;
            }
            let forced = match &mut self.plan {
                Some(g) => Some(g.next_forced(&self.tree, &self.cfg)),
                None => None,
            };
            let ctx = SelectContext {
                forced_root_child: forced,
                root_budget: self.budget.nodes(),
                forced_playouts: self.forces_playouts,
            };
            let at_root = !self.tree.root_is_expanded();
            match self.tree.select(&self.cfg, ctx) {
                Selected::Resolved => {
                    if !at_root {
                        self.done += 1;
                    }
                }
                Selected::Collision => {
                    // this simulation did not happen: the Gumbel schedule takes it back
                    if let (Some(g), Some(pick)) = (&mut self.plan, forced) {
                        g.unforce(pick);
                    }
                    return Step::NeedsEval;
                }
                Selected::Leaf => {
                    let newest = self.tree.pending_count() - 1;
                    let hit = match (cache.as_deref_mut(), self.tree.pending_leaves().last()) {
                        (Some(cache), Some((pos, moves))) => cache.get(pos, moves.len()),
                        _ => None,
                    };
                    if let Some(eval) = hit {
                        self.expand_at(newest, &eval, rng);
                    }
                }
            }
        }
    }

    /// `Step::Done`, with no leaf left waiting: a visit left in flight would count as a lost
    /// one in every later search of a reused tree.
    fn finished(&self) -> Step {
        debug_assert_eq!(self.tree.pending_count(), 0, "a leaf left pending");
        debug_assert_eq!(self.tree.in_flight(), 0, "a visit left in flight");
        Step::Done
    }

    /// The oldest leaf waiting for an evaluation, if any (the next `expand` takes it).
    pub fn pending(&self) -> Option<(&Position, &[Move])> {
        self.tree.pending()
    }

    /// Every leaf waiting for an evaluation, oldest first (the order `expand` takes them in).
    pub fn pending_leaves(&self) -> impl Iterator<Item = (&Position, &[Move])> {
        self.tree.pending_leaves()
    }

    /// Gives the oldest pending leaf its evaluation.
    pub fn expand<R: Rng>(&mut self, eval: &Evaluation, rng: &mut R) {
        self.expand_at(0, eval, rng);
    }

    fn expand_at<R: Rng>(&mut self, index: usize, eval: &Evaluation, rng: &mut R) {
        let at_root = !self.tree.root_is_expanded();
        self.tree.expand_pending(index, eval, &self.cfg, rng);
        if !at_root {
            self.done += 1;
        }
    }

    /// The move to play and the policy target; `None` when the root has no legal move.
    pub fn decide<R: Rng>(&self, choice: Choice, rng: &mut R) -> Option<Decision> {
        let children = self.tree.root_children();
        if children.is_empty() {
            return None;
        }
        let proof = if self.cfg.solver {
            self.tree.root_proof()
        } else {
            None
        };
        let proven_win = (proof == Some(Proof::Win))
            .then(|| {
                (0..children.len())
                    .filter(|&i| children[i].proof == Some(Proof::Win))
                    .min_by_key(|&i| children[i].proof_plies)
            })
            .flatten();
        // moves proven lost are played only when every move is
        let alive: Vec<usize> = if self.cfg.solver {
            (0..children.len())
                .filter(|&i| children[i].proof != Some(Proof::Loss))
                .collect()
        } else {
            (0..children.len()).collect()
        };
        let visited = children.iter().any(|c| c.visits > 0);
        // forced playouts give back what was only forced before the visits teach or choose
        let pruned = (visited && self.plan.is_none() && self.forces_playouts)
            .then(|| super::forced::pruned_visits(&children, &self.cfg));
        // with no simulation at all, the priors decide
        let weight = |i: usize| match &pruned {
            Some(p) => p[i],
            None if visited => children[i].visits as f64,
            None => children[i].prior as f64,
        };
        let mut policy: Vec<f32> = match &self.plan {
            Some(g) => g.improved_policy(&self.tree, &self.cfg),
            None => {
                let total: f64 = (0..children.len()).map(weight).sum::<f64>().max(1e-12);
                (0..children.len())
                    .map(|i| (weight(i) / total) as f32)
                    .collect()
            }
        };
        let index = if let Some(w) = proven_win {
            policy = (0..children.len())
                .map(|i| if i == w { 1.0 } else { 0.0 })
                .collect();
            w
        } else if alive.is_empty() {
            // every move loses: the longest resistance
            (0..children.len())
                .max_by_key(|&i| (children[i].proof_plies, children[i].visits))
                .unwrap_or(0)
        } else {
            match choice {
                Choice::Sample(t) => {
                    let weights: Vec<f64> = alive.iter().map(|&i| weight(i)).collect();
                    alive[sample_with_temperature(&weights, t, rng)]
                }
                Choice::Best => match &self.plan {
                    // Gumbel's survivor, unless it is proven lost and another move is not
                    Some(g) if alive.contains(&g.chosen(&self.tree, &self.cfg)) => {
                        g.chosen(&self.tree, &self.cfg)
                    }
                    _ => {
                        // ties broken at random (a search without visits sees equal priors)
                        let best = alive
                            .iter()
                            .map(|&i| weight(i))
                            .fold(f64::NEG_INFINITY, f64::max);
                        let tied: Vec<usize> = alive
                            .iter()
                            .copied()
                            .filter(|&i| weight(i) >= best)
                            .collect();
                        if tied.len() > 1 {
                            tied[rng.random_range(0..tied.len())]
                        } else {
                            tied[0]
                        }
                    }
                },
            }
        };
        Some(Decision {
            best: children[index].mv,
            policy: children
                .iter()
                .zip(policy)
                .map(|(c, p)| (c.mv, p))
                .collect(),
            value: self.tree.root_value(),
            proof,
            simulations: self.done,
        })
    }

    /// Plays `mv` and keeps its subtree for the next search (tree reuse).
    pub fn advance(&mut self, mv: Move, roll: Option<u8>) {
        self.tree.advance(mv, roll);
    }
}
