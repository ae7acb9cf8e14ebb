//! Search on concrete positions: it finds wins, sees threats, handles dice and reuses its tree.

#[path = "../crates/tavlei-rules/tests/common/mod.rs"]
mod common;

use common::*;
use std::collections::HashSet;

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use tavlei::rules::square::square_name;
use tavlei::rules::{Move, Position};
use tavlei::search::mcts::batch::evaluate_pending;
use tavlei::search::mcts::cache::{cache_key, EvalCache};
use tavlei::search::mcts::single::{run, think};
use tavlei::search::{
    Budget, ChildStats, Evaluation, Evaluator, Proof, Request, RolloutEvaluator, Search,
    SearchConfig, Step, Tree, UniformEvaluator,
};

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
    // escape itself at +1, so Gumbel's sigma(q) must single it out. The solver is off: with it
    // the escape proves the root at its expansion and no Gumbel plan is ever made
    let pos = board(&variant("brandubh"), KING_CAN_ESCAPE, Defenders);
    let mut moves = Vec::new();
    pos.legal_moves(&mut moves);
    assert_eq!(moves.len(), 9, "the king's moves: a1, b1, d1 and c2 to c7");
    let cfg = SearchConfig {
        gumbel: true,
        solver: false,
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
    assert_eq!(d.proof, None, "nothing is proven without the solver");
    // the visits are sequential halving's, 16 simulations over 9 actions: one each, then one
    // more for the best 4, then the best 2 share the last 3 (PUCT would pile them on the escape)
    let mut visits: Vec<u32> = tree.root_children().iter().map(|c| c.visits).collect();
    visits.sort_unstable_by(|a, b| b.cmp(a));
    assert_eq!(visits, [4, 3, 2, 2, 1, 1, 1, 1, 1]);
    let escape = tree
        .root_children()
        .into_iter()
        .find(|c| c.mv.name(7) == "c1-a1")
        .expect("the escape is a root child");
    assert_eq!(escape.visits, 4, "the escape survives every halving");
    // the target is the improved policy, softmax(logits + sigma(q)): sigma gives the escape
    // (c_visit + max visits) * c_scale = 54 more than any other move, nearly all the mass
    let share = d
        .policy
        .iter()
        .find(|(m, _)| m.name(7) == "c1-a1")
        .map_or(0.0, |&(_, p)| p);
    assert!(share > 0.999, "the improved policy: {share}");
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
fn immediate_wins_let_a_network_search_see_the_escape_it_must_stop() {
    // a value-free evaluator: only the one-ply check of escapes tells the moves apart
    let pos = board(&variant("brandubh"), ESCAPE_THREAT, Attackers);
    let cfg = SearchConfig {
        solver: false,
        immediate_wins: true,
        ..quiet()
    };
    for seed in 0..4 {
        let mut tree = Tree::new(pos.clone());
        let d = think(
            &mut tree,
            &mut UniformEvaluator,
            120,
            &cfg,
            &mut ChaCha8Rng::seed_from_u64(seed),
        )
        .expect("a move");
        assert_eq!(d.best.name(7), "g2-a2", "seed {seed}");
        let share = d
            .policy
            .iter()
            .find(|(m, _)| m.name(7) == "g2-a2")
            .map_or(0.0, |&(_, p)| p);
        assert!(share > 0.5, "the visits follow the block: {share}");
        assert_eq!(d.proof, None, "nothing is proven without the solver");
    }
}

#[test]
fn visits_add_up_and_the_reused_tree_keeps_its_subtree() {
    let v = variant("tavlei");
    let mut tree = Tree::new(Position::start(&v));
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    let d = think(&mut tree, &mut UniformEvaluator, 100, &quiet(), &mut rng).expect("a move");
    assert_eq!(
        tree.root_visits(),
        101,
        "the root's expansion is not a simulation"
    );
    let child_visits: u32 = tree.root_children().iter().map(|c| c.visits).sum();
    assert_eq!(child_visits, 100, "every simulation goes to a child");
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

/// Brandubh, attackers to move: the attacker on a2 has exactly two moves, a2-b2 and a2-a3.
const TWO_MOVES: &str = "
    # . . . . . #
    . . . . . . .
    . . . . . . .
    D . . K . . .
    . . . . . . .
    A . D . . . .
    # . . . . . #";

/// A made-up network: at the root it likes a2-b2 (prior 0.9) over a2-a3 (0.1), but the value
/// after a2-a3 is far better for the attackers (+0.9 against +0.3).
struct LowPriorHighQ;

impl Evaluator for LowPriorHighQ {
    fn evaluate(&mut self, requests: &[Request<'_>]) -> Vec<Evaluation> {
        requests
            .iter()
            .map(|(pos, moves)| {
                let at = |name: &str| {
                    let sq = sq(pos, name);
                    pos.piece_at(sq).is_some()
                };
                let size = pos.variant().size;
                let priors: Vec<f32> = if pos.side_to_move() == Attackers && at("a2") {
                    moves
                        .iter()
                        .map(|m| if m.name(size) == "a2-b2" { 0.9 } else { 0.1 })
                        .collect()
                } else {
                    vec![1.0 / moves.len().max(1) as f32; moves.len()]
                };
                // values are for the side to move (the defenders, after the attackers' move)
                let value = if at("a3") {
                    -0.9
                } else if at("b2") {
                    -0.3
                } else {
                    0.0
                };
                Evaluation { priors, value }
            })
            .collect()
    }

    fn describe(&self) -> String {
        "low prior, high q".into()
    }
}

#[test]
fn gumbel_picks_the_low_prior_move_whose_q_is_high() {
    let pos = board(&variant("brandubh"), TWO_MOVES, Attackers);
    let mut moves = Vec::new();
    pos.legal_moves(&mut moves);
    assert_eq!(moves.len(), 2, "the test position has two moves");
    let cfg = SearchConfig {
        gumbel: true,
        ..quiet()
    };
    // both moves get a simulation; the better one must win whatever the Gumbel noise says
    for seed in 0..12 {
        let mut tree = Tree::new(pos.clone());
        let d = think(
            &mut tree,
            &mut LowPriorHighQ,
            2,
            &cfg,
            &mut ChaCha8Rng::seed_from_u64(seed),
        )
        .expect("a move");
        assert_eq!(d.best.name(7), "a2-a3", "seed {seed}");
        assert_eq!(
            tree.root_visits(),
            3,
            "two simulations after the root's expansion"
        );
        let improved: f32 = d
            .policy
            .iter()
            .find(|(m, _)| m.name(7) == "a2-a3")
            .map(|&(_, p)| p)
            .unwrap_or(0.0);
        assert!(improved > 0.9, "the improved policy follows q: {improved}");
    }
}

#[test]
fn gumbel_never_spends_more_than_its_budget() {
    let v = variant("brandubh");
    let cfg = SearchConfig {
        gumbel: true,
        ..quiet()
    };
    for sims in [1, 5, 16, 33] {
        let mut tree = Tree::new(Position::start(&v));
        let mut rng = ChaCha8Rng::seed_from_u64(sims as u64);
        think(&mut tree, &mut UniformEvaluator, sims, &cfg, &mut rng).expect("a move");
        assert_eq!(tree.root_visits(), sims + 1);
    }
}

#[test]
fn a_rollout_search_tries_every_root_child_before_revisiting_one() {
    let v = variant("brandubh");
    let pos = Position::start(&v);
    let mut moves = Vec::new();
    pos.legal_moves(&mut moves);
    let n = moves.len() as u32;
    let mut search = Search::new(pos, SearchConfig::rollouts(), Budget::Nodes(n));
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    run(&mut search, &mut RolloutEvaluator::new(1, 4), &mut rng).expect("a move");
    let visits: Vec<u32> = search
        .tree()
        .root_children()
        .iter()
        .map(|c| c.visits)
        .collect();
    assert!(visits.iter().all(|&v| v == 1), "{visits:?}");
}

/// Brandubh, defenders to move: no escape at once, but the king wins in two: c4-a4 (or c4-c7,
/// c4-c1, c4-g4) opens two corners and the attackers can close only one.
const FORK: &str = "
    # . . . . . #
    . . . . A . .
    . . . . . . .
    . . K . . . .
    . . . . . . .
    . . . . . A .
    # . . . . . #";

/// Whether, after `mv`, every attacker reply leaves the king an escape at once.
fn forces_escape(pos: &Position, mv: Move) -> bool {
    let mut next = pos.clone();
    next.play_unchecked(mv);
    let mut replies = Vec::new();
    next.legal_moves(&mut replies);
    replies.iter().all(|&r| {
        let mut after = next.clone();
        after.play_unchecked(r);
        let mut king_moves = Vec::new();
        after.legal_moves(&mut king_moves);
        king_moves.iter().any(|&k| {
            let mut end = after.clone();
            end.play_unchecked(k);
            end.outcome().and_then(|o| o.winner) == Some(Defenders)
        })
    })
}

#[test]
fn the_solver_finds_a_forced_escape_in_two_and_plays_it() {
    let pos = board(&variant("brandubh"), FORK, Defenders);
    let mut moves = Vec::new();
    pos.legal_moves(&mut moves);
    assert!(
        moves.iter().all(|&m| {
            let mut p = pos.clone();
            p.play_unchecked(m);
            p.outcome().is_none()
        }),
        "no escape at once"
    );
    let budget = 3000;
    let searches: [(&str, SearchConfig, Box<dyn Evaluator>); 2] = [
        (
            "rollouts",
            SearchConfig::rollouts(),
            Box::new(RolloutEvaluator::new(1, 7)),
        ),
        ("uniform PUCT", quiet(), Box::new(UniformEvaluator)),
    ];
    for (name, cfg, mut eval) in searches {
        let mut search = Search::new(pos.clone(), cfg, Budget::Nodes(budget));
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let d = run(&mut search, eval.as_mut(), &mut rng).expect("a move");
        assert_eq!(d.proof, Some(Proof::Win), "{name}: the root is proven");
        assert!(
            d.simulations < budget,
            "{name}: a proven root stops the search early ({} simulations)",
            d.simulations
        );
        assert!(
            forces_escape(&pos, d.best),
            "{name}: {} does not force an escape",
            d.best.name(7)
        );
        let king = pos.king().expect("a king");
        assert_eq!(square_name(d.best.from(), 7), square_name(king, 7));
    }
}

#[test]
fn solver_stops_off_spends_the_whole_budget_on_a_proven_root_and_each_search_reads_it() {
    // the escape in two proves the root within a few hundred simulations
    let pos = board(&variant("brandubh"), FORK, Defenders);
    let budget = 1000;
    let mut search = Search::new(pos, quiet(), Budget::Nodes(budget));
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let d = run(&mut search, &mut UniformEvaluator, &mut rng).expect("a move");
    assert_eq!(d.proof, Some(Proof::Win));
    assert!(d.simulations < budget, "{} simulations", d.simulations);
    // the same tree searched again with solver_stops off: every simulation is spent
    let full = SearchConfig {
        solver_stops: false,
        ..quiet()
    };
    search.restart(full, Budget::Nodes(budget), &mut rng);
    let d = run(&mut search, &mut UniformEvaluator, &mut rng).expect("a move");
    assert_eq!((d.proof, d.simulations), (Some(Proof::Win), budget));
    // and on again: the proven root ends the next search before its first simulation
    search.restart(quiet(), Budget::Nodes(budget), &mut rng);
    let d = run(&mut search, &mut UniformEvaluator, &mut rng).expect("a move");
    assert_eq!((d.proof, d.simulations), (Some(Proof::Win), 0));
}

#[test]
fn a_lost_root_is_reported_as_a_proven_loss_with_a_move() {
    // attackers to move against the fork after c4-a4: every move loses but the search must
    // report it and still return a move (the longest resistance)
    let pos = board(&variant("brandubh"), FORK, Defenders);
    let mut next = pos.clone();
    let fork = {
        let mut moves = Vec::new();
        pos.legal_moves(&mut moves);
        *moves
            .iter()
            .find(|m| m.name(7) == "c4-a4")
            .expect("c4-a4 is legal")
    };
    next.play_unchecked(fork);
    let mut search = Search::new(next, SearchConfig::rollouts(), Budget::Nodes(500));
    let mut rng = ChaCha8Rng::seed_from_u64(8);
    let d = run(&mut search, &mut RolloutEvaluator::new(1, 8), &mut rng).expect("a move");
    assert_eq!(d.proof, Some(Proof::Loss));
}

#[test]
fn a_time_budget_stops_the_search_in_time() {
    let v = variant("brandubh");
    let budget = std::time::Duration::from_millis(30);
    let mut search = Search::new(
        Position::start(&v),
        SearchConfig::rollouts(),
        Budget::Time(budget),
    );
    let clock = std::time::Instant::now();
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    let d = run(&mut search, &mut RolloutEvaluator::new(1, 9), &mut rng).expect("a move");
    assert!(d.simulations >= 1);
    // generous: one simulation may overrun, and test machines are busy
    assert!(clock.elapsed() < budget * 20, "{:?}", clock.elapsed());
}

/// Tavlei after seven plies of shuffling: the defenders' f7-e7 brings the start position back a
/// third time, a draw by repetition; every other move goes on.
fn one_move_from_a_repetition_draw() -> Position {
    let mut pos = Position::start(&variant("tavlei"));
    play_all(
        &mut pos,
        &[
            "h5-h3", "e7-f7", "h3-h5", "f7-e7", "h5-h3", "e7-f7", "h3-h5",
        ],
    );
    let mut drawn = pos.clone();
    play(&mut drawn, "f7-e7");
    assert!(
        drawn.outcome().is_some_and(|o| o.winner.is_none()),
        "f7-e7 draws by repetition"
    );
    pos
}

/// The root child of `mv` after a search of `pos` under `draw_value` (a zero-value evaluator,
/// so every move but the draw is worth about 0).
fn searched_with_draw_value(pos: &Position, mv: &str, draw_value: f32) -> (ChildStats, Move) {
    let cfg = SearchConfig {
        draw_value,
        ..quiet()
    };
    let mut tree = Tree::new(pos.clone());
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let d = think(&mut tree, &mut UniformEvaluator, 400, &cfg, &mut rng).expect("a move");
    let size = pos.variant().size;
    let child = tree
        .root_children()
        .into_iter()
        .find(|c| c.mv.name(size) == mv)
        .expect("the move is legal");
    (child, d.best)
}

#[test]
fn a_draw_value_below_zero_steers_the_mover_away_from_a_repetition_and_above_zero_towards_it() {
    let pos = one_move_from_a_repetition_draw();
    let size = pos.variant().size;
    let (rules, _) = searched_with_draw_value(&pos, "f7-e7", 0.0);
    assert_eq!(rules.proof, Some(Proof::Draw));
    assert_eq!(rules.q, Some(0.0), "the rules value a draw at 0");

    let (avoid, best) = searched_with_draw_value(&pos, "f7-e7", -0.5);
    assert_eq!(avoid.proof, Some(Proof::Draw), "still a proven draw");
    assert_eq!(avoid.q, Some(-0.5), "worth the draw value to the mover");
    assert_ne!(best.name(size), "f7-e7");
    assert!(
        avoid.visits < rules.visits,
        "contempt visits the draw less: {} against {}",
        avoid.visits,
        rules.visits
    );

    let (seek, best) = searched_with_draw_value(&pos, "f7-e7", 0.5);
    assert_eq!(seek.q, Some(0.5));
    assert_eq!(
        best.name(size),
        "f7-e7",
        "a mover that values draws takes it"
    );
}

#[test]
fn a_search_under_a_draw_value_starts_a_fresh_tree_for_the_next_move() {
    let pos = Position::start(&variant("tavlei"));
    let cfg = SearchConfig {
        draw_value: -0.2,
        ..quiet()
    };
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    // a tree grown under the rules' value is not searched on under another
    let mut tree = Tree::new(pos.clone());
    think(&mut tree, &mut UniformEvaluator, 50, &quiet(), &mut rng).expect("a move");
    assert_eq!(tree.root_visits(), 51);
    let d = think(&mut tree, &mut UniformEvaluator, 50, &cfg, &mut rng).expect("a move");
    assert_eq!(tree.root_visits(), 51, "started afresh, not 101");
    // and its subtree is not kept: the next mover values draws the other way
    tree.advance(d.best, None);
    assert_eq!(tree.root_visits(), 0);
    assert_eq!(tree.root_position().ply(), 1);
}

#[test]
fn a_draw_value_outside_minus_one_to_one_is_refused_by_name() {
    for bad in [-1.0, 1.0, 2.5, f32::NAN] {
        let cfg = SearchConfig {
            draw_value: bad,
            ..quiet()
        };
        let err = cfg.check().expect_err("out of range");
        assert!(err.contains("draw_value"), "{err}");
    }
    assert!(quiet().check().is_ok());
}

/// Uniform evaluations, recording the size of every call and refusing a call that holds the
/// same position twice (virtual loss must send each gathered leaf elsewhere).
#[derive(Default)]
struct CountingEvaluator {
    calls: Vec<usize>,
}

impl Evaluator for CountingEvaluator {
    fn evaluate(&mut self, requests: &[Request<'_>]) -> Vec<Evaluation> {
        let mut keys: Vec<u64> = requests
            .iter()
            .map(|(p, _)| tavlei::search::mcts::cache::cache_key(p))
            .collect();
        keys.sort_unstable();
        keys.dedup();
        assert_eq!(keys.len(), requests.len(), "a leaf gathered twice");
        self.calls.push(requests.len());
        UniformEvaluator.evaluate(requests)
    }

    fn describe(&self) -> String {
        "counting".into()
    }
}

#[test]
fn leaf_batching_gathers_distinct_leaves_and_spends_the_budget_exactly() {
    let v = variant("brandubh");
    for leaves in [1, 8] {
        for gumbel in [false, true] {
            let cfg = SearchConfig {
                leaf_batch: Some(leaves),
                gumbel,
                ..quiet()
            };
            let mut search = Search::new(Position::start(&v), cfg, Budget::Nodes(300));
            let mut eval = CountingEvaluator::default();
            let mut rng = ChaCha8Rng::seed_from_u64(3);
            run(&mut search, &mut eval, &mut rng).expect("a move");
            assert_eq!(
                search.tree().root_visits(),
                301,
                "{leaves} leaves, {gumbel}"
            );
            assert_eq!(eval.calls.iter().sum::<usize>(), 301);
            assert_eq!(search.tree().in_flight(), 0, "{leaves} leaves, {gumbel}");
            let most = eval.calls.iter().copied().max().unwrap_or(0);
            assert!(most <= leaves, "{leaves}: {:?}", eval.calls);
            if leaves == 1 {
                assert_eq!(eval.calls.len(), 301);
            } else {
                // the first calls stay small (a small tree), later ones gather many leaves
                assert_eq!(eval.calls[0], 1);
                assert!(most >= 4, "{:?}", eval.calls);
                assert!(eval.calls.len() < 150, "{} calls", eval.calls.len());
            }
        }
    }
}

#[test]
fn a_batched_search_still_finds_the_escape_and_the_forced_win() {
    let cfg = SearchConfig {
        leaf_batch: Some(8),
        ..quiet()
    };
    let pos = board(&variant("brandubh"), KING_CAN_ESCAPE, Defenders);
    assert_eq!(best_move(&pos, 200, &cfg), "c1-a1");
    let fork = board(&variant("brandubh"), FORK, Defenders);
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    let mut tree = Tree::new(fork.clone());
    let d = think(
        &mut tree,
        &mut RolloutEvaluator::new(4, 2),
        2000,
        &cfg,
        &mut rng,
    )
    .expect("a move");
    assert!(forces_escape(&fork, d.best), "{}", d.best.name(7));
}

/// Uniform evaluations that take `delay` a call, as a slow network would.
struct SlowEvaluator(std::time::Duration);

impl Evaluator for SlowEvaluator {
    fn evaluate(&mut self, requests: &[Request<'_>]) -> Vec<Evaluation> {
        std::thread::sleep(self.0);
        UniformEvaluator.evaluate(requests)
    }

    fn describe(&self) -> String {
        "slow".into()
    }
}

#[test]
fn a_gumbel_search_on_a_time_budget_plans_by_the_clock() {
    let v = variant("brandubh");
    let cfg = SearchConfig {
        gumbel: true,
        ..quiet()
    };
    let budget = Budget::Time(std::time::Duration::from_millis(40));
    // a fast evaluator: far more than the 64 simulations a first plan guesses
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let mut search = Search::new(Position::start(&v), cfg.clone(), budget);
    let fast = run(&mut search, &mut UniformEvaluator, &mut rng).expect("a move");
    assert!(fast.simulations > 500, "{} simulations", fast.simulations);
    // the halving was planned for them: several considered actions got many visits each (a
    // plan of 64 gives none more than 8 before its survivor takes every later simulation)
    let children = search.tree().root_children();
    let well_searched = children.iter().filter(|c| c.visits >= 20).count();
    assert!(
        well_searched >= 4,
        "{well_searched} children with 20 visits"
    );
    // the survivor it plays is among the most visited of the last halving
    let most = children.iter().map(|c| c.visits).max().unwrap_or(0);
    let played = children
        .iter()
        .find(|c| c.mv == fast.best)
        .expect("a child");
    assert!(played.visits + 1 >= most, "{} of {most}", played.visits);
    // a slow one (1 ms a call, one leaf a call): the plan shrinks to what the clock allows, and
    // a second search given the first one's rate plans with it from the start
    let cfg = SearchConfig {
        leaf_batch: Some(1),
        ..cfg
    };
    let slow = std::time::Duration::from_millis(1);
    let mut first = Search::new(Position::start(&v), cfg.clone(), budget);
    let clock = std::time::Instant::now();
    let d = run(&mut first, &mut SlowEvaluator(slow), &mut rng).expect("a move");
    assert!(clock.elapsed().as_millis() < 80, "{:?}", clock.elapsed());
    assert!(
        d.simulations >= 10 && d.simulations < 64,
        "{}",
        d.simulations
    );
    let mut second = Search::new(Position::start(&v), cfg, budget);
    second.set_rate(first.measured_rate());
    let d2 = run(&mut second, &mut SlowEvaluator(slow), &mut rng).expect("a move");
    assert!(d2.simulations >= 10, "{}", d2.simulations);
}

/// Priors that favour each position's first legal move (half of the mass), the rest uniform;
/// value 0: a search that piles its visits on one move.
struct FirstMoveEvaluator;

impl Evaluator for FirstMoveEvaluator {
    fn evaluate(&mut self, requests: &[Request<'_>]) -> Vec<Evaluation> {
        requests
            .iter()
            .map(|(_, moves)| {
                let n = moves.len().max(1);
                let rest = 0.5 / n as f32;
                let mut priors = vec![rest; n];
                priors[0] += 0.5;
                Evaluation { priors, value: 0.0 }
            })
            .collect()
    }

    fn describe(&self) -> String {
        "first-move".into()
    }
}

#[test]
fn forced_playouts_widen_a_noised_root_and_the_target_takes_them_back() {
    let v = variant("brandubh");
    let searched = |k: f32| {
        let cfg = SearchConfig {
            forced_playouts: k,
            dirichlet_epsilon: 0.25,
            solver: false,
            ..SearchConfig::default()
        };
        let mut search = Search::new(Position::start(&v), cfg, Budget::Nodes(400));
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        run(&mut search, &mut FirstMoveEvaluator, &mut rng).expect("a move");
        let children = search.tree().root_children();
        let decision = search
            .decide(tavlei::search::Choice::Best, &mut rng)
            .expect("a move");
        (children, decision)
    };
    let (plain, plain_decision) = searched(0.0);
    let (forced, decision) = searched(2.0);
    let least = |cs: &[ChildStats]| cs.iter().map(|c| c.visits).min().unwrap_or(0);
    assert!(
        least(&forced) > least(&plain),
        "{} vs {}",
        least(&forced),
        least(&plain)
    );
    // the target gives them back: against the most visited child, no child's target rises
    // above its visits, and some fall
    let most = (0..forced.len())
        .max_by_key(|&i| forced[i].visits)
        .expect("children");
    let top = decision.policy[most].1;
    let ratios: Vec<(f32, f32)> = forced
        .iter()
        .zip(&decision.policy)
        .map(|(c, p)| (p.1 / top, c.visits as f32 / forced[most].visits as f32))
        .collect();
    assert!(ratios
        .iter()
        .all(|(target, visits)| target <= &(visits + 1e-6)));
    assert!(ratios
        .iter()
        .any(|(target, visits)| target + 1e-6 < *visits));
    // without forcing the target is the visit shares themselves
    let plain_total: u32 = plain.iter().map(|c| c.visits).sum();
    for (c, p) in plain.iter().zip(&plain_decision.policy) {
        assert!((p.1 - c.visits as f32 / plain_total as f32).abs() < 1e-6);
    }
}

/// Brandubh after eleven plies of shuffling, defenders to move: c5-d5 brings the start position
/// back a fourth time, which loses for the defenders; every other move goes on.
fn one_move_from_a_repetition_loss() -> Position {
    let mut pos = Position::start(&variant("brandubh"));
    for _ in 0..2 {
        play_all(&mut pos, &["d7-c7", "d5-c5", "c7-d7", "c5-d5"]);
    }
    play_all(&mut pos, &["d7-c7", "d5-c5", "c7-d7"]);
    let mut lost = pos.clone();
    play(&mut lost, "c5-d5");
    assert_eq!(lost.outcome().and_then(|o| o.winner), Some(Attackers));
    pos
}

/// A made-up network: at `root` the losing repetition c5-d5 gets a prior of 0.1 and the other
/// moves share 0.9; every other position is uniform; every position is worth +0.3 to the
/// defenders. So every root move is worth +0.3 to the defenders but c5-d5, always -1.
struct PoorLowPriorMove {
    root: u64,
}

impl Evaluator for PoorLowPriorMove {
    fn evaluate(&mut self, requests: &[Request<'_>]) -> Vec<Evaluation> {
        requests
            .iter()
            .map(|(pos, moves)| {
                let n = moves.len().max(1) as f32;
                let priors: Vec<f32> = if pos.key() == self.root {
                    moves
                        .iter()
                        .map(|m| {
                            if m.name(7) == "c5-d5" {
                                0.1
                            } else {
                                0.9 / (n - 1.0)
                            }
                        })
                        .collect()
                } else {
                    vec![1.0 / n; moves.len()]
                };
                let value = match pos.side_to_move() {
                    Defenders => 0.3,
                    Attackers => -0.3,
                };
                Evaluation { priors, value }
            })
            .collect()
    }

    fn describe(&self) -> String {
        "poor low-prior move".into()
    }
}

#[test]
fn forced_playouts_give_a_poor_move_its_hand_counted_visits_and_the_target_drops_them() {
    let pos = one_move_from_a_repetition_loss();
    let searched = |k: f32| {
        // forcing needs a noised root; a trace of noise keeps c5-d5's prior at 0.1 (to 1e-4)
        let cfg = SearchConfig {
            forced_playouts: k,
            dirichlet_epsilon: 1e-4,
            solver: false,
            ..quiet()
        };
        let mut search = Search::new(pos.clone(), cfg, Budget::Nodes(100));
        let mut rng = ChaCha8Rng::seed_from_u64(6);
        let mut net = PoorLowPriorMove { root: pos.key() };
        let d = run(&mut search, &mut net, &mut rng).expect("a move");
        let poor = search
            .tree()
            .root_children()
            .into_iter()
            .find(|c| c.mv.name(7) == "c5-d5")
            .expect("c5-d5 is a root child");
        let target = d
            .policy
            .iter()
            .find(|(m, _)| m.name(7) == "c5-d5")
            .map(|&(_, p)| p)
            .expect("a target for c5-d5");
        assert_ne!(d.best.name(7), "c5-d5");
        (poor, target)
    };
    // PUCT alone tries it once: at -1 against +0.3, its prior of 0.1 never wins it another visit
    let (plain, plain_target) = searched(0.0);
    assert_eq!((plain.visits, plain.q), (1, Some(-1.0)));
    assert!((plain_target - 0.01).abs() < 1e-6, "{plain_target}");
    // forced with k = 2: a prior of 0.1 is owed floor(sqrt(2 * 0.1 * N)) visits at N root
    // visits: 3 from N = 45, 4 from N = 80, and 5 only from N = 125, past the budget of 100
    let (forced, target) = searched(2.0);
    assert_eq!((forced.visits, forced.q), (4, Some(-1.0)));
    // all 4 were forced and PUCT never wanted them: the target gives every one back
    assert_eq!(target, 0.0);
}

/// No leaf left waiting and no visit left in flight: what every finished search must leave.
fn assert_settled(tree: &Tree, what: &str) {
    assert_eq!(tree.pending_count(), 0, "{what}: leaves left pending");
    assert_eq!(tree.in_flight(), 0, "{what}: visits left in flight");
}

/// Uniform evaluations that record the cache key of every position asked for and refuse one in
/// `cached` (the cache holds those: a search must take them from there).
#[derive(Default)]
struct CacheChecking {
    asked: HashSet<u64>,
    cached: HashSet<u64>,
    calls: Vec<usize>,
}

impl Evaluator for CacheChecking {
    fn evaluate(&mut self, requests: &[Request<'_>]) -> Vec<Evaluation> {
        for (pos, _) in requests {
            let key = cache_key(pos);
            assert!(
                !self.cached.contains(&key),
                "a cached position went to the evaluator"
            );
            self.asked.insert(key);
        }
        self.calls.push(requests.len());
        UniformEvaluator.evaluate(requests)
    }

    fn describe(&self) -> String {
        "cache-checking".into()
    }
}

/// Runs `search` to its end as self-play does, through `cache`; returns how many steps ended
/// with two or more leaves pending after a cache hit on the way.
fn run_cached(
    search: &mut Search,
    eval: &mut dyn Evaluator,
    cache: &mut EvalCache,
    rng: &mut ChaCha8Rng,
) -> usize {
    let mut hits_among_pending = 0;
    loop {
        let hits = cache.hits;
        if search.step(Some(cache), rng) == Step::Done {
            return hits_among_pending;
        }
        if cache.hits > hits && search.tree().pending_count() >= 2 {
            hits_among_pending += 1;
        }
        evaluate_pending(&mut [(&mut *search, &mut *rng)], eval, Some(cache));
    }
}

#[test]
fn a_cache_hit_among_pending_leaves_expands_its_own_leaf() {
    let v = variant("brandubh");
    let mut cache = EvalCache::new(1 << 20);
    // a first search fills the cache with its positions
    let mut first = CacheChecking::default();
    let cfg = SearchConfig {
        leaf_batch: Some(1),
        ..quiet()
    };
    let mut search = Search::new(Position::start(&v), cfg, Budget::Nodes(150));
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    run_cached(&mut search, &mut first, &mut cache, &mut rng);
    assert_settled(search.tree(), "the first search");
    // a second one, exploring more widely and gathering 8 leaves, meets those positions among
    // new ones: each hit must expand the leaf it was found for (the newest), so no cached
    // position is ever pending, and so never sent to the evaluator
    let mut second = CacheChecking {
        cached: std::mem::take(&mut first.asked),
        ..CacheChecking::default()
    };
    let cfg = SearchConfig {
        leaf_batch: Some(8),
        c_puct: 4.0,
        ..quiet()
    };
    let mut search = Search::new(Position::start(&v), cfg, Budget::Nodes(600));
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    let hits_among_pending = run_cached(&mut search, &mut second, &mut cache, &mut rng);
    assert!(hits_among_pending > 0, "no hit came among pending leaves");
    assert!(second.calls.iter().any(|&n| n > 1), "{:?}", second.calls);
    assert_eq!(search.tree().root_visits(), 601);
    assert_settled(search.tree(), "the second search");
}

#[test]
fn terminal_and_proven_walks_among_pending_leaves_keep_the_count() {
    // the escape ends the game: every visit to it is a walk that needs no evaluation, most of
    // them made while other leaves wait (no solver, so the root is not proven and stays open)
    let pos = board(&variant("brandubh"), KING_CAN_ESCAPE, Defenders);
    let cfg = SearchConfig {
        leaf_batch: Some(8),
        solver: false,
        ..quiet()
    };
    let mut search = Search::new(pos, cfg, Budget::Nodes(300));
    let mut eval = CountingEvaluator::default();
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let d = run(&mut search, &mut eval, &mut rng).expect("a move");
    assert_eq!(d.best.name(7), "c1-a1");
    assert_eq!(search.tree().root_visits(), 301, "the budget, exactly");
    let escape = search
        .tree()
        .root_children()
        .into_iter()
        .find(|c| c.mv.name(7) == "c1-a1")
        .expect("the escape");
    let evaluated: usize = eval.calls.iter().sum();
    assert!(escape.visits > 100, "{} visits", escape.visits);
    assert!(
        evaluated + escape.visits as usize <= 301,
        "{evaluated} evaluations and {} escapes",
        escape.visits
    );
    assert!(eval.calls.iter().any(|&n| n > 1), "{:?}", eval.calls);
    assert_settled(search.tree(), "the escape");

    // with the solver, a proven node is resolved by its proof: a mover that values draws walks
    // into the proven repetition draw again and again while other leaves wait
    let pos = one_move_from_a_repetition_draw();
    let cfg = SearchConfig {
        leaf_batch: Some(8),
        draw_value: 0.5,
        ..quiet()
    };
    let mut search = Search::new(pos, cfg, Budget::Nodes(400));
    let mut eval = CountingEvaluator::default();
    let d = run(&mut search, &mut eval, &mut rng).expect("a move");
    assert_eq!(d.best.name(9), "f7-e7");
    assert_eq!(search.tree().root_visits(), 401, "the budget, exactly");
    let draw = search
        .tree()
        .root_children()
        .into_iter()
        .find(|c| c.mv.name(9) == "f7-e7")
        .expect("the draw");
    assert_eq!(draw.proof, Some(Proof::Draw));
    let evaluated: usize = eval.calls.iter().sum();
    assert!(draw.visits > 100, "{} visits", draw.visits);
    assert!(evaluated + draw.visits as usize <= 401);
    assert!(eval.calls.iter().any(|&n| n > 1), "{:?}", eval.calls);
    assert_settled(search.tree(), "the draw");

    // and a root proven on the way ends the search with nothing left waiting
    let fork = board(&variant("brandubh"), FORK, Defenders);
    let cfg = SearchConfig {
        leaf_batch: Some(8),
        ..quiet()
    };
    let mut search = Search::new(fork.clone(), cfg, Budget::Nodes(3000));
    let mut eval = CountingEvaluator::default();
    let d = run(&mut search, &mut eval, &mut rng).expect("a move");
    assert_eq!(d.proof, Some(Proof::Win));
    assert!(d.simulations < 3000, "{} simulations", d.simulations);
    assert_eq!(search.tree().root_visits(), d.simulations + 1);
    assert!(forces_escape(&fork, d.best), "{}", d.best.name(7));
    assert_settled(search.tree(), "the fork");
}

#[test]
fn no_visit_is_left_in_flight_after_any_search() {
    let v = variant("brandubh");
    let budgets = [
        Budget::Nodes(200),
        Budget::Time(std::time::Duration::from_millis(15)),
    ];
    for budget in budgets {
        for gumbel in [false, true] {
            for leaves in [None, Some(1), Some(8)] {
                let what = format!("{budget:?}, gumbel {gumbel}, {leaves:?} leaves");
                let cfg = SearchConfig {
                    gumbel,
                    leaf_batch: leaves,
                    ..SearchConfig::default()
                };
                // five moves of one game on a reused tree, through a cache
                let mut cache = EvalCache::new(1 << 16);
                let mut rng = ChaCha8Rng::seed_from_u64(7);
                let mut search = Search::new(Position::start(&v), cfg.clone(), budget);
                for ply in 0..5 {
                    run_cached(&mut search, &mut UniformEvaluator, &mut cache, &mut rng);
                    assert_settled(search.tree(), &format!("{what}, ply {ply}"));
                    let d = search
                        .decide(tavlei::search::Choice::Best, &mut rng)
                        .expect("a move");
                    search.advance(d.best, None);
                    search.restart(cfg.clone(), budget, &mut rng);
                }
            }
        }
    }
}
