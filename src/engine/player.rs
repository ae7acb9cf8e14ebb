//! A player that answers one position at a time, for the engines (HTP, OpenTafl's protocol) and
//! anything else that asks "what would you play here?": any agent spec, within its own budget
//! or one the caller gives (a clock's share).

use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::eval::agent::{Agent, AgentKind, AgentSpec, EvalError};
use crate::rules::{Move, Position};
use crate::search::alphabeta::Limit;
use crate::search::tree::SearchConfig;
use crate::search::{single, Budget, Proof, Search};

/// What a search found besides its move, for a person reading along.
#[derive(Clone, Debug, PartialEq)]
pub enum SearchSummary {
    /// A uniformly random legal move: no search.
    Random,
    /// Alpha-beta: the deepest iteration completed, the nodes visited, the value for the side to
    /// move in [-1, 1] (±1 a found win or loss) and the expected line.
    AlphaBeta {
        depth: u32,
        nodes: u64,
        value: f32,
        line: Vec<Move>,
    },
    /// A tree search (pure MCTS, network PUCT, Gumbel): its simulations (0 for the raw policy),
    /// the root value for the side to move and the solver's proof, if any.
    Tree {
        simulations: u32,
        value: f32,
        proof: Option<Proof>,
    },
}

/// A chosen move with its search and the time it took.
#[derive(Clone, Debug, PartialEq)]
pub struct Thought {
    pub mv: Move,
    pub search: SearchSummary,
    pub elapsed: Duration,
}

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
        self.think(pos, budget).map(|t| t.mv)
    }

    /// As [`Player::choose`], with what the search found and how long it took.
    pub fn think(&mut self, pos: &Position, budget: Option<Budget>) -> Option<Thought> {
        if pos.outcome().is_some() {
            return None;
        }
        let started = Instant::now();
        let budget = budget.unwrap_or(self.agent.spec.budget);
        let (mv, search) = if let Some(ab) = self.agent.alphabeta.as_mut() {
            ab.clear();
            let result = ab.search(pos, Limit::from(budget));
            let search = SearchSummary::AlphaBeta {
                depth: result.depth,
                nodes: result.nodes,
                value: ab.value(result.score),
                line: result.pv,
            };
            (result.best?, search)
        } else if self.agent.spec.kind == AgentKind::Random {
            let mut legal = Vec::new();
            pos.legal_moves(&mut legal);
            if legal.is_empty() {
                return None;
            }
            (
                legal[self.rng.random_range(0..legal.len())],
                SearchSummary::Random,
            )
        } else {
            let evaluator = self.agent.evaluator.as_mut()?;
            // no exploration noise: an engine plays its best move
            let config = self.agent.spec.search_config(&SearchConfig {
                dirichlet_epsilon: 0.0,
                ..SearchConfig::default()
            });
            let mut search = Search::new(pos.clone(), config, budget);
            let decision = single::run(&mut search, evaluator.as_mut(), &mut self.rng)?;
            let search = SearchSummary::Tree {
                simulations: decision.simulations,
                value: decision.value,
                proof: decision.proof,
            };
            (decision.best, search)
        };
        Some(Thought {
            mv,
            search,
            elapsed: started.elapsed(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Variant;

    #[test]
    fn every_kind_of_agent_answers_with_a_legal_move_and_its_search() {
        let dir = tempfile::tempdir().expect("tempdir");
        let ckpt = dir.path().join("tiny.safetensors");
        let arch = crate::nn::model::Architecture {
            blocks: 1,
            channels: 8,
        };
        crate::nn::Network::new("brandubh", arch, tch::Device::Cpu, 1)
            .save(&ckpt)
            .expect("saved");
        let v = Variant::load("brandubh").expect("preset");
        let pos = Position::start(&v);
        let mut legal = Vec::new();
        pos.legal_moves(&mut legal);
        let net = ckpt.display();
        let specs = [
            "random".to_string(),
            "mcts:16".into(),
            "ab:2".into(),
            format!("net:{net}"),
            format!("net:{net}:8"),
            format!("gumbel:{net}:8"),
        ];
        for text in specs {
            let spec = AgentSpec::parse(&text).expect("spec");
            let mut player = Player::new(&spec, "brandubh", tch::Device::Cpu, 1).expect("loads");
            let thought = player.think(&pos, None).expect("a move");
            assert!(legal.contains(&thought.mv), "{text}");
            match (spec.kind, thought.search) {
                (AgentKind::Random, SearchSummary::Random) => {}
                (AgentKind::AlphaBeta, SearchSummary::AlphaBeta { depth, line, .. }) => {
                    assert_eq!(depth, 2);
                    assert_eq!(line.first(), Some(&thought.mv));
                }
                (
                    _,
                    SearchSummary::Tree {
                        simulations, value, ..
                    },
                ) => {
                    assert_eq!(simulations, spec.budget.nodes().expect("nodes"), "{text}");
                    assert!((-1.0..=1.0).contains(&value), "{text}");
                }
                (_, other) => panic!("{text}: {other:?}"),
            }
            assert_eq!(
                player.choose(&pos, None).map(|m| legal.contains(&m)),
                Some(true)
            );
        }
    }
}
