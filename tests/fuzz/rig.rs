//! Shared by the reliability tests: an in-process server (both transports, the real router and
//! socket code, exactly what `spock-tui serve` runs) and a tiny raw HTTP/1.1 client that can
//! send bytes no well-behaved client would. Every wait here is bounded.
#![allow(dead_code)]

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use spock_tui::app::{self, Listen, Options, Server};
use spock_tui::config::token::TokenStore;
use spock_tui::config::{Config, Paths};
use spock_tui::device::AdbEndpoint;
use spock_tui::mcp::Core;
use spock_tui::mcp::logbuf::LogBuffer;
use spock_tui::transport::socket::Descriptor;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;

pub const TOKEN: &str = "f00dfeedf00dfeedf00dfeedf00dfeedf00dfeedf00dfeedf00dfeedf00dfeed";

/// Cases per property: 256 by default (CI), `SPOCK_FUZZ_CASES=20000` for a long run.
pub fn cases() -> u32 {
    std::env::var("SPOCK_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(256)
}

/// No case may take longer than this: past it the server is hung, and the test says so.
pub const CASE_TIMEOUT: Duration = Duration::from_secs(10);

pub fn proptest_config(cases: u32) -> proptest::test_runner::Config {
    proptest::test_runner::Config {
        cases,
        failure_persistence: None,
        max_shrink_iters: 64,
        ..proptest::test_runner::Config::default()
    }
}

pub struct Rig {
    pub core: Arc<Core>,
    pub server: Server,
    pub tmp: tempfile::TempDir,
}

impl Rig {
    pub fn http(&self) -> SocketAddr {
        self.server.http_addr.expect("HTTP listens")
    }

    pub fn descriptor(&self) -> Descriptor {
        let text = std::fs::read_to_string(self.core.paths.endpoint_file()).expect("descriptor");
        serde_json::from_str(&text).expect("descriptor json")
    }
}

/// A server whose adb endpoint is a closed loopback port: device tools fail at once with a
/// tool error, so fuzzing exercises the protocol layers, not device timeouts.
pub async fn dead_adb_rig(config: Config) -> Rig {
    let closed = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = closed.local_addr().expect("addr").port();
    drop(closed);
    rig_with(AdbEndpoint::new("127.0.0.1", port), config).await
}

pub async fn rig_with(adb: AdbEndpoint, config: Config) -> Rig {
    // A short home: the Unix socket path must fit sun_path.
    let tmp = tempfile::Builder::new()
        .prefix("spk")
        .tempdir_in("/tmp")
        .expect("tmp");
    let core = app::build_core(Options {
        paths: Paths::under(tmp.path()),
        config,
        allow_all: false,
        logs: LogBuffer::new(100),
        adb: vec![adb],
        projects: vec![],
        autostart_adb: false,
        adb_explicit: true,
    })
    .expect("core");
    let listen = Listen {
        http: "127.0.0.1:0".parse().expect("addr"),
        any_host: false,
    };
    let server = Server::start(core.clone(), TokenStore::fixed(TOKEN), &listen)
        .await
        .expect("server");
    // The socket transport writes its descriptor from its own task.
    for _ in 0..200 {
        if core.paths.endpoint_file().exists() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    Rig { core, server, tmp }
}

/// What came back for one raw request: the status (None when the server closed without a
/// response) and the body bytes as received.
#[derive(Debug)]
pub struct Answer {
    pub status: Option<u16>,
    pub head: String,
    pub body: Vec<u8>,
}

/// Send `raw` as-is, optionally half-close, and read until the server closes. `Err` only when
/// the server neither answered nor closed within `CASE_TIMEOUT`.
pub async fn raw_exchange(
    addr: SocketAddr,
    raw: &[u8],
    half_close: bool,
) -> Result<Answer, String> {
    let work = async {
        let mut s = TcpStream::connect(addr).await.map_err(|e| e.to_string())?;
        // A write error means the server already closed on us: that is an answer too.
        let _ = s.write_all(raw).await;
        if half_close {
            let _ = s.shutdown().await;
        }
        let mut buf = Vec::new();
        let mut chunk = [0u8; 16384];
        loop {
            match s.read(&mut chunk).await {
                Ok(0) | Err(_) => break,
                Ok(n) => buf.extend_from_slice(&chunk[..n]),
            }
            // An event stream (GET /sse with the token) is an answer that never ends by design.
            let head = split_answer(&buf).head.to_ascii_lowercase();
            if head.contains("content-type: text/event-stream") {
                break;
            }
        }
        Ok::<_, String>(split_answer(&buf))
    };
    tokio::time::timeout(CASE_TIMEOUT, work)
        .await
        .map_err(|_| format!("no answer and no close within {CASE_TIMEOUT:?}"))?
}

pub fn split_answer(buf: &[u8]) -> Answer {
    let end = buf.windows(4).position(|w| w == b"\r\n\r\n");
    let (head, body) = match end {
        Some(i) => (&buf[..i], &buf[i + 4..]),
        None => (buf, &[][..]),
    };
    let head = String::from_utf8_lossy(head).to_string();
    let status = head
        .strip_prefix("HTTP/1.1 ")
        .and_then(|r| r.get(..3))
        .and_then(|c| c.parse().ok());
    Answer {
        status,
        head,
        body: body.to_vec(),
    }
}

/// A `Connection: close` POST with a correct Content-Length, so the server never waits.
pub fn post_bytes(path: &str, headers: &[(&str, &str)], body: &[u8]) -> Vec<u8> {
    let mut req = format!("POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n");
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str(&format!("Content-Length: {}\r\n\r\n", body.len()));
    let mut out = req.into_bytes();
    out.extend_from_slice(body);
    out
}

pub fn mcp_headers() -> Vec<(&'static str, String)> {
    vec![
        ("Authorization", format!("Bearer {TOKEN}")),
        ("Content-Type", "application/json".into()),
        ("Accept", "application/json, text/event-stream".into()),
    ]
}

pub async fn post_mcp(
    addr: SocketAddr,
    extra: &[(&str, &str)],
    body: &[u8],
) -> Result<Answer, String> {
    let owned = mcp_headers();
    let mut headers: Vec<(&str, &str)> = owned.iter().map(|(k, v)| (*k, v.as_str())).collect();
    headers.extend_from_slice(extra);
    raw_exchange(addr, &post_bytes("/mcp", &headers, body), false).await
}

pub const INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"fuzz","version":"1"}}}"#;
pub const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

/// A real exchange over streamable HTTP (2025 session era): initialize, then `tools/list`.
/// Proves the server still serves after whatever came before.
pub async fn http_still_serves(addr: SocketAddr) {
    let sid = open_session(addr).await;
    let hdr = [
        ("Mcp-Session-Id", sid.as_str()),
        ("Mcp-Protocol-Version", "2025-06-18"),
    ];
    let list = br#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#;
    let a = post_mcp(addr, &hdr, list)
        .await
        .expect("tools/list answered");
    assert_eq!(a.status, Some(200), "tools/list: {}", a.head);
    let body = String::from_utf8_lossy(&a.body);
    assert!(
        body.contains("spock_get_status"),
        "tools/list body: {body:.300}"
    );
}

/// The socket transport's endpoint from the descriptor (Unix path or loopback TCP).
pub enum SockAddr {
    Unix(PathBuf),
    Tcp(String),
}

pub fn socket_addr(d: &Descriptor) -> SockAddr {
    match (&d.unix, &d.tcp) {
        (Some(p), _) => SockAddr::Unix(p.clone()),
        (None, Some(a)) => SockAddr::Tcp(a.clone()),
        _ => panic!("descriptor names no socket"),
    }
}

pub type Duplex = (
    BufReader<Box<dyn tokio::io::AsyncRead + Unpin + Send>>,
    Box<dyn tokio::io::AsyncWrite + Unpin + Send>,
);

pub async fn socket_connect(addr: &SockAddr) -> std::io::Result<Duplex> {
    Ok(match addr {
        SockAddr::Unix(p) => {
            let (r, w) = tokio::net::UnixStream::connect(p).await?.into_split();
            (BufReader::new(Box::new(r) as Box<_>), Box::new(w) as Box<_>)
        }
        SockAddr::Tcp(a) => {
            let (r, w) = TcpStream::connect(a).await?.into_split();
            (BufReader::new(Box::new(r) as Box<_>), Box::new(w) as Box<_>)
        }
    })
}

/// Handshake and MCP initialize on a fresh socket session, ready for requests.
pub async fn socket_session(addr: &SockAddr) -> Result<Duplex, String> {
    // The pool is bounded by design: sessions of earlier cases whose calls still run on the
    // dead adb server hold their slots until those calls time out. Busy is an answer, not a
    // hang: wait for a slot (bounded).
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(30);
    let (mut r, mut w, mut line) = loop {
        let (mut r, mut w) = socket_connect(addr)
            .await
            .map_err(|e| format!("connect: {e}"))?;
        let mut line = String::new();
        w.write_all(format!("{TOKEN}\n").as_bytes())
            .await
            .map_err(|e| format!("token write: {e}"))?;
        r.read_line(&mut line)
            .await
            .map_err(|e| format!("handshake read: {e}"))?;
        if line.starts_with("ERROR busy") && tokio::time::Instant::now() < deadline {
            tokio::time::sleep(std::time::Duration::from_millis(200)).await;
            continue;
        }
        break (r, w, line);
    };
    if !line.starts_with("OK") {
        return Err(format!("handshake: {line}"));
    }
    w.write_all(format!("{INIT}\n").as_bytes())
        .await
        .map_err(|e| format!("init write: {e}"))?;
    line.clear();
    r.read_line(&mut line)
        .await
        .map_err(|e| format!("init read: {e}"))?;
    if !line.contains("\"result\"") {
        return Err(format!("initialize: {line}"));
    }
    w.write_all(format!("{INITIALIZED}\n").as_bytes())
        .await
        .map_err(|e| format!("initialized write: {e}"))?;
    Ok((r, w))
}

/// After arbitrary input on `session`: a `ping` tagged `probe` must be answered, or the
/// session must end, within the case timeout. Anything else is a hang.
pub async fn probe_or_closed(session: &mut Duplex) -> Result<&'static str, String> {
    let (r, w) = session;
    let work = async {
        let probe = b"\n{\"jsonrpc\":\"2.0\",\"id\":\"probe\",\"method\":\"ping\"}\n";
        if w.write_all(probe).await.is_err() {
            return Ok("closed");
        }
        let mut line = String::new();
        loop {
            line.clear();
            match r.read_line(&mut line).await {
                Ok(0) | Err(_) => return Ok("closed"),
                Ok(_) if line.contains("\"probe\"") => return Ok("answered"),
                Ok(_) => {} // the fuzzed message's own reply (an error, usually)
            }
        }
    };
    tokio::time::timeout(CASE_TIMEOUT, work)
        .await
        .map_err(|_| "the session neither answered the probe nor closed".to_string())?
}

/// A 2025-06-18 session: `initialize` (200 with a session id), then `initialized` (202).
pub async fn open_session(addr: SocketAddr) -> String {
    let init = post_mcp(addr, &[], INIT.as_bytes())
        .await
        .expect("initialize answered");
    assert_eq!(init.status, Some(200), "initialize: {}", init.head);
    let sid = init
        .head
        .lines()
        .find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.eq_ignore_ascii_case("mcp-session-id")
                .then(|| v.trim().to_string())
        })
        .expect("session id");
    let hdr = [
        ("Mcp-Session-Id", sid.as_str()),
        ("Mcp-Protocol-Version", "2025-06-18"),
    ];
    let a = post_mcp(addr, &hdr, INITIALIZED.as_bytes())
        .await
        .expect("initialized");
    assert_eq!(a.status, Some(202), "initialized: {}", a.head);
    sid
}
