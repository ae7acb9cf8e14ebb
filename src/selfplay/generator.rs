//! The generator: keeps `concurrent_games` games in flight in `lanes` lanes, evaluates each
//! lane's pending leaves in one batch (`lane`), on the calling thread or on worker threads
//! (`workers`), and writes each shard (games `k*G .. (k+1)*G`) once all its games are over. A
//! rerun with the same output directory skips the shards already written.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::config::SelfplayConfig;
use super::game::FinishedGame;
use super::lane::{thread_cpu_seconds, thread_queued_seconds, Lane, LaneCounters};
use super::starts::Starts;
use super::teacher::Teacher;
use super::workers::{play_lanes, Seats, WorkerTimes};
use crate::data::{write_shard, DataError};
use crate::interop::record::game_record;
use crate::rules::{Position, Side};
use crate::search::alphabeta::AlphaBetaConfig;
use crate::search::Evaluator;

#[derive(Debug, Default, Clone, serde::Serialize)]
pub struct GenerateSummary {
    pub games: u64,
    pub positions: u64,
    pub samples: u64,
    pub attacker_wins: u64,
    pub defender_wins: u64,
    pub draws: u64,
    pub evaluations: u64,
    pub batches: u64,
    pub cache_hits: u64,
    /// Games found already written by an earlier run.
    pub resumed_games: u64,
    pub seconds: f64,
    /// Core-seconds of the threads that played (every lane's tree work and forward passes).
    pub cpu_seconds: f64,
    /// Core-seconds inside the evaluator, and in the rounds around it (`lane::LaneCounters`).
    pub forward_seconds: f64,
    pub tree_seconds: f64,
    /// Wall seconds workers waited for a lane, summed over the workers.
    pub idle_seconds: f64,
    /// Seconds the threads were ready to run but had no core (other processes held them).
    pub queued_seconds: f64,
    /// Wall seconds writing shards and records.
    pub write_seconds: f64,
    /// Threads that played the lanes.
    pub workers: u64,
    /// Games that started from alpha-beta's first plies (`selfplay.starts`).
    pub alpha_beta_starts: u64,
    /// Batches by size: entry k counts batches of 2^k to 2^(k+1) - 1 evaluations.
    pub batch_sizes: Vec<u64>,
}

impl GenerateSummary {
    /// Counts a finished game: its positions, samples and outcome.
    pub(crate) fn count(&mut self, game: &FinishedGame) {
        self.games += 1;
        // positions self-play searched: alpha-beta's first plies are not its own
        self.positions += (game.moves.len() as u64).saturating_sub(game.start_ply.into());
        self.alpha_beta_starts += u64::from(game.start_ply > 0);
        self.samples += game.samples.len() as u64;
        match game.outcome.winner {
            Some(Side::Attackers) => self.attacker_wins += 1,
            Some(Side::Defenders) => self.defender_wins += 1,
            None => self.draws += 1,
        }
    }
}

/// What a caller is told as games finish (for progress bars).
pub trait Progress {
    fn game_finished(&mut self, summary: &GenerateSummary);
}

impl Progress for () {
    fn game_finished(&mut self, _: &GenerateSummary) {}
}

pub fn shard_path(dir: &Path, index: u64) -> PathBuf {
    dir.join(format!("shard-{index:05}.shard"))
}

pub fn records_path(dir: &Path, index: u64) -> PathBuf {
    dir.join(format!("games-{index:05}.txt"))
}

/// Plays `games` games from `start` into `out_dir`.
pub fn generate(
    start: &Position,
    evaluator: &mut dyn Evaluator,
    cfg: &SelfplayConfig,
    games: u64,
    seed: u64,
    out_dir: &Path,
    progress: &mut dyn Progress,
) -> Result<GenerateSummary, DataError> {
    let all = 0..shard_count(games, cfg);
    generate_shards(start, evaluator, cfg, games, seed, out_dir, all, progress)
}

/// Shards a run of `games` games is written in.
pub fn shard_count(games: u64, cfg: &SelfplayConfig) -> u64 {
    games.div_ceil(cfg.games_per_shard as u64)
}

/// The games of shard `k` of a run of `games` games.
pub(crate) fn shard_games(k: u64, games: u64, cfg: &SelfplayConfig) -> std::ops::Range<u64> {
    let per_shard = cfg.games_per_shard as u64;
    (k * per_shard)..((k + 1) * per_shard).min(games)
}

/// What is left of a run into `out_dir`: its shard count and the shards not yet written. Checks
/// (and on a first run writes) the manifest, as `generate` does, so a cluster driver finds a
/// mismatched directory before it hands out any work.
pub fn shard_plan(
    variant: &str,
    cfg: &SelfplayConfig,
    games: u64,
    seed: u64,
    out_dir: &Path,
) -> Result<(u64, Vec<u64>), DataError> {
    prepare(out_dir, variant, games, cfg.games_per_shard, seed, None)?;
    let shards = shard_count(games, cfg);
    let missing = (0..shards)
        .filter(|&k| !shard_path(out_dir, k).exists())
        .collect();
    Ok((shards, missing))
}

/// Creates `out_dir` and checks (or writes) its manifest; `teacher` plays teacher games, none
/// for self-play.
pub(crate) fn prepare(
    out_dir: &Path,
    variant: &str,
    games: u64,
    games_per_shard: usize,
    seed: u64,
    teacher: Option<&Teacher>,
) -> Result<(), DataError> {
    std::fs::create_dir_all(out_dir).map_err(|source| DataError::Io {
        action: "create directory",
        path: out_dir.to_path_buf(),
        source,
    })?;
    let mine = Manifest {
        variant: variant.into(),
        games,
        games_per_shard,
        seed,
        teacher_depth: teacher.map(|t| t.depth),
        teacher_settings: teacher
            .map(|t| &t.settings)
            .filter(|&settings| *settings != AlphaBetaConfig::default())
            .cloned(),
        teacher_nnue: teacher
            .and_then(|t| t.learned.as_ref())
            .map(|l| l.hash.clone()),
    };
    check_manifest(out_dir, mine)
}

/// Plays the games of shards `only` (of a run of `games` games) into `out_dir`: the shard files
/// and records a whole run writes for them, byte for byte (a cluster unit). Every lane
/// (`lane`) is played on the calling thread with `evaluator`, in turn.
#[allow(clippy::too_many_arguments)]
pub fn generate_shards(
    start: &Position,
    evaluator: &mut dyn Evaluator,
    cfg: &SelfplayConfig,
    games: u64,
    seed: u64,
    out_dir: &Path,
    only: std::ops::Range<u64>,
    progress: &mut dyn Progress,
) -> Result<GenerateSummary, DataError> {
    let mut run = Writer::prepare(start, cfg, games, seed, out_dir, only)?;
    let (cpu, queued) = (thread_cpu_seconds(), thread_queued_seconds());
    let starts = parse_starts(cfg)?;
    let mut lanes: Vec<Lane> = (0..cfg.lanes.max(1))
        .map(|k| Lane::new(k, &run.todo, cfg, start, starts.clone()))
        .collect();
    loop {
        let mut more = false;
        for lane in &mut lanes {
            if let Some(done) = lane.round((start, seed), cfg, evaluator) {
                more = true;
                run.take(done, progress)?;
            }
        }
        if !more {
            break;
        }
    }
    let mut counters = LaneCounters::default();
    for lane in &lanes {
        counters.add(&lane.counters());
    }
    let times = WorkerTimes {
        cpu: thread_cpu_seconds() - cpu,
        idle: 0.0,
        queued: thread_queued_seconds() - queued,
    };
    Ok(run.finish(&counters, &times, 1))
}

/// `generate_shards` with the lanes played on worker threads (`workers`): `evaluators` holds one
/// evaluator for each of `cfg.lanes` lanes, `seats` says how many of `cfg.worker_threads()`
/// workers may play at a time. The games are those `generate_shards` plays.
#[allow(clippy::too_many_arguments)]
pub fn generate_shards_on_workers(
    start: &Position,
    evaluators: Vec<Box<dyn Evaluator + Send>>,
    seats: &Seats,
    cfg: &SelfplayConfig,
    games: u64,
    seed: u64,
    out_dir: &Path,
    only: std::ops::Range<u64>,
    progress: &mut dyn Progress,
) -> Result<GenerateSummary, DataError> {
    assert_eq!(
        evaluators.len(),
        cfg.lanes.max(1),
        "one evaluator for each lane"
    );
    let mut run = Writer::prepare(start, cfg, games, seed, out_dir, only)?;
    let starts = parse_starts(cfg)?;
    let lanes = evaluators
        .into_iter()
        .enumerate()
        .map(|(k, e)| (Lane::new(k, &run.todo, cfg, start, starts.clone()), e))
        .collect();
    let threads = cfg.worker_threads();
    let (counters, times) = play_lanes(lanes, threads, seats, (start, seed), cfg, &mut |done| {
        run.take(done, progress)
    })?;
    Ok(run.finish(&counters, &times, threads))
}

/// The run's starts from alpha-beta's play, their player read once.
fn parse_starts(cfg: &SelfplayConfig) -> Result<Option<Starts>, DataError> {
    cfg.starts
        .as_ref()
        .map(|c| {
            Starts::new(c).map_err(|e| DataError::Teacher {
                spec: c.agent.clone(),
                message: e.to_string(),
            })
        })
        .transpose()
}

/// A run's finished games on their way to the shards: each shard is written once all its games
/// are over, in order.
struct Writer<'a> {
    start: &'a Position,
    out_dir: &'a Path,
    games: u64,
    per_shard: u64,
    /// The games to play (those of the shards not yet written), in order.
    todo: Vec<u64>,
    shards: std::iter::Peekable<std::vec::IntoIter<u64>>,
    finished: BTreeMap<u64, FinishedGame>,
    summary: GenerateSummary,
    clock: std::time::Instant,
}

impl<'a> Writer<'a> {
    fn prepare(
        start: &'a Position,
        cfg: &SelfplayConfig,
        games: u64,
        seed: u64,
        out_dir: &'a Path,
        only: std::ops::Range<u64>,
    ) -> Result<Writer<'a>, DataError> {
        let clock = std::time::Instant::now();
        prepare(
            out_dir,
            start.variant().name(),
            games,
            cfg.games_per_shard,
            seed,
            None,
        )?;
        let shards = shard_count(games, cfg);
        // shards written by an earlier run are kept; play only the missing ones
        let (done, todo): (Vec<u64>, Vec<u64>) = (0..shards)
            .filter(|k| only.contains(k))
            .partition(|&k| shard_path(out_dir, k).exists());
        let summary = GenerateSummary {
            resumed_games: done
                .iter()
                .map(|&k| shard_games(k, games, cfg).count() as u64)
                .sum(),
            ..Default::default()
        };
        Ok(Writer {
            start,
            out_dir,
            games,
            per_shard: cfg.games_per_shard as u64,
            todo: todo
                .iter()
                .flat_map(|&k| shard_games(k, games, cfg))
                .collect(),
            shards: todo.into_iter().peekable(),
            finished: BTreeMap::new(),
            summary,
            clock,
        })
    }

    /// Counts `done`, tells `progress`, and writes every shard whose games are all over.
    fn take(
        &mut self,
        done: Vec<FinishedGame>,
        progress: &mut dyn Progress,
    ) -> Result<(), DataError> {
        for game in done {
            self.summary.count(&game);
            self.summary.seconds = self.clock.elapsed().as_secs_f64();
            progress.game_finished(&self.summary);
            self.finished.insert(game.id, game);
        }
        while let Some(&k) = self.shards.peek() {
            let ids = (k * self.per_shard)..((k + 1) * self.per_shard).min(self.games);
            if !ids.clone().all(|id| self.finished.contains_key(&id)) {
                break;
            }
            let written = std::time::Instant::now();
            let games: Vec<FinishedGame> = ids.filter_map(|id| self.finished.remove(&id)).collect();
            write_shard_files(self.start, self.out_dir, k, &games)?;
            self.summary.write_seconds += written.elapsed().as_secs_f64();
            self.shards.next();
        }
        Ok(())
    }

    fn finish(mut self, c: &LaneCounters, times: &WorkerTimes, workers: usize) -> GenerateSummary {
        let s = &mut self.summary;
        s.evaluations = c.evaluations;
        s.batches = c.batches;
        s.cache_hits = c.cache_hits;
        s.forward_seconds = c.forward_seconds;
        s.tree_seconds = c.tree_seconds;
        s.batch_sizes = c.batch_sizes.to_vec();
        s.cpu_seconds = times.cpu;
        s.idle_seconds = times.idle;
        s.queued_seconds = times.queued;
        s.workers = workers as u64;
        s.seconds = self.clock.elapsed().as_secs_f64();
        self.summary
    }
}

/// What a run into `dir` is: a rerun must be the same run to continue it.
#[derive(serde::Serialize, serde::Deserialize, PartialEq, Debug)]
struct Manifest {
    variant: String,
    games: u64,
    games_per_shard: usize,
    seed: u64,
    /// Teacher games (`selfplay::teacher`) at this depth; absent for self-play, so a teacher
    /// run never continues a self-play directory or the other way round.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    teacher_depth: Option<u32>,
    /// The teacher's alpha-beta settings where they are not the compiled ones
    /// (`ab:D:eval=FILE`), so a teacher with other settings never continues the directory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    teacher_settings: Option<AlphaBetaConfig>,
    /// The hash of the teacher's learned evaluation (`ab:D:nnue=FILE`), so games of another
    /// network never continue the directory, whatever its file is called.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    teacher_nnue: Option<String>,
}

fn check_manifest(dir: &Path, mine: Manifest) -> Result<(), DataError> {
    let path = dir.join("manifest.json");
    let stored = crate::store::read_optional(&path).map_err(|e| DataError::RunMismatch {
        path: path.clone(),
        message: e.to_string(),
    })?;
    if let Some(text) = stored {
        let theirs: Manifest = serde_json::from_str(&text).map_err(|e| DataError::RunMismatch {
            path: path.clone(),
            message: format!("unreadable manifest: {e}"),
        })?;
        if theirs != mine {
            return Err(DataError::RunMismatch {
                path,
                message: format!("it holds {theirs:?}, this run is {mine:?}"),
            });
        }
        return Ok(());
    }
    let text = serde_json::to_string_pretty(&mine).map_err(|e| DataError::RunMismatch {
        path: path.clone(),
        message: format!("cannot write the manifest: {e}"),
    })?;
    Ok(crate::atomic::write(&path, &text)?)
}

/// The records first, then the shard: a shard's presence means its games are complete.
pub(crate) fn write_shard_files(
    start: &Position,
    dir: &Path,
    index: u64,
    games: &[FinishedGame],
) -> Result<(), DataError> {
    let variant = start.variant();
    let mut text = String::new();
    for g in games {
        text += &format!("# game {}\n", g.id);
        text += &game_record(variant, &g.moves, Some(g.outcome));
    }
    let records = records_path(dir, index);
    crate::atomic::write(&records, text)?;
    let samples: Vec<_> = games
        .iter()
        .flat_map(|g| g.samples.iter().cloned())
        .collect();
    write_shard(&shard_path(dir, index), variant.name(), &samples)
}
