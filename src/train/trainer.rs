//! The training loop. Data order and augmentation are functions of the seed and the step, and
//! checkpoints carry the optimizer state, each step in its own directory committed by `state.json`,
//! so a run killed at any point resumes exactly.

use std::path::{Path, PathBuf};
use std::time::Instant;

use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use tch::{Device, Kind, Tensor};

use super::batch::{Batch, BatchBuilder, Item};
use super::config::TrainConfig;
use super::metrics::{self, Row, Totals};
use super::optimizer::Optimizer;
use super::reply::{reply_targets, ReplyHead};
use super::side_balance::SideWeights;
use crate::data::{read_dir, DataError, Sample};
use crate::nn::{CheckpointError, Network};
use crate::rules::RulesError;

#[derive(Debug, thiserror::Error)]
pub enum TrainError {
    #[error("no training samples in {0} (run `tavlei selfplay` first)")]
    NoData(String),
    #[error(transparent)]
    Data(#[from] DataError),
    #[error(transparent)]
    Checkpoint(#[from] CheckpointError),
    #[error("the checkpoint's variant cannot be loaded: {0}")]
    Variant(#[from] RulesError),
    #[error("{path}: {message}")]
    Io { path: PathBuf, message: String },
    #[error("libtorch: {0}")]
    Torch(#[from] tch::TchError),
    #[error(transparent)]
    Store(#[from] crate::store::StoreError),
}

/// One training run.
pub struct TrainRequest<'a> {
    pub data: &'a [PathBuf],
    pub init: &'a Path,
    pub out: &'a Path,
    /// Holds metrics, plots and the resumable state.
    pub run_dir: &'a Path,
    pub config: &'a TrainConfig,
    pub seed: u64,
    pub device: Device,
    /// Continue from the state in `run_dir` if there is one.
    pub resume: bool,
    /// Stop (as if killed, after a checkpoint) once this many steps are done.
    pub stop_at: Option<u64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct TrainSummary {
    pub start_step: u64,
    pub steps: u64,
    pub train_samples: usize,
    pub validation_samples: usize,
    pub skipped_shards: usize,
    /// Samples (trained on or held out) whose games `value_leave_out` leaves out of the value
    /// loss.
    pub value_left_out: usize,
    /// The value-loss weights of samples from games each side won (`value_side_balance`).
    pub value_side_weights: SideWeights,
    pub last_train: Option<(f64, f64)>,
    pub last_validation: Option<(f64, f64)>,
    pub samples_per_s: f64,
    pub seconds: f64,
    pub finished: bool,
}

/// `state.json`: the resumable state. Written last, it is what commits a checkpoint: the run
/// resumes from `checkpoints/step-STEP/` of the step it names, whatever a kill left beside it.
#[derive(Serialize, Deserialize)]
struct State {
    step: u64,
    seed: u64,
    init_step: u64,
}

/// Where the weights and optimizer state of one step live: one directory per step, so that a
/// kill while the next step's files are written leaves the committed pair whole.
struct StepFiles {
    weights: PathBuf,
    optimizer: PathBuf,
}

impl StepFiles {
    fn of(run_dir: &Path, step: u64) -> StepFiles {
        let dir = run_dir.join("checkpoints").join(format!("step-{step:08}"));
        StepFiles {
            weights: dir.join("checkpoint.safetensors"),
            optimizer: dir.join("optimizer.safetensors"),
        }
    }

    /// The layout before step directories (weights and optimizer at the top of the run
    /// directory), still resumed when its two files agree.
    fn legacy(run_dir: &Path) -> StepFiles {
        StepFiles {
            weights: run_dir.join("checkpoint.safetensors"),
            optimizer: run_dir.join("optimizer.safetensors"),
        }
    }
}

/// After `keep` is committed: removes every other step directory (the ones it superseded or a
/// kill left uncommitted) and the legacy layout's files.
fn remove_other_steps(run_dir: &Path, keep: u64) -> Result<(), TrainError> {
    let legacy = StepFiles::legacy(run_dir);
    let sidecar = crate::nn::checkpoint::sidecar_path(&legacy.weights);
    for file in [&legacy.weights, &sidecar, &legacy.optimizer] {
        match std::fs::remove_file(file) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(io(file)(e)),
            _ => {}
        }
    }
    let dir = run_dir.join("checkpoints");
    let entries = match std::fs::read_dir(&dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(io(&dir)(e)),
    };
    let keep = format!("step-{keep:08}");
    for entry in entries {
        let entry = entry.map_err(io(&dir))?;
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with("step-") && name != keep {
            std::fs::remove_dir_all(entry.path()).map_err(io(&entry.path()))?;
        }
    }
    Ok(())
}

fn io(path: &Path) -> impl Fn(std::io::Error) -> TrainError + '_ {
    move |e| TrainError::Io {
        path: path.to_path_buf(),
        message: e.to_string(),
    }
}

/// A game's side of the train/validation split: by game, so no game is in both.
fn is_validation(game_id: u64, fraction: f64) -> bool {
    let mut z = game_id.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    ((z ^ (z >> 31)) % 1_000_000) as f64 / 1e6 < fraction
}

/// The input planes laid out channels-last (NHWC strides, the same `[N, C, H, W]` shape) on the
/// CPU: oneDNN's convolutions run faster on that layout (a training step of the default network
/// about 13% faster on one thread), and every layer after the stem keeps it. Values are unchanged.
fn input_layout(planes: &Tensor) -> Tensor {
    if planes.device() == Device::Cpu && planes.dim() == 4 {
        planes
            .permute([0, 2, 3, 1])
            .contiguous()
            .permute([0, 3, 1, 2])
    } else {
        planes.shallow_clone()
    }
}

/// Cross-entropy of `targets` under `logits` restricted to `legal`, per row `[B]`, and the
/// masked logits (the metrics read their argmax).
fn cross_entropy(logits: &Tensor, targets: &Tensor, legal: &Tensor) -> (Tensor, Tensor) {
    let masked = logits.to_kind(Kind::Float) + (legal - 1.0) * 1e9;
    let log_p = masked.log_softmax(1, Kind::Float);
    let per_row = -(targets * &log_p).sum_dim_intlist(1, false, Kind::Float);
    (per_row, masked)
}

/// Losses and counts of one batch (graph kept for the backward pass).
fn losses(
    net: &Network,
    reply: Option<&ReplyHead>,
    b: &Batch,
    train: bool,
    cfg: &TrainConfig,
) -> (Tensor, Totals) {
    crate::nn::threads::ensure_training_thread();
    let trunk = net.net.trunk(&input_layout(&b.planes), train);
    let (logits, value) = net.net.heads(&trunk, train);
    let (policy_rows, masked) = cross_entropy(&logits, &b.policy, &b.legal);
    let policy_loss = policy_rows.mean(Kind::Float);
    let value = value.to_kind(Kind::Float);
    // the weighted mean over the samples whose value counts (none: zero, not a division by zero)
    let target_weight = b.value_weights.sum(Kind::Float);
    let value_loss = ((&value - &b.value).square() * &b.value_weights).sum(Kind::Float)
        / target_weight.clamp_min(1e-9);
    let loss = &policy_loss + &value_loss * cfg.value_weight;
    // the opponent's reply, averaged over the items that have one
    let loss = match (reply, &b.reply) {
        (Some(head), Some(r)) => {
            let (rows, _) = cross_entropy(&head.forward(&trunk, train), &r.policy, &r.legal);
            let present = r.present.sum(Kind::Float).clamp_min(1.0);
            loss + (rows * &r.present).sum(Kind::Float) / present * cfg.reply_weight
        }
        _ => loss,
    };
    // the metrics, off the graph, summed into one tensor and read back once
    let sums = tch::no_grad(|| {
        let hits = masked
            .argmax(1, false)
            .eq_tensor(&b.policy.argmax(1, false));
        let decisive = b.value.abs().gt(0.5).logical_and(&b.value_weights.gt(0.0));
        let sign_hits = value
            .sign()
            .eq_tensor(&b.value.sign())
            .logical_and(&decisive);
        let count = |t: &Tensor| t.to_kind(Kind::Float).sum(Kind::Float);
        Tensor::stack(
            &[
                policy_loss.detach(),
                value_loss.detach(),
                count(&hits),
                count(&sign_hits),
                count(&decisive),
                target_weight.detach(),
            ],
            0,
        )
        .to_kind(Kind::Double)
    });
    let mut s = [0.0f64; 6];
    sums.copy_data(&mut s, 6);
    let n = b.value.size()[0] as f64;
    let totals = Totals {
        samples: n,
        policy_loss: s[0] * n,
        value_target_weight: s[5],
        value_loss: s[1] * s[5],
        policy_hits: s[2],
        sign_hits: s[3],
        sign_count: s[4],
    };
    (loss, totals)
}

/// One optimizer step on a batch; returns its losses and counts.
pub fn train_step(
    net: &Network,
    reply: Option<&ReplyHead>,
    opt: &mut Optimizer,
    batch: &Batch,
    lr: f64,
    cfg: &TrainConfig,
    autocast: bool,
) -> Totals {
    // the whole step with denormals flushed, for speed (as every forward pass)
    let _flushed = crate::nn::threads::DenormalsFlushed::new();
    let (loss, totals) = if autocast {
        tch::autocast(true, || losses(net, reply, batch, true, cfg))
    } else {
        losses(net, reply, batch, true, cfg)
    };
    opt.zero_grad();
    loss.backward();
    opt.step(lr);
    totals
}

pub fn train(
    req: &TrainRequest,
    progress: &mut dyn FnMut(u64, &Row),
) -> Result<TrainSummary, TrainError> {
    let cfg = req.config;
    let clock = Instant::now();
    std::fs::create_dir_all(req.run_dir).map_err(io(req.run_dir))?;
    let state_path = req.run_dir.join("state.json");
    let metrics_path = req.run_dir.join("metrics.csv");

    let resumed: Option<(State, StepFiles)> = if req.resume && state_path.exists() {
        let text = std::fs::read_to_string(&state_path).map_err(io(&state_path))?;
        let state: State = serde_json::from_str(&text).map_err(|e| TrainError::Io {
            path: state_path.clone(),
            message: e.to_string(),
        })?;
        let files = StepFiles::of(req.run_dir, state.step);
        let files = if !files.weights.exists() && StepFiles::legacy(req.run_dir).weights.exists() {
            StepFiles::legacy(req.run_dir)
        } else {
            files
        };
        Some((state, files))
    } else {
        None
    };
    let weights = resumed.as_ref().map_or(req.init, |(_, f)| &f.weights);
    let mut net = Network::load(weights, None, req.device)?;
    let variant = crate::interop::load_variant(&net.meta.variant)?;
    let mut state = State {
        step: 0,
        seed: req.seed,
        init_step: net.meta.step,
    };
    // the reply head joins the network's store before the optimizer collects its parameters;
    // weights that carry one (a resumed run, an earlier generation) give it theirs
    let reply = if cfg.reply_weight > 0.0 {
        let head = crate::nn::seeded::with_seed(req.seed, || {
            ReplyHead::new(&net.vs.root(), net.meta.architecture.channels)
        });
        net.vs.load_partial(weights).map_err(|e| TrainError::Io {
            path: weights.to_path_buf(),
            message: e.to_string(),
        })?;
        Some(head)
    } else {
        None
    };
    let mut opt = Optimizer::new(&net.vs, cfg);
    if let Some((saved, files)) = resumed {
        state = saved;
        opt.load(&files.optimizer)?;
        // the committed step, its weights and its optimizer state must agree: anything else is
        // a damaged run directory, not something to paper over by repeating or skipping steps
        let weights_step = net.meta.step.saturating_sub(state.init_step);
        if opt.updates != state.step || weights_step != state.step {
            return Err(TrainError::Io {
                path: files.optimizer.clone(),
                message: format!("state.json says step {}, the optimizer state is at step {} and the weights at step {}: the run directory is inconsistent; start it afresh", state.step, opt.updates, weights_step),
            });
        }
        if state.seed != req.seed {
            return Err(TrainError::Io {
                path: state_path.clone(),
                message: format!(
                    "this run used --seed {}, not {}: resume it with the same seed",
                    state.seed, req.seed
                ),
            });
        }
        metrics::truncate_after(&metrics_path, state.step)?;
        tracing::info!("resuming {} at step {}", req.run_dir.display(), state.step);
    } else if metrics_path.exists() {
        std::fs::remove_file(&metrics_path).map_err(io(&metrics_path))?;
    }

    // the replay window: the most recent samples over all the directories, in order
    let mut samples: Vec<Sample> = Vec::new();
    let mut skipped = 0;
    for dir in req.data {
        let data = read_dir(dir, Some(variant.name()))?;
        skipped += data.skipped.len();
        samples.extend(data.samples);
    }
    if samples.is_empty() {
        let dirs: Vec<String> = req.data.iter().map(|d| d.display().to_string()).collect();
        return Err(TrainError::NoData(dirs.join(", ")));
    }
    let window = samples.split_off(samples.len().saturating_sub(cfg.window));
    let values = cfg.value_target().of(&window);
    // which samples train the value head (`value_leave_out`), and what each side's wins weigh
    let trains_value: Vec<bool> = window.iter().map(|s| cfg.trains_value(&s.reason)).collect();
    let value_left_out = trains_value.iter().filter(|&&c| !c).count();
    let counted = window.iter().zip(&trains_value).filter(|(_, &c)| c);
    let sides = SideWeights::of(counted.map(|(s, _)| s), cfg.value_side_balance);
    let replies = if reply.is_some() {
        reply_targets(&window)
    } else {
        vec![None; window.len()]
    };
    let (val, train_set): (Vec<Item>, Vec<Item>) = window
        .iter()
        .zip(values)
        .zip(replies)
        .zip(&trains_value)
        .map(|(((sample, value), reply), &trains)| Item {
            sample,
            value,
            value_weight: if trains { sides.weight(sample) } else { 0.0 },
            reply: reply.map(|j| window[j].policy.as_slice()),
        })
        .partition(|it| is_validation(it.sample.game_id, cfg.validation_fraction));
    let (train_set, val) = if train_set.is_empty() {
        (val, vec![])
    } else {
        (train_set, val)
    };

    let builder = BatchBuilder::new(variant.clone(), net.encoding(), cfg.augment);
    let plain = BatchBuilder::new(variant.clone(), net.encoding(), false);
    let autocast = cfg.mixed_precision && req.device.is_cuda();
    let mut order: (u64, Vec<usize>) = (u64::MAX, vec![]);
    let mut interval = Totals::default();
    let mut interval_clock = Instant::now();
    let (mut last_train, mut last_val) = (None, None);
    let run_start = state.step;
    let end = cfg.steps;
    let mut trained = 0u64;
    while state.step < end {
        let step = state.step;
        // batch `step` of the seeded, per-epoch shuffled order
        let first = step as usize * cfg.batch_size;
        let indices: Vec<usize> = (first..first + cfg.batch_size)
            .map(|k| {
                let epoch = (k / train_set.len()) as u64;
                if order.0 != epoch {
                    let mut perm: Vec<usize> = (0..train_set.len()).collect();
                    perm.shuffle(&mut ChaCha8Rng::seed_from_u64(
                        req.seed ^ epoch.wrapping_mul(0x2545_F491_4F6C_DD1D),
                    ));
                    order = (epoch, perm);
                }
                order.1[k % train_set.len()]
            })
            .collect();
        let batch_items: Vec<Item> = indices.iter().map(|&i| train_set[i]).collect();
        let mut rng = ChaCha8Rng::seed_from_u64(
            req.seed.rotate_left(7) ^ step.wrapping_mul(0x9E37_79B9_7F4A_7C15),
        );
        let batch = builder.build(&batch_items, &mut rng, req.device)?;
        let lr = cfg.learning_rate_at(step);
        interval.add(&train_step(
            &net,
            reply.as_ref(),
            &mut opt,
            &batch,
            lr,
            cfg,
            autocast,
        ));
        state.step += 1;
        trained += 1;
        let last = state.step == end || req.stop_at == Some(state.step);
        if state.step.is_multiple_of(cfg.log_every) || last {
            let rate = interval.samples / interval_clock.elapsed().as_secs_f64().max(1e-9);
            let row = Row::new(state.step, "train", &interval, lr, rate);
            metrics::append(&metrics_path, &row).map_err(io(&metrics_path))?;
            last_train = Some((row.policy_loss, row.value_loss));
            progress(state.step, &row);
            interval = Totals::default();
            interval_clock = Instant::now();
        }
        if !val.is_empty() && (state.step.is_multiple_of(cfg.validate_every) || last) {
            let mut totals = Totals::default();
            tch::no_grad(|| -> Result<(), TrainError> {
                for chunk in val.chunks(cfg.batch_size).take(16) {
                    let b = plain.build(chunk, &mut rng, req.device)?;
                    totals.add(&losses(&net, reply.as_ref(), &b, false, cfg).1);
                }
                Ok(())
            })?;
            let row = Row::new(state.step, "val", &totals, lr, 0.0);
            metrics::append(&metrics_path, &row).map_err(io(&metrics_path))?;
            last_val = Some((row.policy_loss, row.value_loss));
            progress(state.step, &row);
        }
        if state.step.is_multiple_of(cfg.checkpoint_every) || last {
            net.meta.step = state.init_step + state.step;
            let files = StepFiles::of(req.run_dir, state.step);
            net.save(&files.weights)?;
            opt.save(&files.optimizer)?;
            let text = serde_json::to_string_pretty(&state)
                .map_err(|e| io(&state_path)(std::io::Error::other(e)))?;
            crate::atomic::write(&state_path, &text).map_err(|e| io(&state_path)(e.into()))?;
            remove_other_steps(req.run_dir, state.step)?;
        }
        if req.stop_at == Some(state.step) {
            break;
        }
    }
    let finished = state.step >= end;
    if finished {
        net.meta.step = state.init_step + state.step;
        net.save(req.out)?;
    }
    let seconds = clock.elapsed().as_secs_f64();
    Ok(TrainSummary {
        start_step: run_start,
        steps: state.step,
        train_samples: train_set.len(),
        validation_samples: val.len(),
        skipped_shards: skipped,
        value_left_out,
        value_side_weights: sides,
        last_train,
        last_validation: last_val,
        samples_per_s: (trained as usize * cfg.batch_size) as f64 / seconds.max(1e-9),
        seconds,
        finished,
    })
}
