//! Statistics for matches, ladders and balance studies. Pure functions on counts: no game code.
//!
//! - [`wilson`]: the Wilson score interval of a proportion.
//! - [`balance_ratio`]: defender wins ÷ attacker wins with an interval.
//! - [`elo_from_score`], [`score_from_elo`], [`elo_interval_trinomial`]: the logistic Elo scale
//!   and an Elo estimate from wins, draws and losses.
//! - [`Pentanomial`]: games played in pairs (same opening, sides swapped), the score and Elo of
//!   the pairs.
//! - [`sprt_llr`], [`sprt_bounds`], [`SprtDecision`]: a sequential probability ratio test on
//!   pentanomial counts.
//! - [`try_bradley_terry`]: ratings with intervals for several players from their results (bad
//!   entries are errors, never dropped).
//!
//! Conventions: a score is a per-game score in `[0, 1]` (a win 1, a draw ½, a loss 0); Elo is the
//! logistic scale, `score = 1 / (1 + 10^(-elo / 400))`. Intervals are two-sided with the normal
//! quantile `z` (95%: [`Z95`]). Degenerate inputs (no games, a player who won everything) give
//! documented values, often infinite bounds, never a panic.
//!
//! Variance regularisation: an interval or a test built on an *observed* variance breaks down
//! when every observation is the same (the variance is then zero: one won pair would "prove" any
//! strength). Wherever a variance is estimated from outcome counts here, one virtual observation,
//! spread evenly over the possible outcomes, is added to the sum of squares around the observed
//! mean: `var = (Σ n_k (x_k − m)² + (1/K) Σ_k (x_k − m)²) / (N + 1)`, with `K` outcomes of values
//! `x_k`, `N` observations and observed mean `m`. The mean itself is not changed; the variance is
//! changed by `O(1/N)`.

use std::f64::consts::LN_10;

use serde::{Deserialize, Serialize};

/// The two-sided 95% normal quantile: `Φ⁻¹(0.975)`.
pub const Z95: f64 = 1.959963984540054;

/// Elo points per natural-log unit of odds: `400 / ln 10`.
const ELO_PER_NEPER: f64 = 400.0 / LN_10;

/// Errors of the strict entry points (`try_*`, [`validate_sprt`]).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum StatsError {
    #[error("pair {index} has score {value}; a pair scores 0, 0.5, 1, 1.5 or 2 points")]
    InvalidPairScore { index: usize, value: f64 },
    #[error("result {index}: player {player} is out of range ({n_players} players)")]
    PlayerOutOfRange {
        index: usize,
        player: usize,
        n_players: usize,
    },
    #[error("result {index}: player {player} is paired with itself")]
    SelfPairing { index: usize, player: usize },
    #[error("result {index}: {wins} wins out of {games} games is not a valid result")]
    InvalidResult { index: usize, wins: f64, games: f64 },
    #[error("invalid {name} {value}: expected {expected}")]
    InvalidParameter {
        name: &'static str,
        value: f64,
        expected: &'static str,
    },
    #[error(
        "the ratings are not determined without a prior: some group of players never scored \
         against the others (or a player has no games)"
    )]
    NotIdentifiable,
    #[error("the Bradley–Terry fit did not converge in {iterations} iterations")]
    NoConvergence { iterations: usize },
    #[error("the Bradley–Terry information matrix is singular")]
    SingularInformation,
}

// ---------------------------------------------------------------------------------------------
// Wilson interval and the balance ratio

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

// ---------------------------------------------------------------------------------------------
// Elo

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
fn logistic(x: f64) -> f64 {
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
mod extended_float {
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
fn moments(values: &[f64], counts: &[f64]) -> Option<(f64, f64, f64)> {
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
fn estimate(values: &[f64], counts: &[f64], z: f64) -> EloEstimate {
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

// ---------------------------------------------------------------------------------------------
// Pentanomial (paired games)

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

// ---------------------------------------------------------------------------------------------
// SPRT

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

// ---------------------------------------------------------------------------------------------
// Bradley–Terry

/// A player's rating: Elo relative to the mean of all players, with an interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Rating {
    pub elo: f64,
    pub low: f64,
    pub high: f64,
}

/// Settings of [`try_bradley_terry`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BradleyTerryOptions {
    /// Virtual draws each player plays against a fixed reference player of rating 0
    /// (a prior that keeps every rating finite; 0 disables it). Default 1.
    pub prior_draws: f64,
    /// Normal quantile of the intervals. Default [`Z95`].
    pub z: f64,
    /// Most Newton iterations. Default 200.
    pub max_iterations: usize,
    /// Convergence: the largest Newton step, in natural-log strength units. Default 1e-10.
    pub tolerance: f64,
}

impl Default for BradleyTerryOptions {
    fn default() -> Self {
        BradleyTerryOptions {
            prior_draws: 1.0,
            z: Z95,
            max_iterations: 200,
            tolerance: 1e-10,
        }
    }
}

/// Bradley–Terry ratings: player `i` beats player `j` with probability `γ_i / (γ_i + γ_j)`,
/// `γ_i = e^θ_i`, Elo `= θ_i · 400 / ln 10`.
///
/// - Fit: maximum likelihood (draws as half a win and half a loss) by Newton's method with a
///   backtracking line search on the log-likelihood, from all ratings equal.
/// - Prior: with `prior_draws = c > 0` each player also has `c` virtual games, scored `c/2`,
///   against a reference player fixed at θ = 0. The likelihood is then strictly concave and the
///   fit exists even for a player who won or lost everything, or for players who never met;
///   ratings are shrunk towards each other by an amount that vanishes as games accumulate.
///   With `c = 0` the plain maximum-likelihood fit exists only if every group of players scored
///   at least once against the rest (the "beat" graph is strongly connected); otherwise
///   [`StatsError::NotIdentifiable`].
/// - Anchor: the reported Elo is relative to the mean of the players (they sum to 0).
/// - Intervals: `elo ± z·sd`, from the full observed Fisher information `H` at the fit (not a
///   diagonal approximation): the covariance of the centred ratings is `C Σ C` with
///   `C = I − 11ᵀ/n` and `Σ = H⁻¹` (with a prior), or `Σ = (H + 11ᵀ/n)⁻¹` (without one, which
///   makes `C Σ C` the pseudo-inverse of `H`). So an interval is the uncertainty of a player
///   relative to the field's mean.
pub fn try_bradley_terry(
    n_players: usize,
    results: &[(usize, usize, f64, f64)],
    options: &BradleyTerryOptions,
) -> Result<Vec<Rating>, StatsError> {
    let n = n_players;
    let prior = options.prior_draws;
    if !(prior.is_finite() && prior >= 0.0) {
        return Err(StatsError::InvalidParameter {
            name: "prior_draws",
            value: prior,
            expected: "a finite number of games >= 0",
        });
    }
    if !(options.z.is_finite() && options.z >= 0.0) {
        return Err(StatsError::InvalidParameter {
            name: "z",
            value: options.z,
            expected: "a finite quantile >= 0",
        });
    }
    if !(options.tolerance.is_finite() && options.tolerance > 0.0) {
        return Err(StatsError::InvalidParameter {
            name: "tolerance",
            value: options.tolerance,
            expected: "a finite positive number",
        });
    }
    // wins[i][j]: points of i against j; games[i][j] = games[j][i].
    let mut wins = vec![vec![0.0; n]; n];
    let mut games = vec![vec![0.0; n]; n];
    for (index, &(i, j, w, g)) in results.iter().enumerate() {
        for player in [i, j] {
            if player >= n {
                return Err(StatsError::PlayerOutOfRange {
                    index,
                    player,
                    n_players: n,
                });
            }
        }
        if i == j {
            return Err(StatsError::SelfPairing { index, player: i });
        }
        if !(g.is_finite() && w.is_finite() && g >= 0.0 && (0.0..=g).contains(&w)) {
            return Err(StatsError::InvalidResult {
                index,
                wins: w,
                games: g,
            });
        }
        wins[i][j] += w;
        wins[j][i] += g - w;
        games[i][j] += g;
        games[j][i] += g;
    }
    if n == 0 {
        return Ok(Vec::new());
    }
    if prior == 0.0 && !strongly_connected(&wins) {
        return Err(StatsError::NotIdentifiable);
    }
    let model = BtModel {
        wins: &wins,
        games: &games,
        prior,
    };

    let mut theta = vec![0.0; n];
    let mut converged = false;
    for _ in 0..options.max_iterations {
        let (grad, info) = model.gradient_information(&theta);
        let sigma = model
            .covariance(&info)
            .ok_or(StatsError::SingularInformation)?;
        let step: Vec<f64> = (0..n)
            .map(|i| (0..n).map(|j| sigma[i * n + j] * grad[j]).sum())
            .collect();
        let largest = step.iter().fold(0.0f64, |m, d| m.max(d.abs()));
        if !largest.is_finite() {
            return Err(StatsError::NoConvergence {
                iterations: options.max_iterations,
            });
        }
        if largest < options.tolerance {
            converged = true;
            break;
        }
        // Backtracking (Armijo) on the concave log-likelihood; the slack absorbs rounding
        // once the steps are tiny.
        let ll0 = model.log_likelihood(&theta);
        let slope: f64 = grad.iter().zip(&step).map(|(g, d)| g * d).sum();
        let slack = 1e-12 * (1.0 + ll0.abs());
        let mut t = 1.0;
        loop {
            let trial: Vec<f64> = theta.iter().zip(&step).map(|(x, d)| x + t * d).collect();
            if model.log_likelihood(&trial) >= ll0 + 1e-4 * t * slope - slack {
                theta = trial;
                break;
            }
            t *= 0.5;
            if t < 1e-20 {
                return Err(StatsError::NoConvergence {
                    iterations: options.max_iterations,
                });
            }
        }
    }
    if !converged {
        return Err(StatsError::NoConvergence {
            iterations: options.max_iterations,
        });
    }

    let (_, info) = model.gradient_information(&theta);
    let sigma = model
        .covariance(&info)
        .ok_or(StatsError::SingularInformation)?;
    let nf = n as f64;
    let mean_theta = theta.iter().sum::<f64>() / nf;
    let row_means: Vec<f64> = (0..n)
        .map(|i| (0..n).map(|j| sigma[i * n + j]).sum::<f64>() / nf)
        .collect();
    let grand_mean = row_means.iter().sum::<f64>() / nf;
    Ok((0..n)
        .map(|i| {
            // (C Σ C)_ii = Σ_ii − 2 mean_j Σ_ij + mean_jk Σ_jk  (Σ is symmetric)
            let var = (sigma[i * n + i] - 2.0 * row_means[i] + grand_mean).max(0.0);
            let elo = ELO_PER_NEPER * (theta[i] - mean_theta);
            let half = options.z * ELO_PER_NEPER * var.sqrt();
            Rating {
                elo,
                low: elo - half,
                high: elo + half,
            }
        })
        .collect())
}

/// The Bradley–Terry likelihood of aggregated results.
struct BtModel<'a> {
    wins: &'a [Vec<f64>],
    games: &'a [Vec<f64>],
    prior: f64,
}

impl BtModel<'_> {
    fn n(&self) -> usize {
        self.wins.len()
    }

    /// `Σ_{i<j} [w_ij ln p_ij + w_ji ln p_ji] + c Σ_i [½ ln σ(θ_i) + ½ ln σ(−θ_i)]`.
    fn log_likelihood(&self, theta: &[f64]) -> f64 {
        let n = self.n();
        let mut ll = 0.0;
        for i in 0..n {
            for j in i + 1..n {
                if self.games[i][j] > 0.0 {
                    let d = theta[i] - theta[j];
                    ll -= self.wins[i][j] * softplus(-d) + self.wins[j][i] * softplus(d);
                }
            }
            if self.prior > 0.0 {
                ll -= 0.5 * self.prior * (softplus(-theta[i]) + softplus(theta[i]));
            }
        }
        ll
    }

    /// The gradient of the log-likelihood and the information (minus its Hessian), row-major.
    fn gradient_information(&self, theta: &[f64]) -> (Vec<f64>, Vec<f64>) {
        let n = self.n();
        let mut grad = vec![0.0; n];
        let mut info = vec![0.0; n * n];
        for i in 0..n {
            for j in i + 1..n {
                let g = self.games[i][j];
                if g > 0.0 {
                    let p = logistic(theta[i] - theta[j]);
                    let r = self.wins[i][j] - g * p;
                    grad[i] += r;
                    grad[j] -= r;
                    let h = g * p * (1.0 - p);
                    info[i * n + i] += h;
                    info[j * n + j] += h;
                    info[i * n + j] -= h;
                    info[j * n + i] -= h;
                }
            }
            if self.prior > 0.0 {
                let p = logistic(theta[i]);
                grad[i] += self.prior * (0.5 - p);
                info[i * n + i] += self.prior * p * (1.0 - p);
            }
        }
        (grad, info)
    }

    /// `H⁻¹` with a prior, `(H + 11ᵀ/n)⁻¹` without; `None` if singular.
    fn covariance(&self, info: &[f64]) -> Option<Vec<f64>> {
        let n = self.n();
        let mut m = info.to_vec();
        if self.prior == 0.0 {
            m.iter_mut().for_each(|x| *x += 1.0 / n as f64);
        }
        invert(m, n)
    }
}

/// `ln(1 + e^x)` without overflow.
fn softplus(x: f64) -> f64 {
    x.max(0.0) + (-x.abs()).exp().ln_1p()
}

/// Whether every player can reach every other along "scored against" edges
/// (`wins[i][j] > 0`: i → j), i.e. no group of players failed to score against the rest.
fn strongly_connected(wins: &[Vec<f64>]) -> bool {
    let n = wins.len();
    let reaches_all = |forward: bool| {
        let mut seen = vec![false; n];
        let mut stack = vec![0];
        seen[0] = true;
        while let Some(i) = stack.pop() {
            for j in 0..n {
                let edge = if forward { wins[i][j] } else { wins[j][i] };
                if edge > 0.0 && !seen[j] {
                    seen[j] = true;
                    stack.push(j);
                }
            }
        }
        seen.iter().all(|&s| s)
    };
    n == 0 || (reaches_all(true) && reaches_all(false))
}

/// Inverse of the row-major `n × n` matrix `m` by Gauss–Jordan elimination with partial
/// pivoting; `None` when a pivot is negligible against the matrix's largest entry.
fn invert(mut m: Vec<f64>, n: usize) -> Option<Vec<f64>> {
    let scale = m.iter().fold(0.0f64, |a, x| a.max(x.abs()));
    if !(scale.is_finite() && scale > 0.0) {
        return None;
    }
    let mut inv = vec![0.0; n * n];
    for i in 0..n {
        inv[i * n + i] = 1.0;
    }
    for col in 0..n {
        let pivot_row =
            (col..n).max_by(|&a, &b| m[a * n + col].abs().total_cmp(&m[b * n + col].abs()))?;
        let pivot = m[pivot_row * n + col];
        if pivot.is_nan() || pivot.abs() <= scale * 1e-15 {
            return None;
        }
        if pivot_row != col {
            for k in 0..n {
                m.swap(col * n + k, pivot_row * n + k);
                inv.swap(col * n + k, pivot_row * n + k);
            }
        }
        for k in 0..n {
            m[col * n + k] /= pivot;
            inv[col * n + k] /= pivot;
        }
        for row in 0..n {
            let factor = m[row * n + col];
            if row != col && factor != 0.0 {
                for k in 0..n {
                    m[row * n + k] -= factor * m[col * n + k];
                    inv[row * n + k] -= factor * inv[col * n + k];
                }
            }
        }
    }
    Some(inv)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn close(actual: f64, expected: f64, tol: f64) {
        assert!(
            (actual - expected).abs() <= tol,
            "expected {expected}, got {actual} (tolerance {tol})"
        );
    }

    // Wilson for 8/10, z = 1.959964 (z² = 3.841459):
    // p̂ = 0.8, denom = 1 + 0.3841459 = 1.3841459,
    // centre = (0.8 + 0.1920729) / 1.3841459 = 0.7167235,
    // half = 1.959964 / 1.3841459 · √(0.016 + 0.0096036) = 1.4160037 · 0.1600114 = 0.2265773,
    // so (0.4901462.., 0.9433008..) → (0.49016, 0.94332).
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

    fn no_prior() -> BradleyTerryOptions {
        BradleyTerryOptions {
            prior_draws: 0.0,
            ..BradleyTerryOptions::default()
        }
    }

    // Two players, A scores 3 of 4 against B. Without a prior the fit is the observed odds:
    // γ_A / γ_B = 3, gap 400·log10 3 = 190.8485, ±95.4243 about the mean. Information
    // n·p·(1−p) = 4 · 0.75 · 0.25 = 0.75 on the gap, so var(θ_A − θ̄) = 1 / (4 · 0.75) = 1/3,
    // half-width 1.959964 · 173.7178 · 0.5773503 = 196.5766 Elo.
    #[test]
    fn bradley_terry_two_players_no_prior() {
        let r = try_bradley_terry(2, &[(0, 1, 3.0, 4.0)], &no_prior()).unwrap();
        close(r[0].elo - r[1].elo, 190.8485, 1e-4);
        close(r[0].elo, 95.42425, 1e-4);
        close(r[0].high - r[0].elo, 196.5766, 1e-3);
        close(r[1].elo - r[1].low, 196.5766, 1e-3);
        // the same result written from B's side
        let s = try_bradley_terry(2, &[(1, 0, 1.0, 4.0)], &no_prior()).unwrap();
        for (a, b) in r.iter().zip(&s) {
            close(a.elo, b.elo, 1e-9);
            close(a.low, b.low, 1e-9);
        }
    }

    // With the default prior (one virtual draw each against a reference at 0), symmetry gives
    // γ_B = 1 / γ_A = 1 / g, and A's score equation 3 + ½ = 4g² / (g² + 1) + g / (g + 1),
    // solved by bisection: g = 1.6071195, gap 2 · 173.7178 · ln g = 164.8385 Elo.
    // Information [[a + r, −a], [−a, a + r]], a = 4 p (1−p) with p = g²/(g²+1), r = q(1−q) with
    // q = g/(g+1); var(θ_A − θ̄) = 1 / (4 a + 2 r) → half-width 177.1943 Elo.
    #[test]
    fn bradley_terry_two_players_default_prior() {
        let r = try_bradley_terry(2, &[(0, 1, 3.0, 4.0)], &BradleyTerryOptions::default())
            .expect("rates");
        close(r[0].elo - r[1].elo, 164.8385, 1e-3);
        close(r[0].elo + r[1].elo, 0.0, 1e-9);
        close(r[0].high - r[0].elo, 177.1943, 1e-3);
    }

    // A beats B 3–1, B beats C 3–1, C beats A 3–1: by symmetry all equal.
    #[test]
    fn bradley_terry_cycle_is_equal() {
        let results = [(0, 1, 3.0, 4.0), (1, 2, 3.0, 4.0), (2, 0, 3.0, 4.0)];
        for opts in [no_prior(), BradleyTerryOptions::default()] {
            let r = try_bradley_terry(3, &results, &opts).unwrap();
            for x in &r {
                close(x.elo, 0.0, 1e-9);
                close(x.high - x.elo, r[0].high - r[0].elo, 1e-9);
                assert!(x.high - x.low > 10.0);
            }
        }
    }

    // A beats B 3 of 4, B beats C 3 of 4, A and C never meet. The graph is a path, so without a
    // prior each edge fits its own odds: A = +190.85, B = 0, C = −190.85. The information is
    // 0.75 × the path Laplacian, whose pseudo-inverse is (1/9)[[5,−1,−4],[−1,2,−1],[−4,−1,5]]:
    // var(θ_A − θ̄) = 5 / 6.75, var(θ_B − θ̄) = 2 / 6.75; half-widths 293.039 and 185.334 Elo.
    #[test]
    fn bradley_terry_chain() {
        let r = try_bradley_terry(3, &[(0, 1, 3.0, 4.0), (1, 2, 3.0, 4.0)], &no_prior()).unwrap();
        close(r[0].elo, 190.8485, 1e-4);
        close(r[1].elo, 0.0, 1e-6);
        close(r[2].elo, -190.8485, 1e-4);
        close(r[0].high - r[0].elo, 293.039, 1e-2);
        close(r[1].high - r[1].elo, 185.334, 1e-2);
        close(r[2].high - r[2].elo, 293.039, 1e-2);
    }

    #[test]
    fn bradley_terry_edge_cases() {
        // a clean sweep has no finite maximum-likelihood fit...
        assert_eq!(
            try_bradley_terry(2, &[(0, 1, 4.0, 4.0)], &no_prior()),
            Err(StatsError::NotIdentifiable)
        );
        // ... but a finite one with the prior
        let r = try_bradley_terry(2, &[(0, 1, 4.0, 4.0)], &BradleyTerryOptions::default())
            .expect("rates");
        assert!(r[0].elo.is_finite() && r[0].elo > 100.0 && r[0].low.is_finite());
        // a player without games: not identifiable without a prior, 0 with it
        assert_eq!(
            try_bradley_terry(3, &[(0, 1, 2.0, 4.0)], &no_prior()),
            Err(StatsError::NotIdentifiable)
        );
        let r = try_bradley_terry(3, &[(0, 1, 2.0, 4.0)], &BradleyTerryOptions::default())
            .expect("rates");
        for x in &r {
            close(x.elo, 0.0, 1e-9);
        }
        assert!(try_bradley_terry(0, &[], &BradleyTerryOptions::default())
            .expect("rates")
            .is_empty());
        let one = try_bradley_terry(1, &[], &BradleyTerryOptions::default()).expect("rates");
        assert_eq!(
            one,
            vec![Rating {
                elo: 0.0,
                low: 0.0,
                high: 0.0
            }]
        );
        // invalid entries: errors when strict, skipped when lenient
        let opts = BradleyTerryOptions::default();
        assert!(matches!(
            try_bradley_terry(2, &[(0, 2, 1.0, 2.0)], &opts),
            Err(StatsError::PlayerOutOfRange {
                index: 0,
                player: 2,
                ..
            })
        ));
        assert!(matches!(
            try_bradley_terry(2, &[(1, 1, 1.0, 2.0)], &opts),
            Err(StatsError::SelfPairing {
                index: 0,
                player: 1
            })
        ));
        assert!(matches!(
            try_bradley_terry(2, &[(0, 1, 3.0, 2.0)], &opts),
            Err(StatsError::InvalidResult { .. })
        ));
        assert!(matches!(
            try_bradley_terry(
                2,
                &[],
                &BradleyTerryOptions {
                    prior_draws: -1.0,
                    ..opts
                }
            ),
            Err(StatsError::InvalidParameter {
                name: "prior_draws",
                ..
            })
        ));
        // entries are never dropped: a player out of range or paired with itself is an error
        let default = BradleyTerryOptions::default();
        assert!(matches!(
            try_bradley_terry(2, &[(0, 1, 3.0, 4.0), (0, 5, 1.0, 1.0)], &default),
            Err(StatsError::PlayerOutOfRange { index: 1, .. })
        ));
        assert!(matches!(
            try_bradley_terry(2, &[(1, 1, 1.0, 1.0)], &default),
            Err(StatsError::SelfPairing { index: 0, .. })
        ));
    }

    // A large, lopsided but identifiable result converges.
    #[test]
    fn bradley_terry_lopsided() {
        let r = try_bradley_terry(2, &[(0, 1, 999.0, 1000.0)], &no_prior()).unwrap();
        close(r[0].elo - r[1].elo, elo_from_score(0.999), 1e-6);
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
        fn elo_round_trip(s in 0.001f64..0.999) {
            prop_assert!((score_from_elo(elo_from_score(s)) - s).abs() < 1e-12);
            prop_assert!(elo_from_score(s + 0.0005) > elo_from_score(s));
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

        #[test]
        fn bradley_terry_two_players_match_the_odds(n in 2u32..200, frac in 0.0f64..1.0) {
            let n = n as f64;
            let w = (1.0 + frac * (n - 2.0)).round();
            let r = try_bradley_terry(2, &[(0, 1, w, n)], &no_prior()).unwrap();
            prop_assert!((r[0].elo - r[1].elo - elo_from_score(w / n)).abs() < 1e-6);
        }

        #[test]
        fn bradley_terry_centred_and_permutation_invariant(
            games in proptest::collection::vec((0usize..4, 0usize..4, 0.0f64..=1.0, 1u32..20), 0..12)
        ) {
            let results: Vec<_> = games
                .iter()
                .filter(|g| g.0 != g.1)
                .map(|&(i, j, f, g)| (i, j, (2.0 * f * g as f64).round() / 2.0, g as f64))
                .collect();
            let r = try_bradley_terry(4, &results, &BradleyTerryOptions::default()).unwrap();
            prop_assert!(r.iter().map(|x| x.elo).sum::<f64>().abs() < 1e-6);
            for x in &r {
                prop_assert!(x.low <= x.elo && x.elo <= x.high && x.low.is_finite());
            }
            // relabel the players 0→3, 1→2, 2→1, 3→0
            let flipped: Vec<_> = results.iter().map(|&(i, j, w, g)| (3 - i, 3 - j, w, g)).collect();
            let s = try_bradley_terry(4, &flipped, &BradleyTerryOptions::default()).unwrap();
            for k in 0..4 {
                prop_assert!((r[k].elo - s[3 - k].elo).abs() < 1e-6);
                prop_assert!((r[k].high - s[3 - k].high).abs() < 1e-6);
            }
        }
    }
}
