//! `tavlei engine --protocol htp|otep`: an engine on standard input and output for other
//! programs.

use anyhow::{bail, Result};
use clap::{Args, ValueEnum};
use tavlei::engine::htp::HtpEngine;
use tavlei::engine::otep::{EngineSetup, OtepEngine};
use tavlei::engine::player::Player;
use tavlei::eval::agent::AgentSpec;

use tavlei::nn::device::DeviceChoice;

use super::args::{SeedArg, VariantArg};

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum Protocol {
    /// The Hnefatafl Text Protocol of hnefatafl.org.
    Htp,
    /// OpenTafl's external engine protocol (the host sends the rules).
    Otep,
}

#[derive(Args)]
pub struct EngineArgs {
    #[arg(long, value_enum)]
    protocol: Protocol,
    /// The variant (a preset name, variant file or OTN rules string). HTP: the one played.
    /// OTEP: optional, the one a network was trained for (the host sends the rules played;
    /// rules equal to this variant's are played under its name).
    #[arg(long)]
    variant: Option<String>,
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
    let device = args.device.resolve()?;
    let variant = args
        .variant
        .map(|variant| VariantArg { variant }.load())
        .transpose()?;
    let stdin = std::io::stdin();
    match args.protocol {
        Protocol::Htp => {
            let Some(v) = variant else {
                bail!("--protocol htp needs --variant (copenhagen, brandubh, ...)");
            };
            // the variant's own name: a network checkpoint names its variant, not the file it
            // came from
            let player =
                Player::new(&args.agent, v.name(), device, args.seed.seed)?.keeping_table();
            HtpEngine::new(v, player).run(stdin.lock(), std::io::stdout().lock())?;
        }
        Protocol::Otep => {
            let setup = EngineSetup {
                agent: args.agent,
                home: variant,
                device,
                seed: args.seed.seed,
            };
            OtepEngine::new(setup).run(stdin.lock(), std::io::stdout().lock())?;
        }
    }
    Ok(())
}
