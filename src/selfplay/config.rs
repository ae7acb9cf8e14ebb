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
    pub search: SearchConfig,
}

impl Default for SelfplayConfig {
    fn default() -> Self {
        SelfplayConfig {
            simulations: 64,
            fast_simulations: 16,
            full_search_fraction: 0.25,
            concurrent_games: 64,
            lanes: 1,
            workers: 1,
            games_per_shard: 32,
            temperature: 1.0,
            temperature_plies: 16,
            cache_size: 200_000,
            search: SearchConfig::default(),
        }
    }
}

fn one() -> usize {
    1
}

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
        if self.lanes == 0 || self.lanes > self.concurrent_games {
            return Err("lanes must lie in 1..=concurrent_games".into());
        }
        if self.temperature <= 0.0 {
            return Err("temperature must be positive".into());
        }
        self.search.check()?;
        Ok(())
    }
}
