//! `tavlei grow CKPT --blocks B --channels C --checkpoint NEW.safetensors`: a trained network grown into
//! a larger one that computes the same function, to continue training at the larger size.

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;
use tavlei::nn::grow::grow;
use tavlei::nn::{Architecture, Network};

use super::args::SeedArg;

#[derive(Args)]
pub struct GrowArgs {
    /// The trained checkpoint's weights (`NAME.safetensors`, its sidecar `NAME.json` beside it).
    from: PathBuf,
    /// Residual blocks of the grown network (default: the checkpoint's).
    #[arg(long)]
    blocks: Option<usize>,
    /// Channels of the grown network's tower (default: the checkpoint's).
    #[arg(long)]
    channels: Option<i64>,
    /// Where to write the grown weights (`.safetensors`, else refused; the sidecar `.json` goes
    /// beside it).
    #[arg(long)]
    checkpoint: PathBuf,
    /// The new weights' random initialisation (the function does not depend on it).
    #[command(flatten)]
    seed: SeedArg,
}

pub fn run(args: GrowArgs) -> Result<()> {
    let net = Network::load(&args.from, None, tch::Device::Cpu)
        .with_context(|| format!("loading {}", args.from.display()))?;
    let from = net.meta.architecture;
    let to = Architecture {
        blocks: args.blocks.unwrap_or(from.blocks),
        channels: args.channels.unwrap_or(from.channels),
    };
    let grown = grow(&net, to, args.seed.seed)?;
    grown.save(&args.checkpoint)?;
    println!(
        "wrote {} ({to} grown from {from}, variant {}, step {})",
        args.checkpoint.display(),
        grown.meta.variant,
        grown.meta.step
    );
    Ok(())
}
