//! Training throughput: one `train_step` (forward, loss and metrics, backward, Adam) of the
//! default 9×9 network at batch 256, and, in the same run, the same network, loss, batch shapes
//! and optimizer in PyTorch (`benches/train_reference.py`, run with the venv's python, on as many
//! intra-op threads as libtorch uses here). PyTorch runs twice a round: as it comes (NCHW planes)
//! and fed channels-last planes as tavlei's trainer feeds them on the CPU, the like-for-like
//! figure. The comparison alternates the sides a few rounds and keeps each side's best round, so
//! a busy machine slows them alike.
//!
//! The venv is the project's (`tavlei::nn::onnx::venv`: `TAVLEI_VENV`, else the Makefile's);
//! `TAVLEI_BENCH_THREADS` sets the intra-op threads of both sides; `TAVLEI_BENCH_ROUNDS` the rounds.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use tavlei::encode::policy::policy_size;
use tavlei::encode::Encoding;
use tavlei::nn::{Architecture, Network};
use tavlei::train::batch::Batch;
use tavlei::train::optimizer::Optimizer;
use tavlei::train::trainer::train_step;
use tavlei::train::TrainConfig;
use tch::{Device, Kind, Tensor};

const BATCH: i64 = 256;
const SIZE: i64 = 9;
/// Legal moves per sample: about a tafl middle game's.
const LEGAL: i64 = 30;
/// Steps per timed round of the comparison, and warm-up steps before them (as the script).
const STEPS: usize = 30;
const WARMUP: usize = 5;
const ROUNDS: usize = 5;

/// Random 0/1 planes, `LEGAL` random legal moves per row with a one-hot target among them, and
/// values in {-1, 0, 1}: the same shapes and kinds as `BatchBuilder` gives.
fn random_batch() -> Batch {
    tch::manual_seed(11);
    let p = policy_size(SIZE as usize) as i64;
    let opts = (Kind::Float, Device::Cpu);
    let planes = Tensor::rand([BATCH, Encoding::CURRENT.planes() as i64, SIZE, SIZE], opts)
        .lt(0.5)
        .to_kind(Kind::Float);
    let chosen = Tensor::rand([BATCH, p], opts).topk(LEGAL, 1, true, true).1;
    let ones = Tensor::ones([BATCH, LEGAL], opts);
    let legal = Tensor::zeros([BATCH, p], opts).scatter(1, &chosen, &ones);
    let policy =
        Tensor::zeros([BATCH, p], opts).scatter(1, &chosen.narrow(1, 0, 1), &ones.narrow(1, 0, 1));
    let value =
        Tensor::randint_low(-1, 2, [BATCH], (Kind::Int64, Device::Cpu)).to_kind(Kind::Float);
    Batch {
        planes,
        policy,
        legal,
        value,
        value_weights: Tensor::ones([BATCH], opts),
        reply: None,
    }
}

struct Setup {
    net: Network,
    opt: Optimizer,
    batch: Batch,
    cfg: TrainConfig,
}

impl Setup {
    fn new() -> Setup {
        let cfg = TrainConfig::default();
        let net = Network::new("tavlei", Architecture::default(), Device::Cpu, 1);
        let opt = Optimizer::new(&net.vs, &cfg);
        Setup {
            net,
            opt,
            batch: random_batch(),
            cfg,
        }
    }

    fn step(&mut self) {
        let lr = self.cfg.learning_rate;
        train_step(
            &self.net,
            None,
            &mut self.opt,
            &self.batch,
            lr,
            &self.cfg,
            false,
        );
    }

    /// Samples per second of a fresh network over `STEPS` steps after `WARMUP`, as the script
    /// measures its own: the network overfits the fixed batch as it trains (tiny, partly
    /// subnormal gradients), so both sides time the same stretch of training.
    fn round() -> f64 {
        let mut setup = Setup::new();
        for _ in 0..WARMUP {
            setup.step();
        }
        let clock = Instant::now();
        for _ in 0..STEPS {
            setup.step();
        }
        (BATCH as usize * STEPS) as f64 / clock.elapsed().as_secs_f64()
    }
}

fn python() -> PathBuf {
    tavlei::nn::onnx::venv().join("bin/python")
}

/// One round of the PyTorch reference: its samples per second and thread count.
fn pytorch_round(python: &Path, threads: i32, channels_last: bool) -> Result<(f64, i64), String> {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/benches/train_reference.py");
    let mut cmd = Command::new(python);
    cmd.args(["-W", "ignore", script])
        .args(["--batch", &BATCH.to_string(), "--size", &SIZE.to_string()])
        .args(["--legal", &LEGAL.to_string(), "--steps", &STEPS.to_string()])
        .args([
            "--warmup",
            &WARMUP.to_string(),
            "--threads",
            &threads.to_string(),
        ]);
    if channels_last {
        cmd.arg("--channels-last");
    }
    let out = cmd
        .output()
        .map_err(|e| format!("cannot run {}: {e}", python.display()))?;
    if !out.status.success() {
        return Err(format!(
            "{} failed: {}",
            python.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    let stdout = String::from_utf8_lossy(&out.stdout);
    let line = stdout
        .lines()
        .rev()
        .find(|l| l.starts_with('{'))
        .ok_or_else(|| format!("no JSON line from the reference: {stdout}"))?;
    let json: serde_json::Value =
        serde_json::from_str(line).map_err(|e| format!("bad JSON {line}: {e}"))?;
    let rate = json["samples_per_s"]
        .as_f64()
        .ok_or_else(|| format!("no samples_per_s in {line}"))?;
    Ok((rate, json["threads"].as_i64().unwrap_or(-1)))
}

/// Alternating rounds of tavlei, PyTorch as it comes (NCHW planes) and PyTorch fed the planes
/// channels-last as tavlei's trainer feeds them on the CPU; prints each round, the best of each
/// and the ratios.
fn compare() {
    let threads = tch::get_num_threads();
    let rounds = std::env::var("TAVLEI_BENCH_ROUNDS")
        .ok()
        .and_then(|s| s.parse::<usize>().ok())
        .unwrap_or(ROUNDS)
        .max(1);
    let python = python();
    if !python.exists() {
        let rate = (0..rounds).map(|_| Setup::round()).fold(0.0, f64::max);
        println!(
            "train/compare: no python at {} (set TAVLEI_VENV), so no PyTorch figure; \
             tavlei alone: {rate:.0} samples/s ({threads} threads)",
            python.display()
        );
        return;
    }
    let (mut ours, mut nchw, mut last) = (0.0f64, 0.0f64, 0.0f64);
    let mut torch_threads = -1;
    for round in 1..=rounds {
        let rate = Setup::round();
        ours = ours.max(rate);
        let theirs = pytorch_round(&python, threads, false)
            .and_then(|a| Ok((a, pytorch_round(&python, threads, true)?)));
        match theirs {
            Ok(((plain, t), (cl, _))) => {
                (nchw, last, torch_threads) = (nchw.max(plain), last.max(cl), t);
                println!(
                    "train/compare round {round}: tavlei {rate:.0} samples/s; pytorch {plain:.0} \
                     (NCHW), {cl:.0} (channels-last); ratios {:.3}, {:.3}",
                    rate / plain,
                    rate / cl
                );
            }
            Err(e) => {
                println!("train/compare: the PyTorch reference did not run: {e}");
                println!("train/compare: tavlei alone: {ours:.0} samples/s ({threads} threads)");
                return;
            }
        }
    }
    println!(
        "train/compare best of {rounds} rounds, batch {BATCH}: tavlei {ours:.0} samples/s \
         ({threads} threads); pytorch {nchw:.0} samples/s NCHW, {last:.0} channels-last \
         ({torch_threads} threads); tavlei/pytorch {:.3} (NCHW), {:.3} (like for like); \
         target >= 0.95",
        ours / nchw,
        ours / last
    );
}

fn train(c: &mut Criterion) {
    let mut group = c.benchmark_group("train");
    group.sample_size(10);
    group.throughput(Throughput::Elements(BATCH as u64));
    // each sample times a fresh network's first steps (after `WARMUP`), as the comparison does
    group.bench_function(BenchmarkId::new("tavlei_4x32", BATCH), |b| {
        b.iter_custom(|iters| {
            let mut setup = Setup::new();
            for _ in 0..WARMUP {
                setup.step();
            }
            let clock = Instant::now();
            for _ in 0..iters {
                setup.step();
            }
            clock.elapsed()
        })
    });
    group.finish();
    // `cargo bench -- --test` (and `--list`) only check that the benchmark runs
    let args: Vec<String> = std::env::args().collect();
    if !args.iter().any(|a| a == "--test" || a == "--list") {
        compare();
    }
}

fn configure() -> Criterion {
    if let Some(n) = std::env::var("TAVLEI_BENCH_THREADS")
        .ok()
        .and_then(|s| s.parse::<i32>().ok())
    {
        tch::set_num_threads(n);
    }
    Criterion::default()
}

criterion_group! {
    name = benches;
    config = configure();
    targets = train
}
criterion_main!(benches);
