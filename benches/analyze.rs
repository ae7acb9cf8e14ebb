//! `tavlei analyze` with a network agent: many queries in flight (their leaves evaluated in one
//! batch) against the same queries one at a time, in the same run. Positions per second at a
//! fixed budget (the shipped Brandubh network, 64 simulations a position).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tavlei::engine::analyze::AnalysisEngine;
use tavlei::eval::AgentSpec;
use tavlei::rules::{Move, Position, Variant};

const POSITIONS: usize = 32;

/// Queries for `POSITIONS` positions a few random moves from the start.
fn queries() -> Vec<String> {
    let v = Variant::load("brandubh").expect("preset");
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    (0..POSITIONS)
        .map(|k| {
            let mut pos = Position::start(&v);
            let mut moves = Vec::new();
            for _ in 0..rng.random_range(0..8) {
                let mut legal: Vec<Move> = Vec::new();
                pos.legal_moves(&mut legal);
                if pos.outcome().is_some() || legal.is_empty() {
                    break;
                }
                let mv = legal[rng.random_range(0..legal.len())];
                let mut next = pos.clone();
                if next.play(&mv.name(v.size)).is_err() {
                    break;
                }
                if next.outcome().is_some() {
                    break;
                }
                moves.push(format!("\"{}\"", mv.name(v.size)));
                pos = next;
            }
            format!(r#"{{"id": {k}, "moves": [{}]}}"#, moves.join(", "))
        })
        .collect()
}

fn analyze(c: &mut Criterion) {
    let spec = AgentSpec::parse("net:models/brandubh.safetensors:64").expect("spec");
    let queries = queries();
    let mut engine = AnalysisEngine::new(Some("brandubh".into()), spec, tch::Device::Cpu, 1);
    let mut group = c.benchmark_group("analyze_brandubh_net64");
    group.sample_size(10);
    group.throughput(Throughput::Elements(POSITIONS as u64));
    group.bench_function(BenchmarkId::new("queries", "batched"), |b| {
        b.iter(|| {
            let input = std::io::Cursor::new(queries.join("\n"));
            let mut out = Vec::new();
            engine.run(input, &mut out).expect("answers");
            out
        })
    });
    group.bench_function(BenchmarkId::new("queries", "one_at_a_time"), |b| {
        b.iter(|| {
            let mut out = Vec::new();
            for q in &queries {
                engine
                    .run(std::io::Cursor::new(q.clone()), &mut out)
                    .expect("answers");
            }
            out
        })
    });
    group.finish();
}

criterion_group!(benches, analyze);
criterion_main!(benches);
