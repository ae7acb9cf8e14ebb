//! Openings for evaluation games drawn without replacement from the distinct openings of a
//! variant (`rules::openings`: one per position up to symmetry), so that a study's games are not
//! copies of each other by construction.

use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

use crate::rules::openings::distinct_openings;
use crate::rules::{Move, Position};

/// The longest openings tried when shorter ones are too few.
pub const MAX_OPENING_PLIES: u32 = 4;

/// Openings drawn for a set of games.
#[derive(Clone, Debug, Default)]
pub struct DrawnOpenings {
    /// Plies of each opening.
    pub plies: u32,
    /// Distinct openings of that length (up to symmetry).
    pub available: usize,
    /// The drawn openings in the order games take them (game `i` takes `lines[i % len]`).
    pub lines: Vec<Vec<Move>>,
}

/// What a study says about its openings.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, serde::Deserialize)]
pub struct OpeningsUsed {
    /// Plies of each opening (0: random plies, as in dice variants).
    pub plies: u32,
    /// Distinct openings of that length up to symmetry.
    pub available: u64,
}

impl DrawnOpenings {
    /// What a report says of these openings.
    pub fn used(&self) -> OpeningsUsed {
        OpeningsUsed {
            plies: self.plies,
            available: self.available as u64,
        }
    }
}

/// `count` openings without replacement from all distinct `k`-ply openings of `start`, `k` the
/// smallest from `min_plies` (at least 1) up to `MAX_OPENING_PLIES` with at least `count` of them
/// (with fewer even then, all of them: games then share openings). `None` where a variant has no
/// fixed openings (dice).
pub fn draw_openings(
    start: &Position,
    count: u64,
    min_plies: u32,
    seed: u64,
) -> Option<DrawnOpenings> {
    let mut plies = min_plies.max(1);
    let mut lines = distinct_openings(start, plies)?;
    while (lines.len() as u64) < count && plies < MAX_OPENING_PLIES {
        plies += 1;
        lines = distinct_openings(start, plies)?;
    }
    let available = lines.len();
    lines.shuffle(&mut ChaCha8Rng::seed_from_u64(seed));
    lines.truncate(count.max(1) as usize);
    Some(DrawnOpenings {
        plies,
        available,
        lines,
    })
}

/// The openings of `count` games or pairs of an evaluation: drawn without replacement from the
/// distinct openings of at least `opening_plies` plies, seeded by `seed`. `None` where games
/// start with random plies instead: dice variants, and `opening_plies` 0 (from the start position).
pub fn evaluation_openings(
    start: &Position,
    count: u64,
    opening_plies: u32,
    seed: u64,
) -> Option<DrawnOpenings> {
    if opening_plies == 0 {
        return None;
    }
    draw_openings(start, count, opening_plies, seed)
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
        let drawn = draw_openings(&brandubh(), 100, 2, 7).expect("no dice");
        assert_eq!(drawn.plies, 2);
        assert!(drawn.available >= 100, "{}", drawn.available);
        assert_eq!(drawn.lines.len(), 100);
        let distinct: HashSet<&Vec<Move>> = drawn.lines.iter().collect();
        assert_eq!(distinct.len(), 100, "no opening twice");
        let again = draw_openings(&brandubh(), 100, 2, 7).expect("no dice");
        assert_eq!(
            again.lines, drawn.lines,
            "the same seed draws the same openings"
        );
        let other = draw_openings(&brandubh(), 100, 2, 8).expect("no dice");
        assert_ne!(other.lines, drawn.lines, "another seed draws others");
    }

    #[test]
    fn longer_openings_when_short_ones_are_too_few() {
        // Brandubh has 5 one-move openings up to symmetry: 20 games need two moves
        let drawn = draw_openings(&brandubh(), 20, 1, 1).expect("no dice");
        assert_eq!((drawn.plies, drawn.lines.len()), (2, 20));
        let few = draw_openings(&brandubh(), 3, 1, 1).expect("no dice");
        assert_eq!((few.plies, few.available, few.lines.len()), (1, 5, 3));
    }
}
