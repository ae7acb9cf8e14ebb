//! Network search speed: simulations per second of one PUCT search of the shipped Brandubh,
//! Tavlei and Copenhagen networks from the start, 200 simulations a search (about a tenth of a
//! second on one core), on one thread, evaluating each leaf alone (`leaf1`) and gathering up
//! to 4, 8 and 16 leaves per network call (`leaf4`, `leaf8`, `leaf16`, virtual loss). The libtorch
//! threads are the project's (`nn::threads`: one per search) unless OMP_NUM_THREADS says
//! otherwise. Run it idle and beside a busy process (`sh -c 'while :; do :; done' &`) to see
//! the thread discipline; `make bench-network` runs both.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use tavlei::nn::Network;
use tavlei::nn::NetworkEvaluator;
use tavlei::rules::{Position, Variant};
use tavlei::search::mcts::single::run;
use tavlei::search::{Budget, Search, SearchConfig};

const SIMULATIONS: u32 = 200;

/// The search of a network agent in a match (no root noise), gathering `leaves` per call.
fn config(leaves: usize) -> SearchConfig {
    SearchConfig {
        dirichlet_epsilon: 0.0,
        leaf_batch: Some(leaves),
        ..SearchConfig::default()
    }
}

fn network_search(c: &mut Criterion) {
    let mut group = c.benchmark_group("network_search");
    group.sample_size(10);
    group.throughput(Throughput::Elements(SIMULATIONS as u64));
    for variant in ["brandubh", "tavlei", "copenhagen"] {
        let v = Variant::load(variant).expect("preset");
        let start = Position::start(&v);
        let path = format!("models/{variant}.safetensors");
        let net = Network::load(path.as_ref(), Some(variant), tch::Device::Cpu)
            .expect("the shipped network");
        let mut evaluator = NetworkEvaluator::new(net);
        for leaves in [1, 4, 8, 16] {
            let cfg = config(leaves);
            group.bench_function(BenchmarkId::new(format!("leaf{leaves}"), variant), |b| {
                let mut seed = 0;
                b.iter(|| {
                    seed += 1;
                    let mut search =
                        Search::new(start.clone(), cfg.clone(), Budget::Nodes(SIMULATIONS));
                    let mut rng = ChaCha8Rng::seed_from_u64(seed);
                    run(&mut search, &mut evaluator, &mut rng)
                })
            });
        }
    }
    group.finish();
}

criterion_group!(benches, network_search);
criterion_main!(benches);
