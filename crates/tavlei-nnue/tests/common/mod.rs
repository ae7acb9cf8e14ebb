//! Random networks and random games shared by the integration tests.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::sync::Arc;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tavlei_nnue::{FeatureSet, FloatNetwork, Meta};
use tavlei_rules::{Position, Side, Variant};

pub fn meta(variant: &Variant, width: usize, hidden: usize) -> Meta {
    Meta {
        variant: variant.rules.name.clone(),
        board_size: variant.size,
        width,
        hidden,
        provenance: BTreeMap::from([("seed".to_string(), "7".to_string())]),
    }
}

fn uniform(rng: &mut ChaCha8Rng, len: usize, lo: f32, hi: f32) -> Vec<f32> {
    (0..len).map(|_| rng.random_range(lo..hi)).collect()
}

/// Random weights of a trained network's sizes: first-layer sums spread over `[0, 1]` and
/// beyond (so both clamps act), head weights across most of the i8 range.
pub fn random_float(meta: Meta, seed: u64) -> FloatNetwork {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let f = FeatureSet::new(meta.board_size).count();
    let (n, h) = (meta.width, meta.hidden);
    FloatNetwork {
        ft_weight: uniform(&mut rng, f * n, -0.15, 0.15),
        ft_bias: uniform(&mut rng, n, -0.5, 1.5),
        l1_weight: uniform(&mut rng, 2 * h * n, -1.0, 1.0),
        l1_bias: uniform(&mut rng, 2 * h, -0.5, 0.5),
        out_weight: uniform(&mut rng, 2 * h, -1.5, 1.5),
        out_bias: uniform(&mut rng, 2, -0.5, 0.5),
        meta,
    }
}

/// Integers `lo..=hi` divided by `scale`: values the quantisation reproduces exactly.
fn grid(rng: &mut ChaCha8Rng, len: usize, lo: i32, hi: i32, scale: f32) -> Vec<f32> {
    (0..len)
        .map(|_| rng.random_range(lo..=hi) as f32 / scale)
        .collect()
}

/// Like `random_float`, but every weight on its quantisation grid (`k / 127`, `k / 64`,
/// `k / 8128`), so rounding the weights loses nothing.
pub fn grid_float(meta: Meta, seed: u64) -> FloatNetwork {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let f = FeatureSet::new(meta.board_size).count();
    let (n, h) = (meta.width, meta.hidden);
    FloatNetwork {
        ft_weight: grid(&mut rng, f * n, -19, 19, 127.0),
        ft_bias: grid(&mut rng, n, -64, 190, 127.0),
        l1_weight: grid(&mut rng, 2 * h * n, -64, 64, 64.0),
        l1_bias: grid(&mut rng, 2 * h, -4064, 4064, 8128.0),
        out_weight: grid(&mut rng, 2 * h, -96, 96, 64.0),
        out_bias: grid(&mut rng, 2, -4064, 4064, 8128.0),
        meta,
    }
}

/// The positions of a random game (uniform legal moves), at most `plies` moves; each entry is
/// the board before the move, the board after it and the side to move after it.
pub fn random_game(
    variant: &Arc<Variant>,
    seed: u64,
    plies: usize,
) -> Vec<(Vec<u8>, Vec<u8>, Side)> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut pos = Position::start(variant);
    let mut moves = Vec::new();
    let mut steps = Vec::new();
    for _ in 0..plies {
        pos.legal_moves(&mut moves);
        if pos.outcome().is_some() || moves.is_empty() {
            break;
        }
        let before = pos.cells().to_vec();
        pos.play_unchecked(moves[rng.random_range(0..moves.len())]);
        steps.push((before, pos.cells().to_vec(), pos.side_to_move()));
    }
    steps
}
