//! Weighing the value loss so that both sides' wins teach the value head: where one side wins
//! almost every self-play game, the other side's positions are nearly all labelled "lost", and a
//! sample of its rare wins counts for little. Class weights over the game's winner correct that.

use serde::Serialize;

use crate::data::Sample;
use crate::rules::Side;

/// The value-loss weights of samples from games each side won (a drawn game's samples weigh 1).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct SideWeights {
    pub attackers: f32,
    pub defenders: f32,
}

impl SideWeights {
    pub const EQUAL: SideWeights = SideWeights {
        attackers: 1.0,
        defenders: 1.0,
    };

    /// The weights that make the samples of games won by each side weigh alike in total with
    /// `balance` 1 (each kind `decisive / 2` in all), every sample 1 with `balance` 0, and in
    /// between the full weights raised to `balance`, over the samples whose value counts; a side
    /// that won none of them keeps weight 1 (there is nothing to weigh up).
    pub fn of<'a>(counted: impl IntoIterator<Item = &'a Sample>, balance: f64) -> SideWeights {
        let (mut attackers, mut defenders) = (0u64, 0u64);
        for s in counted {
            match winner(s) {
                Some(Side::Attackers) => attackers += 1,
                Some(Side::Defenders) => defenders += 1,
                None => {}
            }
        }
        if balance == 0.0 || attackers == 0 || defenders == 0 {
            return SideWeights::EQUAL;
        }
        let half = (attackers + defenders) as f64 / 2.0;
        let weight = |won: u64| (half / won as f64).powf(balance) as f32;
        SideWeights {
            attackers: weight(attackers),
            defenders: weight(defenders),
        }
    }

    /// The weight of one sample: that of the side that won its game, 1 for a draw.
    pub fn weight(&self, sample: &Sample) -> f32 {
        match winner(sample) {
            Some(Side::Attackers) => self.attackers,
            Some(Side::Defenders) => self.defenders,
            None => 1.0,
        }
    }
}

/// The side that won a sample's game (its result is from the side to move's view).
fn winner(s: &Sample) -> Option<Side> {
    if s.result > 0.0 {
        Some(s.side_to_move)
    } else if s.result < 0.0 {
        Some(s.side_to_move.opponent())
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A sample with `side_to_move` to move and the game's `result` from its view.
    fn sample(side_to_move: Side, result: f32) -> Sample {
        let ply = u32::from(side_to_move == Side::Defenders);
        crate::data::sample::sample_at(0, ply, 0.0, result, 1)
    }

    /// 90 samples of attackers' wins (seen from both sides to move), 10 of defenders' wins and
    /// 5 of draws.
    fn window() -> Vec<Sample> {
        let mut out = wins(90, Side::Attackers);
        out.extend(wins(10, Side::Defenders));
        out.extend((0..5).map(|_| sample(Side::Attackers, 0.0)));
        out
    }

    /// `n` samples of games `winner` won, the winner and the loser to move in turn.
    fn wins(n: usize, winner: Side) -> Vec<Sample> {
        (0..n)
            .map(|i| match i % 2 {
                0 => sample(winner, 1.0),
                _ => sample(winner.opponent(), -1.0),
            })
            .collect()
    }

    fn total(samples: &[Sample], w: &SideWeights, won_by: Side) -> f32 {
        samples
            .iter()
            .filter(|s| winner(s) == Some(won_by))
            .map(|s| w.weight(s))
            .sum()
    }

    #[test]
    fn full_balance_makes_both_sides_wins_weigh_alike() {
        let samples = window();
        let w = SideWeights::of(&samples, 1.0);
        assert!((w.attackers - 50.0 / 90.0).abs() < 1e-6, "{w:?}");
        assert!((w.defenders - 5.0).abs() < 1e-6, "{w:?}");
        let (att, def) = (
            total(&samples, &w, Side::Attackers),
            total(&samples, &w, Side::Defenders),
        );
        assert!(
            (att - 50.0).abs() < 1e-3 && (def - 50.0).abs() < 1e-3,
            "{att} {def}"
        );
        assert_eq!(w.weight(&samples[104]), 1.0, "a draw weighs 1");
    }

    #[test]
    fn partial_balance_takes_a_power_and_zero_changes_nothing() {
        let samples = window();
        let half = SideWeights::of(&samples, 0.5);
        assert!((half.defenders - 5f32.sqrt()).abs() < 1e-6, "{half:?}");
        assert!(
            (half.attackers - (50f32 / 90.0).sqrt()).abs() < 1e-6,
            "{half:?}"
        );
        assert_eq!(SideWeights::of(&samples, 0.0), SideWeights::EQUAL);
    }

    #[test]
    fn only_the_counted_samples_are_weighed_and_a_side_without_wins_keeps_weight_one() {
        let samples = window();
        // leaving out the defenders' wins leaves one side with wins: nothing to balance
        let attackers_only = SideWeights::of(
            samples
                .iter()
                .filter(|s| winner(s) != Some(Side::Defenders)),
            1.0,
        );
        assert_eq!(attackers_only, SideWeights::EQUAL);
        // leaving out 80 of the attackers' 90: 10 and 10 weigh alike already
        let kept = SideWeights::of(&samples[80..], 1.0);
        assert!((kept.attackers - 1.0).abs() < 1e-6 && (kept.defenders - 1.0).abs() < 1e-6);
    }
}
