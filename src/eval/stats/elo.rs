//! The logistic Elo scale and an Elo estimate from wins, draws and losses.

use serde::{Deserialize, Serialize};

use super::{ELO_PER_NEPER, Z95};

/// The Elo difference that gives an expected per-game `score`:
/// `elo = 400 log10(score / (1 − score)) = (400 / ln 10) ln(score / (1 − score))`.
/// A score of 0 or less gives `−∞`, 1 or more `+∞`; NaN gives NaN.
pub fn elo_from_score(score: f64) -> f64 {
    if score.is_nan() {
        f64::NAN
    } else if score <= 0.0 {
        f64::NEG_INFINITY
    } else if score >= 1.0 {
        f64::INFINITY
    } else {
        ELO_PER_NEPER * (score / (1.0 - score)).ln()
    }
}

/// The expected per-game score of a player `elo` points stronger:
/// `1 / (1 + 10^(−elo / 400))`. `±∞` give 1 and 0.
pub fn score_from_elo(elo: f64) -> f64 {
    logistic(elo / ELO_PER_NEPER)
}

/// `1 / (1 + e^−x)` without overflow.
pub(crate) fn logistic(x: f64) -> f64 {
    if x >= 0.0 {
        1.0 / (1.0 + (-x).exp())
    } else {
        let e = x.exp();
        e / (1.0 + e)
    }
}

/// An Elo estimate from a score: the point estimate, its interval and the score behind them.
/// Bounds are infinite where the score interval reaches 0 or 1.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct EloEstimate {
    /// `elo_from_score(score)`.
    #[serde(with = "extended_float")]
    pub elo: f64,
    /// `elo_from_score(max(0, score − z·score_stderr))`.
    #[serde(with = "extended_float")]
    pub low: f64,
    /// `elo_from_score(min(1, score + z·score_stderr))`.
    #[serde(with = "extended_float")]
    pub high: f64,
    /// Mean per-game score in `[0, 1]`.
    pub score: f64,
    /// Standard error of `score` (from the regularised variance, see the module notes).
    #[serde(with = "extended_float")]
    pub score_stderr: f64,
}

/// JSON has no infinities (serde_json writes them as `null`, losing the sign): infinite values
/// are written as the strings `"inf"` and `"-inf"` and read back exactly; `null`, from reports
/// written before, reads as NaN (its sign is lost) rather than refusing the whole report.
pub(crate) mod extended_float {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(x: &f64, s: S) -> Result<S::Ok, S::Error> {
        match *x {
            f64::INFINITY => s.serialize_str("inf"),
            f64::NEG_INFINITY => s.serialize_str("-inf"),
            x => s.serialize_f64(x),
        }
    }

    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Stored {
        Number(f64),
        Text(String),
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
        match Option::<Stored>::deserialize(d)? {
            None => Ok(f64::NAN),
            Some(Stored::Number(x)) => Ok(x),
            Some(Stored::Text(t)) => match t.as_str() {
                "inf" => Ok(f64::INFINITY),
                "-inf" => Ok(f64::NEG_INFINITY),
                _ => Err(serde::de::Error::custom(format!(
                    "`{t}` is not a number, \"inf\" or \"-inf\""
                ))),
            },
        }
    }
}

impl EloEstimate {
    /// No games: score ½, Elo 0, the interval the whole line, an infinite standard error.
    pub fn no_information() -> Self {
        EloEstimate {
            elo: 0.0,
            low: f64::NEG_INFINITY,
            high: f64::INFINITY,
            score: 0.5,
            score_stderr: f64::INFINITY,
        }
    }
}

/// Mean, observed variance and regularised variance of observations with values `values[k]`
/// seen `counts[k]` times; `None` when there are none.
pub(crate) fn moments(values: &[f64], counts: &[f64]) -> Option<(f64, f64, f64)> {
    let n: f64 = counts.iter().sum();
    if n.is_nan() || n <= 0.0 {
        return None;
    }
    let mean = values.iter().zip(counts).map(|(x, c)| x * c).sum::<f64>() / n;
    let ss: f64 = values
        .iter()
        .zip(counts)
        .map(|(x, c)| c * (x - mean).powi(2))
        .sum();
    let prior_ss = values.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / values.len() as f64;
    Some((mean, ss / n, (ss + prior_ss) / (n + 1.0)))
}

/// The Elo estimate of observations with per-game score `values[k]` seen `counts[k]` times
/// (normal approximation on the mean score, regularised variance).
pub(crate) fn estimate(values: &[f64], counts: &[f64], z: f64) -> EloEstimate {
    let Some((score, _, var)) = moments(values, counts) else {
        return EloEstimate::no_information();
    };
    let n: f64 = counts.iter().sum();
    let stderr = (var / n).sqrt();
    let z = z.abs();
    let low = (score - z * stderr).max(0.0);
    let high = (score + z * stderr).min(1.0);
    EloEstimate {
        elo: elo_from_score(score),
        low: elo_from_score(low),
        high: elo_from_score(high),
        score,
        score_stderr: stderr,
    }
}

/// Elo from a match summary (wins, draws, losses of one player) with a 95% interval.
/// See [`elo_interval_trinomial_z`].
pub fn elo_interval_trinomial(wins: u64, draws: u64, losses: u64) -> EloEstimate {
    elo_interval_trinomial_z(wins, draws, losses, Z95)
}

/// Elo from wins, draws and losses with normal quantile `z`.
///
/// `score = (W + D/2) / n`; the per-game variance is that of the observed outcomes
/// (values 1, ½, 0), regularised by one virtual game spread evenly over the three outcomes
/// (module notes); `score_stderr = √(var / n)`; the score interval `score ± z·stderr` is clipped
/// to `[0, 1]` and mapped to Elo, so a bound at 0 or 1 becomes `∓∞`. All wins give `elo = +∞`
/// with a finite `low`; no games give [`EloEstimate::no_information`].
pub fn elo_interval_trinomial_z(wins: u64, draws: u64, losses: u64, z: f64) -> EloEstimate {
    estimate(
        &[1.0, 0.5, 0.0],
        &[wins as f64, draws as f64, losses as f64],
        z,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::stats::close;
    use proptest::prelude::*;

    #[test]
    fn infinite_elo_bounds_survive_a_save_and_load() {
        let e = EloEstimate {
            elo: f64::INFINITY,
            low: 120.5,
            high: f64::INFINITY,
            score: 1.0,
            score_stderr: 0.0,
        };
        let text = serde_json::to_string(&e).expect("serialises");
        assert!(text.contains("\"inf\""), "{text}");
        let back: EloEstimate = serde_json::from_str(&text).expect("reads back");
        assert_eq!(back, e);
        let low = EloEstimate {
            low: f64::NEG_INFINITY,
            ..e
        };
        let back: EloEstimate =
            serde_json::from_str(&serde_json::to_string(&low).expect("ok")).expect("ok");
        assert_eq!(back.low, f64::NEG_INFINITY);
        // reports written before kept `null`: read as NaN, not refused; other text is an error
        let old = text.replace("\"inf\"", "null");
        let back: EloEstimate = serde_json::from_str(&old).expect("old reports still load");
        assert!(back.high.is_nan());
        assert!(serde_json::from_str::<EloEstimate>(&text.replace("\"inf\"", "\"big\"")).is_err());
    }

    // 400 · log10(0.75 / 0.25) = 400 · log10 3 = 400 · 0.4771213 = 190.8485
    #[test]
    fn elo_of_a_score() {
        close(elo_from_score(0.75), 190.8485, 1e-4);
        close(elo_from_score(0.25), -190.8485, 1e-4);
        assert_eq!(elo_from_score(0.5), 0.0);
        assert_eq!(score_from_elo(0.0), 0.5);
        close(score_from_elo(190.8485), 0.75, 1e-7);
        // 400 Elo: odds 10, score 10/11
        close(score_from_elo(400.0), 10.0 / 11.0, 1e-12);
        assert_eq!(elo_from_score(1.0), f64::INFINITY);
        assert_eq!(elo_from_score(0.0), f64::NEG_INFINITY);
        assert_eq!(score_from_elo(f64::INFINITY), 1.0);
        assert_eq!(score_from_elo(f64::NEG_INFINITY), 0.0);
        assert!(elo_from_score(f64::NAN).is_nan());
        close(score_from_elo(elo_from_score(0.3)), 0.3, 1e-12);
    }

    // 60 wins, 20 draws, 20 losses: score = 70 / 100 = 0.7.
    // Observed variance: (60·0.3² + 20·0.2² + 20·0.7²) / 100 = (5.4 + 0.8 + 9.8) / 100 = 0.16.
    // Regularised: (16 + (0.09 + 0.04 + 0.49) / 3) / 101 = 16.206667 / 101 = 0.1604620;
    // stderr = √(0.1604620 / 100) = 0.0400577; score interval 0.7 ∓ 0.0785117 =
    // (0.6214883, 0.7785117); Elo 147.1907, (86.1415, 218.3657).
    #[test]
    fn elo_of_a_match() {
        let e = elo_interval_trinomial(60, 20, 20);
        close(e.score, 0.7, 1e-12);
        close(e.score_stderr, 0.0400577, 1e-6);
        close(e.elo, 147.1907, 1e-3);
        close(e.low, 86.1415, 1e-3);
        close(e.high, 218.3657, 1e-3);
        // the other side of the same match
        let f = elo_interval_trinomial(20, 20, 60);
        close(f.elo, -e.elo, 1e-9);
        close(f.low, -e.high, 1e-9);
        close(f.high, -e.low, 1e-9);
    }

    // 10 wins of 10: score 1, Elo +∞. Regularised variance (0 + (0 + 0.25 + 1) / 3) / 11 =
    // 0.0378788, stderr 0.0615457, low score 1 − 0.1206274 = 0.8793726 → 345.09 Elo.
    #[test]
    fn elo_of_a_clean_sweep_and_of_nothing() {
        let e = elo_interval_trinomial(10, 0, 0);
        assert_eq!(e.elo, f64::INFINITY);
        assert_eq!(e.high, f64::INFINITY);
        close(e.low, 345.09, 0.01);
        let none = elo_interval_trinomial(0, 0, 0);
        assert_eq!(none, EloEstimate::no_information());
        // all draws: a finite interval around 0
        let d = elo_interval_trinomial(0, 10, 0);
        assert_eq!(d.elo, 0.0);
        assert!(d.low < 0.0 && d.low.is_finite() && d.high > 0.0 && d.high.is_finite());
    }

    proptest! {
        #[test]
        fn elo_round_trip(s in 0.001f64..0.999) {
            prop_assert!((score_from_elo(elo_from_score(s)) - s).abs() < 1e-12);
            prop_assert!(elo_from_score(s + 0.0005) > elo_from_score(s));
        }

        #[test]
        fn trinomial_brackets_and_mirrors(w in 0u64..300, d in 0u64..300, l in 0u64..300) {
            let e = elo_interval_trinomial(w, d, l);
            prop_assert!(e.low <= e.elo && e.elo <= e.high);
            prop_assert!((0.0..=1.0).contains(&e.score));
            let f = elo_interval_trinomial(l, d, w);
            if e.elo.is_finite() {
                prop_assert!((e.elo + f.elo).abs() < 1e-9);
            }
        }
    }
}
