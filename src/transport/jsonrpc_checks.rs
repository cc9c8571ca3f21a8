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
pub const INVALID_REQUEST: i64 = -32600;
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

/// The envelope's members, read once more so a member given twice is an error (serde keeps
/// the last of a map's duplicates; which one rmcp or a proxy would act on is anyone's guess).
#[derive(serde::Deserialize)]
#[allow(dead_code)]
struct Envelope {
    jsonrpc: Option<Value>,
    id: Option<Value>,
    method: Option<Value>,
    params: Option<Value>,
    result: Option<Value>,
    error: Option<Value>,
}

/// A request id MCP accepts: a string or an integer (never null, a fraction or a boolean).
fn valid_id(id: &Value) -> bool {
    id.is_string() || id.as_i64().is_some()
}

fn invalid_request(id: Value, why: &str) -> Value {
    error(
        id,
        INVALID_REQUEST,
        &format!("Invalid Request: {why}"),
        None,
    )
}

/// The logging levels of `logging/setLevel` (RFC 5424, as MCP names them).
const LEVELS: &[&str] = &[
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
];

/// What is wrong with the params of a request for a method this server serves, if anything
/// (rmcp answers a params shape it cannot read as "method not found").
fn params_fault(method: &str, params: Option<&Value>) -> Option<String> {
    let p = params.and_then(Value::as_object);
    let string = |k: &str| p.and_then(|p| p.get(k)).is_some_and(Value::is_string);
    let object_or_absent = |k: &str| {
        p.and_then(|p| p.get(k))
            .is_none_or(|v| v.is_object() || v.is_null())
    };
    match method {
        "tools/call" if !string("name") => Some("tools/call needs params.name (a string)".into()),
        "tools/call" if !object_or_absent("arguments") => {
            Some("tools/call params.arguments must be an object".into())
        }
        "resources/read" | "resources/subscribe" | "resources/unsubscribe" if !string("uri") => {
            Some(format!("{method} needs params.uri (a string)"))
        }
        "prompts/get" if !string("name") => Some("prompts/get needs params.name (a string)".into()),
        "prompts/get" if !object_or_absent("arguments") => {
            Some("prompts/get params.arguments must be an object of strings".into())
        }
        "completion/complete" => {
            let r = p.and_then(|p| p.get("ref")).and_then(Value::as_object);
            let a = p.and_then(|p| p.get("argument")).and_then(Value::as_object);
            let typed = r.is_some_and(|r| r.get("type").is_some_and(Value::is_string));
            let named = a.is_some_and(|a| {
                a.get("name").is_some_and(Value::is_string)
                    && a.get("value").is_some_and(Value::is_string)
            });
            (!typed || !named).then(|| {
                "completion/complete needs params.ref (an object with a type) and params.argument \
                 (an object with a name and a value, both strings)"
                    .into()
            })
        }
        "logging/setLevel" => {
            let level = p.and_then(|p| p.get("level")).and_then(Value::as_str);
            (!level.is_some_and(|l| LEVELS.contains(&l))).then(|| {
                format!(
                    "logging/setLevel needs params.level, one of {}",
                    LEVELS.join(", ")
                )
            })
        }
        _ => None,
    }
}

/// The reply a message gets instead of being handed to rmcp: `None` passes it on. Not JSON is
/// `-32700`; JSON that is no JSON-RPC 2.0 message of MCP's (a batch, which MCP no longer has;
/// another `jsonrpc`; an id that is null, a fraction or a boolean; no method; a member twice;
/// params that are no object) is `-32600`; a malformed `initialize`, or params of a method
/// this server serves that it cannot read, is `-32602` with the request's id.
pub fn screen(bytes: &[u8]) -> Option<Value> {
    let value: Value = match serde_json::from_slice(bytes) {
        Ok(v) => v,
        Err(e) => return Some(parse_error(&e.to_string())),
    };
    let Some(obj) = value.as_object() else {
        return Some(invalid_request(
            Value::Null,
            if value.is_array() {
                "a batch (an array of messages) is not supported; send each message on its own"
            } else {
                "a message is a JSON object"
            },
        ));
    };
    let id = obj.get("id").cloned();
    let id_or_null = || id.clone().filter(valid_id).unwrap_or(Value::Null);
    if let Err(e) = serde_json::from_slice::<Envelope>(bytes) {
        return Some(invalid_request(id_or_null(), &e.to_string()));
    }
    if obj.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Some(invalid_request(id_or_null(), "\"jsonrpc\" must be \"2.0\""));
    }
    if let Some(id) = &id
        && !valid_id(id)
    {
        return Some(invalid_request(
            Value::Null,
            "the id must be a string or an integer",
        ));
    }
    let Some(method) = obj.get("method") else {
        // A response to a request of ours (elicitation, sampling, roots) has no method.
        if id.is_some() && (obj.contains_key("result") || obj.contains_key("error")) {
            return None;
        }
        return Some(invalid_request(id_or_null(), "no \"method\""));
    };
    let Some(method) = method.as_str() else {
        return Some(invalid_request(id_or_null(), "\"method\" must be a string"));
    };
    if obj
        .get("params")
        .is_some_and(|p| !p.is_object() && !p.is_null())
    {
        return Some(error(
            id_or_null(),
            INVALID_PARAMS,
            "Invalid params: params must be an object",
            None,
        ));
    }
    // A notification gets no reply (JSON-RPC): its params are rmcp's to ignore.
    let id = id?;
    let fault = if method == "initialize" {
        initialize_fault(obj.get("params"))
    } else {
        params_fault(method, obj.get("params"))
    };
    fault.map(|why| error(id, INVALID_PARAMS, &format!("Invalid params: {why}"), None))
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
        let code = &reply["error"]["code"];
        let status = if *code == PARSE_ERROR || *code == INVALID_REQUEST {
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
    let open = OpenIds::default();
    let answered = open.clone();
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
                screen(text).or_else(|| open.admit(text))
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
            // Freed before the client can read the answer, so it may reuse the id at once.
            answered.answered(&line);
            let mut w = out.lock().await;
            if w.write_all(&line).await.is_err() || w.flush().await.is_err() {
                break;
            }
        }
        let _ = out.lock().await.shutdown().await;
    });
    (rmcp_in, rmcp_out)
}

/// The ids of a stdio connection's requests not answered yet. rmcp keeps one reply slot per
/// id: a request reusing an open id took the first one's slot and the first was never
/// answered. A reuse is refused (`-32600`, id null) until the first is answered or cancelled.
#[derive(Debug, Default, Clone)]
struct OpenIds(std::sync::Arc<std::sync::Mutex<std::collections::HashSet<String>>>);

/// Just what is needed of a message rmcp sends to track its id; the rest (a result of
/// megabytes) is skipped unread.
#[derive(serde::Deserialize)]
struct Head {
    id: Option<Value>,
    method: Option<serde::de::IgnoredAny>,
}

impl OpenIds {
    /// A line the client sent: a request is let through (and its id noted) unless its id is
    /// open; a cancellation frees the id it names.
    fn admit(&self, text: &[u8]) -> Option<Value> {
        let v: Value = serde_json::from_slice(text).ok()?;
        let method = v.get("method").and_then(Value::as_str)?;
        let mut ids = self.0.lock().ok()?;
        if method == "notifications/cancelled" {
            if let Some(id) = v.pointer("/params/requestId") {
                ids.remove(&id.to_string());
            }
            return None;
        }
        let id = v.get("id")?.to_string();
        if ids.insert(id.clone()) {
            return None;
        }
        Some(invalid_request(
            Value::Null,
            &format!(
                "id {id} is already in use by a request of this connection that has not been \
                 answered; use a new id for each request"
            ),
        ))
    }

    /// A line rmcp sends: a response frees its id.
    fn answered(&self, line: &[u8]) {
        let Ok(head) = serde_json::from_slice::<Head>(line) else {
            return;
        };
        if head.method.is_none()
            && let Some(id) = head.id
            && let Ok(mut ids) = self.0.lock()
        {
            ids.remove(&id.to_string());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_open_id_is_refused_until_answered_or_cancelled() {
        let ids = OpenIds::default();
        let req = br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x"}}"#;
        assert!(ids.admit(req).is_none());
        let refused = ids.admit(req).expect("refused");
        assert_eq!(refused["error"]["code"], INVALID_REQUEST);
        assert!(refused["id"].is_null());
        // "7" is another id than 7.
        assert!(
            ids.admit(br#"{"jsonrpc":"2.0","id":"7","method":"ping"}"#)
                .is_none()
        );
        ids.answered(br#"{"jsonrpc":"2.0","id":7,"result":{"content":[]}}"#);
        assert!(ids.admit(req).is_none());
        ids.admit(
            br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}"#,
        );
        assert!(ids.admit(req).is_none());
        // A request of ours to the client (same shape, with a method) frees nothing.
        ids.answered(br#"{"jsonrpc":"2.0","id":7,"method":"elicitation/create","params":{}}"#);
        assert!(ids.admit(req).is_some());
    }

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

    /// The finding: each of these got `415 … unrecognized JSON-RPC message` in plain text (HTTP)
    /// or an error without an id (SSE); they are Invalid Request with the id null.
    #[test]
    fn json_that_is_no_jsonrpc_message_is_an_invalid_request() {
        for bad in [
            r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#,
            "[]",
            "5",
            r#""hi""#,
            "null",
            r#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#,
            r#"{"id":1,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":true,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":{},"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":18446744073709551615,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":1}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":5}"#,
            r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}"#,
        ] {
            let r = screen(bad.as_bytes()).unwrap_or_else(|| panic!("{bad} passed"));
            assert_eq!(r["error"]["code"], INVALID_REQUEST, "{bad}: {r}");
            assert!(r.get("id").is_some(), "{bad}: {r}");
        }
        // The id is kept where it is valid.
        let r = screen(br#"{"jsonrpc":"1.0","id":"a","method":"ping"}"#).unwrap();
        assert_eq!(r["id"], "a");
        // A response to our own request passes.
        assert!(screen(br#"{"jsonrpc":"2.0","id":3,"result":{}}"#).is_none());
        assert!(
            screen(br#"{"jsonrpc":"2.0","id":"x","error":{"code":-1,"message":"no"}}"#).is_none()
        );
        assert!(screen(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#).is_none());
    }

    /// The finding: these came back `-32601 Method not found` (HTTP 404 in 2026-07-28).
    #[test]
    fn unreadable_params_of_a_served_method_are_invalid_params_with_the_id() {
        for bad in [
            r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":5}}"#,
            r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"x","arguments":[1]}}"#,
            r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":[1]}"#,
            r#"{"jsonrpc":"2.0","id":4,"method":"resources/read","params":{"uri":5}}"#,
            r#"{"jsonrpc":"2.0","id":4,"method":"prompts/get","params":{}}"#,
            r#"{"jsonrpc":"2.0","id":4,"method":"completion/complete","params":{"ref":{}}}"#,
            r#"{"jsonrpc":"2.0","id":4,"method":"logging/setLevel","params":{"level":"DEBUG"}}"#,
            r#"{"jsonrpc":"2.0","id":4,"method":"logging/setLevel","params":{"level":""}}"#,
        ] {
            let r = screen(bad.as_bytes()).unwrap_or_else(|| panic!("{bad} passed"));
            assert_eq!(r["error"]["code"], INVALID_PARAMS, "{bad}: {r}");
            assert_eq!(r["id"], 4, "{bad}: {r}");
        }
        for good in [
            r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"x"}}"#,
            r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"x","arguments":{},"_meta":{"progressToken":1}}}"#,
            r#"{"jsonrpc":"2.0","id":4,"method":"logging/setLevel","params":{"level":"warning"}}"#,
            r#"{"jsonrpc":"2.0","id":4,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"p"},"argument":{"name":"a","value":""}}}"#,
            r#"{"jsonrpc":"2.0","id":4,"method":"tools/list"}"#,
        ] {
            assert!(screen(good.as_bytes()).is_none(), "{good}");
        }
    }

    #[test]
    fn supported_versions_include_both_eras() {
        let v = supported_versions();
        assert!(v.iter().any(|v| v == "2026-07-28"), "{v:?}");
        assert!(v.iter().any(|v| v == "2025-06-18"), "{v:?}");
    }
}
