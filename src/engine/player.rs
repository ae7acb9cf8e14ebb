//! A player that answers one position at a time, for the engines (HTP, OpenTafl's protocol) and
//! anything else that asks "what would you play here?": any agent spec, within its own budget
//! or one the caller gives (a clock's share).

use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::analysis::{Analysis, Candidate};
use crate::eval::agent::{Agent, AgentKind, AgentSpec, EvalError};
use crate::rules::{Move, Position};
use crate::search::alphabeta::Limit;
use crate::search::mcts::single;
use crate::search::{Budget, Evaluator, Proof, Search, SearchCap, SearchConfig};

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
    /// Alpha-beta keeps its transposition table from move to move (a game), instead of
    /// starting every search afresh (independent queries, whose answers then do not depend on
    /// the queries before them).
    keep_table: bool,
    /// Bounds over every search, whatever the spec or the caller's budget asks (`capped`).
    cap: SearchCap,
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
            keep_table: false,
            cap: SearchCap::default(),
        })
    }

    /// The same player keeping alpha-beta's table between moves, as an engine playing a game
    /// does: what it found for earlier moves speeds up the next search.
    pub fn keeping_table(mut self) -> Player {
        self.keep_table = true;
        self
    }

    /// The same player with every search bounded by `cap` (a clock, a tree's memory), for a
    /// server whose users choose the agents.
    pub fn capped(mut self, cap: SearchCap) -> Player {
        if let Some(ab) = self.agent.alphabeta.as_mut() {
            ab.set_cap(cap);
        }
        self.cap = cap;
        self
    }

    /// The memory alpha-beta's transposition table holds (none before its first search, and
    /// none for other agents).
    pub fn table_bytes(&self) -> usize {
        self.agent
            .alphabeta
            .as_ref()
            .map_or(0, |ab| ab.table_bytes())
    }

    pub fn spec(&self) -> &AgentSpec {
        &self.agent.spec
    }

    /// The move to play in `pos` (after any die roll), searching within `budget`, or the agent's
    /// own budget when `None`. `None` when the game is over or no move is legal.
    pub fn choose(&mut self, pos: &Position, budget: Option<Budget>) -> Option<Move> {
        self.analyse(pos, budget).map(|a| a.best)
    }

    /// As [`Player::choose`], with what the search found and how long it took.
    pub fn think(&mut self, pos: &Position, budget: Option<Budget>) -> Option<Thought> {
        let started = Instant::now();
        let analysis = self.analyse(pos, budget)?;
        let search = if let Some(depth) = analysis.depth {
            SearchSummary::AlphaBeta {
                depth,
                nodes: analysis.work,
                value: analysis.value,
                line: analysis
                    .candidates
                    .first()
                    .map_or_else(Vec::new, |c| c.pv.clone()),
            }
        } else if self.agent.spec.kind == AgentKind::Random {
            SearchSummary::Random
        } else {
            SearchSummary::Tree {
                simulations: analysis.work as u32,
                value: analysis.value,
                proof: analysis.proof,
            }
        };
        Some(Thought {
            mv: analysis.best,
            search,
            elapsed: started.elapsed(),
        })
    }

    /// The agent's search of `pos` (after any die roll) within `budget` (its own when `None`):
    /// the move it plays and its candidates. `None` when the game is over or no move is legal.
    pub fn analyse(&mut self, pos: &Position, budget: Option<Budget>) -> Option<Analysis> {
        if pos.outcome().is_some() {
            return None;
        }
        let budget = budget.unwrap_or(self.agent.spec.budget);
        if let Some(ab) = self.agent.alphabeta.as_mut() {
            if !self.keep_table {
                ab.clear();
            }
            let result = ab.search(pos, Limit::from(budget));
            let best = result.best?;
            let value = ab.value(result.score);
            return Some(Analysis {
                best,
                value,
                work: result.nodes,
                depth: Some(result.depth),
                proof: None,
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
                    proof: None,
                    candidates,
                }
                .sorted(),
            );
        }
        let config = self.search_config()?;
        let evaluator = self.agent.evaluator.as_mut()?;
        let mut search = Search::new(pos.clone(), config, budget);
        search.set_rate(self.agent.rate);
        search.set_cap(self.cap);
        let decision = single::run(&mut search, evaluator.as_mut(), &mut self.rng)?;
        self.agent.rate = search.measured_rate();
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
