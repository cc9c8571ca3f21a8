//! Fuzzing the JSON-RPC entry points of an in-process server (the real router, gate, socket
//! handshake and SSE bridge): HTTP request bodies, raw HTTP bytes, socket lines after the
//! handshake, and legacy SSE message posts. Each property: no case takes longer than
//! `CASE_TIMEOUT` (answer or close, never silence), no 5xx, and afterwards the server still
//! answers a real initialize + tools/list. 256 cases per property by default;
//! `SPOCK_FUZZ_CASES=N` for a longer run (RELIABILITY.md).
use super::rig;

use proptest::prelude::*;
use proptest::test_runner::TestRunner;
use serde_json::{Map, Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt};

use rig::*;
use spock_tui::config::Config;

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime")
}

/// Arbitrary JSON, a few levels deep, with the awkward corners: huge and negative numbers,
/// floats, unicode, control characters, empty keys.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<u64>().prop_map(|n| json!(n)),
        (-1e12f64..1e12).prop_map(|f| json!(f)),
        "\\PC{0,24}".prop_map(Value::String),
        "[\\x00-\\x1f\"\\\\/]{0,8}".prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 24, 5, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::btree_map("[a-zA-Z_]{0,10}", inner, 0..5)
                .prop_map(|m| Value::Object(m.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

const METHODS: &[&str] = &[
    "initialize",
    "notifications/initialized",
    "ping",
    "tools/list",
    "tools/call",
    "resources/list",
    "resources/read",
    "resources/templates/list",
    "resources/subscribe",
    "prompts/list",
    "prompts/get",
    "completion/complete",
    "logging/setLevel",
    "notifications/cancelled",
    "notifications/progress",
    "sampling/createMessage",
    "",
];

const TOOLS: &[&str] = &[
    "spock_get_status",
    "spock_get_logs",
    "spock_update_settings",
    "android_list_devices",
    "android_get_battery_info",
    "android_get_ui_tree",
    "android_tap",
    "android_run_adb_command",
    "android_uninstall_app",
    "android_take_screenshot",
    "no_such_tool",
];

/// JSON-RPC-shaped messages: real methods and tool names with arbitrary ids and params.
fn envelope() -> impl Strategy<Value = Value> {
    // Weighted toward well-formed JSON-RPC, so most cases get past deserialization.
    let id = prop_oneof![
        1 => Just(None),
        4 => any::<i64>().prop_map(|n| Some(json!(n))),
        3 => "\\PC{0,12}".prop_map(|s| Some(json!(s))),
        1 => Just(Some(Value::Null)),
        1 => json_value().prop_map(Some),
    ];
    let version = prop_oneof![
        8 => Just(Some(json!("2.0"))),
        1 => Just(None),
        1 => json_value().prop_map(Some)
    ];
    let method = prop_oneof![
        8 => prop::sample::select(METHODS).prop_map(|m| json!(m)),
        1 => json_value(),
    ];
    let params = prop_oneof![
        Just(None),
        json_value().prop_map(Some),
        (prop::sample::select(TOOLS), json_value())
            .prop_map(|(n, a)| Some(json!({"name": n, "arguments": a}))),
        json_value().prop_map(|v| Some(json!({"uri": v}))),
    ];
    (version, id, method, params).prop_map(|(v, id, m, p)| {
        let mut o = Map::new();
        if let Some(v) = v {
            o.insert("jsonrpc".into(), v);
        }
        if let Some(id) = id {
            o.insert("id".into(), id);
        }
        o.insert("method".into(), m);
        if let Some(p) = p {
            o.insert("params".into(), p);
        }
        Value::Object(o)
    })
}

const ARG_NAMES: &[&str] = &[
    "serial",
    "packageName",
    "text",
    "x",
    "y",
    "command",
    "reason",
    "lines",
    "tag",
    "query",
    "selector",
    "timeoutMs",
    "historySize",
    "uri",
    "path",
];

/// Well-typed `tools/call` requests with arbitrary arguments: these reach the call pipeline
/// (access, validation, confirmation, the tool) rather than stopping at deserialization.
fn tool_call() -> impl Strategy<Value = Value> {
    (
        any::<u32>(),
        prop::sample::select(TOOLS),
        prop::collection::btree_map(prop::sample::select(ARG_NAMES), json_value(), 0..4),
    )
        .prop_map(|(id, name, args)| {
            let args: Map<String, Value> =
                args.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                   "params": {"name": name, "arguments": args}})
        })
}

/// Bodies: structured messages, batches of them, and byte-level damage to valid ones.
fn body() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        3 => envelope().prop_map(|v| v.to_string().into_bytes()),
        3 => tool_call().prop_map(|v| v.to_string().into_bytes()),
        1 => prop::collection::vec(envelope(), 0..4).prop_map(|v| Value::Array(v).to_string().into_bytes()),
        2 => (envelope(), prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..6))
            .prop_map(|(v, edits)| {
                let mut b = v.to_string().into_bytes();
                for (at, byte) in edits {
                    if b.is_empty() { b.push(byte); continue; }
                    let i = at.index(b.len());
                    if byte % 3 == 0 { b.remove(i); } else { b[i] = byte; }
                }
                b
            }),
        1 => prop::collection::vec(any::<u8>(), 0..512),
    ]
}

fn no_newlines(mut b: Vec<u8>) -> Vec<u8> {
    b.retain(|c| *c != b'\n');
    b
}

#[derive(Debug, Clone, Copy)]
enum Era {
    /// No session, no protocol header: what a confused client sends.
    Bare,
    /// Inside an initialized 2025-06-18 session.
    Session,
    /// 2026-07-28 stateless: the header plus the required request `_meta`.
    Stateless,
}

/// The 2026-07-28 request metadata, added to an object body's params when there is room.
fn with_stateless_meta(body: &[u8]) -> Vec<u8> {
    let Ok(Value::Object(mut o)) = serde_json::from_slice::<Value>(body) else {
        return body.to_vec();
    };
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "fuzz", "version": "1"},
    });
    match o.entry("params").or_insert_with(|| json!({})) {
        Value::Object(p) => {
            p.insert("_meta".into(), meta);
        }
        _ => return body.to_vec(),
    }
    Value::Object(o).to_string().into_bytes()
}

#[test]
fn http_bodies_never_hang_or_5xx() {
    let rt = runtime();
    let rig = rt.block_on(dead_adb_rig(Config::default_config()));
    let addr = rig.http();
    let sid = rt.block_on(open_session(addr));
    let cases = cases();
    let mut runner = TestRunner::new(proptest_config(cases));
    let seen = std::cell::RefCell::new(std::collections::BTreeMap::<u16, u32>::new());
    let era = prop_oneof![Just(Era::Bare), Just(Era::Session), Just(Era::Stateless)];
    runner
        .run(&(body(), era), |(b, era)| {
            let (extra, b): (Vec<(&str, &str)>, Vec<u8>) = match era {
                Era::Bare => (vec![], b),
                Era::Session => (
                    vec![
                        ("Mcp-Session-Id", sid.as_str()),
                        ("Mcp-Protocol-Version", "2025-06-18"),
                    ],
                    b,
                ),
                Era::Stateless => (
                    vec![("Mcp-Protocol-Version", "2026-07-28")],
                    with_stateless_meta(&b),
                ),
            };
            let a = rt
                .block_on(post_mcp(addr, &extra, &b))
                .map_err(TestCaseError::fail)?;
            let status = a
                .status
                .ok_or_else(|| TestCaseError::fail(format!("no status: {:?}", a.head)))?;
            *seen.borrow_mut().entry(status).or_default() += 1;
            prop_assert!(
                status < 500,
                "status {status} for {:?} ({era:?}): {}",
                String::from_utf8_lossy(&b),
                a.head
            );
            Ok(())
        })
        .expect("HTTP body property");
    rt.block_on(http_still_serves(addr));
    eprintln!(
        "http_bodies_never_hang_or_5xx: {cases} cases, statuses {:?}",
        seen.borrow()
    );
    rt.block_on(rig.server.stop());
}

/// Request lines, headers and framing as arbitrary bytes (half-closed, so an incomplete head
/// ends at EOF instead of waiting for the header-read timeout).
#[test]
fn raw_http_bytes_never_hang() {
    let rt = runtime();
    let rig = rt.block_on(dead_adb_rig(Config::default_config()));
    let addr = rig.http();
    let cases = cases();
    let mut runner = TestRunner::new(proptest_config(cases));
    let head = prop_oneof![
        prop::collection::vec(any::<u8>(), 0..1024),
        (
            prop::sample::select(&["GET", "POST", "DELETE", "PUT", "OPTIONS", "G\0T", ""][..]),
            prop::sample::select(
                &[
                    "/mcp",
                    "/sse",
                    "/message?sessionId=x",
                    "/message",
                    "*",
                    "/%00",
                    "/mcp/../sse"
                ][..]
            ),
            prop::collection::vec(("[ -~]{0,20}", "[\\x00-\\xff]{0,40}"), 0..6),
            prop::collection::vec(any::<u8>(), 0..256),
        )
            .prop_map(|(m, p, hs, body)| {
                let mut r = format!("{m} {p} HTTP/1.1\r\nHost: 127.0.0.1\r\n").into_bytes();
                for (k, v) in hs {
                    r.extend_from_slice(k.as_bytes());
                    r.extend_from_slice(b": ");
                    r.extend(v.chars().map(|c| c as u32 as u8));
                    r.extend_from_slice(b"\r\n");
                }
                r.extend_from_slice(format!("Authorization: Bearer {TOKEN}\r\n\r\n").as_bytes());
                r.extend(body);
                r
            }),
    ];
    runner
        .run(&head, |raw| {
            let a = rt
                .block_on(raw_exchange(addr, &raw, true))
                .map_err(TestCaseError::fail)?;
            if let Some(s) = a.status {
                prop_assert!(
                    s < 500,
                    "status {s} for {:?}",
                    String::from_utf8_lossy(&raw)
                );
            }
            Ok(())
        })
        .expect("raw HTTP property");
    rt.block_on(http_still_serves(addr));
    eprintln!("raw_http_bytes_never_hang: {cases} cases");
    rt.block_on(rig.server.stop());
}

/// Every connection the socket transport accepts is answered: connections arriving
/// back to back over several of the accept loop's 500 ms ticks each get `OK` (or `ERROR
/// busy`), never a reset or a closed pipe. A relay that connects while the loop's timer fires
/// must not be dropped (the loop once lost it while reading the peer's `/proc`).
#[test]
fn every_accepted_socket_connection_gets_its_handshake() {
    let rt = runtime();
    let rig = rt.block_on(dead_adb_rig(Config::default_config()));
    let sock = socket_addr(&rig.descriptor());
    let started = std::time::Instant::now();
    let mut n = 0u32;
    while n < 100 || started.elapsed() < std::time::Duration::from_millis(2500) {
        n += 1;
        let line = rt.block_on(async {
            let (mut r, mut w) = socket_connect(&sock)
                .await
                .map_err(|e| format!("connect: {e}"))?;
            w.write_all(format!("{TOKEN}\n").as_bytes())
                .await
                .map_err(|e| format!("token write: {e}"))?;
            let mut line = String::new();
            r.read_line(&mut line)
                .await
                .map_err(|e| format!("handshake read: {e}"))?;
            Ok::<_, String>(line)
        });
        match line {
            Ok(l) if l.starts_with("OK spock-tui") || l.starts_with("ERROR busy") => {}
            other => panic!("connection {n} after {:?}: {other:?}", started.elapsed()),
        }
    }
    eprintln!("every_accepted_socket_connection_gets_its_handshake: {n} connections");
    rt.block_on(rig.server.stop());
}

/// Newline-delimited JSON-RPC on the stdio socket after a good handshake and initialize.
#[test]
fn socket_lines_never_hang() {
    let rt = runtime();
    let rig = rt.block_on(dead_adb_rig(Config::default_config()));
    let sock = socket_addr(&rig.descriptor());
    let cases = cases();
    let mut runner = TestRunner::new(proptest_config(cases));
    let outcomes = std::cell::Cell::new((0u32, 0u32));
    let lines = prop::collection::vec(body().prop_map(no_newlines), 1..4);
    runner
        .run(&lines, |lines| {
            let r = rt.block_on(async {
                let mut s = socket_session(&sock).await?;
                for l in &lines {
                    let mut l = l.clone();
                    l.push(b'\n');
                    if s.1.write_all(&l).await.is_err() {
                        break;
                    }
                }
                probe_or_closed(&mut s).await
            });
            let (a, c) = outcomes.get();
            match r.map_err(TestCaseError::fail)? {
                "answered" => outcomes.set((a + 1, c)),
                _ => outcomes.set((a, c + 1)),
            }
            Ok(())
        })
        .expect("socket line property");
    // A fresh session still works end to end.
    rt.block_on(async {
        let mut s = socket_session(&sock).await.expect("session after fuzzing");
        assert_eq!(probe_or_closed(&mut s).await, Ok("answered"));
    });
    rt.block_on(http_still_serves(rig.http()));
    eprintln!(
        "socket_lines_never_hang: {cases} cases ({} probe answered, {} session closed)",
        outcomes.get().0,
        outcomes.get().1
    );
    rt.block_on(rig.server.stop());
}

/// An SSE session as the legacy transport opens it: the stream and the endpoint it names.
struct SseSession {
    stream: tokio::io::BufReader<tokio::net::TcpStream>,
    endpoint: String,
}

async fn sse_open(addr: std::net::SocketAddr) -> Result<SseSession, String> {
    let mut s = tokio::net::TcpStream::connect(addr)
        .await
        .map_err(|e| e.to_string())?;
    let req = format!(
        "GET /sse HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\nAuthorization: Bearer {TOKEN}\r\n\r\n"
    );
    s.write_all(req.as_bytes())
        .await
        .map_err(|e| e.to_string())?;
    let mut stream = tokio::io::BufReader::new(s);
    let mut line = String::new();
    let endpoint = loop {
        line.clear();
        if stream
            .read_line(&mut line)
            .await
            .map_err(|e| e.to_string())?
            == 0
        {
            return Err("SSE stream closed before the endpoint event".into());
        }
        if let Some(p) = line.trim().strip_prefix("data: /message") {
            break format!("/message{p}");
        }
    };
    Ok(SseSession { stream, endpoint })
}

async fn sse_post(
    addr: std::net::SocketAddr,
    endpoint: &str,
    body: &[u8],
) -> Result<Answer, String> {
    let auth = format!("Bearer {TOKEN}");
    let req = post_bytes(
        endpoint,
        &[
            ("Authorization", &auth),
            ("Content-Type", "application/json"),
        ],
        body,
    );
    raw_exchange(addr, &req, false).await
}

/// Until `needle` shows on the stream (true) or the stream ends (false).
async fn sse_wait_for(s: &mut SseSession, needle: &str) -> bool {
    let mut buf = vec![0u8; 8192];
    let mut seen = Vec::new();
    loop {
        match s.stream.read(&mut buf).await {
            Ok(0) | Err(_) => return false,
            Ok(n) => seen.extend_from_slice(&buf[..n]),
        }
        if String::from_utf8_lossy(&seen).contains(needle) {
            return true;
        }
    }
}

#[test]
fn sse_message_posts_never_hang() {
    let rt = runtime();
    let rig = rt.block_on(dead_adb_rig(Config::default_config()));
    let addr = rig.http();
    let cases = cases();
    let mut runner = TestRunner::new(proptest_config(cases));
    let reopened = std::cell::Cell::new(0u32);
    let cell: std::cell::RefCell<Option<SseSession>> = std::cell::RefCell::new(None);
    runner
        .run(&body(), |b| {
            let mut session = cell.borrow_mut();
            let r: Result<(), String> = rt.block_on(async {
                if session.is_none() {
                    let mut s = sse_open(addr).await?;
                    let a = sse_post(addr, &s.endpoint, INIT.as_bytes()).await?;
                    if a.status != Some(202) {
                        return Err(format!("initialize post: {}", a.head));
                    }
                    if !tokio::time::timeout(CASE_TIMEOUT, sse_wait_for(&mut s, "\"result\""))
                        .await
                        .unwrap_or(false)
                    {
                        return Err("no initialize result on the stream".into());
                    }
                    sse_post(addr, &s.endpoint, INITIALIZED.as_bytes()).await?;
                    *session = Some(s);
                    reopened.set(reopened.get() + 1);
                }
                let s = session.as_mut().ok_or("no session")?;
                let a = sse_post(addr, &s.endpoint.clone(), &b).await?;
                match a.status {
                    Some(202) | Some(400) | Some(404) | Some(410) => {}
                    other => return Err(format!("post answered {other:?}: {}", a.head)),
                }
                let probe = br#"{"jsonrpc":"2.0","id":"probe-sse","method":"ping"}"#;
                let a = sse_post(addr, &s.endpoint.clone(), probe).await?;
                let alive = a.status == Some(202)
                    && tokio::time::timeout(CASE_TIMEOUT, sse_wait_for(s, "probe-sse"))
                        .await
                        .map_err(|_| {
                            "the SSE session neither answered the probe nor closed".to_string()
                        })?;
                if !alive {
                    *session = None; // the session ended on that input: open a new one next case
                }
                Ok(())
            });
            r.map_err(TestCaseError::fail)
        })
        .expect("SSE post property");
    drop(cell);
    rt.block_on(http_still_serves(addr));
    eprintln!(
        "sse_message_posts_never_hang: {cases} cases, {} SSE sessions opened",
        reopened.get()
    );
    rt.block_on(rig.server.stop());
}
