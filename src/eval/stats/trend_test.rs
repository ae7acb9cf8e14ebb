//! A trend test that fits ladders whose levels are not on a line. A share measured at several
//! budgets is fitted by a logistic line in log budget ([`trend`](super::trend)); this adds what
//! that line's Wald interval assumes away:
//!
//! - **goodness of fit**: the likelihood-ratio test of the line against a free share per level
//!   (the line's deviance on `L − 2` df) and Pearson's χ² on the same df;
//! - **overdispersion**: the slope's interval widened by `√φ`, `φ = max(1, Pearson χ² / df)`
//!   (quasi-binomial). A parity zigzag (4 / 2 / 78 / 0 %) has φ ≈ 56: its "slope" is noise;
//! - **levels without a trend**: the likelihood-ratio test of one common share against a free
//!   share per level (`L − 1` df), so a zigzag reads "levels differ without a trend" instead of
//!   a slope.
//!
//! Counts are regularised as in `trend` (half a virtual success and failure a level), so
//! the figures match a binomial GLM fitted to `(k + ½) / (n + 1)` with weights `n + 1`
//! (`experiments/balance-study/stats_reference.py`). Intervals use the normal quantile, as
//! statsmodels' quasi-binomial GLM does (R's `quasibinomial` would use Student's t on `L − 2`
//! df, far wider with 4 levels).

use serde::{Deserialize, Serialize};

use super::distribution::chi_square_sf;
use super::trend::{fit_line, Level};
use super::StatsError;

/// What a ladder's levels say about a share's movement with the budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TrendVerdict {
    /// The slope's overdispersion-aware interval holds 0 and no level differs from the others.
    NoTrend,
    /// The slope's overdispersion-aware interval excludes 0.
    Trending,
    /// No slope is shown, but the levels' shares are not one share: they differ without a
    /// trend (a zigzag, a spike at one level).
    LevelsDiffer,
}

/// The trend of one share over a ladder's levels, with the tests of its fit.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct TrendTest {
    /// Log-odds slope per doubling of the budget.
    pub slope: f64,
    /// The Wald interval (levels assumed on the line).
    pub low: f64,
    pub high: f64,
    /// The interval widened by `√dispersion` (quasi-binomial).
    pub quasi_low: f64,
    pub quasi_high: f64,
    /// `max(1, pearson_chi2 / fit_df)`; 1 with two levels (nothing left to estimate it from).
    pub dispersion: f64,
    /// Pearson's χ² of the line: `Σ (k − n p̂)² / (n p̂ (1 − p̂))`.
    pub pearson_chi2: f64,
    /// The line's deviance: the likelihood-ratio statistic of the line against a free share per
    /// level.
    pub deviance: f64,
    /// `levels − 2`.
    pub fit_df: usize,
    /// The p-value of `deviance` on `fit_df` (1 when `fit_df` is 0).
    pub fit_p: f64,
    /// The likelihood-ratio statistic of one common share against a free share per level, on
    /// `levels − 1` df, and its p-value.
    pub levels_lr: f64,
    pub levels_p: f64,
    pub verdict: TrendVerdict,
}

impl TrendTest {
    /// The line does not fit (its likelihood-ratio test rejects at `alpha`).
    pub fn lacks_fit(&self, alpha: f64) -> bool {
        self.fit_df > 0 && self.fit_p < alpha
    }
}

/// Tests a share's trend over `levels` (two distinct budgets at least): intervals at the normal
/// quantile `z`, tests at level `alpha` (0.05 with `z` = 1.96 in the study).
///
/// Verdict: [`TrendVerdict::Trending`] when the quasi-binomial interval excludes 0; otherwise
/// [`TrendVerdict::LevelsDiffer`] when one common share is rejected at `alpha`; otherwise
/// [`TrendVerdict::NoTrend`].
pub fn trend_test(levels: &[Level], z: f64, alpha: f64) -> Result<TrendTest, StatsError> {
    if !(alpha > 0.0 && alpha < 1.0) {
        return Err(StatsError::InvalidParameter {
            name: "alpha",
            value: alpha,
            expected: "a level strictly between 0 and 1",
        });
    }
    let line = fit_line(levels)?;
    let (mut pearson_chi2, mut deviance) = (0.0, 0.0);
    for &(x, k, n) in &line.counts {
        let p = line.share(x);
        pearson_chi2 += (k - n * p).powi(2) / (n * p * (1.0 - p));
        deviance += binomial_deviance(k, n, p);
    }
    // one common share: the pooled regularised share
    let (sk, sn) = line
        .counts
        .iter()
        .fold((0.0, 0.0), |(a, b), &(_, k, n)| (a + k, b + n));
    let pooled = sk / sn;
    let levels_lr: f64 = line
        .counts
        .iter()
        .map(|&(_, k, n)| binomial_deviance(k, n, pooled))
        .sum();
    let l = line.counts.len();
    let fit_df = l - 2;
    let dispersion = if fit_df > 0 {
        (pearson_chi2 / fit_df as f64).max(1.0)
    } else {
        1.0
    };
    let slope = line.slope();
    let sd = line.slope_variance().sqrt();
    let (low, high) = (slope - z * sd, slope + z * sd);
    let quasi = z * sd * dispersion.sqrt();
    let (quasi_low, quasi_high) = (slope - quasi, slope + quasi);
    let fit_p = if fit_df > 0 {
        chi_square_sf(deviance, fit_df as f64)
    } else {
        1.0
    };
    let levels_p = chi_square_sf(levels_lr, (l - 1) as f64);
    let verdict = if quasi_low > 0.0 || quasi_high < 0.0 {
        TrendVerdict::Trending
    } else if levels_p < alpha {
        TrendVerdict::LevelsDiffer
    } else {
        TrendVerdict::NoTrend
    };
    Ok(TrendTest {
        slope,
        low,
        high,
        quasi_low,
        quasi_high,
        dispersion,
        pearson_chi2,
        deviance,
        fit_df,
        fit_p,
        levels_lr,
        levels_p,
        verdict,
    })
}

/// `2 [k ln(k / n p) + (n − k) ln((n − k) / (n (1 − p)))]`, the terms at 0 counted as 0.
fn binomial_deviance(k: f64, n: f64, p: f64) -> f64 {
    let term = |observed: f64, expected: f64| {
        if observed > 0.0 {
            observed * (observed / expected).ln()
        } else {
            0.0
        }
    };
    2.0 * (term(k, n * p) + term(n - k, n * (1.0 - p)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::stats::{close, trend, Z95};

    fn ladder(budgets: &[f64], wins: &[f64], games: f64) -> Vec<Level> {
        budgets
            .iter()
            .zip(wins)
            .map(|(&b, &k)| Level {
                log2_budget: b.log2(),
                successes: k,
                games,
            })
            .collect()
    }

    const MS: [f64; 4] = [10.0, 40.0, 160.0, 640.0];

    // Every figure below is statsmodels 0.15.0 / scipy 1.17.1, printed by
    // experiments/balance-study/stats_reference.py ("trend" section): a binomial GLM of
    // (k + ½) / (n + 1) on log2(ms) with var_weights n + 1; the quasi interval with scale="X2";
    // the common-share test is the deviance of the intercept-only GLM.

    // Copenhagen, plain alpha-beta, attackers 2 / 1 / 39 / 0 of 50 (4 / 2 / 78 / 0 %): the
    // line's slope "+0.19 [+0.04, +0.35]" is a zigzag's; Pearson χ² 112 on 2 df puts the
    // quasi-binomial interval at [−0.98, +1.36], and the levels differ without a trend.
    #[test]
    fn copenhagen_zigzag_is_levels_differ_not_a_trend() {
        let t = trend_test(&ladder(&MS, &[2.0, 1.0, 39.0, 0.0], 50.0), Z95, 0.05).expect("fits");
        close(t.slope, 0.19099918886994224, 1e-9);
        close(t.low, 0.03503412875050421, 1e-9);
        close(t.high, 0.3469642489893803, 1e-9);
        close(t.pearson_chi2, 112.47604015926758, 1e-7);
        close(t.deviance, 113.15466941126026, 1e-7);
        close(t.dispersion, 56.238020079633785, 1e-7);
        close(t.quasi_low, -0.9786141921447516, 1e-8);
        close(t.quasi_high, 1.360612569884636, 1e-8);
        assert_eq!(t.fit_df, 2);
        close(t.fit_p / 2.6839581302260584e-25, 1.0, 1e-8);
        close(t.levels_p / 1.1608681083272655e-25, 1.0, 1e-8);
        close(t.levels_lr, REF_COPENHAGEN_LEVELS_LR, 1e-6);
        assert!(t.lacks_fit(0.05));
        assert_eq!(t.verdict, TrendVerdict::LevelsDiffer);
        // the plain Wald interval alone called it a trend
        assert!(
            trend(&ladder(&MS, &[2.0, 1.0, 39.0, 0.0], 50.0), Z95)
                .expect("fits")
                .trending
        );
    }
    const REF_COPENHAGEN_LEVELS_LR: f64 = 119.1765170273858;

    // Brandubh, plain alpha-beta, attackers 24 / 39 / 23 / 24 of 100: "no trend" hid the 40 ms
    // level (χ² 8.0 on 2 df, p = 0.018).
    #[test]
    fn brandubh_spike_at_40ms_is_levels_differ() {
        let t =
            trend_test(&ladder(&MS, &[24.0, 39.0, 23.0, 24.0], 100.0), Z95, 0.05).expect("fits");
        close(t.slope, -0.03957815631207011, 1e-9);
        close(t.low, -0.1371761878301324, 1e-9);
        close(t.pearson_chi2, 7.991551739587046, 1e-9);
        close(t.deviance, 7.747366158092426, 1e-9);
        close(t.fit_p, 0.020781687700955207, 1e-10);
        close(t.dispersion, 3.9957758697935204, 1e-9);
        close(t.quasi_low, -0.23467112542511342, 1e-9);
        close(t.quasi_high, 0.15551481280097323, 1e-9);
        close(t.levels_lr, REF_BRANDUBH_LEVELS_LR, 1e-9);
        close(t.levels_p, REF_BRANDUBH_LEVELS_P, 1e-10);
        assert_eq!(t.verdict, TrendVerdict::LevelsDiffer);
    }
    const REF_BRANDUBH_LEVELS_LR: f64 = 8.380233817142763;
    const REF_BRANDUBH_LEVELS_P: f64 = 0.03877353201274268;

    #[test]
    fn a_monotone_rise_is_a_trend_and_a_flat_ladder_is_not() {
        // attackers 10 / 20 / 35 of 100 at 10 / 40 / 160 ms: on the line, rising
        let t = trend_test(&ladder(&MS[..3], &[10.0, 20.0, 35.0], 100.0), Z95, 0.05).expect("fits");
        assert_eq!(t.verdict, TrendVerdict::Trending, "{t:?}");
        assert!(!t.lacks_fit(0.05), "{t:?}");
        // Hnefatafl's attackers 1 / 0 / 15 of 50 jump at 160 ms: with one df left the line
        // lacks fit (p = 0.03), φ = 5.0, and the jump reads as levels that differ
        let t = trend_test(&ladder(&MS[..3], &[1.0, 0.0, 15.0], 50.0), Z95, 0.05).expect("fits");
        assert!(t.low > 0.0 && t.quasi_low < 0.0, "{t:?}");
        assert_eq!(t.verdict, TrendVerdict::LevelsDiffer, "{t:?}");
        // Tablut's network, attackers 36 / 36 / 37 of 100 at 32 / 128 / 512 simulations
        let t = trend_test(
            &ladder(&[32.0, 128.0, 512.0], &[36.0, 36.0, 37.0], 100.0),
            Z95,
            0.05,
        )
        .expect("fits");
        assert_eq!(t.verdict, TrendVerdict::NoTrend, "{t:?}");
        // levels closer to the line than binomial noise: φ is floored at 1, never narrowing
        assert_eq!(t.dispersion, 1.0);
        assert_eq!((t.quasi_low, t.quasi_high), (t.low, t.high));
    }

    // Two levels leave no df for the fit: the line is exact, and the test is the Wald one.
    #[test]
    fn two_levels_reduce_to_the_wald_trend() {
        let levels = ladder(&[32.0, 64.0], &[20.0, 40.0], 100.0);
        let t = trend_test(&levels, Z95, 0.05).expect("fits");
        let w = trend(&levels, Z95).expect("fits");
        assert_eq!(t.fit_df, 0);
        assert_eq!(t.fit_p, 1.0);
        close(t.deviance, 0.0, 1e-9);
        assert_eq!((t.quasi_low, t.quasi_high), (w.low, w.high));
        assert_eq!(t.verdict, TrendVerdict::Trending);
    }

    #[test]
    fn bad_input_is_refused() {
        let ok = ladder(&MS, &[1.0, 2.0, 3.0, 4.0], 10.0);
        assert!(matches!(
            trend_test(&ok, Z95, 0.0),
            Err(StatsError::InvalidParameter { name: "alpha", .. })
        ));
        let mut bad = ok.clone();
        bad[2].successes = 11.0;
        assert!(matches!(
            trend_test(&bad, Z95, 0.05),
            Err(StatsError::InvalidResult { index: 2, .. })
        ));
        assert!(trend_test(&ok[..1], Z95, 0.05).is_err());
    }
}
