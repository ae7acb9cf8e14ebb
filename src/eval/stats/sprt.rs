//! A sequential probability ratio test on pentanomial counts.

use serde::{Deserialize, Serialize};

use super::elo::score_from_elo;
use super::pentanomial::Pentanomial;
use super::StatsError;

/// Log-likelihood ratio of H1 (`elo = elo1`) against H0 (`elo = elo0`) for the pairs in
/// `penta`: the generalised SPRT with a normal approximation on the mean pair score (the
/// "logistic Elo" GSPRT of engine-testing frameworks such as Fishtest).
///
/// With `N` pairs, per-game pair scores `x ∈ {0, ¼, ½, ¾, 1}`, observed mean `s̄`, the
/// regularised per-pair variance `σ²` ([`Pentanomial::regularized_variance_per_pair`]) and the
/// expected per-game scores `s0 = score_from_elo(elo0)`, `s1 = score_from_elo(elo1)`:
///
/// `LLR = N (s1 − s0) (2 s̄ − s0 − s1) / (2 σ²)`,
///
/// which is `log [N(s̄; s1, σ²/N) / N(s̄; s0, σ²/N)]`, i.e.
/// `N [(s̄ − s0)² − (s̄ − s1)²] / (2σ²)`. No pairs give 0. Positive values favour H1.
pub fn sprt_llr(penta: &Pentanomial, elo0: f64, elo1: f64) -> f64 {
    let n = penta.pairs() as f64;
    if n == 0.0 {
        return 0.0;
    }
    let s = penta.score();
    let var = penta.regularized_variance_per_pair();
    let (s0, s1) = (score_from_elo(elo0), score_from_elo(elo1));
    n * (s1 - s0) * (2.0 * s - s0 - s1) / (2.0 * var)
}

/// Wald's bounds for an SPRT with false-positive rate `alpha` and false-negative rate `beta`:
/// `(lower, upper) = (ln(β / (1 − α)), ln((1 − β) / α))`. Accept H0 at or below `lower`,
/// H1 at or above `upper`. Meaningful for `0 < α, β` and `α + β < 1` (check with
/// [`validate_sprt`]); other inputs follow the formula (and may give NaN or infinite bounds,
/// with which [`SprtDecision::of`] never stops on the NaN side).
pub fn sprt_bounds(alpha: f64, beta: f64) -> (f64, f64) {
    ((beta / (1.0 - alpha)).ln(), ((1.0 - beta) / alpha).ln())
}

/// Checks SPRT parameters: finite `elo0 < elo1`, `alpha` and `beta` in `(0, 1)` with
/// `alpha + beta < 1`.
pub fn validate_sprt(elo0: f64, elo1: f64, alpha: f64, beta: f64) -> Result<(), StatsError> {
    let bad = |name, value, expected| {
        Err(StatsError::InvalidParameter {
            name,
            value,
            expected,
        })
    };
    if !elo0.is_finite() {
        return bad("elo0", elo0, "a finite Elo");
    }
    if !(elo1.is_finite() && elo1 > elo0) {
        return bad("elo1", elo1, "a finite Elo greater than elo0");
    }
    if !(alpha > 0.0 && alpha < 1.0) {
        return bad("alpha", alpha, "a probability in (0, 1)");
    }
    if !(beta > 0.0 && beta < 1.0 && alpha + beta < 1.0) {
        return bad(
            "beta",
            beta,
            "a probability in (0, 1) with alpha + beta < 1",
        );
    }
    Ok(())
}

/// The state of an SPRT.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum SprtDecision {
    /// The LLR reached the upper bound: `elo ≥ elo1` is accepted.
    AcceptH1,
    /// The LLR reached the lower bound: `elo ≤ elo0` is accepted.
    AcceptH0,
    /// Between the bounds: play on.
    Continue,
}

impl SprtDecision {
    /// `AcceptH1` if `llr >= upper`, else `AcceptH0` if `llr <= lower`, else `Continue`
    /// (also for a NaN `llr`).
    pub fn of(llr: f64, lower: f64, upper: f64) -> Self {
        if llr >= upper {
            SprtDecision::AcceptH1
        } else if llr <= lower {
            SprtDecision::AcceptH0
        } else {
            SprtDecision::Continue
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::stats::close;

    // Same counts, H0: 0 Elo, H1: 50 Elo. s0 = 0.5, s1 = 1 / (1 + 10^−0.125) = 0.5714631.
    // LLR = 100 · (0.0714631) · (1.15 − 1.0714631) / (2 · 0.0699814)
    //     = 100 · 0.0714631 · 0.0785369 / 0.1399629 = 4.00999 (4.0450 with the raw variance).
    // Above the upper bound 2.944 for α = β = 0.05: H1 accepted.
    #[test]
    fn sprt_by_hand() {
        let p = Pentanomial::new([5, 15, 40, 25, 15]);
        let llr = sprt_llr(&p, 0.0, 50.0);
        close(llr, 4.00999, 1e-4);
        let (lower, upper) = sprt_bounds(0.05, 0.05);
        assert_eq!(SprtDecision::of(llr, lower, upper), SprtDecision::AcceptH1);
        // H0: 50, H1: 100. s0 = 0.5714631, s1 = 1 / (1 + 10^−0.25) = 0.6400650;
        // LLR = 100 · 0.0686019 · (1.15 − 1.2115281) / 0.1399629 = −3.01576: H0 accepted.
        let llr = sprt_llr(&p, 50.0, 100.0);
        close(llr, -3.01576, 1e-4);
        assert_eq!(SprtDecision::of(llr, lower, upper), SprtDecision::AcceptH0);
        // a balanced result between 0 and 10 Elo: negative, inside the bounds
        let even = Pentanomial::new([10, 20, 40, 20, 10]);
        let llr = sprt_llr(&even, 0.0, 10.0);
        assert!(llr < 0.0 && llr > lower, "{llr}");
        assert_eq!(SprtDecision::of(llr, lower, upper), SprtDecision::Continue);
        assert_eq!(sprt_llr(&Pentanomial::default(), 0.0, 50.0), 0.0);
    }

    // ln(0.05 / 0.95) = −ln 19 = −2.944439; ln(0.95 / 0.05) = ln 19 = 2.944439.
    #[test]
    fn sprt_bounds_five_percent() {
        let (lower, upper) = sprt_bounds(0.05, 0.05);
        close(lower, -2.944439, 1e-6);
        close(upper, 2.944439, 1e-6);
        // α = 0.05, β = 0.1: ln(0.1 / 0.95) = −2.251292, ln(0.9 / 0.05) = 2.890372
        let (lower, upper) = sprt_bounds(0.05, 0.1);
        close(lower, -2.251292, 1e-6);
        close(upper, 2.890372, 1e-6);
        assert_eq!(
            SprtDecision::of(f64::NAN, lower, upper),
            SprtDecision::Continue
        );
        // the bounds themselves stop the test
        assert_eq!(
            SprtDecision::of(upper, lower, upper),
            SprtDecision::AcceptH1
        );
        assert_eq!(
            SprtDecision::of(lower, lower, upper),
            SprtDecision::AcceptH0
        );
        assert_eq!(SprtDecision::of(2.8, lower, upper), SprtDecision::Continue);
        assert_eq!(SprtDecision::of(-2.2, lower, upper), SprtDecision::Continue);
        assert!(validate_sprt(0.0, 50.0, 0.05, 0.05).is_ok());
        assert!(validate_sprt(50.0, 0.0, 0.05, 0.05).is_err());
        assert!(validate_sprt(0.0, 50.0, 0.0, 0.05).is_err());
        assert!(validate_sprt(0.0, 50.0, 0.6, 0.5).is_err());
        assert!(validate_sprt(f64::NAN, 50.0, 0.05, 0.05).is_err());
    }

    // A sweep of won pairs: the regularised variance keeps the LLR finite and growing.
    #[test]
    fn sprt_clean_sweep_is_finite() {
        let one = sprt_llr(&Pentanomial::new([0, 0, 0, 0, 1]), 0.0, 50.0);
        let ten = sprt_llr(&Pentanomial::new([0, 0, 0, 0, 10]), 0.0, 50.0);
        assert!(one.is_finite() && one > 0.0 && one < 2.944, "{one}");
        assert!(ten.is_finite() && ten > one, "{ten}");
    }
}
