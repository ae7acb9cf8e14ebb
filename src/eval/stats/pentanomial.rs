//! Games played in pairs (the same opening, sides swapped): the score, variance and Elo of the pairs.

use serde::{Deserialize, Serialize};

use super::elo::{estimate, moments, EloEstimate};
use super::StatsError;

/// Outcomes of game pairs: each pair is two games from the same opening with the sides
/// swapped, and `counts[k]` is the number of pairs in which the player scored `k / 2` points
/// (0, ½, 1, 1½ or 2 points over the two games).
///
/// Statistics are per game: a pair's score is `x = points / 2 ∈ {0, ¼, ½, ¾, 1}`, so
/// [`score`](Self::score) is comparable with a per-game score and Elo.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Pentanomial {
    pub counts: [u64; 5],
}

/// The per-game score of a pair in each pentanomial cell.
const PAIR_VALUES: [f64; 5] = [0.0, 0.25, 0.5, 0.75, 1.0];

impl Pentanomial {
    pub fn new(counts: [u64; 5]) -> Self {
        Pentanomial { counts }
    }

    /// Counts pairs from their scores in points (0 to 2 in steps of ½). Lenient: each score is
    /// rounded to the nearest half point and clamped to `[0, 2]`; NaN scores are skipped. Use
    /// [`try_from_pair_scores`](Self::try_from_pair_scores) to reject such input instead.
    pub fn from_pair_scores(points: &[f64]) -> Self {
        let mut penta = Pentanomial::default();
        for &p in points.iter().filter(|p| !p.is_nan()) {
            let k = (p * 2.0).round().clamp(0.0, 4.0) as usize;
            penta.counts[k] += 1;
        }
        penta
    }

    /// Counts pairs from their scores in points; a score that is not (within 1e-9) one of
    /// 0, 0.5, 1, 1.5, 2 is an error naming the pair.
    pub fn try_from_pair_scores(points: &[f64]) -> Result<Self, StatsError> {
        let mut penta = Pentanomial::default();
        for (index, &value) in points.iter().enumerate() {
            penta
                .add_pair(value)
                .map_err(|_| StatsError::InvalidPairScore { index, value })?;
        }
        Ok(penta)
    }

    /// Adds one pair scoring `points` (0, 0.5, 1, 1.5 or 2, within 1e-9).
    pub fn add_pair(&mut self, points: f64) -> Result<(), StatsError> {
        let doubled = points * 2.0;
        let k = doubled.round();
        if !(0.0..=4.0).contains(&k) || (doubled - k).abs() > 2e-9 {
            return Err(StatsError::InvalidPairScore {
                index: self.pairs() as usize,
                value: points,
            });
        }
        self.counts[k as usize] += 1;
        Ok(())
    }

    /// Number of pairs.
    pub fn pairs(&self) -> u64 {
        self.counts.iter().sum()
    }

    fn counts_f64(&self) -> [f64; 5] {
        self.counts.map(|c| c as f64)
    }

    /// Mean per-game score over all pairs, `Σ n_k (k/4) / N`; ½ when there are no pairs.
    pub fn score(&self) -> f64 {
        moments(&PAIR_VALUES, &self.counts_f64()).map_or(0.5, |m| m.0)
    }

    /// Observed variance of a pair's per-game score `x = points / 2`:
    /// `Σ n_k (k/4 − score)² / N` (the population variance, dividing by `N`); 0 when there are
    /// no pairs. Multiply by 4 for the variance in points per pair. At most ¼.
    pub fn variance_per_pair(&self) -> f64 {
        moments(&PAIR_VALUES, &self.counts_f64()).map_or(0.0, |m| m.1)
    }

    /// The variance used by [`elo_interval`](Self::elo_interval) and [`sprt_llr`]:
    /// [`variance_per_pair`](Self::variance_per_pair) regularised by one virtual pair spread
    /// evenly over the five cells (module notes). ¼ (the largest possible) with no pairs.
    pub fn regularized_variance_per_pair(&self) -> f64 {
        moments(&PAIR_VALUES, &self.counts_f64()).map_or(0.25, |m| m.2)
    }

    /// Elo from the pairs with normal quantile `z`: `score_stderr = √(var / N)` with the
    /// regularised per-pair variance and `N` pairs; the score interval is clipped to `[0, 1]`
    /// and mapped to Elo as in [`elo_interval_trinomial_z`]. Pairing removes the first-move
    /// (side) advantage from the variance, so this interval is usually the narrower one.
    pub fn elo_interval(&self, z: f64) -> EloEstimate {
        estimate(&PAIR_VALUES, &self.counts_f64(), z)
    }
}

/// How much more (above 1) or less (below 1) the pair scores of several matchups vary than
/// two independent games each would: Pearson's dispersion factor, the pairs' squared deviations
/// from their matchup's mean over what independent games of that mean score would give,
/// `φ = Σ_m Σ_k (s_k − s̄_m)² / Σ_m (n_m − 1) · 2 p̂_m (1 − p̂_m)` with `s` a pair's points and
/// `p̂_m = s̄_m / 2`. Variances computed as if every game were independent, times `φ`, are
/// variances over pairs (quasi-likelihood). `None` where the pairs cannot tell: fewer than
/// [`DISPERSION_MIN_DF`] degrees of freedom (`Σ (n_m − 1)` over matchups whose mean score is
/// neither 0 nor 1), where a few pairs that split by chance would shrink every interval to
/// nothing.
pub fn pair_dispersion(matchups: &[Pentanomial]) -> Option<f64> {
    let mut deviations = 0.0;
    let mut expected = 0.0;
    let mut freedom = 0.0;
    for m in matchups {
        let n = m.pairs() as f64;
        if n < 2.0 {
            continue;
        }
        let points = |k: usize| k as f64 / 2.0;
        let mean = (0..5).map(|k| points(k) * m.counts[k] as f64).sum::<f64>() / n;
        deviations += (0..5)
            .map(|k| (points(k) - mean).powi(2) * m.counts[k] as f64)
            .sum::<f64>();
        let p = mean / 2.0;
        if p > 0.0 && p < 1.0 {
            expected += (n - 1.0) * 2.0 * p * (1.0 - p);
            freedom += n - 1.0;
        }
    }
    (freedom >= DISPERSION_MIN_DF).then(|| deviations / expected)
}

/// The fewest degrees of freedom `pair_dispersion` estimates from.
pub const DISPERSION_MIN_DF: f64 = 10.0;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::stats::{close, sprt_llr, Z95};
    use proptest::prelude::*;

    // Counts [5, 15, 40, 25, 15] (N = 100 pairs), per-game pair scores 0, ¼, ½, ¾, 1:
    // score = (15·0.25 + 40·0.5 + 25·0.75 + 15·1) / 100 = 57.5 / 100 = 0.575;
    // E[x²] = (15·0.0625 + 40·0.25 + 25·0.5625 + 15) / 100 = 0.4, variance 0.4 − 0.575² =
    // 0.069375. Regularised: Σ_k (x_k − 0.575)² = 0.653125, so
    // (6.9375 + 0.653125 / 5) / 101 = 0.0699814; stderr √(0.0699814 / 100) = 0.0264540;
    // Elo 400·log10(0.575 / 0.425) = 52.5116, interval (16.0985, 90.1113).
    #[test]
    fn pentanomial_by_hand() {
        let p = Pentanomial::new([5, 15, 40, 25, 15]);
        assert_eq!(p.pairs(), 100);
        close(p.score(), 0.575, 1e-12);
        close(p.variance_per_pair(), 0.069375, 1e-12);
        close(p.regularized_variance_per_pair(), 0.0699814, 1e-7);
        let e = p.elo_interval(Z95);
        close(e.score_stderr, 0.0264540, 1e-7);
        close(e.elo, 52.5116, 1e-3);
        close(e.low, 16.0985, 1e-3);
        close(e.high, 90.1113, 1e-3);
    }

    #[test]
    fn pentanomial_from_scores() {
        let p = Pentanomial::from_pair_scores(&[0.0, 0.5, 1.0, 1.0, 1.5, 2.0, 2.0, 2.0]);
        assert_eq!(p.counts, [1, 1, 2, 1, 3]);
        assert_eq!(
            Pentanomial::try_from_pair_scores(&[2.0, 1.5, 0.0])
                .unwrap()
                .counts,
            [1, 0, 0, 1, 1]
        );
        assert_eq!(
            Pentanomial::try_from_pair_scores(&[1.0, 0.7]),
            Err(StatsError::InvalidPairScore {
                index: 1,
                value: 0.7
            })
        );
        assert!(Pentanomial::try_from_pair_scores(&[2.5]).is_err());
        assert!(Pentanomial::try_from_pair_scores(&[-0.5]).is_err());
        assert!(Pentanomial::try_from_pair_scores(&[f64::NAN]).is_err());
        // lenient: rounded, clamped, NaN skipped
        // 0.7 → 0.5 points, 3 → 2, −1 → 0
        assert_eq!(
            Pentanomial::from_pair_scores(&[0.7, 3.0, -1.0, f64::NAN]).counts,
            [1, 1, 0, 0, 1]
        );
        let empty = Pentanomial::default();
        assert_eq!(empty.score(), 0.5);
        assert_eq!(empty.variance_per_pair(), 0.0);
        assert_eq!(empty.elo_interval(Z95), EloEstimate::no_information());
    }

    proptest! {
        #[test]
        fn pentanomial_invariants(c in proptest::array::uniform5(0u64..200), e0 in -300.0f64..300.0, gap in 1.0f64..100.0) {
            let p = Pentanomial::new(c);
            let v = p.variance_per_pair();
            prop_assert!((0.0..=1.0).contains(&p.score()));
            prop_assert!((0.0..=0.25 + 1e-12).contains(&v));
            let e = p.elo_interval(Z95);
            prop_assert!(e.low <= e.elo && e.elo <= e.high);
            // the mirrored counts: score 1 − s, the same variance, the opposite LLR
            let m = Pentanomial::new([c[4], c[3], c[2], c[1], c[0]]);
            if p.pairs() > 0 {
                prop_assert!((m.score() - (1.0 - p.score())).abs() < 1e-12);
                prop_assert!((m.variance_per_pair() - v).abs() < 1e-12);
            }
            let e1 = e0 + gap;
            let llr = sprt_llr(&p, e0, e1);
            let mirrored = sprt_llr(&m, -e1, -e0);
            prop_assert!(llr.is_finite());
            prop_assert!((llr + mirrored).abs() <= 1e-9 * (1.0 + llr.abs()));
        }
    }

    #[test]
    fn pair_dispersion_pools_the_matchups_deviations_over_independent_games() {
        // ten pairs 2, 0, 2, 0, ...: mean 1 point, deviations 10; independent games: 9 * 2 * 0.25
        let split = Pentanomial::new([5, 0, 0, 0, 5]);
        // ten pairs 1-1: no deviation, the same expectation
        let even = Pentanomial::new([0, 0, 10, 0, 0]);
        let d = pair_dispersion(&[split, even]).expect("18 degrees of freedom");
        assert!((d - 10.0 / 9.0).abs() < 1e-12, "{d}");
        // with another matchup: four pairs of 1 point, four of 1.5, two of 2: mean 1.4, p 0.7
        let mixed = Pentanomial::new([0, 0, 4, 4, 2]);
        let dev = 4.0 * 0.4f64.powi(2) + 4.0 * 0.1f64.powi(2) + 2.0 * 0.6f64.powi(2);
        let want = (10.0 + dev) / (9.0 * 2.0 * 0.25 + 9.0 * 2.0 * 0.7 * 0.3);
        let d = pair_dispersion(&[split, mixed]).expect("informative");
        assert!((d - want).abs() < 1e-12, "{d} vs {want}");
        // nine degrees of freedom are too few; a matchup one side won every game adds none
        assert_eq!(pair_dispersion(&[split]), None);
        assert_eq!(
            pair_dispersion(&[split, Pentanomial::new([0, 0, 0, 0, 20])]),
            None
        );
        assert_eq!(pair_dispersion(&[]), None);
    }
}
