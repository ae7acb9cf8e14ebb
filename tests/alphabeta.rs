//! The alpha-beta agent: forced wins found at `ab:3` on two presets, wins taken at once, escapes
//! blocked, berserk chains and dice handled, limits honoured, late move reductions, legal moves
//! on random positions, and the shipped config equal to the defaults.

#[path = "../crates/tavlei-rules/tests/common/mod.rs"]
mod common;

use std::time::Duration;

use common::*;
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tavlei::config::ConfigError;
use tavlei::rules::presets::PRESET_NAMES;
use tavlei::rules::{Move, Position, Side, Variant};
use tavlei::search::alphabeta::{
    is_quiet, AbResult, AlphaBeta, AlphaBetaConfig, Limit, WIN, WIN_BOUND,
};

/// An agent with a small table, so that many can be made quickly.
fn agent(seed: u64) -> AlphaBeta {
    let mut config = AlphaBetaConfig::default();
    config.search.tt_megabytes = 1;
    AlphaBeta::new(config, seed)
}

fn search(pos: &Position, limit: Limit) -> AbResult {
    agent(7).search(pos, limit)
}

fn legal_moves(pos: &Position) -> Vec<Move> {
    let mut moves = Vec::new();
    pos.legal_moves(&mut moves);
    moves
}

fn name(pos: &Position, mv: Option<Move>) -> String {
    mv.map_or("none".into(), |m| m.name(pos.variant().size))
}

fn after(pos: &Position, mv: Move) -> Position {
    let mut next = pos.clone();
    next.play_unchecked(mv);
    next
}

fn won_by(pos: &Position, side: Side) -> bool {
    pos.outcome().is_some_and(|o| o.winner == Some(side))
}

/// Whether `side`, to move, wins with its next move.
fn wins_now(pos: &Position, side: Side) -> bool {
    pos.side_to_move() == side
        && legal_moves(pos)
            .into_iter()
            .any(|mv| won_by(&after(pos, mv), side))
}

/// Brute force, independent of the search: after `first`, every reply lets the mover win at
/// once (or the reply itself loses).
fn forces_win_in_three(pos: &Position, first: Move) -> bool {
    let side = pos.side_to_move();
    let next = after(pos, first);
    if won_by(&next, side) {
        return true;
    }
    if next.outcome().is_some() || next.side_to_move() == side {
        return false;
    }
    legal_moves(&next).into_iter().all(|reply| {
        let third = after(&next, reply);
        won_by(&third, side) || (third.outcome().is_none() && wins_now(&third, side))
    })
}

/// Whether any first move forces a win in three plies (brute force).
fn has_win_in_three(pos: &Position) -> bool {
    legal_moves(pos)
        .into_iter()
        .any(|mv| forces_win_in_three(pos, mv))
}

// ---------------------------------------------------------------- wins and defence

#[test]
fn takes_a_win_in_one_at_once() {
    // defenders to move: the king walks to a7 along the a-file
    let pos = setup(
        "brandubh",
        "
        7 # . . . . . #
        6 . . . A . . .
        5 K . . . . A .
        4 . . . + . . .
        3 A . . D . . A
        2 . . . . . . .
        1 # . A . . . #",
        Defenders,
    );
    let r = search(&pos, Limit::Depth(3));
    assert_eq!(name(&pos, r.best), "a5-a7", "{r:?}");
    assert_eq!(r.score, WIN - 1);
    assert_eq!(r.pv.len(), 1);
}

#[test]
fn ab3_finds_a_corner_fork_on_copenhagen() {
    // the king reaches an edge with free lines to two corners; one attacker move blocks one
    let pos = setup("copenhagen", COPENHAGEN_FORKS, Defenders);
    assert!(!wins_now(&pos, Defenders), "no win in one here");
    assert!(has_win_in_three(&pos));
    let r = search(&pos, Limit::Depth(3));
    let best = r.best.expect("a move");
    assert_eq!(r.score, WIN - 3, "{r:?}");
    assert!(
        forces_win_in_three(&pos, best),
        "{} does not force the win",
        name(&pos, Some(best))
    );
    assert_eq!(r.pv.len(), 3, "{r:?}");
    assert_eq!(r.depth, 3);
}

/// The king at c5 reaches a5, c1 or c11, each with free lines to two corners.
const COPENHAGEN_FORKS: &str = "
    11 # . . . . . . . . . #
    10 . . . . . . . . . . .
     9 . . . . A . A . . . .
     8 . . . . . . . . . . .
     7 . . . . . . . . . . .
     6 . . . . . + . . A . .
     5 . . K . . . . . . . .
     4 . . . D . . . . . . .
     3 . . . . . . . . . . .
     2 . . . . . . . A . . .
     1 # . . . . . . . . . #";

/// Depth 1 with a quiescence search of `quiescence` plies, the king's escape threats searched
/// or not.
fn depth_one(pos: &Position, quiescence: u32, escape_threats: bool) -> AbResult {
    let mut config = AlphaBetaConfig::default();
    config.search.tt_megabytes = 1;
    config.search.quiescence = quiescence;
    config.search.escape_threats = escape_threats;
    AlphaBeta::new(config, 7).search(pos, Limit::Depth(1))
}

#[test]
fn escape_threats_make_attackers_block_in_quiescence() {
    // depth 1 plays the king's move to a fork; only at the leaf, attackers to move, does the
    // quiescence search see that standing still (or taking a taflman) lets him out
    let pos = setup("copenhagen", COPENHAGEN_FORKS, Defenders);
    let seeing = depth_one(&pos, 4, true);
    assert!(seeing.score >= WIN_BOUND, "{seeing:?}");
    let best = seeing.best.expect("a move");
    assert!(
        forces_win_in_three(&pos, best),
        "{} does not force the win",
        name(&pos, Some(best))
    );
    let blind = depth_one(&pos, 4, false);
    assert!(blind.score < WIN_BOUND, "{blind:?}");
}

#[test]
fn escape_threats_find_the_kings_fork_in_quiescence() {
    // attackers to move cannot stop all three forks (a depth-4 search proves the loss); at
    // depth 1 every leaf has the defenders to move, and only their king's forks, searched in
    // quiescence, show it
    let pos = setup("copenhagen", COPENHAGEN_FORKS, Attackers);
    let proof = search(&pos, Limit::Depth(4));
    assert!(proof.score <= -WIN_BOUND, "{proof:?}");
    let seeing = depth_one(&pos, 4, true);
    assert!(seeing.score <= -WIN_BOUND, "{seeing:?}");
    let blind = depth_one(&pos, 4, false);
    assert!(blind.score > -WIN_BOUND, "{blind:?}");
}

#[test]
fn ab3_finds_a_king_capture_in_two_moves_on_brandubh() {
    let pos = setup("brandubh", BRANDUBH_CAPTURE_IN_TWO, Attackers);
    assert!(!wins_now(&pos, Attackers), "no win in one here");
    assert!(has_win_in_three(&pos));
    let r = search(&pos, Limit::Depth(3));
    let best = r.best.expect("a move");
    assert_eq!(r.score, WIN - 3, "{r:?}");
    assert!(
        forces_win_in_three(&pos, best),
        "{} does not force the win",
        name(&pos, Some(best))
    );
}

/// Attackers to move win in two moves (found by brute force over positions from random games).
const BRANDUBH_CAPTURE_IN_TWO: &str = "
    7 # . A . . A #
    6 A . . K . A .
    5 . . . . . . D
    4 . . . + . . .
    3 . . . A D D .
    2 . . A . . . .
    1 # . D . . A #";

#[test]
fn blocks_a_one_move_escape() {
    // attackers to move; the king threatens i1 down the i-file, and only g2 can block it
    let pos = setup("tavlei", TAVLEI_ESCAPE_TO_BLOCK, Attackers);
    assert!(wins_now(&after_pass(&pos), Defenders), "the threat is real");
    let r = search(&pos, Limit::Depth(2));
    let best = r.best.expect("a move");
    let next = after(&pos, best);
    assert!(
        !wins_now(&next, Defenders),
        "{} leaves the escape open",
        name(&pos, Some(best))
    );
    assert!(r.score > -WIN_BOUND, "{r:?}");
}

#[test]
fn late_move_reductions_keep_every_win_in_five_a_full_search_proves() {
    // Brandubh positions from random games where the full search at depth 5 proves a win in
    // five plies: with every quiet move after the first reduced as far as the depth allows, the
    // reduced search one ply deeper still proves it
    let mut found = 0;
    for seed in 0..300u64 {
        let pos = random_position("brandubh", seed, 10 + (seed % 40) as usize);
        let full = search(&pos, Limit::Depth(5));
        if full.score != WIN - 5 {
            continue;
        }
        found += 1;
        let reduced = reducing(4, 1).search(&pos, Limit::Depth(6));
        assert_eq!(
            reduced.score,
            WIN - 5,
            "seed {seed}: {reduced:?} against {full:?}"
        );
        if found == 10 {
            break;
        }
    }
    assert!(
        found >= 5,
        "only {found} wins in five among the random positions"
    );
}

/// Attackers to move; the king threatens i1 down the i-file, and only g2 can block it.
const TAVLEI_ESCAPE_TO_BLOCK: &str = "
    9 # . . A A A . . #
    8 . . . . A . . . .
    7 . . . . D . . . .
    6 A . . . . . . . D
    5 A A D . + . . . .
    4 A . . . D . . . K
    3 . . . . D . . . .
    2 . . . . . . A . .
    1 # . . A A A . . #";

/// An agent whose quiet moves after the first `start` at a node are searched `plies` shallower
/// first (late move reductions).
fn reducing(plies: u32, start: u32) -> AlphaBeta {
    let mut config = AlphaBetaConfig::default();
    config.search.tt_megabytes = 1;
    config.search.late_move_reduction = plies;
    config.search.late_move_start = start;
    AlphaBeta::new(config, 7)
}

#[test]
fn late_move_reductions_reach_the_same_depth_with_fewer_nodes() {
    let pos = Position::start(&variant("copenhagen"));
    let full = search(&pos, Limit::Depth(4));
    let reduced = reducing(1, 4).search(&pos, Limit::Depth(4));
    assert_eq!(reduced.depth, 4);
    assert!(
        reduced.nodes * 4 < full.nodes * 3,
        "{} nodes reduced against {} in full",
        reduced.nodes,
        full.nodes
    );
    assert_eq!(reducing(0, 1).search(&pos, Limit::Depth(4)), full);
}

#[test]
fn late_move_reductions_keep_forced_wins_and_blocks() {
    // every quiet move after the first reduced as far as the depth allows: the tactics above
    // still hold
    for (preset, board, side) in [
        ("copenhagen", COPENHAGEN_FORKS, Defenders),
        ("brandubh", BRANDUBH_CAPTURE_IN_TWO, Attackers),
    ] {
        let pos = setup(preset, board, side);
        let r = reducing(4, 1).search(&pos, Limit::Depth(5));
        assert_eq!(r.score, WIN - 3, "{preset}: {r:?}");
        assert!(
            forces_win_in_three(&pos, r.best.expect("a move")),
            "{preset}: {r:?}"
        );
    }
    let pos = setup("tavlei", TAVLEI_ESCAPE_TO_BLOCK, Attackers);
    let r = reducing(4, 1).search(&pos, Limit::Depth(4));
    let next = after(&pos, r.best.expect("a move"));
    assert!(!wins_now(&next, Defenders), "{r:?} leaves the escape open");
}

#[test]
fn quiescence_sees_the_recapture_a_depth_one_leaf_misses() {
    // defenders to move: h9-d9 takes c9 (against b9), but g8-d8 then takes d9 (against d10),
    // a defender (worth two attackers on Copenhagen) for an attacker
    let pos = setup(
        "copenhagen",
        "
        11 # . . . . . . . . . #
        10 . . . A . . . . . . .
         9 . D A . . . . D . . .
         8 . . . . . . A . . . .
         7 . . . . . D . . . . .
         6 . . . . D K D . . . .
         5 . . . . . D . . . . .
         4 . . . . . . . . . . .
         3 . . . . . . . . . . .
         2 . . . . . . . . . . .
         1 # . . . . . . . . . #",
        Defenders,
    );
    let take = legal_moves(&pos)
        .into_iter()
        .find(|&mv| name(&pos, Some(mv)) == "h9-d9")
        .expect("h9-d9 is legal");
    let taken = after(&pos, take);
    assert_eq!(taken.count(Side::Attackers), 2, "h9-d9 captures c9");
    let retaken = legal_moves(&taken)
        .into_iter()
        .find(|&mv| name(&taken, Some(mv)) == "g8-d8")
        .map(|mv| after(&taken, mv))
        .expect("g8-d8 is legal");
    assert_eq!(
        retaken.count(Side::Defenders),
        pos.count(Side::Defenders) - 1,
        "g8-d8 recaptures"
    );

    // the capture makes the position one a quiescence search plays on from; the start is quiet
    assert!(!is_quiet(&pos), "h9-d9 captures");
    assert!(is_quiet(&Position::start(pos.variant())));
    let blind = depth_one(&pos, 0, false);
    assert_eq!(name(&pos, blind.best), "h9-d9", "{blind:?}");
    let seeing = depth_one(&pos, 4, false);
    assert_ne!(name(&pos, seeing.best), "h9-d9", "{seeing:?}");
    assert!(seeing.score < blind.score, "{seeing:?} {blind:?}");
    // the search that sees the recapture by depth agrees
    let deeper = search(&pos, Limit::Depth(2));
    assert_ne!(name(&pos, deeper.best), "h9-d9", "{deeper:?}");
}

#[test]
fn quiescence_beyond_its_bound_is_refused() {
    let text = std::fs::read_to_string("configs/alphabeta.toml")
        .expect("reads")
        .replace("quiescence = 0", "quiescence = 33");
    match AlphaBetaConfig::parse(&text, "deep.toml") {
        Err(e @ ConfigError::Invalid { .. }) => {
            assert!(e.to_string().contains("quiescence"), "{e}")
        }
        other => panic!("expected an invalid setting, got {other:?}"),
    }
    let shipped = AlphaBetaConfig::load("configs/alphabeta/quiescence.toml")
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(shipped.search.quiescence, 4);
}

/// The same board with the other side to move.
fn after_pass(pos: &Position) -> Position {
    Position::from_cells(pos.variant(), pos.cells(), pos.side_to_move().opponent())
        .expect("same board")
}

// ---------------------------------------------------------------- rules that shape the search

#[test]
fn berserk_chain_keeps_the_point_of_view() {
    // g2-c2 captures c3 against c4 and keeps the turn; c2-c1 then takes the king against the
    // corner (a commander's capture). Both plies are the attackers'.
    let pos = setup(
        "berserk",
        "
        11 # . . . . . . . . . #
        10 . . . . . . . . . . .
         9 . . . . . . . . . . .
         8 . . . . . . . . . . .
         7 . . . . . . . . . . .
         6 . . . . . + . . . . .
         5 . . . . . . . . . . .
         4 . . A . . . . . . . .
         3 . . D . . . . . . . .
         2 . . . . . . C . . . .
         1 # K . . . . . . . . #",
        Attackers,
    );
    assert!(!wins_now(&pos, Attackers));
    let r = search(&pos, Limit::Depth(2));
    assert_eq!(name(&pos, r.best), "g2-c2", "{r:?}");
    assert_eq!(r.score, WIN - 2, "{r:?}");
    let line: Vec<String> = r.pv.iter().map(|&m| name(&pos, Some(m))).collect();
    assert_eq!(line, ["g2-c2", "c2-c1"]);
}

#[test]
fn dice_roots_average_the_six_rolls() {
    // the king is five squares from a1 and from a11 on free lines: rolls 5 and 6 win at once
    let pos = setup(
        "reconstruction_dice",
        "
        11 # . . . . . . . . . #
        10 . . . . . . . . . . .
         9 . . . . . . . . . . .
         8 . . . . . . A . . . .
         7 . . . . . . . . . . .
         6 K . . . . + . . . . .
         5 . . . . . . . . . . .
         4 . . . . . . . D . . .
         3 . . . . A . . . . . .
         2 . . . . . . . . . . .
         1 # . . . . . . . . . #",
        Defenders,
    );
    assert!(pos.needs_roll());
    let r = search(&pos, Limit::Depth(1));
    assert_eq!(r.best, None, "no move before the roll");
    let expected = WIN / 3;
    assert!(
        (r.score - expected).abs() < 20_000,
        "two rolls in six win: {} is not about {expected}",
        r.score
    );
    // with the roll known, the search plays the escape or not
    let mut six = pos.clone();
    six.set_roll(6);
    assert_eq!(search(&six, Limit::Depth(2)).score, WIN - 1);
    let mut two = pos.clone();
    two.set_roll(2);
    let r = search(&two, Limit::Depth(2));
    assert!(r.best.is_some() && r.score < WIN_BOUND, "{r:?}");
}

#[test]
fn depth_one_plays_a_legal_move_on_every_preset() {
    for &preset in PRESET_NAMES {
        let v = variant(preset);
        let mut pos = Position::start(&v);
        if pos.needs_roll() {
            pos.set_roll(3);
        }
        let r = search(&pos, Limit::Depth(1));
        let best = r.best.unwrap_or_else(|| panic!("{preset}: no move"));
        assert!(legal_moves(&pos).contains(&best), "{preset}: illegal move");
        assert_eq!(r.depth, 1, "{preset}");
        assert!(r.score.abs() < WIN_BOUND, "{preset}: {r:?}");
    }
}

#[test]
fn a_finished_game_has_no_move() {
    let pos = setup(
        "brandubh",
        "
        7 K . . . . . #
        6 . . . A . . .
        5 . . . . . . .
        4 . . . + . . .
        3 . . . D . . .
        2 . . . . . . .
        1 # . A . . . #",
        Attackers,
    );
    let r = search(&pos, Limit::Depth(3));
    assert_eq!((r.best, r.score), (None, -WIN));
}

// ---------------------------------------------------------------- limits and reproducibility

#[test]
fn a_time_limit_returns_a_searched_move() {
    let pos = Position::start(&variant("copenhagen"));
    let r = search(&pos, Limit::Time(Duration::from_millis(50)));
    assert!(r.depth >= 1, "{r:?}");
    assert!(legal_moves(&pos).contains(&r.best.expect("a move")));
}

#[test]
fn a_node_budget_is_reproducible_and_stops_deepening() {
    let pos = Position::start(&variant("tavlei"));
    let a = agent(3).search(&pos, Limit::Nodes(3_000));
    let b = agent(3).search(&pos, Limit::Nodes(3_000));
    assert_eq!(a, b);
    assert!(a.depth >= 1 && a.depth < 10, "{a:?}");
    let deeper = agent(3).search(&pos, Limit::Depth(a.depth));
    assert!(
        deeper.nodes <= a.nodes,
        "the budget covered depth {}",
        a.depth
    );
}

#[test]
fn seeds_break_ties_reproducibly() {
    // at the symmetric start many moves score the same; the seed picks among them
    let pos = Position::start(&variant("brandubh"));
    let picks: Vec<Option<Move>> = (0..8)
        .map(|seed| agent(seed).search(&pos, Limit::Depth(1)).best)
        .collect();
    let again: Vec<Option<Move>> = (0..8)
        .map(|seed| agent(seed).search(&pos, Limit::Depth(1)).best)
        .collect();
    assert_eq!(picks, again);
    let mut distinct = picks.clone();
    distinct.sort_by_key(|m| m.map(|m| m.bits()));
    distinct.dedup();
    assert!(
        distinct.len() > 1,
        "every seed chose the same move: {picks:?}"
    );
}

/// The opening noise moves a static evaluation by at most its amplitude, the same for the same
/// game seed and position, and differently for other games; without it nothing moves.
#[test]
fn opening_noise_is_bounded_and_drawn_from_the_game_and_the_position() {
    let mut plain = agent(1);
    let mut noisy = agent(1);
    let mut other_game = agent(1);
    noisy.vary(11, 50);
    other_game.vary(12, 50);
    let mut differs = 0;
    for seed in 0..40 {
        let pos = random_position("copenhagen", seed, 6);
        let base = plain.evaluate(&pos);
        let a = noisy.evaluate(&pos);
        assert!((a - base).abs() <= 50, "{a} vs {base}");
        assert_eq!(
            noisy.evaluate(&pos),
            a,
            "the same offset for the same game and position"
        );
        differs += usize::from(other_game.evaluate(&pos) != a);
    }
    assert!(
        differs >= 30,
        "another game draws other offsets ({differs} of 40)"
    );
    noisy.vary(11, 0);
    let pos = random_position("copenhagen", 3, 6);
    assert_eq!(noisy.evaluate(&pos), plain.evaluate(&pos));
}

#[test]
fn values_lie_in_the_unit_interval() {
    let ab = agent(0);
    assert_eq!(ab.value(WIN - 5), 1.0);
    assert_eq!(ab.value(-(WIN - 5)), -1.0);
    assert_eq!(ab.value(0), 0.0);
    let v = ab.value(300);
    assert!(v > 0.0 && v < 1.0);
    assert!(ab.value(-300) < 0.0);
}

// ---------------------------------------------------------------- config

#[test]
fn the_shipped_config_is_the_default_and_documents_every_field() {
    let config = AlphaBetaConfig::load("configs/alphabeta.toml").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(config, AlphaBetaConfig::default());
    let text = std::fs::read_to_string("configs/alphabeta.toml").expect("reads");
    let lines: Vec<&str> = text.lines().collect();
    for (i, line) in lines.iter().enumerate() {
        if line.contains(" = ") && !line.starts_with('#') {
            assert!(
                i > 0 && lines[i - 1].starts_with('#'),
                "`{line}` has no comment above it"
            );
        }
    }
}

#[test]
fn config_errors_name_the_file_and_line() {
    let text = std::fs::read_to_string("configs/alphabeta.toml")
        .expect("reads")
        .replace("king_routes = 40", "king_rutes = 40");
    let line = text
        .lines()
        .position(|l| l.starts_with("king_rutes"))
        .expect("edited")
        + 1;
    match AlphaBetaConfig::parse(&text, "my.toml") {
        Err(e @ ConfigError::Syntax { .. }) => {
            let msg = e.to_string();
            assert!(
                msg.contains("my.toml") && msg.contains(&format!("line {line}")),
                "{msg}"
            );
            assert!(msg.contains("king_rutes"), "{msg}");
        }
        other => panic!("expected a parse error, got {other:?}"),
    }
    let bad = std::fs::read_to_string("configs/alphabeta.toml")
        .expect("reads")
        .replace("value_scale = 600.0", "value_scale = -1.0");
    assert!(matches!(
        AlphaBetaConfig::parse(&bad, "bad.toml"),
        Err(ConfigError::Invalid { .. })
    ));
    assert!(matches!(
        AlphaBetaConfig::load("configs/no-such-file.toml"),
        Err(ConfigError::Read { .. })
    ));
}

// ---------------------------------------------------------------- random positions

/// A position from a random game of `preset`, `plies` long at most (earlier if it ended).
fn random_position(preset: &str, seed: u64, plies: usize) -> Position {
    let v = Variant::load(preset).expect("preset");
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut pos = Position::start(&v);
    for _ in 0..plies {
        if pos.needs_roll() {
            pos.set_roll(rng.random_range(1..=6));
        }
        let moves = legal_moves(&pos);
        if moves.is_empty() {
            break;
        }
        let next = after(&pos, moves[rng.random_range(0..moves.len())]);
        if next.outcome().is_some() {
            break;
        }
        pos = next;
    }
    if pos.needs_roll() {
        pos.set_roll(rng.random_range(1..=6));
    }
    pos
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 40, ..ProptestConfig::default() })]

    /// What Texel's method fits on (`Heuristic::terms`) is the evaluation the search uses: the
    /// weights' dot product with the terms is the attackers' score before the clamp, up to the
    /// integer rounding of the defenders' value and of the pressure term.
    #[test]
    fn the_fitted_terms_are_the_evaluation(preset in 0..PRESET_NAMES.len(), seed: u64, plies in 0usize..80) {
        use tavlei::search::alphabeta::{EvalWeights, Heuristic, EVAL_LIMIT};
        let pos = random_position(PRESET_NAMES[preset], seed, plies);
        prop_assume!(pos.outcome().is_none() && pos.king().is_some());
        let weights = EvalWeights::default();
        let h = Heuristic::new(weights.clone(), pos.variant());
        let f = h.features(&pos);
        let dot: f64 = h.terms(&pos, &f).iter().zip(weights.to_array()).map(|(t, w)| t * w).sum();
        let score = f64::from(h.score(&pos, &f));
        let attackers = if pos.side_to_move() == Side::Defenders { -score } else { score };
        let clamped = dot.clamp(-f64::from(EVAL_LIMIT), f64::from(EVAL_LIMIT));
        let rounding = 1.0 + f64::from(f.defenders);
        prop_assert!((clamped - attackers).abs() <= rounding, "{dot} against {attackers}: {f:?}");
    }

    #[test]
    fn the_move_returned_is_legal(preset in 0..PRESET_NAMES.len(), seed: u64, plies in 0usize..80) {
        let pos = random_position(PRESET_NAMES[preset], seed, plies);
        let r = search(&pos, Limit::Depth(2));
        let moves = legal_moves(&pos);
        match r.best {
            Some(best) => prop_assert!(moves.contains(&best), "{pos:?}: {r:?}"),
            None => prop_assert!(moves.is_empty(), "{pos:?}: no move returned"),
        }
        if let Some(first) = r.pv.first() {
            prop_assert_eq!(Some(*first), r.best);
        }
    }

    /// Quiescence walks captures on every preset (berserk chains, dice, jumps) and still
    /// returns a legal move with a score a search can give.
    #[test]
    fn the_move_returned_with_quiescence_is_legal(preset in 0..PRESET_NAMES.len(), seed: u64, plies in 0usize..80) {
        let pos = random_position(PRESET_NAMES[preset], seed, plies);
        let mut config = AlphaBetaConfig::default();
        config.search.tt_megabytes = 1;
        config.search.quiescence = 6;
        let r = AlphaBeta::new(config, 7).search(&pos, Limit::Depth(2));
        let moves = legal_moves(&pos);
        match r.best {
            Some(best) => prop_assert!(moves.contains(&best), "{pos:?}: {r:?}"),
            None => prop_assert!(moves.is_empty(), "{pos:?}: no move returned"),
        }
        prop_assert!(r.score.abs() <= WIN, "{r:?}");
    }

    /// Late move reductions on every preset (berserk chains, dice, passes) still return a legal
    /// move with a score a search can give.
    #[test]
    fn the_move_returned_with_reductions_is_legal(preset in 0..PRESET_NAMES.len(), seed: u64, plies in 0usize..80) {
        let pos = random_position(PRESET_NAMES[preset], seed, plies);
        let r = reducing(2, 1).search(&pos, Limit::Depth(3));
        let moves = legal_moves(&pos);
        match r.best {
            Some(best) => prop_assert!(moves.contains(&best), "{pos:?}: {r:?}"),
            None => prop_assert!(moves.is_empty(), "{pos:?}: no move returned"),
        }
        prop_assert!(r.score.abs() <= WIN, "{r:?}");
    }
}

// ---------------------------------------------------------------- strength (run by hand)

/// `ab:2` against a uniformly random mover on Brandubh, 10 games on each side:
/// `cargo test --release --test alphabeta -- --ignored --nocapture`.
#[test]
#[ignore]
fn ab_against_a_random_mover_on_brandubh() {
    let v = variant("brandubh");
    for depth in [2, 3] {
        let mut score = [0.0f32; 2];
        for game in 0..20u64 {
            let ab_side = if game % 2 == 0 { Attackers } else { Defenders };
            let mut ab = agent(game);
            let mut rng = ChaCha8Rng::seed_from_u64(game);
            let mut pos = Position::start(&v);
            while pos.outcome().is_none() {
                let mv = if pos.side_to_move() == ab_side {
                    ab.search(&pos, Limit::Depth(depth)).best.expect("a move")
                } else {
                    let moves = legal_moves(&pos);
                    moves[rng.random_range(0..moves.len())]
                };
                pos.play_unchecked(mv);
            }
            let outcome = pos.outcome().expect("over");
            let points = match outcome.winner {
                Some(w) if w == ab_side => 1.0,
                Some(_) => 0.0,
                None => 0.5,
            };
            score[(game % 2) as usize] += points;
        }
        println!(
            "ab:{depth} vs random on brandubh: {} / 10 as attackers, {} / 10 as defenders",
            score[0], score[1]
        );
    }
}

// ---------------------------------------------------------------- the clock

/// An agent that looks at its node budget at every node, with or without skipping iterations
/// predicted to be wasted.
fn clocked(predict: bool) -> AlphaBeta {
    let mut config = AlphaBetaConfig::default();
    config.search.tt_megabytes = 1;
    config.search.check_every = 1;
    config.search.predict_iterations = predict;
    AlphaBeta::new(config, 7)
}

/// A Brandubh position whose best move changes from depth 2 to depth 3, with both searches.
fn changing_at_depth_three() -> (Position, AbResult, AbResult) {
    let pos = random_position("brandubh", 1, 11);
    let two = clocked(false).search(&pos, Limit::Depth(2));
    let three = clocked(false).search(&pos, Limit::Depth(3));
    assert_ne!(
        two.best, three.best,
        "the position no longer changes its mind"
    );
    (pos, two, three)
}

#[test]
fn an_interrupted_iteration_keeps_a_move_that_beat_the_previous_best() {
    let (pos, two, three) = changing_at_depth_three();
    // one node short of finishing depth 3: the new best has been searched, the iteration not
    let cut = clocked(false).search(&pos, Limit::Nodes(three.nodes - 1));
    assert_eq!(cut.depth, 2, "depth 3 was interrupted: {cut:?}");
    assert_eq!(
        name(&pos, cut.best),
        name(&pos, three.best),
        "depth 2 played {}",
        name(&pos, two.best)
    );
    assert_eq!(
        cut.pv.first(),
        cut.best.as_ref(),
        "the line starts with the move"
    );
}

#[test]
fn no_iteration_starts_whose_first_move_cannot_finish() {
    let (pos, _, three) = changing_at_depth_three();
    // one node past depth 3: depth 4's first move cannot finish, so it does not start; depth 3
    // starts (two iterations are too few to predict from: the growth alternates with the
    // depth's parity) and finishes
    let skipped = clocked(true).search(&pos, Limit::Nodes(three.nodes + 1));
    assert_eq!(
        (skipped.depth, skipped.nodes),
        (3, three.nodes),
        "{skipped:?}"
    );
    let started = clocked(false).search(&pos, Limit::Nodes(three.nodes + 1));
    assert_eq!(
        started.nodes,
        three.nodes + 1,
        "without prediction it starts"
    );
}
