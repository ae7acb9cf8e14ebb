//! The reference distributions the tests need: the standard normal (distribution function,
//! tail, quantile) and the χ² tail, through the regularised incomplete gamma function.

use std::f64::consts::PI;

/// `ln Γ(x)` for `x > 0` (Lanczos' series, g = 7, nine terms: relative error near 1e-15).
pub fn ln_gamma(x: f64) -> f64 {
    const G: f64 = 7.0;
    const C: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        // reflection keeps the series where it is accurate
        return (PI / (PI * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let t = x + G + 0.5;
    let sum = C[1..]
        .iter()
        .enumerate()
        .fold(C[0], |s, (i, c)| s + c / (x + i as f64 + 1.0));
    0.5 * (2.0 * PI).ln() + (x + 0.5) * t.ln() - t + sum.ln()
}

/// The upper regularised incomplete gamma function `Q(a, x) = Γ(a, x) / Γ(a)`, `a > 0`,
/// `x ≥ 0`: the power series of `P = 1 − Q` below `x = a + 1`, Lentz's continued fraction of
/// `Q` above (each converges fast on its side, and neither subtracts nearly equal numbers).
pub fn gamma_q(a: f64, x: f64) -> f64 {
    if x.is_nan() || a.is_nan() || a <= 0.0 {
        return f64::NAN;
    }
    if x <= 0.0 {
        return 1.0;
    }
    if x == f64::INFINITY {
        return 0.0;
    }
    let prefix = (-x + a * x.ln() - ln_gamma(a)).exp();
    if x < a + 1.0 {
        let (mut term, mut sum, mut ap) = (1.0 / a, 1.0 / a, a);
        for _ in 0..10_000 {
            ap += 1.0;
            term *= x / ap;
            sum += term;
            if term.abs() < sum.abs() * 1e-17 {
                break;
            }
        }
        1.0 - sum * prefix
    } else {
        const TINY: f64 = 1e-300;
        let mut b = x + 1.0 - a;
        let mut c = 1.0 / TINY;
        let mut d = 1.0 / b;
        let mut h = d;
        for i in 1..10_000 {
            let an = -(i as f64) * (i as f64 - a);
            b += 2.0;
            d = an * d + b;
            if d.abs() < TINY {
                d = TINY;
            }
            c = b + an / c;
            if c.abs() < TINY {
                c = TINY;
            }
            d = 1.0 / d;
            let step = d * c;
            h *= step;
            if (step - 1.0).abs() < 1e-16 {
                break;
            }
        }
        prefix * h
    }
}

/// `P(χ²_df > x)`: the p-value of a χ² statistic on `df` degrees of freedom.
pub fn chi_square_sf(x: f64, df: f64) -> f64 {
    if x <= 0.0 {
        return 1.0;
    }
    gamma_q(0.5 * df, 0.5 * x)
}

/// `P(Z > x)` for a standard normal `Z`, accurate in the far tail (no `1 − Φ` cancellation).
pub fn normal_sf(x: f64) -> f64 {
    if x.is_nan() {
        return f64::NAN;
    }
    // P(|Z| > |x|) = Q(1/2, x²/2)
    let two_tails = gamma_q(0.5, 0.5 * x * x);
    if x >= 0.0 {
        0.5 * two_tails
    } else {
        1.0 - 0.5 * two_tails
    }
}

/// `Φ(x) = P(Z ≤ x)`.
pub fn normal_cdf(x: f64) -> f64 {
    normal_sf(-x)
}

/// The standard normal density.
pub fn normal_pdf(x: f64) -> f64 {
    (-0.5 * x * x).exp() / (2.0 * PI).sqrt()
}

/// `Φ⁻¹(p)`: Newton's method on the log of the accurate tail, on the tail the root lies in (so `p = 1e-12` is solved as precisely as `p = 0.3`). `0` and `1` give `∓∞`.
pub fn normal_quantile(p: f64) -> f64 {
    if p.is_nan() || !(0.0..=1.0).contains(&p) {
        return f64::NAN;
    }
    if p == 0.0 {
        return f64::NEG_INFINITY;
    }
    if p == 1.0 {
        return f64::INFINITY;
    }
    if p > 0.5 {
        return -normal_quantile(1.0 - p);
    }
    if p == 0.5 {
        return 0.0;
    }
    // solve ln normal_sf(y) = ln p for y > 0: ln sf is concave and decreasing, so Newton from
    // √(−2 ln p), which lies right of the root, comes down to it without overshooting
    let target = p.ln();
    let mut y = (-2.0 * target).sqrt();
    for _ in 0..100 {
        let tail = normal_sf(y);
        let step = (tail.ln() - target) * tail / normal_pdf(y);
        y += step;
        if step.abs() <= 1e-15 * y.max(1.0) {
            break;
        }
    }
    -y
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::stats::close;

    // Figures from scipy 1.17.1 (experiments/balance-study/stats_reference.py, "distributions").
    #[test]
    fn normal_against_scipy() {
        close(normal_quantile(0.95), 1.6448536269514722, 1e-12);
        close(normal_quantile(0.90), 1.2815515655446004, 1e-12);
        close(normal_quantile(0.975), 1.959963984540054, 1e-12);
        close(normal_quantile(0.8), 0.8416212335729143, 1e-12);
        close(normal_quantile(1e-10), -6.361340902404056, 1e-10);
        close(normal_quantile(0.3), -0.5244005127080409, 1e-12);
        close(normal_cdf(1.0), 0.8413447460685429, 1e-14);
        close(normal_sf(5.0) / 2.866515718791933e-07, 1.0, 1e-10);
        close(normal_sf(-0.5), 0.6914624612740131, 1e-14);
        assert_eq!(normal_quantile(0.0), f64::NEG_INFINITY);
        assert_eq!(normal_quantile(1.0), f64::INFINITY);
        assert!(normal_quantile(1.5).is_nan());
        for p in [1e-300, 1e-8, 0.01, 0.2, 0.5, 0.77, 0.999] {
            close(normal_cdf(normal_quantile(p)) / p, 1.0, 1e-12);
        }
    }

    #[test]
    fn chi_square_against_scipy() {
        close(chi_square_sf(8.0, 2.0), 0.018315638888734182, 1e-15);
        close(
            chi_square_sf(7.991551739587041, 2.0),
            0.01839317016804018,
            1e-14,
        );
        close(chi_square_sf(3.84, 1.0), 0.05004352124870519, 1e-14);
        close(
            chi_square_sf(8.877742946708464, 3.0),
            0.030961306605546392,
            1e-14,
        );
        close(chi_square_sf(0.5, 7.0), 0.9994464813904249, 1e-14);
        close(
            chi_square_sf(40.0, 10.0) / 1.694474393006737e-05,
            1.0,
            1e-10,
        );
        close(
            chi_square_sf(112.4760401580272, 2.0) / 3.7682369736685193e-25,
            1.0,
            1e-9,
        );
        close(ln_gamma(0.5), 0.5723649429247, 1e-14);
        close(ln_gamma(10.0), 12.801827480081469, 1e-12);
        assert_eq!(chi_square_sf(0.0, 3.0), 1.0);
    }
}
