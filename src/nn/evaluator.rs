//! The policy-value network as the search's evaluator (`search::Evaluator`): the search knows
//! only the trait, so it builds and is tested without libtorch.

use super::folded::FoldedNet;
use super::threads::flushed;
use super::{Network, Precision};
use crate::encode::policy::{policy_index, policy_size};
use crate::numeric::softmax;
use crate::rules::{Move, Position};
use crate::search::{Evaluation, Evaluator, Request};

/// The policy-value network, one batch per call, through its folded form (`nn::folded`): an
/// evaluator serves weights that no longer change. Small batches run channels-last, large ones
/// in the default layout: each the faster in `benches/inference.rs` (batch 1: 1.3-1.7x the
/// module with channels-last, 1.0-1.2x without; batch 64: the other way round). Both run in the
/// evaluator's `Precision`.
pub struct NetworkEvaluator {
    pub network: Network,
    small_batches: FoldedNet,
    large_batches: FoldedNet,
}

/// Batches up to this size run channels-last.
const SMALL_BATCH: usize = 8;

impl NetworkEvaluator {
    /// Forward passes in f32, as trained.
    pub fn new(network: Network) -> NetworkEvaluator {
        NetworkEvaluator::with_precision(network, Precision::F32)
    }

    pub fn with_precision(network: Network, precision: Precision) -> NetworkEvaluator {
        NetworkEvaluator {
            small_batches: FoldedNet::with_precision(&network.net, true, precision),
            large_batches: FoldedNet::with_precision(&network.net, false, precision),
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
        // the network's own output failing to convert is a libtorch fault, not bad input;
        // denormals flushed for the forward pass only (`DenormalsFlushed`): the softmax below
        // and the search after it keep IEEE floats
        let (logits, values) = self
            .network
            .evaluate_with(&positions, &|x| {
                flushed(|| {
                    if positions.len() <= SMALL_BATCH {
                        self.small_batches.forward(x)
                    } else {
                        self.large_batches.forward(x)
                    }
                })
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
        let meta = &self.network.meta;
        let precision = self.small_batches.precision();
        format!(
            "network {} (step {}, {precision})",
            meta.architecture, meta.step
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nn::model::Architecture;
    use crate::nn::threads::flushes_denormals;
    use crate::rules::Variant;
    use std::hint::black_box;

    /// A network whose square logits come only through denormal weights: its stem weights are
    /// 1e-39 and every other weight and bias is zero except the policy head's (1 and 1e36), batch
    /// norm the identity. With denormals flushed every square logit is 0 (the priors uniform);
    /// with IEEE floats they reach well above 1, different on different squares.
    fn denormal_network() -> Network {
        let net = Network::new(
            "brandubh",
            Architecture {
                blocks: 1,
                channels: 4,
            },
            tch::Device::Cpu,
            1,
        );
        let mut vars = net.vs.variables();
        tch::no_grad(|| {
            for (name, t) in vars.iter_mut() {
                let identity = name.ends_with("running_var") || name.ends_with("bn.weight");
                let _ = t.fill_(if identity { 1.0 } else { 0.0 });
            }
            for (name, value) in [
                ("stem.conv.weight", 1e-39),
                ("policy.conv.weight", 1.0),
                ("policy_squares.weight", 1e36),
            ] {
                let t = vars.get_mut(name).unwrap_or_else(|| panic!("no {name}"));
                let _ = t.fill_(value);
            }
        });
        net
    }

    /// The largest minus the smallest prior.
    fn spread(priors: &[f32]) -> f32 {
        let max = priors.iter().fold(f32::MIN, |m, &p| m.max(p));
        let min = priors.iter().fold(f32::MAX, |m, &p| m.min(p));
        max - min
    }

    #[test]
    fn a_forward_pass_flushes_denormals_and_leaves_the_thread_as_it_found_it() {
        // a fresh thread, as a search worker is
        let seen = std::thread::spawn(|| {
            let v = Variant::load("brandubh").expect("preset");
            let pos = Position::start(&v);
            let mut moves = Vec::new();
            pos.legal_moves(&mut moves);
            let mut evaluator = NetworkEvaluator::new(denormal_network());
            // the folded network's pass without the guard: the denormals count
            let (logits, _) = evaluator
                .network
                .evaluate_with(&[&pos], &|x| evaluator.small_batches.forward(x))
                .expect("evaluates");
            let ieee = spread(&legal_softmax(&logits, &moves, v.size));
            // the search's evaluator, then the module as trained (`Network::evaluate`)
            let searched = spread(&evaluator.evaluate(&[(&pos, &moves)])[0].priors);
            let (logits, _) = evaluator.network.evaluate(&[&pos]).expect("evaluates");
            let module = spread(&legal_softmax(&logits, &moves, v.size));
            let after = (
                flushes_denormals(),
                black_box(black_box(1e-39f32) * black_box(1.5f32)),
            );
            (ieee, searched, module, after)
        })
        .join()
        .expect("the thread ends");
        let (ieee, searched, module, after) = seen;
        assert!(ieee > 1e-3, "with IEEE floats the priors differ: {ieee}");
        if cfg!(target_arch = "x86_64") {
            assert_eq!(
                searched, 0.0,
                "the evaluator's forward pass flushes denormals"
            );
            assert_eq!(module, 0.0, "the module's forward pass flushes denormals");
        }
        assert_eq!(
            after,
            (false, 1.5e-39),
            "the thread keeps IEEE floats after them"
        );
    }
}
