//! One self-play game in progress: its position, its search tree, and what it has recorded.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::config::SelfplayConfig;
use super::starts::Starts;
use crate::data::Sample;
use crate::encode::policy::policy_index;
use crate::rules::{Outcome, Position, Side};
use crate::search::mcts::cache::EvalCache;
use crate::search::SearchConfig;
use crate::search::{Budget, Choice, Search, Step};

/// A finished game.
pub struct FinishedGame {
    pub id: u64,
    pub samples: Vec<Sample>,
    pub moves: Vec<String>,
    pub outcome: Outcome,
    /// Plies played before self-play took over (alpha-beta's, `selfplay::starts`): the first
    /// `start_ply` of `moves`, which give no samples.
    pub start_ply: u32,
}

pub struct Game {
    pub id: u64,
    rng: ChaCha8Rng,
    position: Position,
    search: Search,
    /// Whether this move's search is a full one (a training target).
    full: bool,
    samples: Vec<Sample>,
    moves: Vec<String>,
    start_ply: u32,
}

impl Game {
    /// Game `id` of a run seeded `seed`, from `start` or, where `starts` says so, from where
    /// alpha-beta's first plies take it.
    pub fn new(
        id: u64,
        start: &Position,
        seed: u64,
        cfg: &SelfplayConfig,
        starts: Option<&Starts>,
    ) -> Game {
        let mut rng = ChaCha8Rng::seed_from_u64(game_seed(seed, id));
        let (mut position, moves) = match starts {
            Some(starts) => starts.opening(start, seed, id),
            None => (start.clone(), Vec::new()),
        };
        if position.needs_roll() {
            position.set_roll(rng.random_range(1..=6));
        }
        let mut game = Game {
            id,
            rng,
            search: Search::new(position.clone(), cfg.search.clone(), Budget::Nodes(0)),
            position,
            full: false,
            samples: Vec::new(),
            start_ply: moves.len() as u32,
            moves,
        };
        game.plan_search(cfg);
        game
    }

    fn plan_search(&mut self, cfg: &SelfplayConfig) {
        self.full =
            cfg.full_search_fraction >= 1.0 || self.rng.random::<f32>() < cfg.full_search_fraction;
        let target = cfg.simulations_for(self.position.side_to_move(), self.full);
        let search = self.search_config(cfg);
        self.search
            .restart(search, Budget::Nodes(target), &mut self.rng);
    }

    /// The search settings of this move: cheap searches get no root noise.
    fn search_config(&self, cfg: &SelfplayConfig) -> SearchConfig {
        let mut search = cfg.search.clone();
        if !self.full {
            search.dirichlet_epsilon = 0.0;
        }
        search
    }

    /// The search waiting for evaluations, with the random generator its expansions use.
    pub fn waiting(&mut self) -> (&mut Search, &mut ChaCha8Rng) {
        (&mut self.search, &mut self.rng)
    }

    /// Runs the game forward until it needs an evaluation (`Ok(())` with a pending leaf) or
    /// ends (`Err(finished game)`). Cached evaluations are used on the way.
    pub fn advance(
        mut self,
        cfg: &SelfplayConfig,
        cache: &mut EvalCache,
    ) -> Result<Game, FinishedGame> {
        loop {
            if let Some(outcome) = self.position.outcome() {
                return Err(self.finish(outcome));
            }
            match self.search.step(Some(cache), &mut self.rng) {
                Step::NeedsEval => return Ok(self),
                Step::Done => self.play_best(cfg),
            }
        }
    }

    fn play_best(&mut self, cfg: &SelfplayConfig) {
        let size = self.position.variant().size;
        // Gumbel search explores through its noise and plays its chosen action; PUCT samples
        // from the visits early in the game
        let choice = if !cfg.search.gumbel && self.position.ply() < cfg.temperature_plies {
            Choice::Sample(cfg.temperature)
        } else {
            Choice::Best
        };
        let decision = self
            .search
            .decide(choice, &mut self.rng)
            .expect("a position that is not over has a legal move");
        if self.full {
            let policy = decision
                .policy
                .iter()
                .map(|&(m, q)| (policy_index(m, size) as u32, q))
                .collect();
            self.samples
                .push(sample_at(&self.position, self.id, policy, decision.value));
        }
        let mv = decision.best;
        self.moves.push(self.position.play_recorded(mv));
        let next_roll = self
            .position
            .needs_roll()
            .then(|| self.rng.random_range(1..=6));
        if let Some(r) = next_roll {
            self.position.set_roll(r);
        }
        self.search.advance(mv, next_roll);
        self.plan_search(cfg);
    }

    fn finish(self, outcome: Outcome) -> FinishedGame {
        let length = self.position.ply();
        FinishedGame {
            start_ply: self.start_ply,
            ..FinishedGame::new(self.id, self.samples, self.moves, outcome, length)
        }
    }
}

impl FinishedGame {
    /// A game that ended with `outcome` after `length` plies: each sample gets the result from
    /// its side to move's view, the length and the reason.
    pub fn new(
        id: u64,
        mut samples: Vec<Sample>,
        moves: Vec<String>,
        outcome: Outcome,
        length: u32,
    ) -> FinishedGame {
        for s in &mut samples {
            s.result = match outcome.winner {
                Some(w) if w == s.side_to_move => 1.0,
                Some(_) => -1.0,
                None => 0.0,
            };
            s.game_length = length;
            s.reason = outcome.reason.name().to_string();
        }
        FinishedGame {
            id,
            samples,
            moves,
            outcome,
            start_ply: 0,
        }
    }
}

/// A training sample of position `p` in game `id`, with its policy target (policy index,
/// probability) and the search's value; the result is filled in when the game ends.
pub fn sample_at(p: &Position, id: u64, policy: Vec<(u32, f32)>, search_value: f32) -> Sample {
    let state = p.recorded_state();
    Sample {
        game_id: id,
        ply: state.ply,
        cells: p.cells().to_vec(),
        side_to_move: p.side_to_move(),
        berserk: state.berserk,
        roll: p.roll(),
        plies_since_capture: state.plies_since_capture,
        passes: state.passes,
        occurrences: state.occurrences,
        policy,
        result: 0.0,
        search_value,
        game_length: 0,
        reason: String::new(),
    }
}

/// The seed of one game: games are reproducible one by one, so a resumed run replays them alike.
pub(crate) fn game_seed(seed: u64, id: u64) -> u64 {
    seed.wrapping_mul(0x9E37_79B9_7F4A_7C15)
        ^ id.wrapping_mul(0xD1B5_4A32_D192_ED03).rotate_left(17)
}

/// The side that won, for progress counters.
pub fn winner_name(outcome: &Outcome) -> &'static str {
    match outcome.winner {
        Some(Side::Attackers) => "attackers",
        Some(Side::Defenders) => "defenders",
        None => "draw",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Variant;

    #[test]
    fn each_side_searches_its_share_of_the_budget() {
        let cfg = SelfplayConfig {
            simulations: 16,
            fast_simulations: 4,
            full_search_fraction: 1.0,
            attacker_search_ratio: 4.0,
            ..SelfplayConfig::default()
        };
        let variant = Variant::load("brandubh").expect("preset");
        let start = Position::start(&variant);
        assert_eq!(start.side_to_move(), Side::Attackers);
        // ratio 4: the attackers search 2 * 4 / 5 of the simulations, the defenders 2 / 5
        let game = Game::new(0, &start, 1, &cfg, None);
        assert_eq!(game.search.budget(), Budget::Nodes(26));
        let mut moves = Vec::new();
        start.legal_moves(&mut moves);
        let mut after = start.clone();
        after.play_unchecked(moves[0]);
        let game = Game::new(0, &after, 1, &cfg, None);
        assert_eq!(game.search.budget(), Budget::Nodes(6));
        // equal budgets: the configured count for either side
        let equal = SelfplayConfig {
            attacker_search_ratio: 1.0,
            ..cfg
        };
        assert_eq!(
            Game::new(0, &after, 1, &equal, None).search.budget(),
            Budget::Nodes(16)
        );
    }
}
