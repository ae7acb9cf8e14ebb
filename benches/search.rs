//! Pure MCTS speed: simulations per second of `mcts` (the search of `mcts:N`: decisive rollouts,
//! cheap move prior, widening, solver) against `mcts-uct` (random rollouts, no solver) on
//! Brandubh and Copenhagen start positions; and plies per second of a decisive playout against a
//! uniformly random one, so the cost of decisive moves reads as a ratio.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use tavlei::rules::playout::random_playout;
use tavlei::rules::{Position, Variant};
use tavlei::search::mcts::rollout::{decisive_playout, Scratch};
use tavlei::search::mcts::single::run;
use tavlei::search::{Budget, RolloutEvaluator, Search, SearchConfig};

const SIMULATIONS: u32 = 200;

fn mcts(c: &mut Criterion) {
    let mut group = c.benchmark_group("mcts");
    group.sample_size(10);
    group.throughput(Throughput::Elements(SIMULATIONS as u64));
    for variant in ["brandubh", "copenhagen"] {
        let v = Variant::load(variant).expect("preset");
        let start = Position::start(&v);
        let uct = SearchConfig {
            solver: false,
            ..SearchConfig::rollouts()
        };
        for (name, cfg, decisive) in [
            ("mcts", SearchConfig::rollouts(), true),
            ("mcts-uct", uct, false),
        ] {
            group.bench_function(BenchmarkId::new(name, variant), |b| {
                let mut seed = 0;
                b.iter(|| {
                    seed += 1;
                    let mut eval = RolloutEvaluator::new(1, seed);
                    eval.decisive = decisive;
                    let mut search =
                        Search::new(start.clone(), cfg.clone(), Budget::Nodes(SIMULATIONS));
                    let mut rng = ChaCha8Rng::seed_from_u64(seed);
                    run(&mut search, &mut eval, &mut rng)
                })
            });
        }
    }
    group.finish();
}

fn playouts(c: &mut Criterion) {
    let mut group = c.benchmark_group("playout_plies");
    for variant in ["brandubh", "copenhagen"] {
        let v = Variant::load(variant).expect("preset");
        let start = Position::start(&v);
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let mut moves = Vec::new();
        let mut scratch = Scratch::default();
        // mean plies per playout from a sample: the throughput is then plies per second
        let sample = 200u64;
        let random_plies: u64 = (0..sample)
            .map(|_| random_playout(&start, &mut rng, &mut moves).plies as u64)
            .sum();
        let decisive_plies: u64 = (0..sample)
            .map(|_| decisive_playout(&start, &mut rng, &mut scratch).plies as u64)
            .sum();
        group.throughput(Throughput::Elements((random_plies / sample).max(1)));
        group.bench_function(BenchmarkId::new("random", variant), |b| {
            b.iter(|| random_playout(&start, &mut rng, &mut moves))
        });
        group.throughput(Throughput::Elements((decisive_plies / sample).max(1)));
        group.bench_function(BenchmarkId::new("decisive", variant), |b| {
            b.iter(|| decisive_playout(&start, &mut rng, &mut scratch))
        });
    }
    group.finish();
}

criterion_group!(benches, mcts, playouts);
criterion_main!(benches);
