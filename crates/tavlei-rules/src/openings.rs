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

    #[test]
    fn dice_variants_have_no_fixed_openings() {
        let start = Position::start(&Variant::load("reconstruction_dice").expect("preset"));
        assert!(distinct_openings(&start, 1).is_none());
    }
}
