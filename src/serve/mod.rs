//! `tavlei serve`: play any preset against any agent in the browser, with the agent's analysis,
//! and browse balance studies and their games. A small HTTP server (axum) with a JSON API over
//! the library and one page of plain HTML, CSS and script, compiled into the binary.

pub mod api;
pub mod games;
pub mod guard;
pub mod limits;
pub mod listen;
pub mod studies;
pub mod view;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use thiserror::Error;

use api::{router, AppState};
use games::Games;
use guard::Allowed;
use limits::ServeLimits;
use studies::Studies;

#[derive(Debug, Error)]
pub enum ServeError {
    #[error("listening on {addr}: {message}")]
    Listen { addr: SocketAddr, message: String },
    #[error("the server: {0}")]
    Server(String),
}

#[derive(Clone, Debug)]
pub struct ServeOptions {
    pub addr: SocketAddr,
    /// Network agents load checkpoints from here only.
    pub models: PathBuf,
    /// Directories searched for balance studies.
    pub studies: Vec<PathBuf>,
    pub device: tch::Device,
    /// Games kept at once (the oldest goes first).
    pub capacity: usize,
    /// Host names beside the loopback ones that requests may name (`*`: any).
    pub allow_hosts: Vec<String>,
    /// Origins beside the server's own page that may change games.
    pub allow_origins: Vec<String>,
    pub limits: ServeLimits,
}

/// Serves until interrupted (Ctrl-C); `ready` is told the address it listens on (port 0 picks a
/// free one).
pub fn serve(options: ServeOptions, ready: impl FnOnce(SocketAddr)) -> Result<(), ServeError> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(cores.min(4))
        .enable_all()
        .build()
        .map_err(|e| ServeError::Server(e.to_string()))?;
    let limits = options.limits;
    let games = Games::new(&options.models, options.device, options.capacity).with_limits(limits);
    let state = Arc::new(AppState {
        games,
        studies: Studies::find(&options.studies),
        searches: Arc::new(tokio::sync::Semaphore::new(cores)),
    });
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(options.addr)
            .await
            .map_err(|e| ServeError::Listen {
                addr: options.addr,
                message: e.to_string(),
            })?;
        let addr = listener
            .local_addr()
            .map_err(|e| ServeError::Server(e.to_string()))?;
        let allowed = Allowed::new(addr, &options.allow_hosts, &options.allow_origins);
        ready(addr);
        let stop = async {
            // without a signal handler the server runs until killed
            if tokio::signal::ctrl_c().await.is_err() {
                std::future::pending::<()>().await;
            }
        };
        listen::serve_connections(listener, router(state, allowed, limits), limits, stop).await;
        Ok(())
    })
}
