//! Self-play end to end on tiny games: the shards agree with the game records, policy targets
//! cover exactly the legal moves, results match outcomes, and an interrupted run resumes.

use std::path::{Path, PathBuf};

use tavlei::data::read_shard;
use tavlei::encode::policy::policy_index;
use tavlei::rules::{Position, Variant};
use tavlei::search::{RolloutEvaluator, SearchConfig, UniformEvaluator};
use tavlei::selfplay::generator::{records_path, shard_path};
use tavlei::selfplay::{generate, SelfplayConfig};

fn tiny_config(gumbel: bool) -> SelfplayConfig {
    SelfplayConfig {
        simulations: 12,
        fast_simulations: 4,
        full_search_fraction: 0.5,
        concurrent_games: 4,
        games_per_shard: 3,
        temperature: 1.0,
        temperature_plies: 6,
        cache_size: 10_000,
        search: SearchConfig {
            gumbel,
            gumbel_actions: 8,
            ..SearchConfig::default()
        },
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

fn check_shards_against_records(variant: &str, dir: &Path, shards: u64, games_per_shard: usize) {
    let v = Variant::load(variant).expect("preset");
    for k in 0..shards {
        let shard = read_shard(&shard_path(dir, k)).expect("shard reads");
        assert_eq!(shard.variant, variant);
        let records = read_records(&records_path(dir, k));
        assert_eq!(records.len(), games_per_shard);
        assert!(!shard.samples.is_empty());
        for (i, (moves, result)) in records.iter().enumerate() {
            let id = k * games_per_shard as u64 + i as u64;
            // replay the record, remembering every position
            let mut pos = Position::start(&v);
            let mut positions = vec![pos.clone()];
            for token in moves {
                let (roll, mv) = match token.split_once(':') {
                    Some((r, m)) => (r.parse::<u8>().ok(), m),
                    None => (None, token.as_str()),
                };
                if let Some(r) = roll {
                    pos.set_roll(r);
                }
                pos.play(mv).unwrap_or_else(|e| panic!("game {id}: {e}"));
                positions.push(pos.clone());
            }
            let outcome = pos.outcome().expect("a recorded game is over");
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
    check_shards_against_records("brandubh", &dir, 2, 3);
}

#[test]
fn shards_agree_with_records_gumbel_dice() {
    let (_tmp, dir) = scratch();
    let mut cfg = tiny_config(true);
    cfg.games_per_shard = 2;
    // short games: the dice variant with a tight length cap
    let text = tavlei::rules::presets::preset_text("reconstruction_dice")
        .expect("preset")
        .replace("max_plies = 400", "max_plies = 40");
    let v = Variant::from_toml(&text, "short dice").expect("variant");
    let summary = generate(
        &Position::start(&v),
        &mut UniformEvaluator,
        &cfg,
        2,
        4,
        &dir,
        &mut (),
    )
    .expect("self-play runs");
    assert_eq!(summary.games, 2);
    let shard = read_shard(&shard_path(&dir, 0)).expect("shard");
    assert!(
        shard.samples.iter().all(|s| s.roll >= 1 && s.roll <= 6),
        "every dice position has its roll"
    );
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
