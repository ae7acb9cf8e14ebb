//! Evaluators give, for a batch of positions, priors over each position's legal moves and a value
//! in [-1, 1] from the side to move's point of view.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::rollout::{cheap_prior, decisive_playout, Scratch};
use crate::encode::policy::{policy_index, policy_size};
use crate::nn::folded::FoldedNet;
use crate::nn::Network;
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

/// Rollout values, no network at all (pure MCTS). By default each playout takes decisive moves
/// (a win at once, a block of the king's open escape line; `rollout::decisive_playout`) and the
/// priors are the cheap move prior (`rollout::cheap_prior`); `legacy` gives uniform priors and
/// uniformly random playouts, as before issue 11.
/// Each position's playouts are seeded from the seed and the position's key, so a value does
/// not depend on the order or batch in which positions come (resumed runs replay alike).
pub struct RolloutEvaluator {
    rollouts: usize,
    seed: u64,
    /// Playouts take decisive moves.
    pub decisive: bool,
    /// Priors from the cheap move prior instead of uniform ones.
    pub move_prior: bool,
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
            move_prior: true,
            moves: Vec::with_capacity(256),
            scratch: Scratch::default(),
            squares: Vec::new(),
        }
    }

    /// Uniform priors and uniformly random playouts.
    pub fn legacy(rollouts: usize, seed: u64) -> RolloutEvaluator {
        RolloutEvaluator {
            decisive: false,
            move_prior: false,
            ..RolloutEvaluator::new(rollouts, seed)
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
                    priors: if self.move_prior {
                        cheap_prior(pos, moves, &mut self.squares)
                    } else {
                        uniform(moves.len())
                    },
                    value: total / self.rollouts as f32,
                }
            })
            .collect()
    }

    fn describe(&self) -> String {
        let kind = match (self.decisive, self.move_prior) {
            (true, true) => "",
            (false, false) => " (legacy)",
            (true, false) => " (decisive, uniform priors)",
            (false, true) => " (random playouts, move prior)",
        };
        format!("rollouts:{}{kind}", self.rollouts)
    }
}

/// The policy-value network, one batch per call, through its folded form (`nn::folded`): an
/// evaluator serves weights that no longer change. Small batches run channels-last, large ones
/// in the default layout: each the faster in `benches/inference.rs` (batch 1: 1.3-1.7x the
/// module with channels-last, 1.0-1.2x without; batch 64: the other way round).
pub struct NetworkEvaluator {
    pub network: Network,
    small_batches: FoldedNet,
    large_batches: FoldedNet,
}

/// Batches up to this size run channels-last.
const SMALL_BATCH: usize = 8;

impl NetworkEvaluator {
    pub fn new(network: Network) -> NetworkEvaluator {
        NetworkEvaluator {
            small_batches: FoldedNet::of(&network.net, true),
            large_batches: FoldedNet::of(&network.net, false),
            network,
        }
    }
}

/// Softmax of the logits of the legal moves.
pub fn legal_softmax(logits: &[f32], moves: &[Move], size: usize) -> Vec<f32> {
    let picked: Vec<f32> = moves
        .iter()
        .map(|&m| logits[policy_index(m, size)])
        .collect();
    let max = picked.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let exps: Vec<f32> = picked.iter().map(|&l| (l - max).exp()).collect();
    let sum: f32 = exps.iter().sum();
    exps.into_iter().map(|e| e / sum).collect()
}

impl Evaluator for NetworkEvaluator {
    fn evaluate(&mut self, requests: &[Request<'_>]) -> Vec<Evaluation> {
        let Some((first, _)) = requests.first() else {
            return vec![];
        };
        let size = first.variant().size;
        let positions: Vec<&Position> = requests.iter().map(|(p, _)| *p).collect();
        // the network's own output failing to convert is a libtorch fault, not bad input
        let (logits, values) = self
            .network
            .evaluate_with(&positions, &|x| {
                if positions.len() <= SMALL_BATCH {
                    self.small_batches.forward(x)
                } else {
                    self.large_batches.forward(x)
                }
            })
            .unwrap_or_else(|e| panic!("{e}"));
        let p = policy_size(size);
        requests
            .iter()
            .enumerate()
            .map(|(i, (_, moves))| Evaluation {
                priors: legal_softmax(&logits[i * p..(i + 1) * p], moves, size),
                value: values[i],
            })
            .collect()
    }

    fn describe(&self) -> String {
        let a = self.network.meta.architecture;
        format!(
            "network {}x{} (step {})",
            a.blocks, a.channels, self.network.meta.step
        )
    }
}
