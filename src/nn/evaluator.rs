//! The policy-value network as the search's evaluator (`search::Evaluator`): the search knows
//! only the trait, so it builds and is tested without libtorch.

use super::folded::FoldedNet;
use super::Network;
use crate::encode::policy::{policy_index, policy_size};
use crate::numeric::softmax;
use crate::rules::{Move, Position};
use crate::search::{Evaluation, Evaluator, Request};

/// The policy-value network, one batch per call, through its folded form (`nn::folded`): an
/// evaluator serves weights that no longer change. Small batches run channels-last, large ones
/// in the default layout: each the faster in `benches/inference.rs` (batch 1: 1.3-1.7x the
/// module with channels-last, 1.0-1.2x without; batch 64: the other way round).
pub struct NetworkEvaluator {
    pub network: Network,
    small_batches: FoldedNet,
    large_batches: FoldedNet,
}

/// Batches up to this size run channels-last.
const SMALL_BATCH: usize = 8;

impl NetworkEvaluator {
    pub fn new(network: Network) -> NetworkEvaluator {
        NetworkEvaluator {
            small_batches: FoldedNet::of(&network.net, true),
            large_batches: FoldedNet::of(&network.net, false),
            network,
        }
    }
}

/// Softmax of the logits of the legal moves.
pub fn legal_softmax(logits: &[f32], moves: &[Move], size: usize) -> Vec<f32> {
    let picked: Vec<f32> = moves
        .iter()
        .map(|&m| logits[policy_index(m, size)])
        .collect();
    softmax(&picked)
}

impl Evaluator for NetworkEvaluator {
    fn evaluate(&mut self, requests: &[Request<'_>]) -> Vec<Evaluation> {
        let Some((first, _)) = requests.first() else {
            return vec![];
        };
        let size = first.variant().size;
        let positions: Vec<&Position> = requests.iter().map(|(p, _)| *p).collect();
        // the network's own output failing to convert is a libtorch fault, not bad input
        let (logits, values) = self
            .network
            .evaluate_with(&positions, &|x| {
                if positions.len() <= SMALL_BATCH {
                    self.small_batches.forward(x)
                } else {
                    self.large_batches.forward(x)
                }
            })
            .unwrap_or_else(|e| panic!("{e}"));
        let p = policy_size(size);
        requests
            .iter()
            .enumerate()
            .map(|(i, (_, moves))| Evaluation {
                priors: legal_softmax(&logits[i * p..(i + 1) * p], moves, size),
                value: values[i],
            })
            .collect()
    }

    fn describe(&self) -> String {
        let a = self.network.meta.architecture;
        format!(
            "network {}x{} (step {})",
            a.blocks, a.channels, self.network.meta.step
        )
    }
}
