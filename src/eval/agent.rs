//! Agents as spec strings: `random`, `mcts:N` (pure MCTS, N rollout simulations), `net:CKPT`
//! (the raw policy), `net:CKPT:N` (network-guided PUCT), `gumbel:CKPT:N` (Gumbel root search).

use std::path::PathBuf;

use crate::nn::{CheckpointError, Network};
use crate::search::{Evaluator, NetworkEvaluator, RolloutEvaluator};

#[derive(Debug, thiserror::Error)]
pub enum EvalError {
    #[error(
        "agent `{spec}`: {reason} (expected random, mcts:N, net:CKPT, net:CKPT:N or gumbel:CKPT:N)"
    )]
    BadSpec { spec: String, reason: String },
    #[error("agent `{spec}`: {source}")]
    Checkpoint {
        spec: String,
        source: CheckpointError,
    },
    #[error("{path}: {message}")]
    Io { path: PathBuf, message: String },
    #[error("{0}")]
    Invalid(String),
}

#[derive(Clone, Debug, PartialEq)]
pub enum AgentKind {
    Random,
    Rollouts,
    Network(PathBuf),
}

#[derive(Clone, Debug, PartialEq)]
pub struct AgentSpec {
    pub kind: AgentKind,
    /// Simulations per move (1 for the raw policy, 0 for random).
    pub simulations: u32,
    pub gumbel: bool,
    /// The text it was parsed from.
    pub text: String,
}

impl AgentSpec {
    pub fn parse(text: &str) -> Result<AgentSpec, EvalError> {
        let bad = |reason: &str| EvalError::BadSpec {
            spec: text.to_string(),
            reason: reason.to_string(),
        };
        let sims = |s: &str| {
            s.parse::<u32>()
                .ok()
                .filter(|&n| n > 0)
                .ok_or_else(|| bad(&format!("`{s}` is not a positive simulation count")))
        };
        let parts: Vec<&str> = text.split(':').collect();
        let (kind, simulations, gumbel) = match parts.as_slice() {
            ["random"] => (AgentKind::Random, 0, false),
            ["mcts", n] => (AgentKind::Rollouts, sims(n)?, false),
            ["net", path] => (AgentKind::Network(PathBuf::from(path)), 1, false),
            ["net", path, n] => (AgentKind::Network(PathBuf::from(path)), sims(n)?, false),
            ["gumbel", path, n] => (AgentKind::Network(PathBuf::from(path)), sims(n)?, true),
            _ => return Err(bad("unknown form")),
        };
        Ok(AgentSpec {
            kind,
            simulations,
            gumbel,
            text: text.to_string(),
        })
    }

    /// The same agent at another simulation count (for strength levels).
    pub fn with_simulations(&self, n: u32) -> AgentSpec {
        let text = match &self.kind {
            AgentKind::Random => "random".to_string(),
            AgentKind::Rollouts => format!("mcts:{n}"),
            AgentKind::Network(p) if self.gumbel => format!("gumbel:{}:{n}", p.display()),
            AgentKind::Network(p) => format!("net:{}:{n}", p.display()),
        };
        AgentSpec {
            simulations: if self.kind == AgentKind::Random { 0 } else { n },
            text,
            ..self.clone()
        }
    }
}

/// An agent ready to play: its spec and its evaluator (none for `random`).
pub struct Agent {
    pub spec: AgentSpec,
    pub evaluator: Option<Box<dyn Evaluator>>,
}

impl Agent {
    pub fn load(
        spec: &AgentSpec,
        variant: &str,
        device: tch::Device,
        seed: u64,
    ) -> Result<Agent, EvalError> {
        let evaluator: Option<Box<dyn Evaluator>> = match &spec.kind {
            AgentKind::Random => None,
            AgentKind::Rollouts => Some(Box::new(RolloutEvaluator::new(1, seed))),
            AgentKind::Network(path) => {
                let net = Network::load(path, Some(variant), device).map_err(|source| {
                    EvalError::Checkpoint {
                        spec: spec.text.clone(),
                        source,
                    }
                })?;
                Some(Box::new(NetworkEvaluator::new(net)))
            }
        };
        Ok(Agent {
            spec: spec.clone(),
            evaluator,
        })
    }
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
        assert_eq!((&m.kind, m.simulations), (&AgentKind::Rollouts, 200));
        let n = AgentSpec::parse("net:models/x.safetensors").expect("ok");
        assert_eq!(n.simulations, 1);
        let g = AgentSpec::parse("gumbel:a.safetensors:16").expect("ok");
        assert!(g.gumbel && g.simulations == 16);
        for bad in ["", "mcts", "mcts:0", "mcts:x", "net", "alpha:1", "gumbel:a"] {
            assert!(AgentSpec::parse(bad).is_err(), "{bad}");
        }
        assert_eq!(m.with_simulations(16).text, "mcts:16");
    }
}
