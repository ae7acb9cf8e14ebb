//! The `tavlei` binary end to end: the commands a user types, their output and their errors.

use std::process::{Command, Output};

fn tavlei(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tavlei"))
        .args(args)
        .output()
        .expect("runs tavlei")
}

fn tavlei_stdin(args: &[&str], input: &str) -> Output {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_tavlei"))
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("runs tavlei");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input.as_bytes())
        .expect("writes");
    child.wait_with_output().expect("finishes")
}

/// A fresh 1x8 network of `variant` at `checkpoint` (through `init-model`).
fn tiny_network(variant: &str, checkpoint: &str) {
    stdout(&tavlei(&[
        "init-model",
        "--variant",
        variant,
        "--blocks",
        "1",
        "--channels",
        "8",
        "--checkpoint",
        checkpoint,
    ]));
}

fn stdout(out: &Output) -> String {
    assert!(
        out.status.success(),
        "failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone()).expect("utf-8")
}

fn json_lines(text: &str) -> Vec<serde_json::Value> {
    text.lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object per line"))
        .collect()
}

#[test]
fn rules_list_shows_every_preset() {
    let text = stdout(&tavlei(&["rules", "list"]));
    assert_eq!(
        text.lines().count(),
        1 + tavlei::rules::presets::PRESET_NAMES.len()
    );
    assert!(text.contains("tablut") && text.contains("defenders"));
}

#[test]
fn rules_show_prints_board_and_parameters() {
    let text = stdout(&tavlei(&["rules", "show", "--variant", "brandubh"]));
    assert!(text.contains(" 4 A A D K D A A"), "{text}");
    assert!(text.contains("capture = \"throne_sensitive\""), "{text}");
}

#[test]
fn perft_counts_brandubh() {
    let text = stdout(&tavlei(&["perft", "--variant", "brandubh", "2"]));
    assert!(
        text.contains("perft(1) = 40") && text.contains("perft(2) = 960"),
        "{text}"
    );
}

#[test]
fn random_json_is_complete_and_reproducible() {
    let run = || {
        json_lines(&stdout(&tavlei(&[
            "random",
            "--variant",
            "brandubh",
            "--games",
            "30",
            "--seed",
            "3",
            "--json",
        ])))[0]
            .clone()
    };
    let (a, b) = (run(), run());
    for field in [
        "games",
        "plies",
        "legal_moves",
        "seconds",
        "plies_per_s",
        "attacker_wins",
        "defender_wins",
        "draws",
    ] {
        assert!(a.get(field).is_some(), "missing {field}");
    }
    assert_eq!(a["games"], 30);
    let total = a["attacker_wins"].as_u64().unwrap_or(0)
        + a["defender_wins"].as_u64().unwrap_or(0)
        + a["draws"].as_u64().unwrap_or(0);
    assert_eq!(total, 30);
    assert_eq!(a["plies"], b["plies"], "same seed, same games");
    assert_eq!(a["legal_moves"], b["legal_moves"]);
}

#[test]
fn recorded_random_games_replay_legally_with_the_same_outcomes() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let dir = tmp.path();
    for variant in [
        "copenhagen",
        "tablut",
        "berserk",
        "reconstruction_dice",
        "brandubh",
    ] {
        let path = dir.join(format!("{variant}.txt"));
        let path_text = path.to_str().expect("utf-8 path");
        stdout(&tavlei(&[
            "random",
            "--variant",
            variant,
            "--games",
            "15",
            "--seed",
            "11",
            "--record",
            path_text,
            "--json",
        ]));
        let record = std::fs::read_to_string(&path).expect("records written");
        let results: Vec<&str> = record
            .lines()
            .filter_map(|l| l.strip_prefix("[result \""))
            .collect();
        let reports = json_lines(&stdout(&tavlei(&[
            "replay",
            "--variant",
            variant,
            path_text,
            "--json",
        ])));
        assert_eq!(reports.len(), 15, "{variant}");
        for (report, result) in reports.iter().zip(results) {
            assert_eq!(report["legal"], true, "{variant}: {report}");
            assert_eq!(
                report["capture_mismatches"].as_array().map(Vec::len),
                Some(0),
                "{variant}: {report}"
            );
            let expected = format!(
                "{} {}\"]",
                report["outcome"].as_str().unwrap_or("?"),
                report["reason"].as_str().unwrap_or("?")
            );
            assert_eq!(result, expected, "{variant}");
        }
    }
}

#[test]
fn replay_reports_the_first_illegal_move_and_capture_mismatches() {
    // brandubh, attackers first: d6-c6 and e4-e3 are legal; a4-a7 would stop on a corner
    let games = "# a comment line\nd6-c6 e4-e3 a4-a7\nd6-c6xc5\n";
    let reports = json_lines(&stdout(&tavlei_stdin(
        &["replay", "--variant", "brandubh", "-", "--json"],
        games,
    )));
    assert_eq!(reports.len(), 2);
    assert_eq!(reports[0]["legal"], false);
    assert_eq!(reports[0]["illegal"]["ply"], 2);
    assert_eq!(reports[0]["illegal"]["move"], "a4-a7");
    assert!(
        reports[0]["illegal"]["reason"]
            .as_str()
            .unwrap_or("")
            .contains("corner"),
        "{}",
        reports[0]
    );
    assert_eq!(reports[1]["legal"], true);
    assert_eq!(reports[1]["capture_mismatches"][0]["expected"][0], "c5");
    assert_eq!(
        reports[1]["capture_mismatches"][0]["actual"]
            .as_array()
            .map(Vec::len),
        Some(0)
    );
}

#[test]
fn replay_goes_on_past_a_third_occurrence_and_ends_at_the_fourth() {
    // a4-a5 d5-c5 a5-a4 c5-d5 brings the start back: twice is a third occurrence, thrice a fourth
    let cycle = "a4-a5 d5-c5 a5-a4 c5-d5";
    let games = format!("{cycle} {cycle} a4-a3 d5-e5\n{cycle} {cycle} {cycle}\n");
    for variant in ["brandubh", "copenhagen"] {
        let games = if variant == "copenhagen" {
            // the same shuffle on the 11x11 layout: a8 and f8 stand for a4 and d5
            games
                .replace("a4-a5", "a8-a9")
                .replace("a5-a4", "a9-a8")
                .replace("a4-a3", "a8-a9")
                .replace("d5-c5", "f8-e8")
                .replace("c5-d5", "e8-f8")
                .replace("d5-e5", "f8-g8")
        } else {
            games.clone()
        };
        let reports = json_lines(&stdout(&tavlei_stdin(
            &["replay", "--variant", variant, "-", "--json"],
            &games,
        )));
        assert_eq!(reports.len(), 2, "{variant}");
        assert_eq!(reports[0]["legal"], true, "{variant}: {}", reports[0]);
        assert_eq!(reports[0]["plies"], 10, "{variant}");
        assert!(
            reports[0]["outcome"].is_null(),
            "{variant}: a third occurrence ends nothing: {}",
            reports[0]
        );
        assert_eq!(reports[1]["outcome"], "attackers", "{variant}");
        assert_eq!(reports[1]["reason"], "repetition", "{variant}");
        assert_eq!(reports[1]["ended_at_ply"], 11, "{variant}: the 12th move");
    }
}

#[test]
fn replay_from_a_position_checks_one_rule() {
    // copenhagen, attackers to move: f3-f2 sandwiches the defender on e2 against d2
    //  3 . . . . . a . . . . .
    //  2 . . . a D . . . . . .
    let from = "/11/3tT6/5t5/11/11/5K5/11/11/11/11/11/";
    let args = [
        "replay",
        "--variant",
        "copenhagen",
        "-",
        "--json",
        "--position",
        from,
        "--to-move",
        "attackers",
    ];
    let reports = json_lines(&stdout(&tavlei_stdin(
        &args,
        "f3-f2xe2\nf3-f2\nf3-f2xd2\nf3-f1\n",
    )));
    assert_eq!(reports[0]["captures"][0][0], "e2");
    assert_eq!(
        reports[0]["capture_mismatches"].as_array().map(Vec::len),
        Some(0)
    );
    assert_eq!(
        reports[1]["captures"][0][0], "e2",
        "a move without markers still captures"
    );
    assert_eq!(reports[2]["capture_mismatches"][0]["expected"][0], "d2");
    assert_eq!(reports[2]["capture_mismatches"][0]["actual"][0], "e2");
    assert_eq!(reports[3]["captures"][0].as_array().map(Vec::len), Some(0));
    assert!(
        reports[3]["final"]
            .as_str()
            .unwrap_or("")
            .starts_with("/5t5/3tT6/11/"),
        "{}",
        reports[3]
    );
}

#[test]
fn errors_are_one_line_without_a_panic() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let dir = tmp.path();
    let bad = dir.join("bad.toml");
    std::fs::write(
        &bad,
        "name = \"x\"\ntitle = \"x\"\nsource = \"x\"\nbogus = 1\n",
    )
    .expect("write");
    for args in [
        vec!["rules", "show", "--variant", bad.to_str().expect("utf-8")],
        vec!["rules", "show", "--variant", "no_such_variant"],
        vec![
            "perft",
            "--variant",
            "brandubh",
            "2",
            "--position",
            "/3t3/3t3/",
        ],
    ] {
        let out = tavlei(&args);
        assert!(!out.status.success(), "{args:?} should fail");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(
            err.starts_with("error: ") && !err.contains("panicked"),
            "{err}"
        );
    }
}

/// Agent specs, SPRT settings and sides are parsed by the argument parser: a bad value is
/// refused before anything runs, with the reason and the usage hint.
#[test]
fn bad_agents_sprt_settings_and_sides_are_refused_with_usage_help() {
    let cases: [(&[&str], &str); 4] = [
        (
            &["match", "--variant", "brandubh", "mcts:0", "random"],
            "'mcts:0' for '<A>'",
        ),
        (
            &[
                "match",
                "--variant",
                "brandubh",
                "mcts:8",
                "random",
                "--sprt",
                "0,50",
            ],
            "not four",
        ),
        (
            &["balance", "--variant", "brandubh", "--agent", "alpha:3"],
            "'alpha:3' for '--agent",
        ),
        (
            &[
                "perft",
                "--variant",
                "brandubh",
                "1",
                "--position",
                "/7/7/7/3K3/7/7/7/",
                "--to-move",
                "sideways",
            ],
            "not a side",
        ),
    ];
    for (args, expected) in cases {
        let out = tavlei(args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: a usage error");
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
        assert!(stderr.contains("--help"), "{args:?}: {stderr}");
    }
}

/// Charts need a font for their text; without one the command says which files it tried and
/// how to fix it, and the tables it wrote before the charts stay.
#[test]
fn a_missing_font_is_named_and_the_tables_stay() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let out = dir.path().join("study");
    let run = Command::new(env!("CARGO_BIN_EXE_tavlei"))
        .args(["balance", "--variant", "brandubh", "--agent", "mcts:2"])
        .args(["--levels", "2,4", "--games", "2", "--out"])
        .arg(&out)
        .env("TAVLEI_FONT", dir.path().join("no-such-font.ttf"))
        .output()
        .expect("runs tavlei");
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(!run.status.success(), "{stderr}");
    assert!(
        stderr.contains("no font") && stderr.contains("no-such-font.ttf"),
        "{stderr}"
    );
    assert!(stderr.contains("TAVLEI_FONT"), "{stderr}");
    assert!(out.join("balance.csv").exists() && out.join("balance.json").exists());
}

/// `rules export-otn` prints the string and names what OpenTafl cannot express; `rules
/// import-otn --toml` writes a variant file the other commands load.
#[test]
fn opentafl_rules_strings_go_out_and_come_back_through_the_cli() {
    let out = tavlei(&["rules", "export-otn", "--variant", "tablut"]);
    assert!(out.status.success());
    let text = stdout(&out);
    assert!(
        text.starts_with("dim:9 ") && text.trim_end().contains("start:/"),
        "{text}"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("camps"), "{stderr}");

    let dir = tempfile::tempdir().expect("a temporary directory");
    let file = dir.path().join("tablut-otn.toml");
    let file_arg = file.to_str().expect("utf-8");
    let out = tavlei(&["rules", "import-otn", text.trim(), "--toml", file_arg]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("nearest preset: tablut"), "{stderr}");
    // without its camps the imported Tablut is another game: the same start, other move trees
    let perft = |variant: &str| -> Vec<String> {
        let text = stdout(&tavlei(&["perft", "--variant", variant, "3"]));
        // the counts, not the timings
        text.lines()
            .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
            .collect()
    };
    let (imported, preset) = (perft(file_arg), perft("tablut"));
    assert_eq!(imported[..2], preset[..2], "the same first two plies");
    assert_ne!(imported[2], preset[2], "camps change the third");
    let bad = tavlei(&[
        "rules",
        "import-otn",
        "dim:9 ks:m start:/9/9/9/9/4K4/9/9/9/9/",
    ]);
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("`ks`"));
}

/// `render` draws a start position, or a recorded game at a ply, as SVG and PNG; a ply past the
/// game's end is a named error.
#[test]
fn render_draws_positions_and_recorded_games() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = |name: &str| dir.path().join(name).to_str().expect("utf-8").to_string();
    let out = tavlei(&["render", "--variant", "tablut", "--svg", &path("start.svg")]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let svg = std::fs::read_to_string(path("start.svg")).expect("the picture");
    // the last file and rank of a 9x9 board label its edges
    let compact: String = svg.split_whitespace().collect();
    assert!(svg.starts_with("<svg") && compact.contains(">i<") && compact.contains(">9<"));

    std::fs::write(path("game.txt"), "# game 0\nd6-c6 e4-e3 c6-c5\n").expect("writes");
    let picture = |ply: &str, png: &str| {
        tavlei(&[
            "render",
            "--variant",
            "brandubh",
            "--record",
            &path("game.txt"),
            "--ply",
            ply,
            "--png",
            &path(png),
        ])
    };
    assert!(picture("1", "one.png").status.success());
    assert!(picture("3", "three.png").status.success());
    let (one, three) = (
        std::fs::read(path("one.png")).expect("png"),
        std::fs::read(path("three.png")).expect("png"),
    );
    assert!(one.starts_with(b"\x89PNG") && one != three);
    let past = picture("4", "four.png");
    assert!(!past.status.success());
    assert!(String::from_utf8_lossy(&past.stderr).contains("has 3 plies"));
    let neither = tavlei(&["render", "--variant", "brandubh"]);
    assert_eq!(neither.status.code(), Some(2), "--svg or --png is required");
}

#[test]
fn analyze_answers_json_lines_through_the_command() {
    let input = "{\"id\": \"a\", \"max_moves\": 2}\n{\"id\": \"b\", \"moves\": [\"d2-b2\"], \"agent\": \"ab:2\"}\nnot json\n";
    let out = tavlei_stdin(
        &["analyze", "--variant", "brandubh", "--agent", "mcts:32"],
        input,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let answers = json_lines(&stdout(&out));
    assert_eq!(answers.len(), 3);
    let by_id = |id: serde_json::Value| {
        answers
            .iter()
            .find(|a| a["id"] == id)
            .unwrap_or_else(|| panic!("an answer for {id}"))
    };
    assert_eq!(by_id("a".into())["moves"].as_array().map(Vec::len), Some(2));
    assert_eq!(by_id("b".into())["to_move"], "defenders");
    assert!(by_id(serde_json::Value::Null)["error"]
        .as_str()
        .is_some_and(|e| e.starts_with("line 3")));
}

/// `tavlei play` with its input piped: no colour codes off a terminal, the move played and the
/// agent's answer, `quit` ending it cleanly; a bad side is a usage error.
#[test]
fn play_reads_moves_from_a_pipe_without_colour() {
    let out = tavlei_stdin(
        &[
            "play",
            "--variant",
            "brandubh",
            "--agent",
            "random",
            "--side",
            "attackers",
        ],
        "d6-c6\nquit\n",
    );
    let text = stdout(&out);
    assert!(text.contains("You play d6-c6."), "{text}");
    assert!(text.contains("random thinks... "), "{text}");
    assert!(text.contains(" 7  #  .  .  A  .  .  #  7\n"), "{text}");
    assert!(text.ends_with("Goodbye.\n"), "{text}");
    assert!(!text.contains('\x1b'), "{text:?}");
    let bad = tavlei(&["play", "--variant", "brandubh", "--side", "sideways"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("not a side"));
}

/// Records go out as OpenTafl game files and come back the same through `record export-otg` and
/// `record import-otg`; `replay` and `render` read an `.otg` file directly; a bad one is named.
#[test]
fn records_go_out_as_otg_files_and_come_back() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = |name: &str| dir.path().join(name).to_str().expect("utf-8").to_string();
    stdout(&tavlei(&[
        "random",
        "--variant",
        "tablut",
        "--games",
        "3",
        "--seed",
        "4",
        "--record",
        &path("games.txt"),
        "--json",
    ]));
    let out = tavlei(&[
        "record",
        "export-otg",
        "--variant",
        "tablut",
        &path("games.txt"),
        "--out",
        &path("otg"),
    ]);
    assert!(stdout(&out).contains("wrote 3 .otg files"));
    // tablut's camps are no part of OpenTafl's rules strings: said, not hidden
    assert!(String::from_utf8_lossy(&out.stderr).contains("camps"));
    let files: Vec<String> = (0..3)
        .map(|i| path(&format!("otg/games-{i}.otg")))
        .collect();
    let mut args = vec!["record", "import-otg"];
    args.extend(files.iter().map(String::as_str));
    let back = path("back.txt");
    args.extend(["--records", &back]);
    assert!(stdout(&tavlei(&args)).contains("wrote 3 games"));
    let original = std::fs::read_to_string(path("games.txt")).expect("records");
    let imported = std::fs::read_to_string(&back).expect("records");
    let without_comments = |text: &str| -> Vec<String> {
        text.lines()
            .filter(|l| !l.starts_with('#'))
            .map(String::from)
            .collect()
    };
    assert_eq!(without_comments(&imported), without_comments(&original));

    let reports = json_lines(&stdout(&tavlei(&[
        "replay",
        "--variant",
        "tablut",
        &files[1],
        "--json",
    ])));
    assert_eq!(reports.len(), 1);
    assert_eq!(reports[0]["legal"], true, "{}", reports[0]);
    let result = format!(
        "[result \"{} {}\"]",
        reports[0]["outcome"].as_str().unwrap_or("?"),
        reports[0]["reason"].as_str().unwrap_or("?")
    );
    assert!(original
        .split("# game")
        .nth(2)
        .is_some_and(|g| g.contains(&result)));
    let out = tavlei(&[
        "render",
        "--variant",
        "tablut",
        "--record",
        &files[1],
        "--ply",
        "2",
        "--svg",
        &path("g.svg"),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let otg = std::fs::read_to_string(&files[0]).expect("otg");
    std::fs::write(path("bad.otg"), otg.replace("[compiler:", "[player:")).expect("writes");
    let out = tavlei(&[
        "record",
        "import-otg",
        &path("bad.otg"),
        "--records",
        &path("x.txt"),
    ]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("bad.otg") && stderr.contains("unknown tag `player`"),
        "{stderr}"
    );
    assert!(
        !std::path::Path::new(&path("x.txt")).exists(),
        "nothing written"
    );
}

#[test]
fn selfplay_with_a_teacher_writes_shards_that_data_inspect_reads() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let out = tmp.path().join("ab");
    let out_text = out.to_str().expect("utf-8 path");
    let base = [
        "selfplay",
        "--variant",
        "brandubh",
        "--games",
        "4",
        "--seed",
        "2",
        "--out",
        out_text,
    ];
    let text = stdout(&tavlei(&[&base[..], &["--teacher", "ab:2"]].concat()));
    assert!(
        text.contains("4 games of brandubh with alpha-beta to depth 2"),
        "{text}"
    );
    let stats = json_lines(&stdout(&tavlei(&["data", "inspect", out_text, "--json"])));
    assert_eq!(stats[0]["games"], 4, "{stats:?}");
    // a teacher that is not alpha-beta at a depth is refused by name, and nothing is played
    for bad in ["mcts:8", "ab:t=10ms"] {
        let other = tmp.path().join("bad");
        let run = tavlei(&[
            "selfplay",
            "--variant",
            "brandubh",
            "--games",
            "2",
            "--out",
            other.to_str().expect("utf-8"),
            "--teacher",
            bad,
        ]);
        assert!(!run.status.success(), "{bad}");
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert!(stderr.contains(&format!("--teacher {bad}")), "{stderr}");
        assert!(!other.exists(), "{bad}: nothing is written");
    }
}

/// `precision = "bf16"` or `"int8"` in a self-play config reaches the network that plays (its
/// description names the precision), and its games are written and read back like f32's.
#[test]
fn selfplay_in_bf16_or_int8_says_so_and_writes_readable_games() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let config = std::fs::read_to_string("configs/selfplay.toml").expect("the documented config");
    for precision in ["f32", "bf16", "int8"] {
        let cfg = tmp.path().join(format!("{precision}.toml"));
        let text = config.replace(
            "precision = \"f32\"",
            &format!("precision = \"{precision}\""),
        );
        let text = text.replace("simulations = 64", "simulations = 8");
        std::fs::write(&cfg, text).expect("writes");
        let out = tmp.path().join(precision);
        let printed = stdout(&tavlei(&[
            "selfplay",
            "--variant",
            "brandubh",
            "--model",
            "models/brandubh.safetensors",
            "--config",
            cfg.to_str().expect("utf-8"),
            "--games",
            "2",
            "--seed",
            "3",
            "--out",
            out.to_str().expect("utf-8"),
        ]));
        assert!(
            printed.contains("2 games of brandubh with network 3x48 (step"),
            "{printed}"
        );
        assert!(printed.contains(&format!(", {precision})")), "{printed}");
        let stats = json_lines(&stdout(&tavlei(&[
            "data",
            "inspect",
            out.to_str().expect("utf-8"),
            "--json",
        ])));
        assert_eq!(stats[0]["games"], 2, "{stats:?}");
    }
}

#[test]
fn tune_fits_the_evaluation_to_stored_games_and_the_tuned_agent_plays() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = |name: &str| dir.path().join(name).display().to_string();
    stdout(&tavlei(&[
        "--threads",
        "2",
        "balance",
        "--variant",
        "brandubh",
        "--agent",
        "ab:1",
        "--games",
        "24",
        "--seed",
        "3",
        "--out",
        &out("study"),
    ]));
    // `tavlei tune` of the study's games into NAME with EXTRA arguments: its output and tune.json
    let tune = |name: &str, extra: &[&str]| -> (String, serde_json::Value) {
        let (games, dest) = (out("study/games"), out(name));
        let common = [
            "tune",
            "--variant",
            "brandubh",
            "--games",
            &games,
            "--out",
            &dest,
        ];
        let text = stdout(&tavlei(
            &[&common[..], &["--holdout", "0.25"], extra].concat(),
        ));
        let report = std::fs::read_to_string(dir.path().join(name).join("tune.json"));
        (
            text,
            serde_json::from_str(&report.expect("tune.json")).expect("JSON"),
        )
    };
    let (text, report) = tune("tuned", &[]);
    assert!(text.contains("| weights after |"), "{text}");
    let count = |k: &str| report[k].as_u64().expect(k);
    assert_eq!(
        count("games_train") + count("games_held_out") + count("duplicate_games"),
        24
    );
    assert!(count("positions_train") > 0 && count("positions_held_out") > 0);
    let loss = |which: &str| report[which]["train"].as_f64().expect(which);
    // calibrating the scale, then fitting the weights from there, can only lower the training
    // loss (up to the rounding of the weights to integers)
    assert!(
        loss("loss_before_calibrated") <= loss("loss_before") + 1e-9,
        "{report}"
    );
    assert!(
        loss("loss_after") <= loss("loss_before_calibrated") + 1e-3,
        "{report}"
    );
    assert!(report["value_scale"].as_f64().expect("scale") > 0.0);
    let tuned =
        tavlei::search::alphabeta::AlphaBetaConfig::load(dir.path().join("tuned/alphabeta.toml"))
            .expect("the tuned settings load");
    assert_ne!(
        tuned.eval,
        tavlei::search::alphabeta::EvalWeights::default()
    );
    // quiet positions only, from settings with a quiescence search: the same games and split,
    // every position either kept or counted as not quiet, and the search settings kept
    let base = format!(
        "{}/configs/alphabeta/quiescence.toml",
        env!("CARGO_MANIFEST_DIR")
    );
    let (text, quiet) = tune("quiet", &["--quiet-positions", "--base", &base]);
    assert!(text.contains("left out as not quiet"), "{text}");
    let quiet_count = |k: &str| quiet[k].as_u64().expect(k);
    assert!(quiet_count("positions_not_quiet") > 0, "{quiet}");
    assert_eq!(
        quiet_count("positions_train")
            + quiet_count("positions_held_out")
            + quiet_count("positions_not_quiet"),
        count("positions_train") + count("positions_held_out")
    );
    let quiet_settings =
        tavlei::search::alphabeta::AlphaBetaConfig::load(dir.path().join("quiet/alphabeta.toml"))
            .expect("the tuned settings load");
    assert_eq!(quiet_settings.search.quiescence, 4);

    let agent = format!("ab:1:eval={}", out("tuned/alphabeta.toml"));
    let text = stdout(&tavlei(&[
        "match",
        "--variant",
        "brandubh",
        &agent,
        "ab:1",
        "--pairs",
        "2",
        "--seed",
        "1",
    ]));
    assert!(text.contains("eval="), "{text}");

    // a stored game with an illegal move: the file, the game and the ply are named
    let bad = dir.path().join("bad.jsonl");
    let store = std::fs::read_dir(dir.path().join("study/games"))
        .expect("games")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .expect("a store");
    let first = std::fs::read_to_string(store).expect("store");
    let mut game: serde_json::Value =
        serde_json::from_str(first.lines().next().expect("a game")).expect("JSON");
    game["moves"][1] = serde_json::Value::from("a1-a2");
    std::fs::write(&bad, format!("{game}\n")).expect("writes");
    let failed = tavlei(&[
        "tune",
        "--variant",
        "brandubh",
        "--games",
        &out("study/games"),
        &bad.display().to_string(),
        "--out",
        &out("bad"),
        "--skip-plies",
        "0",
    ]);
    let err = String::from_utf8_lossy(&failed.stderr);
    assert!(!failed.status.success());
    // the file the game came from, not every file read
    assert!(
        err.contains("bad.jsonl") && err.contains("ply 1") && err.contains("a1-a2"),
        "{err}"
    );
    assert!(!err.contains("brandubh__ab_1.jsonl"), "{err}");
    assert!(!dir.path().join("bad/alphabeta.toml").exists());
}

#[test]
fn info_loads_libtorchs_cuda_half_only_where_a_driver_is() {
    let text = stdout(&tavlei(&["info"]));
    // and says which int8 kernels this CPU runs
    // (detected here independently of the library's choice)
    let kernels = if std::arch::is_x86_feature_detected!("avx512vnni") {
        "int8 inference: AVX-512 VNNI"
    } else if std::arch::is_x86_feature_detected!("avx2") {
        "int8 inference: AVX2"
    } else {
        "int8 inference: plain Rust"
    };
    assert!(text.contains(kernels), "{text}");
    if tavlei::nn::device::gpu_driver_present() {
        assert!(
            text.contains("CUDA library loaded") || text.contains("not loadable"),
            "{text}"
        );
    } else {
        // on a machine without a GPU the process never maps the CUDA libraries
        assert!(
            text.contains("CUDA library not loaded (no NVIDIA driver)"),
            "{text}"
        );
        assert!(text.contains("device for networks: Cpu"), "{text}");
    }
}

#[test]
fn a_cuda_library_named_at_run_time_is_the_one_tried() {
    // a binary moved to a GPU node finds that node's torch through the variable
    let missing = "/no/such/torch/lib/libtorch_cuda.so";
    let info = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_tavlei"))
            .args(args)
            .env("TAVLEI_TORCH_CUDA_LIBRARY", missing)
            .output()
            .expect("run tavlei")
    };
    let text = stdout(&info(&["info"]));
    assert!(
        text.contains(&format!("CUDA library path: {missing}")),
        "{text}"
    );
    // asked for CUDA, it tries that file, says so, and refuses to run on the CPU instead
    let cuda = info(&["info", "--device", "cuda"]);
    let err = String::from_utf8_lossy(&cuda.stderr);
    assert!(!cuda.status.success());
    assert!(
        err.contains(missing) && err.contains("libtorch sees no CUDA device"),
        "{err}"
    );
}

#[test]
fn a_study_can_draw_its_openings_by_a_networks_policy() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("study");
    let out_arg = out.to_str().expect("utf-8");
    let run = tavlei(&[
        "balance",
        "--variant",
        "brandubh",
        "--agent",
        "random",
        "--games",
        "6",
        "--opening-policy",
        "models/brandubh.safetensors",
        "--out",
        out_arg,
    ]);
    assert!(run.status.success(), "{run:?}");
    let report: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(out.join("balance.json")).expect("balance.json"),
    )
    .expect("json");
    let openings = &report[0]["openings"];
    assert_eq!(
        openings["sampled_by"], "models/brandubh.safetensors",
        "{report}"
    );
    assert_eq!(report[0]["distinct_games"], 6, "{report}");
    // a policy of another variant is refused by name
    let wrong = tavlei(&[
        "balance",
        "--variant",
        "tablut",
        "--agent",
        "random",
        "--games",
        "2",
        "--opening-policy",
        "models/brandubh.safetensors",
        "--out",
        out_arg,
    ]);
    assert!(!wrong.status.success());
    let err = String::from_utf8_lossy(&wrong.stderr);
    assert!(err.contains("brandubh") && err.contains("tablut"), "{err}");
}

#[test]
fn grow_writes_a_larger_network_and_refuses_to_shrink() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let small = tmp.path().join("small.safetensors");
    let large = tmp.path().join("large.safetensors");
    let path = |p: &std::path::Path| p.to_str().expect("utf-8 path").to_string();
    tiny_network("brandubh", &path(&small));
    let text = stdout(&tavlei(&[
        "grow",
        &path(&small),
        "--blocks",
        "2",
        "--channels",
        "12",
        "--checkpoint",
        &path(&large),
    ]));
    assert!(text.contains("2x12 grown from 1x8"), "{text}");
    let grown = tavlei::nn::CheckpointMeta::read(&large).expect("the grown sidecar");
    assert_eq!(
        (grown.architecture.blocks, grown.architecture.channels),
        (2, 12)
    );
    assert_eq!(grown.variant, "brandubh");

    let shrink = tavlei(&[
        "grow",
        &path(&large),
        "--channels",
        "8",
        "--checkpoint",
        &path(&tmp.path().join("back.safetensors")),
    ]);
    assert!(!shrink.status.success());
    let err = String::from_utf8_lossy(&shrink.stderr);
    assert!(
        err.contains("2x12") && err.contains("2x8") && err.contains("shrink"),
        "{err}"
    );
    let misnamed = tavlei(&[
        "grow",
        &path(&small),
        "--blocks",
        "2",
        "--checkpoint",
        &path(&tmp.path().join("grown.pt")),
    ]);
    assert!(!misnamed.status.success());
    let err = String::from_utf8_lossy(&misnamed.stderr);
    assert!(
        err.contains("grown.pt") && err.contains(".safetensors"),
        "{err}"
    );
}

/// `data calibration` splits the samples by side to move and measures a network's raw value
/// against their results: the counts and mean results are the shards', the mean values the
/// network's own, and a network of another variant is refused by name.
#[test]
fn data_calibration_measures_each_side_against_the_stored_results() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let path = |name: &str| tmp.path().join(name).display().to_string();
    let (games, model, out) = (path("games"), path("net.safetensors"), path("calibration"));
    stdout(&tavlei(&[
        "selfplay",
        "--variant",
        "brandubh",
        "--games",
        "6",
        "--seed",
        "3",
        "--out",
        &games,
        "--teacher",
        "ab:2",
    ]));
    tiny_network("brandubh", &model);
    let report = json_lines(&stdout(&tavlei(&[
        "data",
        "calibration",
        &games,
        "--model",
        &model,
        "--bins",
        "4",
        "--json",
        "--out",
        &out,
    ])));
    let sides = report[0]["sides"].as_array().expect("sides");
    let data = tavlei::data::read_dir(std::path::Path::new(&games), None).expect("shards");
    let v = tavlei::interop::load_variant("brandubh").expect("preset");
    let net = tavlei::nn::Network::load(std::path::Path::new(&model), None, tch::Device::Cpu)
        .expect("network");
    assert_eq!(report[0]["samples"], data.samples.len());
    assert_eq!(sides.len(), 2, "{report:?}");
    for (side, name) in sides.iter().zip(["attackers", "defenders"]) {
        assert_eq!(side["side"], name);
        let mine: Vec<_> = data
            .samples
            .iter()
            .filter(|s| format!("{:?}", s.side_to_move).to_lowercase() == name)
            .collect();
        let positions: Vec<_> = mine
            .iter()
            .map(|s| s.position(&v).expect("position"))
            .collect();
        let (_, values) = net
            .evaluate(&positions.iter().collect::<Vec<_>>())
            .expect("values");
        let mean =
            |x: &mut dyn Iterator<Item = f32>| x.map(f64::from).sum::<f64>() / mine.len() as f64;
        assert_eq!(side["samples"], mine.len());
        let close = |key: &str, expected: f64| {
            let got = side[key].as_f64().expect("number");
            assert!(
                (got - expected).abs() < 1e-4,
                "{name} {key}: {got} against {expected}"
            );
        };
        close("mean_result", mean(&mut mine.iter().map(|s| s.result)));
        close("mean_value", mean(&mut values.iter().copied()));
        let binned: u64 = side["bins"]
            .as_array()
            .expect("bins")
            .iter()
            .map(|b| b["samples"].as_u64().expect("n"))
            .sum();
        assert_eq!(binned, mine.len() as u64, "every sample in a bin");
    }
    for file in ["calibration.json", "reliability.svg", "reliability.png"] {
        assert!(tmp.path().join("calibration").join(file).exists(), "{file}");
    }
    let few = json_lines(&stdout(&tavlei(&[
        "data",
        "calibration",
        &games,
        "--model",
        &model,
        "--max-samples",
        "7",
        "--json",
    ])));
    assert_eq!(few[0]["samples"], 7);
    // a Tablut network is not measured on Brandubh games
    let other = path("tablut.safetensors");
    tiny_network("tablut", &other);
    let refused = tavlei(&["data", "calibration", &games, "--model", &other]);
    assert!(!refused.status.success());
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(stderr.contains("tablut.safetensors"), "{stderr}");
}

/// `[starts]` in a self-play config reaches the games, and the command says how many started
/// from alpha-beta's play.
#[test]
fn selfplay_from_alpha_beta_starts_says_how_many() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let config = std::fs::read_to_string("configs/selfplay.toml").expect("the documented config");
    let text = config
        .replace("simulations = 64", "simulations = 8")
        .replace(
            "# [starts]\n# share = 0.25\n# plies = [4, 40]\n# agent = \"ab:2\"",
            "[starts]\nshare = 1.0\nplies = [2, 6]\nagent = \"ab:1\"",
        );
    assert_ne!(text, config, "configs/selfplay.toml documents [starts]");
    let cfg = tmp.path().join("starts.toml");
    std::fs::write(&cfg, text).expect("writes");
    let out = tmp.path().join("games");
    let printed = stdout(&tavlei(&[
        "selfplay",
        "--variant",
        "brandubh",
        "--rollouts",
        "2",
        "--config",
        cfg.to_str().expect("utf-8"),
        "--games",
        "3",
        "--seed",
        "4",
        "--out",
        out.to_str().expect("utf-8"),
    ]));
    assert!(
        printed.contains("3 games started after alpha-beta's first plies"),
        "{printed}"
    );
}
