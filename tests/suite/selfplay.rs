//! Self-play end to end on tiny games: the shards agree with the game records, policy targets
//! cover exactly the legal moves, results match outcomes, and an interrupted run resumes.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use tavlei::data::read_shard;
use tavlei::encode::policy::policy_index;
use tavlei::rules::{Position, Variant};
use tavlei::search::{RolloutEvaluator, SearchConfig, UniformEvaluator};
use tavlei::selfplay::generator::{records_path, shard_path};
use tavlei::selfplay::starts::{Starts, StartsConfig};
use tavlei::selfplay::{generate, SelfplayConfig};

fn tiny_config(gumbel: bool) -> SelfplayConfig {
    SelfplayConfig {
        simulations: 12,
        fast_simulations: 4,
        full_search_fraction: 0.5,
        attacker_search_ratio: 1.0,
        concurrent_games: 4,
        lanes: 1,
        workers: 1,
        games_per_shard: 3,
        temperature: 1.0,
        temperature_plies: 6,
        cache_size: 10_000,
        precision: tavlei::nn::Precision::F32,
        search: SearchConfig {
            gumbel,
            gumbel_actions: 8,
            ..SearchConfig::default()
        },
        starts: None,
    }
}

/// A scratch directory (the returned value; dropping it removes everything) and a path inside
/// it that does not exist yet, for the run's output.
fn scratch() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().expect("temp dir");
    let dir = tmp.path().join("out");
    (tmp, dir)
}

/// The games of a records file: (moves, result tag).
fn read_records(path: &Path) -> Vec<(Vec<String>, String)> {
    let text = std::fs::read_to_string(path).expect("records");
    let mut games = Vec::new();
    let mut result = String::new();
    for line in text.lines() {
        if let Some(r) = line.strip_prefix("[result \"") {
            result = r.trim_end_matches("\"]").to_string();
        } else if !line.starts_with('[') && !line.starts_with('#') {
            games.push((
                line.split_whitespace().map(str::to_string).collect(),
                result.clone(),
            ));
        }
    }
    games
}

/// Every game of the `shards` shards in `dir` replays from its record: each sample is the
/// board, side and (for dice) roll of its ply, its result the record's, and its policy target
/// covers exactly the legal moves there.
fn check_shards_against_records(v: &Arc<Variant>, dir: &Path, shards: u64, games_per_shard: usize) {
    for k in 0..shards {
        let shard = read_shard(&shard_path(dir, k)).expect("shard reads");
        assert_eq!(shard.variant, v.name());
        let records = read_records(&records_path(dir, k));
        assert_eq!(records.len(), games_per_shard);
        assert!(!shard.samples.is_empty());
        for (i, (moves, result)) in records.iter().enumerate() {
            let id = k * games_per_shard as u64 + i as u64;
            // replay the record, remembering every position
            let mut pos = Position::start(v);
            let mut positions = vec![pos.clone()];
            let mut rolls = Vec::new();
            for token in moves {
                let (roll, mv) = match token.split_once(':') {
                    Some((r, m)) => (r.parse::<u8>().ok(), m),
                    None => (None, token.as_str()),
                };
                if let Some(r) = roll {
                    pos.set_roll(r);
                }
                rolls.push(roll);
                pos.play(mv).unwrap_or_else(|e| panic!("game {id}: {e}"));
                positions.push(pos.clone());
            }
            // a dice game can end on a roll that leaves no legal move, which the record does not
            // write: then some roll must end it as recorded
            let outcome = pos
                .outcome()
                .or_else(|| {
                    (1..=6).find_map(|r| {
                        let mut rolled = pos.clone();
                        rolled.set_roll(r);
                        rolled.outcome()
                    })
                })
                .unwrap_or_else(|| panic!("game {id}: the record ends before the game"));
            assert_eq!(
                result,
                &format!("{} {}", outcome.result_name(), outcome.reason.name())
            );
            let samples: Vec<_> = shard.samples.iter().filter(|s| s.game_id == id).collect();
            for s in samples {
                assert_eq!(s.winner(), outcome.winner, "game {id} ply {}", s.ply);
                assert_eq!(s.game_length as usize, moves.len());
                let at = &positions[s.ply as usize];
                assert_eq!(
                    s.cells,
                    at.cells(),
                    "game {id}: sample board differs from the record at ply {}",
                    s.ply
                );
                assert_eq!(s.side_to_move, at.side_to_move());
                if let Some(&Some(roll)) = rolls.get(s.ply as usize) {
                    assert_eq!(s.roll, roll, "game {id}: the roll at ply {}", s.ply);
                }
                let total: f32 = s.policy.iter().map(|(_, p)| p).sum();
                assert!((total - 1.0).abs() < 1e-4, "policy sums to {total}");
                let mut legal = Vec::new();
                let mut rolled = at.clone();
                rolled.set_roll(s.roll);
                rolled.legal_moves(&mut legal);
                let mut expected: Vec<u32> = legal
                    .iter()
                    .map(|&m| policy_index(m, v.size) as u32)
                    .collect();
                let mut got: Vec<u32> = s.policy.iter().map(|(i, _)| *i).collect();
                expected.sort_unstable();
                got.sort_unstable();
                assert_eq!(
                    got, expected,
                    "policy target must cover exactly the legal moves"
                );
            }
        }
    }
}

#[test]
fn shards_agree_with_records_puct_and_rollouts() {
    let (_tmp, dir) = scratch();
    let v = Variant::load("brandubh").expect("preset");
    let cfg = tiny_config(false);
    let mut eval = RolloutEvaluator::new(2, 5);
    let summary = generate(&Position::start(&v), &mut eval, &cfg, 6, 9, &dir, &mut ())
        .expect("self-play runs");
    assert_eq!(summary.games, 6);
    assert_eq!(
        summary.attacker_wins + summary.defender_wins + summary.draws,
        6
    );
    assert!(
        summary.samples > 0 && summary.samples < summary.positions,
        "only full searches become samples"
    );
    check_shards_against_records(&v, &dir, 2, 3);
}

/// A variant's preset with `[end] max_plies` set to `plies` (parsed and set, so a renamed key
/// fails here rather than leaving the preset's cap in place).
fn with_max_plies(name: &str, plies: i64) -> Arc<Variant> {
    let text = tavlei::rules::presets::preset_text(name).expect("preset");
    let mut rules: toml::Table = toml::from_str(text).expect("preset TOML");
    let end = rules
        .get_mut("end")
        .and_then(|e| e.as_table_mut())
        .expect("an [end] table");
    let old = end.insert("max_plies".into(), toml::Value::Integer(plies));
    assert!(old.is_some(), "{name} has no end.max_plies");
    let v = Variant::from_toml(&toml::to_string(&rules).expect("TOML"), "short").expect("variant");
    assert_eq!(v.rules.end.max_plies as i64, plies);
    v
}

#[test]
fn shards_agree_with_records_gumbel_dice() {
    let (_tmp, dir) = scratch();
    let mut cfg = tiny_config(true);
    cfg.games_per_shard = 2;
    // short games: the dice variant with a tight length cap
    let v = with_max_plies("reconstruction_dice", 40);
    let summary = generate(
        &Position::start(&v),
        &mut UniformEvaluator,
        &cfg,
        4,
        4,
        &dir,
        &mut (),
    )
    .expect("self-play runs");
    assert_eq!(summary.games, 4);
    let shard = read_shard(&shard_path(&dir, 0)).expect("shard");
    assert!(
        shard.samples.iter().all(|s| s.roll >= 1 && s.roll <= 6),
        "every dice position has its roll"
    );
    check_shards_against_records(&v, &dir, 2, 2);
}

/// Uniform evaluations, counting the leaves of each call.
#[derive(Default)]
struct CountingUniform {
    calls: Vec<usize>,
}

impl tavlei::search::Evaluator for CountingUniform {
    fn evaluate(
        &mut self,
        requests: &[tavlei::search::Request<'_>],
    ) -> Vec<tavlei::search::Evaluation> {
        self.calls.push(requests.len());
        UniformEvaluator.evaluate(requests)
    }

    fn describe(&self) -> String {
        "counting uniform".into()
    }
}

#[test]
fn shards_agree_with_records_when_searches_gather_leaves() {
    // 4 leaves a search and 2 games at once: a call of more than 2 leaves gathered some; the
    // reused trees and the cache bring hits among pending leaves
    for gumbel in [false, true] {
        let (_tmp, dir) = scratch();
        let mut cfg = tiny_config(gumbel);
        cfg.simulations = 64;
        cfg.fast_simulations = 32;
        cfg.concurrent_games = 2;
        cfg.search.leaf_batch = Some(4);
        let v = with_max_plies("brandubh", 60);
        let mut eval = CountingUniform::default();
        let summary = generate(&Position::start(&v), &mut eval, &cfg, 6, 11, &dir, &mut ())
            .expect("self-play runs");
        assert_eq!(summary.games, 6);
        assert!(summary.cache_hits > 0, "gumbel {gumbel}");
        let most = eval.calls.iter().copied().max().unwrap_or(0);
        assert!(
            most > 2 && most <= 8,
            "gumbel {gumbel}: {most} leaves in a call"
        );
        check_shards_against_records(&v, &dir, 2, 3);
    }
}

#[test]
fn an_interrupted_run_resumes_and_replays_alike() {
    let (_tmp, dir) = scratch();
    let v = Variant::load("brandubh").expect("preset");
    let cfg = tiny_config(false);
    let start = Position::start(&v);
    generate(&start, &mut UniformEvaluator, &cfg, 6, 21, &dir, &mut ()).expect("runs");
    let whole: Vec<Vec<u8>> = (0..2)
        .map(|k| std::fs::read(shard_path(&dir, k)).expect("shard"))
        .collect();
    // killed while shard 1 was being written: only its temporary file is left
    std::fs::remove_file(shard_path(&dir, 1)).expect("removes");
    std::fs::write(dir.join("shard-00001.shard.tmp"), b"half-written").expect("writes");
    let resumed =
        generate(&start, &mut UniformEvaluator, &cfg, 6, 21, &dir, &mut ()).expect("resumes");
    assert_eq!(resumed.resumed_games, 3);
    assert_eq!(resumed.games, 3, "only the missing games are played");
    for (k, bytes) in whole.iter().enumerate() {
        assert_eq!(
            &std::fs::read(shard_path(&dir, k as u64)).expect("shard"),
            bytes,
            "shard {k} differs after resuming"
        );
    }
    // another run into the same directory is refused rather than mixed in
    let err = generate(&start, &mut UniformEvaluator, &cfg, 9, 21, &dir, &mut ())
        .expect_err("a different run");
    assert!(err.to_string().contains("another run"), "{err}");
}

#[test]
fn an_unreadable_manifest_is_an_error_not_a_new_run() {
    let (_tmp, dir) = scratch();
    let v = Variant::load("brandubh").expect("preset");
    let cfg = tiny_config(false);
    let start = Position::start(&v);
    // a manifest that cannot be read (here a directory) is not "no manifest": nothing is written
    std::fs::create_dir_all(dir.join("manifest.json")).expect("dir");
    let err = generate(&start, &mut UniformEvaluator, &cfg, 3, 21, &dir, &mut ())
        .expect_err("unreadable manifest");
    assert!(err.to_string().contains("manifest.json"), "{err}");
    assert!(dir.join("manifest.json").is_dir());
    assert!(!shard_path(&dir, 0).exists(), "no game was played over it");
}

/// Teacher games: every sample is the position of its ply in the record, its one-hot target is
/// the move the record plays there, and its result is the record's.
fn check_teacher_shards(variant: &str, dir: &Path, shards: u64, games_per_shard: usize) {
    let v = Variant::load(variant).expect("preset");
    for k in 0..shards {
        let shard = read_shard(&shard_path(dir, k)).expect("shard reads");
        let records = read_records(&records_path(dir, k));
        assert_eq!(records.len(), games_per_shard);
        for (i, (moves, _)) in records.iter().enumerate() {
            let id = k * games_per_shard as u64 + i as u64;
            let samples: Vec<_> = shard.samples.iter().filter(|s| s.game_id == id).collect();
            assert_eq!(samples.len(), moves.len(), "game {id}: a sample per move");
            let mut pos = Position::start(&v);
            for (ply, token) in moves.iter().enumerate() {
                let (roll, text) = match token.split_once(':') {
                    Some((r, m)) => (r.parse::<u8>().ok(), m),
                    None => (None, token.as_str()),
                };
                if let Some(r) = roll {
                    pos.set_roll(r);
                }
                let s = samples[ply];
                assert_eq!(s.ply as usize, ply);
                assert_eq!(s.cells, pos.cells(), "game {id} ply {ply}");
                assert_eq!((s.side_to_move, s.roll), (pos.side_to_move(), pos.roll()));
                let mv = pos.parse_move(text).expect("a legal recorded move").mv;
                assert_eq!(s.policy, vec![(policy_index(mv, v.size) as u32, 1.0)]);
                assert!((-1.0..=1.0).contains(&s.search_value));
                pos.play(text).expect("plays");
            }
            // a dice game can end on a roll that leaves no legal move, which the record does not
            // write: then some roll must end it as recorded
            let outcome = pos.outcome().or_else(|| {
                (1..=6).find_map(|r| {
                    let mut rolled = pos.clone();
                    rolled.set_roll(r);
                    rolled.outcome()
                })
            });
            let outcome = outcome
                .unwrap_or_else(|| panic!("{variant} game {id}: the record ends before the game"));
            assert_eq!(samples[0].reason, outcome.reason.name(), "game {id}");
            for s in &samples {
                assert_eq!(s.winner(), outcome.winner, "game {id} ply {}", s.ply);
                assert_eq!(s.game_length as usize, moves.len());
            }
        }
    }
}

#[test]
fn teacher_games_are_the_records_moves_as_one_hot_targets() {
    // depth 1 for the dice variant: its chance nodes make depth 2 take ten times as long
    for (variant, depth) in [("brandubh", 2), ("reconstruction_dice", 1)] {
        let (_tmp, dir) = scratch();
        let v = Variant::load(variant).expect("preset");
        let teacher =
            tavlei::selfplay::teacher::Teacher::parse(&format!("ab:{depth}")).expect("a teacher");
        let summary = tavlei::selfplay::generate_teacher(
            &Position::start(&v),
            &teacher,
            &tiny_config(false),
            6,
            3,
            &dir,
            &mut (),
        )
        .expect("teacher games");
        assert_eq!(summary.games, 6);
        assert_eq!(summary.samples, summary.positions, "every move is a sample");
        check_teacher_shards(variant, &dir, 2, 3);
    }
}

/// Evaluations that depend on the batch a position comes in (its size and the position's place
/// in it), as a network's forward pass may round differently in different batches: games played
/// with it are the same only where their batches are.
struct BatchSensitive;

impl tavlei::search::Evaluator for BatchSensitive {
    fn evaluate(
        &mut self,
        requests: &[tavlei::search::Request<'_>],
    ) -> Vec<tavlei::search::Evaluation> {
        let n = requests.len();
        requests
            .iter()
            .enumerate()
            .map(|(i, (_, moves))| {
                let mut priors = vec![1.0; moves.len()];
                priors[(n * 7 + i) % moves.len().max(1)] += 3.0;
                let total: f32 = priors.iter().sum();
                tavlei::search::Evaluation {
                    priors: priors.iter().map(|p| p / total).collect(),
                    value: ((n * 13 + i * 5) % 11) as f32 / 10.0 - 0.5,
                }
            })
            .collect()
    }

    fn describe(&self) -> String {
        "batch-sensitive".into()
    }
}

/// Every shard and record file of a run directory, by name.
fn run_files(dir: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .expect("run dir")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.file_name().is_some_and(|n| n != "manifest.json"))
        .map(|p| {
            let name = p.file_name().expect("name").to_string_lossy().to_string();
            (name, std::fs::read(&p).expect("reads"))
        })
        .collect()
}

/// The moves of every game in `dir`'s records, by game id.
fn games_of(dir: &Path, shards: u64, per_shard: usize) -> Vec<Vec<String>> {
    (0..shards)
        .flat_map(|k| read_records(&records_path(dir, k)))
        .map(|(moves, _)| moves)
        .take(per_shard * shards as usize)
        .collect()
}

/// The generator of earlier versions, as an oracle: `concurrent_games` games in flight, every
/// pending leaf in one batch, one cache. Returns each game's moves, by id.
fn single_batch_games(
    start: &Position,
    evaluator: &mut dyn tavlei::search::Evaluator,
    cfg: &SelfplayConfig,
    games: u64,
    seed: u64,
) -> Vec<Vec<String>> {
    use tavlei::search::mcts::batch::evaluate_pending;
    use tavlei::search::mcts::cache::EvalCache;
    use tavlei::selfplay::game::Game;
    let mut cache = EvalCache::for_variant(cfg.cache_size, start.variant());
    let mut queue = 0..games;
    let mut active: Vec<Game> = Vec::new();
    let mut done = std::collections::BTreeMap::new();
    loop {
        while active.len() < cfg.concurrent_games {
            match queue.next() {
                Some(id) => active.push(Game::new(id, start, seed, cfg, None)),
                None => break,
            }
        }
        if active.is_empty() {
            return done.into_values().collect();
        }
        let mut waiting = Vec::new();
        for game in active.drain(..) {
            match game.advance(cfg, &mut cache) {
                Ok(game) => waiting.push(game),
                Err(finished) => {
                    done.insert(finished.id, finished.moves);
                }
            }
        }
        let mut searches: Vec<_> = waiting.iter_mut().map(Game::waiting).collect();
        evaluate_pending(&mut searches, evaluator, Some(&mut cache));
        active = waiting;
    }
}

/// A run of 9 games in 3 shards on `workers` threads (`open` of them seated at first, all after
/// 30 ms), each lane with its own batch-sensitive evaluator.
fn on_workers(
    cfg: &SelfplayConfig,
    workers: usize,
    open: usize,
    eval: fn() -> Box<dyn tavlei::search::Evaluator + Send>,
) -> (tempfile::TempDir, PathBuf) {
    let (tmp, dir) = scratch();
    let v = Variant::load("brandubh").expect("preset");
    let cfg = SelfplayConfig {
        workers,
        ..cfg.clone()
    };
    let seats = tavlei::selfplay::Seats::new(open);
    let evaluators = (0..cfg.lanes).map(|_| eval()).collect();
    std::thread::scope(|scope| {
        scope.spawn(|| {
            std::thread::sleep(std::time::Duration::from_millis(30));
            seats.open(workers);
        });
        let s = tavlei::selfplay::generate_shards_on_workers(
            &Position::start(&v),
            evaluators,
            &seats,
            &cfg,
            9,
            5,
            &dir,
            0..3,
            &mut (),
        )
        .expect("self-play runs");
        assert_eq!((s.games, s.workers as usize), (9, workers.min(cfg.lanes)));
        assert!(s.cpu_seconds > 0.0 && s.evaluations > 0);
    });
    (tmp, dir)
}

fn lanes_config(lanes: usize) -> SelfplayConfig {
    SelfplayConfig {
        concurrent_games: 6,
        lanes,
        ..tiny_config(false)
    }
}

#[test]
fn lanes_play_the_same_games_on_any_number_of_workers() {
    let cfg = lanes_config(3);
    let v = Variant::load("brandubh").expect("preset");
    // every lane in turn on this thread, with one evaluator
    let (_tmp, here) = scratch();
    generate(
        &Position::start(&v),
        &mut BatchSensitive,
        &cfg,
        9,
        5,
        &here,
        &mut (),
    )
    .expect("runs");
    let expected = run_files(&here);
    assert_eq!(expected.len(), 6, "three shards and their records");
    let eval = || Box::new(BatchSensitive) as Box<dyn tavlei::search::Evaluator + Send>;
    for (workers, open) in [(1, 1), (2, 2), (3, 3), (2, 1)] {
        let (_tmp, dir) = on_workers(&cfg, workers, open, eval);
        assert!(
            run_files(&dir) == expected,
            "{workers} workers ({open} seated at first) played other games"
        );
    }
    // the evaluator tells batches apart: the lanes, unlike the workers, change the games
    let (_tmp, one_lane) = on_workers(&lanes_config(1), 2, 2, eval);
    assert_ne!(games_of(&one_lane, 3, 3), games_of(&here, 3, 3));
}

#[test]
fn one_lane_plays_the_games_of_the_single_batch_generator() {
    let cfg = lanes_config(1);
    let v = Variant::load("brandubh").expect("preset");
    let start = Position::start(&v);
    let oracle = single_batch_games(&start, &mut BatchSensitive, &cfg, 9, 5);
    let (_tmp, dir) = scratch();
    generate(&start, &mut BatchSensitive, &cfg, 9, 5, &dir, &mut ()).expect("runs");
    assert_eq!(games_of(&dir, 3, 3), oracle);
}

#[test]
fn lanes_change_no_game_when_evaluations_do_not_depend_on_the_batch() {
    // rollout values are seeded by position: any lanes on any workers play the games of the
    // single-batch generator
    let v = Variant::load("brandubh").expect("preset");
    let oracle = single_batch_games(
        &Position::start(&v),
        &mut RolloutEvaluator::new(1, 3),
        &lanes_config(1),
        9,
        5,
    );
    let eval =
        || Box::new(RolloutEvaluator::new(1, 3)) as Box<dyn tavlei::search::Evaluator + Send>;
    let (_tmp, dir) = on_workers(&lanes_config(3), 2, 2, eval);
    assert_eq!(games_of(&dir, 3, 3), oracle);
}

fn starts_config(share: f32) -> SelfplayConfig {
    SelfplayConfig {
        starts: Some(StartsConfig {
            share,
            plies: [4, 12],
            agent: "ab:1".to_string(),
        }),
        ..tiny_config(false)
    }
}

#[test]
fn games_from_alpha_beta_starts_learn_only_from_their_own_plies() {
    let v = Variant::load("brandubh").expect("preset");
    let start = Position::start(&v);
    let cfg = starts_config(1.0);
    let starts = Starts::new(cfg.starts.as_ref().expect("starts")).expect("a player");
    let (_tmp, dir) = scratch();
    let s = generate(&start, &mut UniformEvaluator, &cfg, 6, 3, &dir, &mut ()).expect("runs");
    let (mut openings, mut own_plies, mut sampled) = (Vec::new(), 0, 0);
    for k in 0..2 {
        let shard = read_shard(&shard_path(&dir, k)).expect("shard reads");
        for (i, (moves, _)) in read_records(&records_path(&dir, k)).iter().enumerate() {
            let id = k * 3 + i as u64;
            let (_, opening) = starts.opening(&start, 3, id);
            assert!((4..=12).contains(&opening.len()), "game {id}: {opening:?}");
            assert_eq!(
                moves[..opening.len()],
                opening[..],
                "game {id} opens with alpha-beta"
            );
            own_plies += moves.len() - opening.len();
            // the record replays from the start, and each sample is its ply's position
            let samples: Vec<_> = shard.samples.iter().filter(|s| s.game_id == id).collect();
            sampled += samples.len();
            let mut pos = Position::start(&v);
            for (ply, text) in moves.iter().enumerate() {
                for sample in samples.iter().filter(|s| s.ply as usize == ply) {
                    assert!(
                        ply >= opening.len(),
                        "game {id}: a sample of alpha-beta's ply {ply}"
                    );
                    assert_eq!(sample.cells, pos.cells(), "game {id} ply {ply}");
                }
                pos.play(text).expect("a legal recorded move");
            }
            openings.push(opening);
        }
    }
    openings.sort();
    openings.dedup();
    assert!(openings.len() > 1, "every game opened alike: {openings:?}");
    assert!(sampled > 0, "the games gave samples");
    assert_eq!(s.alpha_beta_starts, 6);
    assert_eq!(
        s.positions as usize, own_plies,
        "positions are self-play's own"
    );
}

#[test]
fn a_share_of_the_games_starts_from_alpha_beta_and_none_is_none() {
    let v = Variant::load("brandubh").expect("preset");
    let start = Position::start(&v);
    let play = |cfg: &SelfplayConfig| {
        let (tmp, dir) = scratch();
        let s = generate(&start, &mut UniformEvaluator, cfg, 9, 4, &dir, &mut ()).expect("runs");
        let records: Vec<String> = (0..3)
            .map(|k| std::fs::read_to_string(records_path(&dir, k)).expect("records"))
            .collect();
        drop(tmp);
        (s, records)
    };
    let (half, _) = play(&starts_config(0.5));
    assert!(
        half.alpha_beta_starts > 0 && half.alpha_beta_starts < 9,
        "{} of 9 games started from alpha-beta",
        half.alpha_beta_starts
    );
    let (none, none_records) = play(&starts_config(0.0));
    let (_, plain_records) = play(&tiny_config(false));
    assert_eq!(none.alpha_beta_starts, 0);
    assert_eq!(
        none_records, plain_records,
        "a share of 0 plays the same games"
    );
}
