//! The policy-value network: a ResNet tower, fully convolutional so that one definition serves
//! every board size. Policy: `POLICY_CHANNELS` logits per square plus two pooled logits (stop,
//! pass); value: a tanh scalar from the side to move's point of view.

use serde::{Deserialize, Serialize};
use tch::nn::{self, ModuleT};
use tch::Tensor;

use crate::encode::policy::POLICY_CHANNELS;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Architecture {
    pub blocks: usize,
    pub channels: i64,
}

/// `BLOCKSxCHANNELS`, as the configs and reports name a network's size.
impl std::fmt::Display for Architecture {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}x{}", self.blocks, self.channels)
    }
}

impl Default for Architecture {
    /// The default network: small enough for self-play on a CPU.
    fn default() -> Self {
        Architecture {
            blocks: 4,
            channels: 32,
        }
    }
}

pub(crate) const HEAD_CHANNELS: i64 = 32;
/// libtorch's batch-norm default, named so that folding it (`nn::folded`) uses the same.
pub(crate) const BN_EPSILON: f64 = 1e-5;

#[derive(Debug)]
pub(crate) struct ConvBn {
    pub(crate) conv: nn::Conv2D,
    pub(crate) bn: nn::BatchNorm,
    pub(crate) padding: i64,
}

impl ConvBn {
    pub(crate) fn new(p: &nn::Path, cin: i64, cout: i64, kernel: i64) -> ConvBn {
        let cfg = nn::ConvConfig {
            padding: kernel / 2,
            bias: false,
            ..Default::default()
        };
        let bn = nn::BatchNormConfig {
            eps: BN_EPSILON,
            ..Default::default()
        };
        ConvBn {
            conv: nn::conv2d(p / "conv", cin, cout, kernel, cfg),
            bn: nn::batch_norm2d(p / "bn", cout, bn),
            padding: kernel / 2,
        }
    }

    pub(crate) fn forward(&self, x: &Tensor, train: bool) -> Tensor {
        x.apply(&self.conv).apply_t(&self.bn, train)
    }
}

#[derive(Debug)]
pub struct PolicyValueNet {
    pub(crate) stem: ConvBn,
    pub(crate) blocks: Vec<(ConvBn, ConvBn)>,
    pub(crate) policy_features: ConvBn,
    pub(crate) policy_squares: nn::Conv2D,
    pub(crate) policy_global: nn::Linear,
    pub(crate) value_features: ConvBn,
    pub(crate) value_hidden: nn::Linear,
    pub(crate) value_out: nn::Linear,
}

impl PolicyValueNet {
    /// A network reading `planes` input planes (those of its encoding).
    pub fn new(p: &nn::Path, arch: Architecture, planes: usize) -> PolicyValueNet {
        let c = arch.channels;
        PolicyValueNet {
            stem: ConvBn::new(&(p / "stem"), planes as i64, c, 3),
            blocks: (0..arch.blocks)
                .map(|i| {
                    let b = p / format!("block{i}");
                    (
                        ConvBn::new(&(&b / "a"), c, c, 3),
                        ConvBn::new(&(&b / "b"), c, c, 3),
                    )
                })
                .collect(),
            policy_features: ConvBn::new(&(p / "policy"), c, HEAD_CHANNELS, 1),
            policy_squares: nn::conv2d(
                p / "policy_squares",
                HEAD_CHANNELS,
                POLICY_CHANNELS as i64,
                1,
                Default::default(),
            ),
            policy_global: nn::linear(p / "policy_global", HEAD_CHANNELS, 2, Default::default()),
            value_features: ConvBn::new(&(p / "value"), c, HEAD_CHANNELS, 1),
            value_hidden: nn::linear(p / "value_hidden", HEAD_CHANNELS, 64, Default::default()),
            value_out: nn::linear(p / "value_out", 64, 1, Default::default()),
        }
    }

    /// `x`: `[N, planes, S, S]`. Returns policy logits `[N, POLICY_CHANNELS*S*S + 2]` (indexed as
    /// `encode::policy`) and values `[N]` in (-1, 1). Runs with denormals flushed to zero, for
    /// speed (`nn::threads::DenormalsFlushed`).
    pub fn forward(&self, x: &Tensor, train: bool) -> (Tensor, Tensor) {
        super::threads::flushed(|| self.heads(&self.trunk(x, train), train))
    }

    /// The residual tower's features `[N, channels, S, S]`, which every head reads.
    pub fn trunk(&self, x: &Tensor, train: bool) -> Tensor {
        let mut h = self.stem.forward(x, train).relu();
        for (a, b) in &self.blocks {
            let y = a.forward(&h, train).relu();
            h = (b.forward(&y, train) + h).relu();
        }
        h
    }

    /// Policy logits and values from the trunk's features.
    pub fn heads(&self, h: &Tensor, train: bool) -> (Tensor, Tensor) {
        let n = h.size()[0];
        let pf = self.policy_features.forward(h, train).relu();
        let policy = policy_logits(&pf, &self.policy_squares, &self.policy_global);
        let vf = self.value_features.forward(h, train).relu();
        let v = vf
            .mean_dim(&[2i64, 3][..], false, tch::Kind::Float)
            .apply(&self.value_hidden)
            .relu()
            .apply(&self.value_out)
            .tanh()
            .reshape([n]);
        (policy, v)
    }
}

/// Policy logits `[N, POLICY_CHANNELS*S*S + 2]` from a policy head's features: a 1x1
/// convolution per square and two logits of the pooled features (stop, pass).
pub(crate) fn policy_logits(
    features: &Tensor,
    squares: &nn::Conv2D,
    global: &nn::Linear,
) -> Tensor {
    let n = features.size()[0];
    let per_square = features.apply(squares).reshape([n, -1]);
    let pooled = features.mean_dim(&[2i64, 3][..], false, tch::Kind::Float);
    Tensor::cat(&[per_square, pooled.apply(global)], 1)
}

impl ModuleT for PolicyValueNet {
    fn forward_t(&self, xs: &Tensor, train: bool) -> Tensor {
        self.forward(xs, train).0
    }
}
