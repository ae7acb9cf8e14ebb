//! Running the generations. Each stage checks for its output first, so a rerun skips what is
//! done: self-play shards (and `selfplay.json`), the trained checkpoint, `match.json` and the
//! direct measurements against the anchors (`vs-gen0.json`, `vs-anchor.json`).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::config::{Gating, PipelineConfig};
use super::timing::{self, Stopwatch};
use crate::data::DataError;
use crate::eval::matches::{run_match, MatchReport, Sprt};
use crate::eval::{Agent, AgentSpec, EvalError, PlayOptions};
use crate::nn::NetworkEvaluator;
use crate::nn::{CheckpointError, Network};
use crate::report::training::loss_chart;
use crate::rules::{Position, RulesError};
use crate::search::{Evaluator, RolloutEvaluator, SearchConfig};
use crate::selfplay::teacher::TeacherError;
use crate::selfplay::{generate, GenerateSummary, Progress};
use crate::train::metrics::read_rows;
use crate::train::trainer::{train, TrainError, TrainRequest};

#[derive(Debug, thiserror::Error)]
pub enum PipelineError {
    #[error(transparent)]
    Rules(#[from] RulesError),
    #[error(transparent)]
    Data(#[from] DataError),
    #[error(transparent)]
    Checkpoint(#[from] CheckpointError),
    #[error(transparent)]
    Train(#[from] TrainError),
    #[error(transparent)]
    Eval(#[from] EvalError),
    #[error(transparent)]
    Teacher(#[from] TeacherError),
    #[error("{path}: {message}")]
    Io { path: PathBuf, message: String },
    #[error("self-play of generation {generation} elsewhere: {message}")]
    Selfplay { generation: u32, message: String },
    #[error("run directory {dir} was made with another configuration ({what} differs); use a new --run-dir")]
    ConfigChanged { dir: PathBuf, what: String },
    #[error("start_from = {path}: {message}")]
    StartFrom { path: PathBuf, message: String },
}

/// What the display is told.
pub trait PipelineProgress {
    /// A stage begins: generation, stage name, units of work.
    fn stage(&mut self, generation: u32, stage: &str, len: u64);
    fn advance(&mut self, done: u64, message: &str);
}

fn io(path: &Path) -> impl Fn(std::io::Error) -> PipelineError + '_ {
    move |e| PipelineError::Io {
        path: path.to_path_buf(),
        message: e.to_string(),
    }
}

pub(crate) fn write_json<T: Serialize>(path: &Path, value: &T) -> Result<(), PipelineError> {
    let text = serde_json::to_string_pretty(value).map_err(|e| PipelineError::Io {
        path: path.to_path_buf(),
        message: e.to_string(),
    })?;
    crate::atomic::write(path, text + "\n").map_err(|e| io(path)(e.into()))
}

/// A stage's saved result; a missing one is `None`. One that cannot be read or parsed is an
/// error naming the file: stage files are written atomically, so it was damaged, and the run
/// stops rather than redo the stage over it.
pub fn read_json<T: for<'de> Deserialize<'de>>(path: &Path) -> Result<Option<T>, PipelineError> {
    let Some(text) = crate::store::read_optional(path).map_err(|e| PipelineError::Io {
        path: path.to_path_buf(),
        message: e.to_string(),
    })?
    else {
        return Ok(None);
    };
    serde_json::from_str(&text)
        .map(Some)
        .map_err(|e| PipelineError::Io {
            path: path.to_path_buf(),
            message: format!("unreadable ({e}); restore or delete it to redo its stage"),
        })
}

pub fn generation_dir(run: &Path, g: u32) -> PathBuf {
    run.join(format!("gen-{g:03}"))
}

pub fn model_path(run: &Path, g: u32) -> PathBuf {
    generation_dir(run, g).join("model.safetensors")
}

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
}

impl SelfplaySummary {
    /// Outcomes counted from every shard in `data` (so a resumed stage counts the games of the
    /// earlier run too); speed from this run's games.
    fn of(
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
        })
    }
}

struct SelfplayBar<'a>(&'a mut dyn PipelineProgress, u64);

impl Progress for SelfplayBar<'_> {
    fn game_finished(&mut self, s: &GenerateSummary) {
        self.1 += 1;
        let n = s.games.max(1) as f64;
        let msg = format!(
            "att {:.0}% def {:.0}% draw {:.0}%, {:.0} pos/s",
            100.0 * s.attacker_wins as f64 / n,
            100.0 * s.defender_wins as f64 / n,
            100.0 * s.draws as f64 / n,
            s.positions as f64 / s.seconds.max(1e-9)
        );
        self.0.advance(self.1, &msg);
    }
}

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

/// The candidate of generation `candidate` against generation 0 (equal simulations) and the
/// classical anchor (equal time), each match stored in the candidate's directory. Every
/// generation uses the same seeds, so the candidates meet the anchors in the same openings.
fn measure_against_anchors(
    cfg: &PipelineConfig,
    run: &Path,
    candidate: u32,
    device: tch::Device,
    start: &Position,
    g: u32,
    progress: &mut dyn PipelineProgress,
) -> Result<[Option<MatchReport>; 2], PipelineError> {
    if cfg.eval.anchor_pairs == 0 {
        return Ok([None, None]);
    }
    let sims = cfg.eval.simulations;
    let net = model_path(run, candidate);
    let plans = [
        (
            "vs-gen0.json",
            "vs gen 0",
            [
                format!("net:{}:{sims}", net.display()),
                format!("net:{}:{sims}", model_path(run, 0).display()),
            ],
            0xA0,
        ),
        (
            "vs-anchor.json",
            "vs anchor",
            [
                format!("net:{}:{}", net.display(), cfg.eval.anchor_budget()),
                cfg.eval.anchor.clone(),
            ],
            0xA1,
        ),
    ];
    let mut out = [None, None];
    for (slot, (file, stage, specs, salt)) in out.iter_mut().zip(plans) {
        let plan = MatchPlan {
            specs,
            pairs: cfg.eval.anchor_pairs,
            sprt: None,
            seed: cfg.seed ^ salt,
        };
        let path = generation_dir(run, candidate).join(file);
        let report = stored_match(cfg, device, start, &path, (g, stage), plan, progress)?;
        *slot = Some(report);
    }
    Ok(out)
}

/// The match stored at `path`, or else `plan` played (as `stage` of generation `g`) and stored
/// there: a rerun never plays a stored match again.
fn stored_match(
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

/// Progress that goes nowhere: the work on the cores beside self-play is shown by its steps.
struct Unseen;

impl PipelineProgress for Unseen {
    fn stage(&mut self, _: u32, _: &str, _: u64) {}
    fn advance(&mut self, _: u64, _: &str) {}
}

/// Plays (or reads back) generation `g`'s teacher games into its `teacher/`, when the config
/// asks for them; the time goes into `stage` of the generation's book.
fn teacher_games(
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
enum Player {
    Bootstrap,
    Network(u32),
}

impl Player {
    /// The player when `best` is the newest accepted network: the bootstrap while no network
    /// has been trained and accepted (when the config has one).
    fn of(cfg: &PipelineConfig, best: u32, first: bool) -> Player {
        let untrained = cfg.start_from.is_none() && (first || (cfg.overlap && best == 0));
        if untrained && cfg.bootstrap_rollouts > 0 {
            Player::Bootstrap
        } else {
            Player::Network(best)
        }
    }

    fn generation(self) -> Option<u32> {
        match self {
            Player::Bootstrap => None,
            Player::Network(g) => Some(g),
        }
    }
}

/// Plays (or reads back) generation `g`'s self-play with `player`.
fn selfplay_stage(
    cfg: &PipelineConfig,
    run: &Path,
    (g, player): (u32, Player),
    (start, device): (&Position, tch::Device),
    progress: &mut dyn PipelineProgress,
    runner: Option<&mut (dyn SelfplayRunner + '_)>,
) -> Result<SelfplaySummary, PipelineError> {
    let dir = generation_dir(run, g);
    let data = dir.join("selfplay");
    let summary_path = dir.join("selfplay.json");
    if let Some(s) = read_json::<SelfplaySummary>(&summary_path)? {
        return Ok(s);
    }
    let watch = Stopwatch::start();
    progress.stage(g, "self-play", cfg.games_per_generation);
    let seed = cfg.seed ^ (g as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    if let Some(runner) = runner {
        let job = SelfplayJob {
            generation: g,
            variant: &cfg.variant,
            model: player.generation().map(|p| model_path(run, p)),
            rollouts: (player == Player::Bootstrap).then_some((cfg.bootstrap_rollouts, cfg.seed)),
            games: cfg.games_per_generation,
            seed,
            config: &cfg.selfplay,
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
    let mut evaluator: Box<dyn Evaluator> = match player {
        Player::Bootstrap => Box::new(RolloutEvaluator::new(cfg.bootstrap_rollouts, cfg.seed)),
        Player::Network(p) => Box::new(NetworkEvaluator::new(Network::load(
            &model_path(run, p),
            Some(variant),
            device,
        )?)),
    };
    let mut bar = SelfplayBar(progress, 0);
    let s = generate(
        start,
        evaluator.as_mut(),
        &cfg.selfplay,
        cfg.games_per_generation,
        seed,
        &data,
        &mut bar,
    )?;
    let s = SelfplaySummary::of(&data, variant, &s)?;
    write_json(&summary_path, &s)?;
    timing::record(run, Some(g), "selfplay", watch.stop())?;
    Ok(s)
}

/// The samples each generation made (self-play and teacher games), oldest first.
fn made_per_generation(
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
fn training_plan(
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
fn train_stage(
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
fn train_message(row: &crate::train::metrics::Row) -> String {
    format!(
        "{} policy {:.3} value {:.3}",
        row.split, row.policy_loss, row.value_loss
    )
}

/// Cores for the work beside self-play: every core but the one self-play takes.
fn cores_beside_selfplay() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get().saturating_sub(1).max(1))
}

/// The pool the work beside self-play runs in: `cores` threads, each a trainer with `cores`
/// libtorch threads. The role is given as each worker starts: the work runs on whichever worker
/// `install` picks, never on the thread that built the pool.
fn pool_beside_selfplay(cores: usize) -> Result<rayon::ThreadPool, rayon::ThreadPoolBuildError> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(cores)
        .start_handler(move |_| crate::nn::threads::train_here(cores))
        .build()
}

/// Generation `g`'s candidate trained (and generation g + 1's teacher games played) on the
/// cores beside the self-play of generation g + 1, which plays with `next_player` on the
/// calling thread. Returns that self-play, when there is a next generation.
#[allow(clippy::too_many_arguments)]
fn train_beside_selfplay(
    cfg: &PipelineConfig,
    run: &Path,
    g: u32,
    (init, next_player): (u32, Player),
    plan: (&[PathBuf], &crate::train::TrainConfig),
    (start, device): (&Position, tch::Device),
    progress: &mut dyn PipelineProgress,
    runner: Option<&mut (dyn SelfplayRunner + '_)>,
) -> Result<Option<SelfplaySummary>, PipelineError> {
    use std::sync::atomic::{AtomicU64, Ordering};
    let next = g + 1;
    let more = next < cfg.generations;
    let step = AtomicU64::new(0);
    let variant = start.variant().name().to_string();
    std::thread::scope(|scope| {
        let beside = scope.spawn(|| -> Result<(), PipelineError> {
            let pool =
                pool_beside_selfplay(cores_beside_selfplay()).map_err(|e| PipelineError::Io {
                    path: run.to_path_buf(),
                    message: format!("a thread pool beside self-play: {e}"),
                })?;
            pool.install(|| {
                train_stage(
                    cfg,
                    run,
                    (g, "train_beside"),
                    init,
                    plan,
                    &variant,
                    device,
                    &mut |s, _| step.store(s, Ordering::Relaxed),
                )?;
                if more {
                    let start = start.with_own_variant();
                    teacher_games(cfg, &start, run, (next, "teacher_beside"), &mut Unseen)?;
                }
                Ok(())
            })
        });
        let selfplay = if more {
            let player = (next, next_player);
            Some(selfplay_stage(
                cfg,
                run,
                player,
                (start, device),
                progress,
                runner,
            ))
        } else {
            None
        };
        // what is left of the training once self-play is done, shown and timed as waiting
        let watch = Stopwatch::start();
        let waited = !beside.is_finished();
        if waited {
            progress.stage(g, "train (beside self-play)", plan.1.steps);
            while !beside.is_finished() {
                progress.advance(step.load(Ordering::Relaxed), "");
                std::thread::sleep(std::time::Duration::from_millis(200));
            }
        }
        let done = beside.join().map_err(|_| PipelineError::Io {
            path: run.to_path_buf(),
            message: "the training beside self-play panicked".into(),
        })?;
        done?;
        if waited {
            timing::record(run, Some(g), "train", watch.stop())?;
        }
        selfplay.transpose()
    })
}

/// Runs (or resumes) the whole pipeline in `run`.
/// The checkpoint `start_from` names, checked to be one the run's settings could have made.
fn starting_network(
    cfg: &PipelineConfig,
    path: &Path,
    variant: &str,
    device: tch::Device,
) -> Result<Network, PipelineError> {
    let net = Network::load(path, Some(variant), device)?;
    let meta = &net.meta;
    let differs = if meta.architecture != cfg.network {
        Some(format!(
            "its network is {}x{}, the config's [network] {}x{}",
            meta.architecture.blocks,
            meta.architecture.channels,
            cfg.network.blocks,
            cfg.network.channels
        ))
    } else if meta.encoding_version != cfg.encoding {
        Some(format!(
            "its input encoding is {}, the config's {}",
            meta.encoding_version, cfg.encoding
        ))
    } else {
        None
    };
    match differs {
        Some(message) => Err(PipelineError::StartFrom {
            path: path.to_path_buf(),
            message,
        }),
        None => Ok(net),
    }
}

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
    // generation 0: a fresh network, or the trained one the run continues
    let first = model_path(run, 0);
    if !crate::nn::checkpoint::sidecar_path(&first).exists() {
        let mut net = match &cfg.start_from {
            Some(path) => starting_network(cfg, path, variant.name(), device)?,
            None => {
                let encoding = crate::encode::Encoding::from_version(cfg.encoding)
                    .unwrap_or(crate::encode::Encoding::CURRENT);
                Network::with_encoding(variant.name(), cfg.network, encoding, device, cfg.seed)
            }
        };
        net.meta.generation = 0;
        net.save(&first)?;
    }
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
                let s = selfplay_stage(cfg, run, (g, player), (&start, device), progress, runner)?;
                (player, s)
            }
        };
        let teacher = teacher_games(cfg, &start, run, (g, "teacher"), progress)?;
        // 2. train the best network on the replay window
        let made = made_per_generation(&records, &selfplay, teacher.as_ref());
        let (dirs, train_cfg) = training_plan(cfg, run, g, &made);
        let candidate = g + 1;
        let out = model_path(run, candidate);
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
        // 3. the candidate against the best network
        let match_path = generation_dir(run, candidate).join("match.json");
        let sims = cfg.eval.simulations;
        let plan = MatchPlan {
            specs: [
                format!("net:{}:{sims}", out.display()),
                format!("net:{}:{sims}", model_path(run, best).display()),
            ],
            pairs: cfg.eval.pairs,
            sprt: (cfg.eval.gating == Gating::Sprt)
                .then(|| Sprt::parse(&cfg.eval.sprt).ok())
                .flatten(),
            seed: cfg.seed ^ (candidate as u64).wrapping_mul(0x94D0_49BB_1331_11EB),
        };
        let measured = cfg.eval.measures(g, cfg.generations);
        let report = if measured || cfg.eval.gating != Gating::None {
            let fresh = !match_path.exists();
            let watch = Stopwatch::start();
            let report = stored_match(
                cfg,
                device,
                &start,
                &match_path,
                (g, "evaluate"),
                plan,
                progress,
            )?;
            if fresh {
                timing::record(run, Some(g), "evaluate", watch.stop())?;
            }
            Some(report)
        } else {
            None
        };
        let accepted = match (cfg.eval.gating, &report) {
            (Gating::None, _) | (_, None) => true,
            (Gating::Score, Some(r)) => r.score >= cfg.eval.threshold,
            (Gating::Sprt, Some(r)) => r.sprt.as_ref().is_some_and(|s| s.llr >= s.upper),
        };
        // 4. direct measurements of the candidate against the fixed anchors
        let cand_dir = generation_dir(run, candidate);
        let fresh =
            !(cand_dir.join("vs-gen0.json").exists() && cand_dir.join("vs-anchor.json").exists());
        let watch = Stopwatch::start();
        let [against_first, against_anchor] = if measured {
            measure_against_anchors(cfg, run, candidate, device, &start, g, progress)?
        } else {
            [None, None]
        };
        if fresh && measured {
            timing::record(run, Some(g), "anchors", watch.stop())?;
        }
        records.push(GenerationRecord {
            generation: g,
            player: player.generation(),
            selfplay,
            teacher,
            candidate_match: report,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nn::threads::{current, ensure_training_thread, train_threads};

    #[test]
    fn training_in_the_pool_beside_self_play_keeps_to_its_cores() {
        // one more than the process-wide training count, so the two cannot agree by chance
        let cores = train_threads() + 1;
        let pool = pool_beside_selfplay(cores).expect("a pool");
        let installed = pool.install(|| {
            ensure_training_thread();
            current()
        });
        let every_worker = pool.broadcast(|_| {
            ensure_training_thread();
            current()
        });
        assert_eq!(installed, cores, "the training step's libtorch threads");
        assert_eq!(
            every_worker,
            vec![cores; cores],
            "each worker's libtorch threads"
        );
    }
}
