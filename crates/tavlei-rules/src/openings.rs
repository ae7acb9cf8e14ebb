//! Openings up to symmetry: every sequence of `k` legal moves from a start position, one per
//! distinct resulting position, where two positions that a symmetry of the variant (one that maps
//! its special squares and its start position onto themselves) carries onto each other count as
//! one. Games started from them are distinct games, not mirror copies of each other.

use std::collections::HashSet;

use super::moves::Move;
use super::position::Position;
use super::rules::Dice;
use super::symmetry::Symmetry;

/// The symmetries that leave the variant's special squares and this start position unchanged.
fn symmetries_of(start: &Position) -> Vec<Symmetry> {
    start
        .variant()
        .symmetries
        .iter()
        .copied()
        .filter(|&s| start.transformed(s).hash() == start.hash())
        .collect()
}

/// The smallest hash of a position's images: the same for every position of one symmetry class.
fn class_key(pos: &Position, symmetries: &[Symmetry]) -> u64 {
    symmetries
        .iter()
        .map(|&s| pos.transformed(s).hash())
        .min()
        .unwrap_or(pos.hash())
}

/// Every `plies`-move opening from `start`, one per class of resulting positions, in move
/// generation order (the first sequence to reach a class represents it). Lines that end the game
/// before `plies` are left out. Dice variants have no fixed openings (a roll precedes each move):
/// `None`.
pub fn distinct_openings(start: &Position, plies: u32) -> Option<Vec<Vec<Move>>> {
    if start.needs_roll() || start.variant().rules.movement.dice != Dice::Off {
        return None;
    }
    let symmetries = symmetries_of(start);
    let mut seen = HashSet::new();
    let mut found = Vec::new();
    let mut line = Vec::with_capacity(plies as usize);
    walk(start, plies, &symmetries, &mut line, &mut seen, &mut found);
    Some(found)
}

/// Up to `count` distinct `plies`-move openings (one per class of resulting positions, as
/// `distinct_openings`) found by walking from `start`: each ply's move drawn in proportion to
/// `weight(position, legal moves)` (a policy's probabilities; all equal for a uniform draw), a
/// class already found or a line that ends the game drawn again, at most `walks` walks in all.
/// Where enumerating every line would take too long (large boards, long openings), and where
/// openings should be as likely as a player makes them. `None` for dice variants.
pub fn sample_openings(
    start: &Position,
    plies: u32,
    count: usize,
    walks: usize,
    rng: &mut impl rand::Rng,
    weight: &mut dyn FnMut(&Position, &[Move]) -> Vec<f64>,
) -> Option<Vec<Vec<Move>>> {
    if start.needs_roll() || start.variant().rules.movement.dice != Dice::Off {
        return None;
    }
    let symmetries = symmetries_of(start);
    let mut seen = HashSet::new();
    let mut found = Vec::new();
    let mut moves = Vec::new();
    'walks: for _ in 0..walks {
        if found.len() >= count {
            break;
        }
        let mut pos = start.clone();
        let mut line = Vec::with_capacity(plies as usize);
        for _ in 0..plies {
            pos.legal_moves(&mut moves);
            let weights = weight(&pos, &moves);
            let total: f64 = weights.iter().filter(|w| w.is_finite() && **w > 0.0).sum();
            if moves.is_empty() || weights.len() != moves.len() || total <= 0.0 {
                continue 'walks;
            }
            let mut x = rng.random::<f64>() * total;
            let mut pick = moves.len() - 1;
            for (i, &w) in weights.iter().enumerate() {
                if w.is_finite() && w > 0.0 {
                    if x < w {
                        pick = i;
                        break;
                    }
                    x -= w;
                }
            }
            let mv = moves[pick];
            pos.play_unchecked(mv);
            if pos.outcome().is_some() {
                continue 'walks;
            }
            line.push(mv);
        }
        if seen.insert(class_key(&pos, &symmetries)) {
            found.push(line);
        }
    }
    Some(found)
}

fn walk(
    pos: &Position,
    left: u32,
    symmetries: &[Symmetry],
    line: &mut Vec<Move>,
    seen: &mut HashSet<u64>,
    found: &mut Vec<Vec<Move>>,
) {
    if left == 0 {
        if seen.insert(class_key(pos, symmetries)) {
            found.push(line.clone());
        }
        return;
    }
    let mut moves = Vec::new();
    pos.legal_moves(&mut moves);
    for mv in moves {
        let mut next = pos.clone();
        next.play_unchecked(mv);
        if next.outcome().is_some() {
            continue;
        }
        line.push(mv);
        walk(&next, left - 1, symmetries, line, seen, found);
        line.pop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Variant;

    #[test]
    fn brandubhs_forty_first_moves_are_five_up_to_symmetry() {
        // the start is symmetric under all eight, and each arm of the cross gives the same moves
        // up to a mirror: its outer attacker sideways by 1 or 2 (a corner stops the third), its
        // inner one by 1, 2 or 3: 5 kinds of first move
        let start = Position::start(&Variant::load("brandubh").expect("preset"));
        let one = distinct_openings(&start, 1).expect("no dice");
        assert_eq!(one.len(), 5, "{one:?}");
        let two = distinct_openings(&start, 2).expect("no dice");
        assert!(two.len() > 100 && two.len() < 960, "{}", two.len());
        // no two openings reach positions that are images of each other
        let syms = symmetries_of(&start);
        let keys: HashSet<u64> = two
            .iter()
            .map(|line| {
                let mut p = start.clone();
                for &m in line {
                    p.play_unchecked(m);
                }
                class_key(&p, &syms)
            })
            .collect();
        assert_eq!(keys.len(), two.len());
    }

    #[test]
    fn an_asymmetric_start_keeps_its_mirror_openings_apart() {
        // Brandubh without one attacker: the start keeps only the mirror through that arm
        let text = crate::presets::preset_text("brandubh").expect("preset");
        let edited = text.replacen("\"# . . A . . #\"", "\"# . . . . . #\"", 1);
        assert_ne!(edited, text, "the preset's first rank changed");
        let v = Variant::from_toml(&edited, "edited brandubh").expect("a variant");
        let start = Position::start(&v);
        assert!(symmetries_of(&start).len() < 8);
        let one = distinct_openings(&start, 1).expect("no dice");
        assert!(one.len() > 5, "{}", one.len());
    }

    fn class_of(start: &Position, line: &[Move]) -> u64 {
        let mut p = start.clone();
        for &m in line {
            p.play_unchecked(m);
        }
        class_key(&p, &symmetries_of(start))
    }

    #[test]
    fn sampled_openings_are_distinct_follow_the_weights_and_the_seed() {
        use rand::SeedableRng;
        let start = Position::start(&Variant::load("brandubh").expect("preset"));
        let uniform = &mut |_: &Position, moves: &[Move]| vec![1.0; moves.len()];
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(4);
        let lines = sample_openings(&start, 2, 60, 10_000, &mut rng, uniform).expect("no dice");
        assert_eq!(lines.len(), 60);
        let classes: HashSet<u64> = lines.iter().map(|l| class_of(&start, l)).collect();
        assert_eq!(classes.len(), 60, "one opening per class");
        // every sampled class is one of the enumerated ones
        let all: HashSet<u64> = distinct_openings(&start, 2)
            .expect("no dice")
            .iter()
            .map(|l| class_of(&start, l))
            .collect();
        assert!(classes.is_subset(&all));
        // the same seed, the same openings
        let mut again = rand_chacha::ChaCha8Rng::seed_from_u64(4);
        let repeat = sample_openings(&start, 2, 60, 10_000, &mut again, uniform).expect("no dice");
        assert_eq!(repeat, lines);
        // a policy that allows only d1-c1 first: every opening starts with it (or its mirror
        // image, which the class keeps as the first line found)
        let first_move = start.parse_move("d1-c1").expect("legal").mv;
        let only = &mut |pos: &Position, moves: &[Move]| {
            moves
                .iter()
                .map(|&m| {
                    if pos.ply() > 0 || m == first_move {
                        1.0
                    } else {
                        0.0
                    }
                })
                .collect()
        };
        let lines = sample_openings(&start, 2, 20, 10_000, &mut rng, only).expect("no dice");
        assert_eq!(lines.len(), 20);
        assert!(lines.iter().all(|l| l[0] == first_move), "{lines:?}");
        // asking for more classes than exist stops at the walks' limit with what it found
        let few = sample_openings(&start, 1, 50, 2_000, &mut rng, uniform).expect("no dice");
        assert_eq!(few.len(), 5);
    }

    #[test]
    fn dice_variants_have_no_fixed_openings() {
        let start = Position::start(&Variant::load("reconstruction_dice").expect("preset"));
        assert!(distinct_openings(&start, 1).is_none());
    }
}
