//! `spock-tui relay`: the process an MCP client spawns for stdio. A byte relay and nothing
//! else — it never parses JSON-RPC. It claims stdout before anything else can write to it
//! (everything else goes to stderr), presents the token from the endpoint descriptor as one
//! line, then copies bytes both ways until either side closes. When the instance restarts
//! under it (same token), it reconnects and replays the session's opening (`initialize`,
//! `notifications/initialized`) so the agent's session goes on; calls in flight at that moment
//! get no answer. A rotated token, or no instance back within the wait, ends it with a message.
use std::fs::File;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::os::fd::FromRawFd;
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use super::socket::Descriptor;

/// Take the real stdout for the protocol and point fd 1 at stderr, so a stray print anywhere
/// in this process cannot corrupt the session. Call first thing in `main`.
pub fn claim_stdout() -> std::io::Result<File> {
    // SAFETY: dup/dup2 on the process's own standard descriptors; the duplicate is owned by
    // the returned File and nothing else closes it.
    unsafe {
        let fd = libc::dup(1);
        if fd < 0 {
            return Err(std::io::Error::last_os_error());
        }
        if libc::dup2(2, 1) < 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(File::from_raw_fd(fd))
    }
}

enum Stream {
    Unix(UnixStream),
    Tcp(TcpStream),
}

impl Stream {
    fn try_clone(&self) -> std::io::Result<Stream> {
        Ok(match self {
            Stream::Unix(s) => Stream::Unix(s.try_clone()?),
            Stream::Tcp(s) => Stream::Tcp(s.try_clone()?),
        })
    }
    fn shutdown_write(&self) {
        let _ = match self {
            Stream::Unix(s) => s.shutdown(Shutdown::Write),
            Stream::Tcp(s) => s.shutdown(Shutdown::Write),
        };
    }
}

impl Read for Stream {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match self {
            Stream::Unix(s) => s.read(buf),
            Stream::Tcp(s) => s.read(buf),
        }
    }
}

impl Write for Stream {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            Stream::Unix(s) => s.write(buf),
            Stream::Tcp(s) => s.write(buf),
        }
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// How long a relay whose instance went away waits for it to come back (a restart) before it
/// gives up with a message. `SPOCK_TUI_RELAY_RECONNECT_SECS` overrides it (0: do not wait).
const RECONNECT_WAIT: Duration = Duration::from_secs(30);

fn reconnect_wait() -> Duration {
    std::env::var("SPOCK_TUI_RELAY_RECONNECT_SECS")
        .ok()
        .and_then(|v| v.parse().ok())
        .map(Duration::from_secs)
        .unwrap_or(RECONNECT_WAIT)
}

/// An agent's door's descriptor (`transport::agent_door`), read by the agent's user: the
/// server's user owns it and gave it to a group. Read only when neither it nor its directory
/// can be written by anyone but their owner, so nobody but the server could have put it there.
fn shared_descriptor(path: &Path) -> Option<String> {
    use std::os::unix::fs::MetadataExt as _;
    let dir = path.parent()?;
    let (f, d) = (
        std::fs::symlink_metadata(path).ok()?,
        std::fs::metadata(dir).ok()?,
    );
    let guarded = |m: &std::fs::Metadata| m.mode() & 0o022 == 0;
    if !f.is_file() || !guarded(&f) || !guarded(&d) || f.uid() != d.uid() {
        return None;
    }
    std::fs::read_to_string(path).ok()
}

/// Why connecting failed, as the exit code and the line for stderr.
struct Failed(i32, String);

/// Read the descriptor, connect, present the token (and where SSH brought us from), read `OK`.
/// Returns the connection, its reading half, and the token used.
fn connect(descriptor: &Path, fields: &str) -> Result<(Stream, BufReader<Stream>, String), Failed> {
    let text = crate::config::private::read_to_string(descriptor)
        .or_else(|e| shared_descriptor(descriptor).ok_or(e))
        .map_err(|e| {
            Failed(
                2,
                format!(
                    "cannot read {}: {e}. Is spock-tui running (`spock-tui` or `spock-tui serve`)?",
                    descriptor.display()
                ),
            )
        })?;
    let d: Descriptor = serde_json::from_str(&text).map_err(|e| {
        Failed(
            2,
            format!(
                "{} is not an endpoint descriptor: {e}",
                descriptor.display()
            ),
        )
    })?;
    let conn = match (&d.unix, &d.tcp) {
        (Some(p), _) => UnixStream::connect(p).map(Stream::Unix),
        (None, Some(a)) => TcpStream::connect(a).map(|s| {
            let _ = s.set_nodelay(true);
            Stream::Tcp(s)
        }),
        _ => Err(std::io::Error::other("the descriptor names no endpoint")),
    };
    let mut conn = conn.map_err(|e| {
        Failed(
            3,
            format!(
                "cannot reach {}: {e}. Is spock-tui still running?",
                d.endpoint_label()
            ),
        )
    })?;
    // Under sshd, say where the client came from: the person sees it in the approval modal.
    let via = std::env::var("SSH_CONNECTION")
        .ok()
        .map(|c| c.split_whitespace().take(2).collect::<Vec<_>>().join(" "))
        .filter(|c| !c.is_empty() && !c.contains(['\n', '\t']))
        .map(|c| format!("\tssh={c}"))
        .unwrap_or_default();
    let closed = || {
        Failed(
            3,
            "the server closed the connection during the handshake".into(),
        )
    };
    conn.write_all(format!("{}{via}{fields}\n", d.token).as_bytes())
        .map_err(|_| closed())?;
    let reader_side = conn
        .try_clone()
        .map_err(|_| Failed(3, "cannot duplicate the connection".into()))?;
    let mut from_server = BufReader::new(reader_side);
    let mut hello = String::new();
    match from_server.read_line(&mut hello) {
        Ok(n) if n > 0 && hello.starts_with("OK") => Ok((conn, from_server, d.token)),
        Ok(n) if n > 0 => Err(Failed(
            4,
            format!(
                "refused by the server: {}",
                hello.trim_end().trim_start_matches("ERROR ")
            ),
        )),
        _ => Err(closed()),
    }
}

/// What the client said to open its session, replayed to a restarted instance so the agent's
/// session goes on: its `initialize` request and `notifications/initialized`. The relay
/// otherwise never looks inside the stream; these two are recognised by their method only.
#[derive(Default)]
struct Opening {
    initialize: Option<Vec<u8>>,
    initialized: Option<Vec<u8>>,
}

impl Opening {
    fn note(&mut self, line: &[u8]) {
        let has = |needle: &[u8]| line.windows(needle.len()).any(|w| w == needle);
        if self.initialize.is_none() && has(b"\"initialize\"") && has(b"\"method\"") {
            self.initialize = Some(line.to_vec());
        } else if self.initialized.is_none() && has(b"\"notifications/initialized\"") {
            self.initialized = Some(line.to_vec());
        }
    }
}

/// The instance went away while our client still talks. Wait (bounded) for it to come back
/// with the same token (a restart: a new `serve`, or the control centre's restart), replay the
/// session's opening and swallow the answer to it. A changed token means the token was
/// rotated, which ends sessions on purpose: no reconnect then.
fn resume(
    descriptor: &Path,
    fields: &str,
    token: &str,
    opening: &Opening,
) -> Result<(Stream, BufReader<Stream>), String> {
    let wait = reconnect_wait();
    let deadline = std::time::Instant::now() + wait;
    let mut last: String;
    loop {
        match connect(descriptor, fields) {
            Ok((_, _, t)) if t != token => {
                return Err("the token was rotated, which ends every session".into());
            }
            Ok((mut conn, mut from_server, _)) => {
                let mut replayed = true;
                if let Some(init) = &opening.initialize {
                    replayed &= conn.write_all(init).is_ok();
                    // The instance's answer to the replayed initialize is not the client's.
                    let mut answer = Vec::new();
                    replayed &= from_server
                        .read_until(b'\n', &mut answer)
                        .is_ok_and(|n| n > 0);
                }
                if let Some(done) = &opening.initialized {
                    replayed &= conn.write_all(done).is_ok();
                }
                if replayed {
                    return Ok((conn, from_server));
                }
                last = "the new instance closed the session while it was resumed".into();
            }
            Err(Failed(_, why)) => last = why,
        }
        if std::time::Instant::now() >= deadline {
            return Err(format!(
                "the instance stopped and none came back within {} s ({last})",
                wait.as_secs()
            ));
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// Run the relay. Returns the process exit code; diagnostics go to stderr. `toolsets`
/// (`--toolsets a,b|all`, checked by the caller) is what this client is listed besides the
/// server's choice.
pub fn run(descriptor: &Path, toolsets: Option<&str>, out: File) -> i32 {
    let fields = toolsets
        .map(|t| format!("\ttoolsets={t}"))
        .unwrap_or_default();
    let (conn, from_server, token) = match connect(descriptor, &fields) {
        Ok(c) => c,
        Err(Failed(code, why)) => {
            eprintln!("spock-tui relay: {why}");
            return code;
        }
    };
    // Server → stdout on its own thread; stdin → server here. When the server ends the session
    // while our client still talks, the pump resumes it on a restarted instance (or exits with
    // why not). After the client closed stdin the server closing too is the normal end.
    let client_done = Arc::new(AtomicBool::new(false));
    let opening = Arc::new(Mutex::new(Opening::default()));
    let to_server = Arc::new(Mutex::new(conn));
    let (done, opening_, to_server_) = (client_done.clone(), opening.clone(), to_server.clone());
    let descriptor_ = descriptor.to_path_buf();
    let pump = std::thread::spawn(move || {
        let (mut out, mut from_server) = (out, from_server);
        loop {
            let _ = std::io::copy(&mut from_server, &mut out);
            let _ = out.flush();
            if done.load(Ordering::SeqCst) {
                std::process::exit(0);
            }
            let resumed = {
                let opening = opening_.lock().unwrap_or_else(|p| p.into_inner());
                resume(&descriptor_, &fields, &token, &opening)
            };
            match resumed {
                Ok((conn, reader)) => {
                    *to_server_.lock().unwrap_or_else(|p| p.into_inner()) = conn;
                    from_server = reader;
                    eprintln!("spock-tui relay: the instance restarted; the session goes on");
                }
                Err(why) => {
                    eprintln!("spock-tui relay: the server closed the session: {why}");
                    std::process::exit(if done.load(Ordering::SeqCst) { 0 } else { 3 });
                }
            }
        }
    });
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut line = Vec::with_capacity(64 * 1024);
    loop {
        line.clear();
        match input.read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => {
                client_done.store(true, Ordering::SeqCst);
                break;
            }
            Ok(_) => {
                opening
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .note(&line);
                // A write that fails meets a server that went away: the pump is resuming;
                // the line is tried once more on whatever connection it installs.
                let sent = to_server
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .write_all(&line)
                    .is_ok();
                if !sent {
                    std::thread::sleep(Duration::from_millis(500));
                    let _ = to_server
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .write_all(&line);
                }
            }
        }
    }
    to_server
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .shutdown_write();
    // Our client closed stdin: it is done. Give the server a moment to flush, then leave.
    let deadline = std::time::Instant::now() + Duration::from_millis(500);
    while !pump.is_finished() && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
    0
}
