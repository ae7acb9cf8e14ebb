//! `tavlei perft --variant V DEPTH [--position OTN] [--to-move SIDE]`.

use std::time::Instant;

use anyhow::Result;
use clap::Args;
use tavlei::rules::perft::perft;

use super::args::{StartArgs, VariantArg};

#[derive(Args)]
pub struct PerftArgs {
    #[command(flatten)]
    variant: VariantArg,
    /// Plies to count.
    depth: u32,
    #[command(flatten)]
    start: StartArgs,
}

pub fn run(args: PerftArgs) -> Result<()> {
    let v = args.variant.load()?;
    let pos = args.start.position(&v)?;
    for depth in 1..=args.depth {
        let t = Instant::now();
        let n = perft(&pos, depth);
        let s = t.elapsed().as_secs_f64();
        println!(
            "perft({depth}) = {n:<14} {:>8.3} s  {:>12.0} nodes/s",
            s,
            n as f64 / s.max(1e-9)
        );
    }
    Ok(())
}
