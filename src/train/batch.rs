//! Samples to training tensors: input planes, dense policy targets, legal-move masks and value
//! targets, each sample under a random symmetry of the variant when augmenting.

use std::sync::Arc;

use rand::Rng;
use tch::{Device, Tensor};

use crate::data::{DataError, Sample};
use crate::encode::policy::{policy_permutation, policy_size};
use crate::encode::Encoding;
use crate::rules::{Symmetry, Variant};

pub struct Batch {
    /// `[B, planes of the encoding, S, S]`
    pub planes: Tensor,
    /// `[B, P]` target probabilities (zero off the legal moves)
    pub policy: Tensor,
    /// `[B, P]` 1 on legal moves, 0 elsewhere
    pub legal: Tensor,
    /// `[B]` value targets from the side to move's view (`value_target.rs`)
    pub value: Tensor,
}

pub struct BatchBuilder {
    variant: Arc<Variant>,
    /// The encoding of the network being trained.
    encoding: Encoding,
    /// The symmetries used for augmentation, each with its policy permutation.
    symmetries: Vec<(Symmetry, Vec<usize>)>,
}

impl BatchBuilder {
    pub fn new(variant: Arc<Variant>, encoding: Encoding, augment: bool) -> BatchBuilder {
        let size = variant.size;
        let chosen: Vec<Symmetry> = if augment {
            variant.symmetries.clone()
        } else {
            vec![Symmetry::Identity]
        };
        let symmetries = chosen
            .into_iter()
            .map(|s| (s, policy_permutation(s, size)))
            .collect();
        BatchBuilder {
            variant,
            encoding,
            symmetries,
        }
    }

    /// The batch of `samples`, each with its value target (`ValueTarget::of`).
    pub fn build<R: Rng>(
        &self,
        samples: &[(&Sample, f32)],
        rng: &mut R,
        device: Device,
    ) -> Result<Batch, DataError> {
        let v = &self.variant;
        let (n, per, p) = (
            samples.len(),
            self.encoding.planes() * v.squares,
            policy_size(v.size),
        );
        let mut planes = vec![0.0f32; n * per];
        let mut policy = vec![0.0f32; n * p];
        let mut legal = vec![0.0f32; n * p];
        let mut value = Vec::with_capacity(n);
        for (i, &(sample, target)) in samples.iter().enumerate() {
            let (sym, perm) = &self.symmetries[rng.random_range(0..self.symmetries.len())];
            let pos = sample.position(v)?;
            let pos = if *sym == Symmetry::Identity {
                pos
            } else {
                pos.transformed(*sym)
            };
            self.encoding
                .encode_into(&pos, &mut planes[i * per..(i + 1) * per]);
            for &(index, prob) in &sample.policy {
                let j = perm[index as usize];
                policy[i * p + j] = prob;
                legal[i * p + j] = 1.0;
            }
            value.push(target);
        }
        let s = v.size as i64;
        Ok(Batch {
            planes: Tensor::from_slice(&planes)
                .view([n as i64, -1, s, s])
                .to_device(device),
            policy: Tensor::from_slice(&policy)
                .view([n as i64, p as i64])
                .to_device(device),
            legal: Tensor::from_slice(&legal)
                .view([n as i64, p as i64])
                .to_device(device),
            value: Tensor::from_slice(&value).to_device(device),
        })
    }
}
