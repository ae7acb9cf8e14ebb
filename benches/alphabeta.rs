//! Alpha-beta speed: nodes per second of a fixed-depth search from the start position of three
//! board sizes, each search by a fresh agent (empty table), so every run visits the same nodes.
//! Throughput is in nodes: criterion's "elem/s" reads as nodes per second.

use criterion::{criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion, Throughput};
use tavlei::rules::{Position, Variant};
use tavlei::search::alphabeta::{AlphaBeta, AlphaBetaConfig, Limit};

/// Presets and the depth searched on each (tens of milliseconds per search in a release build).
const CASES: [(&str, u32); 3] = [("brandubh", 5), ("tavlei", 4), ("copenhagen", 3)];

fn nodes_per_second(c: &mut Criterion) {
    let mut group = c.benchmark_group("alphabeta");
    group.sample_size(10);
    for (name, depth) in CASES {
        let v = Variant::load(name).expect("preset");
        let start = Position::start(&v);
        let config = AlphaBetaConfig::default();
        let nodes = AlphaBeta::new(config.clone(), 1)
            .search(&start, Limit::Depth(depth))
            .nodes;
        println!("alphabeta {name} depth {depth}: {nodes} nodes per search");
        group.throughput(Throughput::Elements(nodes));
        group.bench_function(BenchmarkId::new(format!("depth{depth}"), name), |b| {
            b.iter_batched(
                || AlphaBeta::new(config.clone(), 1),
                |mut ab| ab.search(&start, Limit::Depth(depth)).nodes,
                BatchSize::PerIteration,
            )
        });
    }
    group.finish();
}

criterion_group!(benches, nodes_per_second);
criterion_main!(benches);
