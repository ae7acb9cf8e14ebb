//! `tavlei perft VARIANT DEPTH [--position OTN] [--to-move SIDE]`.

use std::time::Instant;

use anyhow::Result;
use clap::Args;
use tavlei::rules::perft::perft;
use tavlei::rules::Variant;

#[derive(Args)]
pub struct PerftArgs {
    /// A preset name or a path to a variant file.
    variant: String,
    /// Plies to count.
    depth: u32,
    /// Start from this OTN position instead of the variant's start.
    #[arg(long)]
    position: Option<String>,
    /// Side to move in `--position` (default: the variant's first mover).
    #[arg(long)]
    to_move: Option<tavlei::rules::Side>,
}

pub fn run(args: PerftArgs) -> Result<()> {
    let v = Variant::load(&args.variant)?;
    let pos = super::start_position(&v, args.position.as_deref(), args.to_move)?;
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
