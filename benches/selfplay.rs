//! Network evaluations per second: the raw forward pass of the default 9×9 network at batch 1,
//! 64 and 256, and the same network driven by the whole self-play generator (tree, encoding,
//! batching included) with as many games in flight, so the two rates compare directly.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tavlei::nn::NetworkEvaluator;
use tavlei::nn::{Architecture, Network};
use tavlei::rules::presets::preset_text;
use tavlei::rules::{Position, Variant};
use tavlei::selfplay::{generate, SelfplayConfig};

fn network() -> Network {
    Network::new("tavlei", Architecture::default(), tch::Device::Cpu, 1)
}

/// Distinct positions from random tavlei games.
fn positions(n: usize) -> Vec<Position> {
    let v = Variant::load("tavlei").expect("preset");
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let mut out = Vec::new();
    let mut moves = Vec::new();
    while out.len() < n {
        let mut pos = Position::start(&v);
        for _ in 0..rng.random_range(0..60) {
            pos.legal_moves(&mut moves);
            if moves.is_empty() {
                break;
            }
            pos.play_unchecked(moves[rng.random_range(0..moves.len())]);
        }
        out.push(pos);
    }
    out
}

fn raw_forward(c: &mut Criterion) {
    let net = network();
    let size = 9;
    let encoding = net.encoding();
    let per = encoding.planes() * size * size;
    let mut group = c.benchmark_group("forward");
    for batch in [1usize, 64, 256] {
        let mut planes = vec![0.0f32; per * batch];
        for (pos, chunk) in positions(batch).iter().zip(planes.chunks_mut(per)) {
            encoding.encode_into(pos, chunk);
        }
        group.throughput(Throughput::Elements(batch as u64));
        group.bench_function(BenchmarkId::new("tavlei_4x32", batch), |b| {
            b.iter(|| {
                net.evaluate_planes(&planes, batch, size)
                    .expect("evaluates")
            })
        });
    }
    group.finish();
}

fn generator(c: &mut Criterion) {
    // short games keep one iteration to seconds; every move a full search, so batches stay full
    let text = preset_text("tavlei")
        .expect("preset")
        .replace("max_plies = 300", "max_plies = 24");
    let v = Variant::from_toml(&text, "tavlei, 24 plies").expect("variant");
    let start = Position::start(&v);
    let mut group = c.benchmark_group("selfplay");
    group.sample_size(10);
    for batch in [64usize, 256] {
        let cfg = SelfplayConfig {
            simulations: 16,
            full_search_fraction: 1.0,
            concurrent_games: batch,
            games_per_shard: batch,
            cache_size: 0,
            ..SelfplayConfig::default()
        };
        let mut eval = NetworkEvaluator::new(network());
        let dir = std::env::temp_dir().join(format!("tavlei-bench-selfplay-{batch}"));
        // evaluations per run are fixed by the seed: count them once for the throughput
        std::fs::remove_dir_all(&dir).ok();
        let evaluations = generate(&start, &mut eval, &cfg, batch as u64, 1, &dir, &mut ())
            .expect("runs")
            .evaluations;
        group.throughput(Throughput::Elements(evaluations));
        group.bench_function(BenchmarkId::new("generator_tavlei_4x32", batch), |b| {
            b.iter(|| {
                std::fs::remove_dir_all(&dir).ok();
                generate(&start, &mut eval, &cfg, batch as u64, 1, &dir, &mut ()).expect("runs")
            })
        });
        std::fs::remove_dir_all(&dir).ok();
    }
    group.finish();
}

criterion_group!(benches, raw_forward, generator);
criterion_main!(benches);
