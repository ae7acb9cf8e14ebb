//! The closing balance table: the best network plays both sides of a variant's games at the
//! evaluation's simulations, stored under `balance/` like any balance study (so a rerun resumes).

use std::path::Path;

use super::config::PipelineConfig;
use super::files::model_path;
use super::{PipelineError, PipelineProgress};
use crate::eval::balance::{run_balance, store_path, BalanceReport};
use crate::eval::game_store::stored_ids;
use crate::eval::{Agent, AgentSpec, PlayOptions};
use crate::rules::Position;

/// Plays `games` self-play games of generation `best`'s network and summarises their balance.
pub fn closing_balance(
    cfg: &PipelineConfig,
    run: &Path,
    best: u32,
    games: u64,
    device: tch::Device,
    progress: &mut dyn PipelineProgress,
) -> Result<BalanceReport, PipelineError> {
    let variant = crate::interop::load_variant(&cfg.variant)?;
    let sims = cfg.eval.simulations;
    let spec = AgentSpec::parse(&format!("net:{}:{sims}", model_path(run, best).display()))?;
    let agent = Agent::load(&spec, variant.name(), device, cfg.seed)?;
    let store = store_path(
        &run.join("balance"),
        variant.name(),
        &format!("gen{best}-{sims}"),
    );
    let opts = PlayOptions {
        concurrent: cfg.eval.concurrent,
        ..PlayOptions::default()
    };
    progress.stage(cfg.generations.saturating_sub(1), "balance", games);
    let stored = stored_ids(&store)?.len() as u64;
    let watch = super::timing::Stopwatch::start();
    let mut done = 0;
    let report = run_balance(
        &Position::start(&variant),
        agent,
        games,
        &opts,
        cfg.seed,
        &store,
        &mut |_| {
            done += 1;
            progress.advance(done, "");
        },
    )?;
    // timed when this invocation played games (a rerun that found them all stored did not)
    if stored < games {
        super::timing::replace(run, "balance", watch.stop())?;
    }
    Ok(report)
}
