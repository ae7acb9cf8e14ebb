//! The learned evaluation's trainer: it learns (held-out loss below the constant predictor's),
//! its export to the integer network agrees with the float model, a stopped run resumes to the
//! very same weights, and positions of the wrong variant are refused.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tavlei::nnue::train::batch::{target, transform_cells, winner, winner_weights, Item};
use tavlei::nnue::train::model::{ft_weight_bound, NnueModel, L1_WEIGHT_BOUND};
use tavlei::nnue::train::trainer::{logits, read_metrics};
use tavlei::nnue::train::{train, NnueTrainConfig, NnueTrainError, NnueTrainRequest};
use tavlei::nnue::{write_positions, LabelledPosition, PositionSet};
use tavlei::rules::{Position, Side, Variant};
use tavlei_nnue::{FeatureSet, Network};

/// Positions of seeded random games of `variant`, labelled so that a network can learn them:
/// the score is the material balance for the side to move (a defender counts two attackers),
/// the result the game's.
fn random_positions(variant: &str, count: usize, seed: u64) -> PositionSet {
    let v = Variant::load(variant).expect("preset");
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut positions = Vec::new();
    let mut moves = Vec::new();
    while positions.len() < count {
        let mut pos = Position::start(&v);
        let mut game: Vec<LabelledPosition> = Vec::new();
        for ply in 0..150u16 {
            pos.legal_moves(&mut moves);
            if pos.outcome().is_some() || moves.is_empty() {
                break;
            }
            let cells = pos.cells().to_vec();
            let attackers = cells.iter().filter(|&&c| (1..=4).contains(&c)).count() as i32;
            let defenders = cells.iter().filter(|&&c| (5..=8).contains(&c)).count() as i32;
            let balance = 150 * (attackers - 2 * defenders);
            let side = pos.side_to_move();
            game.push(LabelledPosition {
                cells,
                side: (side == Side::Defenders) as u8,
                score: if side == Side::Attackers {
                    balance
                } else {
                    -balance
                },
                result: 0,
                ply,
            });
            pos.play_unchecked(moves[rng.random_range(0..moves.len())]);
        }
        let winner = pos.outcome().and_then(|o| o.winner);
        for mut p in game {
            let to_move = if p.side == 0 {
                Side::Attackers
            } else {
                Side::Defenders
            };
            p.result = match winner {
                None => 0,
                Some(w) if w == to_move => 1,
                Some(_) => -1,
            };
            positions.push(p);
        }
    }
    positions.truncate(count);
    PositionSet {
        variant: v.name().to_string(),
        board_size: v.size,
        score_per_logit: 300.0,
        labeler: "material".into(),
        positions,
    }
}

fn tiny() -> NnueTrainConfig {
    NnueTrainConfig::load(Path::new("configs/nnue/tiny.toml")).expect("the tiny config parses")
}

fn positions_file(dir: &Path, variant: &str, count: usize) -> PathBuf {
    let path = dir.join(format!("{variant}.positions"));
    write_positions(&path, &random_positions(variant, count, 11)).expect("writes");
    path
}

fn request<'a>(
    files: &'a [PathBuf],
    out: &'a Path,
    config: &'a NnueTrainConfig,
) -> NnueTrainRequest<'a> {
    NnueTrainRequest {
        positions: files,
        out,
        config,
        seed: 5,
        resume: false,
        stop_after: None,
    }
}

#[test]
fn training_beats_the_constant_predictor_on_held_out_positions() {
    let tmp = tempfile::tempdir().expect("tmp");
    let files = vec![positions_file(tmp.path(), "brandubh", 400)];
    let cfg = tiny();
    let out = tmp.path().join("run");
    let summary = train(&request(&files, &out, &cfg), &mut |_| {}).expect("trains");
    assert!(summary.finished && summary.heldout_positions > 40);
    assert!(
        summary.heldout_loss < summary.constant_loss
            && summary.heldout_loss < summary.initial_heldout_loss,
        "held-out loss {} against constant {} (untrained {})",
        summary.heldout_loss,
        summary.constant_loss,
        summary.initial_heldout_loss
    );
    let rows = read_metrics(&out.join("metrics.csv")).expect("metrics");
    assert_eq!(
        rows.len(),
        cfg.epochs as usize + 1,
        "epoch 0 and one per epoch"
    );
    for name in [
        "eval.nnue",
        "train.json",
        "checkpoint.safetensors",
        "state.json",
    ] {
        assert!(out.join(name).is_file(), "{name}");
    }
    let net = Network::load(&out.join("eval.nnue")).expect("the export loads");
    let meta = net.meta();
    assert_eq!((meta.width, meta.hidden), (cfg.width, cfg.hidden));
    assert_eq!(meta.provenance.get("seed").map(String::as_str), Some("5"));
    assert_eq!(
        meta.provenance.get("labeler").map(String::as_str),
        Some("material")
    );
}

/// The integer network's score against the float model's logit. Each rounding is a step of
/// 1/127 (feature weights, summed over ~25 active features), 1/64 (W1), 1/(127*64) (biases,
/// output weights), and the hidden layer's shift floors each unit by up to 1/127; through the
/// tiny head (4 hidden units, |W2| up to about 1.5) the floors alone cost up to 0.05 logit and
/// the roundings about as much again: 0.1 logit bounds any position, 0.03 the mean. Measured
/// when written: worst 0.032, mean 0.012 (a wrong head or layout is off by whole logits).
#[test]
fn the_exported_integer_network_agrees_with_the_float_model() {
    let tmp = tempfile::tempdir().expect("tmp");
    let set = random_positions("brandubh", 300, 3);
    let path = tmp.path().join("b.positions");
    write_positions(&path, &set).expect("writes");
    let files = vec![path];
    let cfg = tiny();
    let out = tmp.path().join("run");
    train(&request(&files, &out, &cfg), &mut |_| {}).expect("trains");

    let model =
        NnueModel::load(&out.join("checkpoint.safetensors"), set.board_size).expect("loads");
    let items: Vec<_> = set
        .positions
        .iter()
        .map(|p| tavlei::nnue::train::batch::Item::new(p, 0.5, 300.0))
        .collect();
    let refs: Vec<_> = items.iter().collect();
    let float_logits = logits(&model, &refs).expect("forward");
    let float = model
        .to_float("brandubh", BTreeMap::new())
        .expect("exports");
    let net = Network::load(&out.join("eval.nnue")).expect("loads");
    let features = FeatureSet::new(set.board_size);
    let (mut worst, mut sum) = (0.0f32, 0.0f32);
    let mut active = Vec::new();
    for (p, &y) in set.positions.iter().zip(&float_logits) {
        let side = if p.side == 0 {
            Side::Attackers
        } else {
            Side::Defenders
        };
        active.clear();
        features.active(&p.cells, &mut active);
        // the crate's float reference is the tch model up to float summation order
        let reference = float.evaluate(&active, side);
        assert!(
            (reference - y).abs() < 1e-4,
            "float {reference} against tch {y}"
        );
        let integer =
            net.evaluate_cells(&p.cells, side) as f32 / tavlei_nnue::EVAL_PER_LOGIT as f32;
        worst = worst.max((integer - y).abs());
        sum += (integer - y).abs();
    }
    let mean = sum / set.positions.len() as f32;
    assert!(
        worst < 0.1 && mean < 0.03,
        "worst {worst}, mean {mean} logit"
    );
    // and the network is not trivially flat, or the comparison would prove nothing
    let spread = float_logits.iter().cloned().fold(f32::MIN, f32::max)
        - float_logits.iter().cloned().fold(f32::MAX, f32::min);
    assert!(spread > 0.5, "logits span only {spread}");
}

fn tensors(path: &Path) -> Vec<(String, Vec<f32>)> {
    let mut all: Vec<(String, Vec<f32>)> = tch::Tensor::read_safetensors(path)
        .expect("reads")
        .into_iter()
        .map(|(name, t)| {
            (
                name,
                Vec::<f32>::try_from(t.flatten(0, -1)).expect("floats"),
            )
        })
        .collect();
    all.sort_by(|a, b| a.0.cmp(&b.0));
    all
}

#[test]
fn a_stopped_run_resumes_to_the_weights_of_an_uninterrupted_one() {
    // one libtorch thread: with other tests training beside it, the default (every core) ended
    // 2 runs of 12 with weights off in the last bits (how libtorch's threads split a reduction
    // is not fixed under contention); resuming is what this test checks
    tavlei::nn::threads::train_here(1);
    let tmp = tempfile::tempdir().expect("tmp");
    let files = vec![positions_file(tmp.path(), "brandubh", 250)];
    let cfg = NnueTrainConfig {
        epochs: 4,
        ..tiny()
    };
    let whole = tmp.path().join("whole");
    train(&request(&files, &whole, &cfg), &mut |_| {}).expect("trains");

    let parts = tmp.path().join("parts");
    let mut first = request(&files, &parts, &cfg);
    first.stop_after = Some(2);
    let stopped = train(&first, &mut |_| {}).expect("trains two epochs");
    assert!(!stopped.finished && !parts.join("eval.nnue").exists());
    let mut again = request(&files, &parts, &cfg);
    again.resume = true;
    let resumed = train(&again, &mut |_| {}).expect("resumes");
    assert_eq!((resumed.start_epoch, resumed.epochs), (2, 4));
    assert_eq!(
        tensors(&parts.join("checkpoint.safetensors")),
        tensors(&whole.join("checkpoint.safetensors")),
        "resuming must reproduce the uninterrupted run"
    );
    let rows = |dir: &Path| read_metrics(&dir.join("metrics.csv")).expect("metrics");
    let heldout = |dir: &Path| rows(dir).iter().map(|r| r.heldout_loss).collect::<Vec<_>>();
    assert_eq!(heldout(&parts), heldout(&whole));

    // another seed is not the same run: refused, not silently mixed
    let mut other = request(&files, &parts, &cfg);
    other.resume = true;
    other.seed = 6;
    let err = train(&other, &mut |_| {}).expect_err("another seed");
    assert!(err.to_string().contains("--seed 5"), "{err}");

    // nor another target or weighting: the message names what changed
    let mixed = NnueTrainConfig {
        lambda: 0.25,
        balance_winners: true,
        ..cfg.clone()
    };
    let mut other = request(&files, &parts, &mixed);
    other.resume = true;
    let err = train(&other, &mut |_| {}).expect_err("another lambda");
    let text = err.to_string();
    assert!(
        text.contains("lambda 0.5 → 0.25") && text.contains("balance_winners false → true"),
        "{text}"
    );
}

#[test]
fn positions_of_another_variant_are_refused() {
    let tmp = tempfile::tempdir().expect("tmp");
    let brandubh = positions_file(tmp.path(), "brandubh", 60);
    let tablut = positions_file(tmp.path(), "tablut", 60);
    let out = tmp.path().join("run");
    // the config names the variant
    let cfg = NnueTrainConfig {
        variant: Some("brandubh".into()),
        ..tiny()
    };
    let files = vec![tablut.clone()];
    let err = train(&request(&files, &out, &cfg), &mut |_| {}).expect_err("tablut");
    assert!(matches!(err, NnueTrainError::WrongVariant { .. }), "{err}");
    let text = err.to_string();
    assert!(
        text.contains(&tablut.display().to_string())
            && text.contains("tablut")
            && text.contains("brandubh"),
        "{text}"
    );
    // no variant named: the files must agree with each other
    let files = vec![brandubh, tablut];
    let err = train(&request(&files, &out, &tiny()), &mut |_| {}).expect_err("mixed");
    assert!(err.to_string().contains("not brandubh"), "{err}");
    assert!(!out.join("eval.nnue").exists());
}

/// The clipping bound keeps every i16 accumulator in range on the fullest board, and is the
/// largest step that does.
#[test]
fn the_feature_weight_bound_cannot_overflow_an_accumulator() {
    for name in ["brandubh", "tablut", "copenhagen"] {
        let v = Variant::load(name).expect("preset");
        let features = FeatureSet::new(v.size);
        let step = (ft_weight_bound(&features) * 127.0).round() as i64;
        let sum = |q: i64| 127 + features.max_active() as i64 * q;
        assert!(sum(step) <= i16::MAX as i64, "{name}: {}", sum(step));
        assert!(sum(step + 1) > i16::MAX as i64, "{name}: not the largest");
    }
    assert_eq!((L1_WEIGHT_BOUND * 64.0).round(), 127.0);
}

#[test]
fn symmetries_move_pieces_and_targets_mix_score_and_result() {
    let v = Variant::load("brandubh").expect("preset");
    let start = Position::start(&v);
    let mut image = Vec::new();
    for &sym in &v.symmetries {
        transform_cells(start.cells(), sym, v.size, &mut image);
        assert_eq!(image, start.transformed(sym).cells(), "{sym:?}");
    }
    let p = |score, result| LabelledPosition {
        cells: vec![],
        side: 0,
        score,
        result,
        ply: 0,
    };
    assert_eq!(target(&p(0, 1), 0.5, 300.0), 0.75);
    assert_eq!(
        target(&p(999_000, -1), 0.5, 300.0),
        0.5,
        "a proven win is 1"
    );
    assert_eq!(
        target(&p(-999_000, 1), 1.0, 300.0),
        0.0,
        "a proven loss is 0"
    );
    assert!((target(&p(300, 0), 1.0, 300.0) - 0.731_058_6).abs() < 1e-6);
}

/// With `balance_winners`, the positions of the rarer winner's games weigh more, so that each
/// side's wins count equally, and the trained network rates that side's chances higher.
#[test]
fn balancing_the_winners_weighs_each_sides_wins_equally() {
    let set = random_positions("brandubh", 600, 11);
    let winners: Vec<Option<u8>> = set.positions.iter().map(winner).collect();
    let won = |side| winners.iter().filter(|&&w| w == Some(side)).count() as f64;
    let (attackers, defenders) = (won(0), won(1));
    assert!(
        attackers > 0.0 && defenders > attackers,
        "{attackers} {defenders}"
    );
    let weights = winner_weights(winners.iter().copied());
    assert!((attackers * weights[0] - defenders * weights[1]).abs() < 1e-6);
    assert!((attackers * weights[0] + defenders * weights[1] - attackers - defenders).abs() < 1e-6);
    // a side without a win, or no decided game, leaves every weight at 1
    assert_eq!(winner_weights([Some(1), None].into_iter()), [1.0, 1.0]);

    let tmp = tempfile::tempdir().expect("tmp");
    let files = vec![tmp.path().join("b.positions")];
    write_positions(&files[0], &set).expect("writes");
    // on results alone, so that only the weights differ between the two runs
    let plain = NnueTrainConfig {
        lambda: 0.0,
        ..tiny()
    };
    let balanced = NnueTrainConfig {
        balance_winners: true,
        ..plain.clone()
    };
    let mut attackers_chance = Vec::new();
    for (cfg, name, expected) in [
        (&plain, "plain", [1.0, 1.0]),
        (&balanced, "balanced", weights),
    ] {
        let out = tmp.path().join(name);
        let summary = train(&request(&files, &out, cfg), &mut |_| {}).expect("trains");
        assert_eq!(summary.winner_weights, expected, "{name}");
        let model =
            NnueModel::load(&out.join("checkpoint.safetensors"), set.board_size).expect("loads");
        let items: Vec<Item> = set
            .positions
            .iter()
            .map(|p| Item::new(p, 0.0, 300.0))
            .collect();
        let refs: Vec<&Item> = items.iter().collect();
        let chance: f64 = logits(&model, &refs)
            .expect("forward")
            .iter()
            .zip(&items)
            .map(|(&l, it)| {
                let to_move = 1.0 / (1.0 + (-l as f64).exp());
                if it.side == 0 {
                    to_move
                } else {
                    1.0 - to_move
                }
            })
            .sum::<f64>()
            / items.len() as f64;
        attackers_chance.push(chance);
    }
    assert!(
        attackers_chance[1] > attackers_chance[0] + 0.02,
        "the attackers' mean chance, plain then balanced: {attackers_chance:?}"
    );
}

#[test]
fn the_shipped_config_is_the_default() {
    let shipped = NnueTrainConfig::load(Path::new("configs/nnue/train.toml")).expect("parses");
    assert_eq!(shipped, NnueTrainConfig::default());
    let err =
        tavlei::config::parse::<NnueTrainConfig>("lambda = 1.5", "x.toml").expect_err("range");
    assert!(err.to_string().contains("lambda"), "{err}");
}
