//! The shipped networks' forward pass on one thread (denormals flushed for the pass, as every
//! forward pass runs: `nn::threads::DenormalsFlushed`), batch 1, 8 and 64, through
//! `Network::evaluate` (encoding and read-back included):
//! the module as trained (`module`), batch norm folded into the convolutions (`folded`), and
//! folded with channels-last weights and input (`folded-cl`, what `NetworkEvaluator` runs), and
//! both folded forms in bf16 (`folded-bf16`, `folded-cl-bf16`: `nn::Precision`).
//! The `evaluator` group times what self-play and matches call, `NetworkEvaluator`, in each
//! precision (`f32`, `bf16`, `int8`: `nn::int8`), priors over the legal moves included.
//! Throughput is in positions. PyTorch's side of the same question (bf16, TorchScript) is
//! `benches/inference_torch.py` (`make bench-inference`).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use tavlei::nn::folded::FoldedNet;
use tavlei::nn::threads::flushed;
use tavlei::nn::{Network, NetworkEvaluator, Precision};
use tavlei::rules::{Position, Variant};
use tavlei::search::Evaluator;

fn inference(c: &mut Criterion) {
    let mut group = c.benchmark_group("inference");
    group.sample_size(20);
    for variant in ["brandubh", "tablut", "tavlei", "copenhagen"] {
        let v = Variant::load(variant).expect("preset");
        let path = format!("models/{variant}.safetensors");
        let net = Network::load(path.as_ref(), Some(variant), tch::Device::Cpu)
            .expect("the shipped network");
        let folded = FoldedNet::of(&net.net, false);
        let folded_cl = FoldedNet::of(&net.net, true);
        let bf16 = FoldedNet::with_precision(&net.net, false, Precision::Bf16);
        let bf16_cl = FoldedNet::with_precision(&net.net, true, Precision::Bf16);
        let positions = leaves(&v);
        for batch in [1usize, 8, 64] {
            let refs: Vec<&Position> = positions.iter().take(batch).collect();
            group.throughput(Throughput::Elements(batch as u64));
            let id = |name: &str| BenchmarkId::new(format!("{name}/batch{batch}"), variant);
            group.bench_function(id("module"), |b| {
                b.iter(|| net.evaluate(&refs).expect("evaluates"))
            });
            group.bench_function(id("folded"), |b| {
                b.iter(|| {
                    net.evaluate_with(&refs, &|x| flushed(|| folded.forward(x)))
                        .expect("evaluates")
                })
            });
            for (name, folded) in [
                ("folded-cl", &folded_cl),
                ("folded-bf16", &bf16),
                ("folded-cl-bf16", &bf16_cl),
            ] {
                group.bench_function(id(name), |b| {
                    b.iter(|| {
                        net.evaluate_with(&refs, &|x| flushed(|| folded.forward(x)))
                            .expect("evaluates")
                    })
                });
            }
        }
    }
    group.finish();
}

fn evaluator(c: &mut Criterion) {
    let mut group = c.benchmark_group("evaluator");
    group.sample_size(20);
    for variant in ["brandubh", "tablut", "tavlei", "copenhagen"] {
        let v = Variant::load(variant).expect("preset");
        let path = format!("models/{variant}.safetensors");
        let positions = leaves(&v);
        let moves: Vec<Vec<_>> = positions
            .iter()
            .map(|p| {
                let mut m = Vec::new();
                p.legal_moves(&mut m);
                m
            })
            .collect();
        for precision in [Precision::F32, Precision::Bf16, Precision::Int8] {
            let net = Network::load(path.as_ref(), Some(variant), tch::Device::Cpu)
                .expect("the shipped network");
            let mut evaluator = NetworkEvaluator::with_precision(net, precision);
            for batch in [1usize, 8, 64] {
                let requests: Vec<_> = positions
                    .iter()
                    .zip(&moves)
                    .take(batch)
                    .map(|(p, m)| (p, m.as_slice()))
                    .collect();
                group.throughput(Throughput::Elements(batch as u64));
                let id = BenchmarkId::new(format!("{precision}/batch{batch}"), variant);
                group.bench_function(id, |b| b.iter(|| evaluator.evaluate(&requests)));
            }
        }
    }
    group.finish();
}

/// 64 positions a few plies apart, as a search's leaves are.
fn leaves(v: &std::sync::Arc<Variant>) -> Vec<Position> {
    let mut positions = Vec::new();
    let mut pos = Position::start(v);
    let mut moves = Vec::new();
    for k in 0..64 {
        positions.push(pos.clone());
        pos.legal_moves(&mut moves);
        if moves.is_empty() {
            pos = Position::start(v);
            continue;
        }
        pos.play_unchecked(moves[(k * 7) % moves.len()]);
    }
    positions
}

criterion_group!(benches, inference, evaluator);
criterion_main!(benches);
