//! Perft counts of every preset's start position, pinned, and the engine's move lists checked
//! against the independent slow reference at every node of the shallow trees.

mod reference;

use reference::RefBoard;
use tavlei_rules::perft::perft;
use tavlei_rules::{Move, Position, Variant};

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
    for name in tavlei_rules::presets::PRESET_NAMES {
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

/// Perft counted by the reference alone (chance nodes summed over rolls). The engine position
/// walks the same tree beside it only to be compared at every node: move lists, then each
/// child's board, side to move and berserk piece.
fn reference_perft(pos: &Position, board: &RefBoard, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    if board.needs_roll() {
        return (1..=6)
            .map(|roll| {
                let (mut p, mut b) = (pos.clone(), board.clone());
                p.set_roll(roll);
                b.roll = roll;
                reference_perft(&p, &b, depth)
            })
            .sum();
    }
    let moves = board.legal_moves();
    let mut engine: Vec<Move> = Vec::new();
    pos.legal_moves(&mut engine);
    engine.sort_by_key(|m| m.bits());
    let size = pos.variant().size;
    assert_eq!(
        engine.iter().map(|m| m.name(size)).collect::<Vec<_>>(),
        moves.iter().map(|m| m.name(size)).collect::<Vec<_>>(),
        "move lists differ in {pos:?}"
    );
    if depth == 1 {
        // the leaves are counted, not played: playing them would make this test minutes long
        return moves.len() as u64;
    }
    moves
        .iter()
        .map(|&mv| {
            let mut child = board.clone();
            child.play(mv);
            let mut engine_child = pos.clone();
            engine_child.play_unchecked(mv);
            let squares = 0..pos.variant().squares as u16;
            assert!(
                squares
                    .into_iter()
                    .all(|sq| engine_child.piece_at(sq) == child.piece_at(sq))
                    && engine_child.side_to_move() == child.side
                    && engine_child.berserk_piece().map(|sq| child.geo.coord(sq)) == child.berserk,
                "{} after {pos:?}: the boards differ",
                mv.name(size)
            );
            reference_perft(&engine_child, &child, depth - 1)
        })
        .sum()
}

#[test]
fn reference_generator_agrees_at_every_node() {
    for (name, counts) in PINNED {
        let v = Variant::load(name).expect("preset");
        // depth 3 where the tree is small enough for the slow generator, else 2
        let depth = if counts[1] < 10_000 { 3 } else { 2 };
        let start = Position::start(&v);
        let got = reference_perft(&start, &RefBoard::from_position(&start), depth);
        assert_eq!(
            got,
            counts[depth as usize - 1],
            "{name} reference perft({depth})"
        );
    }
}
