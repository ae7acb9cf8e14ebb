//! Self-play: a generation's games by its player (the pure-MCTS bootstrap or a network), here
//! or by a runner elsewhere, and its teacher games.

use std::path::{Path, PathBuf};

use crate::nn::{Network, NetworkEvaluator};
use crate::pipeline::config::PipelineConfig;
use crate::pipeline::error::PipelineError;
use crate::pipeline::files::{generation_dir, model_path, read_json, write_json};
use crate::pipeline::progress::{PipelineProgress, SelfplayBar};
use crate::pipeline::summary::SelfplaySummary;
use crate::pipeline::timing::{self, Stopwatch};
use crate::rules::Position;
use crate::search::{Evaluator, RolloutEvaluator};
use crate::selfplay::{generate_shards_on_workers, shard_count, Seats, SelfplayConfig};

/// A generation's self-play as `tavlei selfplay` would play it: a runner elsewhere (a cluster)
/// that writes these shards into `out` gives the bytes the pipeline itself would write.
#[derive(Debug)]
pub struct SelfplayJob<'a> {
    pub generation: u32,
    /// The variant as the config names it.
    pub variant: &'a str,
    /// The network playing (none when pure MCTS bootstraps the run).
    pub model: Option<PathBuf>,
    /// Rollouts per leaf of the bootstrap, and the seed of their random numbers.
    pub rollouts: Option<(usize, u64)>,
    pub games: u64,
    pub seed: u64,
    pub config: &'a crate::selfplay::SelfplayConfig,
    pub out: &'a Path,
}

/// Plays a generation's self-play somewhere else before the pipeline looks at its shards (the
/// pipeline plays whatever it finds missing).
pub trait SelfplayRunner {
    fn run(&mut self, job: &SelfplayJob) -> Result<(), String>;
}

/// Plays (or reads back) generation `g`'s teacher games into its `teacher/`, when the config
/// asks for them; the time goes into `stage` of the generation's book.
pub(crate) fn teacher_games(
    cfg: &PipelineConfig,
    start: &Position,
    run: &Path,
    (g, stage): (u32, &str),
    progress: &mut dyn PipelineProgress,
) -> Result<Option<SelfplaySummary>, PipelineError> {
    let Some(teacher) = cfg.teacher.teacher()? else {
        return Ok(None);
    };
    let dir = generation_dir(run, g);
    let summary_path = dir.join("teacher.json");
    if let Some(s) = read_json::<SelfplaySummary>(&summary_path)? {
        return Ok(Some(s));
    }
    let watch = Stopwatch::start();
    progress.stage(g, "teacher games", cfg.teacher.games);
    let data = dir.join("teacher");
    let seed = cfg.seed ^ (g as u64 + 1).wrapping_mul(0xD6E8_FEB8_6659_FD93);
    let mut bar = SelfplayBar(progress, 0);
    let s = crate::selfplay::generate_teacher(
        start,
        &teacher,
        &cfg.selfplay,
        cfg.teacher.games,
        seed,
        &data,
        &mut bar,
    )?;
    let s = SelfplaySummary::of(&data, start.variant().name(), &s)?;
    write_json(&summary_path, &s)?;
    timing::record(run, Some(g), stage, watch.stop())?;
    Ok(Some(s))
}

/// Who plays a generation's self-play: the pure-MCTS bootstrap or a generation's network.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Player {
    Bootstrap,
    Network(u32),
}

impl Player {
    /// The player when `best` is the newest accepted network: the bootstrap while no network
    /// has been trained and accepted (when the config has one).
    pub(crate) fn of(cfg: &PipelineConfig, best: u32, first: bool) -> Player {
        let untrained = cfg.start_from.is_none() && (first || (cfg.overlap && best == 0));
        if untrained && cfg.bootstrap_rollouts > 0 {
            Player::Bootstrap
        } else {
            Player::Network(best)
        }
    }

    pub(crate) fn generation(self) -> Option<u32> {
        match self {
            Player::Bootstrap => None,
            Player::Network(g) => Some(g),
        }
    }
}

/// Plays (or reads back) generation `g`'s self-play with `player`, on as many workers as `seats`
/// lets play (`selfplay::workers`).
pub(crate) fn selfplay_stage(
    cfg: &PipelineConfig,
    run: &Path,
    (g, player): (u32, Player),
    (start, device): (&Position, tch::Device),
    progress: &mut dyn PipelineProgress,
    runner: Option<&mut (dyn SelfplayRunner + '_)>,
    seats: &Seats,
) -> Result<SelfplaySummary, PipelineError> {
    let dir = generation_dir(run, g);
    let data = dir.join("selfplay");
    let summary_path = dir.join("selfplay.json");
    if let Some(s) = read_json::<SelfplaySummary>(&summary_path)? {
        return Ok(s);
    }
    let watch = Stopwatch::start();
    progress.stage(g, "self-play", cfg.games_per_generation);
    let selfplay = &generation_selfplay(cfg, run, g)?;
    let seed = cfg.seed ^ (g as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    if let Some(runner) = runner {
        let job = SelfplayJob {
            generation: g,
            variant: &cfg.variant,
            model: player.generation().map(|p| model_path(run, p)),
            rollouts: (player == Player::Bootstrap).then_some((cfg.bootstrap_rollouts, cfg.seed)),
            games: cfg.games_per_generation,
            seed,
            config: selfplay,
            out: &data,
        };
        runner
            .run(&job)
            .map_err(|message| PipelineError::Selfplay {
                generation: g,
                message,
            })?;
    }
    let variant = start.variant().name();
    // one evaluator for each lane: a lane's forward passes never wait for another's
    let evaluators = (0..selfplay.lanes.max(1))
        .map(|_| -> Result<Box<dyn Evaluator + Send>, PipelineError> {
            Ok(match player {
                Player::Bootstrap => {
                    Box::new(RolloutEvaluator::new(cfg.bootstrap_rollouts, cfg.seed))
                }
                Player::Network(p) => Box::new(NetworkEvaluator::with_precision(
                    Network::load(&model_path(run, p), Some(variant), device)?,
                    selfplay.precision,
                )),
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let mut bar = SelfplayBar(progress, 0);
    let shards = 0..shard_count(cfg.games_per_generation, selfplay);
    let s = generate_shards_on_workers(
        start,
        evaluators,
        seats,
        selfplay,
        cfg.games_per_generation,
        seed,
        &data,
        shards,
        &mut bar,
    )?;
    let mut s = SelfplaySummary::of(&data, variant, &s)?;
    s.attacker_search_ratio = selfplay.attacker_search_ratio as f64;
    write_json(&summary_path, &s)?;
    timing::record(run, Some(g), "selfplay", watch.stop())?;
    Ok(s)
}

/// Generation `g`'s self-play settings: the config's, with the attackers' search ratio that
/// `[side_budgets]` makes of the previous generation's (read from its summary, so a resumed run
/// plays the ratio it would have played).
fn generation_selfplay(
    cfg: &PipelineConfig,
    run: &Path,
    g: u32,
) -> Result<SelfplayConfig, PipelineError> {
    let mut selfplay = cfg.selfplay.clone();
    if !cfg.side_budgets.on() || g == 0 {
        return Ok(selfplay);
    }
    let previous = generation_dir(run, g - 1).join("selfplay.json");
    if let Some(p) = read_json::<SelfplaySummary>(&previous)? {
        let ratio =
            cfg.side_budgets
                .next_ratio(p.attacker_search_ratio, p.attacker_wins, p.draws, p.games);
        selfplay.attacker_search_ratio = ratio as f32;
    }
    Ok(selfplay)
}
