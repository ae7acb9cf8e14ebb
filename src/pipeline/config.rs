//! Pipeline settings: one commented file (`configs/pipeline/*.toml`) holds every knob.

use serde::{Deserialize, Serialize};

use crate::config::{ConfigError, Invalid, Settings};

use crate::nn::Architecture;
use crate::selfplay::teacher::{Teacher, TeacherError};
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
    /// reproducible), with `:eval=FILE` for the alpha-beta settings of FILE and `:nnue=FILE` for a
    /// learned evaluation.
    pub agent: String,
}

impl TeacherSettings {
    /// The teacher, when the run has teacher games (its spec checked by `PipelineConfig::check`).
    pub fn teacher(&self) -> Result<Option<Teacher>, TeacherError> {
        (self.games > 0)
            .then(|| Teacher::parse(&self.agent))
            .transpose()
    }

    fn check(&self) -> Result<(), Invalid> {
        self.teacher()
            .map(|_| ())
            .map_err(|e| Invalid(format!("teacher.agent: {e}")))
    }
}

/// The replay window in samples, growing with the run, and the training each generation gets as
/// a number of reuses of its new samples. Absent (every field 0): the window is the last
/// `window_generations` generations up to `train.window` samples, and each generation trains
/// `train.steps` steps, as before this table existed.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReplaySettings {
    /// The window while the run has made fewer samples than this: all of them. 0: no growing
    /// window.
    pub window_min: u64,
    /// Beyond `window_min` samples made (N), the window is KataGo's power law
    /// `c * (1 + growth * ((N / c)^exponent - 1) / exponent)` with `c = window_min`, at most
    /// `train.window`: it keeps growing, ever more slowly, so early data (from weak networks)
    /// leaves it while late data stays for many generations.
    pub window_exponent: f64,
    pub window_growth: f64,
    /// Training samples drawn per new sample (self-play and teacher): each generation trains
    /// `ceil(new samples * reuse / batch_size)` steps, so training follows the data made
    /// instead of a fixed count. 0: `train.steps` a generation.
    pub reuse: f64,
}

impl ReplaySettings {
    /// The window in samples once `made` samples exist, at most `max`.
    pub fn window(&self, made: u64, max: usize) -> usize {
        if self.window_min == 0 {
            return max;
        }
        let c = self.window_min as f64;
        let n = made as f64;
        let window = if n <= c {
            n
        } else {
            let a = self.window_exponent;
            c * (1.0 + self.window_growth * ((n / c).powf(a) - 1.0) / a)
        };
        (window.ceil() as usize).clamp(1, max)
    }

    /// Training steps for a generation that made `new` samples.
    pub fn steps(&self, new: u64, batch_size: usize, fixed: u64) -> u64 {
        if self.reuse <= 0.0 {
            return fixed;
        }
        ((new as f64 * self.reuse / batch_size.max(1) as f64).ceil() as u64).max(1)
    }

    fn check(&self) -> Result<(), Invalid> {
        if self.window_min > 0
            && !(self.window_exponent > 0.0
                && self.window_exponent <= 1.0
                && self.window_growth >= 0.0)
        {
            return Err(Invalid(format!(
                "replay.window_exponent must lie in (0, 1] and replay.window_growth be at least 0 (found {} and {})",
                self.window_exponent, self.window_growth
            )));
        }
        if !(self.reuse >= 0.0 && self.reuse.is_finite()) {
            return Err(Invalid(format!(
                "replay.reuse must be 0 (train.steps a generation) or positive, not {}",
                self.reuse
            )));
        }
        Ok(())
    }
}

/// Search budgets that follow the self-play results: after each generation the attackers'
/// share of simulations moves towards the one that would give them `target_attacker_share` of
/// the games, as KataGo's handicap games keep its self-play informative for both sides. Absent
/// (target 0): `selfplay.attacker_search_ratio` in every generation.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SideBudgets {
    /// The attackers' share of self-play games aimed at (a draw counts half), in (0, 1); 0: off.
    pub target_attacker_share: f64,
    /// How far one generation moves the budget ratio: it is multiplied by
    /// `exp(step * (target - share))`, so with step 2 a generation whose attackers won 10 % where
    /// 40 % was aimed at gives them e^0.6 = 1.8 times the ratio.
    pub step: f64,
    /// The ratio stays within [1 / max_ratio, max_ratio].
    pub max_ratio: f64,
}

impl SideBudgets {
    pub fn on(&self) -> bool {
        self.target_attacker_share > 0.0
    }

    /// The next generation's attackers' search ratio after a generation that played with
    /// `ratio` and whose attackers won `attacker_wins` and drew `draws` of `games`.
    pub fn next_ratio(&self, ratio: f64, attacker_wins: u64, draws: u64, games: u64) -> f64 {
        if !self.on() || games == 0 {
            return ratio;
        }
        let share = (attacker_wins as f64 + 0.5 * draws as f64) / games as f64;
        let next = ratio * (self.step * (self.target_attacker_share - share)).exp();
        next.clamp(1.0 / self.max_ratio, self.max_ratio)
    }

    fn check(&self) -> Result<(), Invalid> {
        if self.target_attacker_share == 0.0 {
            return Ok(());
        }
        let max = crate::selfplay::config::MAX_SEARCH_RATIO as f64;
        let target = self.target_attacker_share > 0.0 && self.target_attacker_share < 1.0;
        let step = self.step > 0.0 && self.step.is_finite();
        let bound = self.max_ratio >= 1.0 && self.max_ratio <= max;
        if !(target && step && bound) {
            return Err(Invalid(format!(
                "side_budgets: target_attacker_share must lie in (0, 1) (0: off), step be positive and max_ratio lie in [1, {max}] (found {}, {}, {})",
                self.target_attacker_share, self.step, self.max_ratio
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
    /// Generations of self-play data the replay window spans (at most; `[replay]` and
    /// `train.window` bound it in samples).
    pub window_generations: u32,
    /// The next generation's self-play on one core while this generation's candidate trains
    /// (and the next teacher games are played) on the others, as KataGo runs self-play and
    /// training side by side: self-play then plays with a network one generation older, and
    /// the cores never wait for each other's stage. Off: the stages take turns, each on every
    /// core.
    #[serde(default)]
    pub overlap: bool,
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
    #[serde(default)]
    pub replay: ReplaySettings,
    #[serde(default)]
    pub side_budgets: SideBudgets,
    /// A trained checkpoint that is generation 0 instead of a fresh network, so a run continues
    /// its training (its variant and encoding must be the run's; a smaller architecture is grown
    /// into `[network]`, computing the same function); self-play then starts with it, not with
    /// the bootstrap. Absent: a fresh network.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_from: Option<std::path::PathBuf>,
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
        self.replay.check()?;
        self.side_budgets.check()?;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_window_holds_everything_then_grows_ever_more_slowly_up_to_its_cap() {
        let r = ReplaySettings {
            window_min: 10_000,
            window_exponent: 0.75,
            window_growth: 0.4,
            reuse: 0.0,
        };
        assert_eq!(r.window(4_000, 1_000_000), 4_000);
        assert_eq!(r.window(10_000, 1_000_000), 10_000);
        // N = 160,000: 10,000 * (1 + 0.4 * (16^0.75 - 1) / 0.75) = 10,000 * (1 + 0.4 * 7 / 0.75)
        assert_eq!(r.window(160_000, 1_000_000), 47_334);
        let (a, b, c) = (
            r.window(100_000, usize::MAX),
            r.window(200_000, usize::MAX),
            r.window(300_000, usize::MAX),
        );
        assert!(a < b && b < c && b - a > c - b, "{a} {b} {c}");
        assert_eq!(r.window(160_000, 30_000), 30_000);
        // no growing window: the cap alone
        assert_eq!(ReplaySettings::default().window(5, 777), 777);
    }

    #[test]
    fn side_budgets_move_the_ratio_towards_the_target_share_within_bounds() {
        let b = SideBudgets {
            target_attacker_share: 0.4,
            step: 2.0,
            max_ratio: 8.0,
        };
        // attackers won 10 % where 40 % was aimed at: e^(2 * 0.3) more search for them
        let up = b.next_ratio(1.0, 10, 0, 100);
        assert!((up - 0.6f64.exp()).abs() < 1e-12, "{up}");
        // a draw counts half: 20 wins and 40 draws is a share of 0.4, on target
        assert!((b.next_ratio(3.0, 20, 40, 100) - 3.0).abs() < 1e-12);
        // too many attacker wins: less
        assert!(b.next_ratio(2.0, 90, 0, 100) < 2.0);
        // bounded both ways
        assert_eq!(b.next_ratio(7.0, 0, 0, 100), 8.0);
        assert_eq!(b.next_ratio(0.13, 100, 0, 100), 0.125);
        // off, or no games: unchanged
        assert_eq!(SideBudgets::default().next_ratio(1.5, 0, 0, 100), 1.5);
        assert_eq!(b.next_ratio(1.5, 0, 0, 0), 1.5);
        assert!(SideBudgets::default().check().is_ok());
        for bad in [
            (1.0, 2.0, 8.0),
            (0.4, 0.0, 8.0),
            (0.4, 2.0, 0.5),
            (-0.1, 2.0, 8.0),
        ] {
            let (target_attacker_share, step, max_ratio) = bad;
            let s = SideBudgets {
                target_attacker_share,
                step,
                max_ratio,
            };
            assert!(s.check().is_err(), "{bad:?}");
        }
    }

    #[test]
    fn steps_follow_the_new_samples_when_reuse_is_set() {
        let fixed = ReplaySettings::default();
        assert_eq!(fixed.steps(100_000, 256, 400), 400);
        let reuse = ReplaySettings {
            reuse: 4.0,
            ..ReplaySettings::default()
        };
        // 10,000 new samples seen 4 times in batches of 256: 157 steps
        assert_eq!(reuse.steps(10_000, 256, 400), 157);
        assert_eq!(reuse.steps(0, 256, 400), 1);
    }
}
