//! What one client may take from the server: a search's clock and memory, a request body's size
//! and the time to send it, the time to send a request's head, and connections at once. A server
//! people leave running must stay up whatever a page or a script sends it.

use std::time::Duration;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::api::ApiError;
use crate::search::SearchCap;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ServeLimits {
    /// The longest an agent may think per move: a time budget above it is refused, and every
    /// search (a depth, a simulation count) is stopped by it.
    pub move_time: Duration,
    /// The most memory one tree search's nodes may hold.
    pub tree_bytes: usize,
    /// The largest request body (a move, a new game with a record to continue).
    pub body_bytes: usize,
    /// The longest a client may take to send a request's head, or its body; an idle kept-alive
    /// connection is closed after the head's time too.
    pub send_time: Duration,
    /// Connections served at once; more wait in the listener's queue.
    pub connections: usize,
}

impl Default for ServeLimits {
    fn default() -> ServeLimits {
        ServeLimits {
            move_time: Duration::from_secs(30),
            tree_bytes: 512 << 20,
            body_bytes: 1 << 20,
            send_time: Duration::from_secs(10),
            connections: 256,
        }
    }
}

impl ServeLimits {
    /// The bounds every agent's search is held to.
    pub fn search_cap(&self) -> SearchCap {
        SearchCap {
            time: Some(self.move_time),
            tree_bytes: Some(self.tree_bytes),
        }
    }
}

/// Reads a request's whole body before any handler sees it, within `body_bytes` and
/// `send_time`: a larger body is refused (413) and a client that sends too slowly is answered
/// (408) instead of holding a task open.
pub async fn buffered_body(
    State(limits): State<ServeLimits>,
    request: Request,
    next: Next,
) -> Response {
    let (parts, body) = request.into_parts();
    let read = axum::body::to_bytes(body, limits.body_bytes);
    let bytes = match tokio::time::timeout(limits.send_time, read).await {
        Ok(Ok(bytes)) => bytes,
        Ok(Err(_)) => {
            return ApiError::new(
                StatusCode::PAYLOAD_TOO_LARGE,
                format!(
                    "the request's body is over {} bytes, or broken off",
                    limits.body_bytes
                ),
            )
            .into_response()
        }
        Err(_) => {
            return ApiError::new(
                StatusCode::REQUEST_TIMEOUT,
                format!(
                    "the request's body did not arrive within {} s",
                    limits.send_time.as_secs_f64()
                ),
            )
            .into_response()
        }
    };
    next.run(Request::from_parts(parts, Body::from(bytes)))
        .await
}
