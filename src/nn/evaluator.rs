//! The policy-value network as the search's evaluator (`search::Evaluator`): the search knows
//! only the trait, so it builds and is tested without libtorch.

use std::sync::Arc;

use tch::Tensor;

use super::folded::FoldedNet;
use super::int8::{calibration_planes, Int8Net};
use super::threads::flushed;
use super::{Network, Precision};
use crate::encode::policy::{policy_index, policy_size};
use crate::numeric::softmax;
use crate::rules::{Move, Position, Variant};
use crate::search::{Evaluation, Evaluator, Request};

/// The policy-value network, one batch per call, through its folded form (`nn::folded`): an
/// evaluator serves weights that no longer change. Each batch runs in the form that is fastest at
/// its size in `benches/inference.rs` (one thread): in f32, channels-last up to 8 positions and
/// the default layout above (batch 1: 1.3-1.7x the module with channels-last, 1.0-1.2x without;
/// batch 64: the other way round); in bf16, channels-last from 2 positions (Copenhagen 3x32:
/// 1.4x f32 at batch 8, 2.1x at 64), and a lone position in f32 channels-last, where bf16 is
/// about half as fast (`experiments/network-speed/bf16/`). In int8 every batch runs in the 8-bit
/// form (`nn::int8`: 3.4-8.3x f32, `experiments/network-speed/int8/`), which computes only the
/// legal moves' logits.
pub struct NetworkEvaluator {
    pub network: Network,
    precision: Precision,
    /// (largest batch, form), by growing batch size; the last form takes every larger batch.
    forms: Vec<(usize, FoldedNet)>,
    /// In int8, the network's 8-bit form, made at the first batch (its scales are calibrated on
    /// positions of the variant that batch is of).
    int8: Option<Int8Net>,
}

/// Positions the int8 form's scales are calibrated on.
const CALIBRATION_POSITIONS: usize = 256;

impl NetworkEvaluator {
    /// Forward passes in f32, as trained.
    pub fn new(network: Network) -> NetworkEvaluator {
        NetworkEvaluator::with_precision(network, Precision::F32)
    }

    pub fn with_precision(network: Network, precision: Precision) -> NetworkEvaluator {
        let form = |channels_last, p| FoldedNet::with_precision(&network.net, channels_last, p);
        let forms = match precision {
            Precision::F32 => vec![
                (8, form(true, Precision::F32)),
                (usize::MAX, form(false, Precision::F32)),
            ],
            Precision::Bf16 => vec![
                (1, form(true, Precision::F32)),
                (usize::MAX, form(true, Precision::Bf16)),
            ],
            // the f32 form calibrates the int8 one
            Precision::Int8 => vec![(usize::MAX, form(false, Precision::F32))],
        };
        NetworkEvaluator {
            network,
            precision,
            forms,
            int8: None,
        }
    }

    /// The int8 form, calibrated on positions of `variant` the first time.
    fn int8(&mut self, variant: &Arc<Variant>) -> &Int8Net {
        let (network, forms) = (&self.network, &self.forms);
        self.int8.get_or_insert_with(|| {
            let encoding = network.encoding();
            let planes = calibration_planes(variant, encoding, CALIBRATION_POSITIONS);
            let size = variant.size as i64;
            let x =
                Tensor::from_slice(&planes).view([CALIBRATION_POSITIONS as i64, -1, size, size]);
            let f32 = &forms[0].1;
            Int8Net::new(f32.float_layers(), &flushed(|| f32.activation_maxima(&x)))
        })
    }

    /// The form that runs a batch of `n` positions.
    fn form(&self, n: usize) -> &FoldedNet {
        let fits = self.forms.iter().find(|(largest, _)| n <= *largest);
        &fits
            .or(self.forms.last())
            .expect("an evaluator has forms")
            .1
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
        if self.precision == Precision::Int8 {
            let planes = self.network.encoding().encode_batch(&positions);
            // the logits of the legal moves only: the rest are never read
            let wanted: Vec<Vec<usize>> = requests
                .iter()
                .map(|(_, moves)| moves.iter().map(|&m| policy_index(m, size)).collect())
                .collect();
            let wanted: Vec<&[usize]> = wanted.iter().map(Vec::as_slice).collect();
            let int8 = self.int8(first.variant());
            let (logits, values) = int8.forward(&planes, positions.len(), size, &wanted);
            return logits
                .iter()
                .zip(values)
                .map(|(logits, value)| Evaluation {
                    priors: softmax(logits),
                    value,
                })
                .collect();
        }
        // the network's own output failing to convert is a libtorch fault, not bad input;
        // denormals flushed for the forward pass only (`DenormalsFlushed`): the softmax below
        // and the search after it keep IEEE floats
        let (logits, values) = self
            .network
            .evaluate_with(&positions, &|x| {
                flushed(|| self.form(positions.len()).forward(x))
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
        let precision = self.precision;
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
                .evaluate_with(&[&pos], &|x| evaluator.form(1).forward(x))
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

    /// A bf16 evaluator runs a lone position in f32 (bf16 is slower there) and larger batches
    /// in bf16: its priors for one position are f32's exactly, and within bf16 rounding of
    /// them, but not equal, in a batch of several.
    #[test]
    fn a_bf16_evaluator_runs_batches_of_two_and_more_in_bf16() {
        let v = Variant::load("tablut").expect("preset");
        let net = || Network::load("models/tablut.safetensors".as_ref(), None, tch::Device::Cpu);
        let mut f32 = NetworkEvaluator::new(net().expect("shipped"));
        let mut bf16 = NetworkEvaluator::with_precision(net().expect("shipped"), Precision::Bf16);
        let mut pos = Position::start(&v);
        let mut batch = Vec::new();
        let mut moves = Vec::new();
        for k in 0..4 {
            pos.legal_moves(&mut moves);
            batch.push((pos.clone(), moves.clone()));
            pos.play_unchecked(moves[k * 5 % moves.len()]);
        }
        let requests: Vec<_> = batch.iter().map(|(p, m)| (p, m.as_slice())).collect();
        let priors = |e: &mut NetworkEvaluator, r: &[Request<'_>]| -> Vec<Vec<f32>> {
            e.evaluate(r).into_iter().map(|x| x.priors).collect()
        };
        assert_eq!(
            priors(&mut bf16, &requests[..1]),
            priors(&mut f32, &requests[..1])
        );
        let (a, b) = (priors(&mut bf16, &requests), priors(&mut f32, &requests));
        let largest = a
            .iter()
            .flatten()
            .zip(b.iter().flatten())
            .map(|(x, y)| (x - y).abs())
            .fold(0.0f32, f32::max);
        assert!(largest > 0.0 && largest < 0.02, "{largest}");
    }

    /// An int8 evaluator plays its batches through the 8-bit form (`nn::int8`), alone or
    /// together: its values are within quantisation of f32's and not f32's, and the same
    /// position gets the same evaluation in a batch of one and of several.
    #[test]
    fn an_int8_evaluator_answers_within_quantisation_of_f32() {
        let v = Variant::load("tavlei").expect("preset");
        let net = || Network::load("models/tavlei.safetensors".as_ref(), None, tch::Device::Cpu);
        let mut f32 = NetworkEvaluator::new(net().expect("shipped"));
        let mut int8 = NetworkEvaluator::with_precision(net().expect("shipped"), Precision::Int8);
        let mut pos = Position::start(&v);
        let (mut batch, mut moves) = (Vec::new(), Vec::new());
        for k in 0..6 {
            pos.legal_moves(&mut moves);
            batch.push((pos.clone(), moves.clone()));
            pos.play_unchecked(moves[k * 5 % moves.len()]);
        }
        let requests: Vec<_> = batch.iter().map(|(p, m)| (p, m.as_slice())).collect();
        let (a, b) = (int8.evaluate(&requests), f32.evaluate(&requests));
        let dv = a
            .iter()
            .zip(&b)
            .map(|(x, y)| (x.value - y.value).abs())
            .fold(0.0, f32::max);
        let dp = a
            .iter()
            .zip(&b)
            .flat_map(|(x, y)| x.priors.iter().zip(&y.priors).map(|(p, q)| (p - q).abs()))
            .fold(0.0f32, f32::max);
        assert!(
            dv > 0.0 && dv < 0.05 && dp < 0.05,
            "values {dv}, priors {dp}"
        );
        let alone = int8.evaluate(&requests[2..3]);
        assert_eq!(
            (alone[0].value, &alone[0].priors),
            (a[2].value, &a[2].priors)
        );
        assert!(int8.describe().ends_with(", int8)"), "{}", int8.describe());
    }
}
