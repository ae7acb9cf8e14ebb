//! The accept loop: HTTP/1 connections served with a clock on every request's head (so a client
//! that sends a byte a minute, or an idle kept-alive connection, is closed) and a bound on the
//! connections served at once. axum's own `serve` has neither.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;

use super::limits::ServeLimits;

/// Serves `app` on `listener` until `stop` completes, then waits (a few seconds at most) for the
/// requests under way.
pub async fn serve_connections(
    listener: TcpListener,
    app: Router,
    limits: ServeLimits,
    stop: impl Future<Output = ()>,
) {
    let open = Arc::new(Semaphore::new(limits.connections));
    let mut stop = std::pin::pin!(stop);
    loop {
        let permit = tokio::select! {
            permit = Arc::clone(&open).acquire_owned() => match permit {
                Ok(permit) => permit,
                Err(_) => break,
            },
            () = &mut stop => break,
        };
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                // out of file descriptors, or a connection reset before it was taken: the
                // listener itself is fine, so wait a little instead of spinning
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                    continue;
                }
            },
            () = &mut stop => break,
        };
        let service = TowerToHyperService::new(app.clone());
        tokio::spawn(async move {
            let mut http = http1::Builder::new();
            http.timer(TokioTimer::new())
                .header_read_timeout(limits.send_time);
            // a failed connection (reset, timed out) concerns its client alone
            let _ = http.serve_connection(TokioIo::new(stream), service).await;
            drop(permit);
        });
    }
    let all = u32::try_from(limits.connections).unwrap_or(u32::MAX);
    let _ = tokio::time::timeout(Duration::from_secs(5), open.acquire_many(all)).await;
}
