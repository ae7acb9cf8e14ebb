//! Teacher games: alpha-beta plays both sides, and each of its moves becomes a training sample
//! (a one-hot policy target on the move it chose, its score as the search value, the game's
//! result as the value target). Self-play at a few dozen simulations a move almost never lets
//! the attackers win, so their value is -1 everywhere and their moves learn nothing; a deeper
//! classical search wins a share of games on both sides (experiments/balance-study), and its
//! games put attacking play and attacker wins into the replay window. The shards and records are
//! those of self-play, so `tavlei data`, training and the NumPy export read them alike.

use std::path::Path;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::config::SelfplayConfig;
use super::game::{game_seed, sample_at, FinishedGame};
use super::generator::{prepare, shard_count, shard_games, shard_path, write_shard_files};
use super::{GenerateSummary, Progress};
use crate::data::DataError;
use crate::encode::policy::policy_index;
use crate::rules::Position;
use crate::search::alphabeta::{AlphaBeta, AlphaBetaConfig, Limit};

/// The depth of a teacher spec: `ab:D` is alpha-beta to depth D; anything else (a time budget,
/// another agent, a malformed spec) is not a teacher.
pub fn teacher_depth(spec: &str) -> Option<u32> {
    let depth: u32 = spec.trim().strip_prefix("ab:")?.parse().ok()?;
    (depth > 0).then_some(depth)
}

/// Plays `games` teacher games from `start` into `out_dir` (shards of `cfg.games_per_shard`
/// games; a rerun keeps the shards already written). Alpha-beta searches to `depth` plies each
/// move, with its opening noise for the first `cfg.temperature_plies` plies so that the games
/// differ; every move depends only on the position, `seed` and the game's id, so the games are
/// the same on any number of threads.
pub fn generate_teacher(
    start: &Position,
    depth: u32,
    cfg: &SelfplayConfig,
    games: u64,
    seed: u64,
    out_dir: &Path,
    progress: &mut dyn Progress,
) -> Result<GenerateSummary, DataError> {
    let clock = std::time::Instant::now();
    prepare(
        out_dir,
        start.variant().name(),
        games,
        cfg.games_per_shard,
        seed,
        Some(depth),
    )?;
    let mut summary = GenerateSummary::default();
    for k in 0..shard_count(games, cfg) {
        let ids: Vec<u64> = shard_games(k, games, cfg).collect();
        if shard_path(out_dir, k).exists() {
            summary.resumed_games += ids.len() as u64;
            continue;
        }
        let play = |&id: &u64| teacher_game(start, depth, cfg.temperature_plies, seed, id);
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
    depth: u32,
    noisy_plies: u32,
    seed: u64,
    id: u64,
) -> FinishedGame {
    let mut rng = ChaCha8Rng::seed_from_u64(game_seed(seed, id));
    let varying = rng.random::<u64>();
    let mut ab = AlphaBeta::new(AlphaBetaConfig::default(), seed);
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
        // a fresh table each move: a move depends only on the position and the game
        ab.clear();
        let noise = if position.ply() < noisy_plies {
            ab.opening_noise(1.0)
        } else {
            0
        };
        ab.vary(varying, noise);
        let found = ab.search(&position, Limit::Depth(depth.max(1)));
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

    #[test]
    fn only_alpha_beta_at_a_depth_is_a_teacher() {
        assert_eq!(teacher_depth("ab:5"), Some(5));
        for not in [
            "ab:t=100ms",
            "ab:0",
            "ab:",
            "mcts:5",
            "net:ab:5",
            "ab:5:leaf=2",
        ] {
            assert_eq!(teacher_depth(not), None, "{not}");
        }
    }

    #[test]
    fn a_teacher_run_never_continues_a_self_play_directory() {
        let start = Position::start(&Variant::load("brandubh").expect("preset"));
        let cfg = small_config();
        let (_t1, dir) = scratch();
        let mut uniform = crate::search::UniformEvaluator;
        crate::selfplay::generate(&start, &mut uniform, &cfg, 3, 1, &dir, &mut ())
            .expect("self-play");
        let err = generate_teacher(&start, 2, &cfg, 3, 1, &dir, &mut ()).expect_err("refused");
        assert!(err.to_string().contains("teacher_depth: Some(2)"), "{err}");
        // nor a teacher directory of another depth
        let (_t2, other) = scratch();
        generate_teacher(&start, 1, &cfg, 3, 1, &other, &mut ()).expect("depth 1");
        assert!(generate_teacher(&start, 2, &cfg, 3, 1, &other, &mut ()).is_err());
        assert!(generate_teacher(&start, 1, &cfg, 3, 1, &other, &mut ()).is_ok());
    }

    #[test]
    fn games_are_reproducible_vary_with_the_seed_and_resume() {
        let start = Position::start(&Variant::load("brandubh").expect("preset"));
        let cfg = small_config();
        let ((_ta, a), (_tb, b), (_tc, c)) = (scratch(), scratch(), scratch());
        generate_teacher(&start, 2, &cfg, 6, 1, &a, &mut ()).expect("games");
        generate_teacher(&start, 2, &cfg, 6, 2, &c, &mut ()).expect("games");
        // b: one shard first, then the rest resumed
        std::fs::create_dir_all(&b).expect("dir");
        generate_teacher(&start, 2, &cfg, 6, 1, &b, &mut ()).expect("games");
        std::fs::remove_file(shard_path(&b, 1)).expect("shard 1");
        let resumed = generate_teacher(&start, 2, &cfg, 6, 1, &b, &mut ()).expect("games");
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
