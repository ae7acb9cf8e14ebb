//! Integer inference on Copenhagen (11x11) at widths 128 and 256, H = 16: a full refresh, the
//! incremental update of one quiet move, and the head's evaluation. The position is the one
//! after 20 seeded random moves (about a full board); weights are random (speed does not
//! depend on their values).

use std::collections::BTreeMap;
use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tavlei_nnue::{FeatureSet, FloatNetwork, Meta, Network};
use tavlei_rules::piece::EMPTY;
use tavlei_rules::{Position, Side, Variant};

fn network(variant: &Variant, width: usize) -> Network {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let f = FeatureSet::new(variant.size).count();
    let hidden = 16;
    let mut values = |len: usize, scale: f32| -> Vec<f32> {
        (0..len).map(|_| rng.random_range(-scale..scale)).collect()
    };
    let float = FloatNetwork {
        meta: Meta {
            variant: variant.rules.name.clone(),
            board_size: variant.size,
            width,
            hidden,
            provenance: BTreeMap::new(),
        },
        ft_weight: values(f * width, 0.1),
        ft_bias: values(width, 0.5),
        l1_weight: values(2 * hidden * width, 0.5),
        l1_bias: values(2 * hidden, 0.5),
        out_weight: values(2 * hidden, 1.0),
        out_bias: values(2, 0.5),
    };
    Network::quantise(&float).expect("random weights are in range")
}

/// A middlegame position and a quiet move from it (no capture, not the king).
fn position_and_quiet_move(variant: &std::sync::Arc<Variant>) -> (Vec<u8>, Vec<u8>) {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let mut pos = Position::start(variant);
    let mut moves = Vec::new();
    for _ in 0..20 {
        pos.legal_moves(&mut moves);
        pos.play_unchecked(moves[rng.random_range(0..moves.len())]);
    }
    pos.legal_moves(&mut moves);
    let pieces = |c: &[u8]| c.iter().filter(|&&x| x != EMPTY).count();
    for &mv in &moves {
        let mut next = pos.clone();
        next.play_unchecked(mv);
        let quiet = pieces(next.cells()) == pieces(pos.cells())
            && FeatureSet::king_square(next.cells()) == FeatureSet::king_square(pos.cells());
        if quiet {
            return (pos.cells().to_vec(), next.cells().to_vec());
        }
    }
    panic!("no quiet move");
}

fn inference(c: &mut Criterion) {
    let variant = Variant::load("copenhagen").expect("preset");
    let (before, after) = position_and_quiet_move(&variant);
    let mut group = c.benchmark_group("nnue_copenhagen_h16");
    for width in [128, 256] {
        let net = network(&variant, width);
        let (mut parent, mut child) = (net.new_accumulator(), net.new_accumulator());
        net.refresh(&before, &mut parent);
        group.bench_with_input(BenchmarkId::new("refresh", width), &width, |b, _| {
            b.iter(|| net.refresh(black_box(&before), &mut child))
        });
        group.bench_with_input(BenchmarkId::new("update_quiet", width), &width, |b, _| {
            b.iter(|| net.update(&parent, black_box(&before), black_box(&after), &mut child))
        });
        group.bench_with_input(BenchmarkId::new("evaluate", width), &width, |b, _| {
            b.iter(|| net.evaluate(black_box(&parent), Side::Attackers))
        });
    }
    group.finish();
}

criterion_group!(benches, inference);
criterion_main!(benches);
