//! Training: the loss falls on a small dataset, resuming gives the very same weights, symmetry
//! augmentation moves policy targets with the board, and bad input gets clear errors.

use std::path::{Path, PathBuf};

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use tavlei::data::{write_shard, Sample};
use tavlei::encode::policy::{policy_index, policy_size};
use tavlei::encode::Encoding;
use tavlei::nn::{Architecture, Network};
use tavlei::report::training::loss_chart;
use tavlei::rules::{Position, Reason, Side, Symmetry, Variant};
use tavlei::train::batch::{BatchBuilder, Item};
use tavlei::train::metrics::read_rows;
use tavlei::train::side_balance::SideWeights;
use tavlei::train::trainer::TrainRequest;
use tavlei::train::value_target::ValueTarget;
use tavlei::train::{train, TrainConfig, TrainSummary};

/// Positions of a few brandubh games, each labelled with a fixed rule the network can learn:
/// the target move is the first legal move, the value +1 when attackers are to move.
fn synthetic_samples(count: usize) -> Vec<Sample> {
    let v = Variant::load("brandubh").expect("preset");
    let mut out = Vec::new();
    let mut game = 0;
    while out.len() < count {
        let mut pos = Position::start(&v);
        let mut moves = Vec::new();
        for ply in 0..12 {
            pos.legal_moves(&mut moves);
            if moves.is_empty() || out.len() >= count {
                break;
            }
            let n = moves.len();
            let mut policy: Vec<(u32, f32)> = moves
                .iter()
                .map(|&m| (policy_index(m, v.size) as u32, 0.0))
                .collect();
            policy[0].1 = 1.0;
            out.push(Sample {
                game_id: game,
                ply,
                cells: pos.cells().to_vec(),
                side_to_move: pos.side_to_move(),
                berserk: None,
                roll: 0,
                plies_since_capture: pos.plies_since_capture(),
                passes: 0,
                occurrences: pos.occurrences() as u8,
                policy,
                result: if pos.side_to_move() == Side::Attackers {
                    1.0
                } else {
                    -1.0
                },
                search_value: 0.0,
                game_length: 12,
                reason: "length_cap".into(),
            });
            pos.play_unchecked(moves[(game as usize * 7 + ply as usize * 3) % n]);
        }
        game += 1;
    }
    out
}

fn tiny_config(steps: u64) -> TrainConfig {
    TrainConfig {
        steps,
        batch_size: 32,
        window: 10_000,
        validation_fraction: 0.1,
        learning_rate: 1e-2,
        warmup_steps: 0,
        log_every: 5,
        validate_every: 20,
        checkpoint_every: 5,
        ..TrainConfig::default()
    }
}

/// A scratch directory with a shard of synthetic samples and an initial network: the directory
/// (dropping it removes everything), the data directory and the network's path.
fn setup() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let tmp = tempfile::tempdir().expect("temp dir");
    let dir = tmp.path();
    let data = dir.join("data");
    std::fs::create_dir_all(&data).expect("data dir");
    write_shard(
        &data.join("shard-00000.shard"),
        "brandubh",
        &synthetic_samples(192),
    )
    .expect("shard");
    let init = dir.join("init.safetensors");
    Network::new(
        "brandubh",
        Architecture {
            blocks: 1,
            channels: 16,
        },
        tch::Device::Cpu,
        5,
    )
    .save(&init)
    .expect("init");
    (tmp, data, init)
}

fn request<'a>(
    data: &'a [PathBuf],
    init: &'a Path,
    out: &'a Path,
    run: &'a Path,
    cfg: &'a TrainConfig,
) -> TrainRequest<'a> {
    TrainRequest {
        data,
        init,
        out,
        run_dir: run,
        config: cfg,
        seed: 7,
        device: tch::Device::Cpu,
        resume: false,
        stop_at: None,
    }
}

#[test]
fn loss_falls_and_the_network_fits_a_small_dataset() {
    let (tmp, data, init) = setup();
    let dir = tmp.path();
    // the labelling rule (first move in generation order) is not symmetric: no augmentation
    let cfg = TrainConfig {
        augment: false,
        ..tiny_config(80)
    };
    let (out, run) = (dir.join("out.safetensors"), dir.join("run"));
    let summary =
        train(&request(&[data], &init, &out, &run, &cfg), &mut |_, _| {}).expect("trains");
    assert!(summary.finished && out.exists());
    let metrics = read_rows(&run.join("metrics.csv")).expect("metrics");
    loss_chart(&metrics, &run.join("loss.svg")).expect("the loss chart");
    assert!(run.join("loss.svg").exists());
    let png = std::fs::read(run.join("loss.png")).expect("the loss plot as PNG");
    assert!(png.starts_with(b"\x89PNG"), "a PNG image");
    let rows: Vec<_> = read_rows(&run.join("metrics.csv"))
        .expect("metrics")
        .into_iter()
        .filter(|r| r.split == "train")
        .collect();
    let (first, last) = (&rows[0], &rows[rows.len() - 1]);
    assert!(
        last.policy_loss < first.policy_loss * 0.5,
        "policy loss {} -> {}",
        first.policy_loss,
        last.policy_loss
    );
    assert!(
        last.value_loss < first.value_loss * 0.5,
        "value loss {} -> {}",
        first.value_loss,
        last.value_loss
    );
    assert!(
        last.policy_accuracy > 0.8,
        "top-move accuracy {}",
        last.policy_accuracy
    );
    assert!(
        last.value_sign_accuracy > 0.9,
        "value sign accuracy {}",
        last.value_sign_accuracy
    );
    assert_eq!(
        Network::load(&out, Some("brandubh"), tch::Device::Cpu)
            .expect("loads")
            .meta
            .step,
        80
    );
}

fn weights(path: &Path) -> Vec<(String, Vec<f32>)> {
    let net = Network::load(path, None, tch::Device::Cpu).expect("loads");
    sorted_floats(net.vs.variables())
}

/// Named tensors as sorted (name, values) rows, for comparing weights.
fn sorted_floats(
    tensors: impl IntoIterator<Item = (String, tch::Tensor)>,
) -> Vec<(String, Vec<f32>)> {
    let mut rows: Vec<(String, Vec<f32>)> = tensors
        .into_iter()
        .map(|(k, t)| (k, Vec::<f32>::try_from(t.flatten(0, -1)).expect("floats")))
        .collect();
    rows.sort_by(|a, b| a.0.cmp(&b.0));
    rows
}

#[test]
fn a_resumed_run_ends_with_the_same_weights() {
    let (tmp, data, init) = setup();
    let dir = tmp.path();
    let cfg = tiny_config(12);
    let data = [data];
    let (whole, _) = run_named(dir, &data, &init, &cfg, "whole", None);
    let (cut, cut_run) = (dir.join("cut.safetensors"), dir.join("cut"));
    let mut first = request(&data, &init, &cut, &cut_run, &cfg);
    first.stop_at = Some(7); // killed after step 7 (its last checkpoint was at step 5... and 7)
    assert!(!train(&first, &mut |_, _| {}).expect("trains").finished);
    assert!(!cut.exists(), "no final checkpoint before the run ends");
    let mut again = request(&data, &init, &cut, &cut_run, &cfg);
    again.resume = true;
    let resumed = train(&again, &mut |_, _| {}).expect("resumes");
    assert_eq!(resumed.start_step, 7);
    assert_eq!(
        weights(&whole),
        weights(&cut),
        "resume must reproduce the uninterrupted run"
    );
    let steps: Vec<u64> = read_rows(&cut_run.join("metrics.csv"))
        .expect("metrics")
        .iter()
        .filter(|r| r.split == "train")
        .map(|r| r.step)
        .collect();
    assert_eq!(
        steps,
        vec![5, 7, 10, 12],
        "metrics rows are neither lost nor doubled"
    );
}

/// Every tensor of a weights file, by name (the reply head's too, which `Network::load` skips).
fn all_tensors(path: &Path) -> Vec<(String, Vec<f32>)> {
    sorted_floats(tch::Tensor::read_safetensors(path).expect("reads"))
}

#[test]
fn the_opponents_reply_trains_a_head_that_resumes_and_that_play_never_loads() {
    let (tmp, data, init) = setup();
    let dir = tmp.path();
    let data = [data];
    let cfg = TrainConfig {
        reply_weight: 0.15,
        ..tiny_config(12)
    };
    let (with, _) = run_named(dir, &data, &init, &cfg, "with", None);
    let (without, _) = run_named(dir, &data, &init, &tiny_config(12), "without", None);
    let tensors = all_tensors(&with);
    let reply: Vec<&String> = tensors
        .iter()
        .map(|(k, _)| k)
        .filter(|k| k.starts_with("reply."))
        .collect();
    assert!(reply.len() >= 5, "the head is saved: {reply:?}");
    assert!(
        all_tensors(&without)
            .iter()
            .all(|(k, _)| !k.starts_with("reply.")),
        "no head without the setting"
    );
    // the network loads and plays as any other, and its trunk learned from the replies
    let net = Network::load(&with, Some("brandubh"), tch::Device::Cpu).expect("loads");
    assert!(net.vs.variables().keys().all(|k| !k.starts_with("reply.")));
    assert_ne!(
        weights(&with),
        weights(&without),
        "the reply loss reaches the trunk"
    );
    // killed and resumed, the head comes back from the step's checkpoint, not afresh
    let (cut, cut_run) = (dir.join("cut.safetensors"), dir.join("cut"));
    let mut first = request(&data, &init, &cut, &cut_run, &cfg);
    first.stop_at = Some(7);
    train(&first, &mut |_, _| {}).expect("trains");
    let mut again = request(&data, &init, &cut, &cut_run, &cfg);
    again.resume = true;
    train(&again, &mut |_, _| {}).expect("resumes");
    assert_eq!(
        all_tensors(&with),
        all_tensors(&cut),
        "resume reproduces the head too"
    );
}

/// A run named `name` in `dir` (stopped, as if killed, after `stop_at` steps when given): its
/// final weights file (written only when it ends) and its run directory.
fn run_named(
    dir: &Path,
    data: &[PathBuf],
    init: &Path,
    cfg: &TrainConfig,
    name: &str,
    stop_at: Option<u64>,
) -> (PathBuf, PathBuf) {
    let (out, run) = (dir.join(format!("{name}.safetensors")), dir.join(name));
    let mut req = request(data, init, &out, &run, cfg);
    req.stop_at = stop_at;
    train(&req, &mut |_, _| {}).expect("trains");
    (out, run)
}

/// A whole training run named `name` in `dir`: its summary and the network it wrote.
fn trained(
    dir: &Path,
    data: &[PathBuf],
    init: &Path,
    cfg: &TrainConfig,
    name: &str,
) -> (TrainSummary, PathBuf) {
    let out = dir.join(format!("{name}.safetensors"));
    let summary = train(
        &request(data, init, &out, &dir.join(name), cfg),
        &mut |_, _| {},
    )
    .expect("trains");
    (summary, out)
}

/// The files of one committed step (`checkpoints/step-STEP/`).
fn step_dir(run: &Path, step: u64) -> PathBuf {
    run.join("checkpoints").join(format!("step-{step:08}"))
}

/// Names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("lists")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn a_kill_while_a_checkpoint_is_written_resumes_from_the_committed_one() {
    let (tmp, data, init) = setup();
    let dir = tmp.path();
    let cfg = tiny_config(12);
    let data = [data];
    let (whole, whole_run) = run_named(dir, &data, &init, &cfg, "whole", None);
    assert_eq!(names(&whole_run.join("checkpoints")), ["step-00000012"]);
    // a run that got further, to borrow step 10's weights from
    let (_, ahead_run) = run_named(dir, &data, &init, &cfg, "ahead", Some(10));
    let (cut, cut_run) = run_named(dir, &data, &init, &cfg, "cut", Some(7));
    // killed while step 10 was written: its weights are there, its optimizer state and the
    // state.json naming it are not
    let torn = step_dir(&cut_run, 10);
    std::fs::create_dir_all(&torn).expect("dir");
    for name in ["checkpoint.safetensors", "checkpoint.json"] {
        std::fs::copy(step_dir(&ahead_run, 10).join(name), torn.join(name)).expect("copy");
    }
    let mut again = request(&data, &init, &cut, &cut_run, &cfg);
    again.resume = true;
    let resumed = train(&again, &mut |_, _| {}).expect("resumes");
    assert_eq!(resumed.start_step, 7, "resumes from the committed step");
    assert_eq!(weights(&whole), weights(&cut), "as if never killed");
    assert_eq!(
        names(&cut_run.join("checkpoints")),
        ["step-00000012"],
        "superseded and torn steps are removed"
    );
}

#[test]
fn a_run_directory_of_the_old_layout_resumes() {
    let (tmp, data, init) = setup();
    let dir = tmp.path();
    let cfg = tiny_config(12);
    let data = [data];
    let (whole, _) = run_named(dir, &data, &init, &cfg, "whole", None);
    let (cut, cut_run) = run_named(dir, &data, &init, &cfg, "cut", Some(7));
    // before step directories, the weights and optimizer state lay at the top
    for name in names(&step_dir(&cut_run, 7)) {
        std::fs::rename(step_dir(&cut_run, 7).join(&name), cut_run.join(&name)).expect("moves");
    }
    std::fs::remove_dir_all(cut_run.join("checkpoints")).expect("removes");
    let mut again = request(&data, &init, &cut, &cut_run, &cfg);
    again.resume = true;
    assert_eq!(
        train(&again, &mut |_, _| {}).expect("resumes").start_step,
        7
    );
    assert_eq!(weights(&whole), weights(&cut), "as if never moved");
    assert!(
        !cut_run.join("optimizer.safetensors").exists(),
        "the old layout's files go once a step directory holds the state"
    );
}

#[test]
fn augmentation_moves_policy_targets_with_the_board() {
    let v = Variant::load("brandubh").expect("preset");
    let samples = synthetic_samples(24);
    let builder = BatchBuilder::new(v.clone(), Encoding::CURRENT, true);
    let per = Encoding::CURRENT.planes() * v.squares;
    let n = v.squares;
    let p = policy_size(v.size);
    // each sample's reply is its own policy: the two must move with the board alike
    let items: Vec<Item> = samples
        .iter()
        .map(|s| Item {
            sample: s,
            value: s.result,
            value_weight: 1.0,
            reply: Some(&s.policy),
        })
        .collect();
    let batch = builder
        .build(&items, &mut ChaCha8Rng::seed_from_u64(3), tch::Device::Cpu)
        .expect("batch");
    let replies = batch.reply.as_ref().expect("replies");
    assert!(replies.policy.equal(&batch.policy) && replies.legal.equal(&batch.legal));
    assert_eq!(
        replies.present.sum(tch::Kind::Float).double_value(&[]),
        24.0
    );
    let planes = Vec::<f32>::try_from(batch.planes.flatten(0, -1)).expect("planes");
    let policy = Vec::<f32>::try_from(batch.policy.flatten(0, -1)).expect("policy");
    let legal = Vec::<f32>::try_from(batch.legal.flatten(0, -1)).expect("legal");
    let mut used = std::collections::HashSet::new();
    for (i, s) in samples.iter().enumerate() {
        let pos = s.position(&v).expect("position");
        let mut original = Vec::new();
        pos.legal_moves(&mut original);
        let row = &planes[i * per..(i + 1) * per];
        let legal_row: Vec<usize> = (0..p).filter(|&j| legal[i * p + j] == 1.0).collect();
        let target = (0..p)
            .find(|&j| policy[i * p + j] == 1.0)
            .expect("one-hot target");
        // the symmetries whose image of the board is this row's piece planes
        let fits = |sym: Symmetry| {
            let image = pos.transformed(sym);
            (0..5 * n).all(|k| row[k] == Encoding::CURRENT.encode(&image)[k])
        };
        let sym = Symmetry::ALL
            .into_iter()
            .filter(|&sym| fits(sym))
            .find(|&sym| {
                let mut moves = Vec::new();
                pos.transformed(sym).legal_moves(&mut moves);
                let mut expected: Vec<usize> =
                    moves.iter().map(|&m| policy_index(m, v.size)).collect();
                expected.sort_unstable();
                expected == legal_row
                    && target == policy_index(original[0].transformed(sym, v.size), v.size)
            })
            .unwrap_or_else(|| {
                panic!("sample {i}: no symmetry explains its planes, mask and target")
            });
        used.insert(sym);
    }
    assert!(
        used.len() > 2,
        "augmentation should use several symmetries: {used:?}"
    );
}

#[test]
fn bad_input_gets_clear_errors() {
    let (tmp, data, init) = setup();
    let dir = tmp.path();
    let cfg = tiny_config(4);
    let (out, run) = (dir.join("out.safetensors"), dir.join("run"));
    let empty = dir.join("empty");
    std::fs::create_dir_all(&empty).expect("dir");
    let err =
        train(&request(&[empty], &init, &out, &run, &cfg), &mut |_, _| {}).expect_err("no data");
    assert!(err.to_string().contains("no training samples"), "{err}");
    // a network of another variant finds no usable shard
    let other = dir.join("tavlei.safetensors");
    Network::new(
        "tavlei",
        Architecture {
            blocks: 1,
            channels: 8,
        },
        tch::Device::Cpu,
        1,
    )
    .save(&other)
    .expect("init");
    let err = train(
        &request(std::slice::from_ref(&data), &other, &out, &run, &cfg),
        &mut |_, _| {},
    )
    .expect_err("wrong variant");
    assert!(err.to_string().contains("no training samples"), "{err}");
    // a corrupt shard beside a good one is skipped, and training goes on
    std::fs::write(data.join("shard-00001.shard"), b"TAVLSHRD garbage").expect("writes");
    let summary =
        train(&request(&[data], &init, &out, &run, &cfg), &mut |_, _| {}).expect("trains");
    assert_eq!(summary.skipped_shards, 1);
}

#[test]
fn discounted_value_targets_shrink_with_the_plies_left() {
    let v = Variant::load("brandubh").expect("preset");
    let samples = synthetic_samples(6);
    let build = |discount: f64| {
        let target = ValueTarget {
            discount,
            ..ValueTarget::RESULT
        };
        let items: Vec<Item> = samples
            .iter()
            .zip(target.of(&samples))
            .map(|(sample, value)| Item {
                sample,
                value,
                value_weight: 1.0,
                reply: None,
            })
            .collect();
        let batch = BatchBuilder::new(v.clone(), Encoding::CURRENT, false)
            .build(&items, &mut ChaCha8Rng::seed_from_u64(1), tch::Device::Cpu)
            .expect("batch");
        assert!(batch.reply.is_none(), "no reply tensors without replies");
        Vec::<f32>::try_from(batch.value).expect("values")
    };
    let plain = build(1.0);
    let halved = build(0.5);
    for (i, s) in samples.iter().enumerate() {
        assert_eq!(plain[i], s.result);
        let left = (s.game_length - s.ply) as i32;
        assert!(left > 0, "sample {i} is not the last position");
        assert_eq!(halved[i], s.result * 0.5f32.powi(left), "sample {i}");
    }
}

/// Games left out of the value loss (`value_leave_out`) train the policy only: on games that all
/// ended by repetition, leaving out repetitions keeps the value head's own layers at their first
/// weights while the policy head moves, where leaving out another reason trains both; the value
/// loss is reported over the samples that count (none: NaN) and the summary counts those left out.
#[test]
fn games_left_out_of_the_value_loss_train_the_policy_only() {
    let (tmp, _, init) = setup();
    let dir = tmp.path();
    let data = dir.join("repetitions");
    std::fs::create_dir_all(&data).expect("data dir");
    let samples: Vec<Sample> = synthetic_samples(192)
        .into_iter()
        .map(|s| Sample {
            reason: "repetition".into(),
            ..s
        })
        .collect();
    write_shard(&data.join("shard-00000.shard"), "brandubh", &samples).expect("shard");
    let head = |path: &Path, prefix: &str| -> Vec<(String, Vec<f32>)> {
        weights(path)
            .into_iter()
            .filter(|(name, _)| name.starts_with(prefix))
            .collect()
    };
    let dirs = [data.clone()];
    let run = |leave_out: Reason, name: &str| {
        // no weight decay: a layer without gradients keeps its weights exactly
        let cfg = TrainConfig {
            weight_decay: 0.0,
            value_leave_out: vec![leave_out],
            ..tiny_config(10)
        };
        trained(dir, &dirs, &init, &cfg, name)
    };
    let (left, left_net) = run(Reason::Repetition, "left-out");
    let (kept, kept_net) = run(Reason::KingEscaped, "kept");
    for layer in ["value_hidden", "value_out"] {
        assert_eq!(head(&left_net, layer), head(&init, layer), "{layer} moved");
        assert_ne!(
            head(&kept_net, layer),
            head(&init, layer),
            "{layer} did not train"
        );
    }
    assert_ne!(
        head(&left_net, "policy_squares"),
        head(&init, "policy_squares")
    );
    assert_eq!(left.value_left_out, 192);
    assert_eq!(kept.value_left_out, 0);
    let value_loss = |s: &TrainSummary| s.last_train.expect("a train row").1;
    assert!(value_loss(&left).is_nan(), "{}", value_loss(&left));
    assert!(value_loss(&kept).is_finite() && value_loss(&kept) > 0.0);
}

/// `value_side_balance` weighs the value loss so that both sides' wins count alike: on twenty
/// copies of one game that the attackers won eighteen times, the plain value head learns about
/// +0.8 for the attackers to move at the start, the balanced one about 0; the summary gives the
/// weights (5/9 for a sample of the attackers' wins, 5 for the defenders').
#[test]
fn side_balance_evens_out_the_value_of_a_one_sided_window() {
    let (tmp, _, init) = setup();
    let dir = tmp.path();
    let data = dir.join("one-sided");
    std::fs::create_dir_all(&data).expect("data dir");
    let game: Vec<Sample> = synthetic_samples(12);
    let samples: Vec<Sample> = (0..20u64)
        .flat_map(|g| {
            // games 0 and 1 the defenders won, the other eighteen the attackers
            let winner = if g < 2 {
                Side::Defenders
            } else {
                Side::Attackers
            };
            game.iter().map(move |s| Sample {
                game_id: g,
                result: if s.side_to_move == winner { 1.0 } else { -1.0 },
                ..s.clone()
            })
        })
        .collect();
    write_shard(&data.join("shard-00000.shard"), "brandubh", &samples).expect("shard");
    let start = Position::start(&Variant::load("brandubh").expect("preset"));
    let dirs = [data.clone()];
    let value_at_start = |balance: f64, name: &str| {
        let cfg = TrainConfig {
            value_side_balance: balance,
            validation_fraction: 0.0,
            augment: false,
            ..tiny_config(120)
        };
        let (summary, out) = trained(dir, &dirs, &init, &cfg, name);
        let net = Network::load(&out, None, tch::Device::Cpu).expect("loads");
        let (_, values) = net.evaluate(&[&start]).expect("evaluates");
        (summary, values[0])
    };
    let (plain, plain_value) = value_at_start(0.0, "plain");
    let (balanced, balanced_value) = value_at_start(1.0, "balanced");
    assert!(plain_value > 0.5, "plain {plain_value}");
    assert!(balanced_value.abs() < 0.3, "balanced {balanced_value}");
    let w = balanced.value_side_weights;
    assert!(
        (w.attackers - 10.0 / 18.0).abs() < 1e-5 && (w.defenders - 5.0).abs() < 1e-5,
        "{w:?}"
    );
    assert_eq!(plain.value_side_weights, SideWeights::EQUAL);
}

/// The hand-written optimizers take the same steps as libtorch's own (`tch::nn::Adam` and
/// `tch::nn::Sgd`, i.e. torch::optim) from the same weights and gradients, step by step, with
/// weight decay and a learning rate that changes between steps.
#[test]
fn optimizers_match_libtorchs_step_by_step() {
    use tavlei::train::config::OptimizerKind;
    use tavlei::train::optimizer::Optimizer;
    use tch::nn::{self, Module, OptimizerConfig};
    use tch::{Device, Kind, Tensor};

    for kind in [OptimizerKind::Adam, OptimizerKind::Sgd] {
        // libtorch's generator is the process's: taken alone, so trainings beside this test
        // keep to their seeds (and this one to its own)
        let ours_vs = nn::VarStore::new(Device::Cpu);
        let (ours_net, input, target) = tavlei::nn::seeded::with_seed(7, || {
            (
                nn::linear(ours_vs.root() / "layer", 5, 3, Default::default()),
                Tensor::randn([8, 5], (Kind::Float, Device::Cpu)),
                Tensor::randn([8, 3], (Kind::Float, Device::Cpu)),
            )
        });
        let mut theirs_vs = nn::VarStore::new(Device::Cpu);
        let theirs_net = tavlei::nn::seeded::exclusive(|| {
            nn::linear(theirs_vs.root() / "layer", 5, 3, Default::default())
        });
        theirs_vs.copy(&ours_vs).expect("same weights");

        let cfg = TrainConfig {
            optimizer: kind,
            momentum: 0.9,
            weight_decay: 1e-2,
            ..TrainConfig::default()
        };
        let mut ours = Optimizer::new(&ours_vs, &cfg);
        let mut theirs = match kind {
            OptimizerKind::Adam => nn::Adam {
                wd: cfg.weight_decay,
                ..nn::Adam::default()
            }
            .build(&theirs_vs, 0.01),
            OptimizerKind::Sgd => nn::Sgd {
                momentum: cfg.momentum,
                wd: cfg.weight_decay,
                ..nn::Sgd::default()
            }
            .build(&theirs_vs, 0.01),
        }
        .expect("libtorch optimizer");

        let before = ours_vs.variables()["layer.weight"].copy();
        let loss = |net: &nn::Linear| (net.forward(&input) - &target).square().mean(Kind::Float);
        for (step, lr) in [0.01, 0.01, 0.005, 0.02, 0.01, 0.001]
            .into_iter()
            .enumerate()
        {
            ours.zero_grad();
            loss(&ours_net).backward();
            ours.step(lr);
            theirs.set_lr(lr);
            theirs.zero_grad();
            loss(&theirs_net).backward();
            theirs.step();
            for (name, mine) in ours_vs.variables() {
                let other = &theirs_vs.variables()[&name];
                let gap = (&mine - other).abs().max().double_value(&[]);
                assert!(gap < 1e-6, "{kind:?} step {step} {name}: differs by {gap}");
            }
        }
        // and they moved: the comparison is not between two unchanged networks
        let moved = (&ours_vs.variables()["layer.weight"] - &before).abs().max();
        assert!(
            moved.double_value(&[]) > 1e-4,
            "{kind:?} did not move the weights"
        );
    }
}
