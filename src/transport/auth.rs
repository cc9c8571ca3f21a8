//! The HTTP gate in front of every route: `Host` (403), `Origin` (403), then health, then
//! bearer token (401). rmcp's HTTP default does not check `Origin`, and checks `Host` only on
//! `/mcp` and only after the token, so this does both first, for every route: a page on a
//! foreign name rebound to 127.0.0.1 (DNS rebinding) gets the same 403 everywhere, never the
//! status page or a 401 naming this server.
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde_json::json;

use super::Shared;

pub const UNAUTHORIZED_BODY: &str = r#"{"error":"Missing or invalid bearer token"}"#;

fn json_response(status: StatusCode, body: String) -> Response {
    let mut r = Response::new(Body::from(body));
    *r.status_mut() = status;
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        header::HeaderValue::from_static("application/json"),
    );
    r
}

/// The `401` every route answers without the right token, with the challenge RFC 9110 §11.6.1
/// requires (`Bearer`, RFC 6750 §3; `error="invalid_token"` when a token was sent).
pub fn unauthorized(token_sent: bool) -> Response {
    let mut r = json_response(StatusCode::UNAUTHORIZED, UNAUTHORIZED_BODY.to_string());
    let challenge = if token_sent {
        r#"Bearer realm="spock-tui", error="invalid_token""#
    } else {
        r#"Bearer realm="spock-tui""#
    };
    r.headers_mut().insert(
        header::WWW_AUTHENTICATE,
        header::HeaderValue::from_static(challenge),
    );
    r
}

/// A browser origin is acceptable only when it is this machine (loopback, any port).
pub fn origin_allowed(origin: &str) -> bool {
    let Some((scheme, rest)) = origin.split_once("://") else {
        return false;
    };
    if scheme != "http" && scheme != "https" {
        return false;
    }
    let host = if let Some(v6) = rest.strip_prefix('[') {
        v6.split(']').next().unwrap_or("")
    } else {
        rest.split(':').next().unwrap_or("")
    };
    loopback_name(host.trim_end_matches('/'))
}

/// A name for this machine's loopback: `localhost`, `::1`, or an address in 127.0.0.0/8.
fn loopback_name(host: &str) -> bool {
    matches!(host, "localhost" | "127.0.0.1" | "::1")
        || host.starts_with("127.")
            && host.split('.').count() == 4
            && host.split('.').all(|p| p.parse::<u8>().is_ok())
}

/// A `Host` header naming this machine's loopback (`127.0.0.1:8765`, `[::1]:8765`,
/// `localhost`): what a page on a foreign name rebound to 127.0.0.1 cannot send.
pub fn host_allowed(host: &str) -> bool {
    let name = match host.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or(""),
        None => host.rsplit_once(':').map_or(host, |(h, _)| h),
    };
    loopback_name(name)
}

/// What a request with a foreign `Host` gets, on every route: says why, names no server.
pub const HOST_REFUSED_BODY: &str =
    r#"{"error":"Host not allowed: this server answers only to localhost, 127.0.0.1 and [::1]"}"#;

/// Whether the request's `Host` may be served: a loopback name ([`host_allowed`]), or anything
/// when the user bound a non-loopback address on purpose (the names clients use for it are
/// not known here).
fn host_ok(any_host: bool, headers: &HeaderMap) -> bool {
    any_host
        || headers
            .get(header::HOST)
            .and_then(|h| h.to_str().ok())
            .is_some_and(host_allowed)
}

pub fn bearer(headers: &HeaderMap) -> Option<&str> {
    let v = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = v.split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
}

fn wants_sse(headers: &HeaderMap) -> bool {
    headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|a| a.contains("text/event-stream"))
}

/// The gate's state: the server, and whether any `Host` is served ([`host_ok`]).
#[derive(Clone)]
pub struct GateState {
    pub shared: Shared,
    pub any_host: bool,
}

pub async fn gate(State(gate): State<GateState>, request: Request, next: Next) -> Response {
    let GateState { shared, any_host } = gate;
    if !host_ok(any_host, request.headers()) {
        return json_response(StatusCode::FORBIDDEN, HOST_REFUSED_BODY.to_string());
    }
    if let Some(origin) = request.headers().get(header::ORIGIN) {
        let ok = origin.to_str().map(origin_allowed).unwrap_or(false);
        if !ok {
            let shown: String = String::from_utf8_lossy(origin.as_bytes())
                .chars()
                .take(200)
                .collect();
            tracing::warn!(origin = %shown.escape_debug(), "refused a request from a foreign Origin");
            return json_response(
                StatusCode::FORBIDDEN,
                json!({"error": "Origin not allowed"}).to_string(),
            );
        }
    }
    if request.method() == axum::http::Method::GET
        && request.uri().path() == "/mcp"
        && !wants_sse(request.headers())
    {
        return json_response(
            StatusCode::OK,
            json!({"status": "running", "transport": "mcp"}).to_string(),
        );
    }
    // No OAuth here: the discovery documents do not exist (a client then uses its token).
    if request.uri().path().starts_with("/.well-known/oauth-") {
        return json_response(
            StatusCode::NOT_FOUND,
            json!({"error": "not found: spock-tui takes a bearer token, it has no OAuth server"})
                .to_string(),
        );
    }
    let sent = request.headers().contains_key(header::AUTHORIZATION);
    let presented = bearer(request.headers()).unwrap_or("");
    if !shared.tokens.check(presented) {
        return unauthorized(sent);
    }
    let is_delete = request.method() == axum::http::Method::DELETE;
    let mut response = next.run(request).await.into_response();
    // rmcp answers a session DELETE with 202; clients expect 200/204 for "terminated".
    if is_delete && response.status() == StatusCode::ACCEPTED {
        *response.status_mut() = StatusCode::NO_CONTENT;
        *response.body_mut() = Body::empty();
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins() {
        for ok in [
            "http://localhost:3000",
            "http://127.0.0.1",
            "https://[::1]:8080",
            "http://127.0.0.2:1",
        ] {
            assert!(origin_allowed(ok), "{ok}");
        }
        for bad in [
            "http://evil.com",
            "null",
            "http://localhost.evil.com",
            "file://",
            "http://127.0.0.1.evil.com",
            "http://192.168.1.2",
        ] {
            assert!(!origin_allowed(bad), "{bad}");
        }
    }

    #[test]
    fn hosts() {
        for ok in [
            "127.0.0.1:8765",
            "localhost",
            "localhost:1",
            "[::1]:8765",
            "127.0.0.9",
        ] {
            assert!(host_allowed(ok), "{ok}");
        }
        for bad in [
            "evil.example",
            "evil.example:8765",
            "localhost.evil.com:80",
            "127.0.0.1.evil.com",
            "[::2]:1",
            "",
            "10.0.0.5:8765",
        ] {
            assert!(!host_allowed(bad), "{bad}");
        }
    }

    #[test]
    fn bearer_parsing() {
        let mut h = HeaderMap::new();
        h.insert(header::AUTHORIZATION, "Bearer abc".parse().unwrap());
        assert_eq!(bearer(&h), Some("abc"));
        h.insert(header::AUTHORIZATION, "Basic abc".parse().unwrap());
        assert_eq!(bearer(&h), None);
    }
}
