//! Training positions for the learned evaluation: the `*.positions` file read back equal, every
//! kind of damage a clear error naming the file, and `tavlei nnue data` labelling stored games.

use std::path::Path;
use std::process::Command;
use std::sync::Arc;

use tavlei::eval::game_store::load_stored;
use tavlei::eval::texel::Source;
use tavlei::eval::GameResult;
use tavlei::nnue::label::{self, Labeler, Selection};
use tavlei::nnue::positions::encode;
use tavlei::nnue::records::read_records;
use tavlei::nnue::{read_positions, write_positions, LabelledPosition, NnueDataError, PositionSet};
use tavlei::rules::{Position, Side, Variant};
use tavlei::search::alphabeta::AlphaBetaConfig;

/// A fresh scratch directory, removed when the returned value is dropped (a failing test too).
fn scratch() -> tempfile::TempDir {
    tempfile::tempdir().expect("scratch dir")
}

/// Three brandubh positions with labels of every sign.
fn small_set() -> PositionSet {
    let v = Variant::load("brandubh").expect("preset");
    let start = Position::start(&v).cells().to_vec();
    let mut other = start.clone();
    other.swap(0, 3);
    PositionSet {
        variant: "brandubh".into(),
        board_size: 7,
        score_per_logit: 412.5,
        labeler: "ab:d=3".into(),
        positions: vec![
            LabelledPosition {
                cells: start.clone(),
                side: 0,
                score: 17,
                result: 1,
                ply: 0,
            },
            LabelledPosition {
                cells: other,
                side: 1,
                score: -999_990,
                result: -1,
                ply: 65_535,
            },
            LabelledPosition {
                cells: start,
                side: 1,
                score: i32::MIN,
                result: 0,
                ply: 7,
            },
        ],
    }
}

fn written(dir: &Path) -> std::path::PathBuf {
    let path = dir.join("b.positions");
    write_positions(&path, &small_set()).expect("write");
    path
}

#[test]
fn nnue_data_positions_read_back_equal() {
    let tmp = scratch();
    let path = written(tmp.path());
    assert_eq!(read_positions(&path).expect("read"), small_set());
    assert!(!tmp.path().join("b.positions.tmp").exists());
}

#[test]
fn nnue_data_truncated_file_is_named() {
    let tmp = scratch();
    let path = written(tmp.path());
    let bytes = std::fs::read(&path).expect("read");
    for keep in [4, 20, bytes.len() - 1, bytes.len() - 60] {
        std::fs::write(&path, &bytes[..keep]).expect("write");
        let err = read_positions(&path).expect_err("truncated");
        assert!(
            matches!(err, NnueDataError::Truncated { .. }),
            "{keep} bytes: {err}"
        );
        assert!(err.to_string().contains("b.positions"), "{err}");
    }
}

#[test]
fn nnue_data_flipped_byte_fails_the_checksum() {
    let tmp = scratch();
    let path = written(tmp.path());
    let mut bytes = std::fs::read(&path).expect("read");
    // a cell of the second position: nothing but the checksum can see it
    let at = bytes.len() - 8 - (49 + 8) - 10;
    bytes[at] ^= 0x04;
    std::fs::write(&path, &bytes).expect("write");
    let err = read_positions(&path).expect_err("damaged");
    assert!(matches!(err, NnueDataError::BadChecksum { .. }), "{err}");
    assert!(err.to_string().contains("b.positions") && err.to_string().contains("checksum"));
}

#[test]
fn nnue_data_wrong_magic_version_and_size_are_named() {
    let tmp = scratch();
    let path = written(tmp.path());
    let good = std::fs::read(&path).expect("read");

    let mut bytes = good.clone();
    bytes[0] = b'X';
    std::fs::write(&path, &bytes).expect("write");
    let err = read_positions(&path).expect_err("magic");
    assert!(matches!(err, NnueDataError::WrongMagic { .. }), "{err}");
    assert!(err.to_string().contains("b.positions"), "{err}");

    let mut bytes = good.clone();
    bytes[8] = 2;
    std::fs::write(&path, &bytes).expect("write");
    let err = read_positions(&path).expect_err("version");
    assert!(
        matches!(
            err,
            NnueDataError::FormatVersion {
                found: 2,
                expected: 1,
                ..
            }
        ),
        "{err}"
    );

    // trailing bytes: the positions do not fill the file at board_size² cells each
    let mut bytes = good.clone();
    bytes.extend_from_slice(&[0; 3]);
    std::fs::write(&path, &bytes).expect("write");
    let err = read_positions(&path).expect_err("trailing");
    assert!(
        matches!(err, NnueDataError::Corrupt { .. }) && err.to_string().contains("board_size²"),
        "{err}"
    );

    // and a record with the wrong number of cells is refused when written
    let mut set = small_set();
    set.positions[1].cells.pop();
    let err = write_positions(&path, &set).expect_err("48 cells");
    assert!(
        err.to_string().contains("position 1") && err.to_string().contains("49"),
        "{err}"
    );
}

/// Two brandubh games of alpha-beta at depth 2 (experiments/texel/brandubh/study-depths): the
/// defenders win the first, the attackers the second.
const DEFENDERS_WIN: &str = r#"{"id":1,"attacker":0,"defender":0,"outcome":{"winner":"defenders","reason":"king_escaped"},"plies":30,"moves":["d1-f1","c4-c3","d6-e6","d5-a5","e6-a6xa5","e4-e1xf1","d2-b2","d3-e3","b2-d2","d4-d5","b4-b5","d5-e5","a4-c4","c3-a3","g4-g5","a3-a5xa6","d7-e7","e5-c5xb5","e7-c7","e3-c3xc4","d2-b2","c5-d5","b2-b1","e1-c1xb1","f4-f1","c1-e1xf1","c7-d7","d5-d1","d7-d2","d1-a1"]}"#;
const ATTACKERS_WIN: &str = r#"{"id":5,"attacker":0,"defender":0,"outcome":{"winner":"attackers","reason":"king_captured"},"plies":27,"moves":["d1-e1","c4-c3","d2-e2","e4-e3","f4-e4xe3","d3-f3","e2-d2","d4-c4","d6-c6","c4-d4","e4-e6","f3-f2","g4-f4","d5-g5","c6-c5","c3-e3","a4-a3","e3-c3","e1-e3","c3-c1","d7-d5","c1-c3","c5-c4","c3-c1","a3-d3","d4-e4","e6-e5"]}"#;

fn game(json: &str) -> GameResult {
    serde_json::from_str(json).expect("a stored game")
}

fn brandubh() -> Arc<Variant> {
    Variant::load("brandubh").expect("preset")
}

fn labeler() -> Labeler {
    Labeler {
        config: AlphaBetaConfig::default(),
        depth: 2,
        seed: 0,
        learned: None,
    }
}

const ALL: Selection = Selection {
    skip_plies: 0,
    quiet_only: false,
};

/// The labelled positions of `games` (one source), on a pool of `threads`.
fn labelled(games: Vec<GameResult>, threads: usize) -> (Vec<LabelledPosition>, usize) {
    let v = brandubh();
    let sources = [Source {
        name: "test".into(),
        games,
    }];
    let plan = label::plan(&v, &sources, ALL).expect("legal games");
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("pool");
    let positions = pool
        .install(|| label::label(&v, &plan, &labeler(), || {}))
        .expect("labelled");
    assert_eq!(positions.len(), plan.positions);
    (positions, plan.duplicates)
}

#[test]
fn nnue_data_results_are_from_the_side_to_moves_view() {
    for (json, winner) in [
        (ATTACKERS_WIN, Side::Attackers),
        (DEFENDERS_WIN, Side::Defenders),
    ] {
        let (positions, _) = labelled(vec![game(json)], 1);
        assert!(positions.len() > 20, "{}", positions.len());
        let winner_code = u8::from(winner == Side::Defenders);
        for p in &positions {
            let expected = if p.side == winner_code { 1 } else { -1 };
            assert_eq!(p.result, expected, "ply {} side {}", p.ply, p.side);
        }
        // both sides to move occur, the start (attackers to move) first
        assert_eq!((positions[0].ply, positions[0].side), (0, 0));
        assert!(positions.iter().any(|p| p.side == 1));
        // the last position before the win: the winner is to move and its search sees the win
        let last = positions.last().expect("positions");
        assert_eq!(last.side, winner_code);
        assert!(last.score > 900_000, "score {}", last.score);
    }
}

#[test]
fn nnue_data_a_repeated_position_is_kept_once() {
    let (once, dropped) = labelled(vec![game(ATTACKERS_WIN)], 1);
    assert_eq!(dropped, 0);
    let mut again = game(ATTACKERS_WIN);
    again.id = 9;
    let (twice, dropped) = labelled(vec![game(ATTACKERS_WIN), again], 1);
    assert_eq!(dropped, once.len());
    assert_eq!(twice, once);
    // the two games share their start: it is labelled once
    let (both, dropped) = labelled(vec![game(ATTACKERS_WIN), game(DEFENDERS_WIN)], 1);
    assert!(dropped >= 1, "{dropped}");
    assert_eq!(both.iter().filter(|p| p.ply == 0).count(), 1);
}

#[test]
fn nnue_data_thread_count_does_not_change_the_bytes() {
    // eight stored games of alpha-beta at depth 2 (distinct, apart from their openings)
    let games = || {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("experiments/texel/brandubh/study-depths/games/brandubh__ab_2.jsonl");
        let mut games = load_stored(&path).expect("stored games");
        games.truncate(8);
        games
    };
    let bytes = |threads| {
        let (positions, _) = labelled(games(), threads);
        let set = PositionSet {
            variant: "brandubh".into(),
            board_size: 7,
            score_per_logit: label::fit_score_per_logit(&positions).expect("fit") as f32,
            labeler: "ab:d=2".into(),
            positions,
        };
        encode(Path::new("x.positions"), &set).expect("encode")
    };
    assert_eq!(bytes(1), bytes(3));
}

#[test]
fn nnue_data_scale_fit_recovers_a_known_scale() {
    // at score x the side to move wins a share σ(x / 250) of 100 positions
    let mut positions = Vec::new();
    for x in (-1500..=1500).step_by(50) {
        let wins = (100.0 / (1.0 + (-f64::from(x) / 250.0).exp())).round() as usize;
        for i in 0..100 {
            positions.push(LabelledPosition {
                cells: vec![0; 49],
                side: 0,
                score: x,
                result: if i < wins { 1 } else { -1 },
                ply: 0,
            });
        }
    }
    let s = label::fit_score_per_logit(&positions).expect("fit");
    assert!((s - 250.0).abs() < 5.0, "{s}");
}

#[test]
fn nnue_data_command_writes_positions_and_summary() {
    let tmp = scratch();
    let games = tmp.path().join("games.jsonl");
    std::fs::write(&games, format!("{ATTACKERS_WIN}\n{DEFENDERS_WIN}\n")).expect("games");
    let out = tmp.path().join("b.positions");
    let data = |options: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_tavlei"))
            .args(["nnue", "data", "--variant", "brandubh"])
            .args(options)
            .arg("--games")
            .arg(&games)
            .arg("--out")
            .arg(&out)
            .output()
            .expect("runs")
    };
    let run = data(&["--depth", "2"]);
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let set = read_positions(&out).expect("positions");
    assert_eq!((set.variant.as_str(), set.board_size), ("brandubh", 7));
    assert_eq!(set.labeler, "ab:d=2");
    assert!(set.score_per_logit > 0.0);
    let summary: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(tmp.path().join("b.positions.json")).expect("summary"),
    )
    .expect("json");
    assert_eq!(summary["games"], 2);
    assert_eq!(summary["positions"], set.positions.len());
    assert!(summary["duplicates_dropped"].as_u64().expect("count") >= 1);
    assert!(
        stdout.contains("duplicates dropped") && stdout.contains("score per logit"),
        "{stdout}"
    );

    // a learned evaluation that is not there: the file is named
    let run = data(&["--eval", "nnue=no/such.nnue"]);
    assert!(!run.status.success());
    assert!(String::from_utf8_lossy(&run.stderr).contains("no/such.nnue"));
}

#[test]
fn nnue_data_records_of_a_study_read_as_its_games() {
    let tmp = scratch();
    let path = tmp.path().join("games.txt");
    let v = brandubh();
    let mut text = String::new();
    // a study's header, then a match's
    for (json, header) in [
        (ATTACKERS_WIN, "5 (ab:2 vs itself)"),
        (DEFENDERS_WIN, "1: ab:2 (attackers) vs ab:3 (defenders)"),
    ] {
        let g = game(json);
        text += &format!("# game {header}\n");
        text += &tavlei::interop::record::game_record(&v, &g.moves, Some(g.outcome));
    }
    std::fs::write(&path, &text).expect("write");
    let read = read_records(&path).expect("records");
    assert_eq!(read.len(), 2);
    for (r, json) in read.iter().zip([ATTACKERS_WIN, DEFENDERS_WIN]) {
        let g = game(json);
        assert_eq!((r.id, &r.moves, r.outcome), (g.id, &g.moves, g.outcome));
    }
    // an unfinished game is named with its line
    std::fs::write(&path, text.replacen("attackers king_captured", "*", 1)).expect("write");
    let err = read_records(&path).expect_err("no result");
    assert!(err.to_string().contains("games.txt:4"), "{err}");
}
