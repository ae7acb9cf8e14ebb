//! The network for inference only: each batch norm folded into the convolution before it (its
//! scale into the weights, its shift into a bias), so a forward pass runs one op where it ran
//! two, and the convolutions' weights laid out channels-last for oneDNN. Built once from trained
//! weights (`NetworkEvaluator::new`); its outputs agree with `PolicyValueNet::forward` in eval
//! mode to float rounding (tested below), or in bf16 (`Precision`) to bf16 rounding. Measured
//! in `benches/inference.rs`.

use tch::{Kind, Tensor};

use super::int8::{FloatConv, FloatLayers, Linear, Maxima};
use super::model::{ConvBn, PolicyValueNet, BN_EPSILON};
use super::precision::Precision;

/// The same `[N, C, H, W]` tensor with channels-last strides.
fn channels_last(t: &Tensor) -> Tensor {
    t.permute([0, 2, 3, 1]).contiguous().permute([0, 3, 1, 2])
}

#[derive(Debug)]
struct FoldedConv {
    weight: Tensor,
    bias: Tensor,
    padding: i64,
}

impl FoldedConv {
    fn of(c: &ConvBn, last: bool, kind: Kind) -> FoldedConv {
        let bn = &c.bn;
        let gamma = bn
            .ws
            .as_ref()
            .map_or_else(|| bn.running_var.ones_like(), Tensor::shallow_clone);
        let beta = bn
            .bs
            .as_ref()
            .map_or_else(|| bn.running_mean.zeros_like(), Tensor::shallow_clone);
        let scale = gamma / (&bn.running_var + BN_EPSILON).sqrt();
        // folded in f32, then rounded once to the inference kind
        let weight = (&c.conv.ws * scale.view([-1, 1, 1, 1])).to_kind(kind);
        let bias = (beta - &bn.running_mean * &scale).to_kind(kind);
        FoldedConv {
            weight: if last { channels_last(&weight) } else { weight },
            bias,
            padding: c.padding,
        }
    }

    fn forward(&self, x: &Tensor) -> Tensor {
        let p = self.padding;
        x.conv2d(&self.weight, Some(&self.bias), [1, 1], [p, p], [1, 1], 1)
    }
}

#[derive(Debug)]
pub struct FoldedNet {
    stem: FoldedConv,
    blocks: Vec<(FoldedConv, FoldedConv)>,
    policy_features: FoldedConv,
    policy_squares: (Tensor, Option<Tensor>),
    policy_global: (Tensor, Option<Tensor>),
    value_features: FoldedConv,
    value_hidden: (Tensor, Option<Tensor>),
    value_out: (Tensor, Option<Tensor>),
    channels_last: bool,
    precision: Precision,
}

impl FoldedNet {
    /// The folded form of `net`'s current weights (copied: later training does not reach it),
    /// its convolutions channels-last when `channels_last`, in f32.
    pub fn of(net: &PolicyValueNet, channels_last: bool) -> FoldedNet {
        FoldedNet::with_precision(net, channels_last, Precision::F32)
    }

    /// The same with weights and activations in `precision` (outputs always f32).
    pub fn with_precision(
        net: &PolicyValueNet,
        channels_last: bool,
        precision: Precision,
    ) -> FoldedNet {
        let kind = precision.kind();
        tch::no_grad(|| {
            let fold = |c: &ConvBn| FoldedConv::of(c, channels_last, kind);
            let copy = |t: &Tensor| t.detach().to_kind(kind).copy();
            let linear = |ws: &Tensor, bs: &Option<Tensor>| (copy(ws), bs.as_ref().map(copy));
            FoldedNet {
                stem: fold(&net.stem),
                blocks: net.blocks.iter().map(|(a, b)| (fold(a), fold(b))).collect(),
                policy_features: fold(&net.policy_features),
                policy_squares: linear(&net.policy_squares.ws, &net.policy_squares.bs),
                policy_global: linear(&net.policy_global.ws, &net.policy_global.bs),
                value_features: fold(&net.value_features),
                value_hidden: linear(&net.value_hidden.ws, &net.value_hidden.bs),
                value_out: linear(&net.value_out.ws, &net.value_out.bs),
                channels_last,
                precision,
            }
        })
    }

    /// Policy logits and values, as `PolicyValueNet::forward(x, false)` gives them (f32
    /// whatever the precision).
    pub fn forward(&self, x: &Tensor) -> (Tensor, Tensor) {
        let kind = self.precision.kind();
        let x = x.to_kind(kind);
        let x = if self.channels_last {
            channels_last(&x)
        } else {
            x
        };
        let mut h = self.stem.forward(&x).relu();
        for (a, b) in &self.blocks {
            let y = a.forward(&h).relu();
            h = (b.forward(&y) + h).relu();
        }
        let n = x.size()[0];
        let pf = self.policy_features.forward(&h).relu();
        let (ws, bs) = &self.policy_squares;
        // reshape keeps the logical [C, H, W] order whatever the strides (policy indices)
        let squares = pf
            .conv2d(ws, bs.as_ref(), [1, 1], [0, 0], [1, 1], 1)
            .reshape([n, -1]);
        let pooled = pf.mean_dim(&[2i64, 3][..], false, kind);
        let global = pooled.linear(&self.policy_global.0, self.policy_global.1.as_ref());
        let policy = Tensor::cat(&[squares, global], 1).to_kind(Kind::Float);
        let vf = self.value_features.forward(&h).relu();
        let v = vf
            .mean_dim(&[2i64, 3][..], false, kind)
            .linear(&self.value_hidden.0, self.value_hidden.1.as_ref())
            .relu()
            .linear(&self.value_out.0, self.value_out.1.as_ref())
            .tanh()
            .reshape([n])
            .to_kind(Kind::Float);
        (policy, v)
    }
}

/// A tensor's values, in its logical (row-major) order, as f32.
fn values(t: &Tensor) -> Vec<f32> {
    let flat = t.to_kind(Kind::Float).contiguous().flatten(0, -1);
    Vec::<f32>::try_from(flat).expect("a float tensor converts")
}

impl FoldedConv {
    /// Weights `[cout][cin][k][k]`, bias and shape, in f32.
    fn float(&self) -> FloatConv {
        let size = self.weight.size();
        let shape = (size[1] as usize, size[0] as usize, size[2] as usize);
        (values(&self.weight), values(&self.bias), shape)
    }
}

impl FoldedNet {
    /// Every layer's weights in f32, for the int8 form (`nn::int8`).
    pub(crate) fn float_layers(&self) -> FloatLayers {
        let linear = |(ws, bs): &(Tensor, Option<Tensor>)| Linear {
            weights: values(ws),
            bias: bs
                .as_ref()
                .map_or_else(|| vec![0.0; ws.size()[0] as usize], values),
        };
        let (ws, bs) = &self.policy_squares;
        let size = ws.size();
        let squares_bias = bs
            .as_ref()
            .map_or_else(|| vec![0.0; size[0] as usize], values);
        FloatLayers {
            stem: self.stem.float(),
            blocks: self
                .blocks
                .iter()
                .map(|(a, b)| [a.float(), b.float()])
                .collect(),
            policy_features: self.policy_features.float(),
            policy_squares: (
                values(ws),
                squares_bias,
                (size[1] as usize, size[0] as usize, 1),
            ),
            policy_global: linear(&self.policy_global),
            value_features: self.value_features.float(),
            value_hidden: linear(&self.value_hidden),
            value_out: linear(&self.value_out),
        }
    }

    /// The largest value of each tensor the int8 form stores in bytes, over the positions of
    /// `x`: the trunk after the stem, each block's middle and output.
    pub(crate) fn activation_maxima(&self, x: &Tensor) -> Maxima {
        tch::no_grad(|| {
            let largest = |t: &Tensor| t.max().double_value(&[]) as f32;
            let x = x.to_kind(self.precision.kind());
            let mut h = self.stem.forward(&x).relu();
            let mut maxima = vec![largest(&h)];
            for (a, b) in &self.blocks {
                let y = a.forward(&h).relu();
                h = (b.forward(&y) + &h).relu();
                maxima.extend([largest(&y), largest(&h)]);
            }
            maxima
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nn::model::Architecture;
    use crate::nn::Network;

    #[test]
    fn the_folded_network_agrees_with_the_module_in_eval_mode() {
        for path in [
            "models/brandubh.safetensors",
            "models/copenhagen.safetensors",
        ] {
            let net = Network::load(path.as_ref(), None, tch::Device::Cpu).expect("shipped");
            let size = if path.contains("brandubh") { 7 } else { 11 };
            let x = crate::nn::seeded::with_seed(3, || {
                Tensor::rand([5, 16, size, size], (Kind::Float, tch::Device::Cpu)).round()
            });
            let (p0, v0) = tch::no_grad(|| net.net.forward(&x, false));
            for last in [false, true] {
                let (p1, v1) = tch::no_grad(|| FoldedNet::of(&net.net, last).forward(&x));
                let dp = (&p0 - p1).abs().max().double_value(&[]);
                let dv = (&v0 - v1).abs().max().double_value(&[]);
                assert!(dp < 1e-4 && dv < 1e-4, "{path} {last}: {dp} {dv}");
            }
        }
        // a fresh network's batch norms (unit scale, zero shift, running statistics 0 and 1)
        let fresh = Network::new("brandubh", Architecture::default(), tch::Device::Cpu, 1);
        let x = crate::nn::seeded::with_seed(4, || {
            Tensor::rand([2, 16, 7, 7], (Kind::Float, tch::Device::Cpu))
        });
        let (p0, _) = tch::no_grad(|| fresh.net.forward(&x, false));
        let (p1, _) = tch::no_grad(|| FoldedNet::of(&fresh.net, true).forward(&x));
        assert!((&p0 - p1).abs().max().double_value(&[]) < 1e-4);
    }

    /// Positions a few plies apart along one line of play per start, as a search's leaves are.
    fn positions(variant: &str, n: usize) -> Vec<crate::rules::Position> {
        let v = crate::rules::Variant::load(variant).expect("preset");
        let mut out = Vec::new();
        let mut pos = crate::rules::Position::start(&v);
        let mut moves = Vec::new();
        for k in 0..n {
            out.push(pos.clone());
            pos.legal_moves(&mut moves);
            if moves.is_empty() {
                pos = crate::rules::Position::start(&v);
                continue;
            }
            pos.play_unchecked(moves[(k * 7 + k / 3) % moves.len()]);
        }
        out
    }

    /// bf16 rounds weights and activations to 8 significant bits: on positions of play its
    /// priors and values stay close to f32's (the bounds hold with room on the shipped
    /// networks), but are not f32's (the pass really ran in bf16).
    #[test]
    fn the_bf16_network_agrees_with_f32_to_bf16_rounding() {
        for variant in ["brandubh", "tablut", "copenhagen"] {
            let path = format!("models/{variant}.safetensors");
            let net = Network::load(path.as_ref(), None, tch::Device::Cpu).expect("shipped");
            let positions = positions(variant, 64);
            let refs: Vec<_> = positions.iter().collect();
            let f32 = FoldedNet::of(&net.net, false);
            let (p0, v0) = net.evaluate_with(&refs, &|x| f32.forward(x)).expect("f32");
            for last in [false, true] {
                let bf16 = FoldedNet::with_precision(&net.net, last, Precision::Bf16);
                let (p1, v1) = net
                    .evaluate_with(&refs, &|x| bf16.forward(x))
                    .expect("bf16");
                let priors = |p: &[f32]| {
                    let t = Tensor::from_slice(p).view([refs.len() as i64, -1]);
                    t.softmax(1, Kind::Float)
                };
                let dp = (priors(&p0) - priors(&p1)).abs().max().double_value(&[]);
                let dv = v0
                    .iter()
                    .zip(&v1)
                    .map(|(a, b)| (a - b).abs())
                    .fold(0.0, f32::max);
                eprintln!("{variant} {last}: priors {dp} values {dv}");
                assert!(dp < 0.02 && dv < 0.03, "{variant} {last}: {dp} {dv}");
                assert!(
                    dp > 0.0 && dv > 0.0,
                    "{variant} {last}: bf16 gave f32's outputs"
                );
            }
        }
    }
}
