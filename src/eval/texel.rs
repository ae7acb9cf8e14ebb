//! Texel's method for the alpha-beta agent: the weights of its static evaluation fitted to game
//! outcomes. Every position of a set of games (after its opening plies) is a sample; the
//! evaluation's terms are its inputs and the game's result for the attackers (1, ½ for a draw,
//! 0) its target, and the weights are those that make `σ(2·score / value_scale)` (the search's
//! own map of scores to values, `tanh(score / value_scale)`, read as a win probability) the
//! best predictor in log loss. The evaluation is linear in its weights, so the fit is a logistic
//! regression, solved by Newton's method with a ridge that pulls each weight towards the one it
//! replaces. Games are split into a training and a held-out part, never positions of one game.

use std::collections::HashSet;
use std::sync::Arc;

use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

use crate::eval::GameResult;
use crate::rules::replay::steps;
use crate::rules::{Position, Side, Variant};
use crate::search::alphabeta::is_quiet;
use crate::search::alphabeta::{EvalWeights, Heuristic, WEIGHT_NAMES};

/// How many weights the evaluation has.
pub const TERMS: usize = WEIGHT_NAMES.len();

#[derive(Debug, thiserror::Error)]
pub enum TexelError {
    #[error("{source_name}: game {id}: ply {ply} (`{mv}`) is illegal here: {reason}")]
    Illegal {
        source_name: String,
        id: u64,
        ply: usize,
        mv: String,
        reason: String,
    },
    #[error("no positions to fit: {0}")]
    Empty(String),
    #[error("--holdout must be in [0, 0.9], got {0}")]
    Holdout(f64),
}

/// The least value of each weight: 0, and 1 for the material, the unit of every score.
pub const FLOORS: [f64; TERMS] = [1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0];

/// One position: what each weight multiplies there, and the attackers' result of its game.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sample {
    pub terms: [f64; TERMS],
    pub result: f64,
}

/// The samples of a set of games, split by game.
#[derive(Debug, Default)]
pub struct Samples {
    pub train: Vec<Sample>,
    pub held_out: Vec<Sample>,
    pub train_games: usize,
    pub held_out_games: usize,
    /// Games whose move list repeated an earlier game's (left out).
    pub duplicates: usize,
    /// Positions left out as not quiet (when only quiet ones are kept).
    pub not_quiet: usize,
}

/// Stored games and where they were read from (named in errors).
pub struct Source {
    pub name: String,
    pub games: Vec<GameResult>,
}

/// Which positions of a game become samples.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Selection {
    /// Positions before this ply are left out (the drawn openings and their noise).
    pub skip_plies: usize,
    /// Only quiet positions (`alphabeta::is_quiet`): the static evaluation of a search with
    /// quiescence is only ever read at such positions.
    pub quiet_only: bool,
}

/// The samples of the games of `sources` (distinct move lists only): every position `select`
/// keeps that is not over, the games shuffled with `seed` and the first `holdout` share held
/// out.
pub fn samples(
    variant: &Arc<Variant>,
    sources: &[Source],
    select: Selection,
    holdout: f64,
    seed: u64,
) -> Result<Samples, TexelError> {
    let skip_plies = select.skip_plies;
    if !(0.0..=0.9).contains(&holdout) {
        return Err(TexelError::Holdout(holdout));
    }
    let games = sources
        .iter()
        .flat_map(|s| s.games.iter().map(move |g| (s.name.as_str(), g)));
    let mut seen = HashSet::new();
    let mut total = 0;
    let mut distinct: Vec<(&str, &GameResult)> = games
        .inspect(|_| total += 1)
        .filter(|(_, g)| seen.insert(&g.moves))
        .collect();
    let duplicates = total - distinct.len();
    distinct.shuffle(&mut ChaCha8Rng::seed_from_u64(seed));
    let held = (holdout * distinct.len() as f64).round() as usize;
    let heuristic = Heuristic::new(EvalWeights::default(), variant);
    let start = Position::start(variant);
    let mut out = Samples {
        duplicates,
        held_out_games: held,
        train_games: distinct.len() - held,
        ..Samples::default()
    };
    for (i, &(source_name, game)) in distinct.iter().enumerate() {
        let result = match game.outcome.winner {
            Some(Side::Attackers) => 1.0,
            Some(Side::Defenders) => 0.0,
            None => 0.5,
        };
        let into = if i < held {
            &mut out.held_out
        } else {
            &mut out.train
        };
        let not_quiet = &mut out.not_quiet;
        let mut sample = |pos: &Position| {
            if pos.outcome().is_some() || pos.king().is_none() {
                return;
            }
            if select.quiet_only && !is_quiet(pos) {
                *not_quiet += 1;
                return;
            }
            let f = heuristic.features(pos);
            into.push(Sample {
                terms: heuristic.terms(pos, &f),
                result,
            });
        };
        if skip_plies == 0 {
            sample(&start);
        }
        for step in steps(&start, &game.moves.join(" ")) {
            let step = step.map_err(|e| TexelError::Illegal {
                source_name: source_name.to_string(),
                id: game.id,
                ply: e.ply,
                mv: e.mv,
                reason: e.reason,
            })?;
            if step.ply + 1 >= skip_plies {
                sample(&step.position);
            }
        }
    }
    if out.train.is_empty() {
        return Err(TexelError::Empty(format!(
            "{} distinct games leave no training position after {skip_plies} plies{}",
            distinct.len(),
            if select.quiet_only {
                " that is quiet"
            } else {
                ""
            }
        )));
    }
    Ok(out)
}

/// Mean log loss of the weights `w` on `samples`, with the search's `value_scale`.
pub fn log_loss(samples: &[Sample], w: &[f64; TERMS], value_scale: f64) -> f64 {
    let k = 2.0 / value_scale;
    let total: f64 = samples
        .iter()
        .map(|s| cross_entropy(sigmoid(k * dot(w, &s.terms)), s.result))
        .sum();
    total / samples.len().max(1) as f64
}

/// The value scale that makes the weights `w` predict the results of `samples` best (least log
/// loss), searched between 10 and 100,000 (golden-section search on its logarithm). Texel's
/// first step: a score's scale does not change the moves alpha-beta picks, so the weights are
/// fitted after it, against the calibrated base, and their gain is more than calibration.
pub fn fit_scale(samples: &[Sample], w: &[f64; TERMS]) -> f64 {
    let loss = |ln_scale: f64| log_loss(samples, w, ln_scale.exp());
    let golden = (5f64.sqrt() - 1.0) / 2.0;
    let (mut lo, mut hi) = (10f64.ln(), 100_000f64.ln());
    let mut a = hi - golden * (hi - lo);
    let mut b = lo + golden * (hi - lo);
    let (mut la, mut lb) = (loss(a), loss(b));
    while hi - lo > 1e-4 {
        if la < lb {
            hi = b;
            b = a;
            lb = la;
            a = hi - golden * (hi - lo);
            la = loss(a);
        } else {
            lo = a;
            a = b;
            la = lb;
            b = lo + golden * (hi - lo);
            lb = loss(b);
        }
    }
    ((lo + hi) / 2.0).exp()
}

/// The weights that minimise the log loss on `samples` plus `ridge`/2 times the squared distance
/// to `prior`, each weight measured in logits per standard deviation of its term (so the ridge
/// means the same for every term, and a term that never varies keeps its prior weight). Every
/// weight stays at its [`FLOORS`] value or above: the evaluation fixes each term's sign, and a
/// weight the data would turn negative (an artefact of correlated terms or few games) is held at
/// its floor instead (an active set: such weights are fixed and the others fitted again).
pub fn fit(samples: &[Sample], prior: &[f64; TERMS], value_scale: f64, ridge: f64) -> [f64; TERMS] {
    let k = 2.0 / value_scale;
    let n = samples.len().max(1) as f64;
    // each term scaled to unit deviation: the Newton system is then well conditioned
    let mut sd = [0.0; TERMS];
    for (i, sd) in sd.iter_mut().enumerate() {
        let mean = samples.iter().map(|s| s.terms[i]).sum::<f64>() / n;
        let var = samples
            .iter()
            .map(|s| (s.terms[i] - mean).powi(2))
            .sum::<f64>()
            / n;
        *sd = var.sqrt();
    }
    let scale = |i: usize| if sd[i] > 0.0 { sd[i] } else { 1.0 };
    let problem = Scaled {
        x: samples
            .iter()
            .map(|s| std::array::from_fn(|i| if sd[i] > 0.0 { s.terms[i] / sd[i] } else { 0.0 }))
            .collect(),
        y: samples.iter().map(|s| s.result).collect(),
        u0: std::array::from_fn(|i| prior[i].max(FLOORS[i]) * k * scale(i)),
        ridge: ridge.max(1e-9),
    };
    let floor: [f64; TERMS] = std::array::from_fn(|i| FLOORS[i] * k * scale(i));
    let mut fixed = [false; TERMS];
    let mut u = problem.u0;
    loop {
        u = problem.newton(u, &fixed);
        let below: Vec<usize> = (0..TERMS)
            .filter(|&i| !fixed[i] && u[i] < floor[i])
            .collect();
        if below.is_empty() {
            break;
        }
        for i in below {
            fixed[i] = true;
            u[i] = floor[i];
        }
    }
    std::array::from_fn(|i| u[i] / (k * scale(i)))
}

/// The fit in standardised terms: `u` are weights in logits per standard deviation.
struct Scaled {
    x: Vec<[f64; TERMS]>,
    y: Vec<f64>,
    u0: [f64; TERMS],
    ridge: f64,
}

impl Scaled {
    fn objective(&self, u: &[f64; TERMS]) -> f64 {
        let loss: f64 = self
            .x
            .iter()
            .zip(&self.y)
            .map(|(x, &y)| cross_entropy(sigmoid(dot(u, x)), y))
            .sum::<f64>()
            / self.x.len().max(1) as f64;
        loss + 0.5 * self.ridge * (0..TERMS).map(|i| (u[i] - self.u0[i]).powi(2)).sum::<f64>()
    }

    /// Newton's method from `u`, with the weights marked `fixed` held where they are.
    fn newton(&self, mut u: [f64; TERMS], fixed: &[bool; TERMS]) -> [f64; TERMS] {
        let n = self.x.len().max(1) as f64;
        let mut current = self.objective(&u);
        for _ in 0..100 {
            let mut grad = [0.0; TERMS];
            let mut hess = [[0.0; TERMS]; TERMS];
            for (x, &y) in self.x.iter().zip(&self.y) {
                let p = sigmoid(dot(&u, x));
                let curvature = p * (1.0 - p);
                for i in 0..TERMS {
                    grad[i] += (p - y) * x[i] / n;
                    for j in 0..TERMS {
                        hess[i][j] += curvature * x[i] * x[j] / n;
                    }
                }
            }
            for i in 0..TERMS {
                grad[i] += self.ridge * (u[i] - self.u0[i]);
                hess[i][i] += self.ridge;
                if fixed[i] {
                    // row and column i become the identity's: the step leaves u[i] alone
                    grad[i] = 0.0;
                    hess[i] = [0.0; TERMS];
                    for row in hess.iter_mut() {
                        row[i] = 0.0;
                    }
                    hess[i][i] = 1.0;
                }
            }
            let Some(step) = solve(hess, grad) else {
                break;
            };
            // halve the Newton step until the objective does not rise
            let mut t = 1.0;
            let mut next = u;
            let mut value = f64::INFINITY;
            while t > 1e-6 {
                next = std::array::from_fn(|i| u[i] - t * step[i]);
                value = self.objective(&next);
                if value <= current {
                    break;
                }
                t /= 2.0;
            }
            if value > current {
                break;
            }
            let moved = (0..TERMS)
                .map(|i| (next[i] - u[i]).abs())
                .fold(0.0, f64::max);
            u = next;
            current = value;
            if moved < 1e-9 {
                break;
            }
        }
        u
    }
}

/// The losses of a weight set on the training and held-out positions.
#[derive(Clone, Debug, Serialize)]
pub struct Losses {
    pub train: f64,
    pub held_out: Option<f64>,
}

/// What `tavlei tune` reports beside the weights it writes.
#[derive(Clone, Debug, Serialize)]
pub struct TuneReport {
    pub variant: String,
    pub sources: Vec<String>,
    pub games_train: usize,
    pub games_held_out: usize,
    pub duplicate_games: usize,
    pub positions_train: usize,
    pub positions_held_out: usize,
    pub skip_plies: usize,
    /// Whether only quiet positions were fitted on, and how many were left out as not quiet.
    pub quiet_only: bool,
    pub positions_not_quiet: usize,
    pub holdout: f64,
    pub ridge: f64,
    pub seed: u64,
    /// The base settings' value scale, and the one fitted to the base weights (written to the
    /// tuned settings, and used to fit the weights).
    pub value_scale_before: f64,
    pub value_scale: f64,
    /// The weights before and after, by name.
    pub weights: Vec<WeightChange>,
    /// A constant prediction (the training positions' mean result): the loss to beat.
    pub loss_constant: Losses,
    /// The base weights at the base value scale, and at the fitted one.
    pub loss_before: Losses,
    pub loss_before_calibrated: Losses,
    pub loss_after: Losses,
}

#[derive(Clone, Debug, Serialize)]
pub struct WeightChange {
    pub name: String,
    pub before: i32,
    pub after: i32,
}

/// Losses of `w` on both parts of `data`.
pub fn losses(data: &Samples, w: &[f64; TERMS], value_scale: f64) -> Losses {
    Losses {
        train: log_loss(&data.train, w, value_scale),
        held_out: (!data.held_out.is_empty()).then(|| log_loss(&data.held_out, w, value_scale)),
    }
}

/// The loss of always predicting the training part's mean result, on both parts.
pub fn constant_losses(data: &Samples) -> Losses {
    let mean = data.train.iter().map(|s| s.result).sum::<f64>() / data.train.len().max(1) as f64;
    let loss = |samples: &[Sample]| {
        samples
            .iter()
            .map(|s| cross_entropy(mean, s.result))
            .sum::<f64>()
            / samples.len().max(1) as f64
    };
    Losses {
        train: loss(&data.train),
        held_out: (!data.held_out.is_empty()).then(|| loss(&data.held_out)),
    }
}

/// The weights by name, before and after.
pub fn weight_changes(before: &EvalWeights, after: &EvalWeights) -> Vec<WeightChange> {
    let (b, a) = (before.to_array(), after.to_array());
    WEIGHT_NAMES
        .iter()
        .enumerate()
        .map(|(i, name)| WeightChange {
            name: name.to_string(),
            before: b[i] as i32,
            after: a[i] as i32,
        })
        .collect()
}

/// The log loss of predicting `p` for a result `y` in [0, 1] (`p` kept off 0 and 1).
fn cross_entropy(p: f64, y: f64) -> f64 {
    let p = p.clamp(1e-12, 1.0 - 1e-12);
    -(y * p.ln() + (1.0 - y) * (1.0 - p).ln())
}

fn sigmoid(z: f64) -> f64 {
    1.0 / (1.0 + (-z).exp())
}

fn dot(a: &[f64; TERMS], b: &[f64; TERMS]) -> f64 {
    a.iter().zip(b).map(|(a, b)| a * b).sum()
}

/// `a x = b` by Gaussian elimination with partial pivoting; None when `a` is singular.
fn solve(mut a: [[f64; TERMS]; TERMS], mut b: [f64; TERMS]) -> Option<[f64; TERMS]> {
    for col in 0..TERMS {
        let pivot = (col..TERMS).max_by(|&i, &j| a[i][col].abs().total_cmp(&a[j][col].abs()))?;
        if a[pivot][col].abs() < 1e-300 {
            return None;
        }
        a.swap(col, pivot);
        b.swap(col, pivot);
        let pivot_row = a[col];
        for row in col + 1..TERMS {
            let factor = a[row][col] / pivot_row[col];
            for (x, p) in a[row][col..].iter_mut().zip(&pivot_row[col..]) {
                *x -= factor * p;
            }
            b[row] -= factor * b[col];
        }
    }
    let mut x = [0.0; TERMS];
    for row in (0..TERMS).rev() {
        let rest: f64 = (row + 1..TERMS).map(|c| a[row][c] * x[c]).sum();
        x[row] = (b[row] - rest) / a[row][row];
    }
    Some(x)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::Rng;

    /// Outcomes drawn from known weights: the fit finds them again (and beats the start).
    #[test]
    fn the_fit_recovers_the_weights_that_made_the_outcomes() {
        let truth = [100.0, 12.0, 0.0, 300.0, 150.0, 40.0, 30.0, 2.0, 1.0];
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let k = 2.0 / 600.0;
        let samples: Vec<Sample> = (0..40_000)
            .map(|_| {
                let terms: [f64; TERMS] = std::array::from_fn(|i| match i {
                    0 => rng.random_range(-3.0..3.0),
                    2 => 0.0, // a term that never varies keeps its prior weight
                    3 | 4 => -f64::from(u8::from(rng.random_bool(0.3))),
                    _ => rng.random_range(-8.0..8.0),
                });
                let p = sigmoid(k * dot(&truth, &terms));
                Sample {
                    terms,
                    result: f64::from(u8::from(rng.random_bool(p))),
                }
            })
            .collect();
        let prior = [50.0, 0.0, 8000.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0];
        let w = fit(&samples, &prior, 600.0, 1e-6);
        assert!((w[2] - 8000.0).abs() < 1e-6, "{w:?}");
        for i in [0, 1, 3, 4, 5, 6] {
            let tolerance = 0.15 * truth[i];
            assert!((w[i] - truth[i]).abs() < tolerance, "weight {i}: {w:?}");
        }
        assert!(log_loss(&samples, &w, 600.0) < log_loss(&samples, &prior, 600.0));
        // a term that pushes the other way is held at 0, not turned round
        let flipped: Vec<Sample> = samples
            .iter()
            .map(|s| {
                let mut terms = s.terms;
                terms[1] = -terms[1];
                Sample { terms, ..*s }
            })
            .collect();
        let w = fit(&flipped, &prior, 600.0, 1e-6);
        assert_eq!(w[1], 0.0, "{w:?}");
        assert!((w[0] - truth[0]).abs() < 0.15 * truth[0], "{w:?}");
        // a strong ridge keeps the prior
        let held = fit(&samples, &prior, 600.0, 1e6);
        assert!((held[0] - 50.0).abs() < 1.0, "{held:?}");
    }

    #[test]
    fn the_scale_is_found_again() {
        // results drawn with scale 900 from weights given at 600-scale magnitudes
        let w = [100.0, 12.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0];
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let samples: Vec<Sample> = (0..20_000)
            .map(|_| {
                let terms: [f64; TERMS] = std::array::from_fn(|i| {
                    if i < 2 {
                        rng.random_range(-6.0..6.0)
                    } else {
                        0.0
                    }
                });
                let p = sigmoid(2.0 / 900.0 * dot(&w, &terms));
                Sample {
                    terms,
                    result: f64::from(u8::from(rng.random_bool(p))),
                }
            })
            .collect();
        let scale = fit_scale(&samples, &w);
        assert!((scale - 900.0).abs() < 60.0, "{scale}");
        assert!(log_loss(&samples, &w, scale) <= log_loss(&samples, &w, 600.0));
    }

    #[test]
    fn the_loss_of_known_predictions() {
        let s = |terms0: f64, result: f64| Sample {
            terms: std::array::from_fn(|i| if i == 0 { terms0 } else { 0.0 }),
            result,
        };
        // score 0 predicts one half: ln 2 whatever the result
        let w = [0.0; TERMS];
        let l = log_loss(&[s(1.0, 1.0), s(-1.0, 0.0)], &w, 600.0);
        assert!((l - 2f64.ln()).abs() < 1e-12);
        // score 300 with scale 600: p = σ(1)
        let mut w = [0.0; TERMS];
        w[0] = 300.0;
        let l = log_loss(&[s(1.0, 1.0)], &w, 600.0);
        assert!((l - (1.0 + (-1f64).exp()).ln()).abs() < 1e-12);
    }

    #[test]
    fn gaussian_elimination_solves_a_pivoting_system() {
        let mut a = [[0.0; TERMS]; TERMS];
        for (i, row) in a.iter_mut().enumerate() {
            row[(i + 1) % TERMS] = 2.0; // a zero diagonal: pivoting needed
            row[i] = if i % 2 == 0 { 0.0 } else { 1.0 };
        }
        let x: [f64; TERMS] = std::array::from_fn(|i| i as f64 - 3.0);
        let b: [f64; TERMS] = std::array::from_fn(|i| dot(&a[i], &x));
        let got = solve(a, b).expect("regular");
        for i in 0..TERMS {
            assert!((got[i] - x[i]).abs() < 1e-9, "{got:?}");
        }
        assert!(solve([[0.0; TERMS]; TERMS], b).is_none());
    }
}
