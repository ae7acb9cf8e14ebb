//! Whether a share drifts with the players' strength: a logistic regression of the share on the
//! log of the search budget, with the slope's interval. A balance measured at several budgets
//! has converged only where the slope's interval holds 0 (`balance::mark_convergence`).

use serde::{Deserialize, Serialize};

use super::elo::logistic;
use super::StatsError;

/// One level of a study: its budget on a log scale, and `successes` of `games`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Level {
    /// `log2` of the budget (simulations or milliseconds a move): the slope is then per
    /// doubling.
    pub log2_budget: f64,
    pub successes: f64,
    pub games: f64,
}

/// The slope of the share's log-odds per doubling of the budget, with its interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Trend {
    pub slope: f64,
    pub low: f64,
    pub high: f64,
    /// The interval excludes 0: the share moves with the budget.
    pub trending: bool,
}

/// Fits `log(p / (1 - p)) = a + slope * log2_budget` by maximum likelihood (Newton's method)
/// and gives the slope's Wald interval at the normal quantile `z`. Each level gets half a
/// virtual success and half a virtual failure (the regularisation convention of this module:
/// a level won 0 or n times keeps the fit finite). Needs two distinct budgets.
///
/// The Wald interval assumes the levels lie on the fitted line; where they zigzag around it
/// (alpha-beta's depth parity), `trend_test` widens it by the lack of fit and says so.
pub fn trend(levels: &[Level], z: f64) -> Result<Trend, StatsError> {
    let fit = fit_line(levels)?;
    let slope = fit.slope();
    let half = z * fit.slope_variance().sqrt();
    Ok(Trend {
        slope,
        low: slope - half,
        high: slope + half,
        trending: slope - half > 0.0 || slope + half < 0.0,
    })
}

/// The maximum-likelihood logistic line through regularised levels, with its information.
#[derive(Debug, Clone)]
pub(super) struct LineFit {
    /// `(log2_budget, successes + 0.5, games + 1)` of each level.
    pub counts: Vec<(f64, f64, f64)>,
    /// Intercept and slope.
    pub theta: [f64; 2],
    /// The information matrix `[i00, i01, i11]` at the fit.
    pub info: [f64; 3],
}

impl LineFit {
    pub fn slope(&self) -> f64 {
        self.theta[1]
    }

    /// The (slope, slope) entry of the inverse information.
    pub fn slope_variance(&self) -> f64 {
        let [i0, i1, i2] = self.info;
        i0 / (i0 * i2 - i1 * i1)
    }

    /// The fitted share of a level at `log2_budget`.
    pub fn share(&self, log2_budget: f64) -> f64 {
        logistic(self.theta[0] + self.theta[1] * log2_budget)
    }
}

/// Checks the levels and fits the line of [`trend`].
pub(super) fn fit_line(levels: &[Level]) -> Result<LineFit, StatsError> {
    let distinct = levels
        .iter()
        .any(|l| (l.log2_budget - levels[0].log2_budget).abs() > 1e-12);
    if !distinct {
        return Err(StatsError::InvalidParameter {
            name: "levels",
            value: levels.len() as f64,
            expected: "at least two different budgets",
        });
    }
    for (index, l) in levels.iter().enumerate() {
        if !(l.log2_budget.is_finite()
            && l.games.is_finite()
            && l.games >= 0.0
            && (0.0..=l.games).contains(&l.successes))
        {
            return Err(StatsError::InvalidResult {
                index,
                wins: l.successes,
                games: l.games,
            });
        }
    }
    let counts: Vec<(f64, f64, f64)> = levels
        .iter()
        .map(|l| (l.log2_budget, l.successes + 0.5, l.games + 1.0))
        .collect();
    let mut theta = [0.0f64; 2];
    for _ in 0..100 {
        let (mut g, mut i) = ([0.0f64; 2], [0.0f64; 3]);
        for &(x, k, n) in &counts {
            let p = logistic(theta[0] + theta[1] * x);
            let r = k - n * p;
            let w = n * p * (1.0 - p);
            g[0] += r;
            g[1] += r * x;
            i[0] += w;
            i[1] += w * x;
            i[2] += w * x * x;
        }
        let det = i[0] * i[2] - i[1] * i[1];
        if !(det.is_finite() && det > 0.0) {
            return Err(StatsError::SingularInformation);
        }
        let step = [
            (i[2] * g[0] - i[1] * g[1]) / det,
            (i[0] * g[1] - i[1] * g[0]) / det,
        ];
        theta[0] += step[0];
        theta[1] += step[1];
        if step[0].abs().max(step[1].abs()) < 1e-12 {
            return Ok(LineFit {
                counts,
                theta,
                info: i,
            });
        }
    }
    Err(StatsError::NoConvergence { iterations: 100 })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::stats::{close, Z95};

    fn level(log2_budget: f64, successes: f64, games: f64) -> Level {
        Level {
            log2_budget,
            successes,
            games,
        }
    }

    // Two budgets a doubling apart fit exactly: with the half counts, p0 = 20.5 / 101 and
    // p1 = 40.5 / 101, slope logit(p1) − logit(p0) = ln(40.5 / 60.5) − ln(20.5 / 80.5) =
    // 0.9664909, variance 1 / (101 p0 (1 − p0)) + 1 / (101 p1 (1 − p1)) = 0.3200361², so
    // 0.9664909 ± 1.959964 · 0.3200361 = (0.3392316, 1.5937502).
    #[test]
    fn two_levels_by_hand() {
        let t = trend(&[level(5.0, 20.0, 100.0), level(6.0, 40.0, 100.0)], Z95).expect("fits");
        close(t.slope, 0.9664909, 1e-6);
        close(t.low, 0.3392316, 1e-6);
        close(t.high, 1.5937502, 1e-6);
        assert!(t.trending);
    }

    #[test]
    fn a_flat_share_holds_zero_and_a_drift_does_not() {
        let flat = [
            level(5.0, 30.0, 100.0),
            level(7.0, 31.0, 100.0),
            level(9.0, 29.0, 100.0),
        ];
        let t = trend(&flat, Z95).expect("fits");
        assert!(!t.trending && t.low < 0.0 && t.high > 0.0, "{t:?}");
        // attackers 30 % → 14 % over four doublings: a falling share
        let falling = [level(3.3, 30.0, 100.0), level(7.3, 14.0, 100.0)];
        let t = trend(&falling, Z95).expect("fits");
        assert!(t.trending && t.high < 0.0, "{t:?}");
        // 0 wins at every level stays finite and flat
        let none = [level(5.0, 0.0, 200.0), level(7.0, 0.0, 200.0)];
        let t = trend(&none, Z95).expect("fits");
        assert!(t.slope.abs() < 1e-9 && !t.trending, "{t:?}");
    }

    #[test]
    fn one_budget_or_a_bad_count_is_refused() {
        assert!(trend(&[level(5.0, 1.0, 10.0), level(5.0, 2.0, 10.0)], Z95).is_err());
        assert!(trend(&[level(5.0, 11.0, 10.0), level(6.0, 2.0, 10.0)], Z95).is_err());
    }
}
