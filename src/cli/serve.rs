//! `tavlei serve`: the browser's page and its API on a local port.

use std::io::Write;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;

use anyhow::Result;
use clap::Args;
use tavlei::nn::device::DeviceChoice;
use tavlei::serve::{serve, ServeOptions};

#[derive(Args)]
pub struct ServeArgs {
    /// The port (0: any free one; the address is printed).
    #[arg(long, default_value_t = 8080)]
    port: u16,
    /// The address to listen on: loopback by default, so only this machine reaches the page;
    /// `0.0.0.0` opens it to the network.
    #[arg(long, default_value_t = IpAddr::V4(Ipv4Addr::LOCALHOST))]
    host: IpAddr,
    /// Network agents (`net:FILE:B`) load checkpoints from this directory only.
    #[arg(long, default_value = "models")]
    models: PathBuf,
    /// Directories searched for balance studies (`balance.json` beside `games/`); repeatable.
    #[arg(long = "studies", default_values = ["experiments", "models"])]
    studies: Vec<PathBuf>,
    /// Games kept at once; beyond it the oldest is dropped.
    #[arg(long, default_value_t = 1000)]
    max_games: usize,
    #[arg(long, default_value = "auto")]
    device: DeviceChoice,
}

pub fn run(args: ServeArgs) -> Result<()> {
    let options = ServeOptions {
        addr: SocketAddr::new(args.host, args.port),
        models: args.models,
        studies: args.studies,
        device: args.device.resolve()?,
        capacity: args.max_games,
    };
    serve(options, |addr| {
        println!("tavlei serve: http://{addr}/ (Ctrl-C stops it)");
        let _ = std::io::stdout().flush();
    })?;
    Ok(())
}
