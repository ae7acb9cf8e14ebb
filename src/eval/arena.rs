//! Games between agents, many at once: each game searches for the side to move with that side's
//! agent, and the pending leaves of all games are evaluated in one batch per agent.
//!
//! Games played apart: games between classical agents (random, pure MCTS, alpha-beta) share no
//! batches, and neither do games on a time budget (with many games in flight, one game's move
//! would wait for the other games' searches and the shared batches). Each such game is played
//! alone, start to end, by one of as many workers as rayon has threads (`--threads`,
//! `RAYON_NUM_THREADS`, one per core by default), with its own copies of the agents (networks
//! included, each running its forward passes on its worker's thread with the libtorch threads
//! of `nn::threads`), so a study uses every core and a timed move's clock measures only its own
//! search. Each timed move's wall time over its budget is kept with the game (`GameResult::clock`).

use std::sync::Arc;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::agent::{Agent, AgentKind, AgentSpec};
use crate::rules::{Move, Outcome, Position, Side};
use crate::search::mcts::batch::evaluate_pending;
use crate::search::mcts::cache::EvalCache;
use crate::search::SearchConfig;
use crate::search::{Budget, Choice, Search, Step};

#[derive(Clone, Debug)]
pub struct PlayOptions {
    /// Games in flight (their leaves share batches).
    pub concurrent: usize,
    /// Uniformly random plies played before the agents take over (the same within a pair), for
    /// games without a fixed opening.
    pub opening_plies: u32,
    /// Fixed openings a game may start from instead (`GameSetup::opening`).
    pub openings: Arc<Vec<Vec<Move>>>,
    /// Draws those openings in proportion to a policy instead of uniformly.
    pub opening_policy: Option<super::openings::OpeningPolicy>,
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
            openings: Arc::default(),
            opening_policy: None,
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
    /// An index into `PlayOptions::openings`: the game starts with that opening instead.
    pub opening: Option<usize>,
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
    /// Each timed move's wall time over its budget, with the agent that made it (none when no
    /// agent played on a time budget).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub clock: Vec<(usize, f32)>,
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
    /// When the move in progress started to be searched (time budgets only).
    started: Option<std::time::Instant>,
    clock: Vec<(usize, f32)>,
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
    fn new(setup: GameSetup, start: &Position, opts: &PlayOptions) -> Game {
        let mut position = start.clone();
        let mut opening = ChaCha8Rng::seed_from_u64(setup.opening_seed);
        let mut moves = Vec::new();
        let mut legal = Vec::new();
        let fixed = setup.opening.and_then(|i| opts.openings.get(i));
        for &mv in fixed.into_iter().flatten() {
            moves.push(position.play_recorded(mv));
        }
        let random_plies = if fixed.is_some() {
            0
        } else {
            opts.opening_plies
        };
        for _ in 0..random_plies {
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
            started: None,
            clock: Vec::new(),
        }
    }

    /// Notes a timed move's wall time, from `started`, over the budget of `agent`'s spec.
    fn time_move(&mut self, agent: usize, budget: Budget) {
        if let (Some(started), Budget::Time(t)) = (self.started.take(), budget) {
            let ratio = started.elapsed().as_secs_f64() / t.as_secs_f64();
            self.clock.push((agent, ratio as f32));
        }
    }

    /// The search of the move in progress with the random generator its expansions use.
    fn waiting(&mut self) -> Option<(&mut Search, &mut ChaCha8Rng)> {
        Some((self.search.as_mut()?, &mut self.rng))
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
                    clock: std::mem::take(&mut self.clock),
                });
            }
            roll_if_needed(&mut self.position, &mut self.rng);
            if self.position.outcome().is_some() {
                // no legal move after the roll: the game ends here (the loop reports it)
                continue;
            }
            let who = self.agent_to_move();
            let limit = agents[who].alphabeta_limit();
            let budget = agents[who].spec.budget;
            if matches!(budget, Budget::Time(_)) {
                self.started.get_or_insert_with(std::time::Instant::now);
            }
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
                self.time_move(who, budget);
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
                let mut search = Search::new(
                    self.position.clone(),
                    agent.spec.search_config(&opts.search),
                    agent.spec.budget,
                );
                search.set_rate(agent.rate);
                search
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
                    agents[who].rate = search.measured_rate();
                    self.search = None;
                    self.time_move(who, budget);
                    self.moves.push(self.position.play_recorded(decision.best));
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
    let timed = agents
        .iter()
        .any(|a| matches!(a.spec.budget, Budget::Time(_)));
    if timed || agents.iter().all(Agent::is_classical) {
        let specs: Vec<(AgentSpec, u64, tch::Device)> = agents
            .iter()
            .map(|a| (a.spec.clone(), a.seed, a.device))
            .collect();
        return play_apart(start, &specs, setups, opts, on_result);
    }
    let mut caches: Vec<EvalCache> = agents
        .iter()
        .map(|_| EvalCache::for_variant(opts.cache_size, start.variant()))
        .collect();
    let concurrent = opts.concurrent.max(1);
    let mut queue = setups.iter().copied();
    let mut active: Vec<Game> = Vec::new();
    let mut results = Vec::new();
    let mut launching = true;
    loop {
        while launching && active.len() < concurrent {
            match queue.next() {
                Some(setup) => active.push(Game::new(setup, start, opts)),
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
            let mut mine: Vec<_> = waiting
                .iter_mut()
                .filter(|(w, _)| *w == who)
                .filter_map(|(_, game)| game.waiting())
                .collect();
            evaluate_pending(&mut mine, evaluator.as_mut(), Some(&mut caches[who]));
        }
        active = waiting.into_iter().map(|(_, g)| g).collect();
    }
    results.sort_by_key(|r| r.id);
    results
}

/// Games played apart (classical agents, or time budgets), each alone, start to end, by one of as
/// many workers as rayon has threads (`--threads`); a worker takes the next game as soon as it
/// is free. Results
/// reach `on_result` in the order of `setups`, and when it asks to stop, the games after that one
/// are dropped even if a worker finished them: the games kept, their results and where a stop
/// falls do not depend on the number of threads, since a game's moves follow from its position,
/// its agents' seeds and its own random numbers only (for node budgets; a time budget's moves
/// depend on the machine's speed).
fn play_apart(
    start: &Position,
    specs: &[(AgentSpec, u64, tch::Device)],
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

/// One game between fresh copies of the agents (their own evaluators, networks, tables and
/// caches).
fn play_alone(
    setup: GameSetup,
    start: &Position,
    specs: &[(AgentSpec, u64, tch::Device)],
    opts: &PlayOptions,
) -> GameResult {
    let variant = start.variant().name();
    let mut agents: Vec<Agent> = specs
        .iter()
        .map(|(spec, seed, device)| {
            // the caller loaded each agent once already: a failure now is a file changed since
            Agent::load(spec, variant, *device, *seed)
                .unwrap_or_else(|e| panic!("reloading an agent for a game: {e}"))
        })
        .collect();
    let mut caches: Vec<EvalCache> = agents
        .iter()
        .map(|_| EvalCache::for_variant(opts.cache_size, start.variant()))
        .collect();
    let mut game = Game::new(setup, &start.with_own_variant(), opts);
    loop {
        let who = match game.advance(&mut agents, &mut caches, opts) {
            GameStep::Over(result) => return result,
            GameStep::Needs(who) => who,
        };
        let evaluator = agents[who]
            .evaluator
            .as_mut()
            .expect("an agent that asks for evaluations has an evaluator");
        let waiting = game.waiting().expect("a pending search");
        evaluate_pending(&mut [waiting], evaluator.as_mut(), Some(&mut caches[who]));
    }
}
