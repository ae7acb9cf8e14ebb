//! A pure-MCTS balance study on one worker thread and on two, in the same run: the games of
//! classical agents are played apart on rayon's threads, so two cores should take about half the
//! time (issue 15 asks for at least 1.8x).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use tavlei::eval::balance::run_balance;
use tavlei::eval::{Agent, AgentSpec, PlayOptions};
use tavlei::rules::{Position, Variant};

const GAMES: u64 = 64;

fn balance_study(c: &mut Criterion) {
    let variant = Variant::load("brandubh").expect("preset");
    let start = Position::start(&variant);
    let spec = AgentSpec::parse("mcts:64").expect("spec");
    let dir = std::env::temp_dir().join(format!("tavlei-bench-balance-{}", std::process::id()));
    let opts = PlayOptions::default();
    let mut group = c.benchmark_group("balance_mcts64_brandubh");
    group.sample_size(10);
    group.throughput(Throughput::Elements(GAMES));
    for threads in [1usize, 2] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("thread pool");
        group.bench_function(BenchmarkId::new("threads", threads), |b| {
            b.iter(|| {
                // a fresh store each time, so nothing is resumed
                std::fs::remove_dir_all(&dir).ok();
                let store = dir.join("games.jsonl");
                pool.install(|| {
                    let agent = Agent::load(&spec, "brandubh", tch::Device::Cpu, 1).expect("agent");
                    run_balance(&start, agent, GAMES, &opts, 7, &store, &mut |_| {})
                        .expect("balance")
                })
            })
        });
    }
    group.finish();
    std::fs::remove_dir_all(&dir).ok();
}

criterion_group!(benches, balance_study);
criterion_main!(benches);
