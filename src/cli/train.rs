//! `tavlei train`: fit a network to self-play shards.

use std::path::PathBuf;

use anyhow::Result;
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use tavlei::nn::device::DeviceChoice;
use tavlei::report::training::loss_chart;
use tavlei::train::metrics::read_rows;
use tavlei::train::trainer::TrainRequest;
use tavlei::train::{train, TrainConfig};

#[derive(Args)]
pub struct TrainArgs {
    /// Directories of shards (the replay window spans them, most recent last).
    #[arg(long, num_args = 1.., required = true)]
    data: Vec<PathBuf>,
    /// The checkpoint to start from (`tavlei init-model` makes a fresh one).
    #[arg(long)]
    init: PathBuf,
    /// Where the trained checkpoint goes (`.safetensors`; the sidecar `.json` beside it). A file,
    /// unlike `--out` elsewhere, which is always a directory.
    #[arg(long)]
    checkpoint: PathBuf,
    /// Settings; the defaults are those of configs/train.toml.
    #[arg(long)]
    config: Option<PathBuf>,
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Continue an interrupted run from its run directory.
    #[arg(long)]
    resume: bool,
    /// Metrics, plots and resumable state (default: the checkpoint with `.run` in place of its extension).
    #[arg(long)]
    run_dir: Option<PathBuf>,
    #[arg(long, default_value = "auto")]
    device: DeviceChoice,
}

pub fn run(args: TrainArgs) -> Result<()> {
    let config = match &args.config {
        Some(path) => TrainConfig::load(path).map_err(anyhow::Error::msg)?,
        None => TrainConfig::default(),
    };
    let run_dir = args
        .run_dir
        .clone()
        .unwrap_or_else(|| args.checkpoint.with_extension("run"));
    let device = args.device.resolve()?;
    let bar = ProgressBar::new(config.steps);
    bar.set_style(
        ProgressStyle::with_template("train [{bar:30}] {pos}/{len} steps  {msg}  eta {eta}")?
            .progress_chars("=> "),
    );
    let req = TrainRequest {
        data: &args.data,
        init: &args.init,
        out: &args.checkpoint,
        run_dir: &run_dir,
        config: &config,
        seed: args.seed,
        device,
        resume: args.resume,
        stop_at: None,
    };
    let summary = train(&req, &mut |step, row| {
        bar.set_position(step);
        bar.set_message(format!(
            "{} policy {:.3} value {:.3} acc {:.2} ({:.0} samples/s)",
            row.split, row.policy_loss, row.value_loss, row.policy_accuracy, row.samples_per_s
        ));
    })?;
    bar.finish_and_clear();
    if summary.finished {
        let rows = read_rows(&run_dir.join("metrics.csv"))?;
        loss_chart(&rows, &run_dir.join("loss.svg"))?;
    }
    if summary.start_step > 0 {
        println!("resumed at step {}", summary.start_step);
    }
    println!(
        "trained {} steps on {} samples ({} held out) in {:.1} s, {:.0} samples/s{}",
        summary.steps,
        summary.train_samples,
        summary.validation_samples,
        summary.seconds,
        summary.samples_per_s,
        if summary.skipped_shards > 0 {
            format!("; {} corrupt shards skipped", summary.skipped_shards)
        } else {
            String::new()
        }
    );
    if summary.value_left_out > 0 {
        println!(
            "{} samples trained the policy only (their games ended for a reason in value_leave_out)",
            summary.value_left_out
        );
    }
    if let Some((p, v)) = summary.last_train {
        println!("last train losses: policy {p:.4}, value {v:.4}");
    }
    if let Some((p, v)) = summary.last_validation {
        println!("validation losses: policy {p:.4}, value {v:.4}");
    }
    println!(
        "checkpoint {} ; metrics and loss plot in {}",
        args.checkpoint.display(),
        run_dir.display()
    );
    Ok(())
}
