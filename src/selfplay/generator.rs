//! The generator: keeps `concurrent_games` games in flight, evaluates all their pending leaves in
//! one batch, and writes each shard (games `k*G .. (k+1)*G`) once all its games are over. A
//! rerun with the same output directory skips the shards already written.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::config::SelfplayConfig;
use super::game::{FinishedGame, Game};
use super::teacher::Teacher;
use crate::data::{write_shard, DataError};
use crate::interop::record::game_record;
use crate::rules::{Position, Side};
use crate::search::alphabeta::AlphaBetaConfig;
use crate::search::mcts::batch::evaluate_pending;
use crate::search::mcts::cache::EvalCache;
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
}

impl GenerateSummary {
    /// Counts a finished game: its positions, samples and outcome.
    pub(crate) fn count(&mut self, game: &FinishedGame) {
        self.games += 1;
        self.positions += game.moves.len() as u64;
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
    };
    check_manifest(out_dir, mine)
}

/// Plays the games of shards `only` (of a run of `games` games) into `out_dir`: the shard files
/// and records a whole run writes for them, byte for byte (a cluster unit).
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
    let shard_games = |k: u64| shard_games(k, games, cfg);
    // shards written by an earlier run are kept; play only the missing ones
    let (done, todo): (Vec<u64>, Vec<u64>) = (0..shards)
        .filter(|k| only.contains(k))
        .partition(|&k| shard_path(out_dir, k).exists());
    let mut summary = GenerateSummary {
        resumed_games: done.iter().map(|&k| shard_games(k).count() as u64).sum(),
        ..Default::default()
    };
    let mut queue = todo.iter().flat_map(|&k| shard_games(k));
    let mut cache = EvalCache::for_variant(cfg.cache_size, start.variant());
    let mut active: Vec<Game> = Vec::new();
    let mut finished: BTreeMap<u64, FinishedGame> = BTreeMap::new();
    let mut next_shard = todo.iter().copied().peekable();
    loop {
        while active.len() < cfg.concurrent_games {
            match queue.next() {
                Some(id) => active.push(Game::new(id, start, seed, cfg)),
                None => break,
            }
        }
        if active.is_empty() {
            break;
        }
        // every game runs to its next leaf; finished ones leave
        let mut waiting = Vec::with_capacity(active.len());
        for game in active.drain(..) {
            match game.advance(cfg, &mut cache) {
                Ok(game) => waiting.push(game),
                Err(done) => {
                    summary.count(&done);
                    summary.seconds = clock.elapsed().as_secs_f64();
                    progress.game_finished(&summary);
                    finished.insert(done.id, done);
                }
            }
        }
        // one batch for every pending leaf
        let mut searches: Vec<_> = waiting.iter_mut().map(Game::waiting).collect();
        let evaluated = evaluate_pending(&mut searches, evaluator, Some(&mut cache));
        if evaluated > 0 {
            summary.evaluations += evaluated as u64;
            summary.batches += 1;
        }
        active = waiting;
        // write every shard whose games are all finished
        while let Some(&k) = next_shard.peek() {
            let ids = shard_games(k);
            if !ids.clone().all(|id| finished.contains_key(&id)) {
                break;
            }
            let done: Vec<FinishedGame> = ids.filter_map(|id| finished.remove(&id)).collect();
            write_shard_files(start, out_dir, k, &done)?;
            next_shard.next();
        }
    }
    summary.cache_hits = cache.hits;
    summary.seconds = clock.elapsed().as_secs_f64();
    Ok(summary)
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
