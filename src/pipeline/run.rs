//! The scheduler: a run's directory and its frozen config, generation 0, then each generation's
//! stages in order (`stages`), the training beside the next self-play when the config overlaps
//! them (`overlap`).

use std::path::Path;

use super::config::PipelineConfig;
use super::error::PipelineError;
use super::files::{io, read_json, write_json};
use super::overlap::train_beside_selfplay;
use super::progress::PipelineProgress;
use super::stages::evaluate::{evaluate_stage, Evaluation};
use super::stages::init::first_network;
use super::stages::selfplay::{selfplay_stage, teacher_games, Player, SelfplayRunner};
use super::stages::train::{made_per_generation, train_message, train_stage, training_plan};
use super::summary::{GenerationRecord, SelfplaySummary};
use crate::rules::Position;
use crate::selfplay::Seats;

/// The run directory's layout, where callers have always found it.
pub use super::files::{generation_dir, model_path};

/// Runs (or resumes) the whole pipeline in `run`.
pub fn run_pipeline(
    cfg: &PipelineConfig,
    run: &Path,
    device: tch::Device,
    progress: &mut dyn PipelineProgress,
) -> Result<Vec<GenerationRecord>, PipelineError> {
    run_pipeline_with(cfg, run, device, progress, None)
}

/// `run_pipeline` with each generation's self-play handed to `runner` first.
pub fn run_pipeline_with(
    cfg: &PipelineConfig,
    run: &Path,
    device: tch::Device,
    progress: &mut dyn PipelineProgress,
    mut runner: Option<&mut dyn SelfplayRunner>,
) -> Result<Vec<GenerationRecord>, PipelineError> {
    std::fs::create_dir_all(run).map_err(io(run))?;
    // what a killed invocation was writing: stages found done are not written again
    crate::atomic::remove_leftovers(run).map_err(io(run))?;
    // the run directory keeps the config that made it; only more generations may be asked for
    let frozen = run.join("config.json");
    if let Some(old) = read_json::<PipelineConfig>(&frozen)? {
        let same = PipelineConfig {
            generations: cfg.generations,
            ..old.clone()
        } == *cfg;
        if !same {
            return Err(PipelineError::ConfigChanged {
                dir: run.to_path_buf(),
                what: "a setting other than `generations`".into(),
            });
        }
    }
    write_json(&frozen, cfg)?;
    let variant = crate::interop::load_variant(&cfg.variant)?;
    let start = Position::start(&variant);
    first_network(cfg, run, variant.name(), device)?;
    let mut records: Vec<GenerationRecord> = Vec::new();
    let mut best = 0u32;
    // the self-play of the generation about to start, when it was played beside the training
    let mut played: Option<(Player, SelfplaySummary)> = None;
    let mut next_player = Player::of(cfg, best, true);
    for g in 0..cfg.generations {
        // 1. self-play (unless it was played beside the last training) and teacher games
        let (player, selfplay) = match played.take() {
            Some(done) => done,
            None => {
                let player = if cfg.overlap {
                    next_player
                } else {
                    Player::of(cfg, best, g == 0)
                };
                let runner = runner.as_deref_mut();
                let seats = Seats::new(cfg.selfplay.worker_threads());
                let s = selfplay_stage(
                    cfg,
                    run,
                    (g, player),
                    (&start, device),
                    progress,
                    runner,
                    &seats,
                )?;
                (player, s)
            }
        };
        let teacher = teacher_games(cfg, &start, run, (g, "teacher"), progress)?;
        // 2. train the best network on the replay window
        let made = made_per_generation(&records, &selfplay, teacher.as_ref());
        let (dirs, train_cfg) = training_plan(cfg, run, g, &made);
        let candidate = g + 1;
        if cfg.overlap {
            // the next generation's self-play plays with the newest accepted network now
            next_player = Player::of(cfg, best, false);
            let runner = runner.as_deref_mut();
            if let Some(s) = train_beside_selfplay(
                cfg,
                run,
                g,
                (best, next_player),
                (&dirs, &train_cfg),
                (&start, device),
                progress,
                runner,
            )? {
                played = Some((next_player, s));
            }
        } else {
            progress.stage(g, "train", train_cfg.steps);
            train_stage(
                cfg,
                run,
                (g, "train"),
                best,
                (&dirs, &train_cfg),
                variant.name(),
                device,
                &mut |step, row| progress.advance(step, &train_message(row)),
            )?;
        }
        // 3. the candidate against the best network, 4. and against the fixed anchors
        let Evaluation {
            candidate_match,
            accepted,
            against_first,
            against_anchor,
        } = evaluate_stage(cfg, run, (g, best), (&start, device), progress)?;
        records.push(GenerationRecord {
            generation: g,
            player: player.generation(),
            selfplay,
            teacher,
            candidate_match,
            against_first,
            against_anchor,
            accepted,
        });
        if accepted {
            best = candidate;
        }
        write_json(
            &run.join("state.json"),
            &serde_json::json!({ "generations_done": g + 1, "best": best }),
        )?;
    }
    Ok(records)
}
