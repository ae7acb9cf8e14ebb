//! The self-play settings (`configs/selfplay.toml` documents each one).

use serde::{Deserialize, Serialize};

use super::starts::StartsConfig;
use crate::config::{ConfigError, Invalid, Settings};
use crate::nn::Precision;
use crate::rules::Side;
use crate::search::SearchConfig;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SelfplayConfig {
    /// Simulations of a full search (whose visit counts become policy targets).
    pub simulations: u32,
    /// Simulations of a cheap search (playout cap randomization: not used as a target).
    pub fast_simulations: u32,
    /// Share of moves searched fully; the rest are cheap. 1.0 disables the randomization.
    pub full_search_fraction: f32,
    /// The attackers' simulations over the defenders' (full and cheap searches alike): the
    /// attackers search `2 ratio / (1 + ratio)` times the counts above and the defenders
    /// `2 / (1 + ratio)` times, so a move of each side costs what two moves cost at equal
    /// budgets and a game the same as before. Above 1 the attackers think longer,
    /// so where they lose almost every game at equal budgets their moves still win some and
    /// their value and policy get a signal (KataGo's handicap games serve the same end). The
    /// pipeline's `[side_budgets]` adjusts it each generation. Absent: 1, equal budgets.
    #[serde(default = "one_f32")]
    pub attacker_search_ratio: f32,
    /// Games played at once; their leaves are evaluated in one batch per lane.
    pub concurrent_games: usize,
    /// Lanes the games are dealt into (game `id` plays in lane `id % lanes`, with
    /// `concurrent_games / lanes` of them in flight): each lane batches its own leaves and keeps
    /// its own share of the cache, so lanes can be played on different cores. The games depend
    /// on it (which positions share a forward pass), never on `workers`. Absent: 1, the
    /// generator of earlier versions, game for game.
    #[serde(default = "one")]
    pub lanes: usize,
    /// Threads that play the lanes, each with one libtorch thread (0: one per core, at most one
    /// per lane). Absent: 1.
    #[serde(default = "one")]
    pub workers: usize,
    /// Games per shard file (a shard is written once all its games are finished).
    pub games_per_shard: usize,
    /// Moves are sampled in proportion to visits^(1/temperature) for the first
    /// `temperature_plies` plies, and the most visited move is played afterwards.
    pub temperature: f32,
    pub temperature_plies: u32,
    /// Evaluations kept in the cache (0 disables it).
    pub cache_size: usize,
    /// The number format of the network's forward passes (`nn::Precision`): bf16 is faster
    /// where the CPU has bf16 instructions, and rounds priors and values a little. Absent: f32,
    /// as trained.
    #[serde(default)]
    pub precision: Precision,
    pub search: SearchConfig,
    /// A share of the games starts after some plies of alpha-beta against itself
    /// (`selfplay::starts`). Absent: every game from the start position.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub starts: Option<StartsConfig>,
}

impl Default for SelfplayConfig {
    fn default() -> Self {
        SelfplayConfig {
            simulations: 64,
            fast_simulations: 16,
            full_search_fraction: 0.25,
            attacker_search_ratio: 1.0,
            concurrent_games: 64,
            lanes: 1,
            workers: 1,
            games_per_shard: 32,
            temperature: 1.0,
            temperature_plies: 16,
            cache_size: 200_000,
            precision: Precision::F32,
            search: SearchConfig::default(),
            starts: None,
        }
    }
}

fn one() -> usize {
    1
}

fn one_f32() -> f32 {
    1.0
}

/// The widest budget ratio between the two sides a config may ask for.
pub const MAX_SEARCH_RATIO: f32 = 64.0;

impl SelfplayConfig {
    /// The threads that play the lanes: `workers`, or one per core when 0; never more than
    /// the lanes.
    pub fn worker_threads(&self) -> usize {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let wanted = if self.workers == 0 {
            cores
        } else {
            self.workers
        };
        wanted.clamp(1, self.lanes.max(1))
    }

    /// Simulations of one search by `side` (a full one or a cheap one), under
    /// `attacker_search_ratio`; at least 1.
    pub fn simulations_for(&self, side: Side, full: bool) -> u32 {
        let base = if full {
            self.simulations
        } else {
            self.fast_simulations
        };
        if self.attacker_search_ratio == 1.0 {
            return base;
        }
        let r = self.attacker_search_ratio;
        let factor = match side {
            Side::Attackers => 2.0 * r / (1.0 + r),
            Side::Defenders => 2.0 / (1.0 + r),
        };
        ((base as f32 * factor).round() as u32).max(1)
    }

    /// Reads and checks a self-play settings file.
    pub fn load(path: &std::path::Path) -> Result<SelfplayConfig, ConfigError> {
        crate::config::load(path)
    }
}

impl Settings for SelfplayConfig {
    fn check(&self) -> Result<(), Invalid> {
        if self.simulations == 0 || self.fast_simulations == 0 {
            return Err("simulations and fast_simulations must be at least 1".into());
        }
        let r = self.attacker_search_ratio;
        if !(r.is_finite() && (1.0 / MAX_SEARCH_RATIO..=MAX_SEARCH_RATIO).contains(&r)) {
            return Err(format!(
                "attacker_search_ratio must lie in [1/{MAX_SEARCH_RATIO}, {MAX_SEARCH_RATIO}], not {r}"
            )
            .into());
        }
        if !(0.0..=1.0).contains(&self.full_search_fraction) {
            return Err("full_search_fraction must lie in [0, 1]".into());
        }
        if self.concurrent_games == 0 || self.games_per_shard == 0 {
            return Err("concurrent_games and games_per_shard must be at least 1".into());
        }
        if self.lanes == 0 || self.lanes > self.concurrent_games {
            return Err("lanes must lie in 1..=concurrent_games".into());
        }
        if self.temperature <= 0.0 {
            return Err("temperature must be positive".into());
        }
        self.search.check()?;
        if let Some(starts) = &self.starts {
            starts.check()?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_search_ratio_splits_both_budgets_keeping_their_sum() {
        let cfg = SelfplayConfig {
            simulations: 64,
            fast_simulations: 16,
            attacker_search_ratio: 3.0,
            ..SelfplayConfig::default()
        };
        // 2 * 3 / 4 and 2 / 4 of each count: 96 + 32 = 2 * 64, 24 + 8 = 2 * 16
        assert_eq!(cfg.simulations_for(Side::Attackers, true), 96);
        assert_eq!(cfg.simulations_for(Side::Defenders, true), 32);
        assert_eq!(cfg.simulations_for(Side::Attackers, false), 24);
        assert_eq!(cfg.simulations_for(Side::Defenders, false), 8);
        let fewer = SelfplayConfig {
            attacker_search_ratio: 1.0 / 3.0,
            ..cfg.clone()
        };
        assert_eq!(fewer.simulations_for(Side::Attackers, true), 32);
        assert_eq!(fewer.simulations_for(Side::Defenders, true), 96);
        let tiny = SelfplayConfig {
            fast_simulations: 1,
            attacker_search_ratio: 64.0,
            ..cfg.clone()
        };
        assert_eq!(tiny.simulations_for(Side::Defenders, false), 1, "never 0");
        for bad in [0.0, -1.0, f32::NAN, 65.0, 1.0 / 65.0] {
            let c = SelfplayConfig {
                attacker_search_ratio: bad,
                ..cfg.clone()
            };
            let err = c.check().expect_err("out of range");
            assert!(err.0.contains("attacker_search_ratio"), "{}", err.0);
        }
    }
}
