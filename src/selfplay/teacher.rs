//! Teacher games: alpha-beta plays both sides, and each of its moves becomes a training sample
//! (a one-hot policy target on the move it chose, its score as the search value, the game's
//! result as the value target). Self-play at a few dozen simulations a move almost never lets
//! the attackers win, so their value is -1 everywhere and their moves learn nothing; a deeper
//! classical search wins a share of games on both sides (experiments/balance-study), and its
//! games put attacking play and attacker wins into the replay window. The shards and records are
//! those of self-play, so `tavlei data`, training and the NumPy export read them alike.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tavlei_nnue::{Network, NnueError};

use super::config::SelfplayConfig;
use super::game::{game_seed, sample_at, FinishedGame};
use super::generator::{prepare, shard_count, shard_games, shard_path, write_shard_files};
use super::{GenerateSummary, Progress};
use crate::config::ConfigError;
use crate::data::checksum::content_hash;
use crate::data::DataError;
use crate::encode::policy::policy_index;
use crate::rules::Position;
use crate::search::alphabeta::{
    AbResult, AlphaBeta, AlphaBetaConfig, LearnedEval, Limit, SpecFiles,
};

/// A teacher: alpha-beta to a fixed depth (a depth, not a time, so its games are reproducible),
/// with the compiled settings or those of a file (`ab:D:eval=FILE`, e.g. a quiescence search),
/// and the compiled evaluation or a learned one (`ab:D:nnue=FILE`).
#[derive(Clone, Debug)]
pub struct Teacher {
    pub depth: u32,
    pub settings: AlphaBetaConfig,
    pub learned: Option<TeacherNetwork>,
    /// The text it was parsed from.
    pub spec: String,
}

/// A teacher's learned evaluation, with the hash of its file's bytes: the manifest keeps the
/// hash, so a network retrained under the same name never continues a teacher directory.
#[derive(Clone, Debug)]
pub struct TeacherNetwork {
    pub file: PathBuf,
    /// `data::content_hash` of the file's bytes, as match stores name their files.
    pub hash: String,
    pub network: Arc<Network>,
}

/// Why a teacher spec names no teacher.
#[derive(Debug, thiserror::Error)]
pub enum TeacherError {
    #[error(
        "teacher `{0}` is not alpha-beta at a depth (expected ab:D, ab:D:eval=FILE or \
         ab:D:nnue=FILE, like ab:4)"
    )]
    NotADepth(String),
    #[error("teacher `{spec}`: {source}")]
    Settings { spec: String, source: ConfigError },
    #[error("teacher `{spec}`: {source}")]
    Learned {
        spec: String,
        source: Box<NnueError>,
    },
}

impl Teacher {
    /// `ab:D` (D > 0), with `:eval=FILE` and `:nnue=FILE` in either order as in an agent spec;
    /// each file read and checked.
    pub fn parse(spec: &str) -> Result<Teacher, TeacherError> {
        let not_a_depth = || TeacherError::NotADepth(spec.to_string());
        let mut parts: Vec<&str> = spec.trim().split(':').collect();
        let files = SpecFiles::take(&mut parts).map_err(|_| not_a_depth())?;
        let depth = match parts.as_slice() {
            ["ab", depth] => depth.parse::<u32>().ok().filter(|&d| d > 0),
            _ => None,
        }
        .ok_or_else(not_a_depth)?;
        let settings = match &files.eval {
            Some(file) => AlphaBetaConfig::load(file).map_err(|source| TeacherError::Settings {
                spec: spec.to_string(),
                source,
            })?,
            None => AlphaBetaConfig::default(),
        };
        let learned = files
            .nnue
            .map(|file| {
                TeacherNetwork::load(file).map_err(|source| TeacherError::Learned {
                    spec: spec.to_string(),
                    source: Box::new(source),
                })
            })
            .transpose()?;
        Ok(Teacher {
            depth,
            settings,
            learned,
            spec: spec.to_string(),
        })
    }

    /// The teacher's search for one game (a fresh one per game, so a move depends only on the
    /// position and the game).
    pub(crate) fn search(&self, seed: u64) -> AlphaBeta {
        let search = AlphaBeta::new(self.settings.clone(), seed);
        match &self.learned {
            Some(learned) => search.with_learned(LearnedEval::new(Arc::clone(&learned.network))),
            None => search,
        }
    }

    /// The teacher's move in `position` (not over) in the game that `varying` names, with its
    /// opening noise where `noisy`. A fresh table each move: a move depends only on the
    /// position and the game.
    pub(crate) fn choose(
        &self,
        ab: &mut AlphaBeta,
        position: &Position,
        varying: u64,
        noisy: bool,
    ) -> AbResult {
        ab.clear();
        let noise = if noisy { ab.opening_noise(1.0) } else { 0 };
        ab.vary(varying, noise);
        ab.search(position, Limit::Depth(self.depth))
    }
}

impl TeacherNetwork {
    fn load(file: PathBuf) -> Result<TeacherNetwork, NnueError> {
        let bytes = std::fs::read(&file).map_err(|source| NnueError::Io {
            path: file.clone(),
            source,
        })?;
        let network = Network::from_bytes(&file, &bytes)?;
        let hash = content_hash(&bytes);
        Ok(TeacherNetwork {
            file,
            hash,
            network: Arc::new(network),
        })
    }
}

/// Plays `games` teacher games from `start` into `out_dir` (shards of `cfg.games_per_shard`
/// games; a rerun keeps the shards already written). The teacher searches to its depth each
/// move, with its opening noise for the first `cfg.temperature_plies` plies so that the games
/// differ; every move depends only on the position, `seed` and the game's id, so the games are
/// the same on any number of threads.
pub fn generate_teacher(
    start: &Position,
    teacher: &Teacher,
    cfg: &SelfplayConfig,
    games: u64,
    seed: u64,
    out_dir: &Path,
    progress: &mut dyn Progress,
) -> Result<GenerateSummary, DataError> {
    let clock = std::time::Instant::now();
    if let Some(learned) = &teacher.learned {
        learned
            .network
            .check_variant(start.variant())
            .map_err(|e| DataError::Teacher {
                spec: teacher.spec.clone(),
                message: e.to_string(),
            })?;
    }
    prepare(
        out_dir,
        start.variant().name(),
        games,
        cfg.games_per_shard,
        seed,
        Some(teacher),
    )?;
    let mut summary = GenerateSummary::default();
    for k in 0..shard_count(games, cfg) {
        let ids: Vec<u64> = shard_games(k, games, cfg).collect();
        if shard_path(out_dir, k).exists() {
            summary.resumed_games += ids.len() as u64;
            continue;
        }
        let play = |&id: &u64| teacher_game(start, teacher, cfg.temperature_plies, seed, id);
        let done = crate::workers::run_in_order(&ids, play, &mut |game: &FinishedGame| {
            summary.count(game);
            summary.seconds = clock.elapsed().as_secs_f64();
            progress.game_finished(&summary);
            true
        });
        write_shard_files(start, out_dir, k, &done)?;
    }
    summary.seconds = clock.elapsed().as_secs_f64();
    Ok(summary)
}

/// One game of alpha-beta against itself, every move a sample.
fn teacher_game(
    start: &Position,
    teacher: &Teacher,
    noisy_plies: u32,
    seed: u64,
    id: u64,
) -> FinishedGame {
    let mut rng = ChaCha8Rng::seed_from_u64(game_seed(seed, id));
    let varying = rng.random::<u64>();
    let mut ab = teacher.search(seed);
    let size = start.variant().size;
    let mut position = start.clone();
    let mut samples = Vec::new();
    let mut moves = Vec::new();
    loop {
        if position.needs_roll() {
            position.set_roll(rng.random_range(1..=6));
        }
        if let Some(outcome) = position.outcome() {
            let length = position.ply();
            return FinishedGame::new(id, samples, moves, outcome, length);
        }
        let found = teacher.choose(&mut ab, &position, varying, position.ply() < noisy_plies);
        let mv = found
            .best
            .expect("a position that is not over has a legal move");
        let target = vec![(policy_index(mv, size) as u32, 1.0)];
        samples.push(sample_at(&position, id, target, ab.value(found.score)));
        moves.push(position.play_recorded(mv));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::read_dir;
    use crate::rules::Variant;

    /// A scratch directory (removed when the guard drops) and a path inside it for a run.
    fn scratch() -> (tempfile::TempDir, std::path::PathBuf) {
        let tmp = tempfile::tempdir().expect("temp dir");
        let dir = tmp.path().join("out");
        (tmp, dir)
    }

    fn small_config() -> SelfplayConfig {
        SelfplayConfig {
            games_per_shard: 3,
            temperature_plies: 6,
            ..SelfplayConfig::default()
        }
    }

    /// The teacher at `depth` with the compiled settings.
    fn at(depth: u32) -> Teacher {
        Teacher::parse(&format!("ab:{depth}")).expect("a teacher")
    }

    #[test]
    fn only_alpha_beta_at_a_depth_is_a_teacher() {
        assert_eq!(at(5).depth, 5);
        assert_eq!(at(5).settings, AlphaBetaConfig::default());
        for not in [
            "ab:t=100ms",
            "ab:0",
            "ab:",
            "mcts:5",
            "net:ab:5",
            "ab:5:leaf=2",
            "ab:t=1s:eval=configs/alphabeta/quiescence.toml",
        ] {
            let err = Teacher::parse(not).expect_err(not);
            assert!(matches!(err, TeacherError::NotADepth(_)), "{not}: {err}");
        }
    }

    #[test]
    fn a_teacher_takes_the_settings_of_a_file() {
        let root = env!("CARGO_MANIFEST_DIR");
        let file = format!("{root}/configs/alphabeta/quiescence.toml");
        let teacher = Teacher::parse(&format!("ab:3:eval={file}")).expect("a teacher");
        assert_eq!(teacher.depth, 3);
        assert_eq!(
            teacher.settings,
            AlphaBetaConfig::load(&file).expect("settings")
        );
        assert_ne!(teacher.settings.search.quiescence, 0);
        // a missing file is named
        let err = Teacher::parse("ab:3:eval=no/such.toml").expect_err("no file");
        assert!(err.to_string().contains("no/such.toml"), "{err}");
        // and the settings play: with a quiescence search the same seeds give other games
        let start = Position::start(&Variant::load("brandubh").expect("preset"));
        let (cfg, (_ta, plain), (_tb, quiet)) = (small_config(), scratch(), scratch());
        let quiescent = Teacher {
            depth: 1,
            ..teacher
        };
        generate_teacher(&start, &at(1), &cfg, 3, 1, &plain, &mut ()).expect("games");
        generate_teacher(&start, &quiescent, &cfg, 3, 1, &quiet, &mut ()).expect("games");
        let records =
            |d: &Path| std::fs::read_to_string(d.join("games-00000.txt")).expect("records");
        assert_ne!(records(&plain), records(&quiet));
    }

    #[test]
    fn a_teacher_takes_a_learned_evaluation_of_its_variant() {
        let root = env!("CARGO_MANIFEST_DIR");
        let net = |v: &str, g: &str| format!("{root}/experiments/nnue/{v}/{g}/eval.nnue");
        let (gen1, gen2) = (net("brandubh", "gen1-s1"), net("brandubh", "gen2-s1"));
        let learned = Teacher::parse(&format!("ab:2:nnue={gen1}")).expect("a teacher");
        let network = learned.learned.as_ref().expect("a network");
        assert_eq!(network.network.meta().variant, "brandubh");
        let bytes = std::fs::read(&gen1).expect("file");
        let hash = format!("xxh3:{:016x}", xxhash_rust::xxh3::xxh3_64(&bytes));
        assert_eq!(network.hash, hash);
        // with the settings of a file too, in either order
        let quiet = format!("{root}/configs/alphabeta/quiescence.toml");
        for spec in [
            format!("ab:2:eval={quiet}:nnue={gen1}"),
            format!("ab:2:nnue={gen1}:eval={quiet}"),
        ] {
            let both = Teacher::parse(&spec).expect("a teacher");
            assert_ne!(both.settings.search.quiescence, 0, "{spec}");
            assert!(both.learned.is_some(), "{spec}");
        }
        // a missing or unreadable file is named
        for bad in ["no/such.nnue".to_string(), quiet.clone()] {
            let err = Teacher::parse(&format!("ab:2:nnue={bad}")).expect_err("no network");
            assert!(matches!(err, TeacherError::Learned { .. }), "{err}");
            assert!(err.to_string().contains(&bad), "{err}");
        }
        // the network plays: the same seeds give other games than the compiled evaluation's
        let start = Position::start(&Variant::load("brandubh").expect("preset"));
        let (cfg, (_ta, plain), (_tb, nnue)) = (small_config(), scratch(), scratch());
        generate_teacher(&start, &at(2), &cfg, 3, 1, &plain, &mut ()).expect("games");
        generate_teacher(&start, &learned, &cfg, 3, 1, &nnue, &mut ()).expect("games");
        let records =
            |d: &Path| std::fs::read_to_string(d.join("games-00000.txt")).expect("records");
        assert_ne!(records(&plain), records(&nnue));
        // its search values are the network's, not the compiled evaluation's
        let values = |d: &Path| {
            let data = read_dir(d, Some("brandubh")).expect("shards");
            data.samples
                .iter()
                .map(|x| x.search_value)
                .collect::<Vec<f32>>()
        };
        assert_ne!(values(&plain), values(&nnue));
        // another network (or none) never continues the directory, whatever the file's name
        let other = Teacher::parse(&format!("ab:2:nnue={gen2}")).expect("a teacher");
        let err = generate_teacher(&start, &other, &cfg, 3, 1, &nnue, &mut ()).expect_err("net");
        assert!(err.to_string().contains("teacher_nnue"), "{err}");
        assert!(generate_teacher(&start, &at(2), &cfg, 3, 1, &nnue, &mut ()).is_err());
        let again = generate_teacher(&start, &learned, &cfg, 3, 1, &nnue, &mut ()).expect("same");
        assert_eq!(again.resumed_games, 3);
        // a network of another variant is refused before a game is played
        let copenhagen = Teacher::parse(&format!("ab:2:nnue={}", net("copenhagen", "gen1-s1")))
            .expect("a network");
        let (_tc, none) = scratch();
        let err = generate_teacher(&start, &copenhagen, &cfg, 3, 1, &none, &mut ())
            .expect_err("another variant");
        assert!(matches!(err, DataError::Teacher { .. }), "{err}");
        assert!(err.to_string().contains("copenhagen"), "{err}");
        assert!(!none.join("manifest.json").exists());
    }

    #[test]
    fn a_teacher_run_never_continues_a_self_play_directory() {
        let start = Position::start(&Variant::load("brandubh").expect("preset"));
        let cfg = small_config();
        let (_t1, dir) = scratch();
        let mut uniform = crate::search::UniformEvaluator;
        crate::selfplay::generate(&start, &mut uniform, &cfg, 3, 1, &dir, &mut ())
            .expect("self-play");
        let err = generate_teacher(&start, &at(2), &cfg, 3, 1, &dir, &mut ()).expect_err("refused");
        assert!(err.to_string().contains("teacher_depth: Some(2)"), "{err}");
        // nor a teacher directory of another depth
        let (_t2, other) = scratch();
        generate_teacher(&start, &at(1), &cfg, 3, 1, &other, &mut ()).expect("depth 1");
        assert!(generate_teacher(&start, &at(2), &cfg, 3, 1, &other, &mut ()).is_err());
        assert!(generate_teacher(&start, &at(1), &cfg, 3, 1, &other, &mut ()).is_ok());
        // nor one of the same depth with other settings
        let root = env!("CARGO_MANIFEST_DIR");
        let spec = format!("ab:1:eval={root}/configs/alphabeta/quiescence.toml");
        let quiescent = Teacher::parse(&spec).expect("a teacher");
        let err = generate_teacher(&start, &quiescent, &cfg, 3, 1, &other, &mut ())
            .expect_err("settings");
        assert!(err.to_string().contains("quiescence: 4"), "{err}");
    }

    #[test]
    fn games_are_reproducible_vary_with_the_seed_and_resume() {
        let start = Position::start(&Variant::load("brandubh").expect("preset"));
        let cfg = small_config();
        let ((_ta, a), (_tb, b), (_tc, c)) = (scratch(), scratch(), scratch());
        generate_teacher(&start, &at(2), &cfg, 6, 1, &a, &mut ()).expect("games");
        generate_teacher(&start, &at(2), &cfg, 6, 2, &c, &mut ()).expect("games");
        // b: one shard first, then the rest resumed
        std::fs::create_dir_all(&b).expect("dir");
        generate_teacher(&start, &at(2), &cfg, 6, 1, &b, &mut ()).expect("games");
        std::fs::remove_file(shard_path(&b, 1)).expect("shard 1");
        let resumed = generate_teacher(&start, &at(2), &cfg, 6, 1, &b, &mut ()).expect("games");
        assert_eq!((resumed.resumed_games, resumed.games), (3, 3));
        let read = |d: &Path, k| std::fs::read(shard_path(d, k)).expect("shard");
        for k in 0..2 {
            assert_eq!(read(&a, k), read(&b, k), "shard {k}");
        }
        let records =
            |d: &Path| std::fs::read_to_string(d.join("games-00000.txt")).expect("records");
        assert_ne!(records(&a), records(&c), "another seed plays other games");
        // the games of one run differ from each other (the opening noise)
        let data = read_dir(&a, Some("brandubh")).expect("shards");
        let games: std::collections::HashSet<Vec<u32>> = (0..6u64)
            .map(|id| {
                data.samples
                    .iter()
                    .filter(|x| x.game_id == id)
                    .map(|x| x.policy[0].0)
                    .collect()
            })
            .collect();
        assert!(games.len() > 1, "six games, one line of moves");
    }
}
