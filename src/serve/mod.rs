//! `tavlei serve`: play any preset against any agent in the browser, with the agent's analysis,
//! and browse balance studies and their games. A small HTTP server (axum) with a JSON API over
//! the library and one page of plain HTML, CSS and script, compiled into the binary.

pub mod api;
pub mod games;
pub mod studies;
pub mod view;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use thiserror::Error;

use api::{router, AppState};
use games::Games;
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
    let state = Arc::new(AppState {
        games: Games::new(&options.models, options.device, options.capacity),
        studies: Studies::find(&options.studies),
        searches: tokio::sync::Semaphore::new(cores),
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
        ready(addr);
        axum::serve(listener, router(state))
            .with_graceful_shutdown(async {
                // without a signal handler the server runs until killed
                if tokio::signal::ctrl_c().await.is_err() {
                    std::future::pending::<()>().await;
                }
            })
            .await
            .map_err(|e| ServeError::Server(e.to_string()))
    })
}
