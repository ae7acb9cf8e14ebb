//! Alpha-beta with a learned evaluation (`ab:B:nnue=FILE`): inside a real search every leaf's
//! incremental accumulator equals one computed afresh from its board, on every preset; a leaf's
//! score is the network's; a file of another variant is refused by name; and the agent plays a
//! match through the command line.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tavlei::eval::agent::{Agent, AgentSpec};
use tavlei::rules::{presets, Position, Side, Variant};
use tavlei::search::alphabeta::{
    AlphaBeta, AlphaBetaConfig, LearnedEval, Limit, EVAL_LIMIT, WIN_BOUND,
};
use tavlei_nnue::{FeatureSet, FloatNetwork, Meta, Network};

/// A network of random weights for `variant` (small first-layer weights, so quantisation
/// accepts it; the head spread so that scores differ between positions).
fn random_network(variant: &Variant, seed: u64) -> Network {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let (n, h) = (32, 8);
    let f = FeatureSet::new(variant.size).count();
    let mut uniform = |len: usize, lo: f32, hi: f32| -> Vec<f32> {
        (0..len).map(|_| rng.random_range(lo..hi)).collect()
    };
    let float = FloatNetwork {
        ft_weight: uniform(f * n, -0.1, 0.1),
        ft_bias: uniform(n, 0.0, 1.0),
        l1_weight: uniform(2 * h * n, -1.0, 1.0),
        l1_bias: uniform(2 * h, -0.5, 0.5),
        out_weight: uniform(2 * h, -1.5, 1.5),
        out_bias: uniform(2, -0.5, 0.5),
        meta: Meta {
            variant: variant.rules.name.clone(),
            board_size: variant.size,
            width: n,
            hidden: h,
            provenance: BTreeMap::new(),
        },
    };
    Network::quantise(&float).expect("random weights within range")
}

/// A position some random plies into a game of `variant`.
fn random_position(variant: &Arc<Variant>, seed: u64, plies: usize) -> Position {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut pos = Position::start(variant);
    let mut moves = Vec::new();
    for _ in 0..plies {
        if pos.needs_roll() {
            pos.set_roll(rng.random_range(1..=6));
        }
        pos.legal_moves(&mut moves);
        if pos.outcome().is_some() || moves.is_empty() {
            break;
        }
        pos.play_unchecked(moves[rng.random_range(0..moves.len())]);
    }
    pos
}

/// A search with captures searched past the depth (quiescence), so leaves are reached through
/// the full search, the quiescence search and, in dice variants, chance nodes.
fn quiescent() -> AlphaBetaConfig {
    let mut config = AlphaBetaConfig::default();
    config.search.quiescence = 4;
    config
}

#[test]
fn every_leaf_of_a_search_sees_the_accumulator_of_its_own_board_on_every_preset() {
    for (i, name) in presets::PRESET_NAMES.iter().enumerate() {
        let variant = Variant::load(name).expect("preset");
        let network = Arc::new(random_network(&variant, i as u64));
        let mut learned = LearnedEval::new(network);
        learned.start_audit();
        let mut search = AlphaBeta::new(quiescent(), 1).with_learned(learned);
        for game in 0..3u64 {
            // midgame positions, where captures and king moves (refreshes) happen in the tree
            let pos = random_position(&variant, 100 * i as u64 + game, 12 + 8 * game as usize);
            if pos.outcome().is_some() {
                continue;
            }
            search.search(&pos, Limit::Depth(2));
        }
        let audit = search
            .learned()
            .and_then(LearnedEval::audit)
            .expect("audited");
        assert!(audit.scored > 50, "{name}: only {} leaves", audit.scored);
        assert_eq!(audit.mismatches, 0, "{name}: {audit:?}");
    }
}

#[test]
fn a_leaf_is_scored_by_the_network_for_the_side_to_move() {
    let variant = Variant::load("copenhagen").expect("preset");
    let network = Arc::new(random_network(&variant, 5));
    let mut search = AlphaBeta::new(AlphaBetaConfig::default(), 1)
        .with_learned(LearnedEval::new(network.clone()));
    let mut plain = AlphaBeta::new(AlphaBetaConfig::default(), 1);
    let mut differs = 0;
    for seed in 0..20 {
        let pos = random_position(&variant, seed, 20);
        if pos.outcome().is_some() {
            continue;
        }
        let expected = network
            .evaluate_cells(pos.cells(), pos.side_to_move())
            .clamp(-EVAL_LIMIT, EVAL_LIMIT);
        assert_eq!(search.evaluate(&pos), expected, "seed {seed}");
        differs += usize::from(search.evaluate(&pos) != plain.evaluate(&pos));
        // a value is the network's win probability as 2p - 1
        let p = 1.0 / (1.0 + (-(expected as f32) / 1000.0).exp());
        assert!((search.value(expected) - (2.0 * p - 1.0)).abs() < 1e-5);
    }
    assert!(differs > 10, "the heuristic's scores, not the network's");
    // a depth-1 search picks the move whose child the network likes best
    let pos = random_position(&variant, 3, 10);
    let found = search.search(&pos, Limit::Depth(1));
    assert!(found.score.abs() < WIN_BOUND);
    let best = best_child(&pos, |child| {
        network
            .evaluate_cells(child.cells(), child.side_to_move())
            .clamp(-EVAL_LIMIT, EVAL_LIMIT)
    });
    assert_eq!(found.score, best);
}

#[test]
fn a_blended_leaf_adds_the_compiled_score_at_the_root_sides_weight() {
    let variant = Variant::load("copenhagen").expect("preset");
    let network = Arc::new(random_network(&variant, 6));
    let mut config = AlphaBetaConfig::default();
    config.search.blend_attacking = 0.5;
    config.search.blend_defending = 2.0;
    let mut blended = AlphaBeta::new(config, 1).with_learned(LearnedEval::new(network.clone()));
    let mut plain = AlphaBeta::new(AlphaBetaConfig::default(), 1);
    let mut moved = [0, 0];
    for seed in 0..40 {
        let pos = random_position(&variant, seed, 20 + seed as usize % 2);
        if pos.outcome().is_some() {
            continue;
        }
        let side = pos.side_to_move();
        let weight = match side {
            Side::Attackers => 0.5,
            Side::Defenders => 2.0,
        };
        let learned = network
            .evaluate_cells(pos.cells(), side)
            .clamp(-EVAL_LIMIT, EVAL_LIMIT);
        let compiled = plain.evaluate(&pos);
        // the compiled score s is the logit 2 s / value_scale (600); the learned one has 1000
        // units a logit
        let expected = (learned as f32 + weight * 2.0 * compiled as f32 / 600.0 * 1000.0)
            .clamp(-EVAL_LIMIT as f32, EVAL_LIMIT as f32) as i32;
        let got = blended.evaluate(&pos);
        assert!(
            (got - expected).abs() <= 1,
            "seed {seed}: {got} against {expected}"
        );
        moved[side as usize] += usize::from(got != learned);
    }
    assert!(
        moved.iter().all(|&m| m > 5),
        "the blend left the learned scores alone: {moved:?}"
    );
    // inside a search every node takes the root side's weight: a depth-1 search by the
    // attackers scores each child (defenders to move) at the attackers' weight
    let pos = random_position(&variant, 3, 10);
    assert_eq!(pos.side_to_move(), Side::Attackers);
    let found = blended.search(&pos, Limit::Depth(1));
    let best = best_child(&pos, |child| {
        let learned = network
            .evaluate_cells(child.cells(), child.side_to_move())
            .clamp(-EVAL_LIMIT, EVAL_LIMIT);
        let compiled = plain.evaluate(child);
        (learned as f32 + 0.5 * 2.0 * compiled as f32 / 600.0 * 1000.0)
            .clamp(-EVAL_LIMIT as f32, EVAL_LIMIT as f32) as i32
    });
    assert!(
        (found.score - best).abs() <= 1,
        "{} against {best}",
        found.score
    );
}

/// What a depth-1 search from `pos` should find: the best child by `score` (the child's static
/// score for its side to move, negated), a finished game counting as a win.
fn best_child(pos: &Position, mut score: impl FnMut(&Position) -> i32) -> i32 {
    let mut moves = Vec::new();
    pos.legal_moves(&mut moves);
    moves
        .iter()
        .map(|&mv| {
            let mut child = pos.clone();
            child.play_unchecked(mv);
            match child.outcome() {
                Some(_) => i32::MAX,
                None => -score(&child),
            }
        })
        .max()
        .expect("moves")
}

fn save(network: &Network, dir: &Path, name: &str) -> String {
    let path = dir.join(name);
    network.save(&path).expect("saved");
    path.display().to_string()
}

#[test]
fn an_agent_refuses_a_network_of_another_variant_and_names_the_file() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let brandubh = Variant::load("brandubh").expect("preset");
    let file = save(&random_network(&brandubh, 1), tmp.path(), "brandubh.nnue");
    let spec = AgentSpec::parse(&format!("ab:2:nnue={file}")).expect("spec");
    assert!(Agent::load(&spec, "brandubh", tch::Device::Cpu, 1).is_ok());
    let err = Agent::load(&spec, "copenhagen", tch::Device::Cpu, 1)
        .err()
        .expect("refused");
    let text = err.to_string();
    assert!(
        text.contains("brandubh") && text.contains("copenhagen") && text.contains(&file),
        "{text}"
    );
    let missing = AgentSpec::parse("ab:2:nnue=no/such.nnue").expect("spec");
    let err = Agent::load(&missing, "brandubh", tch::Device::Cpu, 1)
        .err()
        .expect("missing");
    assert!(err.to_string().contains("no/such.nnue"), "{err}");
}

#[test]
fn a_match_plays_the_learned_agent_from_the_command_line() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let brandubh = Variant::load("brandubh").expect("preset");
    let file = save(&random_network(&brandubh, 2), tmp.path(), "b.nnue");
    let out = tmp.path().join("match");
    let run = std::process::Command::new(env!("CARGO_BIN_EXE_tavlei"))
        .args(["match", "--variant", "brandubh"])
        .arg(format!("ab:1:nnue={file}"))
        .arg("ab:1")
        .args(["--pairs", "2", "--seed", "3", "--threads", "1", "--out"])
        .arg(&out)
        .output()
        .expect("tavlei runs");
    assert!(run.status.success());
    let summary = std::fs::read_to_string(out.join("match.json")).expect("report");
    assert!(summary.contains("nnue="), "{summary}");
    // each side's decided games by how they ended, in the report and on the terminal
    let report: serde_json::Value = serde_json::from_str(&summary).expect("json");
    for (side, wdl) in [("attacking", "as_attacker"), ("defending", "as_defender")] {
        for (ends, count) in [("wins", "wins"), ("losses", "losses")] {
            let by_reason: u64 = report["ends"][side][ends]
                .as_object()
                .expect("a tally")
                .values()
                .map(|n| n.as_u64().expect("a count"))
                .sum();
            assert_eq!(by_reason, report[wdl][count].as_u64().expect("count"));
        }
    }
    let text = String::from_utf8_lossy(&run.stdout);
    assert!(text.contains("A attacking: wins by "), "{text}");
    assert!(text.contains("A defending: wins by "), "{text}");
}

#[test]
fn a_learned_labeler_scores_each_position_by_its_own_search() {
    use tavlei::eval::texel::Source;
    use tavlei::nnue::label::{self, Labeler, Selection};
    let variant = Variant::load("brandubh").expect("preset");
    let network = Arc::new(random_network(&variant, 9));
    // a random game of 16 plies, stored as a match stores it
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    let mut pos = Position::start(&variant);
    let (mut moves, mut played) = (Vec::new(), Vec::new());
    for _ in 0..16 {
        pos.legal_moves(&mut moves);
        let mv = moves[rng.random_range(0..moves.len())];
        played.push(mv.name(variant.size));
        pos.play_unchecked(mv);
        if pos.outcome().is_some() {
            break;
        }
    }
    let json = serde_json::json!({
        "id": 1, "attacker": 0, "defender": 0,
        "outcome": {"winner": null, "reason": "length_cap"},
        "plies": played.len(), "moves": played,
    });
    let sources = [Source {
        name: "random".into(),
        games: vec![serde_json::from_value(json).expect("a stored game")],
    }];
    let select = Selection {
        skip_plies: 0,
        quiet_only: false,
    };
    let plan = label::plan(&variant, &sources, select).expect("legal");
    let labeler = |learned| Labeler {
        config: AlphaBetaConfig::default(),
        depth: 2,
        seed: 0,
        learned,
    };
    let learned = label::label(
        &variant,
        &plan,
        &labeler(Some(LearnedEval::new(network.clone()))),
        || {},
    )
    .expect("labelled");
    let compiled = label::label(&variant, &plan, &labeler(None), || {}).expect("labelled");
    assert!(learned.len() > 10);
    let mut search =
        AlphaBeta::new(AlphaBetaConfig::default(), 0).with_learned(LearnedEval::new(network));
    // the labeler searches a game's positions in order with one search (its table kept)
    for p in &learned {
        let side = if p.side == 0 {
            Side::Attackers
        } else {
            Side::Defenders
        };
        let position = Position::from_cells(&variant, &p.cells, side).expect("a board");
        assert_eq!(p.score, search.search(&position, Limit::Depth(2)).score);
    }
    let differ = learned
        .iter()
        .zip(&compiled)
        .filter(|(a, b)| a.score != b.score)
        .count();
    assert!(differ > learned.len() / 2, "{differ} of {}", learned.len());
}

/// `experiments/nnue/results.md` is what `table.py` makes from the committed match stores, and
/// the figures the READMEs quote are in it.
#[test]
fn the_learned_evaluations_match_table_is_its_scripts() {
    let table =
        crate::tables::checked_table("experiments/nnue/table.py", "experiments/nnue/results.md");
    for figure in [
        "| 0.770 | +210 [+148, +287] | 33-2-15 | 43-0-7 | king_captured 33 |",
        "| 0.700 | +147 [+83, +223] | 34-0-16 | 35-2-13 |",
        "| 0.300 | -147 [-320, -25] | 0-0-10 | 6-0-4 |",
        "| 0.860 | +315 [+231, +446] | 39-2-9 | 46-0-4 |",
        "| 0.715 | +160 [+100, +230] | 32-0-18 | 39-1-10 |",
        "| 0.630 | +92 [+33, +158] | 23-0-27 | 40-0-10 |",
        "| 0.845 | +295 [+221, +400] | 40-3-7 | 43-0-7 |",
        "| 0.510 | +7 [-50, +64] | 32-0-18 | 19-0-31 |",
        "| 0.505 | +3 [-63, +70] | 27-0-23 | 23-1-26 | king_captured 26, repetition 1 |",
        "| 0.600 | +70 [+18, +126] | 32-0-18 | 28-0-22 | king_captured 30, repetition 2 |",
        "| 0.400 | -70 [-179, +26] | 0-0-10 | 8-0-2 |",
        "| 0.525 | +17 [-16, +51] | 3-3-44 | 48-0-2 |",
        "| 0.500 | +0 [-45, +45] | 3-6-41 | 44-0-6 |",
        "| 0.535 | +24 [-13, +62] | 5-1-44 | 48-0-2 |",
        "| 0.310 | -139 [-213, -75] | 5-4-41 | 22-4-24 |",
        "| 0.470 | -21 [-86, +43] | 18-3-29 | 23-9-18 |",
        "brandubh/gen1-s1/vs-ab-100ms, brandubh/gen1-s2/vs-ab-100ms, brandubh/gen2-s1/vs-ab-100ms, brandubh/gen2-s2/vs-ab-100ms, brandubh/gen3-s1/vs-ab-100ms): the same openings",
        "| 0.840 | +288 [+214, +392] | 37-1-12 | 46-1-3 | king_captured 36, repetition 1 |",
        "brandubh/gen2-s1/vs-gen1-s1-100ms, brandubh/gen2-s2/vs-gen1-s1-100ms): the same openings",
        "| 0.755 | +196 [+126, +283] | 36-1-13 | 36-6-8 | king_captured 36 |",
        "| 0.545 | +31 [+3, +60] | 4-1-45 | 50-0-0 |",
        "| 0.505 | +3 [-55, +62] | 18-4-28 | 27-7-16 |",
        "| 0.725 | +168 [+105, +245] | 35-1-14 | 34-6-10 |",
        "| 0.725 | +168 [+97, +256] | 35-2-13 | 33-7-10 |",
        "tablut/gen1-s1/vs-ab-100ms, tablut/gen2-balanced-s1/vs-ab-100ms, tablut/gen2-s1/vs-ab-100ms, tablut/gen3-s1/vs-ab-100ms, tablut/gen3-s2/vs-ab-100ms, tablut/gen4-s1/vs-ab-100ms, tablut/gen4-s2/vs-ab-100ms, tablut/gen4-s2/vs-ab-100ms-threats, tablut/gen5-cross-s1/vs-ab-100ms, tablut/gen5-cross-s2/vs-ab-100ms, tablut/gen5-s1/vs-ab-100ms, tablut/gen5-s2/vs-ab-100ms): the same openings",
        "| 0.510 | +7 [-20, +34] | 2-2-46 | 48-0-2 |",
        "| 0.570 | +49 [+10, +89] | 7-2-41 | 49-0-1 |",
        "| 0.550 | +35 [+8, +62] | 3-4-43 | 50-0-0 |",
        "| 0.580 | +56 [+18, +95] | 8-2-40 | 49-0-1 | king_captured 8 |",
        "| 0.560 | +42 [-8, +94] | 10-0-40 | 46-0-4 |",
        "| 0.450 | -35 [-116, +43] | 0-0-10 | 9-0-1 |",
        "| 0.275 | -168 [-354, -46] | 0-0-10 | 5-1-4 |",
        "| 0.840 | +288 [+213, +395] | 34-0-16 | 50-0-0 | encirclement 1, king_captured 3, no_legal_moves 8, repetition 22 |",
        "tavlei/gen3-s1/vs-ab-100ms, tavlei/gen4-s1/vs-ab-100ms, tavlei/gen4-s2/vs-ab-100ms): the same openings",
        "(tavlei/gen4-s1/vs-ab-100ms-seed435, tavlei/gen4-s2/vs-ab-100ms-seed435): the same openings",
        "| 0.520 | +14 [-41, +69] | 33-2-15 | 15-6-29 |",
        "| 0.995 | +920 [+601, +inf] | 49-1-0 | 50-0-0 |",
        "| 0.620 | +85 [+39, +134] | 11-4-35 | 49-0-1 | king_captured 11 |",
        "| 0.625 | +89 [+47, +133] | 10-5-35 | 50-0-0 | king_captured 10 |",
        "| 0.530 | +21 [-2, +44] | 2-2-46 | 50-0-0 |",
        "| 0.600 | +70 [+29, +114] | 8-6-36 | 49-0-1 |",
        "| 0.570 | +49 [+5, +95] | 9-0-41 | 48-0-2 |",
        "(tablut/gen5-s1/vs-ab-100ms-seed437, tablut/gen5-s2/vs-ab-100ms-seed437): the same openings",
        "| 0.590 | +63 [+21, +107] | 9-2-39 | 49-0-1 |",
        "| 0.545 | +31 [-1, +65] | 4-3-43 | 49-0-1 |",
        "| 0.500 | +0 [-46, +46] | 0-0-10 | 10-0-0 |",
        "| 0.350 | -108 [-244, +2] | 0-0-10 | 7-0-3 |",
        "| 0.475 | -17 [-74, +38] | 0-0-10 | 9-1-0 |",
        // the hybrid (configs/alphabeta/hybrid.toml) and the compiled alpha-beta's own reference
        "| 0.760 | +200 [+132, +286] | 34-3-13 | 40-1-9 | encirclement 12, king_captured 8, no_legal_moves 14 |",
        "| 0.475 | -17 [-106, +69] | 0-1-9 | 9-0-1 | none |",
        "| 0.600 | +70 [-79, +254] | 5-2-3 | 5-2-3 |",
        "| 0.725 | +168 [-15, +609] | 6-1-3 | 8-0-2 |",
        "| 0.850 | +301 [+107, +inf] | 8-1-1 | 8-1-1 |",
        "| `ab:t=200ms` | `ab:t=200ms` | 10 | 0.600 | +70 [-94, +277] | 7-0-3 | 5-0-5 |",
        "copenhagen/gen3-s1/blend-screens/side4.0, copenhagen/gen3-s1/threats-screen/vs-ab-200ms-hq-threats, copenhagen/gen3-s1/vs-ab-200ms, copenhagen/gen3-s1/vs-ab-200ms-quiescence",
        "| 0.680 | +131 [+72, +198] | 21-4-25 | 45-0-5 | encirclement 9, king_captured 7, no_legal_moves 5 |",
        "| 0.600 | +70 [-26, +179] | 2-0-8 | 10-0-0 |",
        "| 0.500 | +0 [-106, +106] | 1-0-9 | 9-0-1 | repetition 1 |",
        // the quiescence hybrid at 1 s on a third set of openings, and with escape threats at 200 ms
        "| 0.500 | +0 [-117, +117] | 1-1-8 | 8-1-1 | no_legal_moves 1 |",
        "| 0.675 | +127 [+16, +272] | 4-1-5 | 9-0-1 | encirclement 1, king_captured 2, no_legal_moves 1 |",
        "(copenhagen/gen3-s1/vs-ab-200ms-hybrid, copenhagen/gen3-s1/vs-ab-200ms-hybrid-quiescence): the same openings",
        // the hybrid with late move reductions at 1 s on four sets of openings, and the
        // quiescence hybrid again on seed 439's beside it
        "| 0.600 | +70 [-26, +179] | 2-0-8 | 10-0-0 | encirclement 1, no_legal_moves 1 |",
        "| 0.625 | +89 [-9, +203] | 2-1-7 | 10-0-0 | king_captured 1, no_legal_moves 1 |",
        "| 0.750 | +191 [+67, +391] | 4-2-4 | 10-0-0 | encirclement 3, king_captured 1 |",
        "| 0.700 | +147 [+35, +301] | 3-2-5 | 10-0-0 | encirclement 1, no_legal_moves 1, repetition 1 |",
        "| 0.550 | +35 [-43, +116] | 1-0-9 | 10-0-0 | king_captured 1 |",
        "copenhagen/gen3-s1/vs-ab-1s-hybrid-quiescence-seed439-epyc, copenhagen/gen3-s1/vs-ab-1s-hybrid-reductions-seed439): the same openings",
    ] {
        assert!(table.contains(figure), "results.md lacks `{figure}`");
    }
}
