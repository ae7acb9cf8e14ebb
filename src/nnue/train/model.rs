//! The float network as trained, in tch: the feature transformer as a sum of embedding rows (an
//! embedding bag over each position's active features), clamp to [0, 1], then one of two small
//! heads chosen by the side to move. Shapes and names are those of the evaluation file
//! (`ft.weight` [F, N], `ft.bias` [N], `l1.weight` [2, H, N], `l1.bias` [2, H], `out.weight`
//! [2, H], `out.bias` [2]), so a checkpoint's tensors export as they are.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use tavlei_nnue::{FeatureSet, FloatNetwork, Meta};
use tch::nn::{Init, VarStore};
use tch::{Device, Kind, Tensor};

use super::batch::Batch;

/// The integer network's scales.
const QA: f64 = tavlei_nnue::QA as f64;
const QB: f64 = tavlei_nnue::QB as f64;
/// The feature transformer's bias is kept within ±1 (a unit's whole active range).
const FT_BIAS_BOUND: f64 = 1.0;

/// The largest |W_ft| that quantisation keeps safe: a position switches on at most
/// `max_active` features, so an i16 accumulator holds `round(127 b) + sum round(127 w)` with at
/// most `max_active` terms; `127 * 1 + max_active * q <= 32767` gives the largest integer weight
/// `q`, and the bound is `q / 127` (an exact multiple of the step, so rounding cannot pass it).
/// Copenhagen (242 features at most): q = 134, about ±1.055; Brandubh (98): q = 333, ±2.62.
pub fn ft_weight_bound(features: &FeatureSet) -> f64 {
    let headroom = i16::MAX as f64 - QA * FT_BIAS_BOUND;
    (headroom / features.max_active() as f64).floor() / QA
}

/// W1's bound: `round(64 w)` must fit an i8.
pub const L1_WEIGHT_BOUND: f64 = 127.0 / QB;

pub struct NnueModel {
    pub vs: VarStore,
    pub features: FeatureSet,
    pub width: usize,
    pub hidden: usize,
    ft_weight: Tensor,
    ft_bias: Tensor,
    l1_weight: Tensor,
    l1_bias: Tensor,
    out_weight: Tensor,
    out_bias: Tensor,
}

impl NnueModel {
    /// A freshly initialised model; the initial weights follow libtorch's generator (seed it with
    /// `nn::seeded::with_seed`).
    pub fn new(features: FeatureSet, width: usize, hidden: usize) -> NnueModel {
        let vs = VarStore::new(Device::Cpu);
        let root = vs.root();
        let (f, n, h) = (features.count() as i64, width as i64, hidden as i64);
        // a typical position switches on about a quarter of its maximum: weights of that many
        // rows sum to a spread of about 0.5 around the bias of 0.5, inside the clamp's range
        let typical = (features.max_active() as f64 / 4.0).max(1.0);
        let ft_std = 0.5 / typical.sqrt();
        let ft_weight = root.sub("ft").var(
            "weight",
            &[f, n],
            Init::Randn {
                mean: 0.0,
                stdev: ft_std,
            },
        );
        let ft_bias = root.sub("ft").var("bias", &[n], Init::Const(0.5));
        let l1 = 1.0 / (n as f64).sqrt();
        let l1_weight = root
            .sub("l1")
            .var("weight", &[2, h, n], Init::Uniform { lo: -l1, up: l1 });
        let l1_bias = root.sub("l1").var("bias", &[2, h], Init::Const(0.0));
        let out = 1.0 / (h as f64).sqrt();
        let out_weight =
            root.sub("out")
                .var("weight", &[2, h], Init::Uniform { lo: -out, up: out });
        let out_bias = root.sub("out").var("bias", &[2], Init::Const(0.0));
        NnueModel {
            vs,
            features,
            width,
            hidden,
            ft_weight,
            ft_bias,
            l1_weight,
            l1_bias,
            out_weight,
            out_bias,
        }
    }

    /// A checkpoint of the board size `size`, its width and hidden units read from its shapes.
    pub fn load(path: &Path, size: usize) -> Result<NnueModel, tch::TchError> {
        let tensors: HashMap<String, Tensor> =
            Tensor::read_safetensors(path)?.into_iter().collect();
        let shape = |name: &str| {
            tensors.get(name).map(Tensor::size).ok_or_else(|| {
                tch::TchError::FileFormat(format!("{} has no tensor {name}", path.display()))
            })
        };
        let (ft, l1) = (shape("ft.weight")?, shape("l1.weight")?);
        if ft.len() != 2 || l1.len() != 3 {
            return Err(tch::TchError::FileFormat(format!(
                "{}: ft.weight {ft:?} and l1.weight {l1:?} are not [F, N] and [2, H, N]",
                path.display()
            )));
        }
        let mut model = crate::nn::seeded::exclusive(|| {
            NnueModel::new(FeatureSet::new(size), ft[1] as usize, l1[1] as usize)
        });
        model.vs.load(path)?;
        Ok(model)
    }

    /// The logits `[B]` that the side to move wins.
    pub fn forward(&self, batch: &Batch) -> Tensor {
        let (sum, _, _, _) = Tensor::embedding_bag(
            &self.ft_weight,
            &batch.indices,
            &batch.offsets,
            false,
            0, // sum
            false,
            None::<Tensor>,
            false,
        );
        let a = (sum + &self.ft_bias).clamp(0.0, 1.0);
        let (n, h) = (self.width as i64, self.hidden as i64);
        // both sides' heads in one product, then each row's side to move picked out
        let hidden = (a.matmul(&self.l1_weight.view([2 * h, n]).tr()) + self.l1_bias.view([2 * h]))
            .clamp(0.0, 1.0)
            .view([-1, 2, h]);
        let both = (hidden * self.out_weight.unsqueeze(0)).sum_dim_intlist(-1, false, Kind::Float)
            + &self.out_bias;
        both.gather(1, &batch.side.unsqueeze(1), false)
            .squeeze_dim(1)
    }

    /// Keeps the weights where quantisation represents them (after every optimizer step).
    pub fn clip(&mut self) {
        let ft = ft_weight_bound(&self.features);
        tch::no_grad(|| {
            let _ = self.ft_weight.clamp_(-ft, ft);
            let _ = self.ft_bias.clamp_(-FT_BIAS_BOUND, FT_BIAS_BOUND);
            let _ = self.l1_weight.clamp_(-L1_WEIGHT_BOUND, L1_WEIGHT_BOUND);
        });
    }

    /// The weights as the inference crate's float network.
    pub fn to_float(
        &self,
        variant: &str,
        provenance: BTreeMap<String, String>,
    ) -> Result<FloatNetwork, tch::TchError> {
        let floats =
            |t: &Tensor| Vec::<f32>::try_from(t.detach().to_kind(Kind::Float).flatten(0, -1));
        Ok(FloatNetwork {
            meta: Meta {
                variant: variant.to_string(),
                board_size: self.features.size(),
                width: self.width,
                hidden: self.hidden,
                provenance,
            },
            ft_weight: floats(&self.ft_weight)?,
            ft_bias: floats(&self.ft_bias)?,
            l1_weight: floats(&self.l1_weight)?,
            l1_bias: floats(&self.l1_bias)?,
            out_weight: floats(&self.out_weight)?,
            out_bias: floats(&self.out_bias)?,
        })
    }

    /// Saves the weights (safetensors) under a temporary name, then puts them in place atomically.
    pub fn save(&self, path: &Path) -> Result<(), tch::TchError> {
        let tmp = path.with_extension("tmp.safetensors");
        self.vs.save(&tmp)?;
        crate::atomic::persist(&tmp, path).map_err(|e| tch::TchError::FileFormat(e.to_string()))
    }
}
