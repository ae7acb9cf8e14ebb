//! Rules-engine speed: random playouts (plies per second, every rule checked as in a real game)
//! and legal-move generation (moves per second) for four board sizes.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tavlei::rules::playout::random_playout;
use tavlei::rules::{Move, Position, Variant};

const VARIANTS: [&str; 4] = ["brandubh", "tavlei", "copenhagen", "alea_evangelii"];
const GAMES: u64 = 20;

fn playouts(c: &mut Criterion) {
    let mut group = c.benchmark_group("random_playout");
    group.sample_size(10);
    for name in VARIANTS {
        let v = Variant::load(name).expect("preset");
        let start = Position::start(&v);
        let mut moves = Vec::with_capacity(512);
        // count the plies of the fixed game set once, so throughput reads as plies/s
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let plies: u64 = (0..GAMES)
            .map(|_| random_playout(&start, &mut rng, &mut moves).plies as u64)
            .sum();
        group.throughput(Throughput::Elements(plies));
        group.bench_function(BenchmarkId::new("plies", name), |b| {
            b.iter(|| {
                let mut rng = ChaCha8Rng::seed_from_u64(1);
                (0..GAMES)
                    .map(|_| random_playout(&start, &mut rng, &mut moves).plies)
                    .sum::<u32>()
            })
        });
    }
    group.finish();
}

/// Positions met in random games (not only the start), for move generation alone.
fn sample_positions(v: &std::sync::Arc<Variant>, count: usize) -> Vec<Position> {
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    let mut moves = Vec::new();
    let mut out = Vec::new();
    while out.len() < count {
        let mut pos = Position::start(v);
        loop {
            pos.legal_moves(&mut moves);
            if moves.is_empty() {
                break;
            }
            if rng.random_range(0..8) == 0 {
                out.push(pos.clone());
            }
            pos.play_unchecked(moves[rng.random_range(0..moves.len())]);
        }
    }
    out.truncate(count);
    out
}

fn move_generation(c: &mut Criterion) {
    let mut group = c.benchmark_group("legal_moves");
    for name in VARIANTS {
        let v = Variant::load(name).expect("preset");
        let positions = sample_positions(&v, 200);
        let mut moves: Vec<Move> = Vec::with_capacity(512);
        let total: usize = positions
            .iter()
            .map(|p| {
                p.legal_moves(&mut moves);
                moves.len()
            })
            .sum();
        group.throughput(Throughput::Elements(total as u64));
        group.bench_function(BenchmarkId::new("moves", name), |b| {
            b.iter(|| {
                positions
                    .iter()
                    .map(|p| {
                        p.legal_moves(&mut moves);
                        moves.len()
                    })
                    .sum::<usize>()
            })
        });
    }
    group.finish();
}

criterion_group!(benches, playouts, move_generation);
criterion_main!(benches);
