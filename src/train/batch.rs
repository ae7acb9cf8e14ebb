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
    /// `[B]` each value target's weight in the value loss: 0 where the sample's game is left out
    /// (`TrainConfig::value_leave_out`), else 1 or its side's weight (`side_balance.rs`)
    pub value_weights: Tensor,
    /// The opponent's replies, when any item of the batch has one (`reply.rs`).
    pub reply: Option<Replies>,
}

/// The reply targets of a batch: `[B, P]` probabilities and their support (zero rows where an
/// item has no reply), and `[B]` 1 where it has one.
pub struct Replies {
    pub policy: Tensor,
    pub legal: Tensor,
    pub present: Tensor,
}

/// A sample with what it is trained towards.
#[derive(Clone, Copy, Debug)]
pub struct Item<'a> {
    pub sample: &'a Sample,
    /// The value target (`ValueTarget::of`).
    pub value: f32,
    /// The value target's weight in the value loss (0: left out); the policy always counts.
    pub value_weight: f32,
    /// The policy of the next ply, the opponent's reply, where one was stored
    /// (`reply::reply_targets`).
    pub reply: Option<&'a [(u32, f32)]>,
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

    /// The batch of `items`, each sample under one random symmetry (its reply under the same).
    pub fn build<R: Rng>(
        &self,
        items: &[Item],
        rng: &mut R,
        device: Device,
    ) -> Result<Batch, DataError> {
        let v = &self.variant;
        let (n, per, p) = (
            items.len(),
            self.encoding.planes() * v.squares,
            policy_size(v.size),
        );
        let mut planes = vec![0.0f32; n * per];
        let mut policy = vec![0.0f32; n * p];
        let mut legal = vec![0.0f32; n * p];
        let mut value = Vec::with_capacity(n);
        let mut value_weights = Vec::with_capacity(n);
        let with_replies = items.iter().any(|it| it.reply.is_some());
        let reply_len = if with_replies { n * p } else { 0 };
        let (mut reply, mut reply_legal) = (vec![0.0f32; reply_len], vec![0.0f32; reply_len]);
        let mut present = vec![0.0f32; if with_replies { n } else { 0 }];
        for (i, item) in items.iter().enumerate() {
            let sample = item.sample;
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
            value.push(item.value);
            value_weights.push(item.value_weight);
            if let Some(moves) = item.reply {
                present[i] = 1.0;
                for &(index, prob) in moves {
                    let j = perm[index as usize];
                    reply[i * p + j] = prob;
                    reply_legal[i * p + j] = 1.0;
                }
            }
        }
        let s = v.size as i64;
        let matrix = |data: &[f32]| {
            Tensor::from_slice(data)
                .view([n as i64, p as i64])
                .to_device(device)
        };
        let reply = with_replies.then(|| Replies {
            policy: matrix(&reply),
            legal: matrix(&reply_legal),
            present: Tensor::from_slice(&present).to_device(device),
        });
        Ok(Batch {
            planes: Tensor::from_slice(&planes)
                .view([n as i64, -1, s, s])
                .to_device(device),
            policy: matrix(&policy),
            legal: matrix(&legal),
            value: Tensor::from_slice(&value).to_device(device),
            value_weights: Tensor::from_slice(&value_weights).to_device(device),
            reply,
        })
    }
}
