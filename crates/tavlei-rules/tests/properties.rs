//! Invariants over random playouts of every preset, and parsers fed arbitrary text.

mod reference;

use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tavlei_rules::notation::{parse_move_text, parse_otn, position_to_otn};
use tavlei_rules::presets::PRESET_NAMES;
use tavlei_rules::rules::Repetition;
use tavlei_rules::{Move, Position, Side, Variant};

/// Plays a random game of `variant` for at most `plies`, calling `check` on every position.
fn random_walk(variant: &str, seed: u64, plies: usize, mut check: impl FnMut(&Position)) {
    let v = Variant::load(variant).expect("preset");
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut pos = Position::start(&v);
    let mut moves = Vec::new();
    for _ in 0..plies {
        if pos.needs_roll() {
            pos.set_roll(rng.random_range(1..=6));
        }
        check(&pos);
        pos.legal_moves(&mut moves);
        if moves.is_empty() {
            break;
        }
        pos.play_unchecked(moves[rng.random_range(0..moves.len())]);
    }
    check(&pos);
}

fn sorted_names(moves: &[Move], size: usize) -> Vec<String> {
    let mut names: Vec<String> = moves.iter().map(|m| m.name(size)).collect();
    names.sort();
    names
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn piece_counts_never_grow_and_hashes_stay_exact(variant in 0..PRESET_NAMES.len(), seed: u64) {
        let mut last = (u32::MAX, u32::MAX);
        random_walk(PRESET_NAMES[variant], seed, 400, |pos| {
            let counts = (pos.count(Side::Attackers), pos.count(Side::Defenders));
            assert!(counts.0 <= last.0 && counts.1 <= last.1, "pieces appeared in {pos:?}");
            last = counts;
            assert_eq!(pos.hash(), pos.compute_hash(), "incremental hash drifted in {pos:?}");
        });
    }

    #[test]
    fn engine_and_reference_generators_agree(variant in 0..PRESET_NAMES.len(), seed: u64) {
        random_walk(PRESET_NAMES[variant], seed, 150, |pos| {
            let mut engine = Vec::new();
            pos.legal_moves(&mut engine);
            let size = pos.variant().size;
            assert_eq!(sorted_names(&engine, size), sorted_names(&reference::reference_moves(pos), size), "in {pos:?}");
        });
    }

    #[test]
    fn otn_round_trips(variant in 0..PRESET_NAMES.len(), seed: u64) {
        random_walk(PRESET_NAMES[variant], seed, 200, |pos| {
            let otn = position_to_otn(pos);
            let back = parse_otn(pos.variant(), &otn, pos.side_to_move());
            // a position whose king was captured has no king and cannot be set up again
            if pos.king().is_some() {
                let back = back.expect("printed positions parse");
                assert_eq!(back.cells(), pos.cells());
                assert_eq!(position_to_otn(&back), otn);
            }
        });
    }

    #[test]
    fn symmetric_positions_have_symmetric_moves(variant in 0..PRESET_NAMES.len(), seed: u64) {
        let v = Variant::load(PRESET_NAMES[variant]).expect("preset");
        // the repetition ban depends on history, which an image does not carry
        if v.rules.end.repetition == Repetition::Illegal {
            return Ok(());
        }
        let size = v.size;
        random_walk(PRESET_NAMES[variant], seed, 120, |pos| {
            if pos.status().is_some() {
                return;
            }
            let mut moves = Vec::new();
            pos.legal_moves(&mut moves);
            for &sym in &v.symmetries {
                let image = pos.transformed(sym);
                let mut image_moves = Vec::new();
                image.legal_moves(&mut image_moves);
                let mapped: Vec<Move> = moves.iter().map(|m| m.transformed(sym, size)).collect();
                assert_eq!(sorted_names(&image_moves, size), sorted_names(&mapped, size), "{sym:?} of {pos:?}");
            }
        });
    }

    #[test]
    fn no_game_outlives_the_length_cap(variant in 0..PRESET_NAMES.len(), seed: u64) {
        let v = Variant::load(PRESET_NAMES[variant]).expect("preset");
        let cap = v.rules.end.max_plies;
        random_walk(PRESET_NAMES[variant], seed, cap as usize + 50, |pos| {
            assert!(pos.ply() <= cap, "ply {} beyond the cap {cap}", pos.ply());
        });
    }

    #[test]
    fn parsers_never_panic(text in "\\PC{0,40}", size in 7usize..=19) {
        let v = Variant::load("brandubh").expect("preset");
        let _ = parse_otn(&v, &text, Side::Attackers);
        let _ = parse_move_text(&text, size);
        let _ = Position::start(&v).parse_move(&text);
        let _ = Variant::from_toml(&text, "fuzz");
    }

    #[test]
    fn otn_like_strings_never_panic(text in "/([0-9tkcnTKCN]{0,8}/){0,9}") {
        let v = Variant::load("brandubh").expect("preset");
        let _ = parse_otn(&v, &text, Side::Defenders);
    }
}
