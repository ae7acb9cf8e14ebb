//! Where a run's time goes: the wall time and the CPU time of each stage of each generation
//! (`gen-NNN/time.json`) and of the closing stages (`time.json` in the run directory), and the
//! table the report makes of them. A stage is timed by the invocation that completes it: a stage
//! found done is not timed again, and a stage killed and resumed counts only the invocation that
//! finished it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::{Deserialize, Serialize};

use super::files::{generation_dir, read_json, write_json};
use super::PipelineError;

/// Seconds one stage took.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StageTime {
    /// Wall-clock seconds.
    pub wall: f64,
    /// CPU seconds of the whole process (every thread) meanwhile; 0 where the system does not
    /// say (only Linux's /proc is read).
    pub cpu: f64,
}

/// The stages of one generation, or the closing ones, by name.
pub type TimeBook = BTreeMap<String, StageTime>;

/// The process's CPU seconds so far (user and system), from /proc/self/stat.
fn process_cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // the command name may hold spaces: the fields after its closing parenthesis
    let rest = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // utime and stime are fields 14 and 15 of the line, 12 and 13 after the name and state;
    // in clock ticks of USER_HZ, which Linux fixes at 100 for user space
    let ticks = |i: usize| fields.get(i)?.parse::<f64>().ok();
    Some((ticks(11)? + ticks(12)?) / 100.0)
}

/// Times one stage from its creation.
pub struct Stopwatch {
    wall: Instant,
    cpu: Option<f64>,
}

impl Stopwatch {
    pub fn start() -> Stopwatch {
        Stopwatch {
            wall: Instant::now(),
            cpu: process_cpu_seconds(),
        }
    }

    pub fn stop(&self) -> StageTime {
        let cpu = match (self.cpu, process_cpu_seconds()) {
            (Some(a), Some(b)) => (b - a).max(0.0),
            _ => 0.0,
        };
        StageTime {
            wall: self.wall.elapsed().as_secs_f64(),
            cpu,
        }
    }
}

/// `gen-NNN/time.json` for generation `g`, or the run's own `time.json` for `None`.
pub fn book_path(run: &Path, g: Option<u32>) -> PathBuf {
    match g {
        Some(g) => generation_dir(run, g).join("time.json"),
        None => run.join("time.json"),
    }
}

pub fn read_book(run: &Path, g: Option<u32>) -> Result<TimeBook, PipelineError> {
    Ok(read_json(&book_path(run, g))?.unwrap_or_default())
}

/// Held while a book is read and written back: training beside self-play records its times
/// from another thread.
static BOOKS: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Records `stage` of generation `g` (or a closing stage), unless a time is already there.
pub fn record(
    run: &Path,
    g: Option<u32>,
    stage: &str,
    time: StageTime,
) -> Result<(), PipelineError> {
    let _held = BOOKS.lock().unwrap_or_else(|e| e.into_inner());
    let mut book = read_book(run, g)?;
    if book.contains_key(stage) {
        return Ok(());
    }
    book.insert(stage.to_string(), time);
    write_json(&book_path(run, g), &book)
}

/// Records a closing stage done again (a ladder of more generations), replacing its old time.
pub fn replace(run: &Path, stage: &str, time: StageTime) -> Result<(), PipelineError> {
    let _held = BOOKS.lock().unwrap_or_else(|e| e.into_inner());
    let mut book = read_book(run, None)?;
    book.insert(stage.to_string(), time);
    write_json(&book_path(run, None), &book)
}

/// The stages the report's time table has a column for, in order; any other stage counts in
/// `other`. `train` beside self-play (`[overlap]`) is the time self-play waited for it.
pub const STAGES: [&str; 5] = ["selfplay", "teacher", "train", "evaluate", "anchors"];

/// A stage's name ends so when it ran on the cores beside self-play: its wall time overlaps
/// self-play's and is shown apart, not added to the run's.
pub const BESIDE: &str = "_beside";

fn beside(stage: &str) -> bool {
    stage.ends_with(BESIDE)
}

/// The time table of a run: a row per generation (wall seconds of each stage), the closing
/// stages, the totals with each stage's share of the wall time, and self-play positions per
/// hour of self-play. `positions[g]` is generation g's self-play positions. Work done beside
/// self-play has a column of its own, outside the totals.
pub fn time_table(books: &[TimeBook], closing: &TimeBook, positions: &[u64]) -> String {
    let mut md = String::from(
        "| gen | self-play | teacher | train | evaluation | anchors | other | total | beside self-play |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n",
    );
    let mut totals: TimeBook = TimeBook::new();
    let mut add = |book: &TimeBook| {
        for (stage, t) in book {
            let slot = if beside(stage) {
                BESIDE
            } else if STAGES.contains(&stage.as_str()) {
                stage.as_str()
            } else {
                "other"
            };
            let total = totals.entry(slot.to_string()).or_default();
            total.wall += t.wall;
            total.cpu += t.cpu;
        }
    };
    let cells = |book: &TimeBook| {
        let wall = |s: &str| book.get(s).map_or(0.0, |t| t.wall);
        // folds from +0.0 (a float sum of nothing is -0.0, printed "-0")
        let sum = |keep: &dyn Fn(&str) -> bool| {
            book.iter()
                .filter(|(s, _)| keep(s))
                .fold(0.0, |sum, (_, t)| sum + t.wall)
        };
        let other = sum(&|s| !STAGES.contains(&s) && !beside(s));
        let total = sum(&|s| !beside(s));
        let mut row: Vec<String> = STAGES.iter().map(|s| format!("{:.0}", wall(s))).collect();
        row.push(format!("{other:.0}"));
        row.push(format!("{total:.0}"));
        row.push(format!("{:.0}", sum(&beside)));
        row.join(" | ")
    };
    for (g, book) in books.iter().enumerate() {
        md += &format!("| {g} | {} |\n", cells(book));
        add(book);
    }
    if !closing.is_empty() {
        md += &format!(
            "| closing ({}) | {} |\n",
            closing.keys().cloned().collect::<Vec<_>>().join(", "),
            cells(closing)
        );
        add(closing);
    }
    let done_beside = totals.remove(BESIDE).unwrap_or_default();
    let all: f64 = totals.values().map(|t| t.wall).sum();
    // the process's CPU time during a stage already counts the work beside it
    let cpu: f64 = totals.values().map(|t| t.cpu).sum();
    let share = |s: &str| {
        let t = totals.get(s).copied().unwrap_or_default();
        format!(
            "{:.0} ({:.0} %)",
            t.wall,
            100.0 * t.wall / all.max(f64::MIN_POSITIVE)
        )
    };
    let mut total_row: Vec<String> = STAGES.iter().map(|s| share(s)).collect();
    total_row.push(share("other"));
    total_row.push(format!("{all:.0}"));
    total_row.push(format!("{:.0}", done_beside.wall));
    md += &format!("| **all** | {} |\n", total_row.join(" | "));
    // core-time over wall time: the process's CPU during a stage, work beside it included
    let busy = |t: StageTime| {
        if t.wall > 0.0 {
            format!("{:.2}", t.cpu / t.wall)
        } else {
            "-".into()
        }
    };
    let mut busy_row: Vec<String> = STAGES
        .iter()
        .map(|s| busy(totals.get(*s).copied().unwrap_or_default()))
        .collect();
    busy_row.push(busy(totals.get("other").copied().unwrap_or_default()));
    busy_row.push(busy(StageTime { wall: all, cpu }));
    busy_row.push("-".into());
    md += &format!("| **cores busy** | {} |\n", busy_row.join(" | "));
    let selfplay = totals.get("selfplay").copied().unwrap_or_default();
    let positions: u64 = positions.iter().sum();
    md += &format!(
        "\nWall seconds; CPU seconds of the whole process over the same stages: {cpu:.0} ({:.2} cores busy on average). Self-play: {positions} positions in {:.0} s, **{:.0} positions per hour of self-play**, {:.0} per hour of the whole run.\n",
        cpu / all.max(f64::MIN_POSITIVE),
        selfplay.wall,
        positions as f64 * 3600.0 / selfplay.wall.max(f64::MIN_POSITIVE),
        positions as f64 * 3600.0 / all.max(f64::MIN_POSITIVE),
    );
    md
}

#[cfg(test)]
mod tests {
    use super::*;

    fn book(entries: &[(&str, f64)]) -> TimeBook {
        entries
            .iter()
            .map(|&(s, w)| {
                (
                    s.to_string(),
                    StageTime {
                        wall: w,
                        cpu: 2.0 * w,
                    },
                )
            })
            .collect()
    }

    #[test]
    fn the_table_adds_up_each_stage_and_its_share() {
        let books = [
            book(&[("selfplay", 30.0), ("train", 10.0), ("evaluate", 10.0)]),
            book(&[("selfplay", 50.0), ("train", 10.0), ("anchors", 10.0)]),
        ];
        let closing = book(&[("ladder", 60.0), ("balance", 20.0)]);
        let table = time_table(&books, &closing, &[1000, 3000]);
        assert!(
            table.contains("| 0 | 30 | 0 | 10 | 10 | 0 | 0 | 50 | 0 |"),
            "{table}"
        );
        assert!(table.contains("| closing (balance, ladder) | 0 | 0 | 0 | 0 | 0 | 80 | 80 | 0 |"));
        // 200 s in all: self-play 80 (40 %), other 80 (40 %)
        assert!(table.contains("| **all** | 80 (40 %) | 0 (0 %) | 20 (10 %) | 10 (5 %) | 10 (5 %) | 80 (40 %) | 200 | 0 |"), "{table}");
        // 4,000 positions in 80 s of self-play: 180,000 an hour; 72,000 an hour of the run
        assert!(table.contains("**180000 positions per hour of self-play**, 72000"));
        assert!(table
            .contains("CPU seconds of the whole process over the same stages: 400 (2.00 cores"));
    }

    #[test]
    fn cores_busy_are_each_stages_core_time_over_its_wall_time() {
        let t = |wall: f64, cpu: f64| StageTime { wall, cpu };
        let books = [
            TimeBook::from([
                ("selfplay".to_string(), t(100.0, 190.0)),
                ("train".to_string(), t(10.0, 20.0)),
                ("evaluate".to_string(), t(20.0, 20.0)),
            ]),
            TimeBook::from([
                ("selfplay".to_string(), t(50.0, 95.0)),
                // beside self-play: its core-time is already in self-play's
                ("train_beside".to_string(), t(40.0, 40.0)),
            ]),
        ];
        let closing = TimeBook::from([("ladder".to_string(), t(30.0, 15.0))]);
        let table = time_table(&books, &closing, &[0, 0]);
        // self-play 285 / 150, train 20 / 10, evaluation 20 / 20, the ladder 15 / 30; in all
        // 340 core-seconds over 210 s
        assert!(
            table.contains("| **cores busy** | 1.90 | - | 2.00 | 1.00 | - | 0.50 | 1.62 | - |"),
            "{table}"
        );
    }

    #[test]
    fn work_beside_self_play_is_shown_apart_and_not_added_to_the_run() {
        let books = [
            book(&[("selfplay", 90.0), ("train_beside", 70.0)]),
            book(&[
                ("selfplay", 80.0),
                ("train_beside", 85.0),
                ("train", 5.0),
                ("teacher_beside", 10.0),
            ]),
        ];
        let table = time_table(&books, &TimeBook::new(), &[900, 800]);
        assert!(
            table.contains("| 0 | 90 | 0 | 0 | 0 | 0 | 0 | 90 | 70 |"),
            "{table}"
        );
        assert!(
            table.contains("| 1 | 80 | 0 | 5 | 0 | 0 | 0 | 85 | 95 |"),
            "{table}"
        );
        // 175 s of run: self-play 170 (97 %), the wait for training 5 (3 %)
        assert!(table.contains("| **all** | 170 (97 %) | 0 (0 %) | 5 (3 %) | 0 (0 %) | 0 (0 %) | 0 (0 %) | 175 | 165 |"), "{table}");
    }

    #[test]
    fn a_stage_is_recorded_once_and_read_back() {
        let dir = tempfile::tempdir().expect("scratch");
        let t = StageTime {
            wall: 1.5,
            cpu: 2.5,
        };
        record(dir.path(), Some(3), "train", t).expect("written");
        // a later invocation that found the stage done does not overwrite its time
        record(dir.path(), Some(3), "train", StageTime::default()).expect("kept");
        let book = read_book(dir.path(), Some(3)).expect("read");
        assert_eq!(book.get("train"), Some(&t));
        assert!(read_book(dir.path(), None).expect("none yet").is_empty());
    }

    #[test]
    fn a_stopwatch_counts_the_cpu_time_spent() {
        if !cfg!(target_os = "linux") {
            return; // the CPU time is read from /proc
        }
        // busy until the stopwatch has seen 30 ms of CPU (10 ms ticks): on a loaded machine this
        // takes longer in wall time, so the bound is generous; a stopwatch that counts no CPU
        // time never gets there
        let watch = Stopwatch::start();
        let clock = Instant::now();
        let mut x = 0u64;
        while watch.stop().cpu < 0.03 && clock.elapsed().as_secs() < 30 {
            for _ in 0..100_000 {
                x = x.wrapping_add(std::hint::black_box(1));
            }
        }
        let t = watch.stop();
        assert!(x > 0 && t.wall > 0.0 && t.cpu >= 0.03, "{t:?}");
    }
}
