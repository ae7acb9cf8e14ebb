//! Statistics for matches, ladders and balance studies. Pure functions on counts: no game code.
//! One file per kind:
//!
//! - `proportion`: [`wilson`], the Wilson score interval of a proportion, and [`balance_ratio`],
//!   defender wins ÷ attacker wins with an interval.
//! - `elo`: [`elo_from_score`], [`score_from_elo`], [`elo_interval_trinomial`]: the logistic Elo
//!   scale and an Elo estimate from wins, draws and losses.
//! - `pentanomial`: [`Pentanomial`], games played in pairs (same opening, sides swapped), the
//!   score and Elo of the pairs.
//! - `sprt`: [`sprt_llr`], [`sprt_bounds`], [`SprtDecision`]: a sequential probability ratio
//!   test on pentanomial counts.
//! - `bradley_terry`: [`try_bradley_terry`], ratings with intervals for several players from
//!   their results (bad entries are errors, never dropped), and [`ratings_relative_to`], each
//!   player's difference to a reference with the interval of that difference.
//! - `equivalence`: [`equivalence`], whether two shares agree within a margin (TOST).
//! - `trend`: [`trend`], the slope of a share's log-odds on the log budget, with its interval.
//! - `trend_test`: [`trend_test`], that slope with its goodness of fit, an overdispersion-aware
//!   (quasi-binomial) interval and the test of levels that differ without a trend.
//! - `distribution`: [`normal_cdf`], [`normal_quantile`], [`chi_square_sf`] and kin.
//! - `power`: [`games_for_equivalence`], [`games_for_tost`], [`games_for_difference`],
//!   [`tost_power`]: games a level
//!   a verdict needs for a stated power.
//! - `sequential`: [`SequentialDesign`], games added in rounds until equivalence or a difference
//!   is shown or a cap is reached, α spent by [`obrien_fleming_spent`].
//! - `side_advantage`: [`side_advantage`], [`side_constancy`]: the defenders' advantage in Elo
//!   from a Bradley–Terry fit over every game with a parameter for the side, and whether it
//!   holds across strength bands.
//! - `verdict`: [`Verdict`], the one vocabulary of balance verdicts.
//! - `matrix`: the dense inverse and `softplus` the rating fits share.
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

mod bradley_terry;
mod distribution;
mod elo;
mod equivalence;
mod matrix;
mod pentanomial;
mod power;
mod proportion;
mod sequential;
mod side_advantage;
mod sprt;
mod trend;
mod trend_test;
mod verdict;

pub use bradley_terry::{ratings_relative_to, try_bradley_terry, BradleyTerryOptions, Rating};
pub use distribution::{chi_square_sf, normal_cdf, normal_quantile, normal_sf};
pub use elo::{
    elo_from_score, elo_interval_trinomial, elo_interval_trinomial_z, score_from_elo, EloEstimate,
};
pub use equivalence::{equivalence, Equivalence, Z90};
pub use pentanomial::{pair_dispersion, Pentanomial};
pub use power::{games_for_difference, games_for_equivalence, games_for_tost, tost_power};
pub use proportion::{balance_ratio, wilson, Ratio};
pub use sequential::{
    group_sequential_bounds, obrien_fleming_spent, rounds, Look, PairsLook, SequentialDecision,
    SequentialDesign, Sides,
};
pub use side_advantage::{
    side_advantage, side_constancy, SideAdvantage, SideConstancy, SideFit, SideGames, SideOptions,
};
pub use sprt::{sprt_bounds, sprt_llr, validate_sprt, SprtDecision};
pub use trend::{trend, Level, Trend};
pub use trend_test::{trend_test, TrendTest, TrendVerdict};
pub use verdict::Verdict;

use std::f64::consts::LN_10;

/// The two-sided 95% normal quantile: `Φ⁻¹(0.975)`.
pub const Z95: f64 = 1.959963984540054;

/// Elo points per natural-log unit of odds: `400 / ln 10`.
pub(crate) const ELO_PER_NEPER: f64 = 400.0 / LN_10;

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

/// `actual` within `tol` of `expected` (the tests of every statistic).
#[cfg(test)]
pub(crate) fn close(actual: f64, expected: f64, tol: f64) {
    assert!(
        (actual - expected).abs() <= tol,
        "expected {expected}, got {actual} (tolerance {tol})"
    );
}
