//! JSON-RPC edges every transport answers the same way, before rmcp sees the message: bytes
//! that are not JSON get a `-32700` parse error (id `null`) instead of a dropped line or a
//! plain-text status; an `initialize` missing its params, `protocolVersion`, `capabilities` or
//! `clientInfo` gets `-32602`; and (HTTP only) a sessionless request whose
//! `MCP-Protocol-Version` header names a version this server does not speak gets the
//! 2026-07-28 `UnsupportedProtocolVersionError` (`-32022`, `400`, with the versions it does).
use axum::body::Body;
use axum::extract::Request;
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::Response;
use rmcp::model::ProtocolVersion;
use serde_json::{Value, json};

pub const PARSE_ERROR: i64 = -32700;
pub const INVALID_PARAMS: i64 = -32602;
pub const UNSUPPORTED_VERSION: i64 = -32022;

/// A JSON-RPC error response.
pub fn error(id: Value, code: i64, message: &str, data: Option<Value>) -> Value {
    let mut e = json!({ "code": code, "message": message });
    if let Some(d) = data {
        e["data"] = d;
    }
    json!({ "jsonrpc": "2.0", "id": id, "error": e })
}

/// The `-32700` reply to bytes that are not JSON.
pub fn parse_error(why: &str) -> Value {
    error(
        Value::Null,
        PARSE_ERROR,
        &format!("Parse error: the message is not JSON ({why})"),
        None,
    )
}

/// What is wrong with an `initialize` request, if anything.
fn initialize_fault(params: Option<&Value>) -> Option<String> {
    let Some(p) = params.and_then(Value::as_object) else {
        return Some("initialize needs params (protocolVersion, capabilities, clientInfo)".into());
    };
    if !p.get("protocolVersion").is_some_and(Value::is_string) {
        return Some("initialize needs params.protocolVersion (a string)".into());
    }
    if !p.get("capabilities").is_some_and(Value::is_object) {
        return Some("initialize needs params.capabilities (an object, {} for none)".into());
    }
    let info = p.get("clientInfo").and_then(Value::as_object);
    let named = info.is_some_and(|i| {
        i.get("name").is_some_and(Value::is_string)
            && i.get("version").is_some_and(Value::is_string)
    });
    if !named {
        return Some("initialize needs params.clientInfo with a name and a version".into());
    }
    None
}

/// The reply a message gets instead of being handed to rmcp: `None` passes it on.
pub fn screen(bytes: &[u8]) -> Option<Value> {
    let value: Value = match serde_json::from_slice(bytes) {
        Ok(v) => v,
        Err(e) => return Some(parse_error(&e.to_string())),
    };
    let obj = value.as_object()?;
    if obj.get("method").and_then(Value::as_str) == Some("initialize") {
        let id = obj.get("id")?.clone();
        if let Some(why) = initialize_fault(obj.get("params")) {
            return Some(error(
                id,
                INVALID_PARAMS,
                &format!("Invalid params: {why}"),
                None,
            ));
        }
    }
    None
}

/// The versions this server speaks, newest first.
pub fn supported_versions() -> Vec<String> {
    let mut v: Vec<String> = ProtocolVersion::KNOWN_VERSIONS
        .iter()
        .map(|v| v.to_string())
        .collect();
    v.sort();
    v.reverse();
    v
}

fn json_reply(status: StatusCode, body: &Value) -> Response {
    let mut r = Response::new(Body::from(body.to_string()));
    *r.status_mut() = status;
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    r
}

/// The `/mcp` middleware: runs after the body was read whole ([`super::http`]).
pub async fn http(request: Request, next: Next) -> Response {
    if request.method() != Method::POST {
        return next.run(request).await;
    }
    let (parts, body) = request.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, usize::MAX).await else {
        return json_reply(
            StatusCode::BAD_REQUEST,
            &parse_error("the body could not be read"),
        );
    };
    if let Some(reply) = screen(&bytes) {
        let status = if reply["error"]["code"] == PARSE_ERROR {
            StatusCode::BAD_REQUEST
        } else {
            StatusCode::OK
        };
        return json_reply(status, &reply);
    }
    let sessionless = !parts.headers.contains_key("mcp-session-id");
    let requested = parts
        .headers
        .get("mcp-protocol-version")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    if let (true, Some(requested)) = (sessionless, requested) {
        let supported = supported_versions();
        let value: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
        let is_init = value.get("method").and_then(Value::as_str) == Some("initialize");
        if !is_init && !supported.contains(&requested) {
            let id = value.get("id").cloned().unwrap_or(Value::Null);
            let body = error(
                id,
                UNSUPPORTED_VERSION,
                "Unsupported protocol version",
                Some(json!({ "supported": supported, "requested": requested })),
            );
            return json_reply(StatusCode::BAD_REQUEST, &body);
        }
    }
    next.run(Request::from_parts(parts, Body::from(bytes)))
        .await
}

/// The longest line the stdio screen reads whole (rmcp's own limit); a longer one is answered
/// with a parse error and skipped.
pub const MAX_LINE: usize = rmcp::transport::async_rw::DEFAULT_MAX_LINE_LENGTH;
/// Bytes buffered between the screen and rmcp, each way.
const PIPE_BYTES: usize = 1 << 20;

/// Puts [`screen`] between a stdio connection and rmcp: returns the ends rmcp reads from and
/// writes to. Lines rmcp writes and the screen's own replies reach `write` whole, one at a time.
/// Both pumps end with the connection, with rmcp, or when `stop` is cancelled.
pub fn stdio<R, W>(
    read: R,
    write: W,
    stop: tokio_util::sync::CancellationToken,
) -> (tokio::io::DuplexStream, tokio::io::DuplexStream)
where
    R: tokio::io::AsyncRead + Unpin + Send + 'static,
    W: tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
    let (rmcp_in, mut feed) = tokio::io::duplex(PIPE_BYTES);
    let (rmcp_out, drain) = tokio::io::duplex(PIPE_BYTES);
    let write = std::sync::Arc::new(tokio::sync::Mutex::new(write));
    let out = write.clone();
    let stop_in = stop.clone();
    tokio::spawn(async move {
        let mut reader = BufReader::new(read);
        let mut line = Vec::new();
        loop {
            line.clear();
            let mut limited = (&mut reader).take(MAX_LINE as u64 + 1);
            let got = tokio::select! {
                r = limited.read_until(b'\n', &mut line) => r,
                _ = stop_in.cancelled() => break,
            };
            match got {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
            let reply = if line.len() > MAX_LINE && line.last() != Some(&b'\n') {
                // Skip the rest of the overlong line.
                let mut rest = Vec::new();
                loop {
                    rest.clear();
                    match (&mut reader)
                        .take(64 * 1024)
                        .read_until(b'\n', &mut rest)
                        .await
                    {
                        Ok(0) | Err(_) => break,
                        Ok(_) if rest.last() == Some(&b'\n') => break,
                        Ok(_) => {}
                    }
                }
                Some(parse_error(&format!(
                    "the line is longer than {MAX_LINE} bytes"
                )))
            } else {
                let text = line.trim_ascii();
                if text.is_empty() {
                    continue;
                }
                screen(text)
            };
            match reply {
                Some(reply) => {
                    let mut bytes = reply.to_string().into_bytes();
                    bytes.push(b'\n');
                    let mut w = write.lock().await;
                    if w.write_all(&bytes).await.is_err() || w.flush().await.is_err() {
                        break;
                    }
                }
                None => {
                    if line.last() != Some(&b'\n') {
                        line.push(b'\n');
                    }
                    if feed.write_all(&line).await.is_err() {
                        break;
                    }
                }
            }
        }
        // rmcp reads the end of input: the session ends as it did without the screen.
        let _ = feed.shutdown().await;
    });
    tokio::spawn(async move {
        let mut reader = BufReader::new(drain);
        let mut line = Vec::new();
        loop {
            line.clear();
            let got = tokio::select! {
                r = reader.read_until(b'\n', &mut line) => r,
                _ = stop.cancelled() => break,
            };
            match got {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
            let mut w = out.lock().await;
            if w.write_all(&line).await.is_err() || w.flush().await.is_err() {
                break;
            }
        }
        let _ = out.lock().await.shutdown().await;
    });
    (rmcp_in, rmcp_out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn not_json_is_a_parse_error_with_a_null_id() {
        let r = screen(b"{not json").expect("refused");
        assert_eq!(r["error"]["code"], PARSE_ERROR);
        assert!(r["id"].is_null());
    }

    #[test]
    fn a_malformed_initialize_is_invalid_params_with_its_id() {
        for bad in [
            json!({"jsonrpc":"2.0","id":7,"method":"initialize"}),
            json!({"jsonrpc":"2.0","id":7,"method":"initialize","params":{"capabilities":{},"clientInfo":{"name":"a","version":"1"}}}),
            json!({"jsonrpc":"2.0","id":7,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{}}}),
            json!({"jsonrpc":"2.0","id":7,"method":"initialize","params":{"protocolVersion":"2025-06-18","clientInfo":{"name":"a","version":"1"}}}),
        ] {
            let r = screen(bad.to_string().as_bytes()).expect("refused");
            assert_eq!(r["error"]["code"], INVALID_PARAMS, "{bad}");
            assert_eq!(r["id"], 7);
        }
        let good = json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"a","version":"1"}}});
        assert!(screen(good.to_string().as_bytes()).is_none());
        assert!(screen(br#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#).is_none());
    }

    #[test]
    fn supported_versions_include_both_eras() {
        let v = supported_versions();
        assert!(v.iter().any(|v| v == "2026-07-28"), "{v:?}");
        assert!(v.iter().any(|v| v == "2025-06-18"), "{v:?}");
    }
}
