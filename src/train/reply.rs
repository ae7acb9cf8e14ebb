//! The opponent's reply as an auxiliary training target (KataGo's opponent-policy head): a second
//! policy head on the same trunk learns the search's policy at the next ply, the move the other
//! side will answer with. It exists only while training (`TrainConfig::reply_weight` > 0): its
//! weights are saved under the names `reply.*` in the checkpoint, which every inference path ignores, so
//! the network plays, folds and exports exactly as one trained without it. What it adds is a
//! denser gradient for the trunk: each sample also teaches what the position threatens.

use tch::nn;
use tch::Tensor;

use crate::data::Sample;
use crate::encode::policy::POLICY_CHANNELS;
use crate::nn::model::{policy_logits, ConvBn, HEAD_CHANNELS};

/// The reply head: the policy head's shape, its own weights.
#[derive(Debug)]
pub struct ReplyHead {
    features: ConvBn,
    squares: nn::Conv2D,
    global: nn::Linear,
}

impl ReplyHead {
    /// A fresh head under `root / "reply"` for a trunk of `channels` channels.
    pub fn new(root: &nn::Path, channels: i64) -> ReplyHead {
        let p = root / "reply";
        ReplyHead {
            features: ConvBn::new(&(&p / "policy"), channels, HEAD_CHANNELS, 1),
            squares: nn::conv2d(
                &p / "policy_squares",
                HEAD_CHANNELS,
                POLICY_CHANNELS as i64,
                1,
                Default::default(),
            ),
            global: nn::linear(&p / "policy_global", HEAD_CHANNELS, 2, Default::default()),
        }
    }

    /// Reply logits, indexed as the policy's, from the trunk's features.
    pub fn forward(&self, trunk: &Tensor, train: bool) -> Tensor {
        let features = self.features.forward(trunk, train).relu();
        policy_logits(&features, &self.squares, &self.global)
    }
}

/// For each sample, the sample whose policy is its reply target: the next one of the same game
/// when it was stored at the very next ply (self-play stores only its full searches, so about
/// that share of samples has one; teacher games store every ply). Samples are in game and ply
/// order, as shards and the replay window hold them.
pub fn reply_targets(samples: &[Sample]) -> Vec<Option<usize>> {
    (0..samples.len())
        .map(|i| {
            let (s, next) = (&samples[i], samples.get(i + 1)?);
            (next.game_id == s.game_id
                && next.ply == s.ply + 1
                && next.side_to_move != s.side_to_move)
                .then_some(i + 1)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Side;

    fn at(game: u64, ply: u32, side: Side) -> Sample {
        Sample {
            game_id: game,
            ply,
            cells: vec![],
            side_to_move: side,
            berserk: None,
            roll: 0,
            plies_since_capture: 0,
            passes: 0,
            occurrences: 1,
            policy: vec![(ply, 1.0)],
            result: 0.0,
            search_value: 0.0,
            game_length: 10,
            reason: String::new(),
        }
    }

    #[test]
    fn only_the_next_ply_of_the_same_game_by_the_other_side_is_a_reply() {
        use Side::{Attackers as A, Defenders as D};
        let samples = [
            at(1, 0, A),
            at(1, 1, D), // the reply to ply 0
            at(1, 3, D), // ply 2 was a cheap search: ply 1 has no reply
            at(1, 4, A),
            at(2, 5, D), // another game: ply 4 of game 1 has none
            at(2, 6, D), // the same side again (a forced pass): no reply
        ];
        assert_eq!(
            reply_targets(&samples),
            vec![Some(1), None, Some(3), None, None, None]
        );
    }

    #[test]
    fn the_head_gives_one_logit_per_policy_index() {
        let vs = nn::VarStore::new(tch::Device::Cpu);
        let (head, trunk) = crate::nn::seeded::with_seed(5, || {
            let head = ReplyHead::new(&vs.root(), 8);
            let trunk = Tensor::rand([3, 8, 7, 7], (tch::Kind::Float, tch::Device::Cpu));
            (head, trunk)
        });
        let logits = head.forward(&trunk, false);
        assert_eq!(
            logits.size(),
            vec![3, crate::encode::policy::policy_size(7) as i64]
        );
        // its weights live under reply/, apart from the network's own names
        assert!(vs.variables().keys().all(|k| k.starts_with("reply.")));
    }
}
