//! The closing ladder: every measured generation's network (generation 0, every `eval.every`-th
//! and the last) against every other at equal simulations, rated together (Bradley-Terry) and shown relative to generation 0. It is stored in
//! `ladder.json` with the networks it rated; a run extended with more generations rates again.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::config::PipelineConfig;
use super::files::{model_path, read_json, write_json};
use super::{PipelineError, PipelineProgress};
use crate::eval::matches::{run_ladder, LadderReport};
use crate::eval::stats::{ratings_relative_to, BradleyTerryOptions, Rating};
use crate::rules::Position;

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct GenerationLadder {
    /// The generations rated, in the order of `ratings`.
    pub generations: Vec<u32>,
    /// Each generation's Elo minus generation 0's, with the interval of that difference (from
    /// the fit's full covariance, so generation 0's own uncertainty is in it, scaled by the
    /// pairs' dispersion, `report.pair_dispersion`, so it is over pairs). Ladders stored
    /// before this shifted the mean-centred intervals instead, which left it out.
    pub ratings: Vec<Rating>,
    pub pairs: u64,
    pub report: LadderReport,
}

/// The ladder's Bradley-Terry ratings as differences to its first player, generation 0: every
/// two players met in `2 * pairs` games, scored as the report's table says.
fn relative_to_first(report: &LadderReport, pairs: u64) -> Result<Vec<Rating>, PipelineError> {
    let n = report.agents.len();
    let games = 2.0 * pairs as f64;
    let mut results = Vec::new();
    for i in 0..n {
        for j in i + 1..n {
            if let Some(score) = report.scores[i][j] {
                results.push((i, j, score * games, games));
            }
        }
    }
    // intervals over pairs where the ladder measured their dispersion
    let options = BradleyTerryOptions {
        variance_scale: report.pair_dispersion.unwrap_or(1.0),
        ..BradleyTerryOptions::default()
    };
    ratings_relative_to(n, &results, 0, &options)
        .map_err(|e| crate::eval::EvalError::from(e).into())
}

/// The generations the ladder rates when `last` is the newest: 0, those `eval.every` measures
/// and `last` (every generation when `every` is 1).
pub fn rated_generations(cfg: &PipelineConfig, last: u32) -> Vec<u32> {
    (0..=last)
        .filter(|&c| c == 0 || c == last || cfg.eval.measures(c - 1, cfg.generations))
        .collect()
}

/// Rates the generations up to `last` that `rated_generations` names (stored result reused
/// when it rated the same networks).
pub fn generation_ladder(
    cfg: &PipelineConfig,
    run: &Path,
    last: u32,
    device: tch::Device,
    progress: &mut dyn PipelineProgress,
) -> Result<Option<GenerationLadder>, PipelineError> {
    if cfg.eval.ladder_pairs == 0 || last == 0 {
        return Ok(None);
    }
    let sims = cfg.eval.simulations;
    let generations = rated_generations(cfg, last);
    let specs: Vec<String> = generations
        .iter()
        .map(|&g| format!("net:{}:{sims}", model_path(run, g).display()))
        .collect();
    let path = run.join("ladder.json");
    if let Some(stored) = read_json::<GenerationLadder>(&path)?
        .filter(|l| l.report.agents == specs && l.pairs == cfg.eval.ladder_pairs)
    {
        return Ok(Some(stored));
    }
    let watch = super::timing::Stopwatch::start();
    let n = specs.len() as u64;
    progress.stage(last, "ladder", n * (n - 1) / 2 * cfg.eval.ladder_pairs * 2);
    let mut agents = super::matches::load_agents(&specs, &cfg.variant, device, cfg.seed)?;
    let variant = crate::interop::load_variant(&cfg.variant)?;
    let mut done = 0;
    let (report, _) = run_ladder(
        &Position::start(&variant),
        &mut agents,
        cfg.eval.ladder_pairs,
        &super::matches::play_options(cfg),
        cfg.seed ^ 0x1ADD,
        &mut |_| {
            done += 1;
            progress.advance(done, "");
        },
    )
    .map_err(crate::eval::EvalError::from)?;
    let ratings = relative_to_first(&report, cfg.eval.ladder_pairs)?;
    let ladder = GenerationLadder {
        generations,
        ratings,
        pairs: cfg.eval.ladder_pairs,
        report,
    };
    write_json(&path, &ladder)?;
    super::timing::replace(run, "ladder", watch.stop())?;
    Ok(Some(ladder))
}
