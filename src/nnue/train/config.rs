//! The trainer's settings (`configs/nnue/train.toml` documents each one).

use serde::{Deserialize, Serialize};

use crate::config::{ConfigError, Invalid, Settings};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct NnueTrainConfig {
    /// The variant every positions file must be of; none: the first file's.
    pub variant: Option<String>,
    /// Accumulator width N.
    pub width: usize,
    /// Hidden units H of each side to move's head.
    pub hidden: usize,
    /// Weight of the search score in the target (the rest is the game's result).
    pub lambda: f64,
    pub epochs: u32,
    pub batch_size: usize,
    /// Adam's learning rate at the first epoch; it decays on a cosine to
    /// `learning_rate * final_lr_fraction` at the last.
    pub learning_rate: f64,
    pub final_lr_fraction: f64,
    /// L2: `weight_decay * w` added to each gradient.
    pub weight_decay: f64,
    /// Share of positions held out (chosen by the position's board and the seed).
    pub holdout: f64,
    /// Each position under a random symmetry of the variant, drawn anew each epoch.
    pub augment: bool,
    /// Weigh positions so that the games each side won count equally in the loss.
    pub balance_winners: bool,
}

impl Default for NnueTrainConfig {
    fn default() -> Self {
        NnueTrainConfig {
            variant: None,
            width: 128,
            hidden: 16,
            lambda: 0.5,
            epochs: 20,
            batch_size: 1024,
            learning_rate: 1e-3,
            final_lr_fraction: 0.1,
            weight_decay: 0.0,
            holdout: 0.05,
            augment: true,
            balance_winners: false,
        }
    }
}

impl Settings for NnueTrainConfig {
    fn check(&self) -> Result<(), Invalid> {
        if self.width == 0 || self.hidden == 0 {
            return Err("width and hidden must be at least 1".into());
        }
        if !(0.0..=1.0).contains(&self.lambda) {
            return Err("lambda must lie in [0, 1]".into());
        }
        if self.epochs == 0 || self.batch_size == 0 {
            return Err("epochs and batch_size must be at least 1".into());
        }
        if !(self.learning_rate > 0.0 && self.learning_rate.is_finite()) {
            return Err("learning_rate must be positive".into());
        }
        if !(0.0..=1.0).contains(&self.final_lr_fraction) {
            return Err("final_lr_fraction must lie in [0, 1]".into());
        }
        if !(self.weight_decay >= 0.0 && self.weight_decay.is_finite()) {
            return Err("weight_decay must be at least 0".into());
        }
        if !(0.0..1.0).contains(&self.holdout) {
            return Err("holdout must lie in [0, 1)".into());
        }
        Ok(())
    }
}

impl NnueTrainConfig {
    /// Reads and checks a settings file.
    pub fn load(path: &std::path::Path) -> Result<NnueTrainConfig, ConfigError> {
        crate::config::load(path)
    }

    /// The learning rate of `epoch` (0-based): a cosine from `learning_rate` down to its floor.
    pub fn learning_rate_at(&self, epoch: u32) -> f64 {
        let t = if self.epochs <= 1 {
            0.0
        } else {
            epoch as f64 / (self.epochs - 1) as f64
        };
        let floor = self.learning_rate * self.final_lr_fraction;
        floor + (self.learning_rate - floor) * 0.5 * (1.0 + (std::f64::consts::PI * t).cos())
    }
}
