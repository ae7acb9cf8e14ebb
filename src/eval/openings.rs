//! Openings for evaluation games drawn without replacement from the distinct openings of a
//! variant (`rules::openings`: one per position up to symmetry), so that a study's games are not
//! copies of each other by construction.

use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

use std::sync::{Arc, Mutex};

use crate::rules::openings::{distinct_openings, sample_openings};
use crate::rules::{Move, Position};
use crate::search::Evaluator;

/// The longest openings tried when shorter ones are too few.
pub const MAX_OPENING_PLIES: u32 = 4;

/// Openings drawn for a set of games.
#[derive(Clone, Debug, Default)]
pub struct DrawnOpenings {
    /// Plies of each opening.
    pub plies: u32,
    /// Distinct openings of that length (up to symmetry); 0 where they were sampled, not counted.
    pub available: usize,
    /// Sampled by walks, uniform or weighted by this policy (`None`: drawn from all of them).
    pub sampled_by: Option<String>,
    /// The drawn openings in the order games take them (game `i` takes `lines[i % len]`).
    pub lines: Vec<Vec<Move>>,
}

/// What a study says about its openings.
#[derive(Clone, Debug, Default, PartialEq, Serialize, serde::Deserialize)]
pub struct OpeningsUsed {
    /// Plies of each opening (0: random plies, as in dice variants).
    pub plies: u32,
    /// Distinct openings of that length up to symmetry (0: sampled, not counted).
    pub available: u64,
    /// How sampled openings were drawn: `uniform walks` or the policy's checkpoint (absent:
    /// drawn uniformly from all of them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampled_by: Option<String>,
}

impl DrawnOpenings {
    /// What a report says of these openings.
    pub fn used(&self) -> OpeningsUsed {
        OpeningsUsed {
            plies: self.plies,
            available: self.available as u64,
            sampled_by: self.sampled_by.clone(),
        }
    }
}

/// A policy that weights openings: each ply's move drawn in proportion to its prior (a
/// network's raw policy), so openings come as often as a player would make them.
#[derive(Clone)]
pub struct OpeningPolicy {
    name: String,
    evaluator: Arc<Mutex<Box<dyn Evaluator + Send>>>,
}

impl std::fmt::Debug for OpeningPolicy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "OpeningPolicy({})", self.name)
    }
}

impl OpeningPolicy {
    pub fn new(name: &str, evaluator: Box<dyn Evaluator + Send>) -> OpeningPolicy {
        OpeningPolicy {
            name: name.to_string(),
            evaluator: Arc::new(Mutex::new(evaluator)),
        }
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    fn weights(&self, pos: &Position, moves: &[Move]) -> Vec<f64> {
        let mut evaluator = self
            .evaluator
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        evaluator.evaluate(&[(pos, moves)])[0]
            .priors
            .iter()
            .map(|&p| f64::from(p))
            .collect()
    }
}

/// Enumerating every line costs about (legal moves at the start)^plies positions; beyond this
/// many, openings are sampled by walks instead (11x11 boards from 3 or 4 plies on).
const ENUMERATE_LIMIT: f64 = 5.0e6;

/// Walks per opening wanted before a sampler gives up on finding more distinct ones.
const WALKS_PER_OPENING: usize = 50;

/// `count` openings without replacement from the distinct `k`-ply openings of `start`, `k` the
/// smallest from `min_plies` (at least 1) up to `MAX_OPENING_PLIES` with at least `count` of them
/// (with fewer even then, all there are: games then share openings). Drawn uniformly from all of
/// them where enumerating them is affordable; otherwise, and always with a `policy`, by walks
/// from the start (`rules::openings::sample_openings`: uniform moves, or the policy's). `None`
/// where a variant has no fixed openings (dice).
pub fn draw_openings(
    start: &Position,
    count: u64,
    min_plies: u32,
    policy: Option<&OpeningPolicy>,
    seed: u64,
) -> Option<DrawnOpenings> {
    let mut plies = min_plies.max(1);
    let mut first = Vec::new();
    start.legal_moves(&mut first);
    loop {
        let enumerable =
            policy.is_none() && (first.len() as f64).powi(plies as i32) <= ENUMERATE_LIMIT;
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let (mut lines, available, sampled) = if enumerable {
            let mut lines = distinct_openings(start, plies)?;
            let available = lines.len();
            lines.shuffle(&mut rng);
            (lines, available, None)
        } else {
            let walks = (count as usize).saturating_mul(WALKS_PER_OPENING).max(1000);
            let mut weight = |pos: &Position, moves: &[Move]| match policy {
                Some(p) => p.weights(pos, moves),
                None => vec![1.0; moves.len()],
            };
            let lines =
                sample_openings(start, plies, count as usize, walks, &mut rng, &mut weight)?;
            let by = policy.map_or_else(|| "uniform walks".to_string(), |p| p.name().to_string());
            (lines, 0, Some(by))
        };
        if lines.len() as u64 >= count || plies >= MAX_OPENING_PLIES {
            lines.truncate(count.max(1) as usize);
            return Some(DrawnOpenings {
                plies,
                available,
                sampled_by: sampled,
                lines,
            });
        }
        plies += 1;
    }
}

/// The openings of `count` games or pairs of an evaluation: drawn without replacement from the
/// distinct openings of at least `opening_plies` plies (weighted by `policy` where one is given),
/// seeded by `seed`. `None` where games start with random plies instead: dice variants, and
/// `opening_plies` 0 (from the start position).
pub fn evaluation_openings(
    start: &Position,
    count: u64,
    opening_plies: u32,
    policy: Option<&OpeningPolicy>,
    seed: u64,
) -> Option<DrawnOpenings> {
    if opening_plies == 0 {
        return None;
    }
    draw_openings(start, count, opening_plies, policy, seed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Variant;
    use std::collections::HashSet;

    fn brandubh() -> Position {
        Position::start(&Variant::load("brandubh").expect("preset"))
    }

    #[test]
    fn openings_are_drawn_without_replacement_and_follow_the_seed() {
        let drawn = draw_openings(&brandubh(), 100, 2, None, 7).expect("no dice");
        assert_eq!(drawn.plies, 2);
        assert!(drawn.available >= 100, "{}", drawn.available);
        assert_eq!(drawn.lines.len(), 100);
        let distinct: HashSet<&Vec<Move>> = drawn.lines.iter().collect();
        assert_eq!(distinct.len(), 100, "no opening twice");
        let again = draw_openings(&brandubh(), 100, 2, None, 7).expect("no dice");
        assert_eq!(
            again.lines, drawn.lines,
            "the same seed draws the same openings"
        );
        let other = draw_openings(&brandubh(), 100, 2, None, 8).expect("no dice");
        assert_ne!(other.lines, drawn.lines, "another seed draws others");
    }

    #[test]
    fn longer_openings_when_short_ones_are_too_few() {
        // Brandubh has 5 one-move openings up to symmetry: 20 games need two moves
        let drawn = draw_openings(&brandubh(), 20, 1, None, 1).expect("no dice");
        assert_eq!((drawn.plies, drawn.lines.len()), (2, 20));
        let few = draw_openings(&brandubh(), 3, 1, None, 1).expect("no dice");
        assert_eq!((few.plies, few.available, few.lines.len()), (1, 5, 3));
    }

    /// A policy that puts all its weight on one first move.
    struct OnlyFirst(Move);

    impl Evaluator for OnlyFirst {
        fn evaluate(
            &mut self,
            requests: &[crate::search::Request<'_>],
        ) -> Vec<crate::search::Evaluation> {
            requests
                .iter()
                .map(|(pos, moves)| crate::search::Evaluation {
                    priors: moves
                        .iter()
                        .map(|&m| {
                            if pos.ply() > 0 || m == self.0 {
                                1.0
                            } else {
                                0.0
                            }
                        })
                        .collect(),
                    value: 0.0,
                })
                .collect()
        }

        fn describe(&self) -> String {
            "only-first".into()
        }
    }

    #[test]
    fn a_policy_weights_the_openings_it_draws() {
        let start = brandubh();
        let first_move = start.parse_move("d1-c1").expect("legal").mv;
        let policy = OpeningPolicy::new("only-first", Box::new(OnlyFirst(first_move)));
        let drawn = draw_openings(&start, 30, 3, Some(&policy), 3).expect("no dice");
        assert_eq!(drawn.sampled_by.as_deref(), Some("only-first"));
        assert_eq!(
            (drawn.plies, drawn.available, drawn.lines.len()),
            (3, 0, 30)
        );
        assert!(
            drawn.lines.iter().all(|l| l[0] == first_move),
            "{:?}",
            drawn.lines
        );
        let distinct: HashSet<&Vec<Move>> = drawn.lines.iter().collect();
        assert_eq!(distinct.len(), 30);
        // the report says how they were drawn
        assert_eq!(drawn.used().sampled_by.as_deref(), Some("only-first"));
    }

    #[test]
    fn long_openings_on_a_large_board_are_sampled_not_enumerated() {
        // Copenhagen has ~116 first moves: 4 plies would be ~10^8 lines to enumerate
        let start = Position::start(&Variant::load("copenhagen").expect("preset"));
        let drawn = draw_openings(&start, 50, 4, None, 5).expect("no dice");
        assert_eq!(drawn.sampled_by.as_deref(), Some("uniform walks"));
        assert_eq!((drawn.plies, drawn.lines.len()), (4, 50));
        let distinct: HashSet<&Vec<Move>> = drawn.lines.iter().collect();
        assert_eq!(distinct.len(), 50);
        for line in &drawn.lines {
            let mut pos = start.clone();
            for &mv in line {
                let mut legal = Vec::new();
                pos.legal_moves(&mut legal);
                assert!(legal.contains(&mv));
                pos.play_unchecked(mv);
            }
        }
        // and 2 plies are still drawn from all of them
        let short = draw_openings(&start, 50, 2, None, 5).expect("no dice");
        assert_eq!(short.sampled_by, None);
        assert!(short.available > 500, "{}", short.available);
    }
}
