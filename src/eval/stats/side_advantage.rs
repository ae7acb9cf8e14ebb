//! The defenders' advantage in Elo: a Bradley–Terry fit over every game of a variant with one
//! parameter for the side, as chess measures White's edge. Player `a` attacking player `d`
//! gives the defenders an expected score `σ(η + θ_d − θ_a)` (draws half a point): θ are the
//! players' strengths, η the side's advantage. Self-play at any level informs η alone; games
//! between unequal players (levels, families, cross-family matches) inform θ as well, so every
//! game counts and none has to be between equals.
//!
//! - Fit: maximum likelihood by Newton's method with a backtracking line search.
//! - Prior (default): each player `prior_draws` virtual draws against a reference at θ = 0, and
//!   the side `side_prior_draws` virtual games scored half (η shrunk towards 0 by an amount
//!   that vanishes with games), so a player or a side that won everything stays finite. With
//!   both 0 the plain maximum-likelihood fit: the strengths are then determined only up to a
//!   shift within each group of players that met (a player seen only in self-play is its own
//!   group), and η does not depend on those shifts.
//! - Interval: `η ± z·sd` from the observed information at the fit (its inverse, the shifts'
//!   null directions added so it is invertible; η's variance is the same for any such
//!   choice).
//! - Constancy ([`side_constancy`]): the same players with one η per strength band (the
//!   caller's labels), tested against one η by the likelihood ratio on `bands − 1` df; the band
//!   whose η lies farthest from the pooled one, in its standard deviations, is where it drifts.

use serde::{Deserialize, Serialize};

use super::distribution::chi_square_sf;
use super::elo::logistic;
use super::matrix::{invert, softplus};
use super::{StatsError, ELO_PER_NEPER, Z95};

/// Games of one pairing: `attacker` attacked `defender` (the same player in self-play) in
/// `games` games, the defenders scoring `defender_points` (a win 1, a draw ½); `band` labels
/// the strength band of the pairing (0-based, for [`side_constancy`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SideGames {
    pub attacker: usize,
    pub defender: usize,
    pub band: usize,
    pub defender_points: f64,
    pub games: f64,
}

/// Settings of the fit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SideOptions {
    /// Virtual draws of each player against a reference at 0. Default 1.
    pub prior_draws: f64,
    /// Virtual games of the side, scored half. Default 1.
    pub side_prior_draws: f64,
    /// Normal quantile of the intervals. Default [`Z95`].
    pub z: f64,
    /// Level of the constancy test. Default 0.05.
    pub alpha: f64,
    /// Most Newton iterations. Default 200.
    pub max_iterations: usize,
}

impl Default for SideOptions {
    fn default() -> Self {
        SideOptions {
            prior_draws: 1.0,
            side_prior_draws: 1.0,
            z: Z95,
            alpha: 0.05,
            max_iterations: 200,
        }
    }
}

/// The defenders' advantage in Elo with its interval, and the games it rests on.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SideAdvantage {
    pub elo: f64,
    pub low: f64,
    pub high: f64,
    pub games: f64,
}

/// The fit over every game: the side's advantage and the players' strengths.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SideFit {
    pub advantage: SideAdvantage,
    /// Each player's strength in Elo, relative to the mean of all players (0 for a player
    /// only seen in self-play without a prior: its strength is not determined).
    pub ratings: Vec<f64>,
    /// The log-likelihood of the games at the fit (the prior's virtual games left out).
    pub log_likelihood: f64,
}

/// Whether the advantage holds across strength bands.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SideConstancy {
    /// One η over every game.
    pub pooled: SideAdvantage,
    /// One η a band (`None` for a band without games), the players shared.
    pub bands: Vec<Option<SideAdvantage>>,
    /// Likelihood-ratio statistic of the banded fit against the pooled one, its df (bands with
    /// games − 1) and p-value.
    pub lr: f64,
    pub df: usize,
    pub p_value: f64,
    /// The band whose η is farthest from the pooled one, in its standard deviations.
    pub farthest: Option<usize>,
    /// `p_value < alpha`: the advantage is not one number across these bands.
    pub drifts: bool,
}

/// The defenders' advantage over every game (bands ignored).
pub fn side_advantage(
    n_players: usize,
    games: &[SideGames],
    options: &SideOptions,
) -> Result<SideFit, StatsError> {
    validate(n_players, games, options)?;
    let fit = Model::new(n_players, games, |_| 0, 1, options).fit(options.max_iterations)?;
    let ratings = fit.ratings();
    let advantage = fit.advantage(0, options.z);
    Ok(SideFit {
        advantage,
        ratings,
        log_likelihood: fit.data_log_likelihood,
    })
}

/// The advantage a strength band (`SideGames::band`), the players shared, tested against one
/// advantage for all.
pub fn side_constancy(
    n_players: usize,
    games: &[SideGames],
    options: &SideOptions,
) -> Result<SideConstancy, StatsError> {
    validate(n_players, games, options)?;
    let n_bands = games.iter().map(|g| g.band + 1).max().unwrap_or(0);
    // bands with games, numbered compactly: an empty band has no η to fit
    let mut index = vec![None; n_bands];
    let mut used = 0;
    for g in games.iter().filter(|g| g.games > 0.0) {
        if index[g.band].is_none() {
            index[g.band] = Some(used);
            used += 1;
        }
    }
    let pooled = Model::new(n_players, games, |_| 0, 1, options).fit(options.max_iterations)?;
    let banded = Model::new(
        n_players,
        games,
        |g| index[g.band].unwrap_or(0),
        used.max(1),
        options,
    )
    .fit(options.max_iterations)?;
    let bands: Vec<Option<SideAdvantage>> = index
        .iter()
        .map(|b| b.map(|b| banded.advantage(b, options.z)))
        .collect();
    let lr = (2.0 * (banded.data_log_likelihood - pooled.data_log_likelihood)).max(0.0);
    let df = used.saturating_sub(1);
    let p_value = if df > 0 {
        chi_square_sf(lr, df as f64)
    } else {
        1.0
    };
    let eta = pooled.theta[n_players];
    let farthest = index
        .iter()
        .enumerate()
        .filter_map(|(band, b)| b.map(|b| (band, b)))
        .map(|(band, b)| {
            let (value, var) = banded.side(b);
            (band, (value - eta).abs() / var.sqrt())
        })
        .max_by(|x, y| x.1.total_cmp(&y.1))
        .map(|(band, _)| band);
    Ok(SideConstancy {
        pooled: pooled.advantage(0, options.z),
        bands,
        lr,
        df,
        p_value,
        farthest,
        drifts: df > 0 && p_value < options.alpha,
    })
}

fn validate(n: usize, games: &[SideGames], options: &SideOptions) -> Result<(), StatsError> {
    for (name, value) in [
        ("prior_draws", options.prior_draws),
        ("side_prior_draws", options.side_prior_draws),
        ("z", options.z),
    ] {
        if !(value.is_finite() && value >= 0.0) {
            return Err(StatsError::InvalidParameter {
                name,
                value,
                expected: "a finite number >= 0",
            });
        }
    }
    for (index, g) in games.iter().enumerate() {
        for player in [g.attacker, g.defender] {
            if player >= n {
                return Err(StatsError::PlayerOutOfRange {
                    index,
                    player,
                    n_players: n,
                });
            }
        }
        if !(g.games.is_finite() && g.games >= 0.0 && (0.0..=g.games).contains(&g.defender_points))
        {
            return Err(StatsError::InvalidResult {
                index,
                wins: g.defender_points,
                games: g.games,
            });
        }
    }
    Ok(())
}

/// Aggregated games by (attacker, defender, side parameter): `[points, games]`.
struct Model {
    n_players: usize,
    n_sides: usize,
    cells: Vec<(usize, usize, usize, f64, f64)>,
    prior: f64,
    side_prior: f64,
    /// Null directions of the information without a prior: one unit vector a group of players
    /// that met (over the players' coordinates).
    null: Vec<Vec<f64>>,
    total_games: Vec<f64>,
}

/// The fitted parameters `[θ_0 … θ_{n−1}, η_0 …]` and their covariance.
struct Fitted {
    n_players: usize,
    theta: Vec<f64>,
    sigma: Vec<f64>,
    data_log_likelihood: f64,
    total_games: Vec<f64>,
}

impl Fitted {
    fn side(&self, b: usize) -> (f64, f64) {
        let k = self.n_players + b;
        let dim = self.theta.len();
        (self.theta[k], self.sigma[k * dim + k])
    }

    fn advantage(&self, b: usize, z: f64) -> SideAdvantage {
        let (eta, var) = self.side(b);
        let half = z * var.max(0.0).sqrt();
        SideAdvantage {
            elo: ELO_PER_NEPER * eta,
            low: ELO_PER_NEPER * (eta - half),
            high: ELO_PER_NEPER * (eta + half),
            games: self.total_games[b],
        }
    }

    fn ratings(&self) -> Vec<f64> {
        let n = self.n_players;
        let mean = self.theta[..n].iter().sum::<f64>() / n.max(1) as f64;
        self.theta[..n]
            .iter()
            .map(|t| ELO_PER_NEPER * (t - mean))
            .collect()
    }
}

impl Model {
    fn new(
        n_players: usize,
        games: &[SideGames],
        side_of: impl Fn(&SideGames) -> usize,
        n_sides: usize,
        options: &SideOptions,
    ) -> Model {
        let mut cells: Vec<(usize, usize, usize, f64, f64)> = Vec::new();
        let mut total_games = vec![0.0; n_sides];
        for g in games.iter().filter(|g| g.games > 0.0) {
            let s = side_of(g);
            total_games[s] += g.games;
            match cells
                .iter_mut()
                .find(|c| (c.0, c.1, c.2) == (g.attacker, g.defender, s))
            {
                Some(c) => {
                    c.3 += g.defender_points;
                    c.4 += g.games;
                }
                None => cells.push((g.attacker, g.defender, s, g.defender_points, g.games)),
            }
        }
        // groups of players joined by games between different players
        let mut group: Vec<usize> = (0..n_players).collect();
        fn root(group: &mut [usize], mut i: usize) -> usize {
            while group[i] != i {
                group[i] = group[group[i]];
                i = group[i];
            }
            i
        }
        for c in cells.iter().filter(|c| c.0 != c.1) {
            let (a, b) = (root(&mut group, c.0), root(&mut group, c.1));
            group[a] = b;
        }
        let mut null = Vec::new();
        if options.prior_draws == 0.0 {
            let mut roots: Vec<usize> = (0..n_players).map(|i| root(&mut group, i)).collect();
            let members = roots.clone();
            roots.sort_unstable();
            roots.dedup();
            for r in roots {
                let size = members.iter().filter(|&&m| m == r).count() as f64;
                null.push(
                    members
                        .iter()
                        .map(|&m| if m == r { 1.0 / size.sqrt() } else { 0.0 })
                        .collect(),
                );
            }
        }
        Model {
            n_players,
            n_sides,
            cells,
            prior: options.prior_draws,
            side_prior: options.side_prior_draws,
            null,
            total_games,
        }
    }

    fn dim(&self) -> usize {
        self.n_players + self.n_sides
    }

    fn logit(&self, theta: &[f64], c: &(usize, usize, usize, f64, f64)) -> f64 {
        theta[self.n_players + c.2] + theta[c.1] - theta[c.0]
    }

    /// The games' log-likelihood, and with the prior's virtual games.
    fn log_likelihood(&self, theta: &[f64]) -> (f64, f64) {
        let data: f64 = self
            .cells
            .iter()
            .map(|c| {
                let x = self.logit(theta, c);
                -(c.3 * softplus(-x) + (c.4 - c.3) * softplus(x))
            })
            .sum();
        let half_draws = |c: f64, x: f64| -0.5 * c * (softplus(-x) + softplus(x));
        let prior: f64 = theta[..self.n_players]
            .iter()
            .map(|&t| half_draws(self.prior, t))
            .sum::<f64>()
            + theta[self.n_players..]
                .iter()
                .map(|&e| half_draws(self.side_prior, e))
                .sum::<f64>();
        (data, data + prior)
    }

    /// Gradient of the penalised log-likelihood and its information (row-major).
    fn gradient_information(&self, theta: &[f64]) -> (Vec<f64>, Vec<f64>) {
        let dim = self.dim();
        let mut grad = vec![0.0; dim];
        let mut info = vec![0.0; dim * dim];
        for c in &self.cells {
            let p = logistic(self.logit(theta, c));
            let r = c.3 - c.4 * p;
            let w = c.4 * p * (1.0 - p);
            // d logit / d(θ_a, θ_d, η) = (−1, +1, +1); self-play cancels θ
            let mut terms: Vec<(usize, f64)> = vec![(self.n_players + c.2, 1.0)];
            if c.0 != c.1 {
                terms.push((c.0, -1.0));
                terms.push((c.1, 1.0));
            }
            for &(i, si) in &terms {
                grad[i] += si * r;
                for &(j, sj) in &terms {
                    info[i * dim + j] += si * sj * w;
                }
            }
        }
        for (i, &t) in theta.iter().enumerate() {
            let c = if i < self.n_players {
                self.prior
            } else {
                self.side_prior
            };
            if c > 0.0 {
                let p = logistic(t);
                grad[i] += c * (0.5 - p);
                info[i * dim + i] += c * p * (1.0 - p);
            }
        }
        (grad, info)
    }

    /// The information with the shifts' null directions added, inverted.
    fn covariance(&self, info: &[f64]) -> Option<Vec<f64>> {
        let dim = self.dim();
        let mut m = info.to_vec();
        for u in &self.null {
            for i in 0..self.n_players {
                for j in 0..self.n_players {
                    m[i * dim + j] += u[i] * u[j];
                }
            }
        }
        invert(m, dim)
    }

    fn fit(self, max_iterations: usize) -> Result<Fitted, StatsError> {
        let dim = self.dim();
        let mut theta = vec![0.0; dim];
        for _ in 0..max_iterations {
            let (grad, info) = self.gradient_information(&theta);
            let sigma = self
                .covariance(&info)
                .ok_or(StatsError::SingularInformation)?;
            let step: Vec<f64> = (0..dim)
                .map(|i| (0..dim).map(|j| sigma[i * dim + j] * grad[j]).sum())
                .collect();
            let largest = step.iter().fold(0.0f64, |m, d| m.max(d.abs()));
            if !largest.is_finite() {
                break;
            }
            if largest < 1e-10 {
                let data_log_likelihood = self.log_likelihood(&theta).0;
                return Ok(Fitted {
                    n_players: self.n_players,
                    theta,
                    sigma,
                    data_log_likelihood,
                    total_games: self.total_games,
                });
            }
            let ll0 = self.log_likelihood(&theta).1;
            let slope: f64 = grad.iter().zip(&step).map(|(g, d)| g * d).sum();
            let slack = 1e-12 * (1.0 + ll0.abs());
            let mut t = 1.0;
            loop {
                let trial: Vec<f64> = theta.iter().zip(&step).map(|(x, d)| x + t * d).collect();
                if self.log_likelihood(&trial).1 >= ll0 + 1e-4 * t * slope - slack {
                    theta = trial;
                    break;
                }
                t *= 0.5;
                if t < 1e-20 {
                    return Err(StatsError::NoConvergence {
                        iterations: max_iterations,
                    });
                }
            }
        }
        Err(StatsError::NoConvergence {
            iterations: max_iterations,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::stats::close;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;
    use rand_distr::{Binomial, Distribution};

    fn plain() -> SideOptions {
        SideOptions {
            prior_draws: 0.0,
            side_prior_draws: 0.0,
            ..SideOptions::default()
        }
    }

    fn g(attacker: usize, defender: usize, band: usize, points: f64, games: f64) -> SideGames {
        SideGames {
            attacker,
            defender,
            band,
            defender_points: points,
            games,
        }
    }

    /// Four players (two levels of two families), self-play and cross games, draws as half
    /// points; bands 0 (weaker) and 1 (stronger). The same table is in stats_reference.py.
    fn fixed() -> Vec<SideGames> {
        vec![
            g(0, 0, 0, 30.0, 40.0),
            g(1, 1, 1, 27.5, 40.0),
            g(2, 2, 0, 33.0, 40.0),
            g(3, 3, 1, 31.0, 40.0),
            g(1, 3, 1, 12.0, 20.0),
            g(3, 1, 1, 18.5, 20.0),
            g(0, 2, 0, 14.0, 20.0),
            g(2, 0, 0, 15.0, 20.0),
            g(0, 1, 0, 16.0, 20.0),
            g(1, 0, 1, 11.0, 20.0),
        ]
    }

    // statsmodels 0.15.0: a binomial GLM of the defenders' score on [η, θ_1, θ_2, θ_3] (player
    // 0 the reference; +1 for the defender, −1 for the attacker) with var_weights = games
    // (stats_reference.py "side"); η's interval from its Wald standard error.
    #[test]
    fn side_advantage_against_statsmodels() {
        let fit = side_advantage(4, &fixed(), &plain()).expect("fits");
        close(fit.advantage.elo / ELO_PER_NEPER, REF_ETA, 1e-8);
        close(
            (fit.advantage.high - fit.advantage.low) / (2.0 * Z95 * ELO_PER_NEPER),
            REF_ETA_SE,
            1e-8,
        );
        close(fit.advantage.games, 280.0, 0.0);
        // the players relative to player 0
        for (i, reference) in REF_THETA.iter().enumerate() {
            close(
                (fit.ratings[i + 1] - fit.ratings[0]) / ELO_PER_NEPER,
                *reference,
                1e-7,
            );
        }
        close(fit.log_likelihood, REF_LOG_LIKELIHOOD, 1e-7);
        let c = side_constancy(4, &fixed(), &plain()).expect("fits");
        close(c.lr, REF_BAND_LR, 1e-7);
        assert_eq!(c.df, 1);
        close(c.p_value, REF_BAND_P, 1e-8);
        for (b, (eta, se)) in REF_BANDS.iter().enumerate() {
            let band = c.bands[b].expect("band");
            close(band.elo / ELO_PER_NEPER, *eta, 1e-7);
            close(
                (band.high - band.low) / (2.0 * Z95 * ELO_PER_NEPER),
                *se,
                1e-7,
            );
        }
    }
    const REF_ETA: f64 = 1.1024695733795677;
    const REF_ETA_SE: f64 = 0.1416428126318674;
    const REF_THETA: [f64; 3] = [
        0.6746832447015524,
        -0.13364011282420057,
        -0.20940753192574485,
    ];
    const REF_LOG_LIKELIHOOD: f64 = -155.0679041592167;
    const REF_BAND_LR: f64 = 0.06514572110665107;
    const REF_BAND_P: f64 = 0.7985403655688302;
    const REF_BANDS: [(f64, f64); 2] = [
        (1.1404212961179483, 0.20628441026405014),
        (1.0628776632892778, 0.20896810323375584),
    ];

    /// Games drawn from known strengths and one advantage a band (`eta[band]`), seeded.
    fn synthetic(eta: &[f64], seed: u64) -> Vec<SideGames> {
        let strengths = [-0.6, -0.2, 0.0, 0.3, 0.5, 0.9];
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut games = Vec::new();
        for a in 0..strengths.len() {
            for d in 0..strengths.len() {
                // a player's band: the weaker three 0, the stronger three 1 (or one band)
                let band = if eta.len() > 1 { a.max(d) / 3 } else { 0 };
                let n = if a == d { 400 } else { 60 };
                let p = logistic(eta[band] + strengths[d] - strengths[a]);
                let wins = Binomial::new(n, p).expect("p").sample(&mut rng) as f64;
                games.push(g(a, d, band, wins, n as f64));
            }
        }
        games
    }

    #[test]
    fn a_known_advantage_is_recovered() {
        // η = 0.8 nepers = 138.97 Elo
        let truth = 0.8 * ELO_PER_NEPER;
        let games = synthetic(&[0.8], 11);
        for options in [plain(), SideOptions::default()] {
            let fit = side_advantage(6, &games, &options).expect("fits");
            let a = fit.advantage;
            assert!(a.low < truth && truth < a.high, "{a:?}");
            assert!(a.high - a.low < 60.0, "{a:?}");
            close(a.elo, truth, 25.0);
        }
        // the players' strengths come back too (relative to the first)
        let fit = side_advantage(6, &games, &plain()).expect("fits");
        close((fit.ratings[5] - fit.ratings[0]) / ELO_PER_NEPER, 1.5, 0.25);
        // one advantage: no drift
        let c = side_constancy(6, &synthetic(&[0.8, 0.8], 12), &plain()).expect("fits");
        assert!(!c.drifts, "{c:?}");
        // the stronger band's advantage twice the weaker's: a drift, found in one of the two
        let c = side_constancy(6, &synthetic(&[0.4, 1.2], 13), &plain()).expect("fits");
        assert!(c.drifts && c.p_value < 1e-6, "{c:?}");
        let (weak, strong) = (c.bands[0].expect("band"), c.bands[1].expect("band"));
        assert!(strong.low > weak.high, "{weak:?} {strong:?}");
    }

    #[test]
    fn a_clean_sweep_needs_the_prior_and_bad_games_are_refused() {
        let sweep = [g(0, 0, 0, 50.0, 50.0), g(1, 1, 0, 50.0, 50.0)];
        assert!(side_advantage(2, &sweep, &plain()).is_err());
        let fit = side_advantage(2, &sweep, &SideOptions::default()).expect("fits");
        assert!(
            fit.advantage.elo > 300.0 && fit.advantage.high.is_finite(),
            "{fit:?}"
        );
        assert!(matches!(
            side_advantage(2, &[g(0, 2, 0, 1.0, 2.0)], &plain()),
            Err(StatsError::PlayerOutOfRange { player: 2, .. })
        ));
        assert!(matches!(
            side_advantage(2, &[g(0, 1, 0, 3.0, 2.0)], &plain()),
            Err(StatsError::InvalidResult { index: 0, .. })
        ));
        // self-play only: the players are not determined, the side is
        let fit = side_advantage(
            2,
            &[g(0, 0, 0, 30.0, 40.0), g(1, 1, 0, 10.0, 40.0)],
            &plain(),
        )
        .expect("fits");
        close(fit.advantage.elo, 0.0, 1e-9);
        // a band without games is left out of the constancy test
        let c = side_constancy(
            2,
            &[g(0, 0, 0, 30.0, 40.0), g(1, 1, 2, 20.0, 40.0)],
            &plain(),
        )
        .expect("fits");
        assert_eq!(c.bands[1], None);
        assert_eq!(c.df, 1);
        assert!(c.drifts);
    }
}
