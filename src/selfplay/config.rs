//! The self-play settings (`configs/selfplay.toml` documents each one).

use serde::{Deserialize, Serialize};

use crate::config::{ConfigError, Invalid, Settings};
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
    /// Games played at once; their leaves are evaluated in one batch.
    pub concurrent_games: usize,
    /// Games per shard file (a shard is written once all its games are finished).
    pub games_per_shard: usize,
    /// Moves are sampled in proportion to visits^(1/temperature) for the first
    /// `temperature_plies` plies, and the most visited move is played afterwards.
    pub temperature: f32,
    pub temperature_plies: u32,
    /// Evaluations kept in the cache (0 disables it).
    pub cache_size: usize,
    pub search: SearchConfig,
}

impl Default for SelfplayConfig {
    fn default() -> Self {
        SelfplayConfig {
            simulations: 64,
            fast_simulations: 16,
            full_search_fraction: 0.25,
            concurrent_games: 64,
            games_per_shard: 32,
            temperature: 1.0,
            temperature_plies: 16,
            cache_size: 200_000,
            search: SearchConfig::default(),
        }
    }
}

impl SelfplayConfig {
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
        if !(0.0..=1.0).contains(&self.full_search_fraction) {
            return Err("full_search_fraction must lie in [0, 1]".into());
        }
        if self.concurrent_games == 0 || self.games_per_shard == 0 {
            return Err("concurrent_games and games_per_shard must be at least 1".into());
        }
        if self.temperature <= 0.0 {
            return Err("temperature must be positive".into());
        }
        self.search.check()?;
        Ok(())
    }
}
