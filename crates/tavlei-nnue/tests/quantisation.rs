//! Integer inference against the float model, by hand and on random positions, and the
//! quantisation's refusals.

mod common;

use std::collections::BTreeMap;

use tavlei_nnue::{FeatureSet, FloatNetwork, Meta, Network, NnueError, QA, QB};
use tavlei_rules::piece::{Piece, PieceKind, EMPTY};
use tavlei_rules::{Side, Variant};

const SCALE: f64 = (QA * QB) as f64; // y_q per logit

/// Largest |y_q - 127 * 64 * y_float| in logits over the positions of random games, both sides
/// to move.
fn max_error(net: &Network, float: &FloatNetwork, variant: &str, games: u64) -> f64 {
    let variant = Variant::load(variant).unwrap();
    let fs = net.features();
    let mut acc = net.new_accumulator();
    let mut worst = 0.0f64;
    let mut active = Vec::new();
    for game in 0..games {
        for (_, cells, _) in common::random_game(&variant, 77 + game, 120) {
            net.refresh(&cells, &mut acc);
            active.clear();
            fs.active(&cells, &mut active);
            for side in [Side::Attackers, Side::Defenders] {
                let exact = float.evaluate(&active, side) as f64;
                let got = net.output(&acc, side) as f64 / SCALE;
                worst = worst.max((got - exact).abs());
                // the score the search sees is the same value, truncated to 1/1000 logit
                let score = net.evaluate(&acc, side) as f64 / 1000.0;
                assert!((score - got).abs() < 0.001 + 1e-9);
            }
        }
    }
    worst
}

/// With every weight on its quantisation grid the integer path is exact up to one rounding: the
/// head's `>> 6` floors `127 h` by less than 1, so |y_q - 8128 y| <= (63/64) sum |out.weight_q|
/// (plus f32 noise in the float model, a few y_q units). This bound is rigorous, not empirical.
#[test]
fn integer_inference_matches_a_float_model_on_its_grid_within_the_head_rounding() {
    for name in ["copenhagen", "brandubh"] {
        let variant = Variant::load(name).unwrap();
        let float = common::grid_float(common::meta(&variant, 64, 16), 11);
        let net = Network::quantise(&float).unwrap();
        let worst_side = [0usize, 1]
            .iter()
            .map(|&s| {
                float.out_weight[s * 16..(s + 1) * 16]
                    .iter()
                    .map(|w| (w * 64.0).round().abs() as f64)
                    .sum::<f64>()
            })
            .fold(0.0, f64::max);
        let bound = (worst_side * 63.0 / 64.0 + 8.0) / SCALE;
        let err = max_error(&net, &float, name, 4);
        assert!(
            err <= bound,
            "{name}: error {err} logits above the bound {bound}"
        );
    }
}

/// The error a random rounding of every weight should cause, in logits, for side `s` (a model,
/// not a proof): each weight rounds by a uniform error of +-half a unit, independently, so the
/// accumulator's error has variance (k+1)/12 units of 1/127 (k active features plus the bias);
/// a hidden unit's pre-activation adds that times sum W1^2, plus N/12 units of 1/64 from its own
/// weights (activations at most 1); the output sums those over the hidden units weighted by
/// W2^2 (every unit taken as unsaturated: an overestimate). Five standard deviations, plus the
/// deterministic parts: the head's floor (under 1/127 per hidden unit, times |W2|) and W2's own
/// rounding (1/128 per unit, times h <= 1).
fn quantisation_tolerance(float: &FloatNetwork, s: usize, max_active: usize) -> f64 {
    let (n, h) = (float.meta.width, float.meta.hidden);
    let var_acc = (max_active as f64 + 1.0) / 12.0 / (127.0f64 * 127.0);
    let var_w1 = n as f64 / 12.0 / (64.0f64 * 64.0);
    let mut var_y = 0.0;
    let mut fixed = 0.0;
    for j in s * h..(s + 1) * h {
        let w1_sq: f64 = float.l1_weight[j * n..(j + 1) * n]
            .iter()
            .map(|&w| (w as f64).powi(2))
            .sum();
        let w2 = float.out_weight[j] as f64;
        var_y += w2 * w2 * (var_acc * w1_sq + var_w1);
        fixed += w2.abs() / 127.0 + 0.5 / 64.0;
    }
    5.0 * var_y.sqrt() + fixed
}

/// Off the grid, the integer path may differ from the float one by the rounding of the weights:
/// the tolerance is `quantisation_tolerance` (a five-sigma model of that rounding), and the test
/// also prints how much of it was used. Weights at the scale of a trained head (|W1| <= 0.3).
#[test]
fn integer_inference_matches_a_random_float_model_within_the_quantisation_error() {
    for name in ["copenhagen", "brandubh"] {
        let variant = Variant::load(name).unwrap();
        let mut float = common::random_float(common::meta(&variant, 128, 16), 5);
        float.l1_weight.iter_mut().for_each(|w| *w *= 0.3);
        let net = Network::quantise(&float).unwrap();
        let max_active = 2 * variant.start.iter().filter(|&&c| c != EMPTY).count();
        let tolerance = [0, 1]
            .iter()
            .map(|&s| quantisation_tolerance(&float, s, max_active))
            .fold(f64::INFINITY, f64::min);
        let err = max_error(&net, &float, name, 4);
        eprintln!("{name}: largest error {err:.4} logits, tolerance {tolerance:.4}");
        assert!(
            err <= tolerance,
            "{name}: error {err} logits above {tolerance}"
        );
    }
}

/// A 3x3 board, N = 2, H = 1: an attacker on b1 (square 1), the king on b2 (square 4).
fn tiny() -> (FloatNetwork, Vec<u8>) {
    let fs = FeatureSet::new(3);
    let mut cells = vec![EMPTY; 9];
    cells[1] = Piece::new(Side::Attackers, PieceKind::Taflman).code();
    cells[4] = Piece::KING.code();
    let mut active = Vec::new();
    fs.active(&cells, &mut active);
    // attacker square 1; attacker one rank below the king: 72 + (-1 + 2) * 5 + (0 + 2);
    // king (class 5) square 4: 5 * 9 + 4
    assert_eq!(active, vec![1, 79, 49]);
    let (n, h) = (2, 1);
    let mut ft_weight = vec![0.5; fs.count() * n]; // inactive rows must not count
    for (f, row) in [(1, [30, 5]), (79, [-4, 120]), (49, [50, 40])] {
        ft_weight[f * n] = row[0] as f32 / 127.0;
        ft_weight[f * n + 1] = row[1] as f32 / 127.0;
    }
    let float = FloatNetwork {
        meta: Meta {
            variant: "tiny".into(),
            board_size: 3,
            width: n,
            hidden: h,
            provenance: BTreeMap::new(),
        },
        ft_weight,
        ft_bias: vec![10.0 / 127.0, -20.0 / 127.0],
        l1_weight: vec![3.0 / 64.0, -2.0 / 64.0, -5.0 / 64.0, 1.0 / 64.0],
        l1_bias: vec![500.0 / 8128.0, -30.0 / 8128.0],
        out_weight: vec![40.0 / 64.0, 7.0 / 64.0],
        out_bias: vec![-100.0 / 8128.0, -813.0 / 8128.0],
    };
    (float, cells)
}

/// By hand: acc = (10 + 30 - 4 + 50, -20 + 5 + 120 + 40) = (86, 145), a = (86, 127).
/// Attackers: 86*3 + 127*(-2) + 500 = 504, >> 6 = 7; y = 7*40 - 100 = 180; 180000 / 8128 = 22.1
/// -> 22. Defenders: -430 + 127 - 30 = -333, >> 6 = -6 (a floor), clamped to 0; y = -813;
/// -813000 / 8128 = -100.02 -> -100 (truncated toward zero).
#[test]
fn a_tiny_network_gives_the_hand_computed_integers() {
    let (float, cells) = tiny();
    let net = Network::quantise(&float).unwrap();
    let mut acc = net.new_accumulator();
    net.refresh(&cells, &mut acc);
    assert_eq!(acc.values(), &[86, 145]);
    assert_eq!(net.output(&acc, Side::Attackers), 180);
    assert_eq!(net.evaluate(&acc, Side::Attackers), 22);
    assert_eq!(net.output(&acc, Side::Defenders), -813);
    assert_eq!(net.evaluate(&acc, Side::Defenders), -100);
    assert_eq!(net.evaluate_cells(&cells, Side::Defenders), -100);
}

/// A change that makes one weight unrepresentable.
type Spoil = fn(&mut FloatNetwork);

#[test]
fn quantise_names_a_weight_out_of_its_integer_range() {
    let (good, _) = tiny();
    let cases: [(&str, usize, Spoil); 4] = [
        ("l1.weight", 2, |f| f.l1_weight[2] = 2.0), // 128 > i8::MAX
        ("ft.weight", 7, |f| f.ft_weight[7] = 300.0), // 38100 > i16::MAX
        ("out.bias", 1, |f| f.out_bias[1] = f32::NAN),
        ("ft.bias", 0, |f| f.ft_bias[0] = -258.1), // below i16::MIN
    ];
    for (tensor, index, spoil) in cases {
        let mut float = good.clone();
        spoil(&mut float);
        match Network::quantise(&float) {
            Err(NnueError::OutOfRange {
                tensor: t,
                index: i,
                ..
            }) => {
                assert_eq!((t.as_str(), i), (tensor, index));
            }
            other => panic!("{tensor}: expected OutOfRange, got {other:?}"),
        }
        let message = Network::quantise(&float).unwrap_err().to_string();
        assert!(
            message.contains(tensor) && message.contains(&format!("[{index}]")),
            "{message}"
        );
    }
    // every weight fits i16, but 18 active features of 200 * 127 each would wrap the sums
    let mut float = good.clone();
    float.ft_weight.iter_mut().for_each(|w| *w = 200.0);
    assert!(matches!(
        Network::quantise(&float),
        Err(NnueError::AccumulatorRange { column: 0, .. })
    ));
}
