//! Games between agents, many at once: each game searches for the side to move with that side's
//! agent, and the pending leaves of all games are evaluated in one batch per agent.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::agent::{Agent, AgentKind};
use crate::rules::{Move, Outcome, Position, Side};
use crate::search::cache::EvalCache;
use crate::search::choice::sample_with_temperature;
use crate::search::evaluator::Request;
use crate::search::gumbel::GumbelRoot;
use crate::search::tree::{SearchConfig, Selected};
use crate::search::Tree;

#[derive(Clone, Debug)]
pub struct PlayOptions {
    /// Games in flight (their leaves share batches).
    pub concurrent: usize,
    /// Uniformly random plies played before the agents take over (the same within a pair).
    pub opening_plies: u32,
    /// Moves are drawn from visits^(1/temperature) until this ply, then the best is played.
    pub temperature: f32,
    pub temperature_plies: u32,
    pub search: SearchConfig,
    pub cache_size: usize,
}

impl Default for PlayOptions {
    fn default() -> Self {
        PlayOptions {
            concurrent: 32,
            opening_plies: 2,
            temperature: 1.0,
            temperature_plies: 8,
            search: SearchConfig {
                dirichlet_epsilon: 0.0,
                ..SearchConfig::default()
            },
            cache_size: 100_000,
        }
    }
}

/// Who plays which side of one game; `seed` drives its opening and choices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameSetup {
    pub id: u64,
    pub attacker: usize,
    pub defender: usize,
    /// Games with the same opening seed start with the same random plies.
    pub opening_seed: u64,
    pub seed: u64,
}

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct GameResult {
    pub id: u64,
    pub attacker: usize,
    pub defender: usize,
    pub outcome: Outcome,
    pub plies: u32,
    pub moves: Vec<String>,
}

impl GameResult {
    /// The score of agent `agent` in this game (1 win, 0.5 draw, 0 loss).
    pub fn score_of(&self, agent: usize) -> f64 {
        let side = if agent == self.attacker {
            Side::Attackers
        } else {
            Side::Defenders
        };
        match self.outcome.winner {
            Some(w) if w == side => 1.0,
            Some(_) => 0.0,
            None => 0.5,
        }
    }
}

struct Game {
    setup: GameSetup,
    position: Position,
    rng: ChaCha8Rng,
    tree: Option<Tree>,
    gumbel: Option<GumbelRoot>,
    done: u32,
    moves: Vec<String>,
}

enum Step {
    /// Waits for an evaluation by this agent.
    Needs(usize),
    Over(GameResult),
}

fn roll_if_needed<R: Rng>(pos: &mut Position, rng: &mut R) {
    if pos.needs_roll() {
        pos.set_roll(rng.random_range(1..=6));
    }
}

impl Game {
    fn new(setup: GameSetup, start: &Position, opening_plies: u32) -> Game {
        let mut position = start.clone();
        let mut opening = ChaCha8Rng::seed_from_u64(setup.opening_seed);
        let mut moves = Vec::new();
        let mut legal = Vec::new();
        for _ in 0..opening_plies {
            roll_if_needed(&mut position, &mut opening);
            position.legal_moves(&mut legal);
            if legal.is_empty() {
                break;
            }
            let mv = legal[opening.random_range(0..legal.len())];
            moves.push(position.play_recorded(mv));
        }
        Game {
            setup,
            position,
            rng: ChaCha8Rng::seed_from_u64(setup.seed),
            tree: None,
            gumbel: None,
            done: 0,
            moves,
        }
    }

    fn agent_to_move(&self) -> usize {
        match self.position.side_to_move() {
            Side::Attackers => self.setup.attacker,
            Side::Defenders => self.setup.defender,
        }
    }

    fn advance(&mut self, agents: &[Agent], caches: &mut [EvalCache], opts: &PlayOptions) -> Step {
        loop {
            if let Some(outcome) = self.position.outcome() {
                return Step::Over(GameResult {
                    id: self.setup.id,
                    attacker: self.setup.attacker,
                    defender: self.setup.defender,
                    outcome,
                    plies: self.position.ply(),
                    moves: std::mem::take(&mut self.moves),
                });
            }
            roll_if_needed(&mut self.position, &mut self.rng);
            let who = self.agent_to_move();
            let agent = &agents[who];
            if agent.spec.kind == AgentKind::Random {
                let mut legal = Vec::new();
                self.position.legal_moves(&mut legal);
                let mv = legal[self.rng.random_range(0..legal.len())];
                self.moves.push(self.position.play_recorded(mv));
                continue;
            }
            let tree = self
                .tree
                .get_or_insert_with(|| Tree::new(self.position.clone()));
            if self.done >= agent.spec.simulations && tree.root_is_expanded() {
                let mv = self.choose(agent, opts);
                self.moves.push(self.position.play_recorded(mv));
                self.tree = None;
                self.gumbel = None;
                self.done = 0;
                continue;
            }
            let search = SearchConfig {
                gumbel: agent.spec.gumbel,
                ..opts.search.clone()
            };
            if search.gumbel && self.gumbel.is_none() && tree.root_is_expanded() {
                self.gumbel = Some(GumbelRoot::new(
                    tree,
                    &search,
                    agent.spec.simulations,
                    &mut self.rng,
                ));
            }
            let forced = self.gumbel.as_mut().map(|g| g.next_forced(tree, &search));
            match tree.select(&search, forced) {
                Selected::Resolved => self.done += 1,
                Selected::Leaf => {
                    let (key, moves) = tree
                        .pending()
                        .map(|(p, m)| (p.key(), m.len()))
                        .unwrap_or_default();
                    match caches[who].get(key, moves) {
                        Some(eval) => {
                            tree.expand(&eval, &search, &mut self.rng);
                            self.done += 1;
                        }
                        None => return Step::Needs(who),
                    }
                }
            }
        }
    }

    fn choose(&mut self, agent: &Agent, opts: &PlayOptions) -> Move {
        let tree = self.tree.as_ref().expect("a searched root");
        let children = tree.root_children();
        let search = SearchConfig {
            gumbel: agent.spec.gumbel,
            ..opts.search.clone()
        };
        let visited = children.iter().any(|c| c.visits > 0);
        // with a single simulation no child is visited: the network's prior decides
        let weights: Vec<f64> = children
            .iter()
            .map(|c| {
                if visited {
                    c.visits as f64
                } else {
                    c.prior as f64
                }
            })
            .collect();
        let index = if opts.temperature > 0.0 && self.position.ply() < opts.temperature_plies {
            sample_with_temperature(&weights, opts.temperature, &mut self.rng)
        } else if let Some(g) = &self.gumbel {
            g.chosen(tree, &search)
        } else {
            // the best, ties broken at random (a one-simulation search sees only equal priors)
            let best = weights.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let tied: Vec<usize> = (0..weights.len()).filter(|&i| weights[i] >= best).collect();
            tied[self.rng.random_range(0..tied.len())]
        };
        children[index].mv
    }
}

/// Plays every game of `setups`. `on_result` hears each finished game and returns whether to go
/// on starting new games (an SPRT stop, say); games already started are finished.
pub fn play_games(
    start: &Position,
    agents: &mut [Agent],
    setups: &[GameSetup],
    opts: &PlayOptions,
    on_result: &mut dyn FnMut(&GameResult) -> bool,
) -> Vec<GameResult> {
    let mut caches: Vec<EvalCache> = agents
        .iter()
        .map(|_| EvalCache::for_variant(opts.cache_size, start.variant()))
        .collect();
    let mut queue = setups.iter().copied();
    let mut active: Vec<Game> = Vec::new();
    let mut results = Vec::new();
    let mut launching = true;
    loop {
        while launching && active.len() < opts.concurrent.max(1) {
            match queue.next() {
                Some(setup) => active.push(Game::new(setup, start, opts.opening_plies)),
                None => break,
            }
        }
        if active.is_empty() {
            break;
        }
        let mut waiting: Vec<(usize, Game)> = Vec::with_capacity(active.len());
        for mut game in active.drain(..) {
            match game.advance(agents, &mut caches, opts) {
                Step::Needs(who) => waiting.push((who, game)),
                Step::Over(result) => {
                    launching &= on_result(&result);
                    results.push(result);
                }
            }
        }
        // one batch per agent
        for (who, agent) in agents.iter_mut().enumerate() {
            let Some(evaluator) = agent.evaluator.as_mut() else {
                continue;
            };
            let mine: Vec<usize> = (0..waiting.len())
                .filter(|&i| waiting[i].0 == who)
                .collect();
            if mine.is_empty() {
                continue;
            }
            let evals = {
                let requests: Vec<Request<'_>> = mine
                    .iter()
                    .filter_map(|&i| waiting[i].1.tree.as_ref().and_then(|t| t.pending()))
                    .collect();
                evaluator.evaluate(&requests)
            };
            let search = SearchConfig {
                gumbel: agent.spec.gumbel,
                ..opts.search.clone()
            };
            for (&i, eval) in mine.iter().zip(evals) {
                let game = &mut waiting[i].1;
                let tree = game.tree.as_mut().expect("a pending search");
                if let Some(key) = tree.pending().map(|(p, _)| p.key()) {
                    caches[who].insert(key, eval.clone());
                }
                tree.expand(&eval, &search, &mut game.rng);
                game.done += 1;
            }
        }
        active = waiting.into_iter().map(|(_, g)| g).collect();
    }
    results.sort_by_key(|r| r.id);
    results
}
