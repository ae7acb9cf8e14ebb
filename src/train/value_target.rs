//! What the value head learns from each sample: the game's result (discounted by the plies left,
//! if asked), blended with a short-horizon target made of the search values that followed it.
//!
//! The short-horizon target (KataGo's short-term value, in spirit) reads the game forward from the
//! sample with a geometric horizon: a ply `k` plies ahead weighs `(1 - λ) λ^k`, `λ = 1 - 1/h` for
//! a horizon of `h` plies. The value known at a ply is the latest stored search value at or
//! before it (self-play stores only its full searches, so later plies of a gap keep the earlier
//! value), and every ply past the game's end is worth its result. Seen from the sample's side to
//! move, a value of the other side counts negated. It tells the network how the search judged the
//! next few moves instead of only who won a hundred plies later, which is less noisy where one
//! side wins almost every game.

use crate::data::Sample;

/// The value target's settings (`TrainConfig::value_discount`, `short_value_weight`,
/// `short_value_horizon`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ValueTarget {
    /// The result counts `discount ^ (plies left in the game)`.
    pub discount: f64,
    /// Share of the short-horizon target in the blend (0: the result alone).
    pub short_weight: f64,
    /// Mean look-ahead of the short-horizon target, in plies (at least 1).
    pub short_horizon: f64,
}

impl ValueTarget {
    /// The plain result.
    pub const RESULT: ValueTarget = ValueTarget {
        discount: 1.0,
        short_weight: 0.0,
        short_horizon: 6.0,
    };

    /// The value target of every sample, in order. A game's samples are consecutive and in
    /// ply order, as shards store them; a new game starts where the game id changes or the ply
    /// does not grow, so a window cut inside a game or two directories' games that share an
    /// id are read correctly.
    pub fn of(&self, samples: &[Sample]) -> Vec<f32> {
        let short = if self.short_weight > 0.0 {
            short_horizon_values(samples, self.short_horizon)
        } else {
            vec![0.0; samples.len()]
        };
        let w = self.short_weight;
        samples
            .iter()
            .zip(short)
            .map(|(s, short)| {
                let left = s.game_length.saturating_sub(s.ply);
                let result = f64::from(s.result) * self.discount.powf(f64::from(left));
                ((1.0 - w) * result + w * short) as f32
            })
            .collect()
    }
}

/// The short-horizon target of every sample (see the module's comment), one game at a time,
/// read backwards: `T_i = (1 - λ^g) v_i + λ^g · (±T_next)`, `g` the plies to the next stored
/// sample, and at the last one `T = (1 - λ^g) v + λ^g z`, `g` the plies left.
fn short_horizon_values(samples: &[Sample], horizon: f64) -> Vec<f64> {
    let lambda = 1.0 - 1.0 / horizon.max(1.0);
    let mut out = vec![0.0; samples.len()];
    let mut next: Option<&Sample> = None;
    let mut carried = 0.0;
    for (i, s) in samples.iter().enumerate().rev() {
        let continues = next.is_some_and(|n| n.game_id == s.game_id && n.ply > s.ply);
        let (gap, ahead) = match next {
            Some(n) if continues => {
                let sign = if n.side_to_move == s.side_to_move {
                    1.0
                } else {
                    -1.0
                };
                (n.ply - s.ply, sign * carried)
            }
            _ => (s.game_length.saturating_sub(s.ply), f64::from(s.result)),
        };
        let keep = lambda.powf(f64::from(gap));
        carried = (1.0 - keep) * f64::from(s.search_value) + keep * ahead;
        out[i] = carried;
        next = Some(s);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::sample::sample_at as at;

    fn close(a: f32, b: f64) -> bool {
        (f64::from(a) - b).abs() < 1e-6
    }

    #[test]
    fn without_a_short_weight_the_target_is_the_result_discounted() {
        let game = [at(1, 0, 0.3, 1.0, 4), at(1, 1, -0.2, -1.0, 4)];
        assert_eq!(ValueTarget::RESULT.of(&game), vec![1.0, -1.0]);
        let discounted = ValueTarget {
            discount: 0.5,
            ..ValueTarget::RESULT
        };
        assert_eq!(discounted.of(&game), vec![0.0625, -0.125]);
    }

    #[test]
    fn a_horizon_of_one_ply_is_the_samples_own_search_value() {
        let game = [at(1, 0, 0.3, 1.0, 9), at(1, 3, -0.7, -1.0, 9)];
        let t = ValueTarget {
            short_weight: 1.0,
            short_horizon: 1.0,
            ..ValueTarget::RESULT
        };
        let got = t.of(&game);
        assert!(close(got[0], 0.3) && close(got[1], -0.7), "{got:?}");
    }

    /// Horizon 2 (λ = 1/2), samples at plies 0 (attackers, 0.4) and 3 (defenders, 0.8) of a
    /// game of 5 plies the attackers won. Ply 3: (1 - 1/4) 0.8 + 1/4 (-1) = 0.35; ply 0 sees it
    /// negated three plies on: (1 - 1/8) 0.4 + 1/8 (-0.35) = 0.30625. Blended half with the
    /// results (1 and -1): 0.653125 and -0.325.
    #[test]
    fn later_values_count_by_their_distance_and_from_the_samples_side() {
        let game = [at(7, 0, 0.4, 1.0, 5), at(7, 3, 0.8, -1.0, 5)];
        let full = ValueTarget {
            short_weight: 1.0,
            short_horizon: 2.0,
            ..ValueTarget::RESULT
        };
        let got = full.of(&game);
        assert!(close(got[0], 0.30625) && close(got[1], 0.35), "{got:?}");
        let half = ValueTarget {
            short_weight: 0.5,
            ..full
        };
        let got = half.of(&game);
        assert!(close(got[0], 0.653125) && close(got[1], -0.325), "{got:?}");
    }

    #[test]
    fn games_do_not_leak_into_each_other() {
        let t = ValueTarget {
            short_weight: 1.0,
            short_horizon: 2.0,
            ..ValueTarget::RESULT
        };
        // the same first game alone, followed by another game, and by a game with the same id
        // that starts again at ply 0 (another directory's game)
        let alone = t.of(&[at(1, 0, 0.4, 1.0, 2)]);
        for next in [at(2, 1, -0.9, 1.0, 3), at(1, 0, -0.9, 1.0, 3)] {
            let got = t.of(&[at(1, 0, 0.4, 1.0, 2), next]);
            assert_eq!(got[0], alone[0], "{got:?}");
        }
        // (1 - 1/4) 0.4 + 1/4 · 1
        assert!(close(alone[0], 0.55));
    }

    #[test]
    fn targets_stay_within_the_values_range() {
        let t = ValueTarget {
            discount: 0.97,
            short_weight: 0.7,
            short_horizon: 5.0,
        };
        let game: Vec<Sample> = (0..40u32)
            .filter(|p| p % 3 != 1)
            .map(|p| {
                let v = ((p * 37 % 21) as f32 - 10.0) / 10.0;
                at(3, p, v, if p % 2 == 0 { -1.0 } else { 1.0 }, 41)
            })
            .collect();
        for (s, v) in game.iter().zip(t.of(&game)) {
            assert!((-1.0..=1.0).contains(&v), "ply {}: {v}", s.ply);
        }
    }
}
