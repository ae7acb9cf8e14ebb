//! `tavlei analyze`: the JSON-lines analysis engine on standard input and output.

use anyhow::Result;
use clap::Args;
use tavlei::engine::analyze::AnalysisEngine;
use tavlei::eval::agent::AgentSpec;
use tavlei::nn::device::DeviceChoice;

use super::args::SeedArg;

#[derive(Args)]
pub struct AnalyzeArgs {
    /// The variant of queries that name none (a preset name, variant file or OTN rules string).
    #[arg(long)]
    variant: Option<String>,
    /// The agent of queries that name none: any agent spec.
    #[arg(long, default_value = "mcts:800")]
    agent: AgentSpec,
    #[command(flatten)]
    seed: SeedArg,
    #[arg(long, default_value = "auto")]
    device: DeviceChoice,
}

pub fn run(args: AnalyzeArgs) -> Result<()> {
    let mut engine = AnalysisEngine::new(
        args.variant,
        args.agent,
        args.device.resolve()?,
        args.seed.seed,
    );
    let input = std::io::BufReader::new(std::io::stdin());
    engine.run(input, std::io::stdout().lock())?;
    Ok(())
}
