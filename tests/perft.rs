//! Perft counts of every preset's start position, pinned, and the engine's move lists checked
//! against an independent slow generator at every node of the shallow trees.

mod reference;

use tavlei::rules::perft::perft;
use tavlei::rules::{Move, Position, Variant};

/// (variant, perft(1..)) measured once and pinned: a change in move generation shows here.
const PINNED: &[(&str, &[u64])] = &[
    ("tavlei", &[72, 3944, 285728, 15951824]),
    ("hnefatafl", &[116, 6788, 806344]),
    ("copenhagen", &[116, 6788, 806344]),
    ("fetlar", &[116, 6788, 806344]),
    ("skalk", &[116, 6788, 806344]),
    ("skalk_9", &[72, 3944, 285728, 15951824]),
    ("sea_tafl", &[80, 4400, 353200, 19913864]),
    ("sea_tafl_king4", &[80, 4400, 353200, 19913864]),
    ("sea_tafl_11", &[124, 7276, 899368]),
    ("berserk", &[116, 6792, 808076]),
    ("tablut", &[56, 4408, 248616, 19160008]),
    ("saami_tablut", &[72, 3944, 285728, 15951824]),
    ("saami_tablut_11", &[116, 6788, 806344]),
    ("tawlbwrdd", &[128, 7172, 922440]),
    ("brown", &[124, 7276, 920688]),
    ("old_tablut", &[72, 3944, 285728, 15951824]),
    ("reconstruction", &[116, 6788, 806344]),
    ("reconstruction_13", &[156, 20148, 3210320]),
    ("reconstruction_dice", &[536, 151296, 82183968]),
    ("brandubh", &[40, 960, 39512, 1007392]),
    ("alea_evangelii", &[580, 107492, 62185588]),
];

#[test]
fn every_preset_is_pinned() {
    for name in tavlei::rules::presets::PRESET_NAMES {
        assert!(
            PINNED.iter().any(|(n, _)| n == name),
            "{name} has no pinned perft"
        );
    }
}

#[test]
fn perft_matches_pinned_counts() {
    for (name, counts) in PINNED {
        let v = Variant::load(name).expect("preset");
        let start = Position::start(&v);
        for (i, &expected) in counts.iter().enumerate() {
            assert_eq!(
                perft(&start, i as u32 + 1),
                expected,
                "{name} perft({})",
                i + 1
            );
        }
    }
}

/// Perft counted with the reference generator alone (chance nodes summed over rolls).
fn reference_perft(pos: &Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    if pos.needs_roll() {
        return (1..=6)
            .map(|roll| {
                let mut rolled = pos.clone();
                rolled.set_roll(roll);
                reference_perft(&rolled, depth)
            })
            .sum();
    }
    let moves = reference::reference_moves(pos);
    let mut engine: Vec<Move> = Vec::new();
    pos.legal_moves(&mut engine);
    engine.sort_by_key(|m| m.bits());
    let size = pos.variant().size;
    assert_eq!(
        engine.iter().map(|m| m.name(size)).collect::<Vec<_>>(),
        moves.iter().map(|m| m.name(size)).collect::<Vec<_>>(),
        "move lists differ in {pos:?}"
    );
    moves
        .iter()
        .map(|&mv| {
            let mut child = pos.clone();
            child.play_unchecked(mv);
            reference_perft(&child, depth - 1)
        })
        .sum()
}

#[test]
fn reference_generator_agrees_at_every_node() {
    for (name, counts) in PINNED {
        let v = Variant::load(name).expect("preset");
        // depth 3 where the tree is small enough for the slow generator, else 2
        let depth = if counts[1] < 10_000 { 3 } else { 2 };
        let got = reference_perft(&Position::start(&v), depth);
        assert_eq!(
            got,
            counts[depth as usize - 1],
            "{name} reference perft({depth})"
        );
    }
}
