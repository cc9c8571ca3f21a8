//! Legacy (2025-era) sessions get every reply as an SSE stream from rmcp, and common clients
//! cap one SSE event (Python's at 1 MiB), so a large result (a screenshot) would never arrive.
//! When a POST's stream opens with its final JSON-RPC response, this answers with that
//! response as `application/json` instead — equally valid Streamable HTTP. A stream that
//! carries anything else first (progress, a server request) passes through untouched.
use axum::body::{Body, Bytes};
use axum::extract::Request;
use axum::http::{HeaderValue, Method, header};
use axum::middleware::Next;
use axum::response::Response;
use futures::StreamExt;

fn accepts_json(req: &Request) -> bool {
    req.headers()
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|a| a.contains("application/json") || a.contains("*/*"))
}

pub(super) fn is_sse(resp: &Response) -> bool {
    resp.headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|c| c.starts_with("text/event-stream"))
}

/// The end of the first complete event in `buf` (after its blank line).
fn event_end(buf: &[u8]) -> Option<usize> {
    let lf = buf.windows(2).position(|w| w == b"\n\n").map(|i| i + 2);
    let crlf = buf.windows(4).position(|w| w == b"\r\n\r\n").map(|i| i + 4);
    match (lf, crlf) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// The event's `data:` payload, lines joined with `\n` as the SSE spec says.
fn event_data(event: &[u8]) -> String {
    let text = String::from_utf8_lossy(event);
    let mut out: Vec<&str> = Vec::new();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("data:") {
            out.push(rest.strip_prefix(' ').unwrap_or(rest));
        }
    }
    out.join("\n")
}

fn is_final_response(data: &str) -> bool {
    match serde_json::from_str::<serde_json::Value>(data) {
        Ok(v) => {
            v.get("id").is_some()
                && v.get("method").is_none()
                && (v.get("result").is_some() || v.get("error").is_some())
        }
        Err(_) => false,
    }
}

pub async fn collapse(req: Request, next: Next) -> Response {
    let eligible = req.method() == Method::POST && accepts_json(&req);
    let resp = next.run(req).await;
    if !eligible || !is_sse(&resp) {
        return resp;
    }
    let (mut parts, body) = resp.into_parts();
    let mut stream = body.into_data_stream();
    let mut seen: Vec<u8> = Vec::new();
    let mut scanned = 0usize;
    loop {
        while let Some(end) = event_end(&seen[scanned..]) {
            let event = &seen[scanned..scanned + end];
            let data = event_data(event);
            scanned += end;
            if data.trim().is_empty() {
                continue; // priming event or keep-alive comment
            }
            if is_final_response(&data) {
                parts.headers.insert(
                    header::CONTENT_TYPE,
                    HeaderValue::from_static("application/json"),
                );
                parts.headers.remove(header::CONTENT_LENGTH);
                parts.headers.remove(header::CACHE_CONTROL);
                return Response::from_parts(parts, Body::from(data));
            }
            // Something else came first: replay what was read, then the rest, as SSE.
            let head =
                futures::stream::once(async move { Ok::<Bytes, axum::Error>(Bytes::from(seen)) });
            return Response::from_parts(parts, Body::from_stream(head.chain(stream)));
        }
        match stream.next().await {
            Some(Ok(chunk)) => seen.extend_from_slice(&chunk),
            Some(Err(_)) | None => {
                return Response::from_parts(parts, Body::from(seen));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_events() {
        let buf = b"id: 0\nretry: 3000\ndata:\n\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n";
        let e1 = event_end(buf).unwrap();
        assert_eq!(event_data(&buf[..e1]), "");
        let rest = &buf[e1..];
        let e2 = event_end(rest).unwrap();
        assert!(is_final_response(&event_data(&rest[..e2])));
        assert!(!is_final_response(
            r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{}}"#
        ));
        assert!(!is_final_response(
            r#"{"jsonrpc":"2.0","id":5,"method":"sampling/createMessage"}"#
        ));
    }
}
