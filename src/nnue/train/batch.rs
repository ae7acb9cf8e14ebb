//! Labelled positions to training tensors: the active features of each board (under a symmetry
//! of the variant when augmenting) as one flat index list with per-position offsets, the side
//! to move and the target; and which positions are held out.

use rand::Rng;
use tavlei_nnue::FeatureSet;
use tch::Tensor;

use crate::nnue::LabelledPosition;
use crate::rules::Symmetry;
use crate::search::alphabeta::WIN_BOUND;

/// A position as trained: its board, side to move, target win probability and weight in the
/// loss.
#[derive(Clone, Debug, PartialEq)]
pub struct Item {
    pub cells: Vec<u8>,
    /// 0 attackers, 1 defenders to move.
    pub side: u8,
    pub target: f32,
    /// 1 unless the winners are balanced (`winner_weights`).
    pub weight: f32,
}

impl Item {
    /// A position with weight 1.
    pub fn new(p: &LabelledPosition, lambda: f64, score_per_logit: f64) -> Item {
        Item {
            cells: p.cells.clone(),
            side: p.side,
            target: target(p, lambda, score_per_logit),
            weight: 1.0,
        }
    }
}

/// The side that won a position's game (0 attackers, 1 defenders), none for a draw.
pub fn winner(p: &LabelledPosition) -> Option<u8> {
    match p.result {
        1 => Some(p.side),
        -1 => Some(1 - p.side),
        _ => None,
    }
}

/// The weights that make the positions of games each side won count equally, `[attackers won,
/// defenders won]`, with the decided positions' total weight kept: when one side wins almost
/// every game, its positions would otherwise drown the other's. A side with no win keeps 1.
pub fn winner_weights(winners: impl Iterator<Item = Option<u8>>) -> [f64; 2] {
    let mut wins = [0u64; 2];
    for side in winners.flatten() {
        wins[side as usize] += 1;
    }
    let decided = (wins[0] + wins[1]) as f64;
    if wins.contains(&0) {
        return [1.0, 1.0];
    }
    wins.map(|n| decided / (2.0 * n as f64))
}

/// The tensors of a batch (all on the CPU).
pub struct Batch {
    /// Every position's active features, one after another (i64).
    pub indices: Tensor,
    /// Where each position's features start in `indices` `[B]` (i64).
    pub offsets: Tensor,
    /// `[B]` side to move (i64, 0 or 1).
    pub side: Tensor,
    /// `[B]` targets in [0, 1].
    pub target: Tensor,
    /// `[B]` each position's weight in the loss.
    pub weight: Tensor,
}

/// The win probability a position is trained towards: `lambda` of it from the search score
/// (a logistic of `score / score_per_logit`; a proven win or loss, beyond `WIN_BOUND`, counts as
/// 1 or 0), the rest from the game's result (1 won, 0.5 drawn, 0 lost).
pub fn target(p: &LabelledPosition, lambda: f64, score_per_logit: f64) -> f32 {
    let from_score = if p.score >= WIN_BOUND {
        1.0
    } else if p.score <= -WIN_BOUND {
        0.0
    } else {
        1.0 / (1.0 + (-(p.score as f64) / score_per_logit).exp())
    };
    let from_result = (p.result as f64 + 1.0) / 2.0;
    (lambda * from_score + (1.0 - lambda) * from_result) as f32
}

/// The board under `sym` (a piece on square `s` goes to `sym.apply(s)`).
pub fn transform_cells(cells: &[u8], sym: Symmetry, size: usize, out: &mut Vec<u8>) {
    out.clear();
    out.resize(cells.len(), 0);
    for (sq, &code) in cells.iter().enumerate() {
        out[sym.apply(sq as _, size) as usize] = code;
    }
}

/// Whether a position is held out: decided by a seeded hash of the smallest of its images under
/// `symmetries`, so a position and its mirror images (which augmentation makes of each other)
/// always fall on the same side.
pub fn is_held_out(
    item: &Item,
    symmetries: &[Symmetry],
    size: usize,
    seed: u64,
    share: f64,
) -> bool {
    if share <= 0.0 {
        return false;
    }
    let mut image = Vec::new();
    let mut smallest = item.cells.clone();
    for &sym in symmetries {
        transform_cells(&item.cells, sym, size, &mut image);
        if image < smallest {
            std::mem::swap(&mut image, &mut smallest);
        }
    }
    smallest.push(item.side);
    let hash = xxhash_rust::xxh3::xxh3_64_with_seed(&smallest, seed);
    (hash >> 11) as f64 / (1u64 << 53) as f64 <= share
}

/// Builds batches for one feature set; `symmetries` are drawn from when augmenting (the
/// identity alone means none).
pub struct BatchBuilder {
    features: FeatureSet,
    symmetries: Vec<Symmetry>,
}

impl BatchBuilder {
    pub fn new(features: FeatureSet, symmetries: Vec<Symmetry>) -> BatchBuilder {
        let symmetries = if symmetries.is_empty() {
            vec![Symmetry::Identity]
        } else {
            symmetries
        };
        BatchBuilder {
            features,
            symmetries,
        }
    }

    /// The batch of `items`, each under a symmetry drawn from `rng`.
    pub fn build<R: Rng>(&self, items: &[&Item], rng: &mut R) -> Batch {
        let size = self.features.size();
        let mut indices: Vec<u32> = Vec::with_capacity(items.len() * 64);
        let mut offsets: Vec<i64> = Vec::with_capacity(items.len());
        let mut side = Vec::with_capacity(items.len());
        let mut target = Vec::with_capacity(items.len());
        let mut weight = Vec::with_capacity(items.len());
        let mut image = Vec::new();
        for item in items {
            offsets.push(indices.len() as i64);
            let sym = self.symmetries[rng.random_range(0..self.symmetries.len())];
            if sym == Symmetry::Identity {
                self.features.active(&item.cells, &mut indices);
            } else {
                transform_cells(&item.cells, sym, size, &mut image);
                self.features.active(&image, &mut indices);
            }
            side.push(item.side as i64);
            target.push(item.target);
            weight.push(item.weight);
        }
        let indices: Vec<i64> = indices.into_iter().map(i64::from).collect();
        Batch {
            indices: Tensor::from_slice(&indices),
            offsets: Tensor::from_slice(&offsets),
            side: Tensor::from_slice(&side),
            target: Tensor::from_slice(&target),
            weight: Tensor::from_slice(&weight),
        }
    }
}
