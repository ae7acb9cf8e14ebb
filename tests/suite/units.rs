//! Units of work as a cluster hands them out, computed apart with `--units` and put together as
//! the Ray driver does (a study's store lines in game order, shard files side by side): the bytes
//! are those of one whole run. `--plan` lists what a directory still lacks, and units outside the
//! run are errors naming the flag.

use std::path::Path;
use std::process::{Command, Output};

fn tavlei(args: &[&str]) -> Output {
    let out = Command::new(env!("CARGO_BIN_EXE_tavlei"))
        .args(["--threads", "1"])
        .args(args)
        .output()
        .expect("runs tavlei");
    out
}

fn ok(args: &[&str]) -> String {
    let out = tavlei(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8")
}

fn text(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

const STUDY: [&str; 10] = [
    "balance",
    "--variant",
    "brandubh",
    "--agent",
    "mcts:12",
    "--levels",
    "4,12",
    "--games",
    "5",
    "--seed",
];

#[test]
fn the_strongest_level_of_a_balance_study_can_have_fewer_games() {
    let tmp = tempfile::tempdir().expect("scratch");
    let out = tmp.path().join("study");
    let mut a: Vec<&str> = STUDY.to_vec();
    a.extend(["3", "--strongest-games", "2", "--out", text(&out)]);
    let plan: serde_json::Value =
        serde_json::from_str(&ok(&[&a[..], &["--plan"]].concat())).expect("json");
    assert_eq!(plan[0]["games"], 5);
    assert_eq!(plan[1]["games"], 2, "{plan}");
    ok(&a);
    let report: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(out.join("balance.json")).expect("balance.json"),
    )
    .expect("json");
    assert_eq!(report[0]["games"], 5);
    assert_eq!(report[1]["games"], 2);
    assert!(report[1]["convergence"].is_object(), "{report}");
}

#[test]
fn balance_units_apart_make_the_whole_study_store() {
    let tmp = tempfile::tempdir().expect("scratch");
    let whole = tmp.path().join("whole");
    let run = |out: &Path, extra: &[&str]| {
        let mut a: Vec<&str> = STUDY.to_vec();
        a.extend(["3", "--out", text(out)]);
        a.extend(extra);
        ok(&a)
    };
    let plan: serde_json::Value = serde_json::from_str(&run(&whole, &["--plan"])).expect("json");
    assert_eq!(plan[1]["agent"], "mcts:12");
    assert_eq!(plan[1]["store"], "games/brandubh__mcts_12.jsonl");
    assert_eq!(plan[1]["missing"], serde_json::json!([0, 1, 2, 3, 4]));
    run(&whole, &[]);
    let plan: serde_json::Value = serde_json::from_str(&run(&whole, &["--plan"])).expect("json");
    assert_eq!(
        plan[0]["missing"],
        serde_json::json!([]),
        "a done study lacks nothing"
    );
    for (study, store) in [
        (0, "brandubh__mcts_4.jsonl"),
        (1, "brandubh__mcts_12.jsonl"),
    ] {
        let mut joined = Vec::new();
        for games in ["0..2", "2", "3..5"] {
            let unit = tmp.path().join(format!("unit-{study}-{games}"));
            run(&unit, &["--units", &format!("{study}:{games}")]);
            joined.extend(std::fs::read(unit.join("games").join(store)).expect("unit store"));
            assert!(
                !unit.join("balance.csv").exists(),
                "a unit writes no report"
            );
        }
        let expected = std::fs::read(whole.join("games").join(store)).expect("store");
        assert!(
            joined == expected,
            "study {study}: units differ from the whole run"
        );
    }
    let out = tavlei(
        &[
            &STUDY[..],
            &[
                "3",
                "--out",
                text(&tmp.path().join("x")),
                "--units",
                "2:0..1",
            ],
        ]
        .concat(),
    );
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("--units 2: the study has 2 parts"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn selfplay_shards_apart_are_the_whole_runs_shards() {
    let tmp = tempfile::tempdir().expect("scratch");
    let cfg = tmp.path().join("selfplay.toml");
    let config = std::fs::read_to_string("configs/selfplay.toml")
        .expect("config")
        .replace("simulations = 64", "simulations = 12")
        .replace("fast_simulations = 16", "fast_simulations = 4")
        .replace("games_per_shard = 32", "games_per_shard = 3");
    std::fs::write(&cfg, config).expect("writes");
    let run = |out: &Path, extra: &[&str]| {
        let mut a = vec![
            "selfplay",
            "--variant",
            "brandubh",
            "--rollouts",
            "1",
            "--games",
        ];
        a.extend([
            "8",
            "--seed",
            "4",
            "--config",
            text(&cfg),
            "--out",
            text(out),
        ]);
        a.extend(extra);
        ok(&a)
    };
    let whole = tmp.path().join("whole");
    assert_eq!(
        run(&whole, &["--plan"]).trim(),
        r#"{"missing":[0,1,2],"shards":3}"#
    );
    run(&whole, &[]);
    assert_eq!(
        run(&whole, &["--plan"]).trim(),
        r#"{"missing":[],"shards":3}"#
    );
    let (first, rest) = (tmp.path().join("first"), tmp.path().join("rest"));
    run(&first, &["--units", "0"]);
    run(&rest, &["--units", "1..3"]);
    let mut names = 0;
    for entry in std::fs::read_dir(&whole).expect("dir") {
        let name = entry.expect("entry").file_name();
        let part = if name.to_string_lossy().contains("00000") {
            &first
        } else {
            &rest
        };
        assert!(
            std::fs::read(part.join(&name)).ok()
                == Some(std::fs::read(whole.join(&name)).expect("file")),
            "{name:?} differs"
        );
        names += 1;
    }
    assert_eq!(names, 7, "three shards, three records, the manifest");
    assert!(
        !first.join("shard-00001.shard").exists(),
        "a unit plays only its shards"
    );
}

#[test]
fn match_pairs_apart_give_the_whole_matchs_report_and_records() {
    let tmp = tempfile::tempdir().expect("scratch");
    let base = [
        "match",
        "--variant",
        "brandubh",
        "mcts:16",
        "mcts:4",
        "--pairs",
        "4",
        "--seed",
        "6",
    ];
    let run = |out: &Path, extra: &[&str]| ok(&[&base[..], &["--out", text(out)], extra].concat());
    let (whole, gathered) = (tmp.path().join("whole"), tmp.path().join("gathered"));
    run(&whole, &[]);
    let mut store = Vec::new();
    for pairs in ["0..1", "1..4"] {
        let unit = tmp.path().join(pairs);
        run(&unit, &["--units", pairs]);
        assert!(!unit.join("match.json").exists(), "a unit writes no report");
        store.extend(std::fs::read(unit.join("games.jsonl")).expect("unit games"));
    }
    std::fs::create_dir_all(&gathered).expect("dir");
    std::fs::write(gathered.join("games.jsonl"), store).expect("writes");
    assert_eq!(
        run(&gathered, &["--plan"]).trim(),
        r#"{"missing":[],"pairs":4}"#
    );
    run(&gathered, &[]);
    for file in ["match.json", "games.txt"] {
        assert!(
            std::fs::read(whole.join(file)).expect("whole")
                == std::fs::read(gathered.join(file)).expect("gathered"),
            "{file} differs"
        );
    }
    let out = tavlei(
        &[
            &base[..],
            &["--units", "0..1", "--sprt", "0,50,0.05,0.05", "--out", "x"],
        ]
        .concat(),
    );
    assert!(
        !out.status.success(),
        "units of a sequential test are refused"
    );
}

/// A sequential study on a cluster: `--plan` lists the current look's games of the two
/// strongest levels; the driver plays them as units, appends them, and plans again until
/// nothing is missing. The stores and the looks are those of one local run (Sea Tafl's depths
/// 1 and 2 differ at the second look of 20 games a level).
#[test]
fn a_sequential_study_played_in_units_is_the_local_one() {
    let tmp = tempfile::tempdir().expect("scratch");
    let study = |out: &Path, extra: &[&str]| {
        let mut a = vec!["balance", "--sequential"];
        a.extend(crate::balance_study::SEQUENTIAL_SEA_TAFL);
        a.extend(["--seed", "3", "--json", "--out", text(out)]);
        a.extend(extra);
        ok(&a)
    };
    let local = tmp.path().join("local");
    let local_report: serde_json::Value = serde_json::from_str(&study(&local, &[])).expect("json");

    let cluster = tmp.path().join("cluster");
    let mut rounds = Vec::new();
    loop {
        let plan: serde_json::Value =
            serde_json::from_str(&study(&cluster, &["--plan"])).expect("json");
        let plan = plan.as_array().expect("studies").clone();
        if plan
            .iter()
            .all(|s| s["missing"].as_array().expect("ids").is_empty())
        {
            break;
        }
        rounds.push(plan.iter().map(|s| s["games"].clone()).collect::<Vec<_>>());
        for s in &plan {
            let missing: Vec<u64> = s["missing"]
                .as_array()
                .expect("ids")
                .iter()
                .map(|id| id.as_u64().expect("id"))
                .collect();
            let (Some(first), Some(last)) = (missing.first(), missing.last()) else {
                continue;
            };
            let unit = tmp.path().join(format!("unit-{}-{first}", s["study"]));
            study(
                &unit,
                &["--units", &format!("{}:{first}..{}", s["study"], last + 1)],
            );
            let store = s["store"].as_str().expect("store");
            let played = std::fs::read(unit.join(store)).expect("unit store");
            let mut joined = std::fs::read(cluster.join(store)).unwrap_or_default();
            joined.extend(played);
            std::fs::create_dir_all(cluster.join("games")).expect("games dir");
            std::fs::write(cluster.join(store), joined).expect("appends");
        }
        assert!(rounds.len() <= 5, "the plan never ends: {rounds:?}");
    }
    assert_eq!(
        rounds,
        [
            vec![serde_json::json!(20), serde_json::json!(20)],
            vec![serde_json::json!(40), serde_json::json!(40)]
        ],
        "one look a round, ending at the deciding one"
    );
    let cluster_report: serde_json::Value =
        serde_json::from_str(&study(&cluster, &[])).expect("json");
    let looks = |r: &serde_json::Value| r[1]["sequential"]["looks"].clone();
    assert_eq!(looks(&cluster_report), looks(&local_report));
    assert_eq!(cluster_report[1]["games"], 40);
    for store in ["games/sea_tafl__ab_1.jsonl", "games/sea_tafl__ab_2.jsonl"] {
        assert!(
            std::fs::read(cluster.join(store)).expect("store")
                == std::fs::read(local.join(store)).expect("store"),
            "{store}: the units' games differ from the local run's"
        );
    }
}
