//! `tavlei data inspect DIR [--json]`, `tavlei data export DIR --npz FILE` and `tavlei data
//! calibration DIR... --model CKPT`: a shard directory's statistics, its samples as NumPy arrays,
//! and how well a network's value predicts its results.

use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use tavlei::atomic;
use tavlei::data::npz::{export_npz, ARRAYS};
use tavlei::data::{read_dir, Sample, Stats};
use tavlei::eval::calibration::{calibrate, predicted_values, SideCalibration};
use tavlei::nn::device::DeviceChoice;
use tavlei::nn::Network;
use tavlei::report::plot::{line_chart, Picture, Series};
use tavlei::report::table::render;

use super::args::SeedArg;

#[derive(Subcommand)]
pub enum DataCommand {
    /// Counts, outcome shares, end reasons and a game-length histogram of a shard directory.
    Inspect {
        /// A directory of `*.shard` files.
        dir: PathBuf,
        /// Only shards of this variant (default: the first readable shard's).
        #[arg(long)]
        variant: Option<String>,
        /// Print one JSON object instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Write a shard directory's samples to a NumPy `.npz` archive.
    Export {
        /// A directory of `*.shard` files.
        dir: PathBuf,
        /// The archive to write (atomically).
        #[arg(long, value_name = "FILE")]
        npz: PathBuf,
        /// Only shards of this variant (default: the first readable shard's).
        #[arg(long)]
        variant: Option<String>,
        /// Only the most recent N samples (by shard name, then sample order).
        #[arg(long, value_name = "N")]
        window: Option<usize>,
        /// No progress bar.
        #[arg(long)]
        quiet: bool,
    },
    /// How well a network's raw value predicts the results of stored games, each side to move
    /// apart: bias, Brier score against the base rate's, sign agreement, a reliability table.
    Calibration(CalibrationArgs),
}

#[derive(Args)]
pub struct CalibrationArgs {
    /// Directories of `*.shard` files (self-play, teacher games), all of one variant.
    #[arg(required = true)]
    dirs: Vec<PathBuf>,
    /// The network checkpoint whose value head is measured.
    #[arg(long)]
    model: PathBuf,
    /// Only shards of this variant (default: the first readable shard's).
    #[arg(long)]
    variant: Option<String>,
    /// Bins of the value range [-1, 1] in the reliability table.
    #[arg(long, default_value_t = 10)]
    bins: usize,
    /// Measure a random subset of this many samples (drawn by --seed) instead of all.
    #[arg(long, value_name = "N")]
    max_samples: Option<usize>,
    #[command(flatten)]
    seed: SeedArg,
    /// Write calibration.json and reliability.svg/png here.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Print one JSON object instead of tables.
    #[arg(long)]
    json: bool,
    #[arg(long, default_value = "auto")]
    device: DeviceChoice,
}

pub fn run(cmd: DataCommand) -> Result<()> {
    match cmd {
        DataCommand::Inspect { dir, variant, json } => {
            let data = read_dir(&dir, variant.as_deref())?;
            let stats = Stats::of(&data);
            if json {
                println!("{}", serde_json::to_string(&stats)?);
            } else {
                print!("{stats}");
            }
            Ok(())
        }
        DataCommand::Export {
            dir,
            npz,
            variant,
            window,
            quiet,
        } => {
            let data = read_dir(&dir, variant.as_deref())?;
            let Some(name) = data.variant.clone() else {
                bail!(
                    "no readable shard in {} ({} skipped)",
                    dir.display(),
                    data.skipped.len()
                );
            };
            let v = tavlei::interop::load_variant(&name).with_context(|| {
                format!(
                    "loading variant `{name}` of the shards in {}",
                    dir.display()
                )
            })?;
            let samples = match window {
                Some(n) => data.window(n),
                None => &data.samples[..],
            };
            let bar = if quiet {
                ProgressBar::hidden()
            } else {
                let bar = ProgressBar::new((samples.len() * ARRAYS.len()) as u64);
                bar.set_style(
                    ProgressStyle::with_template("export [{bar:30}] {percent:>3}% eta {eta}")
                        .expect("valid template")
                        .progress_chars("=> "),
                );
                bar
            };
            let summary = export_npz(samples, &v, &npz, |k| bar.inc(k))?;
            bar.finish_and_clear();
            println!(
                "wrote {} samples of {name} ({}x{} board, policy {}) from {} shards to {} ({:.1} MiB)",
                summary.samples,
                summary.board_size,
                summary.board_size,
                summary.policy_size,
                data.shards.len(),
                npz.display(),
                summary.bytes as f64 / (1024.0 * 1024.0)
            );
            if !data.skipped.is_empty() {
                eprintln!(
                    "{} shards skipped (see the warnings above)",
                    data.skipped.len()
                );
            }
            Ok(())
        }
        DataCommand::Calibration(args) => calibration(args),
    }
}

/// `tavlei data calibration`: the samples of every directory, the network's value for each.
fn calibration(args: CalibrationArgs) -> Result<()> {
    let mut variant = args.variant.clone();
    let mut samples = Vec::new();
    for dir in &args.dirs {
        let data = read_dir(dir, variant.as_deref())?;
        if data.variant.is_none() {
            bail!(
                "no readable shard in {} ({} skipped)",
                dir.display(),
                data.skipped.len()
            );
        }
        variant = data.variant;
        samples.extend(data.samples);
    }
    let name = variant.context("no directory given")?;
    let v = tavlei::interop::load_variant(&name)
        .with_context(|| format!("loading variant `{name}` of the shards"))?;
    let mut chosen: Vec<&Sample> = samples.iter().collect();
    if let Some(n) = args.max_samples {
        chosen.shuffle(&mut ChaCha8Rng::seed_from_u64(args.seed.seed));
        chosen.truncate(n);
    }
    let network = Network::load(&args.model, Some(&name), args.device.resolve()?)
        .with_context(|| format!("loading {}", args.model.display()))?;
    let bar = ProgressBar::new(chosen.len() as u64);
    bar.set_style(
        ProgressStyle::with_template("values [{bar:30}] {pos}/{len} eta {eta}")
            .expect("valid template")
            .progress_chars("=> "),
    );
    let values = predicted_values(&network, &chosen, &v, 256, &mut |k| {
        bar.set_position(k as u64)
    })?;
    bar.finish_and_clear();
    let points: Vec<_> = chosen
        .iter()
        .zip(&values)
        .map(|(s, &value)| (s.side_to_move, value, s.result))
        .collect();
    let sides = calibrate(&points, args.bins);
    let report = serde_json::json!({
        "model": args.model,
        "variant": name,
        "dirs": args.dirs,
        "samples": chosen.len(),
        "sides": sides,
    });
    if args.json {
        println!("{report}");
    } else {
        print!("{}", calibration_tables(&sides));
    }
    if let Some(out) = &args.out {
        std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
        atomic::write(
            &out.join("calibration.json"),
            serde_json::to_string_pretty(&report)?,
        )?;
        reliability_chart(&sides).save(&out.join("reliability.svg"))?;
        eprintln!(
            "calibration.json and reliability.svg/png in {}",
            out.display()
        );
    }
    Ok(())
}

fn calibration_tables(sides: &[SideCalibration]) -> String {
    let f3 = |x: f64| format!("{x:+.3}");
    let rows: Vec<Vec<String>> = sides
        .iter()
        .map(|c| {
            vec![
                format!("{:?}", c.side).to_lowercase(),
                c.samples.to_string(),
                f3(c.mean_value),
                f3(c.mean_result),
                format!("{:.4}", c.brier),
                format!("{:.4}", c.brier_base_rate),
                format!("{:.3}", c.sign_agreement),
            ]
        })
        .collect();
    let mut text = render(
        &[
            "to move",
            "samples",
            "mean value",
            "mean result",
            "Brier",
            "Brier of the base rate",
            "sign right",
        ],
        &rows,
    );
    for c in sides {
        text += &format!("\n{:?} to move, by predicted value:\n", c.side);
        let bins: Vec<Vec<String>> = c
            .bins
            .iter()
            .map(|b| {
                vec![
                    format!("{:+.2}..{:+.2}", b.low, b.high),
                    b.samples.to_string(),
                    f3(b.mean_value),
                    f3(b.mean_result),
                ]
            })
            .collect();
        text += &render(&["value", "samples", "mean value", "mean result"], &bins);
    }
    text
}

/// Mean result against mean prediction per bin, one line a side, beside the diagonal a
/// calibrated value head lies on.
fn reliability_chart(sides: &[SideCalibration]) -> tavlei::report::plot::Chart {
    let mut series = vec![Series {
        name: "calibrated".into(),
        points: vec![(-1.0, -1.0, None), (1.0, 1.0, None)],
    }];
    series.extend(sides.iter().map(|c| {
        Series {
            name: format!("{:?} to move", c.side).to_lowercase(),
            points: c
                .bins
                .iter()
                .map(|b| (b.mean_value, b.mean_result, None))
                .collect(),
        }
    }));
    line_chart(
        "Value calibration",
        "mean predicted value",
        "mean result",
        &series,
    )
    .y_range(-1.0, 1.0)
}
