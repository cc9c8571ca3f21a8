//! Streamable HTTP at `/mcp` (rmcp's service: 2026-07-28 stateless and the 2025-era session
//! protocol on one endpoint) plus the legacy SSE pair (`/sse`, `/message`), all behind one gate.
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use super::write_timeout::WriteTimeout;
use super::{Shared, auth, sse};
use crate::mcp::events::Transport;
use crate::mcp::server::McpServer;

#[derive(Debug, Clone)]
pub struct HttpOptions {
    pub max_body_bytes: usize,
    pub session_idle: Duration,
    /// Only when the user bound a non-loopback address on purpose.
    pub any_host: bool,
    /// A reply (or stream) the client stops reading is dropped after this ([`super::stall`]).
    pub write_timeout: Duration,
}

pub fn router(shared: Shared, opts: &HttpOptions) -> Router {
    let core = shared.core.clone();
    let mut sessions = LocalSessionManager::default();
    sessions.session_config.keep_alive = Some(opts.session_idle);
    let mut config = StreamableHttpServerConfig::default()
        .with_max_request_body_bytes(opts.max_body_bytes)
        .with_cancellation_token(shared.shutdown.child_token())
        .with_sse_keep_alive(Some(Duration::from_secs(15)))
        .with_json_response(true);
    let ended = core.clone();
    config.session_store = Some(Arc::new(super::sessions::ParkedSessions::new(4096).on_end(
        move |id| crate::mcp::lease::session_ended(&ended, &crate::mcp::lease::http_key(id)),
    )));
    if opts.any_host {
        config = config.disable_allowed_hosts();
    } else {
        config = config.with_allowed_hosts(["localhost", "127.0.0.1", "::1", "[::1]"]);
    }
    let sessions = Arc::new(sessions);
    let mcp = StreamableHttpService::new(
        move || Ok(McpServer::new(core.clone(), Transport::Http)),
        sessions.clone(),
        config,
    );
    let mcp = Router::new()
        .fallback_service(mcp)
        .layer(axum::middleware::map_request(request_facts))
        .layer(axum::middleware::from_fn(super::sse_as_json::collapse))
        .layer(axum::middleware::from_fn_with_state(
            super::request_ids::InFlightIds::default(),
            super::request_ids::guard,
        ))
        .layer(axum::middleware::from_fn_with_state(sessions, cap_sessions))
        .layer(axum::middleware::from_fn(super::jsonrpc_checks::http));
    Router::new()
        .nest("/mcp", mcp)
        .merge(sse::routes(shared.clone()))
        .layer(axum::middleware::from_fn_with_state(
            opts.max_body_bytes,
            read_body_in_time,
        ))
        .layer(axum::middleware::from_fn_with_state(
            auth::GateState {
                shared: shared.clone(),
                any_host: opts.any_host,
            },
            auth::gate,
        ))
        .layer(DefaultBodyLimit::max(opts.max_body_bytes))
        .layer(axum::middleware::from_fn_with_state(
            opts.max_body_bytes,
            refuse_declared_oversize,
        ))
}

/// What the core needs of a request, as typed values ([`crate::mcp::who::RequestFacts`]): the
/// MCP session it belongs to (none for a 2026-07-28 request, whatever `Mcp-Session-Id` it
/// carries) and the toolsets its endpoint asks for (`?toolsets=`, percent-decoded). The core
/// reads no header and no query text. Runs innermost, on the request as rmcp gets it.
async fn request_facts(mut request: axum::extract::Request) -> axum::extract::Request {
    let headers = request.headers();
    let modern = headers
        .get("mcp-protocol-version")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.trim() >= "2026-07-28");
    let session_id = headers
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .filter(|s| !s.is_empty() && !modern)
        .map(str::to_string);
    // The first `toolsets=`, as the endpoint's query gives it.
    let toolsets = axum::extract::Query::<Vec<(String, String)>>::try_from_uri(request.uri())
        .ok()
        .and_then(|q| q.0.into_iter().find(|(k, _)| k == "toolsets"))
        .map(|(_, v)| v);
    request
        .extensions_mut()
        .insert(crate::mcp::who::RequestFacts {
            session_id,
            toolsets,
        });
    request
}

/// Legacy HTTP sessions alive at once. Each holds a server and its buffers (about 66 KB), and
/// one lives until its client ends it or it has idled for `session_idle`: without a bound, a
/// client holding the token could open thousands a second until memory ran out.
pub const MAX_HTTP_SESSIONS: usize = 512;

/// An `initialize` that would open a session beyond [`MAX_HTTP_SESSIONS`] is answered `503`
/// with a JSON-RPC error saying what to do; requests in existing sessions are untouched.
async fn cap_sessions(
    axum::extract::State(sessions): axum::extract::State<Arc<LocalSessionManager>>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    if request.method() != http::Method::POST || request.headers().contains_key("mcp-session-id") {
        return next.run(request).await;
    }
    let (parts, body) = request.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, usize::MAX).await else {
        return json_error(http::StatusCode::BAD_REQUEST, "the body could not be read");
    };
    let msg = serde_json::from_slice::<serde_json::Value>(&bytes).ok();
    let opens = msg
        .as_ref()
        .is_some_and(|v| v.get("method").and_then(serde_json::Value::as_str) == Some("initialize"));
    if opens && sessions.sessions.read().await.len() >= MAX_HTTP_SESSIONS {
        tracing::warn!(
            limit = MAX_HTTP_SESSIONS,
            "refused a new HTTP session: too many open"
        );
        let id = msg
            .and_then(|v| v.get("id").cloned())
            .unwrap_or(serde_json::Value::Null);
        let body = super::jsonrpc_checks::error(
            id,
            -32000,
            &format!(
                "too many open sessions ({MAX_HTTP_SESSIONS}): end the ones you no longer use \
                 (HTTP DELETE with their Mcp-Session-Id), or wait for idle ones to expire"
            ),
            None,
        );
        let mut r = axum::response::Response::new(axum::body::Body::from(body.to_string()));
        *r.status_mut() = http::StatusCode::SERVICE_UNAVAILABLE;
        r.headers_mut().insert(
            http::header::CONTENT_TYPE,
            http::HeaderValue::from_static("application/json"),
        );
        return r;
    }
    next.run(axum::extract::Request::from_parts(
        parts,
        axum::body::Body::from(bytes),
    ))
    .await
}

/// A body declared larger than the limit is refused before it is read: the body limits above
/// only trip once that many bytes have arrived, so a client declaring 6 MB and sending one
/// byte held its connection open indefinitely (RELIABILITY.md).
async fn refuse_declared_oversize(
    axum::extract::State(max): axum::extract::State<usize>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    let declared = request
        .headers()
        .get(http::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > max as u64) {
        return json_error(
            http::StatusCode::PAYLOAD_TOO_LARGE,
            "request body too large",
        );
    }
    next.run(request).await
}

/// A request body must keep arriving: each chunk within this, the whole body within
/// [`BODY_READ_TOTAL`]. Without it a client holding the token could send an honest
/// `Content-Length` and then drip the body for ever, holding a connection and a task.
pub const BODY_IDLE_TIMEOUT: Duration = Duration::from_secs(10);
pub const BODY_READ_TOTAL: Duration = Duration::from_secs(60);

/// Reads an authenticated request's body under [`BODY_IDLE_TIMEOUT`] / [`BODY_READ_TOTAL`]
/// and the size limit, then hands it on whole (every handler buffers it anyway).
async fn read_body_in_time(
    axum::extract::State(max): axum::extract::State<usize>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    use http_body_util::BodyExt;
    if matches!(
        *request.method(),
        http::Method::GET | http::Method::HEAD | http::Method::DELETE
    ) {
        return next.run(request).await;
    }
    let (parts, mut body) = request.into_parts();
    let deadline = tokio::time::Instant::now() + BODY_READ_TOTAL;
    let mut buf = bytes::BytesMut::new();
    loop {
        let idle = tokio::time::Instant::now() + BODY_IDLE_TIMEOUT;
        let frame = match tokio::time::timeout_at(idle.min(deadline), body.frame()).await {
            Err(_) => {
                return json_error(
                    http::StatusCode::REQUEST_TIMEOUT,
                    "the request body stopped arriving: send it within 10 s of each chunk and 60 s in all",
                );
            }
            Ok(None) => break,
            Ok(Some(Err(e))) => {
                return json_error(
                    http::StatusCode::BAD_REQUEST,
                    &format!("the request body could not be read: {e}"),
                );
            }
            Ok(Some(Ok(frame))) => frame,
        };
        if let Ok(data) = frame.into_data() {
            if buf.len() + data.len() > max {
                return json_error(
                    http::StatusCode::PAYLOAD_TOO_LARGE,
                    "request body too large",
                );
            }
            buf.extend_from_slice(&data);
        }
    }
    let body = axum::body::Body::from(buf.freeze());
    next.run(axum::extract::Request::from_parts(parts, body))
        .await
}

fn json_error(status: http::StatusCode, message: &str) -> axum::response::Response {
    let mut r = axum::response::Response::new(axum::body::Body::from(
        serde_json::json!({ "error": message }).to_string(),
    ));
    *r.status_mut() = status;
    r.headers_mut().insert(
        http::header::CONTENT_TYPE,
        http::HeaderValue::from_static("application/json"),
    );
    r
}

/// Bind, record the endpoint, and serve until shutdown.
pub async fn bind(addr: SocketAddr) -> std::io::Result<TcpListener> {
    TcpListener::bind(addr).await
}

/// A client must finish a request's head within this, or its connection is closed. axum's
/// `serve` gives hyper no timer, which silently disables hyper's own header-read timeout: a
/// slow-drip (slowloris) or silent connection was held open forever (RELIABILITY.md).
pub const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);

pub async fn serve(
    listener: TcpListener,
    shared: Shared,
    opts: HttpOptions,
) -> std::io::Result<()> {
    let local = listener.local_addr()?;
    shared.core.set_endpoints(|e| {
        e.http = Some(format!("http://{local}/mcp"));
        e.sse = Some(format!("http://{local}/sse"));
    });
    let app = router(shared.clone(), &opts);
    serve_router(listener, app, shared.shutdown.clone(), opts.write_timeout).await;
    shared.core.set_endpoints(|e| {
        e.http = None;
        e.sse = None;
    });
    Ok(())
}

/// Accept until `shutdown`, one task per connection (HTTP/1.1 with upgrades, as axum serves
/// it) with the header-read timeout and the write timeout; then let open connections finish
/// gracefully.
pub async fn serve_router(
    listener: TcpListener,
    app: Router,
    shutdown: CancellationToken,
    write_timeout: Duration,
) {
    let mut h1 = http1::Builder::new();
    h1.timer(TokioTimer::new())
        .header_read_timeout(HEADER_READ_TIMEOUT);
    // Every connection holds a receiver; `closed()` resolves when the last one is gone.
    let (conns_tx, conns_rx) = tokio::sync::watch::channel(());
    loop {
        let (stream, peer) = tokio::select! {
            _ = shutdown.cancelled() => break,
            accepted = listener.accept() => match accepted {
                Ok(a) => a,
                Err(e) => {
                    // EMFILE and the like: back off instead of spinning.
                    tracing::warn!(error = %e, "HTTP accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
        };
        let _ = stream.set_nodelay(true);
        // Each request carries the address its connection was accepted from: the verified
        // part of who asks (crate::mcp::who), apart from the name the client gives.
        let service = TowerToHyperService::new(app.clone().layer(axum::middleware::map_request(
            move |mut r: axum::extract::Request| async move {
                r.extensions_mut().insert(crate::mcp::who::PeerAddr(peer));
                r
            },
        )));
        // Every reply, SSE stream and GET stream on this connection is written through it.
        let stream = WriteTimeout::new(stream, write_timeout, format!("HTTP {peer}"));
        let conn = h1
            .serve_connection(TokioIo::new(stream), service)
            .with_upgrades();
        let (shutdown, held) = (shutdown.clone(), conns_rx.clone());
        tokio::spawn(async move {
            let mut conn = std::pin::pin!(conn);
            tokio::select! {
                _ = conn.as_mut() => {}
                _ = shutdown.cancelled() => {
                    conn.as_mut().graceful_shutdown();
                    let _ = conn.await;
                }
            }
            drop(held);
        });
    }
    drop(conns_rx);
    conns_tx.closed().await;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::who::RequestFacts;

    async fn facts(uri: &str, headers: &[(&str, &str)]) -> RequestFacts {
        let mut b = http::Request::builder().method("POST").uri(uri);
        for (k, v) in headers {
            b = b.header(*k, *v);
        }
        let r = request_facts(b.body(axum::body::Body::empty()).unwrap()).await;
        r.extensions()
            .get::<RequestFacts>()
            .cloned()
            .expect("facts")
    }

    #[tokio::test]
    async fn the_core_gets_the_session_and_the_toolsets_as_values() {
        let f = facts(
            "/?toolsets=core%2Capps&x=1&toolsets=debug",
            &[
                ("mcp-session-id", "abc"),
                ("mcp-protocol-version", "2025-11-25"),
            ],
        )
        .await;
        assert_eq!(f.session_id.as_deref(), Some("abc"));
        // Decoded, and the first one given.
        assert_eq!(f.toolsets.as_deref(), Some("core,apps"));
        let f = facts("/?toolsets=ui+apps", &[]).await;
        assert_eq!(f.toolsets.as_deref(), Some("ui apps"));
        assert_eq!(f.session_id, None);
    }

    #[tokio::test]
    async fn a_2026_request_has_no_session_whatever_header_it_carries() {
        let f = facts(
            "/",
            &[
                ("mcp-session-id", "someone-elses"),
                ("mcp-protocol-version", "2026-07-28"),
            ],
        )
        .await;
        assert_eq!(f.session_id, None);
        let f = facts("/", &[("mcp-session-id", "")]).await;
        assert_eq!(f.session_id, None);
    }
}
