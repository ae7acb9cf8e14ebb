//! One self-play game in progress: its position, its search tree, and what it has recorded.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::config::SelfplayConfig;
use crate::data::Sample;
use crate::encode::policy::policy_index;
use crate::rules::{Move, Outcome, Position, Side};
use crate::search::cache::EvalCache;
use crate::search::choice::sample_with_temperature;
use crate::search::gumbel::GumbelRoot;
use crate::search::tree::{SearchConfig, Selected};
use crate::search::{Evaluation, Tree};

/// A finished game.
pub struct FinishedGame {
    pub id: u64,
    pub samples: Vec<Sample>,
    pub moves: Vec<String>,
    pub outcome: Outcome,
}

pub struct Game {
    pub id: u64,
    rng: ChaCha8Rng,
    position: Position,
    tree: Tree,
    gumbel: Option<GumbelRoot>,
    /// Simulations this move's search wants, and has done.
    target: u32,
    done: u32,
    /// Whether this move's search is a full one (a training target).
    full: bool,
    samples: Vec<Sample>,
    moves: Vec<String>,
}

/// The seed of one game: games are reproducible one by one, so a resumed run replays them alike.
fn game_seed(seed: u64, id: u64) -> u64 {
    seed.wrapping_mul(0x9E37_79B9_7F4A_7C15)
        ^ id.wrapping_mul(0xD1B5_4A32_D192_ED03).rotate_left(17)
}

impl Game {
    pub fn new(id: u64, start: &Position, seed: u64, cfg: &SelfplayConfig) -> Game {
        let mut rng = ChaCha8Rng::seed_from_u64(game_seed(seed, id));
        let mut position = start.clone();
        if position.needs_roll() {
            position.set_roll(rng.random_range(1..=6));
        }
        let mut game = Game {
            id,
            rng,
            tree: Tree::new(position.clone()),
            position,
            gumbel: None,
            target: 0,
            done: 0,
            full: false,
            samples: Vec::new(),
            moves: Vec::new(),
        };
        game.plan_search(cfg);
        game
    }

    fn plan_search(&mut self, cfg: &SelfplayConfig) {
        self.full =
            cfg.full_search_fraction >= 1.0 || self.rng.random::<f32>() < cfg.full_search_fraction;
        self.target = if self.full {
            cfg.simulations
        } else {
            cfg.fast_simulations
        };
        self.done = 0;
        self.gumbel = None;
        if self.full {
            let search = cfg.search.clone();
            self.tree.noise_reused_root(&search, &mut self.rng);
        }
    }

    /// The search settings of this move: cheap searches get no root noise.
    fn search_config(&self, cfg: &SelfplayConfig) -> SearchConfig {
        let mut search = cfg.search.clone();
        if !self.full {
            search.dirichlet_epsilon = 0.0;
        }
        search
    }

    /// The leaf waiting for an evaluation, if any.
    pub fn pending(&self) -> Option<(&Position, &[Move])> {
        self.tree.pending()
    }

    /// Runs the game forward until it needs an evaluation (`Ok(())` with a pending leaf) or
    /// ends (`Err(finished game)`). Cached evaluations are used on the way.
    pub fn advance(
        mut self,
        cfg: &SelfplayConfig,
        cache: &mut EvalCache,
    ) -> Result<Game, FinishedGame> {
        loop {
            let search = self.search_config(cfg);
            if let Some(outcome) = self.position.outcome() {
                return Err(self.finish(outcome));
            }
            if self.done >= self.target && self.tree.root_is_expanded() {
                self.play_best(cfg);
                continue;
            }
            if search.gumbel && self.gumbel.is_none() && self.tree.root_is_expanded() {
                self.gumbel = Some(GumbelRoot::new(
                    &self.tree,
                    &search,
                    self.target,
                    &mut self.rng,
                ));
            }
            let forced = match &mut self.gumbel {
                Some(g) => Some(g.next_forced(&self.tree, &search)),
                None => None,
            };
            match self.tree.select(&search, forced) {
                Selected::Resolved => self.done += 1,
                Selected::Leaf => {
                    let (key, moves) = self
                        .tree
                        .pending()
                        .map(|(p, m)| (p.key(), m.len()))
                        .unwrap_or_default();
                    match cache.get(key, moves) {
                        Some(eval) => self.expand(&eval, cfg),
                        None => return Ok(self),
                    }
                }
            }
        }
    }

    /// Gives the pending leaf its evaluation.
    pub fn expand(&mut self, eval: &Evaluation, cfg: &SelfplayConfig) {
        let search = self.search_config(cfg);
        self.tree.expand(eval, &search, &mut self.rng);
        self.done += 1;
    }

    fn play_best(&mut self, cfg: &SelfplayConfig) {
        let search = self.search_config(cfg);
        let children = self.tree.root_children();
        let size = self.position.variant().size;
        let (policy, choice) = match &self.gumbel {
            Some(g) => (
                g.improved_policy(&self.tree, &search),
                g.chosen(&self.tree, &search),
            ),
            None => {
                let total: f32 = children
                    .iter()
                    .map(|c| c.visits as f32)
                    .sum::<f32>()
                    .max(1.0);
                let policy: Vec<f32> = children.iter().map(|c| c.visits as f32 / total).collect();
                let choice = if self.position.ply() < cfg.temperature_plies {
                    let visits: Vec<f64> = children.iter().map(|c| c.visits as f64).collect();
                    sample_with_temperature(&visits, cfg.temperature, &mut self.rng)
                } else {
                    (0..children.len())
                        .max_by_key(|&i| children[i].visits)
                        .unwrap_or(0)
                };
                (policy, choice)
            }
        };
        if self.full {
            let p = &self.position;
            self.samples.push(Sample {
                game_id: self.id,
                ply: p.ply(),
                cells: p.cells().to_vec(),
                side_to_move: p.side_to_move(),
                berserk: p.berserk_piece(),
                roll: p.roll(),
                plies_since_capture: p.plies_since_capture(),
                policy: children
                    .iter()
                    .zip(&policy)
                    .map(|(c, &q)| (policy_index(c.mv, size) as u32, q))
                    .collect(),
                result: 0.0,
                search_value: self.tree.root_value(),
                game_length: 0,
                reason: String::new(),
            });
        }
        let mv = children[choice].mv;
        self.moves.push(self.position.play_recorded(mv));
        let next_roll = self
            .position
            .needs_roll()
            .then(|| self.rng.random_range(1..=6));
        if let Some(r) = next_roll {
            self.position.set_roll(r);
        }
        self.tree.advance(mv, next_roll);
        self.plan_search(cfg);
    }

    fn finish(mut self, outcome: Outcome) -> FinishedGame {
        let length = self.position.ply();
        for s in &mut self.samples {
            s.result = match outcome.winner {
                Some(w) if w == s.side_to_move => 1.0,
                Some(_) => -1.0,
                None => 0.0,
            };
            s.game_length = length;
            s.reason = outcome.reason.name().to_string();
        }
        FinishedGame {
            id: self.id,
            samples: self.samples,
            moves: self.moves,
            outcome,
        }
    }
}

/// The side that won, for progress counters.
pub fn winner_name(outcome: &Outcome) -> &'static str {
    match outcome.winner {
        Some(Side::Attackers) => "attackers",
        Some(Side::Defenders) => "defenders",
        None => "draw",
    }
}
