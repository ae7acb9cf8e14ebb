//! Training throughput: one `train_step` (forward, loss and metrics, backward, Adam) of the
//! default 9×9 network at batch 256, and, in the same run, the same network, loss, batch shapes
//! and optimizer in PyTorch (`benches/train_reference.py`, run with the venv's python, on as many
//! intra-op threads as libtorch uses here). The comparison alternates the two a few rounds and
//! keeps each side's best round, so a busy machine slows both alike.
//!
//! `TAVLEI_VENV` names the venv (default `$HOME/.cache/tavlei/torch-2.13.0`); `TAVLEI_BENCH_THREADS`
//! sets the thread count of both sides.

use std::path::PathBuf;
use std::process::Command;
use std::time::Instant;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use tavlei::encode::planes::PLANES;
use tavlei::encode::policy::policy_size;
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
const ROUNDS: usize = 3;

/// Random 0/1 planes, `LEGAL` random legal moves per row with a one-hot target among them, and
/// values in {-1, 0, 1}: the same shapes and kinds as `BatchBuilder` gives.
fn random_batch() -> Batch {
    tch::manual_seed(11);
    let p = policy_size(SIZE as usize) as i64;
    let opts = (Kind::Float, Device::Cpu);
    let planes = Tensor::rand([BATCH, PLANES as i64, SIZE, SIZE], opts)
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
        train_step(&self.net, &mut self.opt, &self.batch, lr, &self.cfg, false);
    }

    /// Samples per second over `STEPS` steps after `WARMUP`.
    fn round(&mut self) -> f64 {
        for _ in 0..WARMUP {
            self.step();
        }
        let clock = Instant::now();
        for _ in 0..STEPS {
            self.step();
        }
        (BATCH as usize * STEPS) as f64 / clock.elapsed().as_secs_f64()
    }
}

fn python() -> PathBuf {
    let venv = std::env::var_os("TAVLEI_VENV")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            let home = std::env::var_os("HOME").unwrap_or_default();
            PathBuf::from(home).join(".cache/tavlei/torch-2.13.0")
        });
    venv.join("bin/python")
}

/// One round of the PyTorch reference: its samples per second and thread count.
fn pytorch_round(python: &PathBuf, threads: i32) -> Result<(f64, i64), String> {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/benches/train_reference.py");
    let out = Command::new(python)
        .args(["-W", "ignore", script])
        .args(["--batch", &BATCH.to_string(), "--size", &SIZE.to_string()])
        .args(["--legal", &LEGAL.to_string(), "--steps", &STEPS.to_string()])
        .args([
            "--warmup",
            &WARMUP.to_string(),
            "--threads",
            &threads.to_string(),
        ])
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
    let rate = json["samples_per_s"].as_f64().ok_or("no samples_per_s")?;
    Ok((rate, json["threads"].as_i64().unwrap_or(-1)))
}

/// Alternating rounds of tavlei and PyTorch; prints each round, the best of each and the ratio.
fn compare(setup: &mut Setup) {
    let threads = tch::get_num_threads();
    let python = python();
    if !python.exists() {
        let rate = (0..ROUNDS).map(|_| setup.round()).fold(0.0, f64::max);
        println!(
            "train/compare: no python at {} (set TAVLEI_VENV); tavlei alone: {rate:.0} samples/s \
             ({threads} threads)",
            python.display()
        );
        return;
    }
    let (mut best_tavlei, mut best_torch, mut torch_threads) = (0.0f64, 0.0f64, -1);
    for round in 1..=ROUNDS {
        let ours = setup.round();
        best_tavlei = best_tavlei.max(ours);
        match pytorch_round(&python, threads) {
            Ok((theirs, t)) => {
                best_torch = best_torch.max(theirs);
                torch_threads = t;
                println!(
                    "train/compare round {round}: tavlei {ours:.0} samples/s, pytorch {theirs:.0} \
                     samples/s, ratio {:.3}",
                    ours / theirs
                );
            }
            Err(e) => {
                println!("train/compare: the PyTorch reference did not run: {e}");
                println!("train/compare: tavlei alone: {best_tavlei:.0} samples/s");
                return;
            }
        }
    }
    println!(
        "train/compare best of {ROUNDS}: tavlei {best_tavlei:.0} samples/s ({threads} threads), \
         pytorch {best_torch:.0} samples/s ({torch_threads} threads), ratio {:.3} (target >= 0.95)",
        best_tavlei / best_torch
    );
}

fn train(c: &mut Criterion) {
    let mut setup = Setup::new();
    if std::env::var_os("BREAKDOWN").is_some() {
        breakdown(&mut setup);
        return;
    }
    let mut group = c.benchmark_group("train");
    group.sample_size(10);
    group.throughput(Throughput::Elements(BATCH as u64));
    group.bench_function(BenchmarkId::new("tavlei_4x32", BATCH), |b| {
        b.iter(|| setup.step())
    });
    group.finish();
    // `cargo bench -- --test` (and `--list`) only check that the benchmark runs
    let args: Vec<String> = std::env::args().collect();
    if !args.iter().any(|a| a == "--test" || a == "--list") {
        compare(&mut setup);
    }
}

/// TEMPORARY: where a step's time goes.
fn breakdown(setup: &mut Setup) {
    use std::time::Duration;
    let time = |f: &mut dyn FnMut()| -> f64 {
        for _ in 0..3 {
            f();
        }
        let mut best = Duration::MAX;
        for _ in 0..5 {
            let c = Instant::now();
            for _ in 0..10 {
                f();
            }
            best = best.min(c.elapsed());
        }
        best.as_secs_f64() * 1e3 / 10.0
    };
    let net = &setup.net;
    let b = &setup.batch;
    let loss_only = |b: &Batch| {
        let (logits, value) = net.net.forward(&b.planes, true);
        let masked = logits.to_kind(Kind::Float) + (&b.legal - 1.0) * 1e9;
        let log_p = masked.log_softmax(1, Kind::Float);
        let policy_loss = -(&b.policy * &log_p)
            .sum_dim_intlist(1, false, Kind::Float)
            .mean(Kind::Float);
        let value_loss = (&value - &b.value).square().mean(Kind::Float);
        (policy_loss + value_loss, masked, value)
    };
    let fwd = time(&mut || {
        let _ = net.net.forward(&b.planes, true);
    });
    let fl = time(&mut || {
        let _ = loss_only(b);
    });
    let metrics = time(&mut || {
        let (_, masked, value) = tch::no_grad(|| loss_only(b));
        let _ = masked
            .argmax(1, false)
            .eq_tensor(&b.policy.argmax(1, false))
            .to_kind(Kind::Float)
            .sum(Kind::Float)
            .double_value(&[]);
        let decisive = b.value.abs().gt(0.5);
        let _ = value
            .sign()
            .eq_tensor(&b.value.sign())
            .logical_and(&decisive)
            .to_kind(Kind::Float)
            .sum(Kind::Float)
            .double_value(&[]);
    });
    let nograd = time(&mut || {
        let _ = tch::no_grad(|| loss_only(b));
    });
    let flb = time(&mut || {
        let (l, _, _) = loss_only(b);
        setup.opt.zero_grad();
        l.backward();
    });
    let flmb = time(&mut || {
        let (l, masked, value) = loss_only(b);
        let _ = masked
            .argmax(1, false)
            .eq_tensor(&b.policy.argmax(1, false))
            .to_kind(Kind::Float)
            .sum(Kind::Float)
            .double_value(&[]);
        let decisive = b.value.abs().gt(0.5);
        let _ = value
            .sign()
            .eq_tensor(&b.value.sign())
            .logical_and(&decisive)
            .to_kind(Kind::Float)
            .sum(Kind::Float)
            .double_value(&[]);
        let _ = l.double_value(&[]);
        drop(masked);
        drop(value);
        setup.opt.zero_grad();
        l.backward();
    });
    let opt = time(&mut || setup.opt.step(1e-5));
    let full = time(&mut || setup.step());
    println!("breakdown ms: forward {fwd:.2}, forward+loss {fl:.2}, metrics(+nograd fwd) {:.2}, fwd+loss+backward {flb:.2}, with metrics {flmb:.2}, adam {opt:.2}, train_step {full:.2}", metrics - nograd);
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
