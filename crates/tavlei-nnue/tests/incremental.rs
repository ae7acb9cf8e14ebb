//! The accumulator a search carries move by move must equal the one recomputed from the board.

mod common;

use tavlei_nnue::{FeatureSet, Network};
use tavlei_rules::piece::EMPTY;
use tavlei_rules::presets::PRESET_NAMES;
use tavlei_rules::Variant;

/// On random games of every preset, `update` from the previous accumulator gives exactly the
/// accumulator (and the score) of a full `refresh`; the child accumulator is reused from two
/// plies earlier, as a search's stack reuses them. King moves and captures must occur.
#[test]
fn incremental_update_equals_refresh_on_random_games_of_every_preset() {
    let (mut king_moves, mut captures, mut quiet) = (0, 0, 0);
    for (p, name) in PRESET_NAMES.iter().enumerate() {
        let variant = Variant::load(name).unwrap();
        // width 40: not a whole number of vector chunks, so the padding is exercised too
        let float = common::random_float(common::meta(&variant, 40, 4), p as u64);
        let net = Network::quantise(&float).unwrap();
        for game in 0..4u64 {
            let steps = common::random_game(&variant, 1000 * p as u64 + game, 100);
            let mut accs = [net.new_accumulator(), net.new_accumulator()];
            net.refresh(&variant.start, &mut accs[0]);
            let mut fresh = net.new_accumulator();
            for (ply, (before, after, side)) in steps.iter().enumerate() {
                let [a, b] = &mut accs;
                let (parent, child) = if ply % 2 == 0 { (&*a, b) } else { (&*b, a) };
                net.update(parent, before, after, child);
                net.refresh(after, &mut fresh);
                assert_eq!(*child, fresh, "{name} game {game} ply {ply}");
                assert_eq!(child.values(), fresh.values());
                assert_eq!(net.evaluate(child, *side), net.evaluate(&fresh, *side));
                let pieces = |c: &[u8]| c.iter().filter(|&&x| x != EMPTY).count();
                if FeatureSet::king_square(before) != FeatureSet::king_square(after) {
                    king_moves += 1;
                } else if pieces(after) < pieces(before) {
                    captures += 1;
                } else {
                    quiet += 1;
                }
            }
        }
    }
    assert!(
        king_moves > 100 && captures > 100 && quiet > 1000,
        "{king_moves} {captures} {quiet}"
    );
}
