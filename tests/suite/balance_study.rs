//! The balance study's committed readings are what its scripts make from the stored ladders
//! (`experiments/balance-study/families.py`, `presets.py`, `parity.py`), and the reading never
//! calls a variant measured on one player family.

use std::path::{Path, PathBuf};
use std::process::Command;

const STUDY: &str = "experiments/balance-study";

fn python(script: &str, args: &[&str]) -> String {
    let out = Command::new("python3")
        .arg(Path::new(STUDY).join(script))
        .args(args)
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "{script} {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8")
}

/// The folders in `STUDY/folder` that `keep` accepts, sorted.
fn folders(folder: &str, keep: impl Fn(&Path) -> bool) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(Path::new(STUDY).join(folder))
        .unwrap_or_else(|e| panic!("{folder} directory: {e}"))
        .map(|e| e.expect("entry").path())
        .filter(|p| keep(p))
        .collect();
    dirs.sort();
    dirs
}

fn ladders() -> Vec<PathBuf> {
    folders("ladders", |p| p.join("ab/balance.json").is_file())
}

/// `families.py DIR [SCRIPT]` of a ladder, checked against its committed README.md; the
/// reading it made.
fn reading_matches_committed(dir: &Path, script: &str) -> String {
    let path = dir.to_str().expect("path");
    let made = match script {
        "ladder.sh" => python("families.py", &[path]),
        _ => python("families.py", &[path, script]),
    };
    let committed = std::fs::read_to_string(dir.join("README.md")).expect("README.md");
    assert_eq!(
        made.trim_end(),
        committed.trim_end(),
        "{}: rerun {script}",
        dir.display()
    );
    made
}

#[test]
fn every_learned_evaluation_ladder_reading_is_made_from_its_stored_results() {
    let dirs = folders("learned", |p| p.join("ab/balance.json").is_file());
    assert!(!dirs.is_empty(), "no learned/VARIANT ladder");
    for dir in dirs {
        let made = reading_matches_committed(&dir, "learned/ladder.sh");
        assert!(
            made.contains("### Alpha-beta with the learned evaluation, both sides"),
            "{made}"
        );
        // levels of one parity (Brandubh 2, 4, 6; Tavlei 2, 4)
        assert!(
            made.contains("| depth 2 |") && made.contains("| depth 4 |"),
            "{made}"
        );
    }
}

#[test]
fn every_ladder_reading_is_made_from_its_stored_results() {
    let dirs = ladders();
    assert!(dirs.len() >= 4, "{dirs:?}");
    for dir in dirs {
        reading_matches_committed(&dir, "ladder.sh");
    }
}

/// The fixed-depth ladders (`depth-ladder.sh`) with both halves stored, a folder a variant
/// (and search).
fn depth_ladder_variants() -> Vec<PathBuf> {
    folders("depth-ladders", |p| {
        p.join("even/ab/balance.json").is_file() && p.join("odd/ab/balance.json").is_file()
    })
}

/// Their halves: one even and one odd ladder each.
fn depth_ladders() -> Vec<PathBuf> {
    depth_ladder_variants()
        .into_iter()
        .flat_map(|p| [p.join("even"), p.join("odd")])
        .collect()
}

#[test]
fn every_depth_ladder_reading_is_made_from_its_stored_results_and_names_depths() {
    let dirs = depth_ladders();
    assert!(dirs.len() >= 2, "{dirs:?}");
    for dir in dirs {
        let made = reading_matches_committed(&dir, "depth-ladder.sh");
        // alpha-beta without a time is a depth, never a simulation count
        assert!(made.contains("| depth "), "{made}");
        assert!(!made.contains(" sims |"), "{made}");
    }
}

#[test]
fn the_table_of_every_preset_is_made_from_the_ladders() {
    let made = python("presets.py", &[env!("CARGO_BIN_EXE_tavlei")]);
    let committed = std::fs::read_to_string(Path::new(STUDY).join("ladders/README.md"))
        .expect("ladders/README.md");
    assert_eq!(made.trim_end(), committed.trim_end(), "rerun presets.py");
    // the defenders' advantage pooled over every stored game of a variant has its rows
    assert!(
        made.contains("\n| brandubh | `ladders/brandubh/ab`"),
        "{made}"
    );
    for dir in ladders() {
        let name = dir.file_name().expect("name").to_string_lossy();
        assert!(
            made.contains(&format!("[{name}]({name}/README.md)")),
            "{name}"
        );
    }
}

/// One level of a ladder as `tavlei balance` stores it, with the fields the reading uses.
fn level(agent: &str, time_ms: f64, sims: u32, attackers: u32, verdict: Option<&str>) -> String {
    let (games, defenders) = (1000, 1000 - attackers);
    let test =
        |d: f64| format!(r#"{{"slope": {d}, "low": -0.01, "high": 0.01, "trending": false}}"#);
    let equal =
        r#"{"difference": 0.0, "low": -0.02, "high": 0.02, "margin": 0.075, "equivalent": true}"#;
    let convergence = verdict.map_or("null".to_string(), |v| {
        format!(
            r#"{{"attacker_trend": {}, "defender_trend": {}, "attacker_equivalence": {equal},
                "defender_equivalence": {equal}, "verdict": "{v}"}}"#,
            test(0.0),
            test(0.0)
        )
    });
    format!(
        r#"{{"variant": "brandubh", "agent": "{agent}", "simulations": {sims}, "time_ms": {time_ms},
            "games": {games}, "distinct_games": {games}, "openings": {{"plies": 2, "available": 120}},
            "attacker_wins": {attackers}, "defender_wins": {defenders}, "draws": 0,
            "mean_length": 30.0, "convergence": {convergence}}}"#
    )
}

#[test]
fn one_family_is_never_measured_and_two_that_agree_are() {
    let dir = tempfile::tempdir().expect("temp dir");
    let write = |family: &str, levels: [String; 2]| {
        std::fs::create_dir_all(dir.path().join(family)).expect("mkdir");
        std::fs::write(
            dir.path().join(family).join("balance.json"),
            format!("[{}]", levels.join(",")),
        )
        .expect("write");
    };
    write(
        "ab",
        [
            level("ab:t=10ms", 10.0, 0, 300, None),
            level("ab:t=40ms", 40.0, 0, 300, Some("measured")),
        ],
    );
    let path = dir.path().to_str().expect("path");
    // the reading is the section after its heading (a family's own verdict may say "measured")
    let reading = || {
        let text = python("families.py", &[path]);
        let (_, reading) = text.split_once("### Reading").expect("a reading");
        reading.to_string()
    };
    let alone = reading();
    assert!(alone.contains("**equivalent**"), "{alone}");
    assert!(!alone.contains("**measured**"), "{alone}");

    write(
        "net",
        [
            level("net:x:32", 0.0, 32, 300, None),
            level("net:x:128", 0.0, 128, 300, Some("measured")),
        ],
    );
    let both = reading();
    assert!(both.contains("**measured**"), "{both}");

    // the network's attackers 10 points apart: the families disagree, nothing is measured
    write(
        "net",
        [
            level("net:x:32", 0.0, 32, 400, None),
            level("net:x:128", 0.0, 128, 400, Some("measured")),
        ],
    );
    let apart = reading();
    assert!(apart.contains("**different**"), "{apart}");
    assert!(!apart.contains("**measured**"), "{apart}");
}

/// The study scripts' statistics (`balance_stats.py`, standard library only) reproduce the
/// figures the library's unit tests pin (statsmodels' and scipy's).
#[test]
fn the_study_scripts_statistics_hold_the_reference_figures() {
    let out = python("balance_stats.py", &["--check"]);
    assert!(out.contains("every reference figure holds"), "{out}");
}

#[test]
fn the_parity_table_is_made_from_the_depth_ladders() {
    let made = python("parity.py", &[]);
    let readme = std::fs::read_to_string(Path::new(STUDY).join("depth-ladders/README.md"))
        .expect("depth-ladders/README.md");
    assert!(readme.contains(made.trim_end()), "rerun parity.py:\n{made}");
    // every ladder with both halves has its row
    for dir in depth_ladder_variants() {
        let name = dir.file_name().expect("name").to_string_lossy();
        let (variant, search) = name.split_once('-').unwrap_or((&name, "plain"));
        assert!(
            made.contains(&format!("| {variant} | {search} |")),
            "{name}"
        );
    }
}

#[test]
fn parity_says_whether_the_even_and_odd_depths_agree() {
    let dir = tempfile::tempdir().expect("temp dir");
    let write = |half: &str, depth: u32, attackers: u32| {
        let path = dir.path().join("brandubh").join(half).join("ab");
        std::fs::create_dir_all(&path).expect("mkdir");
        let report = level(&format!("ab:{depth}"), 0.0, depth, attackers, None);
        std::fs::write(path.join("balance.json"), format!("[{report}]")).expect("write");
    };
    let table = || python("parity.py", &[dir.path().to_str().expect("path")]);
    // 1000 games a level: 54 % against 9 % is a difference, 30 % against 30 % an agreement
    write("even", 4, 540);
    write("odd", 5, 90);
    let apart = table();
    assert!(apart.contains("| brandubh | plain | 1000 |"), "{apart}");
    assert!(apart.contains("+45 [+42, +48]: **different**"), "{apart}");
    write("odd", 5, 540);
    let same = table();
    assert!(same.contains("+0 [-4, +4]: **equivalent**"), "{same}");
}

#[test]
fn depths_reads_the_same_games_from_a_store_and_from_its_records() {
    // Tablut's ladder commits both; Copenhagen's only the records, which depths.py then reads
    let store = format!("{STUDY}/ladders/tablut/ab/games/tablut__ab_t_40ms.jsonl");
    let code = format!(
        r#"
import shutil, sys, tempfile
from pathlib import Path
sys.path.insert(0, "{STUDY}")
from depths import read_games
store = Path("{store}")
with tempfile.TemporaryDirectory() as d:
    alone = Path(d) / store.name
    shutil.copy(store.with_suffix(".txt"), alone.with_suffix(".txt"))
    from_records = read_games(alone)
stored = [{{"id": g["id"], "moves": g["moves"]}} for g in read_games(store)]
print(len(stored), from_records == stored)
"#
    );
    let out = Command::new("python3")
        .args(["-c", &code])
        .output()
        .expect("python3 runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(text.trim(), "100 True");
}

/// `tavlei balance --sequential ARGS --json` in `out`: the strongest level's report.
fn sequential(out: &Path, args: &[&str]) -> serde_json::Value {
    let out = Command::new(env!("CARGO_BIN_EXE_tavlei"))
        .args([
            "--threads",
            "2",
            "balance",
            "--sequential",
            "--seed",
            "3",
            "--json",
        ])
        .args(args)
        .arg("--out")
        .arg(out)
        .output()
        .expect("runs tavlei");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let reports: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).expect("json");
    reports.last().expect("a report").clone()
}

fn lines(path: &Path) -> usize {
    std::fs::read_to_string(path)
        .expect("store")
        .lines()
        .count()
}

/// Sea Tafl's alpha-beta at depths 1 and 2, sequential in rounds of 20 up to 100 games a level
/// (without `--sequential` itself): the shares differ at the second look.
pub(crate) const SEQUENTIAL_SEA_TAFL: [&str; 10] = [
    "--variant",
    "sea_tafl",
    "--agent",
    "ab:2",
    "--levels",
    "1,2",
    "--games",
    "100",
    "--round",
    "20",
];

/// A sequential study stops at the first look whose boundary the difference crosses: Sea Tafl's
/// alpha-beta at depths 1 and 2 (attackers 12 against 55 % in 40 games a level: the parity of
/// the depth) is different at look 2 of 5, 40 of a cap of 100 games a level. A rerun plays
/// nothing; a run stopped mid-look continues from its stores to the same decision. Brandubh's
/// depths 1 and 3 (40 and 45 %) are neither equivalent nor different by the cap of 40 games.
#[test]
fn a_sequential_balance_study_stops_at_its_deciding_look_and_resumes() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let obvious = SEQUENTIAL_SEA_TAFL;
    let top = sequential(tmp.path(), &obvious);
    let s = &top["sequential"];
    assert_eq!(s["planned"], serde_json::json!([20, 40, 60, 80, 100]));
    let looks = s["looks"].as_array().expect("looks");
    let decisions: Vec<&str> = looks
        .iter()
        .map(|l| l["decision"].as_str().expect("a decision"))
        .collect();
    assert_eq!(decisions, ["continue", "different"]);
    assert_eq!(top["games"], 40);
    let last = &looks[1];
    assert!(
        last["attackers"]["z_difference"].as_f64().expect("z").abs()
            >= last["attackers"]["difference_bound"]
                .as_f64()
                .expect("bound")
    );
    // five looks, two pairs: the second look's bound is the 2.5 % design's (3.780)
    assert!(
        (last["attackers"]["difference_bound"]
            .as_f64()
            .expect("bound")
            - 3.780053)
            .abs()
            < 1e-4
    );
    let games = tmp.path().join("games");
    let stores = [
        games.join("sea_tafl__ab_1.jsonl"),
        games.join("sea_tafl__ab_2.jsonl"),
    ];
    assert_eq!(
        stores.each_ref().map(|p| lines(p)),
        [40, 40],
        "no game past the deciding look"
    );
    // a rerun replays nothing and reads the same
    let before = std::fs::read_to_string(&stores[1]).expect("store");
    assert_eq!(
        sequential(tmp.path(), &obvious)["sequential"]["looks"],
        s["looks"]
    );
    assert_eq!(std::fs::read_to_string(&stores[1]).expect("store"), before);
    // stopped during look 2: the strongest level's store cut to 27 games
    let cut: String = before.lines().take(27).map(|l| format!("{l}\n")).collect();
    std::fs::write(&stores[1], cut).expect("cuts");
    let resumed = sequential(tmp.path(), &obvious);
    assert_eq!(resumed["sequential"]["looks"], s["looks"]);
    assert_eq!(lines(&stores[1]), 40);

    let other = tempfile::tempdir().expect("temp dir");
    let close = [
        "--variant",
        "brandubh",
        "--agent",
        "ab:3",
        "--levels",
        "1,3",
        "--games",
        "40",
        "--round",
        "20",
    ];
    let top = sequential(other.path(), &close);
    let looks = top["sequential"]["looks"].as_array().expect("looks");
    let decisions: Vec<&str> = looks
        .iter()
        .map(|l| l["decision"].as_str().expect("a decision"))
        .collect();
    assert_eq!(decisions, ["continue", "undecided"]);
    assert_eq!(top["games"], 40);
    // the whole α is spent at the cap
    assert!((looks[1]["difference_alpha_spent"].as_f64().expect("spent") - 0.05).abs() < 1e-12);
}

/// Every cell of the older balance tables is counted for copies from its stored records
/// (`distinct.py`, committed as `distinct.md`), and the cells issue 45 found with copies are
/// flagged with the counts it found.
#[test]
fn the_copies_in_the_older_tables_are_counted_and_flagged() {
    let made = python("distinct.py", &[]);
    let committed =
        std::fs::read_to_string(Path::new(STUDY).join("distinct.md")).expect("distinct.md");
    assert_eq!(made, committed, "distinct.md is not what distinct.py makes");
    for (study, variant, agent, games, distinct) in [
        ("results-ab", "brandubh", "ab:t=10ms", 100, 85),
        ("results-ab", "sea_tafl", "ab:t=40ms", 100, 96),
        ("results-ab", "sea_tafl_king4", "ab:t=40ms", 100, 94),
        ("results-ab", "saami_tablut", "ab:t=10ms", 100, 99),
        ("results-ab", "sea_tafl_11", "ab:t=40ms", 50, 49),
        (
            "results-networks-tavlei",
            "tavlei",
            "net:models/tavlei.safetensors:8",
            20,
            9,
        ),
    ] {
        let row = format!("| `{STUDY}/{study}` | {variant} | `{agent}` | {games} | {distinct} |");
        let line = made
            .lines()
            .find(|l| l.starts_with(&row))
            .unwrap_or_else(|| panic!("no row {row}"));
        assert!(line.ends_with("| **copies** |"), "{line}");
    }
    // a cell without copies is not flagged
    let clean = made
        .lines()
        .find(|l| l.contains("results-ab` | brandubh | `ab:t=40ms` | 100 | 100 |"))
        .expect("brandubh 40 ms");
    assert!(!clean.contains("copies"), "{clean}");
}

/// A study that names no agent plays alpha-beta with quiescence at depths 2 and 4: levels of
/// one parity (plain alpha-beta's shares swing with the parity of its depth). Its settings file
/// is built in, so the study runs from any directory.
#[test]
fn a_study_without_an_agent_plays_alpha_beta_at_depths_of_one_parity() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let out = Command::new(env!("CARGO_BIN_EXE_tavlei"))
        .current_dir(tmp.path())
        .args([
            "balance",
            "--variant",
            "brandubh",
            "--games",
            "2",
            "--json",
            "--out",
            "study",
        ])
        .output()
        .expect("runs tavlei");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let reports: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).expect("json");
    let agents: Vec<&str> = reports
        .iter()
        .map(|r| r["agent"].as_str().expect("an agent"))
        .collect();
    assert_eq!(
        agents,
        [
            "ab:2:eval=configs/alphabeta/quiescence.toml",
            "ab:4:eval=configs/alphabeta/quiescence.toml"
        ]
    );
    // the stores name the built-in file by the hash of the repository's copy, so a study begun
    // in the repository continues from anywhere
    let file = std::fs::read("configs/alphabeta/quiescence.toml").expect("settings");
    let hash = format!("xxh3:{:016x}", xxhash_rust::xxh3::xxh3_64(&file));
    let claims: Vec<String> = walk(&tmp.path().join("study"))
        .into_iter()
        .filter_map(|p| std::fs::read_to_string(p).ok())
        .filter(|text| text.contains("\"configs/alphabeta/quiescence.toml\""))
        .collect();
    assert!(!claims.is_empty());
    assert!(claims.iter().all(|text| text.contains(&hash)), "{claims:?}");
}

/// Every file under `dir`.
fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .flat_map(|e| match e.path() {
            p if p.is_dir() => walk(&p),
            p => vec![p],
        })
        .collect()
}
