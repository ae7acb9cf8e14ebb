//! `tavlei data inspect DIR [--json]` and `tavlei data export DIR --npz FILE`: a shard
//! directory's statistics, and its samples as NumPy arrays.

use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use clap::Subcommand;
use indicatif::{ProgressBar, ProgressStyle};
use tavlei::data::npz::{export_npz, ARRAYS};
use tavlei::data::{read_dir, Stats};

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
    }
}
