//! Search on concrete positions: it finds wins, sees threats, handles dice and reuses its tree.

mod common;

use common::*;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use tavlei::rules::Position;
use tavlei::search::single::think;
use tavlei::search::{RolloutEvaluator, SearchConfig, Tree, UniformEvaluator};

fn quiet() -> SearchConfig {
    SearchConfig {
        dirichlet_epsilon: 0.0,
        ..SearchConfig::default()
    }
}

fn best_move(pos: &Position, sims: u32, cfg: &SearchConfig) -> String {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let mut eval = RolloutEvaluator::new(4, 1);
    let mut tree = Tree::new(pos.clone());
    let d = think(&mut tree, &mut eval, sims, cfg, &mut rng).expect("a move");
    d.best.name(pos.variant().size)
}

/// Brandubh, defenders to move: the king on c1 escapes to the corner a1 at once.
const KING_CAN_ESCAPE: &str = "
    # . . . . . #
    . . . A . . .
    . . . . . A .
    . . . . A . .
    . . . . . . .
    . . . . . . A
    # . K . A . #";

#[test]
fn pure_mcts_takes_the_escape() {
    let pos = board(&variant("brandubh"), KING_CAN_ESCAPE, Defenders);
    assert_eq!(best_move(&pos, 200, &quiet()), "c1-a1");
}

#[test]
fn gumbel_search_finds_the_escape_with_few_simulations() {
    // with rollouts many moves look like sure wins; a zero-value evaluator leaves only the
    // escape itself at +1, so Gumbel's sigma(q) must single it out
    let pos = board(&variant("brandubh"), KING_CAN_ESCAPE, Defenders);
    let cfg = SearchConfig {
        gumbel: true,
        ..quiet()
    };
    let mut tree = Tree::new(pos.clone());
    let d = think(
        &mut tree,
        &mut UniformEvaluator,
        16,
        &cfg,
        &mut ChaCha8Rng::seed_from_u64(1),
    )
    .expect("a move");
    assert_eq!(d.best.name(7), "c1-a1");
}

/// Attackers to move: the king on a3 threatens a3-a1; only g2-a2 stops it.
const ESCAPE_THREAT: &str = "
    # . . . . . #
    . . . . . . .
    A . . . . . .
    . . . . . D .
    K . . . . . .
    . . . . . . A
    # . . . . . #";

#[test]
fn pure_mcts_blocks_an_escape_threat() {
    let pos = board(&variant("brandubh"), ESCAPE_THREAT, Attackers);
    assert_eq!(best_move(&pos, 1500, &quiet()), "g2-a2");
}

#[test]
fn visits_add_up_and_the_reused_tree_keeps_its_subtree() {
    let v = variant("tavlei");
    let mut tree = Tree::new(Position::start(&v));
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    let d = think(&mut tree, &mut UniformEvaluator, 100, &quiet(), &mut rng).expect("a move");
    assert_eq!(tree.root_visits(), 100);
    let child_visits: u32 = tree.root_children().iter().map(|c| c.visits).sum();
    assert_eq!(
        child_visits, 99,
        "every visit but the root's expansion goes to a child"
    );
    let total: f32 = d.policy.iter().map(|(_, p)| p).sum();
    assert!((total - 1.0).abs() < 1e-4);
    let kept = tree
        .root_children()
        .iter()
        .find(|c| c.mv == d.best)
        .map(|c| c.visits)
        .unwrap_or(0);
    tree.advance(d.best, None);
    assert_eq!(
        tree.root_visits(),
        kept,
        "the chosen child's subtree becomes the root"
    );
    assert_eq!(tree.root_position().ply(), 1);
}

#[test]
fn dice_positions_search_through_chance_nodes() {
    let v = variant("reconstruction_dice");
    let mut pos = Position::start(&v);
    pos.set_roll(2);
    let mut tree = Tree::new(pos.clone());
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let mut eval = RolloutEvaluator::new(1, 3);
    let d = think(&mut tree, &mut eval, 60, &quiet(), &mut rng).expect("a move");
    assert!(
        d.best.distance(v.size) <= 2,
        "the roll of 2 caps the move: {}",
        d.best.name(v.size)
    );
    // the next position needs a roll: the tree keeps the subtree of the roll that comes
    tree.advance(d.best, Some(5));
    assert_eq!(tree.root_position().roll(), 5);
    assert!(!tree.root_position().needs_roll());
}
