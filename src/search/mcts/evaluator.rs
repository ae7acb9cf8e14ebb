//! Evaluators give, for a batch of positions, priors over each position's legal moves and a value
//! in [-1, 1] from the side to move's point of view.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::rollout::{cheap_prior, decisive_playout, Scratch};
use crate::rules::playout::random_playout;
use crate::rules::{Move, Position};

#[derive(Clone, Debug, PartialEq)]
pub struct Evaluation {
    /// One prior per legal move, in the order the request listed them; they sum to 1.
    pub priors: Vec<f32>,
    pub value: f32,
}

/// A position to evaluate with its legal moves.
pub type Request<'a> = (&'a Position, &'a [Move]);

pub trait Evaluator {
    fn evaluate(&mut self, requests: &[Request<'_>]) -> Vec<Evaluation>;
    /// A short description, e.g. `rollouts:8`.
    fn describe(&self) -> String;
}

fn uniform(n: usize) -> Vec<f32> {
    vec![1.0 / n.max(1) as f32; n]
}

/// Uniform priors and a zero value: search guided by nothing but the rules.
pub struct UniformEvaluator;

impl Evaluator for UniformEvaluator {
    fn evaluate(&mut self, requests: &[Request<'_>]) -> Vec<Evaluation> {
        requests
            .iter()
            .map(|(_, moves)| Evaluation {
                priors: uniform(moves.len()),
                value: 0.0,
            })
            .collect()
    }

    fn describe(&self) -> String {
        "uniform".into()
    }
}

/// Rollout values, no network at all (pure MCTS), with the cheap move prior as priors
/// (`rollout::cheap_prior`). By default each playout takes decisive moves (a win at once, a block
/// of the king's open escape line; `rollout::decisive_playout`); without, uniformly random ones.
/// Each position's playouts are seeded from the seed and the position's key, so a value does
/// not depend on the order or batch in which positions come (resumed runs replay alike).
pub struct RolloutEvaluator {
    rollouts: usize,
    seed: u64,
    /// Playouts take decisive moves.
    pub decisive: bool,
    moves: Vec<Move>,
    scratch: Scratch,
    squares: Vec<crate::rules::Square>,
}

impl RolloutEvaluator {
    pub fn new(rollouts: usize, seed: u64) -> RolloutEvaluator {
        RolloutEvaluator {
            rollouts: rollouts.max(1),
            seed,
            decisive: true,
            moves: Vec::with_capacity(256),
            scratch: Scratch::default(),
            squares: Vec::new(),
        }
    }
}

impl Evaluator for RolloutEvaluator {
    fn evaluate(&mut self, requests: &[Request<'_>]) -> Vec<Evaluation> {
        requests
            .iter()
            .map(|(pos, moves)| {
                let me = pos.side_to_move();
                let mut rng = ChaCha8Rng::seed_from_u64(self.seed ^ pos.key());
                let total: f32 = (0..self.rollouts)
                    .map(|_| {
                        let outcome = if self.decisive {
                            decisive_playout(pos, &mut rng, &mut self.scratch).outcome
                        } else {
                            random_playout(pos, &mut rng, &mut self.moves).outcome
                        };
                        match outcome.winner {
                            Some(w) if w == me => 1.0,
                            Some(_) => -1.0,
                            None => 0.0,
                        }
                    })
                    .sum();
                Evaluation {
                    priors: cheap_prior(pos, moves, &mut self.squares),
                    value: total / self.rollouts as f32,
                }
            })
            .collect()
    }

    fn describe(&self) -> String {
        let kind = if self.decisive {
            ""
        } else {
            " (random playouts)"
        };
        format!("rollouts:{}{kind}", self.rollouts)
    }
}
