//! `tavlei engine --protocol htp`: an engine on standard input and output for other programs.

use anyhow::Result;
use clap::{Args, ValueEnum};
use tavlei::engine::htp::HtpEngine;
use tavlei::engine::player::Player;
use tavlei::eval::agent::AgentSpec;

use tavlei::nn::device::DeviceChoice;

use super::args::{SeedArg, VariantArg};

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum Protocol {
    /// The Hnefatafl Text Protocol of hnefatafl.org.
    Htp,
}

#[derive(Args)]
pub struct EngineArgs {
    #[arg(long, value_enum)]
    protocol: Protocol,
    #[command(flatten)]
    variant: VariantArg,
    /// The player: any agent spec (random, mcts:B, ab:B, net:CKPT:B, gumbel:CKPT:B); a clock set
    /// by the host replaces its budget with a share of the time left.
    #[arg(long, default_value = "ab:t=1s")]
    agent: AgentSpec,
    #[command(flatten)]
    seed: SeedArg,
    #[arg(long, default_value = "auto")]
    device: DeviceChoice,
}

pub fn run(args: EngineArgs) -> Result<()> {
    let v = args.variant.load()?;
    // the variant's own name: a network checkpoint names its variant, not the file it came from
    let player = Player::new(
        &args.agent,
        v.name(),
        args.device.resolve()?,
        args.seed.seed,
    )?;
    match args.protocol {
        Protocol::Htp => {
            let stdin = std::io::stdin();
            HtpEngine::new(v, player).run(stdin.lock(), std::io::stdout().lock())?;
        }
    }
    Ok(())
}
