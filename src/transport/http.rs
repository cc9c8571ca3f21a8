//! Streamable HTTP at `/mcp` (rmcp's service: 2026-07-28 stateless and the 2025-era session
//! protocol on one endpoint) plus the legacy SSE pair (`/sse`, `/message`), all behind one gate.
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::net::TcpListener;

use super::{Shared, auth, sse};
use crate::mcp::events::Transport;
use crate::mcp::server::McpServer;

#[derive(Debug, Clone)]
pub struct HttpOptions {
    pub max_body_bytes: usize,
    pub session_idle: Duration,
    /// Only when the user bound a non-loopback address on purpose.
    pub any_host: bool,
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
    config.session_store = Some(Arc::new(super::sessions::ParkedSessions::new(4096)));
    if opts.any_host {
        config = config.disable_allowed_hosts();
    } else {
        config = config.with_allowed_hosts(["localhost", "127.0.0.1", "::1", "[::1]"]);
    }
    let mcp = StreamableHttpService::new(
        move || Ok(McpServer::new(core.clone(), Transport::Http)),
        Arc::new(sessions),
        config,
    );
    let mcp = Router::new()
        .fallback_service(mcp)
        .layer(axum::middleware::from_fn(super::collapse::collapse));
    Router::new()
        .nest("/mcp", mcp)
        .merge(sse::routes(shared.clone()))
        .layer(axum::middleware::from_fn_with_state(
            shared.clone(),
            auth::gate,
        ))
        .layer(DefaultBodyLimit::max(opts.max_body_bytes))
}

/// Bind, record the endpoint, and serve until shutdown.
pub async fn bind(addr: SocketAddr) -> std::io::Result<TcpListener> {
    TcpListener::bind(addr).await
}

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
    let shutdown = shared.shutdown.clone();
    let result = axum::serve(listener, app.into_make_service())
        .with_graceful_shutdown(async move { shutdown.cancelled().await })
        .await;
    shared.core.set_endpoints(|e| {
        e.http = None;
        e.sse = None;
    });
    result
}
