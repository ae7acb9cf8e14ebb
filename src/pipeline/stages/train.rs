//! Training: the replay window a candidate trains on, and the training itself.

use std::path::{Path, PathBuf};

use crate::nn::Network;
use crate::pipeline::config::PipelineConfig;
use crate::pipeline::error::PipelineError;
use crate::pipeline::files::{generation_dir, io, model_path, write_json};
use crate::pipeline::summary::{GenerationRecord, SelfplaySummary};
use crate::pipeline::timing::{self, Stopwatch};
use crate::report::training::loss_chart;
use crate::train::metrics::read_rows;
use crate::train::trainer::{train, TrainError, TrainRequest};

/// The samples each generation made (self-play and teacher games), oldest first.
pub(crate) fn made_per_generation(
    records: &[GenerationRecord],
    selfplay: &SelfplaySummary,
    teacher: Option<&SelfplaySummary>,
) -> Vec<u64> {
    let made =
        |s: &SelfplaySummary, t: Option<&SelfplaySummary>| s.samples + t.map_or(0, |t| t.samples);
    records
        .iter()
        .map(|r| made(&r.selfplay, r.teacher.as_ref()))
        .chain(std::iter::once(made(selfplay, teacher)))
        .collect()
}

/// What generation `g`'s candidate trains on: the newest generations whose samples fill the
/// window (at most `window_generations` of them), oldest first, and the training settings with
/// the window and the steps `[replay]` gives.
pub(crate) fn training_plan(
    cfg: &PipelineConfig,
    run: &Path,
    g: u32,
    made: &[u64],
) -> (Vec<PathBuf>, crate::train::TrainConfig) {
    let window = cfg.replay.window(made.iter().sum(), cfg.train.window);
    let new = made.last().copied().unwrap_or(0);
    let steps = cfg.replay.steps(new, cfg.train.batch_size, cfg.train.steps);
    let first_gen = (g + 1).saturating_sub(cfg.window_generations);
    let mut held = 0u64;
    let mut gens = Vec::new();
    for k in (first_gen..=g).rev() {
        gens.push(k);
        held += made.get(k as usize).copied().unwrap_or(0);
        if held >= window as u64 {
            break;
        }
    }
    let dirs = gens
        .into_iter()
        .rev()
        .flat_map(|k| {
            let gen = generation_dir(run, k);
            let teacher = (cfg.teacher.games > 0).then(|| gen.join("teacher"));
            std::iter::once(gen.join("selfplay")).chain(teacher)
        })
        .collect();
    let train = crate::train::TrainConfig {
        steps,
        window,
        ..cfg.train.clone()
    };
    (dirs, train)
}

/// Trains generation `g`'s candidate (generation g + 1) from the network `init` on `dirs`,
/// unless it exists; the time goes into `stage` of generation g's book.
#[allow(clippy::too_many_arguments)]
pub(crate) fn train_stage(
    cfg: &PipelineConfig,
    run: &Path,
    (g, stage): (u32, &str),
    init: u32,
    (dirs, train_cfg): (&[PathBuf], &crate::train::TrainConfig),
    variant: &str,
    device: tch::Device,
    on_step: &mut dyn FnMut(u64, &crate::train::metrics::Row),
) -> Result<(), PipelineError> {
    let candidate = g + 1;
    let out = model_path(run, candidate);
    // the sidecar is written last: it marks a whole checkpoint
    if crate::nn::checkpoint::sidecar_path(&out).exists() {
        return Ok(());
    }
    let watch = Stopwatch::start();
    let init = model_path(run, init);
    let run_dir = generation_dir(run, candidate).join("train");
    let seed = cfg.seed ^ (candidate as u64).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    let req = TrainRequest {
        data: dirs,
        init: &init,
        out: &out,
        run_dir: &run_dir,
        config: train_cfg,
        seed,
        device,
        resume: true,
        stop_at: None,
    };
    let trained = train(&req, on_step)?;
    if trained.finished {
        let rows = read_rows(&run_dir.join("metrics.csv")).map_err(TrainError::from)?;
        let chart = run_dir.join("loss.svg");
        loss_chart(&rows, &chart).map_err(|e| io(&chart)(e.into()))?;
    }
    // what it trained on: its samples from the window's self-play and teacher games
    write_json(&generation_dir(run, candidate).join("train.json"), &trained)?;
    let mut net = Network::load(&out, Some(variant), device)?;
    net.meta.generation = candidate as u64;
    net.save(&out)?;
    timing::record(run, Some(g), stage, watch.stop())?;
    Ok(())
}

/// The training message of a step's metrics row.
pub(crate) fn train_message(row: &crate::train::metrics::Row) -> String {
    format!(
        "{} policy {:.3} value {:.3}",
        row.split, row.policy_loss, row.value_loss
    )
}
