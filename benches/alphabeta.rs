//! Alpha-beta speed: nodes per second of a fixed-depth search from the start position of three
//! board sizes, each search by a fresh agent (empty table), so every run visits the same nodes.
//! Throughput is in nodes: criterion's "elem/s" reads as nodes per second. Each search runs
//! without and with a quiescence search of 4 plies (`-q4`), whose nodes count too.
//!
//! `alphabeta_learned`: nodes per second on Copenhagen with the compiled evaluation, with a
//! learned one (`ab:B:nnue=FILE`, the committed generation-1 network `LEARNED`) and with both
//! (the hybrid of `configs/alphabeta/hybrid.toml` attacking), same depth, one thread, each
//! counted by its own search's nodes (the evaluations grow different trees).
//!
//! `alphabeta_time`: the wall time of one move at a 20 ms limit as a match plays it (the table
//! cleared, then the search) and of the search alone, against the 20 ms the opponent gets: what
//! "equal time" gives alpha-beta in fact.

use std::path::Path;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion, Throughput};
use tavlei::rules::{Position, Variant};
use tavlei::search::alphabeta::{AlphaBeta, AlphaBetaConfig, LearnedEval, Limit};

/// Presets and the depth searched on each (tens of milliseconds per search in a release build).
const CASES: [(&str, u32); 3] = [("brandubh", 5), ("tavlei", 4), ("copenhagen", 3)];

/// The learned evaluation `alphabeta_learned` searches with.
const LEARNED: &str = "experiments/nnue/copenhagen/gen1-s1/eval.nnue";

fn nodes_per_second(c: &mut Criterion) {
    let mut group = c.benchmark_group("alphabeta");
    group.sample_size(10);
    // without and with the quiescence search of configs/alphabeta/quiescence.toml
    for (name, depth) in CASES {
        let v = Variant::load(name).expect("preset");
        let start = Position::start(&v);
        for quiescence in [0, 4] {
            let mut config = AlphaBetaConfig::default();
            config.search.quiescence = quiescence;
            let nodes = AlphaBeta::new(config.clone(), 1)
                .search(&start, Limit::Depth(depth))
                .nodes;
            let id = match quiescence {
                0 => format!("depth{depth}"),
                q => format!("depth{depth}-q{q}"),
            };
            println!("alphabeta {name} {id}: {nodes} nodes per search");
            group.throughput(Throughput::Elements(nodes));
            group.bench_function(BenchmarkId::new(id, name), |b| {
                b.iter_batched(
                    || AlphaBeta::new(config.clone(), 1),
                    |mut ab| ab.search(&start, Limit::Depth(depth)).nodes,
                    BatchSize::PerIteration,
                )
            });
        }
    }
    group.finish();
}

fn learned_nodes_per_second(c: &mut Criterion) {
    let mut group = c.benchmark_group("alphabeta_learned");
    group.sample_size(10);
    let v = Variant::load("copenhagen").expect("preset");
    let start = Position::start(&v);
    // the committed generation-1 network (width 128, H 16: the trainer's default sizes)
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join(LEARNED);
    let network = LearnedEval::load(&file, "copenhagen")
        .expect("the committed Copenhagen network")
        .network()
        .clone();
    let depth = 3;
    for quiescence in [0, 4] {
        let mut config = AlphaBetaConfig::default();
        config.search.quiescence = quiescence;
        // the hybrid adds the compiled evaluation at weight 4 while attacking (the start's
        // side to move), as configs/alphabeta/hybrid.toml does: both evaluations at every leaf
        for eval in ["compiled", "learned", "hybrid"] {
            let mut config = config.clone();
            if eval == "hybrid" {
                config.search.blend_attacking = 4.0;
            }
            let agent = || {
                let ab = AlphaBeta::new(config.clone(), 1);
                match eval {
                    "compiled" => ab,
                    _ => ab.with_learned(LearnedEval::new(network.clone())),
                }
            };
            let nodes = agent().search(&start, Limit::Depth(depth)).nodes;
            let id = format!("{eval}-depth{depth}-q{quiescence}");
            println!("alphabeta_learned copenhagen {id}: {nodes} nodes per search");
            group.throughput(Throughput::Elements(nodes));
            group.bench_function(BenchmarkId::new(id, "copenhagen"), |b| {
                b.iter_batched(
                    agent,
                    |mut ab| ab.search(&start, Limit::Depth(depth)).nodes,
                    BatchSize::PerIteration,
                )
            });
        }
    }
    group.finish();
}

fn timed_move(c: &mut Criterion) {
    let mut group = c.benchmark_group("alphabeta_time");
    group.sample_size(20);
    let limit = Limit::Time(Duration::from_millis(20));
    for name in ["brandubh", "tavlei", "copenhagen"] {
        let v = Variant::load(name).expect("preset");
        let start = Position::start(&v);
        let mut ab = AlphaBeta::new(AlphaBetaConfig::default(), 1);
        group.bench_function(BenchmarkId::new("clear+search-20ms", name), |b| {
            b.iter(|| {
                ab.clear();
                ab.search(&start, limit).nodes
            })
        });
        group.bench_function(BenchmarkId::new("search-20ms", name), |b| {
            b.iter(|| ab.search(&start, limit).nodes)
        });
    }
    group.bench_function("clear", |b| {
        let mut ab = AlphaBeta::new(AlphaBetaConfig::default(), 1);
        b.iter(|| ab.clear())
    });
    group.finish();
}

criterion_group!(
    benches,
    nodes_per_second,
    learned_nodes_per_second,
    timed_move
);
criterion_main!(benches);
