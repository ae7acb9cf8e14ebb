//! The paired matches a run plays (gating, anchors, the ladder, balance), each stored so a rerun
//! never plays it again.

use std::path::Path;

use super::config::PipelineConfig;
use super::error::PipelineError;
use super::files::{read_json, write_json};
use super::progress::PipelineProgress;
use crate::eval::matches::{run_match, MatchReport, Sprt};
use crate::eval::{Agent, AgentSpec, PlayOptions};
use crate::rules::Position;
use crate::search::SearchConfig;

pub(crate) fn play_options(cfg: &PipelineConfig) -> PlayOptions {
    PlayOptions {
        concurrent: cfg.eval.concurrent,
        search: SearchConfig {
            dirichlet_epsilon: 0.0,
            ..cfg.selfplay.search.clone()
        },
        ..PlayOptions::default()
    }
}

/// A paired match to play: two agent specs, pairs, an optional SPRT stop, the seed.
pub struct MatchPlan {
    pub specs: [String; 2],
    pub pairs: u64,
    pub sprt: Option<Sprt>,
    pub seed: u64,
}

/// Agents from their specs, for `variant`.
pub(crate) fn load_agents(
    specs: &[String],
    variant: &str,
    device: tch::Device,
    seed: u64,
) -> Result<Vec<Agent>, PipelineError> {
    let specs = specs
        .iter()
        .map(|s| AgentSpec::parse(s))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Agent::load_all(&specs, variant, device, seed)?)
}

/// A paired match of two agents, with progress.
pub fn agents_match(
    cfg: &PipelineConfig,
    device: tch::Device,
    start: &Position,
    plan: MatchPlan,
    progress: &mut dyn PipelineProgress,
) -> Result<MatchReport, PipelineError> {
    let MatchPlan {
        specs,
        pairs,
        sprt,
        seed,
    } = plan;
    let mut agents = load_agents(&specs, &cfg.variant, device, seed)?;
    let mut done = 0;
    let (report, _) = run_match(
        start,
        &mut agents,
        pairs,
        sprt,
        &play_options(cfg),
        seed,
        &mut |_| {
            done += 1;
            progress.advance(done, "");
        },
    );
    Ok(report)
}

/// The match stored at `path`, or else `plan` played (as `stage` of generation `g`) and stored
/// there: a rerun never plays a stored match again.
pub(crate) fn stored_match(
    cfg: &PipelineConfig,
    device: tch::Device,
    start: &Position,
    path: &Path,
    (g, stage): (u32, &str),
    plan: MatchPlan,
    progress: &mut dyn PipelineProgress,
) -> Result<MatchReport, PipelineError> {
    if let Some(stored) = read_json::<MatchReport>(path)? {
        return Ok(stored);
    }
    progress.stage(g, stage, plan.pairs * 2);
    let report = agents_match(cfg, device, start, plan, progress)?;
    write_json(path, &report)?;
    Ok(report)
}
