//! Training settings (`configs/train.toml` documents each one).

use serde::{Deserialize, Serialize};

use crate::config::{ConfigError, Invalid, Settings};
use crate::rules::Reason;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OptimizerKind {
    Sgd,
    Adam,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Schedule {
    Constant,
    /// Cosine decay from `learning_rate` to `learning_rate * final_lr_fraction`.
    Cosine,
    /// Multiply by 0.1 at each of `milestones` (steps).
    Step,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrainConfig {
    pub steps: u64,
    pub batch_size: usize,
    /// The most recent samples (across all shards) trained on.
    pub window: usize,
    /// Share of games held out for validation (split by game, never by position).
    pub validation_fraction: f64,
    pub optimizer: OptimizerKind,
    pub learning_rate: f64,
    pub momentum: f64,
    /// L2 penalty on the weights: the optimizer adds `weight_decay * w` to each gradient (the
    /// gradient of `weight_decay/2 * |w|^2`).
    pub weight_decay: f64,
    pub schedule: Schedule,
    pub warmup_steps: u64,
    pub final_lr_fraction: f64,
    pub milestones: Vec<u64>,
    /// Weight of the value loss against the policy loss.
    pub value_weight: f64,
    /// The value target is the result times `value_discount ^ (plies left in the game)`: with
    /// a discount below 1, a loss that comes later is worth more than a quick one (and a quick
    /// win more than a slow one), which gives the side that loses most games something to learn.
    /// 1 (the default) is the plain result.
    #[serde(default = "no_discount")]
    pub value_discount: f64,
    /// Share of the short-horizon target in the value target (`value_target.rs`): the search
    /// values of the next `short_value_horizon` plies or so, blended with the result. 0 (the
    /// default): the result alone.
    #[serde(default)]
    pub short_value_weight: f64,
    /// Mean look-ahead of the short-horizon target, in plies.
    #[serde(default = "short_horizon")]
    pub short_value_horizon: f64,
    /// Weight of the auxiliary loss on the opponent's reply (`reply.rs`; KataGo uses 0.15).
    /// 0 (the default): no reply head.
    #[serde(default)]
    pub reply_weight: f64,
    /// Games that ended for one of these reasons (`repetition`, `length_cap`, ...) train the
    /// policy only: their samples are left out of the value loss, so a side is not taught that a
    /// position is lost because the game later ended by the opponent's repetition, or drawn
    /// because a cap cut it. Empty (the default): every game trains both heads.
    #[serde(default)]
    pub value_leave_out: Vec<Reason>,
    /// How far the value loss evens out the two sides' wins (`side_balance.rs`): 1 weighs the
    /// window's samples of games each side won alike in total, 0 (the default) weighs every
    /// sample 1, and a value between raises the full weights to that power. Where one side wins
    /// 5 % of the games, 1 gives each sample of its wins weight 10 and the other side's 0.53.
    #[serde(default)]
    pub value_side_balance: f64,
    /// Random D4 symmetries of each sample, where the variant's rules allow them.
    pub augment: bool,
    /// bf16 autocast on CUDA (ignored on the CPU).
    pub mixed_precision: bool,
    /// Steps between metric rows, validation passes and checkpoints.
    pub log_every: u64,
    pub validate_every: u64,
    pub checkpoint_every: u64,
}

fn no_discount() -> f64 {
    1.0
}

fn short_horizon() -> f64 {
    6.0
}

impl Default for TrainConfig {
    fn default() -> Self {
        TrainConfig {
            steps: 500,
            batch_size: 256,
            window: 200_000,
            validation_fraction: 0.05,
            optimizer: OptimizerKind::Adam,
            learning_rate: 2e-3,
            momentum: 0.9,
            weight_decay: 1e-4,
            schedule: Schedule::Cosine,
            warmup_steps: 20,
            final_lr_fraction: 0.1,
            milestones: vec![],
            value_weight: 1.0,
            value_discount: 1.0,
            short_value_weight: 0.0,
            short_value_horizon: short_horizon(),
            reply_weight: 0.0,
            value_leave_out: vec![],
            value_side_balance: 0.0,
            augment: true,
            mixed_precision: false,
            log_every: 10,
            validate_every: 100,
            checkpoint_every: 100,
        }
    }
}

impl Settings for TrainConfig {
    fn check(&self) -> Result<(), Invalid> {
        if self.batch_size == 0 || self.window == 0 {
            return Err("batch_size and window must be at least 1".into());
        }
        if !(0.0..1.0).contains(&self.validation_fraction) {
            return Err("validation_fraction must lie in [0, 1)".into());
        }
        if !(self.value_discount > 0.0 && self.value_discount <= 1.0) {
            return Err("value_discount must lie in (0, 1]".into());
        }
        if !(0.0..=1.0).contains(&self.short_value_weight) {
            return Err("short_value_weight must lie in [0, 1]".into());
        }
        if !(self.short_value_horizon >= 1.0 && self.short_value_horizon.is_finite()) {
            return Err("short_value_horizon must be at least 1 (plies)".into());
        }
        if !(0.0..=1.0).contains(&self.reply_weight) {
            return Err("reply_weight must lie in [0, 1]".into());
        }
        if !(0.0..=1.0).contains(&self.value_side_balance) {
            return Err("value_side_balance must lie in [0, 1]".into());
        }
        if self.learning_rate <= 0.0 {
            return Err("learning_rate must be positive".into());
        }
        if self.log_every == 0 || self.validate_every == 0 || self.checkpoint_every == 0 {
            return Err("log_every, validate_every and checkpoint_every must be at least 1".into());
        }
        Ok(())
    }
}

impl TrainConfig {
    /// Reads and checks a training settings file.
    pub fn load(path: &std::path::Path) -> Result<TrainConfig, ConfigError> {
        crate::config::load(path)
    }

    /// What the value head learns from each sample.
    pub fn value_target(&self) -> crate::train::value_target::ValueTarget {
        crate::train::value_target::ValueTarget {
            discount: self.value_discount,
            short_weight: self.short_value_weight,
            short_horizon: self.short_value_horizon,
        }
    }

    /// Whether a game that ended for `reason` (a sample's `reason`) trains the value head.
    pub fn trains_value(&self, reason: &str) -> bool {
        !self.value_leave_out.iter().any(|r| r.name() == reason)
    }

    /// The learning rate at `step` (0-based).
    pub fn learning_rate_at(&self, step: u64) -> f64 {
        let base = self.learning_rate;
        if step < self.warmup_steps {
            return base * (step + 1) as f64 / self.warmup_steps as f64;
        }
        match self.schedule {
            Schedule::Constant => base,
            Schedule::Cosine => {
                let span = self.steps.saturating_sub(self.warmup_steps).max(1) as f64;
                let t = ((step - self.warmup_steps) as f64 / span).min(1.0);
                let floor = base * self.final_lr_fraction;
                floor + (base - floor) * 0.5 * (1.0 + (std::f64::consts::PI * t).cos())
            }
            Schedule::Step => {
                base * 0.1f64.powi(self.milestones.iter().filter(|&&m| step >= m).count() as i32)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schedules() {
        let c = TrainConfig {
            steps: 100,
            warmup_steps: 10,
            ..TrainConfig::default()
        };
        assert!((c.learning_rate_at(0) - 2e-4).abs() < 1e-12);
        assert!((c.learning_rate_at(10) - 2e-3).abs() < 1e-9);
        assert!((c.learning_rate_at(100) - 2e-4).abs() < 1e-9);
        let s = TrainConfig {
            schedule: Schedule::Step,
            warmup_steps: 0,
            milestones: vec![5, 8],
            ..TrainConfig::default()
        };
        assert!((s.learning_rate_at(4) - 2e-3).abs() < 1e-12);
        assert!((s.learning_rate_at(9) - 2e-5).abs() < 1e-12);
    }

    #[test]
    fn value_leave_out_names_end_reasons() {
        let text = toml::to_string(&TrainConfig::default()).expect("serialises");
        let with = |list: &str| text.replace("value_leave_out = []", list);
        let read: TrainConfig =
            toml::from_str(&with(r#"value_leave_out = ["repetition", "length_cap"]"#))
                .expect("known reasons");
        assert!(!read.trains_value("repetition") && !read.trains_value("length_cap"));
        assert!(read.trains_value("king_captured"));
        assert!(TrainConfig::default().trains_value("repetition"));
        let message = toml::from_str::<TrainConfig>(&with(r#"value_leave_out = ["repeat"]"#))
            .expect_err("an unknown reason")
            .to_string();
        assert!(
            message.contains("repeat") && message.contains("repetition"),
            "{message}"
        );
    }

    #[test]
    fn value_target_side_balance_and_reply_settings_are_checked() {
        let short = |weight, horizon| TrainConfig {
            short_value_weight: weight,
            short_value_horizon: horizon,
            ..TrainConfig::default()
        };
        let reply = |weight| TrainConfig {
            reply_weight: weight,
            ..TrainConfig::default()
        };
        let sides = |balance| TrainConfig {
            value_side_balance: balance,
            ..TrainConfig::default()
        };
        assert!(short(0.5, 4.0).check().is_ok());
        assert!(sides(0.5).check().is_ok());
        let refused = [
            (short(1.5, 6.0), "short_value"),
            (short(-0.1, 6.0), "short_value"),
            (short(0.5, 0.5), "short_value"),
            (short(0.5, f64::NAN), "short_value"),
            (reply(-0.5), "reply_weight"),
            (reply(1.5), "reply_weight"),
            (reply(f64::NAN), "reply_weight"),
            (sides(1.5), "value_side_balance"),
            (sides(-0.5), "value_side_balance"),
            (sides(f64::NAN), "value_side_balance"),
        ];
        for (bad, named) in refused {
            let message = bad.check().expect_err("refused").to_string();
            assert!(message.contains(named), "{message}");
        }
    }
}
