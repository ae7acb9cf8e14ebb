//! Killed runs lose nothing: `selfplay`, `train`, `balance`, `match` and `pipeline` are each
//! killed with SIGKILL at seeded random moments and rerun with the same command; the results are
//! byte for byte those of an uninterrupted run. And a run whose output cannot grow (a file-size
//! limit) fails with an error naming the file, leaving every file written before it intact.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A fresh scratch directory, removed when the returned value is dropped (a failing test too).
fn scratch() -> tempfile::TempDir {
    tempfile::tempdir().expect("scratch dir")
}

fn command(args: &[String]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_tavlei"));
    // one thread everywhere: libtorch's float sums then come out the same on every run
    cmd.args(args)
        .env("OMP_NUM_THREADS", "1")
        .env("RAYON_NUM_THREADS", "1")
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    cmd
}

fn run_to_end(args: &[String]) -> Duration {
    let clock = Instant::now();
    let out = command(args).output().expect("runs tavlei");
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    clock.elapsed()
}

/// Runs `args` up to `kills` times, each killed (SIGKILL) a seeded random share of `full` times
/// `scale` after the run first adds to its output (on a loaded machine a fixed delay from the
/// start often fell before any output or after the end). Returns whether every kill found the
/// child still running (it died of the signal, not of its own end) and whether some kill came
/// after the run wrote output (so a rerun had work to resume from).
fn kill_runs(
    args: &[String],
    out: &Path,
    full: Duration,
    kills: usize,
    scale: f64,
    rng: &mut ChaCha8Rng,
) -> (bool, bool) {
    use std::os::unix::process::ExitStatusExt;
    let mut progressed = false;
    for _ in 0..kills {
        let before = output_bytes(out);
        let mut child = command(args).spawn().expect("starts tavlei");
        let give_up = Instant::now() + full.mul_f64(4.0);
        while output_bytes(out) == before
            && Instant::now() < give_up
            && matches!(child.try_wait(), Ok(None))
        {
            std::thread::sleep(Duration::from_millis(2));
        }
        std::thread::sleep(full.mul_f64(scale * rng.random_range(0.0..0.3)));
        let written = output_bytes(out) != before;
        child.kill().ok(); // SIGKILL; it may have finished already
        let status = child.wait().expect("reaped");
        if status.signal() != Some(libc::SIGKILL) {
            return (false, progressed);
        }
        progressed |= written;
    }
    (true, progressed)
}

/// The bytes of the finished files under `dir` (temporary ones left out); a directory that
/// changes while it is read (a running child renames its temporary files) is read as far as it
/// can be.
fn output_bytes(dir: &Path) -> u64 {
    let mut total = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            match entry.metadata() {
                Ok(m) if m.is_dir() => stack.push(entry.path()),
                Ok(m) if !entry.file_name().to_string_lossy().contains(".tmp") => total += m.len(),
                _ => {}
            }
        }
    }
    total
}

/// Kills `make(out)` three times and reruns it to the end. Every kill must land on a running
/// child (a rerun that resumes is shorter than the first run, so a late kill would find it
/// done and test nothing) and one after it wrote output: a try that misses is started again in
/// a fresh directory with earlier kills (or later ones when nothing was written yet).
fn run_with_kills(name: &str, make: &dyn Fn(&Path) -> Vec<String>, out: &Path, full: Duration) {
    let mut rng = ChaCha8Rng::seed_from_u64(name.len() as u64);
    let mut scale = 1.0;
    for attempt in 1.. {
        if out.exists() {
            std::fs::remove_dir_all(out).expect("removes the last try");
        }
        let (landed, progressed) = kill_runs(&make(out), out, full, 3, scale, &mut rng);
        if landed && progressed {
            break;
        }
        assert!(
            attempt < 5,
            "{name}: in {attempt} tries the kills never all landed on a running child after \
             it wrote output (last: all landed {landed}, output {progressed}, scale {scale})"
        );
        eprintln!("{name}: try {attempt}: all kills landed {landed}, output {progressed}");
        scale *= if landed { 1.5 } else { 0.5 };
    }
    run_to_end(&make(out));
}

/// Every file under `dir` whose path relative to it `keep` accepts, with its bytes.
fn files(dir: &Path, keep: &dyn Fn(&str) -> bool) -> BTreeMap<String, Vec<u8>> {
    let mut found = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).expect("readable dir") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let rel = path
                    .strip_prefix(dir)
                    .expect("under dir")
                    .display()
                    .to_string();
                if keep(&rel) {
                    found.insert(rel, std::fs::read(&path).expect("readable file"));
                }
            }
        }
    }
    found
}

/// The command `make(out)` run whole and run with kills give the same kept files, and no
/// temporary file is left behind.
fn check(name: &str, make: impl Fn(&Path) -> Vec<String>, keep: &dyn Fn(&str) -> bool) {
    let tmp = scratch();
    let dir = tmp.path();
    let (whole, killed) = (dir.join("whole"), dir.join("killed"));
    let full = run_to_end(&make(&whole));
    run_with_kills(name, &make, &killed, full);
    let (a, b) = (files(&whole, keep), files(&killed, keep));
    assert!(!a.is_empty(), "{name}: nothing to compare");
    assert_eq!(
        a.keys().collect::<Vec<_>>(),
        b.keys().collect::<Vec<_>>(),
        "{name}: other files"
    );
    for (file, bytes) in &a {
        // text that names its own run directory (match reports name the networks) is compared
        // with the directory names swapped
        let expected = match std::str::from_utf8(bytes) {
            Ok(text) => text.replace(&path(&whole), &path(&killed)).into_bytes(),
            Err(_) => bytes.clone(),
        };
        assert!(b[file] == expected, "{name}: {file} differs after kills");
    }
    let leftovers: Vec<String> = files(&killed, &|f| f.contains(".tmp"))
        .into_keys()
        .collect();
    assert!(
        leftovers.is_empty(),
        "{name}: temporary files left: {leftovers:?}"
    );
}

fn strings(parts: &[&str]) -> Vec<String> {
    parts.iter().map(|s| s.to_string()).collect()
}

fn path(p: &Path) -> String {
    p.display().to_string()
}

/// The TOML text `text` with each `(path, value)` set, a path naming a key in its table
/// (`selfplay.simulations`). Parsed, not replaced as text: a key that is not there (renamed,
/// moved) fails here instead of leaving the shipped value in place.
fn set_keys(text: &str, values: &[(&str, i64)]) -> String {
    let mut doc: toml::Table = toml::from_str(text).expect("a TOML config");
    for &(path, value) in values {
        let (tables, key) = match path.rsplit_once('.') {
            Some((tables, key)) => (tables.split('.').collect::<Vec<_>>(), key),
            None => (Vec::new(), path),
        };
        let mut table = &mut doc;
        for t in tables {
            table = table
                .get_mut(t)
                .and_then(|v| v.as_table_mut())
                .unwrap_or_else(|| panic!("no table [{t}] for {path}"));
        }
        let old = table.insert(key.into(), toml::Value::Integer(value));
        assert!(
            matches!(old, Some(toml::Value::Integer(_))),
            "{path}: no such integer key ({old:?})"
        );
    }
    toml::to_string(&doc).expect("TOML")
}

/// A self-play config with few simulations, so the tests' runs take seconds.
fn tiny_selfplay(dir: &Path) -> PathBuf {
    let text = std::fs::read_to_string("configs/selfplay.toml").expect("config");
    let text = set_keys(
        &text,
        &[
            ("simulations", 12),
            ("fast_simulations", 4),
            ("games_per_shard", 4),
        ],
    );
    let file = dir.join("selfplay.toml");
    std::fs::create_dir_all(dir).expect("dir");
    std::fs::write(&file, text).expect("writes");
    file
}

#[test]
fn selfplay_killed_and_rerun_writes_the_same_shards() {
    let tmp = scratch();
    let cfg = tiny_selfplay(tmp.path());
    check(
        "selfplay",
        |out| {
            let mut a = strings(&["selfplay", "--variant", "brandubh", "--rollouts", "1"]);
            a.extend(strings(&["--games", "24", "--seed", "3", "--config"]));
            a.extend([path(&cfg), "--out".into(), path(out)]);
            a
        },
        &|f| f.ends_with(".shard") || f.ends_with(".txt"),
    );
}

#[test]
fn balance_and_match_killed_and_rerun_keep_the_same_games() {
    check(
        "balance",
        |out| {
            let mut a = strings(&["balance", "--variant", "brandubh", "--agent", "mcts:24"]);
            a.extend(strings(&["--games", "24", "--seed", "2", "--out"]));
            a.push(path(out));
            a
        },
        &|f| f.starts_with("games/"),
    );
    check(
        "match",
        |out| {
            let mut a = strings(&["match", "--variant", "brandubh", "mcts:24", "mcts:8"]);
            a.extend(strings(&["--pairs", "10", "--seed", "2", "--out"]));
            a.push(path(out));
            a
        },
        &|f| f.ends_with(".txt") || f == "match.json",
    );
}

#[test]
fn a_stopped_match_resumes_from_its_stored_games_and_refuses_another_matchs() {
    let tmp = scratch();
    let args = |out: &Path, seed: &str| {
        let mut a = strings(&["match", "--variant", "brandubh", "mcts:16", "mcts:4"]);
        a.extend(strings(&["--pairs", "3", "--seed", seed, "--out"]));
        a.push(path(out));
        a
    };
    let ids = |store: &str| {
        let mut ids: Vec<u64> = store
            .lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("a game")["id"].as_u64())
            .map(|id| id.expect("an id"))
            .collect();
        ids.sort_unstable();
        ids
    };
    let (whole, part) = (tmp.path().join("whole"), tmp.path().join("part"));
    run_to_end(&args(&whole, "6"));
    let store = std::fs::read_to_string(whole.join("games.jsonl")).expect("the games are stored");
    assert_eq!(ids(&store), (0..6).collect::<Vec<_>>());

    // a match stopped after two games, while writing the third
    let lines: Vec<&str> = store.lines().collect();
    std::fs::create_dir_all(&part).expect("dir");
    let stopped = format!("{}\n{}\n{}", lines[0], lines[1], &lines[2][..20]);
    std::fs::write(part.join("games.jsonl"), stopped).expect("writes");
    std::fs::copy(whole.join("settings.json"), part.join("settings.json")).expect("copies");
    run_to_end(&args(&part, "6"));
    let resumed = std::fs::read_to_string(part.join("games.jsonl")).expect("store");
    assert!(resumed.starts_with(&format!("{}\n{}\n", lines[0], lines[1])));
    assert_eq!(
        ids(&resumed),
        (0..6).collect::<Vec<_>>(),
        "no game played twice"
    );
    for file in ["match.json", "games.txt"] {
        assert!(
            std::fs::read(whole.join(file)).expect("whole")
                == std::fs::read(part.join(file)).expect("resumed"),
            "{file} differs"
        );
    }

    // another match in the same directory is refused, naming the difference, and changes nothing
    let report = std::fs::read(whole.join("match.json")).expect("report");
    let out = command(&args(&whole, "7")).output().expect("runs tavlei");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains("seed 6, now 7") && err.contains(&path(&whole)),
        "{err}"
    );
    assert_eq!(
        std::fs::read(whole.join("match.json")).expect("report"),
        report
    );
    assert_eq!(
        std::fs::read_to_string(whole.join("games.jsonl")).expect("store"),
        store
    );

    // so is the same command once a file its agents read has other bytes (a retrained network,
    // edited alpha-beta settings), naming the file
    let eval = tmp.path().join("eval.toml");
    std::fs::copy("configs/alphabeta/quiescence.toml", &eval).expect("copies");
    let agent = format!("ab:1:eval={}", path(&eval));
    let mut a = strings(&["match", "--variant", "brandubh", &agent, "ab:1"]);
    a.extend(strings(&["--pairs", "1", "--out"]));
    a.push(path(&tmp.path().join("ab")));
    run_to_end(&a);
    run_to_end(&a);
    let edited = std::fs::read_to_string(&eval).expect("settings") + "\n# edited\n";
    std::fs::write(&eval, edited).expect("writes");
    let out = command(&a).output().expect("runs tavlei");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(err.contains(&format!("files {}", path(&eval))), "{err}");
}

#[test]
fn training_killed_and_resumed_ends_with_the_same_weights() {
    let tmp = scratch();
    let dir = tmp.path();
    let cfg = tiny_selfplay(dir);
    let data = dir.join("data");
    let mut a = strings(&["selfplay", "--variant", "brandubh", "--rollouts", "1"]);
    a.extend(strings(&["--games", "8", "--seed", "5", "--config"]));
    a.extend([path(&cfg), "--out".into(), path(&data)]);
    run_to_end(&a);
    let init = dir.join("init.safetensors");
    let mut a = strings(&["init-model", "--variant", "brandubh", "--blocks", "1"]);
    a.extend(strings(&["--channels", "8", "--seed", "1", "--checkpoint"]));
    a.push(path(&init));
    run_to_end(&a);
    let train_cfg = dir.join("train.toml");
    let text = std::fs::read_to_string("configs/train.toml").expect("config");
    let text = set_keys(
        &text,
        &[
            ("batch_size", 32),
            ("steps", 120),
            ("checkpoint_every", 10),
            ("log_every", 10),
            ("validate_every", 40),
        ],
    );
    std::fs::write(&train_cfg, text).expect("writes");
    check(
        "train",
        |out| {
            let mut a = strings(&["train", "--data"]);
            a.extend([path(&data), "--init".into(), path(&init), "--config".into()]);
            a.extend([
                path(&train_cfg),
                "--checkpoint".into(),
                path(&out.join("model.safetensors")),
            ]);
            a.extend(strings(&["--seed", "4", "--resume"]));
            a
        },
        &|f| f == "model.safetensors",
    );
}

#[test]
fn pipeline_killed_and_rerun_makes_the_same_networks() {
    let tmp = scratch();
    let dir = tmp.path();
    let text = std::fs::read_to_string("configs/pipeline/brandubh.toml").expect("config");
    let text = set_keys(
        &text,
        &[
            ("generations", 2),
            ("games_per_generation", 6),
            ("network.blocks", 1),
            ("network.channels", 8),
            ("selfplay.simulations", 6),
            ("selfplay.fast_simulations", 3),
            ("selfplay.concurrent_games", 6),
            ("selfplay.games_per_shard", 3),
            ("train.steps", 6),
            ("train.batch_size", 16),
            ("train.log_every", 3),
            ("eval.simulations", 6),
            ("eval.pairs", 2),
            // the classical anchor plays on time, which no rerun repeats exactly
            ("eval.anchor_pairs", 0),
            ("eval.ladder_pairs", 1),
        ],
    );
    let cfg = dir.join("pipeline.toml");
    std::fs::write(&cfg, text).expect("writes");
    check(
        "pipeline",
        |out| {
            let mut a = strings(&["pipeline", "--config"]);
            a.extend([path(&cfg), "--run-dir".into(), path(out)]);
            a.extend(strings(&["--balance-games", "4"]));
            a
        },
        // the closing balance games are not compared byte for byte: a resumed study plays its
        // missing network games in smaller batches, and batched inference on the CPU sums in
        // another order (last-bit differences can change a move); `balance_keeps_...` above
        // covers the store itself
        &|f| {
            f.ends_with(".safetensors")
                || f.ends_with(".shard")
                || f.ends_with("match.json")
                || f.ends_with("vs-gen0.json")
        },
    );
}

/// A file-size limit stands for a full disk: a balance study extended past what its store may
/// hold fails with an error naming the store and the cause, the games stored before are kept
/// (at most a torn last line is added, which the next run cuts off), and the same command
/// without the limit completes the study with the games an uninterrupted run plays.
#[test]
fn a_full_disk_stops_a_study_with_a_named_error_and_keeps_earlier_games() {
    let tmp = scratch();
    let dir = tmp.path();
    let out = dir.join("out");
    let args = |games: &str, out: &Path| {
        let mut a = strings(&["balance", "--variant", "brandubh", "--agent", "mcts:8"]);
        a.extend(strings(&["--games", games, "--seed", "2", "--out"]));
        a.push(path(out));
        a
    };
    run_to_end(&args("8", &out));
    let store = out.join("games").join("brandubh__mcts_8.jsonl");
    let before = std::fs::read(&store).expect("store");
    // SIGXFSZ ignored, so a write past the limit fails with EFBIG instead of killing the
    // process; the limit (in 512-byte blocks) leaves room for about one more game
    let blocks = before.len() / 512 + 2;
    let quoted: Vec<String> = args("24", &out).iter().map(|a| format!("'{a}'")).collect();
    let script = format!(
        "trap '' XFSZ; ulimit -f {blocks}; exec '{}' {}",
        env!("CARGO_BIN_EXE_tavlei"),
        quoted.join(" ")
    );
    let failed = Command::new("sh")
        .args(["-c", &script])
        .env("RAYON_NUM_THREADS", "1")
        .output()
        .expect("runs sh");
    let stderr = String::from_utf8_lossy(&failed.stderr);
    assert!(!failed.status.success(), "a write past the limit must fail");
    assert!(
        stderr.contains("File too large") && stderr.contains(&path(&store)),
        "the error names the file and the cause: {stderr}"
    );
    let after = std::fs::read(&store).expect("store");
    assert!(after.starts_with(&before), "the stored games were changed");
    // the same command without the limit finishes, as an uninterrupted study would have
    run_to_end(&args("24", &out));
    let whole = dir.join("whole");
    run_to_end(&args("24", &whole));
    assert_eq!(
        files(&out.join("games"), &|_| true),
        files(&whole.join("games"), &|_| true)
    );
}
