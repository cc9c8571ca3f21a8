//! Legacy HTTP+SSE (`GET /sse` + `POST /message?sessionId=…`, 002_…) for clients that only
//! speak it. rmcp no longer ships this transport, so each SSE connection gets an rmcp session
//! served over an in-memory pipe: POSTed messages go in as lines, lines coming out become
//! `message` events. The `sessionId` is this transport's own, unrelated to anything else.
use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use futures::Stream;
use rmcp::ServiceExt;
use serde::Deserialize;
use serde_json::json;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, WriteHalf};
use tokio::sync::Mutex as AsyncMutex;
use tokio_util::sync::CancellationToken;

use super::Shared;
use crate::mcp::events::Transport;
use crate::mcp::server::McpServer;

/// Generous: a screenshot reply is one line.
const PIPE_BYTES: usize = 8 << 20;
const MAX_SSE_SESSIONS: usize = 64;

type Writer = Arc<AsyncMutex<WriteHalf<DuplexStream>>>;

#[derive(Clone)]
struct SseState {
    shared: Shared,
    sessions: Arc<Mutex<HashMap<String, Writer>>>,
}

pub fn routes(shared: Shared) -> Router {
    let state = SseState {
        shared,
        sessions: Arc::new(Mutex::new(HashMap::new())),
    };
    Router::new()
        .route("/sse", get(open))
        .route("/message", post(message))
        .with_state(state)
}

fn error(status: StatusCode, message: &str) -> Response {
    (
        status,
        [("content-type", "application/json")],
        json!({ "error": message }).to_string(),
    )
        .into_response()
}

/// Removes the session when the client's SSE stream goes away.
struct Cleanup {
    id: String,
    sessions: Arc<Mutex<HashMap<String, Writer>>>,
    ct: CancellationToken,
    /// The client is gone: its calls waiting for a person are withdrawn.
    gone: CancellationToken,
}

impl Drop for Cleanup {
    fn drop(&mut self) {
        self.gone.cancel();
        self.ct.cancel();
        if let Ok(mut s) = self.sessions.lock() {
            s.remove(&self.id);
        }
    }
}

async fn open(
    State(state): State<SseState>,
    addr: Option<axum::Extension<crate::mcp::who::PeerAddr>>,
) -> Response {
    let id = uuid::Uuid::new_v4().simple().to_string();
    let (server_end, bridge_end) = tokio::io::duplex(PIPE_BYTES);
    let (bridge_read, bridge_write) = tokio::io::split(bridge_end);
    {
        let Ok(mut sessions) = state.sessions.lock() else {
            return error(
                StatusCode::INTERNAL_SERVER_ERROR,
                "session table unavailable",
            );
        };
        if sessions.len() >= MAX_SSE_SESSIONS {
            return error(
                StatusCode::SERVICE_UNAVAILABLE,
                "too many SSE sessions: close one and retry",
            );
        }
        sessions.insert(id.clone(), Arc::new(AsyncMutex::new(bridge_write)));
    }
    let ct = state.shared.shutdown.child_token();
    let gone = CancellationToken::new();
    // The address the stream's connection came from: verified, unlike the client's name.
    let peer = addr.map(|a| spock_core::model::Peer {
        addr: Some(a.0.0.to_string()),
        ..Default::default()
    });
    let server = McpServer::new(state.shared.core.clone(), Transport::Sse)
        .peer(peer)
        .client_gone(gone.clone());
    let session_ct = ct.clone();
    let open = state.shared.core.stream_opened(Transport::Sse);
    tokio::spawn(async move {
        // Counted as connected while the session runs.
        let _open = open;
        let (r, w) = tokio::io::split(server_end);
        match server.serve_with_ct((r, w), session_ct.clone()).await {
            Ok(running) => {
                tokio::select! {
                    _ = running.waiting() => {}
                    _ = session_ct.cancelled() => {}
                }
            }
            Err(e) => tracing::debug!(error = %e, "SSE session ended before initialize"),
        }
    });
    let cleanup = Cleanup {
        id: id.clone(),
        sessions: state.sessions.clone(),
        ct: ct.clone(),
        gone,
    };
    let stream = events(id, bridge_read, ct, cleanup);
    Sse::new(stream)
        .keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
        .into_response()
}

fn events(
    id: String,
    read: tokio::io::ReadHalf<DuplexStream>,
    ct: CancellationToken,
    cleanup: Cleanup,
) -> impl Stream<Item = Result<Event, Infallible>> {
    let first = Event::default()
        .event("endpoint")
        .data(format!("/message?sessionId={id}"));
    let lines = BufReader::new(read).lines();
    let state = (lines, ct, cleanup);
    let rest = futures::stream::unfold(state, |(mut lines, ct, cleanup)| async move {
        let line = tokio::select! {
            l = lines.next_line() => l.ok().flatten(),
            _ = ct.cancelled() => None,
        }?;
        Some((
            Ok(Event::default().event("message").data(line)),
            (lines, ct, cleanup),
        ))
    });
    futures::StreamExt::chain(futures::stream::once(async move { Ok(first) }), rest)
}

#[derive(Deserialize)]
struct SessionQuery {
    #[serde(rename = "sessionId")]
    session_id: Option<String>,
}

async fn message(
    State(state): State<SseState>,
    Query(q): Query<SessionQuery>,
    body: Bytes,
) -> Response {
    let Some(id) = q.session_id else {
        return error(
            StatusCode::BAD_REQUEST,
            "missing sessionId: open GET /sse first and post to the endpoint it names",
        );
    };
    let writer = state.sessions.lock().ok().and_then(|s| s.get(&id).cloned());
    let Some(writer) = writer else {
        return error(
            StatusCode::NOT_FOUND,
            "unknown or closed sessionId: open GET /sse again",
        );
    };
    // Not JSON (-32700), or a malformed initialize (-32602): answered here, as JSON-RPC.
    if let Some(reply) = super::jsonrpc_checks::screen(&body) {
        return (
            StatusCode::BAD_REQUEST,
            [("content-type", "application/json")],
            reply.to_string(),
        )
            .into_response();
    }
    // One JSON value per line on the pipe: re-encode compactly (a pretty body has newlines).
    let value: serde_json::Value = match serde_json::from_slice(&body) {
        Ok(v) => v,
        Err(e) => {
            let body = super::jsonrpc_checks::parse_error(&e.to_string()).to_string();
            return (
                StatusCode::BAD_REQUEST,
                [("content-type", "application/json")],
                body,
            )
                .into_response();
        }
    };
    let mut line = value.to_string().into_bytes();
    line.push(b'\n');
    let mut w = writer.lock().await;
    if w.write_all(&line).await.is_err() || w.flush().await.is_err() {
        return error(StatusCode::GONE, "session closed");
    }
    (StatusCode::ACCEPTED, "Accepted").into_response()
}
