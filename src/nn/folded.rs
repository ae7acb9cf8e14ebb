//! The network for inference only: each batch norm folded into the convolution before it (its
//! scale into the weights, its shift into a bias), so a forward pass runs one op where it ran
//! two, and the convolutions' weights laid out channels-last for oneDNN. Built once from trained
//! weights (`NetworkEvaluator::new`); its outputs agree with `PolicyValueNet::forward` in eval
//! mode to float rounding (tested below). Measured in `benches/inference.rs`.

use tch::{Kind, Tensor};

use super::model::{ConvBn, PolicyValueNet, BN_EPSILON};

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
    fn of(c: &ConvBn, last: bool) -> FoldedConv {
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
        let weight = &c.conv.ws * scale.view([-1, 1, 1, 1]);
        let bias = beta - &bn.running_mean * &scale;
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
}

fn copy(t: &Tensor) -> Tensor {
    t.detach().copy()
}

impl FoldedNet {
    /// The folded form of `net`'s current weights (copied: later training does not reach it),
    /// its convolutions channels-last when `channels_last`.
    pub fn of(net: &PolicyValueNet, channels_last: bool) -> FoldedNet {
        tch::no_grad(|| {
            let fold = |c: &ConvBn| FoldedConv::of(c, channels_last);
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
            }
        })
    }

    /// Policy logits and values, as `PolicyValueNet::forward(x, false)` gives them.
    pub fn forward(&self, x: &Tensor) -> (Tensor, Tensor) {
        let x = if self.channels_last {
            channels_last(x)
        } else {
            x.shallow_clone()
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
        let pooled = pf.mean_dim(&[2i64, 3][..], false, Kind::Float);
        let global = pooled.linear(&self.policy_global.0, self.policy_global.1.as_ref());
        let policy = Tensor::cat(&[squares, global], 1);
        let vf = self.value_features.forward(&h).relu();
        let v = vf
            .mean_dim(&[2i64, 3][..], false, Kind::Float)
            .linear(&self.value_hidden.0, self.value_hidden.1.as_ref())
            .relu()
            .linear(&self.value_out.0, self.value_out.1.as_ref())
            .tanh()
            .reshape([n]);
        (policy, v)
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
}
