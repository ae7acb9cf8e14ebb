//! Pipeline settings: one commented file (`configs/pipeline/*.toml`) holds every knob.

use serde::{Deserialize, Serialize};

use crate::config::{ConfigError, Invalid, Settings};

use crate::nn::Architecture;
use crate::selfplay::SelfplayConfig;
use crate::train::TrainConfig;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Gating {
    /// Every trained network becomes the new best.
    None,
    /// The new network must score at least `threshold` against the best.
    Score,
    /// The new network must pass an SPRT against the best.
    Sprt,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EvalSettings {
    /// Pairs of games between the new network and the best one, each generation.
    pub pairs: u64,
    /// Search simulations of both networks in those games (and of the pure-MCTS baseline).
    pub simulations: u32,
    pub gating: Gating,
    pub threshold: f64,
    /// `elo0,elo1,alpha,beta` for `gating = "sprt"`.
    pub sprt: String,
    /// Pairs each candidate plays against each fixed anchor: generation 0 (at `simulations`)
    /// and the classical `anchor` (at equal time). 0 skips these direct measurements.
    pub anchor_pairs: u64,
    /// The classical anchor: an agent spec with a time budget (`ab:t=20ms`); the candidate
    /// plays it with the same time per move.
    pub anchor: String,
    /// Pairs between every two generations' networks in the closing Bradley-Terry ladder (0:
    /// no ladder).
    pub ladder_pairs: u64,
    pub concurrent: usize,
    /// Evaluate every this many generations (and always the last): the match against the
    /// player (each generation anyway when it gates) and the anchor matches. 1: every
    /// generation. Time spent measuring is time not spent making data.
    #[serde(default = "every_generation")]
    pub every: u32,
}

fn every_generation() -> u32 {
    1
}

impl EvalSettings {
    /// The anchor's time budget as spec text (`t=20ms`), which the candidate also gets.
    pub fn anchor_budget(&self) -> &str {
        self.anchor.rsplit_once(':').map_or("", |(_, b)| b)
    }

    /// Whether generation `g`'s candidate is measured, in a run of `generations`.
    pub fn measures(&self, g: u32, generations: u32) -> bool {
        g + 1 >= generations || (g + 1).is_multiple_of(self.every.max(1))
    }

    fn check(&self) -> Result<(), Invalid> {
        use crate::eval::agent::{AgentKind, AgentSpec};
        use crate::search::Budget;
        if self.every == 0 {
            return Err(Invalid(
                "eval.every must be at least 1 (evaluate every N generations)".into(),
            ));
        }
        let spec = AgentSpec::parse(&self.anchor).map_err(|e| format!("eval.anchor: {e}"))?;
        if matches!(spec.kind, AgentKind::Network(_)) || !matches!(spec.budget, Budget::Time(_)) {
            return Err(Invalid(format!(
                "eval.anchor `{}` must be a classical agent with a time per move (ab:t=20ms, mcts:t=20ms)",
                self.anchor
            )));
        }
        Ok(())
    }
}

/// Teacher games beside each generation's self-play (`selfplay::teacher`): alpha-beta at a fixed
/// depth plays both sides, and its moves and results join the replay window.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TeacherSettings {
    /// Games per generation (0: none).
    pub games: u64,
    /// The teacher: `ab:D`, alpha-beta to depth D (a depth, not a time, so the games are
    /// reproducible).
    pub agent: String,
}

impl TeacherSettings {
    /// The teacher's search depth (checked by `PipelineConfig::check`).
    pub fn depth(&self) -> Option<u32> {
        crate::selfplay::teacher::teacher_depth(&self.agent)
    }

    fn check(&self) -> Result<(), Invalid> {
        if self.games > 0 && self.depth().is_none() {
            return Err(Invalid(format!(
                "teacher.agent `{}` must be alpha-beta at a depth (ab:4)",
                self.agent
            )));
        }
        Ok(())
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PipelineConfig {
    pub variant: String,
    pub seed: u64,
    pub generations: u32,
    /// Self-play games per generation.
    pub games_per_generation: u64,
    /// Generation 0 has no trained network: with N > 0 it plays pure MCTS with N rollouts per
    /// leaf (better first data than a random network, and both sides win some games).
    pub bootstrap_rollouts: usize,
    /// Generations of self-play data the replay window spans.
    pub window_generations: u32,
    pub network: Architecture,
    /// The input encoding of the run's networks (`encode::Encoding`; 2, the current one, sees
    /// repetition; 1 is kept to measure against).
    pub encoding: u32,
    pub selfplay: SelfplayConfig,
    pub train: TrainConfig,
    pub eval: EvalSettings,
    /// Absent in run directories made before teacher games existed: none.
    #[serde(default)]
    pub teacher: TeacherSettings,
}

impl PipelineConfig {
    /// Reads and checks a pipeline settings file.
    pub fn load(path: &std::path::Path) -> Result<PipelineConfig, ConfigError> {
        crate::config::load(path)
    }

    /// Parses and checks pipeline settings; `origin` names them in errors.
    pub fn parse(text: &str, origin: &str) -> Result<PipelineConfig, ConfigError> {
        crate::config::parse(text, origin)
    }
}

impl Settings for PipelineConfig {
    fn check(&self) -> Result<(), Invalid> {
        self.selfplay.check()?;
        self.train.check()?;
        self.eval.check()?;
        self.teacher.check()?;
        if crate::encode::Encoding::from_version(self.encoding).is_none() {
            return Err(Invalid(format!(
                "encoding {} is not a version this build knows (1 to {})",
                self.encoding,
                crate::encode::ENCODING_VERSION
            )));
        }
        if self.generations == 0 || self.games_per_generation == 0 || self.window_generations == 0 {
            return Err(
                "generations, games_per_generation and window_generations must be at least 1"
                    .into(),
            );
        }
        if self.eval.gating == Gating::Sprt {
            crate::eval::matches::Sprt::parse(&self.eval.sprt)
                .map_err(|e| Invalid(format!("eval.sprt {e}")))?;
        }
        Ok(())
    }
}
