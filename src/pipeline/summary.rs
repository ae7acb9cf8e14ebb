//! What a generation did, as `summary.md` and `tavlei pipeline`'s output report it.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::error::PipelineError;
use crate::eval::matches::MatchReport;
use crate::selfplay::GenerateSummary;

/// One generation's record, for the summary.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct GenerationRecord {
    pub generation: u32,
    /// The network that played this generation's self-play (its generation), or none for the
    /// pure-MCTS bootstrap.
    pub player: Option<u32>,
    pub selfplay: SelfplaySummary,
    /// This generation's teacher games (`[teacher]`), trained on beside the self-play.
    #[serde(default)]
    pub teacher: Option<SelfplaySummary>,
    /// The match of the network trained on this data against the player.
    pub candidate_match: Option<MatchReport>,
    /// Direct measurements of that network: against generation 0 at equal simulations, and
    /// against the classical anchor at equal time (absent when `anchor_pairs` is 0).
    #[serde(default)]
    pub against_first: Option<MatchReport>,
    #[serde(default)]
    pub against_anchor: Option<MatchReport>,
    pub accepted: bool,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct SelfplaySummary {
    pub games: u64,
    pub positions: u64,
    pub samples: u64,
    pub attacker_wins: u64,
    pub defender_wins: u64,
    pub draws: u64,
    /// Games that ended by the repetition rule (a draw or a defenders' loss, by variant) and by
    /// a length cap (either cap).
    #[serde(default)]
    pub repetitions: u64,
    #[serde(default)]
    pub length_caps: u64,
    #[serde(default)]
    pub mean_length: f64,
    pub seconds: f64,
    /// Where this run's self-play time went (`selfplay::GenerateSummary`): core-seconds of the
    /// threads that played, of their forward passes and of the tree work around them; zero in
    /// summaries written before they were counted.
    #[serde(default)]
    pub cpu_seconds: f64,
    #[serde(default)]
    pub forward_seconds: f64,
    #[serde(default)]
    pub tree_seconds: f64,
    /// Wall seconds workers waited for a lane (summed), and spent writing shards.
    #[serde(default)]
    pub idle_seconds: f64,
    #[serde(default)]
    pub write_seconds: f64,
    /// Seconds the workers were ready to run but other processes held the cores.
    #[serde(default)]
    pub queued_seconds: f64,
    #[serde(default)]
    pub evaluations: u64,
    #[serde(default)]
    pub batches: u64,
    #[serde(default)]
    pub workers: u64,
    /// The attackers' simulations over the defenders' in these games
    /// (`selfplay.attacker_search_ratio`, or what `[side_budgets]` made of it); 1 in summaries
    /// written before it existed.
    #[serde(default = "equal_budgets")]
    pub attacker_search_ratio: f64,
    /// Games that started from alpha-beta's first plies (`selfplay.starts`) among the
    /// `games_played` this stage played (a resumed stage: after it resumed), with or without
    /// samples (`games` counts only the games stored with samples).
    #[serde(default)]
    pub alpha_beta_starts: u64,
    #[serde(default)]
    pub games_played: u64,
}

fn equal_budgets() -> f64 {
    1.0
}

impl SelfplaySummary {
    /// Outcomes counted from every shard in `data` (so a resumed stage counts the games of the
    /// earlier run too); speed from this run's games.
    pub(crate) fn of(
        data: &Path,
        variant: &str,
        run: &GenerateSummary,
    ) -> Result<SelfplaySummary, PipelineError> {
        let stats = crate::data::Stats::of(&crate::data::read_dir(data, Some(variant))?);
        let ended_by = |reason: &str| {
            stats
                .reasons
                .iter()
                .filter(|r| r.reason == reason)
                .map(|r| r.games as u64)
                .sum()
        };
        Ok(SelfplaySummary {
            repetitions: ended_by("repetition"),
            length_caps: ended_by("length_cap"),
            mean_length: stats.mean_length,
            games: stats.games as u64,
            positions: run.positions,
            samples: stats.samples as u64,
            attacker_wins: stats.attacker_wins as u64,
            defender_wins: stats.defender_wins as u64,
            draws: stats.draws as u64,
            seconds: run.seconds,
            cpu_seconds: run.cpu_seconds,
            forward_seconds: run.forward_seconds,
            tree_seconds: run.tree_seconds,
            idle_seconds: run.idle_seconds,
            write_seconds: run.write_seconds,
            queued_seconds: run.queued_seconds,
            evaluations: run.evaluations,
            batches: run.batches,
            workers: run.workers,
            attacker_search_ratio: 1.0,
            alpha_beta_starts: run.alpha_beta_starts,
            games_played: run.games,
        })
    }
}
