//! The data layer through its public API: shards written and read back, a directory with a
//! damaged shard, statistics of a hand-made dataset, NumPy export, and the `data` commands.

use std::io::Write;
use std::path::Path;
use std::process::Command;
use std::sync::{Arc, Mutex};

use tavlei::data::npz::{export_npz, npz_entries, ARRAYS};
use tavlei::data::{read_dir, read_shard, write_shard, DataError, Sample, Stats};
use tavlei::encode::policy::policy_size;
use tavlei::npy::parse_npy_header;
use tavlei::rules::{Position, Side, Variant};

/// A fresh scratch directory, removed when the returned value is dropped (a failing test too).
fn scratch() -> tempfile::TempDir {
    tempfile::tempdir().expect("scratch dir")
}

/// A game of `plies` samples from brandubh's start, won by `winner` (None: drawn).
fn game(v: &Arc<Variant>, id: u64, plies: u32, winner: Option<Side>, reason: &str) -> Vec<Sample> {
    let cells = Position::start(v).cells().to_vec();
    (0..plies)
        .map(|ply| {
            let side = if ply % 2 == 0 {
                Side::Attackers
            } else {
                Side::Defenders
            };
            let result = match winner {
                None => 0.0,
                Some(w) if w == side => 1.0,
                Some(_) => -1.0,
            };
            Sample {
                game_id: id,
                ply,
                cells: cells.clone(),
                side_to_move: side,
                berserk: None,
                roll: 0,
                plies_since_capture: ply,
                passes: 0,
                occurrences: 1,
                policy: vec![(ply, 0.5), (ply + 100, 0.5)],
                result,
                search_value: 0.1 * ply as f32,
                game_length: plies,
                reason: reason.into(),
            }
        })
        .collect()
}

fn brandubh() -> Arc<Variant> {
    Variant::load("brandubh").expect("preset")
}

#[test]
fn shards_read_back_equal() {
    let v = brandubh();
    let tmp = scratch();
    let dir = tmp.path();
    let a = game(&v, 0, 5, Some(Side::Defenders), "king_escaped");
    let b = game(&v, 1, 3, None, "repetition");
    write_shard(&dir.join("000000.shard"), "brandubh", &a).expect("write");
    write_shard(&dir.join("000001.shard"), "brandubh", &b).expect("write");
    let shard = read_shard(&dir.join("000000.shard")).expect("read");
    assert_eq!(shard.variant, "brandubh");
    assert_eq!(shard.samples, a);
    let data = read_dir(dir, Some("brandubh")).expect("read dir");
    assert!(data.skipped.is_empty());
    assert_eq!(data.samples, [a, b].concat());
    assert_eq!(
        data.samples[0].position(&v).expect("position").cells(),
        Position::start(&v).cells()
    );
}

/// Collects what `tracing` prints.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().expect("lock").extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for Captured {
    type Writer = Captured;
    fn make_writer(&'a self) -> Captured {
        self.clone()
    }
}

#[test]
fn a_corrupt_shard_is_skipped_with_a_warning() {
    let v = brandubh();
    let tmp = scratch();
    let dir = tmp.path();
    for i in 0..3u64 {
        let samples = game(&v, i, 4, Some(Side::Attackers), "king_captured");
        write_shard(&dir.join(format!("{i:06}.shard")), "brandubh", &samples).expect("write");
    }
    let bad = dir.join("000001.shard");
    let mut bytes = std::fs::read(&bad).expect("read");
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0x01;
    std::fs::write(&bad, bytes).expect("write");

    let log = Captured::default();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(log.clone())
        .with_ansi(false)
        .with_max_level(tracing::Level::WARN)
        .finish();
    let data = tracing::subscriber::with_default(subscriber, || read_dir(dir, None))
        .expect("reads the rest");

    let ids: Vec<u64> = data.samples.iter().map(|s| s.game_id).collect();
    assert_eq!(ids, [0, 0, 0, 0, 2, 2, 2, 2]);
    assert_eq!(data.shards.len(), 2);
    assert_eq!(data.skipped.len(), 1);
    assert_eq!(data.skipped[0].0, bad);
    assert!(
        data.skipped[0].1.contains("checksum"),
        "{}",
        data.skipped[0].1
    );
    let text = String::from_utf8(log.0.lock().expect("lock").clone()).expect("utf-8");
    assert!(
        text.contains("WARN") && text.contains("000001.shard"),
        "{text}"
    );
}

#[test]
fn a_truncated_shard_error_names_the_file() {
    let v = brandubh();
    let tmp = scratch();
    let dir = tmp.path();
    let path = dir.join("000007.shard");
    write_shard(&path, "brandubh", &game(&v, 7, 6, None, "length_cap")).expect("write");
    let bytes = std::fs::read(&path).expect("read");
    std::fs::write(&path, &bytes[..bytes.len() - 30]).expect("write");
    let err = read_shard(&path).expect_err("truncated");
    assert!(matches!(err, DataError::Truncated { .. }), "{err:?}");
    let text = err.to_string();
    assert!(
        text.contains(&path.display().to_string()) && text.contains("truncated"),
        "{text}"
    );
}

#[test]
fn inspect_counts_a_hand_made_dataset() {
    let v = brandubh();
    let tmp = scratch();
    let dir = tmp.path();
    let first = [
        game(&v, 0, 10, Some(Side::Attackers), "king_captured"),
        game(&v, 1, 20, Some(Side::Defenders), "king_escaped"),
    ]
    .concat();
    let second = [
        game(&v, 2, 30, Some(Side::Defenders), "king_escaped"),
        game(&v, 3, 40, None, "repetition"),
        game(&v, 4, 50, Some(Side::Defenders), "edge_fort"),
    ]
    .concat();
    write_shard(&dir.join("a.shard"), "brandubh", &first).expect("write");
    write_shard(&dir.join("b.shard"), "brandubh", &second).expect("write");
    std::fs::write(dir.join("c.shard"), b"garbage").expect("write");

    let stats = Stats::of(&read_dir(dir, None).expect("reads"));
    assert_eq!(stats.variant.as_deref(), Some("brandubh"));
    assert_eq!((stats.shards, stats.skipped.len()), (2, 1));
    assert_eq!((stats.samples, stats.games), (150, 5));
    assert_eq!(
        (stats.attacker_wins, stats.defender_wins, stats.draws),
        (1, 3, 1)
    );
    assert_eq!(
        (stats.attacker_share, stats.defender_share, stats.draw_share),
        (0.2, 0.6, 0.2)
    );
    let reasons: Vec<(&str, usize)> = stats
        .reasons
        .iter()
        .map(|r| (r.reason.as_str(), r.games))
        .collect();
    assert_eq!(
        reasons,
        [
            ("king_escaped", 2),
            ("edge_fort", 1),
            ("king_captured", 1),
            ("repetition", 1)
        ]
    );
    assert_eq!((stats.mean_length, stats.median_length), (30.0, 30.0));
    assert_eq!((stats.min_length, stats.max_length), (10, 50));
    let bins: Vec<(u32, u32, usize)> = stats
        .histogram
        .iter()
        .map(|b| (b.from, b.to, b.games))
        .collect();
    // 41 possible lengths in bins of 5: the last bin holds only 50.
    assert_eq!(bins.len(), 9);
    assert_eq!(
        (bins[0], bins[2], bins[8]),
        ((10, 14, 1), (20, 24, 1), (50, 50, 1))
    );
    assert_eq!(bins.iter().map(|b| b.2).sum::<usize>(), 5);

    let table = stats.to_string();
    assert!(
        table.contains("defenders won") && table.contains(" 60.0 %"),
        "{table}"
    );
    assert!(
        table.contains("c.shard"),
        "the skipped shard is listed: {table}"
    );
    let json = serde_json::to_value(&stats).expect("json");
    assert_eq!(json["games"], 5);
    assert_eq!(json["reasons"][0]["reason"], "king_escaped");
}

/// The bytes of one `.npy` entry of an archive, and its parsed header.
fn npy(path: &Path, name: &str) -> (Vec<u8>, tavlei::npy::NpyHeader) {
    use std::io::Read;
    let mut zip = zip::ZipArchive::new(std::fs::File::open(path).expect("open")).expect("zip");
    let mut bytes = Vec::new();
    zip.by_name(&format!("{name}.npy"))
        .expect("entry")
        .read_to_end(&mut bytes)
        .expect("read");
    let header = parse_npy_header(&bytes).expect("npy header");
    (bytes, header)
}

/// A Python interpreter with numpy: `TAVLEI_NUMPY_PYTHON`, else the project venv's
/// (`nn::onnx::venv`), where `make setup` installs numpy.
/// Without one the test fails: the export is only checked when numpy itself reads it.
fn numpy_python() -> String {
    let python = std::env::var("TAVLEI_NUMPY_PYTHON").unwrap_or_else(|_| {
        let venv = tavlei::nn::onnx::venv().join("bin/python");
        venv.to_string_lossy().into_owned()
    });
    let ok = Command::new(&python)
        .args(["-c", "import numpy"])
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        ok,
        "{python} cannot import numpy: run `make setup` (it installs numpy into the venv) or set TAVLEI_NUMPY_PYTHON"
    );
    python
}

#[test]
fn npz_export_round_trips() {
    let v = brandubh();
    let tmp = scratch();
    let dir = tmp.path();
    let samples = [
        game(&v, 0, 3, Some(Side::Attackers), "king_captured"),
        game(&v, 1, 2, None, "repetition"),
    ]
    .concat();
    write_shard(&dir.join("0.shard"), "brandubh", &samples).expect("write");
    let data = read_dir(dir, None).expect("reads");
    let out = dir.join("data.npz");
    let summary = export_npz(&data.samples, &v, &out, |_| {}).expect("exports");
    assert_eq!((summary.samples, summary.board_size), (5, 7));
    let p = policy_size(7);
    assert_eq!(summary.policy_size, p);
    assert_eq!(npz_entries(&out).expect("entries").len(), ARRAYS.len());

    let expect = [
        ("cells", "|u1", vec![5, 49]),
        ("side_to_move", "|u1", vec![5]),
        ("policy", "<f4", vec![5, p]),
        ("result", "<f4", vec![5]),
        ("search_value", "<f4", vec![5]),
        ("game_id", "<u8", vec![5]),
        ("ply", "<u4", vec![5]),
        ("occurrences", "|u1", vec![5]),
        ("planes", "<f4", vec![5, 16, 7, 7]),
    ];
    for (name, descr, shape) in &expect {
        let (bytes, h) = npy(&out, name);
        assert_eq!((h.descr.as_str(), &h.shape), (*descr, shape), "{name}");
        let item = descr[2..].parse::<usize>().expect("size");
        assert_eq!(
            bytes.len() - h.data_offset,
            shape.iter().product::<usize>() * item,
            "{name}"
        );
    }
    let (cells, h) = npy(&out, "cells");
    assert_eq!(
        &cells[h.data_offset..h.data_offset + 49],
        Position::start(&v).cells()
    );
    let (result, h) = npy(&out, "result");
    let results: Vec<f32> = result[h.data_offset..]
        .chunks(4)
        .map(|c| f32::from_le_bytes(c.try_into().expect("4")))
        .collect();
    assert_eq!(results, [1.0, -1.0, 1.0, 0.0, 0.0]);
    let (ids, h) = npy(&out, "game_id");
    let ids: Vec<u64> = ids[h.data_offset..]
        .chunks(8)
        .map(|c| u64::from_le_bytes(c.try_into().expect("8")))
        .collect();
    assert_eq!(ids, [0, 0, 0, 1, 1]);

    {
        let python = numpy_python();
        let script = format!(
            r#"
import numpy as np
d = np.load({path:?})
assert sorted(d.files) == sorted({arrays:?}), d.files
assert d["planes"].shape == (5, 16, 7, 7) and d["planes"].dtype == np.float32
assert d["occurrences"].tolist() == [1, 1, 1, 1, 1]
assert d["policy"].shape == (5, {p}) and abs(d["policy"].sum(axis=1) - 1).max() < 1e-6
assert d["policy"][1, 1] == 0.5 and d["policy"][1, 101] == 0.5
assert d["side_to_move"].tolist() == [0, 1, 0, 0, 1]
assert d["ply"].tolist() == [0, 1, 2, 0, 1] and d["ply"].dtype == np.uint32
assert d["game_id"].dtype == np.uint64 and d["cells"].dtype == np.uint8
assert d["planes"][:, 13].min() == 1.0
assert (d["planes"][:, 0].reshape(5, -1) == (d["cells"] == 1)).all()
print("numpy ok")
"#,
            path = out.display().to_string(),
            arrays = ARRAYS,
        );
        let run = Command::new(&python)
            .args(["-c", &script])
            .output()
            .expect("python runs");
        assert!(
            run.status.success(),
            "numpy rejected the export: {}",
            String::from_utf8_lossy(&run.stderr)
        );
        assert!(String::from_utf8_lossy(&run.stdout).contains("numpy ok"));
    }
}

fn tavlei(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_tavlei"))
        .args(args)
        .output()
        .expect("runs tavlei")
}

#[test]
fn data_commands_inspect_and_export() {
    let v = brandubh();
    let tmp = scratch();
    let dir = tmp.path();
    write_shard(
        &dir.join("0.shard"),
        "brandubh",
        &game(&v, 0, 4, Some(Side::Defenders), "king_escaped"),
    )
    .expect("write");
    std::fs::write(dir.join("1.shard"), b"TAVLSHRD").expect("write");
    let d = dir.display().to_string();

    let out = tavlei(&["data", "inspect", &d, "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    assert_eq!(
        (json["samples"].as_u64(), json["games"].as_u64()),
        (Some(4), Some(1))
    );
    assert_eq!(json["defender_share"].as_f64(), Some(1.0));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("1.shard"),
        "the skip is warned about"
    );

    let table = tavlei(&["data", "inspect", &d]);
    assert!(String::from_utf8_lossy(&table.stdout).contains("length histogram"));

    let npz = dir.join("out.npz");
    let out = tavlei(&[
        "data",
        "export",
        &d,
        "--npz",
        &npz.display().to_string(),
        "--window",
        "3",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("wrote 3 samples"));
    assert_eq!(npy(&npz, "ply").1.shape, vec![3]);

    let missing = tavlei(&["data", "inspect", &dir.join("nope").display().to_string()]);
    assert!(!missing.status.success());
    assert!(String::from_utf8_lossy(&missing.stderr).contains("nope"));
}
