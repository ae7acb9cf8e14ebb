//! Bradley–Terry ratings with intervals for several players from their results.

use serde::{Deserialize, Serialize};

use super::elo::logistic;
use super::matrix::{invert, softplus};
use super::{StatsError, ELO_PER_NEPER, Z95};

/// A player's rating: Elo relative to the mean of all players, with an interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Rating {
    pub elo: f64,
    pub low: f64,
    pub high: f64,
}

impl Rating {
    /// The rating of a strength in natural-log units with its variance, at the quantile `z`.
    fn of_strength(nepers: f64, variance: f64, z: f64) -> Rating {
        let elo = ELO_PER_NEPER * nepers;
        let half = z * ELO_PER_NEPER * variance.max(0.0).sqrt();
        Rating {
            elo,
            low: elo - half,
            high: elo + half,
        }
    }
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
    /// Factor of the ratings' covariance: 1 treats every game as independent; the dispersion
    /// of paired games (`pair_dispersion`) makes the intervals those of the pairs. Default 1.
    pub variance_scale: f64,
}

impl Default for BradleyTerryOptions {
    fn default() -> Self {
        BradleyTerryOptions {
            prior_draws: 1.0,
            z: Z95,
            max_iterations: 200,
            tolerance: 1e-10,
            variance_scale: 1.0,
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
    let (theta, sigma) = fit(n, results, options)?;
    if n == 0 {
        return Ok(Vec::new());
    }
    let nf = n as f64;
    let mean_theta = theta.iter().sum::<f64>() / nf;
    let row_means: Vec<f64> = (0..n)
        .map(|i| (0..n).map(|j| sigma[i * n + j]).sum::<f64>() / nf)
        .collect();
    let grand_mean = row_means.iter().sum::<f64>() / nf;
    Ok((0..n)
        .map(|i| {
            // (C Σ C)_ii = Σ_ii − 2 mean_j Σ_ij + mean_jk Σ_jk  (Σ is symmetric)
            let var = sigma[i * n + i] - 2.0 * row_means[i] + grand_mean;
            Rating::of_strength(
                theta[i] - mean_theta,
                var * options.variance_scale,
                options.z,
            )
        })
        .collect())
}

/// The Bradley–Terry fit of [`try_bradley_terry`], each player's rating given as its
/// difference to player `reference` (whose own is 0 ± 0), with the interval of that difference:
/// `var(θ_i − θ_r) = Σ_ii + Σ_rr − 2 Σ_ir` from the full covariance. Shifting mean-centred
/// intervals by the reference's rating would drop the reference's own uncertainty.
pub fn ratings_relative_to(
    n_players: usize,
    results: &[(usize, usize, f64, f64)],
    reference: usize,
    options: &BradleyTerryOptions,
) -> Result<Vec<Rating>, StatsError> {
    let n = n_players;
    if reference >= n {
        return Err(StatsError::PlayerOutOfRange {
            index: 0,
            player: reference,
            n_players: n,
        });
    }
    let (theta, sigma) = fit(n, results, options)?;
    let r = reference;
    Ok((0..n)
        .map(|i| {
            let var = sigma[i * n + i] + sigma[r * n + r] - 2.0 * sigma[i * n + r];
            Rating::of_strength(theta[i] - theta[r], var * options.variance_scale, options.z)
        })
        .collect())
}

/// The fitted strengths θ and their covariance Σ (row-major) of [`try_bradley_terry`].
fn fit(
    n: usize,
    results: &[(usize, usize, f64, f64)],
    options: &BradleyTerryOptions,
) -> Result<(Vec<f64>, Vec<f64>), StatsError> {
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
    if !(options.variance_scale.is_finite() && options.variance_scale >= 0.0) {
        return Err(StatsError::InvalidParameter {
            name: "variance_scale",
            value: options.variance_scale,
            expected: "a finite factor >= 0",
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
        return Ok((Vec::new(), Vec::new()));
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
    Ok((theta, sigma))
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::stats::{close, elo_from_score};
    use proptest::prelude::*;

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

    // The chain again, relative to A: B −190.85, C −381.70. The difference B − A has the
    // variance of its own edge, 1 / (4 · 0.75 · 0.25) = 4/3 (half-width 1.959964 · 173.7178 ·
    // 1.1547005 = 393.1532 Elo); C − A sums both edges, 8/3 (556.0025 Elo). Shifting the
    // mean-centred intervals instead would give B ±185.33: far too narrow.
    #[test]
    fn bradley_terry_differences_to_a_reference_carry_its_uncertainty() {
        let results = [(0, 1, 3.0, 4.0), (1, 2, 3.0, 4.0)];
        let r = ratings_relative_to(3, &results, 0, &no_prior()).unwrap();
        close(r[0].elo, 0.0, 1e-9);
        close(r[0].high - r[0].low, 0.0, 1e-9);
        close(r[1].elo, -190.8485, 1e-3);
        close(r[1].high - r[1].elo, 393.1532, 1e-3);
        close(r[2].elo, -381.6970, 1e-3);
        close(r[2].high - r[2].elo, 556.0025, 1e-3);
        assert!(ratings_relative_to(3, &results, 3, &no_prior()).is_err());
    }

    // A large, lopsided but identifiable result converges.
    #[test]
    fn bradley_terry_lopsided() {
        let r = try_bradley_terry(2, &[(0, 1, 999.0, 1000.0)], &no_prior()).unwrap();
        close(r[0].elo - r[1].elo, elo_from_score(0.999), 1e-6);
    }

    proptest! {
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

    #[test]
    fn variance_scale_widens_every_interval_by_its_square_root() {
        let results = [(0, 1, 6.0, 10.0), (1, 2, 7.0, 10.0), (0, 2, 8.0, 10.0)];
        let plain =
            ratings_relative_to(3, &results, 0, &BradleyTerryOptions::default()).expect("fits");
        let scaled = ratings_relative_to(
            3,
            &results,
            0,
            &BradleyTerryOptions {
                variance_scale: 4.0,
                ..BradleyTerryOptions::default()
            },
        )
        .expect("fits");
        for (p, s) in plain.iter().zip(&scaled).skip(1) {
            assert!((p.elo - s.elo).abs() < 1e-9, "the ratings stay");
            let (hp, hs) = (p.high - p.elo, s.high - s.elo);
            assert!((hs - 2.0 * hp).abs() < 1e-9, "{hp} -> {hs}");
        }
        let bad = BradleyTerryOptions {
            variance_scale: f64::NAN,
            ..BradleyTerryOptions::default()
        };
        assert!(matches!(
            try_bradley_terry(3, &results, &bad),
            Err(StatsError::InvalidParameter {
                name: "variance_scale",
                ..
            })
        ));
    }
}
