//! Shares of games: the Wilson interval of a proportion and the defender/attacker win ratio.

use serde::Serialize;

use super::elo::extended_float;
use super::Z95;

/// The Wilson score interval for a proportion: `successes` out of `n` trials, normal quantile
/// `z`. Returns `(low, high)` within `[0, 1]`:
///
/// `(p̂ + z²/2n ± z √(p̂(1−p̂)/n + z²/4n²)) / (1 + z²/n)`, with `p̂ = successes / n`.
///
/// Counts may be fractional (e.g. draws counted as half a success). No trials (`n <= 0`), a
/// non-finite `n` or `z`, or a NaN `successes` give the uninformative `(0, 1)`; `successes` is
/// clamped to `[0, n]`. Zero successes give a low bound of exactly 0, `n` successes a high bound
/// of exactly 1.
pub fn wilson(successes: f64, n: f64, z: f64) -> (f64, f64) {
    if !(n.is_finite() && n > 0.0) || successes.is_nan() || !z.is_finite() {
        return (0.0, 1.0);
    }
    let z = z.abs();
    let s = successes.clamp(0.0, n);
    let p = s / n;
    let z2 = z * z;
    let denom = 1.0 + z2 / n;
    let centre = (p + z2 / (2.0 * n)) / denom;
    let half = z / denom * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    let low = if s <= 0.0 {
        0.0
    } else {
        (centre - half).clamp(0.0, 1.0)
    };
    let high = if s >= n {
        1.0
    } else {
        (centre + half).clamp(0.0, 1.0)
    };
    (low, high)
}

/// A ratio of two counts with an interval; `value` is `None` when the ratio is infinite or
/// undefined (no denominator). `high` may be `f64::INFINITY`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Ratio {
    pub value: Option<f64>,
    #[serde(serialize_with = "extended_float::serialize")]
    pub low: f64,
    #[serde(serialize_with = "extended_float::serialize")]
    pub high: f64,
}

/// `p / (1 − p)`, infinite at `p = 1`.
fn odds(p: f64) -> f64 {
    if p >= 1.0 {
        f64::INFINITY
    } else {
        p / (1.0 - p)
    }
}

/// The balance ratio, defender wins ÷ attacker wins, with a 95% interval.
///
/// Model: given the number of decisive games `m = D + A`, the defender wins are
/// `D ~ Binomial(m, p)` and the ratio is the odds `p / (1 − p)`. The interval is the Wilson
/// interval `(p_low, p_high)` of `D` out of `m`, mapped through the (increasing) odds function:
/// `(p_low / (1 − p_low), p_high / (1 − p_high))`. Draws carry no information about the ratio
/// under this conditioning, so `n` (all games, draws included) only checks consistency.
///
/// Cases: `A = 0 < D`: `value = None` (infinite), `low` finite, `high = ∞`. `D = 0 < A`:
/// `value = Some(0)`, `low = 0`. No decisive game, or inconsistent counts (negative, not
/// finite, or `D + A > n`): `value = None` and the interval `(0, ∞)`: nothing is known.
pub fn balance_ratio(defender_wins: f64, attacker_wins: f64, n: f64) -> Ratio {
    let (d, a) = (defender_wins, attacker_wins);
    let valid = d.is_finite() && a.is_finite() && n.is_finite() && d >= 0.0 && a >= 0.0;
    let m = d + a;
    if !valid || m <= 0.0 || m > n {
        return Ratio {
            value: None,
            low: 0.0,
            high: f64::INFINITY,
        };
    }
    let (p_low, p_high) = wilson(d, m, Z95);
    Ratio {
        value: (a > 0.0).then(|| d / a),
        low: odds(p_low),
        high: odds(p_high),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::stats::close;
    use proptest::prelude::*;

    // Wilson for 8/10, z = 1.959964 (z² = 3.841459):
    // p̂ = 0.8, denom = 1 + 0.3841459 = 1.3841459,
    // centre = (0.8 + 0.1920729) / 1.3841459 = 0.7167235,
    // half = 1.959964 / 1.3841459 · √(0.016 + 0.0096036) = 1.4160037 · 0.1600114 = 0.2265773,
    // so (0.4901462.., 0.9433008..) → (0.49016, 0.94332).
    #[test]
    fn wilson_eight_of_ten() {
        let (low, high) = wilson(8.0, 10.0, Z95);
        close(low, 0.490162, 1e-5);
        close(high, 0.943318, 1e-5);
    }

    #[test]
    fn wilson_edges() {
        assert_eq!(wilson(0.0, 0.0, Z95), (0.0, 1.0));
        assert_eq!(wilson(3.0, -1.0, Z95), (0.0, 1.0));
        assert_eq!(wilson(f64::NAN, 10.0, Z95), (0.0, 1.0));
        // 0 of 10: low exactly 0, high = z²/n / (1 + z²/n) = 0.384146 / 1.384146 = 0.277530
        let (low, high) = wilson(0.0, 10.0, Z95);
        assert_eq!(low, 0.0);
        close(high, 0.277530, 1e-5);
        let (low, high) = wilson(10.0, 10.0, Z95);
        close(low, 1.0 - 0.277530, 1e-5);
        assert_eq!(high, 1.0);
        // more successes than trials are clamped to n
        assert_eq!(wilson(12.0, 10.0, Z95), wilson(10.0, 10.0, Z95));
        // z = 0: the point estimate
        assert_eq!(wilson(3.0, 4.0, 0.0), (0.75, 0.75));
    }

    // 30 defender wins, 10 attacker wins: ratio 3. Wilson(30 of 40) = (0.598060, 0.858129)
    // (p̂ = 0.75, denom = 1.0960365, centre = 0.7282089, half = 0.1301486); odds:
    // 0.598060 / 0.401940 = 1.487936 and 0.858129 / 0.141871 = 6.048648.
    #[test]
    fn balance_ratio_values() {
        let r = balance_ratio(30.0, 10.0, 50.0);
        assert_eq!(r.value, Some(3.0));
        close(r.low, 1.487936, 1e-5);
        close(r.high, 6.048648, 1e-5);
        assert!(r.low < 3.0 && 3.0 < r.high);
        // draws do not matter
        assert_eq!(balance_ratio(30.0, 10.0, 1000.0), r);
    }

    #[test]
    fn balance_ratio_edges() {
        // no attacker win: infinite ratio, finite low bound = odds of Wilson low for 5 of 5
        // (0.565518 → 1.301589)
        let r = balance_ratio(5.0, 0.0, 5.0);
        assert_eq!(r.value, None);
        close(r.low, 1.301589, 1e-5);
        assert_eq!(r.high, f64::INFINITY);
        // no defender win: ratio 0, low 0, high = odds(0.434482) = 0.768292
        let r = balance_ratio(0.0, 5.0, 5.0);
        assert_eq!(r.value, Some(0.0));
        assert_eq!(r.low, 0.0);
        close(r.high, 0.768292, 1e-5);
        // only draws, no games, inconsistent counts: nothing known
        let none = Ratio {
            value: None,
            low: 0.0,
            high: f64::INFINITY,
        };
        assert_eq!(balance_ratio(0.0, 0.0, 7.0), none);
        assert_eq!(balance_ratio(0.0, 0.0, 0.0), none);
        assert_eq!(balance_ratio(6.0, 5.0, 10.0), none);
        assert_eq!(balance_ratio(-1.0, 5.0, 10.0), none);
        assert_eq!(balance_ratio(f64::NAN, 5.0, 10.0), none);
    }

    proptest! {
        #[test]
        fn wilson_contains_the_estimate(n in 1u32..2000, frac in 0.0f64..=1.0, z in 0.0f64..4.0) {
            let n = n as f64;
            let s = (frac * n).round();
            let (low, high) = wilson(s, n, z);
            let p = s / n;
            prop_assert!(0.0 <= low && low <= p + 1e-12 && p <= high + 1e-12 && high <= 1.0);
        }

        #[test]
        fn balance_ratio_is_symmetric(d in 0u32..500, a in 0u32..500, draws in 0u32..100) {
            let n = (d + a + draws) as f64;
            let r = balance_ratio(d as f64, a as f64, n);
            let s = balance_ratio(a as f64, d as f64, n);
            prop_assert!(r.low <= r.high);
            if let Some(v) = r.value {
                prop_assert!(r.low <= v * (1.0 + 1e-12) && v <= r.high * (1.0 + 1e-12));
            }
            if d + a > 0 {
                // swapping the sides inverts the interval
                prop_assert!((r.low - 1.0 / s.high).abs() <= 1e-9 * (1.0 + r.low));
            }
        }
    }
}
