//! The network as trained, in `f32`: the reference the integer inference is tested against.

use tavlei_rules::Side;

use crate::error::NnueError;
use crate::features::FeatureSet;
use crate::meta::Meta;

/// Float weights in the layout of the file (row-major, feature-major `ft_weight`).
#[derive(Clone, Debug, PartialEq)]
pub struct FloatNetwork {
    pub meta: Meta,
    /// `[F, N]`
    pub ft_weight: Vec<f32>,
    /// `[N]`
    pub ft_bias: Vec<f32>,
    /// `[2, H, N]`, indexed by the side to move first.
    pub l1_weight: Vec<f32>,
    /// `[2, H]`
    pub l1_bias: Vec<f32>,
    /// `[2, H]`
    pub out_weight: Vec<f32>,
    /// `[2]`
    pub out_bias: Vec<f32>,
}

/// The side's index in the per-side layers: 0 attackers, 1 defenders.
pub(crate) fn side_index(side: Side) -> usize {
    match side {
        Side::Attackers => 0,
        Side::Defenders => 1,
    }
}

impl FloatNetwork {
    pub fn features(&self) -> FeatureSet {
        FeatureSet::new(self.meta.board_size)
    }

    /// Checks every tensor's length against the meta's sizes.
    pub fn check_lengths(&self) -> Result<(), NnueError> {
        let (f, n, h) = (self.features().count(), self.meta.width, self.meta.hidden);
        if n == 0 || h == 0 {
            return Err(NnueError::Dimensions(format!(
                "width {n} and hidden {h} must be positive"
            )));
        }
        let expected = [
            ("ft.weight", self.ft_weight.len(), f * n),
            ("ft.bias", self.ft_bias.len(), n),
            ("l1.weight", self.l1_weight.len(), 2 * h * n),
            ("l1.bias", self.l1_bias.len(), 2 * h),
            ("out.weight", self.out_weight.len(), 2 * h),
            ("out.bias", self.out_bias.len(), 2),
        ];
        for (tensor, found, expected) in expected {
            if found != expected {
                return Err(NnueError::Length {
                    tensor: tensor.to_string(),
                    found,
                    expected,
                });
            }
        }
        Ok(())
    }

    /// The logit that the side to move wins, from the active features (`FeatureSet::active`).
    /// Panics if an index is out of range or the lengths are wrong (`check_lengths`).
    pub fn evaluate(&self, active: &[u32], side: Side) -> f32 {
        let (n, h) = (self.meta.width, self.meta.hidden);
        let mut acc = self.ft_bias.clone();
        for &f in active {
            let row = &self.ft_weight[f as usize * n..(f as usize + 1) * n];
            for (a, w) in acc.iter_mut().zip(row) {
                *a += w;
            }
        }
        let a: Vec<f32> = acc.iter().map(|x| x.clamp(0.0, 1.0)).collect();
        let s = side_index(side);
        let mut y = self.out_bias[s];
        for j in 0..h {
            let row = &self.l1_weight[(s * h + j) * n..(s * h + j + 1) * n];
            let pre: f32 =
                self.l1_bias[s * h + j] + row.iter().zip(&a).map(|(w, x)| w * x).sum::<f32>();
            y += self.out_weight[s * h + j] * pre.clamp(0.0, 1.0);
        }
        y
    }
}
