//! `tavlei nnue train`: fit the learned evaluation to labelled positions and export it.

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use tavlei::nnue::train::trainer::{read_metrics, EpochRow, Progress};
use tavlei::nnue::train::{train, NnueTrainConfig, NnueTrainRequest};
use tavlei::report::plot::{line_chart, Picture, Series};

#[derive(Args)]
pub struct NnueTrainArgs {
    /// Positions files (`tavlei nnue data`), all of one variant.
    #[arg(long, num_args = 1.., required = true)]
    positions: Vec<PathBuf>,
    /// The run directory: checkpoints, metrics.csv, loss.svg/png, eval.nnue, train.json.
    #[arg(long)]
    out: PathBuf,
    /// Settings; the defaults are those of configs/nnue/train.toml.
    #[arg(long)]
    config: Option<PathBuf>,
    /// The variant the positions must be of (overrides the config's `variant`).
    #[arg(long)]
    variant: Option<String>,
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Continue a stopped run in --out from its last finished epoch.
    #[arg(long)]
    resume: bool,
}

pub fn run(args: NnueTrainArgs) -> Result<()> {
    let mut config = match &args.config {
        Some(path) => NnueTrainConfig::load(path)?,
        None => NnueTrainConfig::default(),
    };
    if args.variant.is_some() {
        config.variant = args.variant.clone();
    }
    let bar = ProgressBar::new(0);
    bar.set_style(
        ProgressStyle::with_template(
            "epoch {prefix} [{bar:30}] {pos}/{len} steps  {msg}  eta {eta}",
        )?
        .progress_chars("=> "),
    );
    let req = NnueTrainRequest {
        positions: &args.positions,
        out: &args.out,
        config: &config,
        seed: args.seed,
        resume: args.resume,
        stop_after: None,
    };
    let epochs = config.epochs;
    let summary = train(&req, &mut |p| match p {
        Progress::Step {
            epoch,
            step,
            steps_per_epoch,
            loss,
        } => {
            if step == 1 {
                bar.reset();
                bar.set_length(steps_per_epoch as u64);
                bar.set_prefix(format!("{epoch}/{epochs}"));
            }
            bar.set_position(step as u64);
            bar.set_message(format!("loss {loss:.4}"));
        }
        Progress::Epoch(row) => bar.println(format!(
            "epoch {}: train {:.4}, held out {:.4} (constant {:.4}), {:.0} positions/s",
            row.epoch, row.train_loss, row.heldout_loss, row.constant_loss, row.positions_per_s
        )),
    })?;
    bar.finish_and_clear();
    let rows = read_metrics(&args.out.join("metrics.csv"))?;
    loss_chart(&rows)
        .save(&args.out.join("loss.svg"))
        .context("drawing the loss plot")?;
    if summary.start_epoch > 0 {
        println!("resumed after epoch {}", summary.start_epoch);
    }
    println!(
        "{} positions of {} ({} held out), {} epochs in {:.1} s, {:.0} positions/s on {} torch threads",
        summary.train_positions + summary.heldout_positions,
        summary.variant,
        summary.heldout_positions,
        summary.epochs,
        summary.seconds,
        summary.positions_per_s,
        summary.torch_threads
    );
    println!(
        "held-out loss {:.4} (untrained {:.4}, constant predictor {:.4})",
        summary.heldout_loss, summary.initial_heldout_loss, summary.constant_loss
    );
    println!(
        "evaluation {} ; metrics, loss plot and train.json in {}",
        args.out.join("eval.nnue").display(),
        args.out.display()
    );
    Ok(())
}

/// Train and held-out loss per epoch, with the constant predictor's for scale.
fn loss_chart(rows: &[EpochRow]) -> tavlei::report::plot::Chart {
    let series = |name: &str, f: fn(&EpochRow) -> f64| Series {
        name: name.into(),
        points: rows
            .iter()
            .filter(|r| f(r).is_finite())
            .map(|r| (r.epoch as f64, f(r), None))
            .collect(),
    };
    line_chart(
        "NNUE training loss",
        "epoch",
        "binary cross-entropy",
        &[
            series("train", |r| r.train_loss),
            series("held out", |r| r.heldout_loss),
            series("constant (held out)", |r| r.constant_loss),
        ],
    )
}
