//! Settings of the Monte Carlo tree search: selection (PUCT or UCT), first-play urgency, root
//! noise, Gumbel root search, the solver, draw value, leaf batching and forced playouts.

/// Removed keys are refused by the settings loader with the commit that last had them
/// (`crate::config::RETIRED_KEYS`): `gumbel_legacy`, the switch to the Gumbel search before
/// issue 11, which commit 56237c3 has; files spelling `gumbel_legacy = false` loaded until 5ecb5c4.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SearchConfig {
    /// Exploration constant of PUCT.
    pub c_puct: f32,
    /// First-play urgency: an unvisited child is valued at the parent's value minus this.
    pub fpu_reduction: f32,
    /// Dirichlet noise mixed into the root priors (alpha, and weight; weight 0 disables it).
    pub dirichlet_alpha: f32,
    pub dirichlet_epsilon: f32,
    /// When positive, the noise's concentration is this total spread over the legal moves
    /// (alpha = total / moves, as KataGo scales it: 10.83 for 0.03 on 361 points), so a position
    /// with many moves is not flooded with noise; 0 uses `dirichlet_alpha` for every position.
    #[serde(default)]
    pub dirichlet_alpha_total: f32,
    /// Gumbel sequential halving at the root instead of PUCT (better with few simulations).
    pub gumbel: bool,
    /// Actions Gumbel search considers at the root.
    pub gumbel_actions: usize,
    pub gumbel_c_visit: f32,
    pub gumbel_c_scale: f32,
    /// How a child is picked: PUCT (network priors) or UCT (rollout values).
    #[serde(default)]
    pub selection: Selection,
    /// Value of unvisited children: the parent's value minus `fpu_reduction`, or unvisited first.
    #[serde(default)]
    pub fpu: Fpu,
    /// Exploration constant of UCT (`q + c_uct * sqrt(ln N / n)`, values in [-1, 1]).
    #[serde(default = "default_c_uct")]
    pub c_uct: f32,
    /// Progressive widening: a node visited n times considers only its
    /// `ceil(widening * sqrt(n + 1))` best children by prior (0 considers them all). At the root,
    /// a node budget at least as large as the number of moves considers them all.
    #[serde(default)]
    pub widening: f32,
    /// Proven results (MCTS-Solver): terminal children and moves that win at once are proven,
    /// proofs propagate, and a search whose root is proven stops early.
    #[serde(default = "default_true")]
    pub solver: bool,
    /// Without the solver: children that win at once (an escape, a king capture) are still made
    /// terminal, and a leaf whose mover has one is valued as a win, but nothing is proven and
    /// the search never stops early. One ply of exact tactics for a network's search. No shipped
    /// config sets it; the `brandubh-wins` and `tavlei-wins` runs of experiments/learning/run.sh
    /// do. Read at each expansion beside `solver`, which when on settles it unread.
    #[serde(default)]
    pub immediate_wins: bool,
    /// With the solver: stop a search once its root is proven (off: spend the whole budget, so
    /// the visit counts, the policy target, come from as many simulations as elsewhere). Only the
    /// `brandubh-solver-full` run of experiments/learning/run.sh turns it off; the driver reads it
    /// once per search (`stops_when_proven`).
    #[serde(default = "default_true")]
    pub solver_stops: bool,
    /// The value of a drawn end (repetition, length cap) for the side to move at the root, and
    /// its negation for the other side (contempt). Below 0 the mover steers away from draws,
    /// taking its opponent to seek them; 0 is the rules' value. Lies in (-1, 1), so a draw stays
    /// better than a loss and worse than a win. A tree is not reused under a non-zero value:
    /// its draws were valued for the previous mover.
    #[serde(default)]
    pub draw_value: f32,
    /// Leaves one search gathers for each evaluator call (lc0's minibatch): a leaf on its way
    /// to the evaluator counts as a lost visit along its path (virtual loss), so the next
    /// selection goes elsewhere; gathering stops early at a leaf already on its way (a
    /// collision) and stays small in a small tree. 1 evaluates every leaf before the next
    /// selection (the search of earlier versions, visit for visit). Unset: `TIMED_LEAF_BATCH`
    /// under a time budget, 1 under a node budget (where it would only cost strength per
    /// simulation, and self-play and node-budget matches batch many games' leaves anyway).
    #[serde(default)]
    pub leaf_batch: Option<usize>,
    /// KataGo's forced playouts, at the root of a noised PUCT search (self-play's full
    /// searches): a child with prior P is chosen while it has fewer than `sqrt(k P N)` visits
    /// (N the root's), so noise-favoured moves get looked at; the policy target then takes back
    /// each child's visits that PUCT would not have given it (policy target pruning). `k`, 2 in
    /// KataGo; 0 (the default) is off. No shipped config sets it; the `forced` arm of
    /// experiments/learning/ablation.sh does. The driver reads it once per search
    /// (`forces_playouts`); all its work is in `forced.rs`.
    #[serde(default)]
    pub forced_playouts: f32,
}

/// Leaves per network call of a search on a time budget, unless set: measured on Brandubh at
/// 100 ms a move, 8 leaves won +92 Elo [+49, +139] over 1 (50 pairs,
/// experiments/network-speed/leaf-batch).
pub const TIMED_LEAF_BATCH: usize = 8;

fn default_c_uct() -> f32 {
    1.0
}

fn default_true() -> bool {
    true
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Selection {
    #[default]
    Puct,
    Uct,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Fpu {
    /// The parent's value minus `fpu_reduction` (with rollouts that value is -1, 0 or +1 after one
    /// playout, so one lost playout can shut every unvisited child out).
    #[default]
    Parent,
    /// Every unvisited child (within the widening window) before any child is revisited.
    UnvisitedFirst,
}

impl SearchConfig {
    /// What is wrong with these settings, for a config file's error.
    pub fn check(&self) -> Result<(), String> {
        if self.leaf_batch == Some(0) {
            return Err("search.leaf_batch must be at least 1 (leaves per evaluator call)".into());
        }
        if !(self.draw_value > -1.0 && self.draw_value < 1.0) {
            return Err(format!(
                "search.draw_value must lie strictly between -1 and 1 (a draw between a loss and a win), not {}",
                self.draw_value
            ));
        }
        Ok(())
    }

    /// The Dirichlet concentration for a root with `moves` legal moves.
    pub fn noise_alpha(&self, moves: usize) -> f32 {
        if self.dirichlet_alpha_total > 0.0 {
            self.dirichlet_alpha_total / moves.max(1) as f32
        } else {
            self.dirichlet_alpha
        }
    }

    /// Whether a search with these settings stops once its root is proven.
    pub fn stops_when_proven(&self) -> bool {
        self.solver && self.solver_stops
    }

    /// Whether a root child is forced (`forced_playouts`) in this search: a noised PUCT root.
    pub fn forces_playouts(&self) -> bool {
        self.forced_playouts > 0.0
            && self.dirichlet_epsilon > 0.0
            && self.selection == Selection::Puct
    }

    /// The visits a root child with `prior` is forced to when the root has `parent` visits
    /// (whole visits: below 1, none).
    pub fn forced_visits(&self, prior: f32, parent: u32) -> f32 {
        (self.forced_playouts * prior * parent as f32).sqrt()
    }

    /// The search of pure MCTS (`mcts:N`): UCT on rollout values, unvisited children first,
    /// progressive widening over the cheap prior, the solver.
    pub fn rollouts() -> SearchConfig {
        SearchConfig {
            selection: Selection::Uct,
            fpu: Fpu::UnvisitedFirst,
            widening: 2.0,
            solver: true,
            dirichlet_epsilon: 0.0,
            // a rollout evaluates one leaf at a time whatever it is given
            leaf_batch: Some(1),
            ..SearchConfig::default()
        }
    }
}

impl Default for SearchConfig {
    fn default() -> Self {
        SearchConfig {
            c_puct: 1.5,
            fpu_reduction: 0.2,
            dirichlet_alpha: 0.3,
            dirichlet_epsilon: 0.25,
            dirichlet_alpha_total: 0.0,
            gumbel: false,
            gumbel_actions: 16,
            gumbel_c_visit: 50.0,
            gumbel_c_scale: 1.0,
            selection: Selection::Puct,
            fpu: Fpu::Parent,
            c_uct: default_c_uct(),
            widening: 0.0,
            solver: true,
            immediate_wins: false,
            solver_stops: true,
            draw_value: 0.0,
            leaf_batch: None,
            forced_playouts: 0.0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Invalid, Settings};

    /// A settings file with a `[search]` table, as self-play's and the pipeline's have.
    #[derive(Debug, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct File {
        search: SearchConfig,
    }

    impl Settings for File {
        fn check(&self) -> Result<(), Invalid> {
            Ok(())
        }
    }

    fn search_table(extra: &str) -> String {
        let table = toml::to_string(&SearchConfig::default()).expect("serialises");
        format!("[search]\n{table}{extra}")
    }

    #[test]
    fn the_removed_gumbel_legacy_key_is_refused_with_the_commits_that_have_it() {
        let file = crate::config::parse::<File>(&search_table(""), "selfplay.toml").expect("loads");
        assert_eq!(file.search, SearchConfig::default());
        let text = search_table("gumbel_legacy = false\n");
        let line = text.lines().count();
        let error = crate::config::parse::<File>(&text, "selfplay.toml")
            .expect_err("refused")
            .to_string();
        assert!(error.contains(&format!("line {line}")), "{error}");
        assert!(error.contains("`gumbel_legacy` was removed"), "{error}");
        assert!(
            error.contains("56237c3") && error.contains("5ecb5c4"),
            "{error}"
        );
        // a key that never existed is still serde's unknown field
        let error = crate::config::parse::<File>(&search_table("gumbel_lgacy = 1\n"), "x.toml")
            .expect_err("refused")
            .to_string();
        assert!(error.contains("unknown field `gumbel_lgacy`"), "{error}");
    }
}
