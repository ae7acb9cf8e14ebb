//! Agents as spec strings. The budget `B` of a searching agent is a simulation count `N` or a
//! time per move `t=T` (`t=100ms`, `t=2s`, `t=1.5s`):
//! - `random`: a uniformly random legal move;
//! - `mcts:B`: pure MCTS (rollouts with decisive moves, cheap move prior, unvisited children
//!   first, progressive widening, solver); `mcts-uct:B`: the same without the solver and with
//!   plain random rollouts (to measure what those two add);
//! - `net:CKPT` (the raw policy), `net:CKPT:B` (network-guided PUCT);
//! - `gumbel:CKPT:B` (Gumbel root search);
//! - `ab:D` (alpha-beta to depth `D` plies) or `ab:t=T` (iterative deepening for a time per move),
//!   with the evaluation weights of `configs/alphabeta.toml` (compiled in); `:eval=FILE` reads
//!   other settings, `:nnue=FILE` scores leaves with a learned network (`tavlei nnue train`)
//!   instead of the weights, e.g. `ab:t=200ms:nnue=models/copenhagen.nnue`.
//!
//! A network agent's spec may end in `:leaf=K`: its search gathers up to K leaves per network
//! call (`SearchConfig::leaf_batch`), whatever the command's `--leaf-batch` says; and then in
//! `:bf16` or `:int8`: its forward passes run in bf16 or 8-bit integers (`nn::Precision`), e.g.
//! `net:a.safetensors:96:bf16`.
//!
//! A time budget is wall-clock time per move; the arena then plays each game alone on a worker
//! of its own, so that the clock measures only that game's search (see `arena`).

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::nn::NetworkEvaluator;
use crate::nn::{CheckpointError, Network, Precision};
use crate::search::alphabeta::{AlphaBeta, AlphaBetaConfig, LearnedEval, Limit, SpecFiles};
use crate::search::{parse_duration, Budget, Evaluator, RolloutEvaluator, SearchConfig};

/// The last commit with the agents from before issue 11 (`mcts-old`, `gumbel-old`).
pub const RETIRED_IN: &str = "56237c3";

#[derive(Debug, thiserror::Error)]
pub enum EvalError {
    #[error(
        "agent `{spec}`: {reason} (expected random, mcts:B, mcts-uct:B, net:CKPT, net:CKPT:B, gumbel:CKPT:B or ab:B, where B is a simulation count N (for ab a depth) or a time t=100ms; a network agent may end in :leaf=K and :bf16 or :int8, an ab agent in :eval=FILE and :nnue=FILE)"
    )]
    BadSpec { spec: String, reason: String },
    #[error("agent `{spec}`: {source}")]
    Checkpoint {
        spec: String,
        source: CheckpointError,
    },
    #[error("agent `{spec}`: {source}")]
    Learned {
        spec: String,
        // boxed: a file fault carries paths and names, and every agent result carries the error
        source: Box<tavlei_nnue::NnueError>,
    },
    #[error("{path}: {message}")]
    Io { path: PathBuf, message: String },
    #[error(transparent)]
    Store(#[from] crate::store::StoreError),
    #[error(transparent)]
    Stats(#[from] crate::eval::stats::StatsError),
    #[error("{0}")]
    Invalid(String),
    #[error("{}: its stored games were played under other settings ({differences}); write to another directory, or remove them to play anew", games.display())]
    OtherGames { games: PathBuf, differences: String },
}

#[derive(Clone, Debug, PartialEq)]
pub enum AgentKind {
    Random,
    Rollouts,
    Network(PathBuf),
    /// Alpha-beta search; its budget `Nodes(d)` is a depth in plies.
    AlphaBeta,
}

#[derive(Clone, Debug, PartialEq)]
pub struct AgentSpec {
    pub kind: AgentKind,
    /// Simulations per move (0 for the raw policy and for random), or time per move.
    pub budget: Budget,
    pub gumbel: bool,
    /// `mcts-uct`: the fixed rollout search without the solver and decisive rollouts.
    pub uct_only: bool,
    /// `:leaf=K`: leaves per network call, over the shared search settings.
    pub leaf_batch: Option<usize>,
    /// `:bf16` / `:int8`: the network's forward passes in bf16 or 8-bit integers (f32
    /// otherwise).
    pub precision: Precision,
    /// `ab:B:eval=FILE`: the alpha-beta settings (weights) of FILE instead of the compiled ones.
    pub alphabeta_config: Option<PathBuf>,
    /// `ab:B:nnue=FILE`: a learned evaluation (`.nnue`) scores the leaves instead of the weights.
    pub nnue: Option<PathBuf>,
    /// The text it was parsed from.
    pub text: String,
}

/// Parses a budget: `N` (positive simulations) or `t=T` (a positive duration).
pub fn parse_budget(text: &str) -> Option<Budget> {
    match text.strip_prefix("t=") {
        Some(t) => parse_duration(t).map(Budget::Time),
        None => text
            .parse::<u32>()
            .ok()
            .filter(|&n| n > 0)
            .map(Budget::Nodes),
    }
}

impl std::str::FromStr for AgentSpec {
    type Err = EvalError;

    fn from_str(text: &str) -> Result<AgentSpec, EvalError> {
        AgentSpec::parse(text)
    }
}

impl AgentSpec {
    pub fn parse(text: &str) -> Result<AgentSpec, EvalError> {
        let bad = |reason: &str| EvalError::BadSpec {
            spec: text.to_string(),
            reason: reason.to_string(),
        };
        let budget = |s: &str| {
            parse_budget(s).ok_or_else(|| {
                bad(&format!(
                    "`{s}` is neither a positive simulation count nor a time like t=100ms"
                ))
            })
        };
        let mut parts: Vec<&str> = text.split(':').collect();
        let is_network = |parts: &[&str]| {
            parts
                .first()
                .is_some_and(|&f| f == "net" || f.starts_with("gumbel"))
        };
        let precision = match parts.last().map(|p| p.parse::<Precision>()) {
            Some(Ok(p)) if p != Precision::F32 => {
                if !is_network(&parts) {
                    return Err(bad(&format!("only network agents take :{p}")));
                }
                parts.pop();
                p
            }
            _ => Precision::F32,
        };
        let leaf_batch =
            match parts.last().and_then(|p| p.strip_prefix("leaf=")) {
                Some(k) if is_network(&parts) => {
                    parts.pop();
                    Some(k.parse::<usize>().ok().filter(|&k| k > 0).ok_or_else(|| {
                        bad(&format!("`leaf={k}` is not a positive count of leaves"))
                    })?)
                }
                Some(_) => return Err(bad("only network agents take :leaf=K")),
                None => None,
            };
        // alpha-beta's files, in either order: `:eval=FILE` (settings), `:nnue=FILE` (network)
        let files = SpecFiles::take(&mut parts).map_err(|reason| bad(&reason))?;
        if !files.is_empty() && parts.first() != Some(&"ab") {
            return Err(bad(&format!(
                "only ab agents take :{}=FILE",
                files.first_key()
            )));
        }
        let SpecFiles {
            eval: alphabeta_config,
            nnue,
        } = files;
        let net = |p: &str| AgentKind::Network(PathBuf::from(p));
        let uct_only = parts.first() == Some(&"mcts-uct");
        let (kind, budget, gumbel) = match parts.as_slice() {
            ["random"] => (AgentKind::Random, Budget::Nodes(0), false),
            ["mcts", b] | ["mcts-uct", b] => (AgentKind::Rollouts, budget(b)?, false),
            ["net", path] => (net(path), Budget::Nodes(0), false),
            ["net", path, b] => (net(path), budget(b)?, false),
            ["gumbel", path, b] => (net(path), budget(b)?, true),
            ["ab", b] => (AgentKind::AlphaBeta, budget(b)?, false),
            [old @ ("mcts-old" | "gumbel-old"), ..] => {
                return Err(bad(&format!(
                    "`{old}`, the search before issue 11, was removed; commit {RETIRED_IN} has it"
                )))
            }
            _ => return Err(bad("unknown form")),
        };
        Ok(AgentSpec {
            kind,
            budget,
            gumbel,
            uct_only,
            leaf_batch,
            precision,
            alphabeta_config,
            nnue,
            text: text.to_string(),
        })
    }

    /// Simulations per move (0 for a time budget, the raw policy and random).
    pub fn simulations(&self) -> u32 {
        self.budget.nodes().unwrap_or(0)
    }

    /// The same agent at another budget (for strength levels).
    pub fn with_budget(&self, budget: Budget) -> AgentSpec {
        let b = budget.describe();
        let text = match &self.kind {
            AgentKind::Random => "random".to_string(),
            AgentKind::Rollouts if self.uct_only => format!("mcts-uct:{b}"),
            AgentKind::Rollouts => format!("mcts:{b}"),
            AgentKind::Network(p) if self.gumbel => format!("gumbel:{}:{b}", p.display()),
            AgentKind::Network(p) => format!("net:{}:{b}", p.display()),
            AgentKind::AlphaBeta => format!("ab:{b}"),
        };
        let mut text = match self.leaf_batch {
            Some(k) => format!("{text}:leaf={k}"),
            None => text,
        };
        if self.precision != Precision::F32 {
            text = format!("{text}:{}", self.precision);
        }
        if let Some(file) = &self.alphabeta_config {
            text = format!("{text}:eval={}", file.display());
        }
        if let Some(file) = &self.nnue {
            text = format!("{text}:nnue={}", file.display());
        }
        AgentSpec {
            budget: if self.kind == AgentKind::Random {
                Budget::Nodes(0)
            } else {
                budget
            },
            text,
            ..self.clone()
        }
    }

    /// The same agent at another simulation count.
    pub fn with_simulations(&self, n: u32) -> AgentSpec {
        self.with_budget(Budget::Nodes(n))
    }

    /// The search settings of this agent on top of the shared ones (`base`: exploration
    /// constants, noise): pure MCTS gets its rollout search, Gumbel agents their root search.
    pub fn search_config(&self, base: &SearchConfig) -> SearchConfig {
        let mut cfg = match self.kind {
            AgentKind::Rollouts => SearchConfig {
                c_uct: base.c_uct,
                draw_value: base.draw_value,
                ..SearchConfig::rollouts()
            },
            _ => base.clone(),
        };
        cfg.gumbel = self.gumbel;
        if self.leaf_batch.is_some() {
            cfg.leaf_batch = self.leaf_batch;
        }
        if self.uct_only {
            cfg.solver = false;
        }
        cfg
    }

    /// The files its play depends on: its network's checkpoint, its alpha-beta settings and
    /// learned evaluation.
    pub fn files(&self) -> Vec<&Path> {
        let network = match &self.kind {
            AgentKind::Network(path) => Some(path.as_path()),
            _ => None,
        };
        network
            .into_iter()
            .chain(self.alphabeta_config.as_deref())
            .chain(self.nnue.as_deref())
            .collect()
    }

    /// The time per move, when the budget is one.
    pub fn time(&self) -> Option<Duration> {
        match self.budget {
            Budget::Time(t) => Some(t),
            Budget::Nodes(_) => None,
        }
    }
}

/// An agent ready to play: its spec and its evaluator (none for `random` and `ab`), or its
/// alpha-beta player.
pub struct Agent {
    pub spec: AgentSpec,
    /// Send, so that a server can keep an agent per game and search on any thread.
    pub evaluator: Option<Box<dyn Evaluator + Send>>,
    pub alphabeta: Option<AlphaBeta>,
    /// The seed it was loaded with (its rollouts and alpha-beta tie-breaks follow from it).
    pub seed: u64,
    /// Where its network runs.
    pub device: tch::Device,
    /// Simulations per second of its last timed search (a Gumbel search plans its next time
    /// budget with it).
    pub rate: Option<f64>,
}

impl Agent {
    pub fn load(
        spec: &AgentSpec,
        variant: &str,
        device: tch::Device,
        seed: u64,
    ) -> Result<Agent, EvalError> {
        let evaluator: Option<Box<dyn Evaluator + Send>> = match &spec.kind {
            AgentKind::Random | AgentKind::AlphaBeta => None,
            AgentKind::Rollouts if spec.uct_only => {
                let mut plain = RolloutEvaluator::new(1, seed);
                plain.decisive = false;
                Some(Box::new(plain))
            }
            AgentKind::Rollouts => Some(Box::new(RolloutEvaluator::new(1, seed))),
            AgentKind::Network(path) => {
                let net = Network::load(path, Some(variant), device).map_err(|source| {
                    EvalError::Checkpoint {
                        spec: spec.text.clone(),
                        source,
                    }
                })?;
                Some(Box::new(NetworkEvaluator::with_precision(
                    net,
                    spec.precision,
                )))
            }
        };
        let alphabeta = match spec.kind {
            AgentKind::AlphaBeta => Some(load_alphabeta(spec, variant, seed)?),
            _ => None,
        };
        Ok(Agent {
            spec: spec.clone(),
            evaluator,
            alphabeta,
            seed,
            device,
            rate: None,
        })
    }

    /// The agents of a match or ladder, each loaded for `variant` with the same seed.
    pub fn load_all(
        specs: &[AgentSpec],
        variant: &str,
        device: tch::Device,
        seed: u64,
    ) -> Result<Vec<Agent>, EvalError> {
        specs
            .iter()
            .map(|spec| Agent::load(spec, variant, device, seed))
            .collect()
    }

    /// Whether it plays without a network (random, pure MCTS, alpha-beta): such an agent's moves
    /// depend only on the position, its seed and the game's own random numbers, so its games can
    /// be played apart from each other.
    pub fn is_classical(&self) -> bool {
        !matches!(self.spec.kind, AgentKind::Network(_))
    }

    /// The alpha-beta limit of this agent's budget: a depth, or a time per move.
    pub fn alphabeta_limit(&self) -> Limit {
        Limit::from(self.spec.budget)
    }
}

/// An `ab` agent's search: its settings file or the compiled ones, and its learned evaluation,
/// which must have been trained for `variant`.
fn load_alphabeta(spec: &AgentSpec, variant: &str, seed: u64) -> Result<AlphaBeta, EvalError> {
    let config = match &spec.alphabeta_config {
        None => AlphaBetaConfig::default(),
        Some(file) => AlphaBetaConfig::load(file).map_err(|e| EvalError::BadSpec {
            spec: spec.text.clone(),
            reason: e.to_string(),
        })?,
    };
    let search = AlphaBeta::new(config, seed);
    let Some(file) = &spec.nnue else {
        return Ok(search);
    };
    let learned = LearnedEval::load(file, variant).map_err(|source| EvalError::Learned {
        spec: spec.text.clone(),
        source: Box::new(source),
    })?;
    Ok(search.with_learned(learned))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_form_and_rejects_others() {
        assert_eq!(
            AgentSpec::parse("random").expect("ok").kind,
            AgentKind::Random
        );
        let m = AgentSpec::parse("mcts:200").expect("ok");
        assert_eq!(
            (&m.kind, m.budget),
            (&AgentKind::Rollouts, Budget::Nodes(200))
        );
        let retired = AgentSpec::parse("mcts-old:200").expect_err("removed");
        assert!(retired.to_string().contains(RETIRED_IN), "{retired}");
        let u = AgentSpec::parse("mcts-uct:64").expect("ok");
        assert!(u.uct_only && !u.search_config(&SearchConfig::default()).solver);
        assert_eq!(u.with_simulations(8).text, "mcts-uct:8");
        let n = AgentSpec::parse("net:models/x.safetensors").expect("ok");
        assert_eq!(n.budget, Budget::Nodes(0));
        let g = AgentSpec::parse("gumbel:a.safetensors:16").expect("ok");
        assert!(g.gumbel && g.simulations() == 16);
        let t = AgentSpec::parse("net:a.safetensors:t=100ms").expect("ok");
        assert_eq!(t.time(), Some(Duration::from_millis(100)));
        let l = AgentSpec::parse("net:a.safetensors:t=100ms:leaf=8").expect("ok");
        assert_eq!((l.time(), l.leaf_batch), (t.time(), Some(8)));
        assert_eq!(
            l.search_config(&SearchConfig::default()).leaf_batch,
            Some(8)
        );
        assert_eq!(l.with_simulations(32).text, "net:a.safetensors:32:leaf=8");
        assert_eq!(t.search_config(&SearchConfig::default()).leaf_batch, None);
        assert_eq!(t.precision, Precision::F32);
        let b = AgentSpec::parse("net:a.safetensors:t=100ms:leaf=8:bf16").expect("ok");
        assert_eq!((b.leaf_batch, b.precision), (Some(8), Precision::Bf16));
        assert_eq!(
            b.with_simulations(32).text,
            "net:a.safetensors:32:leaf=8:bf16"
        );
        assert_eq!(
            AgentSpec::parse("gumbel:a:16:bf16").expect("ok").precision,
            Precision::Bf16
        );
        let t = AgentSpec::parse("mcts:t=1.5s").expect("ok");
        assert_eq!(t.time(), Some(Duration::from_millis(1500)));
        let ab = AgentSpec::parse("ab:3").expect("ok");
        assert_eq!(
            (&ab.kind, ab.budget),
            (&AgentKind::AlphaBeta, Budget::Nodes(3))
        );
        assert_eq!(
            ab.with_budget(Budget::Time(Duration::from_millis(100)))
                .text,
            "ab:t=100ms"
        );
        let tuned = AgentSpec::parse("ab:t=40ms:eval=configs/alphabeta/brandubh.toml").expect("ok");
        assert_eq!(
            tuned.alphabeta_config.as_deref(),
            Some(std::path::Path::new("configs/alphabeta/brandubh.toml"))
        );
        assert_eq!(
            tuned.with_budget(Budget::Nodes(2)).text,
            "ab:2:eval=configs/alphabeta/brandubh.toml"
        );
        let learned = AgentSpec::parse("ab:t=200ms:nnue=models/c.nnue:eval=q.toml").expect("ok");
        assert_eq!(
            (learned.nnue.as_deref(), learned.alphabeta_config.as_deref()),
            (Some(Path::new("models/c.nnue")), Some(Path::new("q.toml")))
        );
        assert_eq!(
            learned.files(),
            [Path::new("q.toml"), Path::new("models/c.nnue")]
        );
        let again = learned.with_budget(Budget::Nodes(3));
        assert_eq!(again.text, "ab:3:eval=q.toml:nnue=models/c.nnue");
        assert_eq!(AgentSpec::parse(&again.text).expect("ok"), again);
        for bad in [
            "ab:3:nnue=a.nnue:nnue=b.nnue",
            "ab:3:nnue=",
            "net:a:8:nnue=c.nnue",
            "ab:nnue=c.nnue",
            "mcts:8:eval=x.toml",
            "net:a:8:eval=x.toml",
            "ab:eval=x.toml",
            "",
            "ab",
            "ab:0",
            "mcts",
            "mcts:0",
            "mcts:x",
            "net",
            "alpha:1",
            "gumbel:a",
            "mcts:t=",
            "mcts:t=0ms",
            "mcts:t=5",
            "mcts:t=-1s",
            "net:a:32:leaf=0",
            "net:a:32:leaf=x",
            "mcts:32:leaf=4",
            "ab:3:leaf=2",
            "ab:3:bf16",
            "mcts:32:bf16",
            "net:a:32:bf16:leaf=8",
            "net:a:32:bf16:bf16",
            "ab:3:int8",
            "net:a:32:int8:bf16",
        ] {
            assert!(AgentSpec::parse(bad).is_err(), "{bad}");
        }
        assert_eq!(m.with_simulations(16).text, "mcts:16");
        let timed = m.with_budget(Budget::Time(Duration::from_millis(50)));
        assert_eq!(timed.text, "mcts:t=50ms");
        assert_eq!(AgentSpec::parse(&timed.text).expect("ok"), timed);
        assert!(AgentSpec::parse("gumbel-old:a:8").is_err());
    }

    /// `:bf16` and `:int8` reach the network that plays: the loaded evaluator describes its
    /// precision, and the spec writes itself back.
    #[test]
    fn a_bf16_or_int8_agent_evaluates_in_its_precision() {
        for (spec_suffix, precision) in [("", "f32"), (":bf16", "bf16"), (":int8", "int8")] {
            let spec = AgentSpec::parse(&format!("net:models/brandubh.safetensors:8{spec_suffix}"))
                .expect("parses");
            let agent = Agent::load(&spec, "brandubh", tch::Device::Cpu, 1).expect("loads");
            let described = agent.evaluator.as_ref().expect("a network").describe();
            assert!(
                described.ends_with(&format!(", {precision})")),
                "{described}"
            );
            let rewritten = spec.with_simulations(4);
            assert!(
                rewritten.text.ends_with(&format!(":4{spec_suffix}")),
                "{}",
                rewritten.text
            );
            assert_eq!(
                AgentSpec::parse(&rewritten.text).expect("parses back"),
                rewritten
            );
        }
    }
}
