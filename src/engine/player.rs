//! A player that answers one position at a time, for the engines (HTP, OpenTafl's protocol) and
//! anything else that asks "what would you play here?": any agent spec, within its own budget
//! or one the caller gives (a clock's share).

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::eval::agent::{Agent, AgentKind, AgentSpec, EvalError};
use crate::rules::{Move, Position};
use crate::search::alphabeta::Limit;
use crate::search::tree::SearchConfig;
use crate::search::{single, Budget, Search};

pub struct Player {
    agent: Agent,
    rng: ChaCha8Rng,
}

impl Player {
    /// The agent of `spec` for `variant` (a preset name or variant file, as the spec's network
    /// must match), its random choices seeded by `seed`.
    pub fn new(
        spec: &AgentSpec,
        variant: &str,
        device: tch::Device,
        seed: u64,
    ) -> Result<Player, EvalError> {
        Ok(Player {
            agent: Agent::load(spec, variant, device, seed)?,
            rng: ChaCha8Rng::seed_from_u64(seed),
        })
    }

    pub fn spec(&self) -> &AgentSpec {
        &self.agent.spec
    }

    /// The move to play in `pos` (after any die roll), searching within `budget`, or the agent's
    /// own budget when `None`. `None` when the game is over or no move is legal.
    pub fn choose(&mut self, pos: &Position, budget: Option<Budget>) -> Option<Move> {
        if pos.outcome().is_some() {
            return None;
        }
        let budget = budget.unwrap_or(self.agent.spec.budget);
        if let Some(ab) = self.agent.alphabeta.as_mut() {
            ab.clear();
            return ab.search(pos, Limit::from(budget)).best;
        }
        if self.agent.spec.kind == AgentKind::Random {
            let mut legal = Vec::new();
            pos.legal_moves(&mut legal);
            return (!legal.is_empty()).then(|| legal[self.rng.random_range(0..legal.len())]);
        }
        let evaluator = self.agent.evaluator.as_mut()?;
        // no exploration noise: an engine plays its best move
        let config = self.agent.spec.search_config(&SearchConfig {
            dirichlet_epsilon: 0.0,
            ..SearchConfig::default()
        });
        let mut search = Search::new(pos.clone(), config, budget);
        single::run(&mut search, evaluator.as_mut(), &mut self.rng).map(|d| d.best)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Variant;

    #[test]
    fn every_kind_of_agent_answers_with_a_legal_move() {
        let v = Variant::load("brandubh").expect("preset");
        let pos = Position::start(&v);
        let mut legal = Vec::new();
        pos.legal_moves(&mut legal);
        for spec in ["random", "mcts:16", "ab:2"] {
            let spec = AgentSpec::parse(spec).expect("spec");
            let mut player = Player::new(&spec, "brandubh", tch::Device::Cpu, 1).expect("loads");
            let mv = player.choose(&pos, None).expect("a move");
            assert!(legal.contains(&mv), "{}", spec.text);
        }
    }
}
