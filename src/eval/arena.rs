//! Games between agents, many at once: each game searches for the side to move with that side's
//! agent, and the pending leaves of all games are evaluated in one batch per agent.
//!
//! Time budgets: with many games in flight, the wall time of one game's move would include the
//! other games' searches and the shared batches. So when any agent plays on a time budget, games
//! are played one at a time: each move's clock then measures that game's own search (its
//! evaluations included, in batches of one) and nothing else.
//!
//! Games between classical agents (random, pure MCTS, alpha-beta) share no batches: each is
//! played alone, start to end, by one of as many workers as rayon has threads (`--threads`,
//! `RAYON_NUM_THREADS`), so a study uses every core. A timed move then has its thread to itself
//! (one thread per core).

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::agent::{Agent, AgentKind, AgentSpec};
use crate::rules::{Outcome, Position, Side};
use crate::search::cache::EvalCache;
use crate::search::evaluator::Request;
use crate::search::tree::SearchConfig;
use crate::search::{Budget, Choice, Search, Step};

#[derive(Clone, Debug)]
pub struct PlayOptions {
    /// Games in flight (their leaves share batches).
    pub concurrent: usize,
    /// Uniformly random plies played before the agents take over (the same within a pair).
    pub opening_plies: u32,
    /// Moves are drawn from visits^(1/temperature) until this ply, then the best is played;
    /// alpha-beta instead adds its opening noise, scaled by the temperature, until this ply.
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
    /// The search of the move in progress (a fresh tree each move: the agents differ).
    search: Option<Search>,
    moves: Vec<String>,
}

enum GameStep {
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
            search: None,
            moves,
        }
    }

    fn agent_to_move(&self) -> usize {
        match self.position.side_to_move() {
            Side::Attackers => self.setup.attacker,
            Side::Defenders => self.setup.defender,
        }
    }

    fn advance(
        &mut self,
        agents: &mut [Agent],
        caches: &mut [EvalCache],
        opts: &PlayOptions,
    ) -> GameStep {
        loop {
            if let Some(outcome) = self.position.outcome() {
                return GameStep::Over(GameResult {
                    id: self.setup.id,
                    attacker: self.setup.attacker,
                    defender: self.setup.defender,
                    outcome,
                    plies: self.position.ply(),
                    moves: std::mem::take(&mut self.moves),
                });
            }
            roll_if_needed(&mut self.position, &mut self.rng);
            if self.position.outcome().is_some() {
                // no legal move after the roll: the game ends here (the loop reports it)
                continue;
            }
            let who = self.agent_to_move();
            let limit = agents[who].alphabeta_limit();
            // agents that choose a move at once, without an evaluator
            if let Some(ab) = agents[who].alphabeta.as_mut() {
                // a fresh table each move: a game's moves do not depend on the other games
                ab.clear();
                let sampling = self.position.ply() < opts.temperature_plies;
                let noise = if sampling {
                    ab.opening_noise(opts.temperature)
                } else {
                    0
                };
                ab.vary(self.setup.seed, noise);
                let best = ab.search(&self.position, limit).best;
                let mv = best.expect("a position that is not over has a legal move");
                self.moves.push(self.position.play_recorded(mv));
                continue;
            }
            let agent = &agents[who];
            if agent.spec.kind == AgentKind::Random {
                let mut legal = Vec::new();
                self.position.legal_moves(&mut legal);
                let mv = legal[self.rng.random_range(0..legal.len())];
                self.moves.push(self.position.play_recorded(mv));
                continue;
            }
            let search = self.search.get_or_insert_with(|| {
                Search::new(
                    self.position.clone(),
                    agent.spec.search_config(&opts.search),
                    agent.spec.budget,
                )
            });
            match search.step(Some(&mut caches[who]), &mut self.rng) {
                Step::NeedsEval => return GameStep::Needs(who),
                Step::Done => {
                    let choice =
                        if opts.temperature > 0.0 && self.position.ply() < opts.temperature_plies {
                            Choice::Sample(opts.temperature)
                        } else {
                            Choice::Best
                        };
                    let decision = search
                        .decide(choice, &mut self.rng)
                        .expect("a position that is not over has a legal move");
                    self.moves.push(self.position.play_recorded(decision.best));
                    self.search = None;
                }
            }
        }
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
    if agents.iter().all(Agent::is_classical) {
        let specs: Vec<(AgentSpec, u64)> =
            agents.iter().map(|a| (a.spec.clone(), a.seed)).collect();
        return play_apart(start, &specs, setups, opts, on_result);
    }
    let mut caches: Vec<EvalCache> = agents
        .iter()
        .map(|_| EvalCache::for_variant(opts.cache_size, start.variant()))
        .collect();
    // time budgets: one game at a time, so a move's clock measures only its own search
    let timed = agents
        .iter()
        .any(|a| matches!(a.spec.budget, Budget::Time(_)));
    let concurrent = if timed { 1 } else { opts.concurrent.max(1) };
    let mut queue = setups.iter().copied();
    let mut active: Vec<Game> = Vec::new();
    let mut results = Vec::new();
    let mut launching = true;
    loop {
        while launching && active.len() < concurrent {
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
                GameStep::Needs(who) => waiting.push((who, game)),
                GameStep::Over(result) => {
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
                    .filter_map(|&i| waiting[i].1.search.as_ref().and_then(|s| s.pending()))
                    .collect();
                evaluator.evaluate(&requests)
            };
            for (&i, eval) in mine.iter().zip(evals) {
                let game = &mut waiting[i].1;
                let search = game.search.as_mut().expect("a pending search");
                if let Some((pos, _)) = search.pending() {
                    caches[who].insert(pos, eval.clone());
                }
                search.expand(&eval, &mut game.rng);
            }
        }
        active = waiting.into_iter().map(|(_, g)| g).collect();
    }
    results.sort_by_key(|r| r.id);
    results
}

/// Games of classical agents, each played alone, start to end, by one of as many workers as
/// rayon has threads (`--threads`); a worker takes the next game as soon as it is free. Results
/// reach `on_result` in the order of `setups`, and when it asks to stop, the games after that one
/// are dropped even if a worker finished them: the games kept, their results and where a stop
/// falls do not depend on the number of threads, since a game's moves follow from its position,
/// its agents' seeds and its own random numbers only.
fn play_apart(
    start: &Position,
    specs: &[(AgentSpec, u64)],
    setups: &[GameSetup],
    opts: &PlayOptions,
    on_result: &mut dyn FnMut(&GameResult) -> bool,
) -> Vec<GameResult> {
    let mut heard = crate::workers::run_in_order(
        setups,
        |&setup| play_alone(setup, start, specs, opts),
        on_result,
    );
    heard.sort_by_key(|r| r.id);
    heard
}

/// One game between fresh copies of classical agents (their own evaluators, tables and caches).
fn play_alone(
    setup: GameSetup,
    start: &Position,
    specs: &[(AgentSpec, u64)],
    opts: &PlayOptions,
) -> GameResult {
    let variant = start.variant().name();
    let mut agents: Vec<Agent> = specs
        .iter()
        .map(|(spec, seed)| {
            Agent::load(spec, variant, tch::Device::Cpu, *seed)
                .expect("a classical agent loads without files")
        })
        .collect();
    let mut caches: Vec<EvalCache> = agents
        .iter()
        .map(|_| EvalCache::for_variant(opts.cache_size, start.variant()))
        .collect();
    let mut game = Game::new(setup, start, opts.opening_plies);
    loop {
        let who = match game.advance(&mut agents, &mut caches, opts) {
            GameStep::Over(result) => return result,
            GameStep::Needs(who) => who,
        };
        let search = game.search.as_mut().expect("a pending search");
        let evaluator = agents[who]
            .evaluator
            .as_mut()
            .expect("an agent that asks for evaluations has an evaluator");
        let eval = {
            let request: Vec<Request<'_>> = search.pending().into_iter().collect();
            evaluator.evaluate(&request).pop()
        }
        .expect("one evaluation per request");
        if let Some((pos, _)) = search.pending() {
            caches[who].insert(pos, eval.clone());
        }
        search.expand(&eval, &mut game.rng);
    }
}
