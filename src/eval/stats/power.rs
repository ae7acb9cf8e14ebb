//! Games a level by design: how many games each verdict needs for a stated power. A study that
//! stops where its interval is as wide as the margin passes its equivalence test only about 3 %
//! of the time when the shares really are equal; these give the games for 80 %.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rand_distr::{Binomial, Distribution};

use super::distribution::normal_quantile;
use super::equivalence::equivalence;
use super::StatsError;

fn check(name: &'static str, value: f64, low: f64, high: f64) -> Result<(), StatsError> {
    if value > low && value < high {
        Ok(())
    } else {
        Err(StatsError::InvalidParameter {
            name,
            value,
            expected: "a value strictly inside its range (share, margin, alpha, power)",
        })
    }
}

/// Games a level for TOST at level `alpha` (each one-sided test) to show two shares equivalent
/// within `±margin` with probability `power` when both really are `share`:
/// `(z_{1−α} + z_{1−(1−power)/2})² · 2p(1−p) / margin²`, rounded up. At p = 0.23, ±7.5 points,
/// α = 0.05 and 80 %: 540 (a simulation of the study's Newcombe-interval TOST gives 81 % at 550,
/// 41 % at 300, 3 % at 171). The formula is the normal approximation; near a share of 0 or 1,
/// where it gives few games, pass a regularised share such as `(k + ½) / (n + 1)`.
pub fn games_for_equivalence(
    share: f64,
    margin: f64,
    alpha: f64,
    power: f64,
) -> Result<u64, StatsError> {
    check("share", share, 0.0, 1.0)?;
    check("margin", margin, 0.0, 1.0)?;
    check("alpha", alpha, 0.0, 0.5)?;
    check("power", power, 0.0, 1.0)?;
    // equal true shares: the two one-sided tests share the miss probability 1 − power
    let z = normal_quantile(1.0 - alpha) + normal_quantile(1.0 - (1.0 - power) / 2.0);
    Ok(games_per_level(z, share, margin))
}

/// Games a level for the study's TOST ([`equivalence`], 5 %) at 80 %-type `power`: the larger of
/// [`games_for_equivalence`] and the fewest games at which two equal shares of `share` pass at
/// all (the Newcombe interval inside the margin). Near a share of 0 the normal formula asks for
/// fewer games than the interval's own width allows (0 of 30 against 0 of 30 is ±8.3 points:
/// at ±7.5 no 30 games pass).
pub fn games_for_tost(share: f64, margin: f64, power: f64) -> Result<u64, StatsError> {
    let formula = games_for_equivalence(share, margin, 0.05, power)?;
    let passes = |n: u64| {
        let k = share * n as f64;
        equivalence(k, n as f64, k, n as f64, margin).equivalent
    };
    // the interval narrows as games grow: bisect the first n that passes
    let (mut lo, mut hi) = (1u64, formula.max(2));
    while !passes(hi) {
        lo = hi;
        hi *= 2;
    }
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if passes(mid) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Ok(formula.max(hi))
}

/// Games a level for a two-sided test at level `alpha` to show two shares near `share` apart
/// with probability `power` when they really differ by `difference`:
/// `(z_{1−α/2} + z_{power})² · 2p(1−p) / difference²`, rounded up (494 at p = 0.23, 7.5 points,
/// 5 %, 80 %).
pub fn games_for_difference(
    share: f64,
    difference: f64,
    alpha: f64,
    power: f64,
) -> Result<u64, StatsError> {
    check("share", share, 0.0, 1.0)?;
    check("difference", difference, 0.0, 1.0)?;
    check("alpha", alpha, 0.0, 1.0)?;
    check("power", power, 0.0, 1.0)?;
    let z = normal_quantile(1.0 - alpha / 2.0) + normal_quantile(power);
    Ok(games_per_level(z, share, difference))
}

/// The normal approximation's games a level for two shares near `share` and a sum of normal
/// quantiles `z`: `z² · 2p(1−p) / effect²`, rounded up.
fn games_per_level(z: f64, share: f64, effect: f64) -> u64 {
    (z * z * 2.0 * share * (1.0 - share) / (effect * effect)).ceil() as u64
}

/// The power of the study's equivalence test ([`equivalence`], TOST at 5 % with Newcombe's
/// interval) by simulation: the share of `simulations` pairs of binomial samples, `games` each
/// from true shares `p1` and `p2`, that it calls equivalent within `margin`. Seeded: the same
/// arguments give the same figure.
pub fn tost_power(
    p1: f64,
    p2: f64,
    games: u64,
    margin: f64,
    simulations: usize,
    seed: u64,
) -> Result<f64, StatsError> {
    check("p1", p1, -f64::EPSILON, 1.0 + f64::EPSILON)?;
    check("p2", p2, -f64::EPSILON, 1.0 + f64::EPSILON)?;
    let bad = |_| StatsError::InvalidParameter {
        name: "games",
        value: games as f64,
        expected: "a binomial sample size",
    };
    let (b1, b2) = (
        Binomial::new(games, p1).map_err(bad)?,
        Binomial::new(games, p2).map_err(bad)?,
    );
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let n = games as f64;
    let passed = (0..simulations)
        .filter(|_| {
            let (k1, k2) = (b1.sample(&mut rng) as f64, b2.sample(&mut rng) as f64);
            equivalence(k1, n, k2, n, margin).equivalent
        })
        .count();
    Ok(passed as f64 / simulations.max(1) as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    // (z_0.95 + z_0.90)² · 2 · 0.23 · 0.77 / 0.075² = 539.2559522856171 and
    // (z_0.975 + z_0.80)² · … = 494.23523589447956 (scipy 1.17.1, stats_reference.py "power").
    #[test]
    fn games_by_formula_against_scipy() {
        assert_eq!(games_for_equivalence(0.23, 0.075, 0.05, 0.80), Ok(540));
        assert_eq!(games_for_difference(0.23, 0.075, 0.05, 0.80), Ok(495));
        // a half-width equal to the margin (the study's old "about 171") is far below it
        assert!(games_for_equivalence(0.23, 0.075, 0.05, 0.80).expect("n") > 3 * 171);
        assert!(games_for_equivalence(0.0, 0.075, 0.05, 0.8).is_err());
        assert!(games_for_equivalence(0.3, 0.0, 0.05, 0.8).is_err());
    }

    #[test]
    fn games_for_tost_never_ask_for_fewer_than_can_pass() {
        // the formula rules at 23 %
        assert_eq!(games_for_tost(0.23, 0.075, 0.80), Ok(540));
        // near 0 the interval's width does: at 0.8 % (0 wins of 60, regularised) the formula
        // says 25 games, but equal shares pass only from 37
        let tiny = 0.5 / 61.0;
        assert_eq!(games_for_equivalence(tiny, 0.075, 0.05, 0.80), Ok(25));
        let n = games_for_tost(tiny, 0.075, 0.80).expect("n");
        assert_eq!(n, 37);
        let k = tiny * n as f64;
        assert!(equivalence(k, n as f64, k, n as f64, 0.075).equivalent);
        let m = (n - 1) as f64;
        assert!(!equivalence(tiny * m, m, tiny * m, m, 0.075).equivalent);
    }

    // numpy's 400,000 seeded draws a size with the same Newcombe TOST (stats_reference.py
    // "power"): 0.0308 at 171, 0.4134 at 300, 0.8123 at 550. 4,000 draws here: 3 standard
    // errors are at most 0.024.
    #[test]
    fn tost_power_by_simulation_matches_the_reference() {
        for (n, reference) in [(171, 0.0308425), (300, 0.41343), (550, 0.81226)] {
            let p = tost_power(0.23, 0.23, n, 0.075, 4000, 45).expect("simulates");
            let se = (reference * (1.0 - reference) / 4000.0f64).sqrt();
            assert!(
                (p - reference).abs() <= 3.0 * se + 1e-9,
                "n = {n}: {p} against {reference}"
            );
        }
        // the formula's games give about the power they were computed for
        let n = games_for_equivalence(0.23, 0.075, 0.05, 0.80).expect("n");
        let p = tost_power(0.23, 0.23, n, 0.075, 4000, 7).expect("simulates");
        assert!((0.76..=0.84).contains(&p), "{p} at {n}");
        // seeded
        assert_eq!(
            tost_power(0.4, 0.4, 100, 0.075, 500, 3),
            tost_power(0.4, 0.4, 100, 0.075, 500, 3)
        );
    }
}
