//! `tavlei serve`: the browser's page and its API on a local port.

use std::io::Write;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::time::Duration;

use anyhow::Result;
use clap::Args;
use tavlei::nn::device::DeviceChoice;
use tavlei::search::parse_duration;
use tavlei::serve::limits::ServeLimits;
use tavlei::serve::{serve, ServeOptions};

fn parse_time(text: &str) -> Result<Duration, String> {
    parse_duration(text).ok_or_else(|| format!("`{text}` is not a time like 30s or 500ms"))
}

#[derive(Args)]
pub struct ServeArgs {
    /// The port (0: any free one; the address is printed).
    #[arg(long, default_value_t = 8080)]
    port: u16,
    /// The address to listen on: loopback by default, so only this machine reaches the page;
    /// `0.0.0.0` opens it to the network (then name the hosts it is reached by, `--allow-host`).
    #[arg(long, default_value_t = IpAddr::V4(Ipv4Addr::LOCALHOST))]
    host: IpAddr,
    /// A host name requests may name (their `Host` header) besides the loopback names and the
    /// `--host` address, e.g. the server's public name; `*` for any. Repeatable.
    #[arg(long = "allow-host", value_name = "NAME")]
    allow_hosts: Vec<String>,
    /// A page (`https://tafl.example.org`) allowed to start and play games besides the server's
    /// own, e.g. behind a proxy. Repeatable.
    #[arg(long = "allow-origin", value_name = "ORIGIN")]
    allow_origins: Vec<String>,
    /// The longest an agent may think per move: longer time budgets are refused, and every
    /// search (a depth, a simulation count) is stopped by it.
    #[arg(long, default_value = "30s", value_parser = parse_time)]
    max_move_time: Duration,
    /// The most memory (MiB) one tree search may take.
    #[arg(long, default_value_t = 512)]
    max_tree_mb: usize,
    /// The longest a client may take to send a request's head or its body (a slower one is cut
    /// off), and an idle connection is kept open.
    #[arg(long, default_value = "10s", value_parser = parse_time)]
    send_timeout: Duration,
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
        allow_hosts: args.allow_hosts,
        allow_origins: args.allow_origins,
        limits: ServeLimits {
            move_time: args.max_move_time,
            tree_bytes: args.max_tree_mb.saturating_mul(1 << 20),
            send_time: args.send_timeout,
            ..ServeLimits::default()
        },
    };
    serve(options, |addr| {
        println!("tavlei serve: http://{addr}/ (Ctrl-C stops it)");
        let _ = std::io::stdout().flush();
    })?;
    Ok(())
}
