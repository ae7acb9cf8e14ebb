//! Whether two shares agree: an equivalence test (two one-sided tests, TOST) on the difference
//! of two proportions. Overlapping intervals only fail to show a difference; equivalence shows
//! that any difference is smaller than a stated margin.

use serde::{Deserialize, Serialize};

use super::proportion::wilson;

/// The normal quantile of a one-sided 5% test, `Φ⁻¹(0.95)`: TOST at the 5% level is the 90%
/// interval of the difference lying inside the margin.
pub const Z90: f64 = 1.644853626951472;

/// The difference of two shares with its interval, and the verdict at a margin.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Equivalence {
    /// `k1/n1 − k2/n2`.
    pub difference: f64,
    /// Newcombe's hybrid score interval of the difference at the 90% level (each share's
    /// Wilson interval combined), which stays sensible near 0 and 1 where a Wald interval
    /// collapses.
    pub low: f64,
    pub high: f64,
    /// The margin tested: equivalent when `-margin < low` and `high < margin`.
    pub margin: f64,
    pub equivalent: bool,
}

/// TOST of `k1` of `n1` against `k2` of `n2` at the 5% level with the equivalence margin
/// `margin` (a share, e.g. 0.075 for ±7.5 points). Empty samples are never equivalent.
pub fn equivalence(k1: f64, n1: f64, k2: f64, n2: f64, margin: f64) -> Equivalence {
    let share = |k: f64, n: f64| {
        if n > 0.0 {
            (k / n).clamp(0.0, 1.0)
        } else {
            0.5
        }
    };
    let (p1, p2) = (share(k1, n1), share(k2, n2));
    let (l1, u1) = wilson(k1, n1, Z90);
    let (l2, u2) = wilson(k2, n2, Z90);
    let difference = p1 - p2;
    let low = difference - ((p1 - l1).powi(2) + (u2 - p2).powi(2)).sqrt();
    let high = difference + ((u1 - p1).powi(2) + (p2 - l2).powi(2)).sqrt();
    Equivalence {
        difference,
        low,
        high,
        margin,
        equivalent: n1 > 0.0 && n2 > 0.0 && -margin < low && high < margin,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::stats::close;

    // 56 of 100 against 50 of 100, z = 1.644854 (z² = 2.705544). Wilson(56/100): centre
    // (0.56 + 0.0135277) / 1.0270554 = 0.5584194, half 0.0805813 → (0.4778381, 0.6390007);
    // Wilson(50/100): (0.4188478, 0.5811522). Difference 0.06,
    // low 0.06 − √(0.0821619² + 0.0811522²) = −0.0554827,
    // high 0.06 + √(0.0790007² + 0.0811522²) = 0.1732554.
    #[test]
    fn a_difference_by_hand() {
        let e = equivalence(56.0, 100.0, 50.0, 100.0, 0.075);
        close(e.difference, 0.06, 1e-12);
        close(e.low, -0.0554827, 1e-6);
        close(e.high, 0.1732554, 1e-6);
        assert!(!e.equivalent, "the interval reaches past +7.5 points");
    }

    #[test]
    fn near_zero_overlap_is_not_agreement_but_many_games_are() {
        // 1 of 200 against 0 of 200: the intervals overlap, yet 200 games cannot rule out a
        // difference of a few points at a margin of 1 point
        let few = equivalence(1.0, 200.0, 0.0, 200.0, 0.01);
        assert!(!few.equivalent, "{few:?}");
        // at 7.5 points they do
        assert!(equivalence(1.0, 200.0, 0.0, 200.0, 0.075).equivalent);
        // 30 % against 14 % over 50 games each: not equivalent, and not by a little
        let drift = equivalence(15.0, 50.0, 7.0, 50.0, 0.075);
        assert!(!drift.equivalent && drift.low > 0.0, "{drift:?}");
        // two shares of 40 % over 2,000 games each agree within 7.5 points
        assert!(equivalence(800.0, 2000.0, 800.0, 2000.0, 0.075).equivalent);
        // nothing measured agrees with nothing
        assert!(!equivalence(0.0, 0.0, 0.0, 0.0, 0.075).equivalent);
    }
}
