//! `tavlei export-onnx`: the ONNX file gives tch's policy and value, and a bad checkpoint or a
//! missing Python package is a named error that writes nothing.
//!
//! The tests marked `#[ignore]` need PyTorch, onnx and onnxruntime in the venv: `make test-onnx`
//! installs them and runs these (TAVLEI_PYTHON, else TAVLEI_VENV/bin/python, else the default
//! venv's python).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tavlei::nn::onnx::find_python;
use tavlei::nn::{Architecture, Network};
use tavlei::npy::{npy_header, parse_npy_header};
use tavlei::rules::{Position, Variant};
use tch::Device;

fn tavlei(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tavlei"))
        .args(args)
        .output()
        .expect("runs tavlei")
}

fn export(ckpt: &Path, out: &Path, extra: &[&str]) -> Output {
    let mut args = vec![
        "export-onnx",
        ckpt.to_str().expect("utf-8"),
        out.to_str().expect("utf-8"),
    ];
    args.extend_from_slice(extra);
    tavlei(&args)
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Real positions of `variant`: the start and positions along seeded random games.
fn positions(variant: &str, n: usize, seed: u64) -> Vec<Position> {
    let v = Variant::load(variant).expect("preset");
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut out = vec![Position::start(&v)];
    let mut pos = Position::start(&v);
    let mut moves = Vec::new();
    while out.len() < n {
        pos.legal_moves(&mut moves);
        if pos.outcome().is_some() || moves.is_empty() {
            pos = Position::start(&v);
            continue;
        }
        pos.play_unchecked(moves[rng.random_range(0..moves.len())]);
        if rng.random_bool(0.3) {
            out.push(pos.clone());
        }
    }
    out
}

fn read_f32_npy(path: &Path) -> (Vec<usize>, Vec<f32>) {
    let bytes = std::fs::read(path).expect("reads npy");
    let h = parse_npy_header(&bytes).expect("npy 1.0");
    assert_eq!(h.descr, "<f4", "{}", path.display());
    let data = bytes[h.data_offset..]
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    (h.shape, data)
}

fn max_abs_diff(a: &[f32], b: &[f32]) -> f32 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f32::max)
}

/// Runs `onnx` under onnxruntime (by a few lines of Python written here, not the exporter's)
/// on real positions and returns the largest differences from tch's outputs (policy, value).
fn independent_check(onnx: &Path, net: &Network, variant: &str, batch: usize) -> (f32, f32) {
    let dir = tempfile::tempdir().expect("temp dir");
    let v = Variant::load(variant).expect("preset");
    let positions = positions(variant, batch, batch as u64);
    let refs: Vec<&Position> = positions.iter().collect();
    let encoding = net.encoding();
    let mut planes = Vec::new();
    for p in &refs {
        planes.extend(encoding.encode(p));
    }
    let mut bytes = npy_header("<f4", &[batch, encoding.planes(), v.size, v.size]);
    planes
        .iter()
        .for_each(|x| bytes.extend_from_slice(&x.to_le_bytes()));
    let input = dir.path().join("planes.npy");
    std::fs::write(&input, bytes).expect("writes planes");
    let script = "import sys, numpy as np, onnxruntime as ort\n\
        s = ort.InferenceSession(sys.argv[1], providers=['CPUExecutionProvider'])\n\
        p, v = s.run(['policy_logits', 'value'], {'planes': np.load(sys.argv[2])})\n\
        np.save(sys.argv[3], p)\n\
        np.save(sys.argv[4], v)\n";
    let (policy_path, value_path) = (dir.path().join("p.npy"), dir.path().join("v.npy"));
    let run = Command::new(find_python().expect("python"))
        .arg("-c")
        .arg(script)
        .args([onnx, &input, &policy_path, &value_path])
        .output()
        .expect("python runs");
    assert!(run.status.success(), "onnxruntime: {}", stderr(&run));
    let (policy_shape, policy) = read_f32_npy(&policy_path);
    let (value_shape, value) = read_f32_npy(&value_path);
    let (want_policy, want_value) = net.evaluate(&refs).expect("tch evaluates");
    assert_eq!(policy_shape, vec![batch, want_policy.len() / batch]);
    assert_eq!(value_shape, vec![batch]);
    (
        max_abs_diff(&policy, &want_policy),
        max_abs_diff(&value, &want_value),
    )
}

/// Exports `ckpt` and checks the report, the file's names, shapes and metadata, and an
/// independent comparison with tch at batches of 1 and 5. Returns the report's JSON.
fn export_and_check(ckpt: &Path, variant: &str, dir: &Path) -> serde_json::Value {
    let out = dir.join(format!("{variant}.onnx"));
    let run = export(ckpt, &out, &["--seed", "3", "--check-batch", "8", "--json"]);
    assert!(run.status.success(), "export: {}", stderr(&run));
    assert!(out.is_file());
    assert!(!dir.join(format!("{variant}.onnx.tmp")).exists());
    let report: serde_json::Value = serde_json::from_slice(&run.stdout).expect("JSON report");

    let net = Network::load(ckpt, Some(variant), Device::Cpu).expect("loads");
    let size = Variant::load(variant).expect("preset").size;
    let policy_size = 72 * size * size + 2;
    let checks = report["checks"].as_array().expect("checks");
    assert_eq!(
        checks
            .iter()
            .map(|c| c["batch"].as_u64().expect("batch"))
            .collect::<Vec<_>>(),
        [1, 8]
    );
    for c in checks {
        for key in ["policy_max_abs_diff", "value_max_abs_diff"] {
            let d = c[key].as_f64().expect("a difference");
            assert!((0.0..=1e-4).contains(&d), "{variant} {key} = {d}");
        }
    }
    let session = &report["session"];
    assert_eq!(
        session["inputs"],
        serde_json::json!([{"name": "planes", "shape": ["batch", net.meta.planes, size, size], "type": "tensor(float)"}])
    );
    assert_eq!(
        session["outputs"],
        serde_json::json!([
            {"name": "policy_logits", "shape": ["batch", policy_size], "type": "tensor(float)"},
            {"name": "value", "shape": ["batch"], "type": "tensor(float)"},
        ])
    );
    let meta = &session["metadata"];
    let arch = net.meta.architecture;
    for (key, want) in [
        ("variant", variant.to_string()),
        ("encoding_version", net.meta.encoding_version.to_string()),
        ("planes", net.meta.planes.to_string()),
        ("board_size", size.to_string()),
        ("policy_size", policy_size.to_string()),
        ("step", net.meta.step.to_string()),
        (
            "architecture",
            format!(
                r#"{{"blocks": {}, "channels": {}}}"#,
                arch.blocks, arch.channels
            ),
        ),
        (
            "plane_names",
            serde_json::to_string(net.encoding().plane_names()).expect("json"),
        ),
    ] {
        assert_eq!(meta[key].as_str(), Some(want.as_str()), "metadata {key}");
    }

    for batch in [1, 5] {
        let (policy, value) = independent_check(&out, &net, variant, batch);
        println!("{variant}, batch of {batch}: max |diff| policy {policy:.2e}, value {value:.2e}");
        assert!(
            policy <= 1e-4 && value <= 1e-4,
            "{variant}: {policy} {value}"
        );
    }
    report
}

#[test]
#[ignore = "needs PyTorch, onnx and onnxruntime in the venv: make test-onnx"]
fn a_random_and_a_shipped_network_export_with_tchs_outputs() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let dir = tmp.path();
    let random = dir.join("random.safetensors");
    let arch = Architecture {
        blocks: 2,
        channels: 8,
    };
    Network::new("tavlei", arch, Device::Cpu, 11)
        .save(&random)
        .expect("saves");
    export_and_check(&random, "tavlei", dir);
    let shipped = PathBuf::from("models/brandubh.safetensors");
    export_and_check(&shipped, "brandubh", dir);
}

#[test]
#[ignore = "needs PyTorch, onnx and onnxruntime in the venv: make test-onnx"]
fn the_same_seed_gives_the_same_file_and_figures() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let dir = tmp.path();
    let ckpt = dir.join("n.safetensors");
    let arch = Architecture {
        blocks: 1,
        channels: 8,
    };
    Network::new("brandubh", arch, Device::Cpu, 2)
        .save(&ckpt)
        .expect("saves");
    let run = |name: &str| {
        let out = dir.join(name);
        let r = export(&ckpt, &out, &["--seed", "9", "--json"]);
        assert!(r.status.success(), "{}", stderr(&r));
        let report: serde_json::Value = serde_json::from_slice(&r.stdout).expect("JSON");
        (std::fs::read(out).expect("reads"), report["checks"].clone())
    };
    let (a, checks_a) = run("a.onnx");
    let (b, checks_b) = run("b.onnx");
    assert!(a == b, "two exports of one checkpoint differ");
    assert_eq!(checks_a, checks_b);
}

#[test]
#[ignore = "needs PyTorch, onnx and onnxruntime in the venv: make test-onnx"]
fn bad_checkpoints_are_named_errors_and_write_nothing() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let dir = tmp.path();
    let arch = Architecture {
        blocks: 1,
        channels: 8,
    };
    let good = dir.join("good.safetensors");
    let net = Network::new("brandubh", arch, Device::Cpu, 4);
    net.save(&good).expect("saves");
    let weights = std::fs::read(&good).expect("reads");
    let sidecar = std::fs::read_to_string(dir.join("good.json")).expect("reads");
    let checkpoint = |name: &str, weights: &[u8], sidecar: &str| {
        let path = dir.join(format!("{name}.safetensors"));
        std::fs::write(&path, weights).expect("writes");
        std::fs::write(dir.join(format!("{name}.json")), sidecar).expect("writes");
        path
    };
    // a previous export at OUT must survive a failed one
    let out = dir.join("out.onnx");
    std::fs::write(&out, b"previous").expect("writes");

    let truncated = checkpoint("truncated", &weights[..weights.len() / 2], &sidecar);
    let wider = checkpoint(
        "wider",
        &weights,
        &sidecar.replace("\"channels\": 8", "\"channels\": 16"),
    );
    let other_variant = checkpoint(
        "other",
        &weights,
        &sidecar.replace("\"brandubh\"", "\"tavlei\""),
    );
    // weights with a tensor the network does not have: tch ignores it, the exporter refuses it
    let extra = dir.join("extra.safetensors");
    let with_extra = Network::new("brandubh", arch, Device::Cpu, 4);
    let _ = with_extra.vs.root().zeros("stray", &[3]);
    with_extra.save(&extra).expect("saves");
    for (ckpt, variant, expected) in [
        (&truncated, None, "weights do not match the architecture"),
        (&wider, None, "weights do not match the architecture"),
        (&other_variant, Some("brandubh"), "`tavlei`, not `brandubh`"),
        (
            &extra,
            None,
            "weights do not fit the sidecar: unexpected stray",
        ),
    ] {
        let mut args = vec![];
        if let Some(v) = variant {
            args.extend(["--variant", v]);
        }
        let run = export(ckpt, &out, &args);
        let err = stderr(&run);
        assert!(!run.status.success(), "{} exported", ckpt.display());
        assert!(
            err.contains(&ckpt.display().to_string()) && err.contains(expected),
            "{}: {err}",
            ckpt.display()
        );
        assert_eq!(std::fs::read(&out).expect("reads"), b"previous");
        assert!(!dir.join("out.onnx.tmp").exists());
    }
}

#[test]
#[ignore = "needs PyTorch in the venv: make test-onnx"]
fn a_missing_package_names_itself_and_the_make_target() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let dir = tmp.path();
    let ckpt = dir.join("n.safetensors");
    let arch = Architecture {
        blocks: 1,
        channels: 8,
    };
    Network::new("brandubh", arch, Device::Cpu, 1)
        .save(&ckpt)
        .expect("saves");
    // a module named onnx ahead of the real one on the path, which fails to import
    let hide = dir.join("hide");
    std::fs::create_dir(&hide).expect("dir");
    std::fs::write(
        hide.join("onnx.py"),
        "raise ImportError('hidden by the test')",
    )
    .expect("w");
    let out = dir.join("n.onnx");
    let run = Command::new(env!("CARGO_BIN_EXE_tavlei"))
        .args(["export-onnx"])
        .args([&ckpt, &out])
        .env("PYTHONPATH", &hide)
        .output()
        .expect("runs");
    let err = stderr(&run);
    assert!(!run.status.success());
    assert!(
        err.contains("lacks onnx (hidden by the test)") && err.contains("make setup-onnx"),
        "{err}"
    );
    assert!(!out.exists() && !dir.join("n.onnx.tmp").exists());
}

#[test]
fn without_python_the_error_names_the_make_target() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let ckpt = PathBuf::from("models/brandubh.safetensors");
    let out = tmp.path().join("b.onnx");
    let missing = tmp.path().join("no-python");
    // a python named directly, and a venv without one
    for (key, value) in [("TAVLEI_PYTHON", &missing), ("TAVLEI_VENV", &missing)] {
        let run = Command::new(env!("CARGO_BIN_EXE_tavlei"))
            .args(["export-onnx"])
            .args([&ckpt, &out])
            .env_remove("TAVLEI_PYTHON")
            .env(key, value)
            .output()
            .expect("runs");
        let err = stderr(&run);
        assert!(!run.status.success());
        assert!(
            err.contains(&format!("no python at {}", missing.display()))
                && err.contains("make setup-onnx"),
            "{key}: {err}"
        );
        assert!(!out.exists());
    }
}
