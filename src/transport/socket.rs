//! The stdio transport's server side: a Unix socket in a 0700 directory (or, where AF_UNIX is
//! unavailable or the path is too long for `sun_path`, a loopback TCP port), and an endpoint
//! descriptor (0600) naming it and holding the token. `spock-tui relay` connects here.
//!
//! Handshake: the relay sends the token as one line; the server answers `OK …` or
//! `ERROR <reason>` and closes. After `OK` the wire is newline-delimited JSON-RPC, exactly as
//! MCP stdio defines it. A connection silent for the handshake timeout is closed, one that
//! stops reading its replies is dropped after the write timeout; the session pool is bounded; rotating the token or stopping the server ends live sessions.
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use rmcp::ServiceExt;
use serde::{Deserialize, Serialize};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, UnixListener};
use tokio_util::sync::CancellationToken;

use super::Shared;
use super::rebind::SocketFile;
use super::write_timeout::WriteTimeout;
use crate::config::paths::{private_dir, write_atomic};
use crate::mcp::ServerEvent;
use crate::mcp::events::Transport;
use crate::mcp::server::McpServer;
use crate::mcp::toolsets::Selection;
use spock_core::model::Peer;

/// `sun_path` is 108 bytes on Linux, including the NUL.
const SUN_PATH_MAX: usize = 107;
const MAX_TOKEN_LINE: usize = 1024;

/// What the endpoint descriptor file holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Descriptor {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unix: Option<PathBuf>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tcp: Option<String>,
    pub token: String,
    pub pid: u32,
    /// The running instance's streamable HTTP endpoint, for `spock-tui config --http`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub http: Option<String>,
    /// Why HTTP is not on the port asked for (taken) or not listening at all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub http_note: Option<String>,
    /// The adb servers the instance uses, for `spock-tui doctor`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub adb: Vec<String>,
    /// The instance serves the built-in virtual device (`--demo`): its adb server is in-process.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub demo: bool,
}

impl Descriptor {
    /// The instance that wrote this descriptor is running and its stdio endpoint answers: its
    /// pid exists and a connection is accepted (a reused pid does not keep a stale one alive).
    pub fn is_live(&self) -> bool {
        if !Path::new(&format!("/proc/{}", self.pid)).exists() {
            return false;
        }
        match (&self.unix, &self.tcp) {
            (Some(p), _) => std::os::unix::net::UnixStream::connect(p).is_ok(),
            (None, Some(a)) => a.parse::<std::net::SocketAddr>().is_ok_and(|a| {
                std::net::TcpStream::connect_timeout(&a, Duration::from_secs(2)).is_ok()
            }),
            _ => false,
        }
    }

    pub fn endpoint_label(&self) -> String {
        match (&self.unix, &self.tcp) {
            (Some(p), _) => format!("unix:{}", p.display()),
            (None, Some(a)) => format!("tcp:{a}"),
            _ => "none".into(),
        }
    }
}

pub enum Listener {
    Unix(UnixListener, PathBuf),
    Tcp(TcpListener),
}

impl Listener {
    /// Bind the preferred endpoint, falling back to loopback TCP.
    pub async fn bind(socket: &Path) -> std::io::Result<Listener> {
        if let Some(dir) = socket.parent() {
            private_dir(dir)?;
        }
        if socket.as_os_str().len() <= SUN_PATH_MAX {
            let _ = std::fs::remove_file(socket);
            match UnixListener::bind(socket) {
                Ok(l) => return Ok(Listener::Unix(l, socket.to_path_buf())),
                Err(e) => {
                    tracing::warn!(error = %e, path = %socket.display(), "unix socket unavailable; using loopback TCP")
                }
            }
        } else {
            tracing::warn!(path = %socket.display(), "socket path too long for sun_path; using loopback TCP");
        }
        Ok(Listener::Tcp(TcpListener::bind("127.0.0.1:0").await?))
    }

    pub fn descriptor(&self, token: String) -> Descriptor {
        let pid = std::process::id();
        match self {
            Listener::Unix(_, p) => Descriptor {
                unix: Some(p.clone()),
                tcp: None,
                token,
                pid,
                http: None,
                http_note: None,
                adb: Vec::new(),
                demo: false,
            },
            Listener::Tcp(l) => Descriptor {
                unix: None,
                tcp: l.local_addr().ok().map(|a| a.to_string()),
                token,
                pid,
                http: None,
                http_note: None,
                adb: Vec::new(),
                demo: false,
            },
        }
    }
}

/// The descriptor for `listener` as the instance stands now: the current token, the HTTP
/// endpoint (or why there is none), the adb servers.
pub fn describe(listener: &Listener, shared: &Shared) -> Descriptor {
    let mut d = listener.descriptor(shared.tokens.token());
    let e = shared.core.endpoints();
    d.http = e.http;
    d.http_note = e.http_note;
    d.adb = shared
        .core
        .devices
        .servers()
        .iter()
        .map(ToString::to_string)
        .collect();
    d.demo = shared.core.demo;
    d
}

/// Write the descriptor and record the stdio endpoint: what `serve` prints and `relay` reads.
pub fn publish(listener: &Listener, shared: &Shared, path: &Path) -> std::io::Result<()> {
    let d = describe(listener, shared);
    write_descriptor(path, &d)?;
    shared
        .core
        .set_endpoints(|e| e.stdio = Some(d.endpoint_label()));
    Ok(())
}

pub fn write_descriptor(path: &Path, d: &Descriptor) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        private_dir(dir)?;
    }
    let text = serde_json::to_string_pretty(d).map_err(std::io::Error::other)?;
    write_atomic(path, text.as_bytes())
}

#[derive(Debug, Clone)]
pub struct SocketOptions {
    pub max_sessions: usize,
    pub handshake_timeout: Duration,
    /// A client that stops reading its replies is dropped after this ([`super::stall`]).
    pub write_timeout: Duration,
    pub descriptor: PathBuf,
    /// Set for the agent's door ([`super::agent_door`]): its descriptor is the group's, its
    /// directory is not the runtime directory, and it is not the stdio endpoint shown.
    pub door: Option<super::agent_door::AgentDoor>,
}

/// Accept until shutdown (after [`publish`]); each accepted connection is its own task. On
/// each tick: a rotated token goes into the descriptor, and a socket file or descriptor that
/// is gone (the runtime directory removed at a logout) is made again ([`super::rebind`]).
pub async fn serve(
    mut listener: Listener,
    shared: Shared,
    opts: SocketOptions,
) -> std::io::Result<()> {
    let active = Arc::new(AtomicUsize::new(0));
    // Keep the descriptor's token current when the token rotates, and tell the control centre
    // at once (its Status shows and copies the token).
    let mut generation = shared.tokens.generation();
    let mut tick = tokio::time::interval(Duration::from_millis(500));
    let mut file = match &listener {
        Listener::Unix(_, p) if opts.door.is_none() => {
            Some(SocketFile::bound(p, "the stdio socket").await)
        }
        _ => None,
    };
    // The descriptor could not be written again: said once, not every tick.
    let mut unwritten = false;
    loop {
        let ticked = tokio::select! {
            _ = shared.shutdown.cancelled() => break,
            _ = tick.tick() => true,
            accepted = accept(&listener) => {
                match accepted {
                    Ok((conn, who)) => {
                        let (shared, opts, active) = (shared.clone(), opts.clone(), active.clone());
                        tokio::spawn(async move {
                            let peer = who.peer().await;
                            handle(conn, peer, shared, opts, active).await
                        });
                    }
                    Err(e) => {
                        tracing::warn!(error = %e, "accept failed");
                        tokio::time::sleep(Duration::from_millis(50)).await;
                    }
                }
                false
            }
        };
        if !ticked {
            continue;
        }
        let mut rewrite = false;
        shared.tokens.reload_if_changed();
        let rotated = shared.tokens.generation() != generation;
        if rotated {
            generation = shared.tokens.generation();
            rewrite = true;
            tracing::info!("the token changed; both transports check the new one");
        }
        // Not yet there again: the descriptor would name a socket that is not there.
        let mut missing = false;
        if let Some(f) = file.as_mut()
            && f.gone().await
        {
            match (f.rebind().await, &listener) {
                (Some(l), Listener::Unix(_, p)) => {
                    listener = Listener::Unix(l, p.clone());
                    rewrite = true;
                }
                _ => missing = true,
            }
        }
        if !missing && (rewrite || tokio::fs::symlink_metadata(&opts.descriptor).await.is_err()) {
            let (d, path) = (describe(&listener, &shared), opts.descriptor.clone());
            let door = opts.door.clone();
            let written = tokio::task::spawn_blocking(move || match door {
                Some(door) => door.write_descriptor(&d),
                None => write_descriptor(&path, &d),
            })
            .await
            .map_err(std::io::Error::other)
            .and_then(|r| r);
            match written {
                Ok(()) => unwritten = false,
                Err(e) if !std::mem::replace(&mut unwritten, true) => {
                    tracing::error!(error = %e, "could not write the endpoint descriptor again");
                }
                Err(_) => {}
            }
        }
        // Told once the descriptor carries the new token: the control centre re-reads it.
        if rotated {
            shared
                .core
                .emit(ServerEvent::ServerStateChanged { running: true });
        }
    }
    if let Some(door) = &opts.door {
        door.remove();
        return Ok(());
    }
    shared.core.set_endpoints(|e| e.stdio = None);
    if let Listener::Unix(_, p) = &listener {
        let _ = std::fs::remove_file(p);
    }
    let _ = std::fs::remove_file(&opts.descriptor);
    Ok(())
}

trait Conn: AsyncRead + AsyncWrite + Unpin + Send + 'static {}
impl<T: AsyncRead + AsyncWrite + Unpin + Send + 'static> Conn for T {}

/// A connection and what the socket itself says about its other end. Cancel-safe (it sits in
/// the accept loop's `select!` beside a timer): once the kernel hands over a connection
/// nothing else is awaited here, so a tick can never drop one that was already accepted. The
/// peer's `/proc` entries are read afterwards, in the connection's own task ([`Who::peer`]).
async fn accept(listener: &Listener) -> std::io::Result<(Box<dyn Conn>, Who)> {
    Ok(match listener {
        Listener::Unix(l, _) => {
            let s = l.accept().await?.0;
            let who = match s.peer_cred() {
                Ok(c) => Who::Cred(c.pid().and_then(|p| u32::try_from(p).ok()), c.uid()),
                Err(_) => Who::Known(Peer::default()),
            };
            (Box::new(s), who)
        }
        Listener::Tcp(l) => {
            let (s, addr) = l.accept().await?;
            let _ = s.set_nodelay(true);
            let peer = Peer {
                addr: Some(addr.to_string()),
                ..Peer::default()
            };
            (Box::new(s), Who::Known(peer))
        }
    })
}

/// What `accept` learnt of the other end: credentials still to be looked up, or all there is.
enum Who {
    Cred(Option<u32>, u32),
    Known(Peer),
}

impl Who {
    async fn peer(self) -> Peer {
        match self {
            // Reading /proc is a file read: off the runtime.
            Who::Cred(pid, uid) => tokio::task::spawn_blocking(move || peer_process(pid, uid))
                .await
                .unwrap_or_default(),
            Who::Known(p) => p,
        }
    }
}

/// The relay's pid and uid (`SO_PEERCRED`) and its parent process, read from `/proc` as the
/// connection is accepted: what the person is shown as verified, beside what the client
/// claims. A parent that cannot be read is left out, never guessed.
fn peer_process(pid: Option<u32>, uid: u32) -> Peer {
    let parent_pid = pid.and_then(|p| {
        let stat = std::fs::read_to_string(format!("/proc/{p}/stat")).ok()?;
        parent_of_stat(&stat)
    });
    // The executable the kernel ran for it, not its `comm`, which a process sets itself (an
    // agent's wrapper can call itself `sshd`); a path the agent chose is shown as that path.
    let parent_name = parent_pid.and_then(|pp| {
        let exe = std::fs::read_link(format!("/proc/{pp}/exe")).ok()?;
        let exe = exe.to_string_lossy().into_owned();
        (!exe.is_empty()).then_some(exe)
    });
    Peer {
        pid,
        uid: Some(uid),
        parent_pid,
        parent_name,
        addr: None,
    }
}

/// The parent pid in a `/proc/<pid>/stat` line: the second field after the command, which
/// is in parentheses and may itself hold spaces and parentheses (so: after the last `)`).
fn parent_of_stat(stat: &str) -> Option<u32> {
    let rest = &stat[stat.rfind(')')? + 1..];
    let mut fields = rest.split_whitespace();
    let _state = fields.next()?;
    fields.next()?.parse().ok()
}

/// Decrements the pool count however the session ends.
struct Slot(Arc<AtomicUsize>);
impl Drop for Slot {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

async fn handle(
    conn: Box<dyn Conn>,
    peer: Peer,
    shared: Shared,
    opts: SocketOptions,
    active: Arc<AtomicUsize>,
) {
    let conn = WriteTimeout::new(conn, opts.write_timeout, "stdio socket");
    let stalled = conn.expired();
    let (read, mut write) = tokio::io::split(conn);
    let mut reader = BufReader::new(read);
    let mut line = Vec::new();
    // Read through `reader` itself so bytes after the token line stay buffered for the session.
    let got = tokio::time::timeout(
        opts.handshake_timeout,
        (&mut reader)
            .take(MAX_TOKEN_LINE as u64)
            .read_until(b'\n', &mut line),
    )
    .await;
    match got {
        Err(_) => {
            return reply(
                write,
                format!(
                    "ERROR handshake timeout: no token within {}s\n",
                    opts.handshake_timeout.as_secs()
                ),
            )
            .await;
        }
        Ok(Err(_)) | Ok(Ok(0)) => return,
        Ok(Ok(_)) => {}
    }
    let text = String::from_utf8_lossy(&line).trim().to_string();
    let (presented, via, toolsets) = handshake_line(&text);
    if !shared.tokens.check(presented) {
        tracing::warn!("socket connection presented a wrong token");
        return reply(write, "ERROR unauthorized: Missing or invalid bearer token (the endpoint descriptor is stale? restart the relay)\n".into()).await;
    }
    let toolsets = match toolsets.map(Selection::parse).transpose() {
        Ok(t) => t.unwrap_or_default(),
        Err(e) => return reply(write, format!("ERROR --toolsets: {e}\n")).await,
    };
    let n = active.fetch_add(1, Ordering::SeqCst) + 1;
    let _slot = Slot(active.clone());
    if n > opts.max_sessions {
        return reply(write, format!(
            "ERROR busy: the session pool is full ({} of {} in use); close another client or raise server.max_sessions\n",
            n - 1,
            opts.max_sessions
        ))
        .await;
    }
    if write
        .write_all(format!("OK spock-tui {}\n", env!("CARGO_PKG_VERSION")).as_bytes())
        .await
        .is_err()
    {
        return;
    }
    let ct = shared.shutdown.child_token();
    let generation = shared.tokens.generation();
    // The client is gone when its side of the connection ends (the relay half-closes when its
    // agent closes stdin or dies): its calls still waiting for a person are withdrawn at once.
    // Not on our own shutdown, which answers them with the denial it records.
    let gone = CancellationToken::new();
    let reader = EofWatch {
        inner: reader,
        gone: gone.clone(),
    };
    // Counted as connected (what quitting would cut off) while it is open.
    let _open = shared.core.stream_opened(Transport::Stdio);
    let server = McpServer::new(shared.core.clone(), Transport::Stdio)
        .via(via)
        .peer(Some(peer))
        .toolsets(toolsets)
        .client_gone(gone.clone());
    // Unparseable lines and malformed initializes are answered before rmcp (which would
    // drop them silently).
    let (reader, write) = super::jsonrpc_checks::stdio(reader, write, ct.clone());
    let running = tokio::select! {
        r = server.serve_with_ct((reader, write), ct.clone()) => r,
        _ = watch_rotation(&shared, generation) => return,
        _ = stalled.cancelled() => return,
    };
    let Ok(running) = running else { return };
    // A client that stops reading is gone too: its session, queued replies and waiting calls
    // are dropped with it.
    tokio::select! {
        _ = running.waiting() => {}
        _ = watch_rotation(&shared, generation) => { gone.cancel(); ct.cancel(); }
        _ = stalled.cancelled() => { gone.cancel(); ct.cancel(); }
    }
}

/// A reader that cancels `gone` when the peer's side ends (EOF or a read error).
struct EofWatch<R> {
    inner: R,
    gone: CancellationToken,
}

impl<R: AsyncRead + Unpin> AsyncRead for EofWatch<R> {
    fn poll_read(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let r = std::pin::Pin::new(&mut self.inner).poll_read(cx, buf);
        match &r {
            std::task::Poll::Ready(Err(_)) => self.gone.cancel(),
            std::task::Poll::Ready(Ok(()))
                if buf.filled().len() == before && buf.remaining() > 0 =>
            {
                self.gone.cancel()
            }
            _ => {}
        }
        r
    }
}

/// The relay's first line: the token, then optionally tab-separated fields:
/// `ssh=CLIENT_IP CLIENT_PORT` (the first two words of its `SSH_CONNECTION`) and
/// `toolsets=a,b` (`relay --toolsets`). Only a well-formed address and port are kept, so
/// nothing the line carries can draw anything else in the modal.
fn handshake_line(line: &str) -> (&str, Option<String>, Option<&str>) {
    let mut fields = line.split('\t');
    let token = fields.next().unwrap_or_default();
    let (mut via, mut toolsets) = (None, None);
    for f in fields {
        if let Some(a) = f.strip_prefix("ssh=") {
            via = (|| {
                let mut w = a.split_whitespace();
                let ip: std::net::IpAddr = w.next()?.parse().ok()?;
                let port: u16 = w.next()?.parse().ok()?;
                Some(format!("ssh from {}", std::net::SocketAddr::new(ip, port)))
            })();
        } else if let Some(t) = f.strip_prefix("toolsets=") {
            toolsets = Some(t);
        }
    }
    (token, via, toolsets)
}

async fn reply<W: AsyncWrite + Unpin>(mut w: W, msg: String) {
    let _ = w.write_all(msg.as_bytes()).await;
    let _ = w.shutdown().await;
}

/// Resolves when the token changes: sessions opened with the old token end.
async fn watch_rotation(shared: &Shared, generation: u64) {
    let mut tick = tokio::time::interval(Duration::from_millis(500));
    loop {
        tick.tick().await;
        if shared.tokens.generation() != generation {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{handshake_line, parent_of_stat, peer_process};

    #[test]
    fn the_parent_is_read_after_the_last_parenthesis_of_the_command() {
        assert_eq!(parent_of_stat("42 (relay) S 7 42 42 0"), Some(7));
        assert_eq!(parent_of_stat("42 (a) S 9) S 8 42"), Some(8));
        for junk in ["", "42 relay S 7", "42 (x)", "42 (x) S", "42 (x) S -1"] {
            assert_eq!(parent_of_stat(junk), None, "{junk}");
        }
        let me = peer_process(Some(std::process::id()), 1);
        assert_eq!(me.parent_pid, Some(std::os::unix::process::parent_id()));
        assert!(me.parent_name.is_some());
    }

    #[test]
    fn the_relay_may_say_where_ssh_brought_it_from() {
        assert_eq!(handshake_line("tok"), ("tok", None, None));
        assert_eq!(
            handshake_line("tok\tssh=10.0.0.5 51234"),
            ("tok", Some("ssh from 10.0.0.5:51234".into()), None)
        );
        assert_eq!(
            handshake_line("tok\tssh=fe80::1 22"),
            ("tok", Some("ssh from [fe80::1]:22".into()), None)
        );
        for junk in ["tok\tssh=\x1b[31m 1", "tok\tssh=10.0.0.5", "tok\tother=1"] {
            assert_eq!(handshake_line(junk), ("tok", None, None), "{junk:?}");
        }
        assert_eq!(
            handshake_line("tok\tssh=10.0.0.5 1\ttoolsets=apps,files"),
            (
                "tok",
                Some("ssh from 10.0.0.5:1".into()),
                Some("apps,files")
            )
        );
        assert_eq!(
            handshake_line("tok\ttoolsets=all"),
            ("tok", None, Some("all"))
        );
    }
}
