//! A player that answers one position at a time, for the engines (HTP, OpenTafl's protocol) and
//! anything else that asks "what would you play here?": any agent spec, within its own budget
//! or one the caller gives (a clock's share).

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::analysis::{Analysis, Candidate};
use crate::eval::agent::{Agent, AgentKind, AgentSpec, EvalError};
use crate::rules::{Move, Position};
use crate::search::alphabeta::Limit;
use crate::search::evaluator::Evaluator;
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
        self.analyse(pos, budget).map(|a| a.best)
    }

    /// The agent's search of `pos` (after any die roll) within `budget` (its own when `None`):
    /// the move it plays and its candidates. `None` when the game is over or no move is legal.
    pub fn analyse(&mut self, pos: &Position, budget: Option<Budget>) -> Option<Analysis> {
        if pos.outcome().is_some() {
            return None;
        }
        let budget = budget.unwrap_or(self.agent.spec.budget);
        if let Some(ab) = self.agent.alphabeta.as_mut() {
            ab.clear();
            let result = ab.search(pos, Limit::from(budget));
            let best = result.best?;
            let value = ab.value(result.score);
            return Some(Analysis {
                best,
                value,
                work: result.nodes,
                depth: Some(result.depth),
                candidates: vec![Candidate {
                    mv: best,
                    visits: 0,
                    prior: None,
                    value: Some(value),
                    proof: None,
                    pv: result.pv,
                }],
            });
        }
        if self.agent.spec.kind == AgentKind::Random {
            let mut legal = Vec::new();
            pos.legal_moves(&mut legal);
            let best = *legal.get(self.rng.random_range(0..legal.len().max(1)))?;
            let prior = 1.0 / legal.len() as f32;
            let candidates = legal
                .iter()
                .map(|&mv| Candidate {
                    mv,
                    visits: 0,
                    prior: Some(prior),
                    value: None,
                    proof: None,
                    pv: vec![mv],
                })
                .collect();
            return Some(
                Analysis {
                    best,
                    value: 0.0,
                    work: 0,
                    depth: None,
                    candidates,
                }
                .sorted(),
            );
        }
        let config = self.search_config()?;
        let evaluator = self.agent.evaluator.as_mut()?;
        let mut search = Search::new(pos.clone(), config, budget);
        let decision = single::run(&mut search, evaluator.as_mut(), &mut self.rng)?;
        Some(Analysis::of_search(&search, &decision))
    }

    /// The search settings of a tree-search agent, without exploration noise (an engine plays
    /// its best move); `None` for alpha-beta and random.
    pub fn search_config(&self) -> Option<SearchConfig> {
        self.agent.evaluator.as_ref()?;
        Some(self.agent.spec.search_config(&SearchConfig {
            dirichlet_epsilon: 0.0,
            ..SearchConfig::default()
        }))
    }

    /// The evaluator of a tree-search agent, for callers that batch several searches.
    pub fn evaluator(&mut self) -> Option<&mut dyn Evaluator> {
        Some(self.agent.evaluator.as_mut()?.as_mut())
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
