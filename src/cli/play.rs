//! `tavlei play`: a person against any agent at the terminal.

use std::io::IsTerminal;

use anyhow::Result;
use clap::Args;
use tavlei::engine::player::Player;
use tavlei::eval::agent::AgentSpec;
use tavlei::nn::device::DeviceChoice;
use tavlei::play::{PlayOptions, Session};
use tavlei::rules::Side;

use super::args::{SeedArg, StartArgs, VariantArg};

#[derive(Args)]
pub struct PlayArgs {
    #[command(flatten)]
    variant: VariantArg,
    /// The opponent: any agent spec (random, mcts:B, ab:B, net:CKPT:B, gumbel:CKPT:B).
    #[arg(long, default_value = "ab:t=1s")]
    agent: AgentSpec,
    /// Your side: attackers or defenders (default: the side that moves first).
    #[arg(long)]
    side: Option<Side>,
    #[command(flatten)]
    start: StartArgs,
    /// Seeds the agent's random choices and the die.
    #[command(flatten)]
    seed: SeedArg,
    #[arg(long, default_value = "auto")]
    device: DeviceChoice,
}

pub fn run(args: PlayArgs) -> Result<()> {
    let v = args.variant.load()?;
    let start = args.start.position(&v)?;
    // the variant's own name: a network checkpoint names its variant, not the file it came from
    let player = Player::new(
        &args.agent,
        v.name(),
        args.device.resolve()?,
        args.seed.seed,
    )?
    .keeping_table();
    let stdout = std::io::stdout();
    let options = PlayOptions {
        human: args.side.unwrap_or(v.rules.movement.first),
        colour: stdout.is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
        seed: args.seed.seed,
        variant: args.variant.variant.clone(),
    };
    let mut session = Session::new(start, player, options);
    session.run(std::io::stdin().lock(), stdout.lock())?;
    Ok(())
}
