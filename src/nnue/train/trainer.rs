//! The training loop: positions from one or more files (one variant), a seeded held-out share,
//! Adam with weight clipping for quantisation, a checkpoint per epoch that resumes exactly, a
//! metrics row per epoch, and at the end the export to the integer evaluation file.
//!
//! Data order and symmetries are functions of the seed, the epoch and the step, so a run stopped
//! after any epoch and resumed ends with the weights of an uninterrupted one.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use tavlei_nnue::{FeatureSet, Network};
use tch::{Kind, Reduction, Tensor};

use super::batch::{is_held_out, winner, winner_weights, Batch, BatchBuilder, Item};
use super::config::NnueTrainConfig;
use super::model::NnueModel;
use crate::nnue::{read_positions, NnueDataError};
use crate::rules::Symmetry;
use crate::train::config::{OptimizerKind, TrainConfig};
use crate::train::optimizer::Optimizer;

#[derive(Debug, thiserror::Error)]
pub enum NnueTrainError {
    #[error(transparent)]
    Data(#[from] NnueDataError),
    #[error("{path} holds {found} positions, not {expected}: train each variant on its own")]
    WrongVariant {
        path: PathBuf,
        found: String,
        expected: String,
    },
    #[error("{path}: board size {found}, but variant {variant} is {expected}x{expected}")]
    BoardSize {
        path: PathBuf,
        variant: String,
        found: usize,
        expected: usize,
    },
    #[error("variant {name}: {source}")]
    Variant {
        name: String,
        source: crate::rules::RulesError,
    },
    #[error("no positions to train on in {0}")]
    NoPositions(String),
    #[error("{path}: {message}")]
    Io { path: PathBuf, message: String },
    #[error("cannot resume {path}: {message}")]
    Resume { path: PathBuf, message: String },
    #[error("libtorch: {0}")]
    Torch(#[from] tch::TchError),
    #[error("the export: {0}")]
    Export(#[from] tavlei_nnue::NnueError),
}

/// One training run.
pub struct NnueTrainRequest<'a> {
    pub positions: &'a [PathBuf],
    /// Receives the checkpoints, `metrics.csv`, `eval.nnue` and `train.json`.
    pub out: &'a Path,
    pub config: &'a NnueTrainConfig,
    pub seed: u64,
    /// Continue from the last committed epoch in `out`, if there is one.
    pub resume: bool,
    /// Stop (as if killed, after its checkpoint) once this many epochs are done.
    pub stop_after: Option<u32>,
}

/// A row of `metrics.csv`: one per epoch; epoch 0 is the untrained model.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EpochRow {
    pub epoch: u32,
    pub steps: u64,
    /// Mean loss over the epoch's batches (as trained: augmented, while the weights moved).
    pub train_loss: f64,
    /// Binary cross-entropy on the held-out positions after the epoch.
    pub heldout_loss: f64,
    /// The same for the best constant prediction (the training targets' mean).
    pub constant_loss: f64,
    pub learning_rate: f64,
    pub positions_per_s: f64,
}

/// What one step or epoch reports to the caller's progress display.
pub enum Progress<'a> {
    Step {
        epoch: u32,
        step: usize,
        steps_per_epoch: usize,
        loss: f64,
    },
    Epoch(&'a EpochRow),
}

/// `train.json`: the run in figures.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct NnueTrainSummary {
    pub variant: String,
    pub labelers: Vec<String>,
    pub train_positions: usize,
    pub heldout_positions: usize,
    pub epochs: u32,
    /// The epoch this invocation started from (0 unless resumed).
    pub start_epoch: u32,
    pub steps: u64,
    pub initial_heldout_loss: f64,
    pub heldout_loss: f64,
    pub constant_loss: f64,
    pub seconds: f64,
    /// Training positions per second of the optimizer steps over every epoch (the held-out
    /// passes and checkpoints excluded; epochs before a resume count with their own rate).
    pub positions_per_s: f64,
    pub torch_threads: usize,
    pub finished: bool,
    /// The loss weight of positions from games the attackers won and the defenders won
    /// (`balance_winners`; `[1, 1]` without it and in files written before it).
    #[serde(default = "unweighted")]
    pub winner_weights: [f64; 2],
}

fn unweighted() -> [f64; 2] {
    [1.0, 1.0]
}

/// `state.json`: written last after an epoch's checkpoint, it commits it.
#[derive(Serialize, Deserialize)]
struct State {
    epoch: u32,
    steps: u64,
    seed: u64,
    width: usize,
    hidden: usize,
    variant: String,
    train_positions: usize,
    heldout_positions: usize,
    /// The training settings (none in runs written before they were kept): a resume with other
    /// ones (λ, weighting, schedule) would mix two trainings in one set of weights.
    #[serde(default)]
    config: Option<NnueTrainConfig>,
}

/// The settings that differ between a stored run's config and this one, as `key old → new`.
fn changed_settings(saved: &NnueTrainConfig, now: &NnueTrainConfig) -> Vec<String> {
    let fields = |c: &NnueTrainConfig| match serde_json::to_value(c) {
        Ok(serde_json::Value::Object(map)) => map,
        _ => serde_json::Map::new(),
    };
    let (old, new) = (fields(saved), fields(now));
    new.iter()
        .filter(|(key, value)| old.get(*key) != Some(value))
        .map(|(key, value)| {
            let was = old.get(key).map_or("unset".to_string(), |v| v.to_string());
            format!("{key} {was} → {value}")
        })
        .collect()
}

fn io(path: &Path) -> impl Fn(String) -> NnueTrainError + '_ {
    move |message| NnueTrainError::Io {
        path: path.to_path_buf(),
        message,
    }
}

fn epoch_dir(out: &Path, epoch: u32) -> PathBuf {
    out.join("checkpoints").join(format!("epoch-{epoch:04}"))
}

/// What `load_items` read: the variant and board size, the labelers, the training items and
/// the weights that balanced the winners (`[1, 1]` unless asked for).
struct Loaded {
    variant: String,
    size: usize,
    labelers: Vec<String>,
    items: Vec<Item>,
    winner_weights: [f64; 2],
}

/// The positions of every file as training items; every file must be of the config's variant
/// (or of the first file's).
fn load_items(files: &[PathBuf], cfg: &NnueTrainConfig) -> Result<Loaded, NnueTrainError> {
    let expected = cfg.variant.as_deref();
    let mut variant: Option<(String, usize)> = expected.map(|v| (v.to_string(), 0));
    let mut labelers: Vec<String> = Vec::new();
    let mut items = Vec::new();
    let mut winners = Vec::new();
    for path in files {
        let set = read_positions(path)?;
        match &variant {
            Some((name, _)) if *name != set.variant => {
                return Err(NnueTrainError::WrongVariant {
                    path: path.clone(),
                    found: set.variant,
                    expected: name.clone(),
                })
            }
            _ => {}
        }
        let loaded = crate::interop::load_variant(&set.variant).map_err(|source| {
            NnueTrainError::Variant {
                name: set.variant.clone(),
                source,
            }
        })?;
        if loaded.size != set.board_size {
            return Err(NnueTrainError::BoardSize {
                path: path.clone(),
                variant: set.variant,
                found: set.board_size,
                expected: loaded.size,
            });
        }
        variant = Some((set.variant.clone(), set.board_size));
        if !labelers.contains(&set.labeler) {
            labelers.push(set.labeler.clone());
        }
        let scale = set.score_per_logit as f64;
        items.extend(
            set.positions
                .iter()
                .map(|p| Item::new(p, cfg.lambda, scale)),
        );
        winners.extend(set.positions.iter().map(winner));
    }
    let names: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
    let Some((variant, size)) = variant.filter(|_| !items.is_empty()) else {
        return Err(NnueTrainError::NoPositions(names.join(", ")));
    };
    let weights = if cfg.balance_winners {
        winner_weights(winners.iter().copied())
    } else {
        [1.0, 1.0]
    };
    for (item, won) in items.iter_mut().zip(&winners) {
        if let Some(side) = won {
            item.weight = weights[*side as usize] as f32;
        }
    }
    Ok(Loaded {
        variant,
        size,
        labelers,
        items,
        winner_weights: weights,
    })
}

/// Binary cross-entropy of `logits` against targets, each position's weighted, and its mean
/// over the batch.
fn loss(model: &NnueModel, batch: &Batch) -> Tensor {
    model
        .forward(batch)
        .binary_cross_entropy_with_logits::<&Tensor>(
            &batch.target,
            Some(&batch.weight),
            None,
            Reduction::Mean,
        )
}

/// Mean loss over `items` (no augmentation, no gradient); NaN for none.
fn mean_loss(model: &NnueModel, plain: &BatchBuilder, items: &[&Item], batch_size: usize) -> f64 {
    if items.is_empty() {
        return f64::NAN;
    }
    let mut rng = ChaCha8Rng::seed_from_u64(0); // the identity alone: never drawn from
    tch::no_grad(|| {
        items
            .chunks(batch_size)
            .map(|chunk| {
                let b = plain.build(chunk, &mut rng);
                loss(model, &b).double_value(&[]) * chunk.len() as f64
            })
            .sum::<f64>()
            / items.len() as f64
    })
}

/// Mean weighted cross-entropy of targets `t` against the constant prediction `p`.
fn constant_loss(items: &[&Item], p: f64) -> f64 {
    if items.is_empty() {
        return f64::NAN;
    }
    let p = p.clamp(1e-7, 1.0 - 1e-7);
    items
        .iter()
        .map(|it| {
            let t = it.target as f64;
            -(t * p.ln() + (1.0 - t) * (1.0 - p).ln()) * it.weight as f64
        })
        .sum::<f64>()
        / items.len() as f64
}

fn write_metrics(path: &Path, rows: &[EpochRow]) -> Result<(), NnueTrainError> {
    let mut w = csv::Writer::from_writer(Vec::new());
    for row in rows {
        w.serialize(row).map_err(|e| io(path)(e.to_string()))?;
    }
    let bytes = w.into_inner().map_err(|e| io(path)(e.to_string()))?;
    crate::atomic::write(path, bytes).map_err(|e| io(path)(e.to_string()))
}

/// The rows of a metrics file written by this trainer.
pub fn read_metrics(path: &Path) -> Result<Vec<EpochRow>, NnueTrainError> {
    let mut reader = csv::Reader::from_path(path).map_err(|e| io(path)(e.to_string()))?;
    reader
        .deserialize()
        .collect::<Result<Vec<EpochRow>, _>>()
        .map_err(|e| io(path)(e.to_string()))
}

/// The optimizer of `src/train` (its state saves and resumes exactly), as Adam.
fn adam(model: &NnueModel, cfg: &NnueTrainConfig) -> Optimizer {
    let settings = TrainConfig {
        optimizer: OptimizerKind::Adam,
        weight_decay: cfg.weight_decay,
        ..TrainConfig::default()
    };
    Optimizer::new(&model.vs, &settings)
}

pub fn train(
    req: &NnueTrainRequest,
    progress: &mut dyn FnMut(Progress),
) -> Result<NnueTrainSummary, NnueTrainError> {
    let cfg = req.config;
    let clock = Instant::now();
    let out = req.out;
    std::fs::create_dir_all(out).map_err(|e| io(out)(e.to_string()))?;
    let (state_path, metrics_path) = (out.join("state.json"), out.join("metrics.csv"));

    let Loaded {
        variant: variant_name,
        size,
        labelers,
        items,
        winner_weights,
    } = load_items(req.positions, cfg)?;
    let variant =
        crate::interop::load_variant(&variant_name).map_err(|source| NnueTrainError::Variant {
            name: variant_name.clone(),
            source,
        })?;
    let symmetries: Vec<Symmetry> = variant.symmetries.clone();
    let (heldout, train_set): (Vec<&Item>, Vec<&Item>) = items
        .iter()
        .partition(|it| is_held_out(it, &symmetries, size, req.seed, cfg.holdout));
    if train_set.is_empty() {
        return Err(NnueTrainError::NoPositions(
            "the training share (every position was held out)".into(),
        ));
    }
    // the best constant under the weighted loss: the weighted mean target
    let weight: f64 = train_set.iter().map(|it| it.weight as f64).sum();
    let mean_target = train_set
        .iter()
        .map(|it| it.target as f64 * it.weight as f64)
        .sum::<f64>()
        / weight;
    let constant = constant_loss(&heldout, mean_target);

    crate::nn::threads::ensure_training_thread();
    let _flushed = crate::nn::threads::DenormalsFlushed::new();
    let features = FeatureSet::new(size);
    let mut model =
        crate::nn::seeded::with_seed(req.seed, || NnueModel::new(features, cfg.width, cfg.hidden));
    let mut opt = adam(&model, cfg);
    let mut state = State {
        epoch: 0,
        steps: 0,
        seed: req.seed,
        width: cfg.width,
        hidden: cfg.hidden,
        variant: variant_name.clone(),
        train_positions: train_set.len(),
        heldout_positions: heldout.len(),
        config: Some(cfg.clone()),
    };
    let plain = BatchBuilder::new(features, vec![Symmetry::Identity]);
    let augmenting = if cfg.augment {
        symmetries.clone()
    } else {
        vec![Symmetry::Identity]
    };
    let builder = BatchBuilder::new(features, augmenting);

    let mut rows: Vec<EpochRow> = Vec::new();
    if req.resume && state_path.exists() {
        let resume_error = |message: String| NnueTrainError::Resume {
            path: out.to_path_buf(),
            message,
        };
        let text =
            std::fs::read_to_string(&state_path).map_err(|e| io(&state_path)(e.to_string()))?;
        let saved: State =
            serde_json::from_str(&text).map_err(|e| io(&state_path)(e.to_string()))?;
        let same = (
            saved.seed,
            saved.width,
            saved.hidden,
            &saved.variant,
            saved.train_positions,
            saved.heldout_positions,
        ) == (
            state.seed,
            state.width,
            state.hidden,
            &state.variant,
            state.train_positions,
            state.heldout_positions,
        );
        if !same {
            return Err(resume_error(format!(
                "it was run with --seed {}, width {}, hidden {}, variant {} on {}+{} positions; \
                 now --seed {}, width {}, hidden {}, variant {} on {}+{}: resume with the same \
                 settings and positions, or start afresh",
                saved.seed,
                saved.width,
                saved.hidden,
                saved.variant,
                saved.train_positions,
                saved.heldout_positions,
                state.seed,
                state.width,
                state.hidden,
                state.variant,
                state.train_positions,
                state.heldout_positions
            )));
        }
        if let Some(stored) = &saved.config {
            let changed = changed_settings(stored, cfg);
            if !changed.is_empty() {
                return Err(resume_error(format!(
                    "it was trained with other settings ({}): resume with its config, or start \
                     afresh",
                    changed.join(", ")
                )));
            }
        }
        let dir = epoch_dir(out, saved.epoch);
        model.vs.load(dir.join("model.safetensors"))?;
        opt.load(&dir.join("optimizer.safetensors"))?;
        if opt.updates != saved.steps {
            return Err(resume_error(format!(
                "state.json says {} steps, the optimizer state {}: start afresh",
                saved.steps, opt.updates
            )));
        }
        rows = read_metrics(&metrics_path)?;
        rows.retain(|r| r.epoch <= saved.epoch);
        state = saved;
        tracing::info!("resuming {} after epoch {}", out.display(), state.epoch);
    }
    let start_epoch = state.epoch;
    if rows.is_empty() {
        let row = EpochRow {
            epoch: 0,
            steps: 0,
            train_loss: f64::NAN,
            heldout_loss: mean_loss(&model, &plain, &heldout, cfg.batch_size),
            constant_loss: constant,
            learning_rate: 0.0,
            positions_per_s: 0.0,
        };
        progress(Progress::Epoch(&row));
        rows.push(row);
        write_metrics(&metrics_path, &rows)?;
    }

    let steps_per_epoch = train_set.len().div_ceil(cfg.batch_size);
    while state.epoch < cfg.epochs {
        let epoch = state.epoch;
        let lr = cfg.learning_rate_at(epoch);
        let mut order: Vec<usize> = (0..train_set.len()).collect();
        order.shuffle(&mut ChaCha8Rng::seed_from_u64(
            req.seed ^ (epoch as u64 + 1).wrapping_mul(0x2545_F491_4F6C_DD1D),
        ));
        let epoch_clock = Instant::now();
        let mut loss_sum = 0.0;
        for (step, chunk) in order.chunks(cfg.batch_size).enumerate() {
            let mut rng = ChaCha8Rng::seed_from_u64(
                req.seed.rotate_left(17) ^ (state.steps + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15),
            );
            let chosen: Vec<&Item> = chunk.iter().map(|&i| train_set[i]).collect();
            let batch = builder.build(&chosen, &mut rng);
            let l = loss(&model, &batch);
            opt.zero_grad();
            l.backward();
            opt.step(lr);
            model.clip();
            state.steps += 1;
            let value = l.double_value(&[]);
            loss_sum += value * chunk.len() as f64;
            progress(Progress::Step {
                epoch: epoch + 1,
                step: step + 1,
                steps_per_epoch,
                loss: value,
            });
        }
        let seconds = epoch_clock.elapsed().as_secs_f64();
        state.epoch += 1;
        let row = EpochRow {
            epoch: state.epoch,
            steps: state.steps,
            train_loss: loss_sum / train_set.len() as f64,
            heldout_loss: mean_loss(&model, &plain, &heldout, cfg.batch_size),
            constant_loss: constant,
            learning_rate: lr,
            positions_per_s: train_set.len() as f64 / seconds.max(1e-9),
        };
        progress(Progress::Epoch(&row));
        rows.push(row);
        write_metrics(&metrics_path, &rows)?;
        checkpoint(out, &model, &opt, &state)?;
        if req.stop_after == Some(state.epoch) {
            break;
        }
    }

    let finished = state.epoch >= cfg.epochs;
    let last = rows.last().map_or(f64::NAN, |r| r.heldout_loss);
    let summary = NnueTrainSummary {
        variant: variant_name.clone(),
        labelers: labelers.clone(),
        train_positions: train_set.len(),
        heldout_positions: heldout.len(),
        epochs: state.epoch,
        start_epoch,
        steps: state.steps,
        initial_heldout_loss: rows.first().map_or(f64::NAN, |r| r.heldout_loss),
        heldout_loss: last,
        constant_loss: constant,
        seconds: clock.elapsed().as_secs_f64(),
        positions_per_s: overall_rate(&rows, train_set.len()),
        torch_threads: crate::nn::threads::current(),
        finished,
        winner_weights,
    };
    if finished {
        model.save(&out.join("checkpoint.safetensors"))?;
        let provenance = BTreeMap::from([
            ("seed".to_string(), req.seed.to_string()),
            ("positions".to_string(), items.len().to_string()),
            ("epochs".to_string(), state.epoch.to_string()),
            ("lambda".to_string(), cfg.lambda.to_string()),
            (
                "balance_winners".to_string(),
                cfg.balance_winners.to_string(),
            ),
            ("labeler".to_string(), labelers.join(", ")),
            (
                "trained_from".to_string(),
                req.positions
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", "),
            ),
        ]);
        let float = model.to_float(&variant_name, provenance)?;
        Network::quantise(&float)?.save(&out.join("eval.nnue"))?;
        let json = out.join("train.json");
        let text = serde_json::to_string_pretty(&summary).map_err(|e| io(&json)(e.to_string()))?;
        crate::atomic::write(&json, text).map_err(|e| io(&json)(e.to_string()))?;
    }
    Ok(summary)
}

/// Positions per second over the trained epochs of `rows`, each epoch `positions` long.
fn overall_rate(rows: &[EpochRow], positions: usize) -> f64 {
    let trained: Vec<&EpochRow> = rows.iter().filter(|r| r.epoch > 0).collect();
    let seconds: f64 = trained
        .iter()
        .map(|r| positions as f64 / r.positions_per_s.max(1e-9))
        .sum();
    if trained.is_empty() {
        0.0
    } else {
        (trained.len() * positions) as f64 / seconds
    }
}

/// Saves epoch `state.epoch`'s weights and optimizer state in their own directory, then commits
/// them with `state.json` and removes the directories of other epochs.
fn checkpoint(
    out: &Path,
    model: &NnueModel,
    opt: &Optimizer,
    state: &State,
) -> Result<(), NnueTrainError> {
    let dir = epoch_dir(out, state.epoch);
    std::fs::create_dir_all(&dir).map_err(|e| io(&dir)(e.to_string()))?;
    model.save(&dir.join("model.safetensors"))?;
    opt.save(&dir.join("optimizer.safetensors"))?;
    let path = out.join("state.json");
    let text = serde_json::to_string_pretty(state).map_err(|e| io(&path)(e.to_string()))?;
    crate::atomic::write(&path, text).map_err(|e| io(&path)(e.to_string()))?;
    let parent = out.join("checkpoints");
    let keep = dir.file_name().map(|n| n.to_os_string());
    for entry in std::fs::read_dir(&parent).map_err(|e| io(&parent)(e.to_string()))? {
        let entry = entry.map_err(|e| io(&parent)(e.to_string()))?;
        if Some(entry.file_name()) != keep
            && entry.file_name().to_string_lossy().starts_with("epoch-")
        {
            std::fs::remove_dir_all(entry.path()).map_err(|e| io(&entry.path())(e.to_string()))?;
        }
    }
    Ok(())
}

/// Float logits of the trained model for `items` (no augmentation): for checks against the
/// exported integer network.
pub fn logits(model: &NnueModel, items: &[&Item]) -> Result<Vec<f32>, NnueTrainError> {
    let plain = BatchBuilder::new(model.features, vec![Symmetry::Identity]);
    let mut rng = ChaCha8Rng::seed_from_u64(0);
    let batch = plain.build(items, &mut rng);
    let y = tch::no_grad(|| model.forward(&batch)).to_kind(Kind::Float);
    Ok(Vec::<f32>::try_from(y)?)
}
