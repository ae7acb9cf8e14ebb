//! The quantised network and its integer inference (see the crate's documentation for the
//! scales).

use std::path::Path;

use tavlei_rules::square::MAX_SIZE;
use tavlei_rules::{Side, Variant};

use crate::accumulator::Accumulator;
use crate::error::NnueError;
use crate::features::{FeatureChange, FeatureSet};
use crate::float::{side_index, FloatNetwork};
use crate::kernels::{self, CHUNK};
use crate::meta::Meta;
use crate::{EVAL_PER_LOGIT, QA, QB};

/// The widest accumulator accepted: a sanity bound against a corrupt header (trained widths are
/// 64 to 256).
pub const MAX_WIDTH: usize = 1024;

/// A quantised network ready for integer inference.
#[derive(Clone, PartialEq)]
pub struct Network {
    pub(crate) meta: Meta,
    pub(crate) features: FeatureSet,
    /// The row length in memory: `N` rounded up to whole vector chunks (the extra columns are
    /// zero everywhere, so they add nothing; files hold `N` columns).
    pub(crate) stride: usize,
    /// `[F, N]`, scale QA.
    pub(crate) ft_weight: Vec<i16>,
    /// `[N]`, scale QA.
    pub(crate) ft_bias: Vec<i16>,
    /// `[2, H, N]`, scale QB, i8 values held as i16 for the dot product.
    pub(crate) l1_weight: Vec<i16>,
    /// `[2, H]`, scale QA * QB.
    pub(crate) l1_bias: Vec<i32>,
    /// `[2, H]`, scale QB.
    pub(crate) out_weight: Vec<i32>,
    /// `[2]`, scale QA * QB.
    pub(crate) out_bias: Vec<i32>,
}

/// The meta and sizes only: the weights would fill a screen.
impl std::fmt::Debug for Network {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Network")
            .field("meta", &self.meta)
            .field("features", &self.features.count())
            .finish_non_exhaustive()
    }
}

/// Checks the sizes a network may have (before any tensor is read or allocated).
pub(crate) fn check_dimensions(meta: &Meta) -> Result<(), NnueError> {
    if meta.board_size == 0 || meta.board_size > MAX_SIZE {
        return Err(NnueError::Dimensions(format!(
            "board size {} is not in 1..={MAX_SIZE}",
            meta.board_size
        )));
    }
    if meta.width == 0 || meta.width > MAX_WIDTH {
        return Err(NnueError::Dimensions(format!(
            "width {} is not in 1..={MAX_WIDTH}",
            meta.width
        )));
    }
    if meta.hidden == 0 || meta.hidden > 4096 {
        return Err(NnueError::Dimensions(format!(
            "hidden {} is not in 1..=4096",
            meta.hidden
        )));
    }
    Ok(())
}

/// Rounds `values * scale` into the range `lo..=hi`, or names the first value outside it.
fn quantise_tensor(
    tensor: &str,
    values: &[f32],
    scale: f32,
    lo: i64,
    hi: i64,
) -> Result<Vec<i64>, NnueError> {
    values
        .iter()
        .enumerate()
        .map(|(index, &value)| {
            let q = (value as f64 * scale as f64).round();
            if q.is_finite() && q >= lo as f64 && q <= hi as f64 {
                Ok(q as i64)
            } else {
                Err(NnueError::OutOfRange {
                    tensor: tensor.to_string(),
                    index,
                    value,
                })
            }
        })
        .collect()
}

/// `N` rounded up to whole chunks.
pub(crate) fn stride_of(width: usize) -> usize {
    width.div_ceil(CHUNK) * CHUNK
}

/// Rows of `n` values widened to rows of `stride`, zero filled.
pub(crate) fn pad<T: Copy + Default>(values: &[T], n: usize, stride: usize) -> Vec<T> {
    let mut out = Vec::with_capacity(values.len() / n * stride);
    for row in values.chunks_exact(n) {
        out.extend_from_slice(row);
        out.resize(out.len() + stride - n, T::default());
    }
    out
}

/// The inverse of `pad`.
pub(crate) fn unpad<T: Copy>(values: &[T], n: usize, stride: usize) -> Vec<T> {
    values
        .chunks_exact(stride)
        .flat_map(|row| row[..n].iter().copied())
        .collect()
}

fn narrow<T: TryFrom<i64>>(values: Vec<i64>) -> Vec<T> {
    // quantise_tensor checked the range already
    values
        .into_iter()
        .filter_map(|v| T::try_from(v).ok())
        .collect()
}

impl Network {
    /// Rounds a float network to the integer scales; refuses a weight its integer type cannot
    /// hold, naming the tensor and index, and a first layer whose sums could leave i16.
    pub fn quantise(float: &FloatNetwork) -> Result<Network, NnueError> {
        check_dimensions(&float.meta)?;
        float.check_lengths()?;
        let (qa, qb) = (QA as f32, QB as f32);
        let (i16lo, i16hi) = (i16::MIN as i64, i16::MAX as i64);
        let (i8lo, i8hi) = (i8::MIN as i64, i8::MAX as i64);
        let (i32lo, i32hi) = (i32::MIN as i64, i32::MAX as i64);
        let (n, stride) = (float.meta.width, stride_of(float.meta.width));
        let padded = |v: Vec<i64>| pad(&v, n, stride);
        let net = Network {
            meta: float.meta.clone(),
            features: float.features(),
            stride,
            ft_weight: narrow(padded(quantise_tensor(
                "ft.weight",
                &float.ft_weight,
                qa,
                i16lo,
                i16hi,
            )?)),
            ft_bias: narrow(padded(quantise_tensor(
                "ft.bias",
                &float.ft_bias,
                qa,
                i16lo,
                i16hi,
            )?)),
            l1_weight: narrow(padded(quantise_tensor(
                "l1.weight",
                &float.l1_weight,
                qb,
                i8lo,
                i8hi,
            )?)),
            l1_bias: narrow(quantise_tensor(
                "l1.bias",
                &float.l1_bias,
                qa * qb,
                i32lo,
                i32hi,
            )?),
            out_weight: narrow(quantise_tensor(
                "out.weight",
                &float.out_weight,
                qb,
                i32lo,
                i32hi,
            )?),
            out_bias: narrow(quantise_tensor(
                "out.bias",
                &float.out_bias,
                qa * qb,
                i32lo,
                i32hi,
            )?),
        };
        net.check_accumulator_range()?;
        Ok(net)
    }

    /// Refuses a first layer whose sum over the most features a position can switch on could
    /// leave i16 in some column (it would wrap silently at inference).
    pub(crate) fn check_accumulator_range(&self) -> Result<(), NnueError> {
        let k = self.features.max_active();
        let mut column = Vec::with_capacity(self.features.count());
        for c in 0..self.meta.width {
            column.clear();
            column.extend(
                self.ft_weight
                    .iter()
                    .skip(c)
                    .step_by(self.stride)
                    .map(|&w| (w as i64).abs()),
            );
            let take = k.min(column.len());
            if take < column.len() {
                column.select_nth_unstable_by(take, |a, b| b.cmp(a));
            }
            let bound = (self.ft_bias[c] as i64).abs() + column[..take].iter().sum::<i64>();
            if bound > i16::MAX as i64 {
                return Err(NnueError::AccumulatorRange { column: c, bound });
            }
        }
        Ok(())
    }

    /// Writes the network to `path` atomically (a temporary file in the same directory, then a
    /// rename), so a reader never sees half a file.
    pub fn save(&self, path: &Path) -> Result<(), NnueError> {
        crate::file::save(self, path)
    }

    /// Reads a network, checking every metadata key, dtype and shape.
    pub fn load(path: &Path) -> Result<Network, NnueError> {
        crate::file::load(path)
    }

    /// Reads a network from a file's bytes (a caller that also hashes them); `origin` names the
    /// file in errors.
    pub fn from_bytes(origin: &Path, bytes: &[u8]) -> Result<Network, NnueError> {
        crate::file::from_bytes(origin, bytes)
    }

    pub fn meta(&self) -> &Meta {
        &self.meta
    }

    pub fn features(&self) -> FeatureSet {
        self.features
    }

    /// Refuses a network made for another variant or board size.
    pub fn check_variant(&self, variant: &Variant) -> Result<(), NnueError> {
        self.check_variant_name(&variant.rules.name)?;
        if variant.size != self.meta.board_size {
            return Err(NnueError::BoardSize {
                network: self.meta.board_size,
                requested: variant.size,
            });
        }
        Ok(())
    }

    /// Refuses a network made for another variant, known by name only (a caller without the
    /// variant at hand; `check_variant` also checks the board).
    pub fn check_variant_name(&self, variant: &str) -> Result<(), NnueError> {
        if variant != self.meta.variant {
            return Err(NnueError::Variant {
                network: self.meta.variant.clone(),
                requested: variant.to_string(),
            });
        }
        Ok(())
    }

    pub fn new_accumulator(&self) -> Accumulator {
        Accumulator::new(self.meta.width, self.stride, self.features.max_active())
    }

    /// Recomputes `acc` from the board (one byte per square).
    pub fn refresh(&self, cells: &[u8], acc: &mut Accumulator) {
        let mut active = std::mem::take(&mut acc.added);
        active.clear();
        self.features.active(cells, &mut active);
        kernels::dispatch_apply_rows(
            &mut acc.values,
            &self.ft_bias,
            &self.ft_weight,
            &active,
            &[],
        );
        acc.added = active;
    }

    /// `child` = `parent` after the move from `before` to `after`: only the features the move
    /// changed, or a refresh when the king moved or was captured.
    pub fn update(
        &self,
        parent: &Accumulator,
        before: &[u8],
        after: &[u8],
        child: &mut Accumulator,
    ) {
        let (mut removed, mut added) = (
            std::mem::take(&mut child.removed),
            std::mem::take(&mut child.added),
        );
        removed.clear();
        added.clear();
        match self
            .features
            .change(before, after, &mut removed, &mut added)
        {
            FeatureChange::Incremental => kernels::dispatch_apply_rows(
                &mut child.values,
                &parent.values,
                &self.ft_weight,
                &added,
                &removed,
            ),
            FeatureChange::Refresh => {
                child.removed = removed;
                child.added = added;
                return self.refresh(after, child);
            }
        }
        child.removed = removed;
        child.added = added;
    }

    /// The score for the side to move, `EVAL_PER_LOGIT` per logit, truncated toward zero.
    pub fn evaluate(&self, acc: &Accumulator, side: Side) -> i32 {
        let y = kernels::dispatch_head(self, &acc.values, side_index(side));
        let score = y * EVAL_PER_LOGIT as i64 / (QA * QB) as i64;
        score.clamp(i32::MIN as i64, i32::MAX as i64) as i32
    }

    /// `refresh` then `evaluate`, for callers without an accumulator of their own.
    pub fn evaluate_cells(&self, cells: &[u8], side: Side) -> i32 {
        let mut acc = self.new_accumulator();
        self.refresh(cells, &mut acc);
        self.evaluate(&acc, side)
    }

    /// The raw output `y_q` (127 * 64 per logit) for the side to move; tests compare it with the
    /// float model.
    pub fn output(&self, acc: &Accumulator, side: Side) -> i64 {
        kernels::dispatch_head(self, &acc.values, side_index(side))
    }
}
