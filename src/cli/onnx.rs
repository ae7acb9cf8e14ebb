//! `tavlei export-onnx CKPT OUT.onnx`: a checkpoint as an ONNX file, checked against tch.

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;
use tavlei::nn::onnx::{export_onnx, find_python, ExportOptions};
use tavlei::nn::CheckpointMeta;

use super::args::SeedArg;

#[derive(Args)]
pub struct ExportOnnxArgs {
    /// The checkpoint's weights (`NAME.safetensors`, its sidecar `NAME.json` beside it).
    checkpoint: PathBuf,
    /// The ONNX file to write (atomically, once the check has passed).
    out: PathBuf,
    /// The checkpoint's variant, when it is not a preset (a variant file or OTN rules string);
    /// default: the preset the sidecar names.
    #[arg(long)]
    variant: Option<String>,
    /// Positions in the larger of the two check batches (the other has one).
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u16).range(2..=4096))]
    check_batch: u16,
    /// Print the report as one JSON object.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    seed: SeedArg,
}

pub fn run(args: ExportOnnxArgs) -> Result<()> {
    let name = match args.variant {
        Some(v) => v,
        None => CheckpointMeta::read(&args.checkpoint)?.variant,
    };
    let variant = tavlei::interop::load_variant(&name).with_context(|| {
        format!(
            "loading variant `{name}` of {} (name its variant file with --variant)",
            args.checkpoint.display()
        )
    })?;
    let options = ExportOptions {
        python: find_python()?,
        seed: args.seed.seed,
        check_batch: usize::from(args.check_batch),
    };
    let report = export_onnx(&args.checkpoint, &variant, &args.out, &options)?;
    if args.json {
        println!("{}", serde_json::to_string(&report)?);
        return Ok(());
    }
    println!(
        "wrote {} ({}: planes [batch, {}, {s}, {s}] -> policy_logits [batch, {}], value [batch])",
        report.onnx.display(),
        report.variant,
        report.planes,
        report.policy_size,
        s = report.board_size,
    );
    for check in &report.checks {
        println!(
            "onnxruntime vs tch, batch of {:>3}: max |diff| {:.2e} (policy logits), {:.2e} (value); tolerance {:.0e}",
            check.batch, check.policy_max_abs_diff, check.value_max_abs_diff, report.tolerance
        );
    }
    Ok(())
}
