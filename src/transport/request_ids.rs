//! A request id is a session's name for one request until it is answered (JSON-RPC): rmcp
//! keeps one reply slot per id, so a second request reusing an id still in flight took the
//! first one's slot, and the first POST never got an answer. Here a reused id is refused with
//! `-32600` while its request is open (until its reply, or its stream, ends); the first goes on.
use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use axum::body::Body;
use axum::extract::Request;
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::Response;
use futures::StreamExt;
use serde_json::Value;

/// `(session id, request id as JSON)` of every request not yet answered.
#[derive(Debug, Default, Clone)]
pub struct InFlightIds(Arc<Mutex<HashSet<(String, String)>>>);

/// Removes its request from [`InFlightIds`] when dropped.
struct Open(InFlightIds, (String, String));

impl Drop for Open {
    fn drop(&mut self) {
        if let Ok(mut s) = (self.0).0.lock() {
            s.remove(&self.1);
        }
    }
}

pub async fn guard(
    axum::extract::State(ids): axum::extract::State<InFlightIds>,
    request: Request,
    next: Next,
) -> Response {
    let sid = request
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let Some(sid) = sid.filter(|_| request.method() == Method::POST) else {
        return next.run(request).await;
    };
    let (parts, body) = request.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, usize::MAX).await else {
        return reply(
            StatusCode::BAD_REQUEST,
            &super::jsonrpc_checks::parse_error("the body could not be read"),
        );
    };
    let msg: Option<Value> = serde_json::from_slice(&bytes).ok();
    let id = msg
        .as_ref()
        .filter(|m| m.get("method").is_some())
        .and_then(|m| m.get("id"))
        .cloned();
    let request = Request::from_parts(parts, Body::from(bytes));
    let Some(id) = id else {
        return next.run(request).await;
    };
    let key = (sid, id.to_string());
    let fresh = ids
        .0
        .lock()
        .map(|mut s| s.insert(key.clone()))
        .unwrap_or(true);
    if !fresh {
        let body = super::jsonrpc_checks::error(
            Value::Null,
            super::jsonrpc_checks::INVALID_REQUEST,
            &format!(
                "Invalid Request: id {} is already in use by a request of this session that has \
                 not been answered; use a new id for each request",
                key.1
            ),
            None,
        );
        return reply(StatusCode::BAD_REQUEST, &body);
    }
    let open = Open(ids, key);
    let resp = next.run(request).await;
    if !super::sse_as_json::is_sse(&resp) {
        return resp;
    }
    // A stream (progress first, then the reply) is the request until it ends.
    let (parts, body) = resp.into_parts();
    let stream = body.into_data_stream().map(move |chunk| {
        let _open = &open;
        chunk
    });
    Response::from_parts(parts, Body::from_stream(stream))
}

fn reply(status: StatusCode, body: &Value) -> Response {
    let mut r = Response::new(Body::from(body.to_string()));
    *r.status_mut() = status;
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    r
}
