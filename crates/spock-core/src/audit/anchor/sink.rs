//! Where anchors go: syslog's local datagram socket (`/dev/log`, or any path) or a collector
//! over TCP, one RFC 5424 message per anchor (octet-counted on TCP, RFC 6587 section 3.4.1).
//!
//! Runs on the audit writer's thread, never on the async runtime. A sink that cannot be
//! reached costs a short timeout, then is left alone for a while: the trail is never held up
//! waiting for syslog, and each failure is logged (rate-limited) so the person can see the
//! trail is not being anchored.
use std::io::Write as _;
use std::net::{TcpStream, ToSocketAddrs as _};
use std::os::unix::net::UnixDatagram;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use super::Anchor;

const IO_TIMEOUT: Duration = Duration::from_secs(2);
const RETRY_AFTER: Duration = Duration::from_secs(5);

/// `audit.anchor` in config.toml.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    Off,
    /// A syslog datagram socket (`unix:/dev/log`).
    Unix(PathBuf),
    /// A collector, `host:port` (`tcp:127.0.0.1:6514`).
    Tcp(String),
}

impl Target {
    /// `off`, `auto` (`/dev/log` when it exists, else off), `unix:PATH` or `tcp:HOST:PORT`.
    pub fn parse(s: &str) -> Result<Target, String> {
        let s = s.trim();
        if s == "off" {
            Ok(Target::Off)
        } else if s == "auto" {
            let log = PathBuf::from("/dev/log");
            Ok(if log.exists() {
                Target::Unix(log)
            } else {
                Target::Off
            })
        } else if let Some(p) = s.strip_prefix("unix:").filter(|p| p.starts_with('/')) {
            Ok(Target::Unix(PathBuf::from(p)))
        } else if let Some(hp) = s.strip_prefix("tcp:")
            && let Some((host, port)) = hp.rsplit_once(':')
            && !host.is_empty()
            && port.parse::<u16>().is_ok_and(|p| p > 0)
        {
            Ok(Target::Tcp(hp.to_string()))
        } else {
            Err(format!(
                "audit.anchor {s:?}: expected \"auto\", \"off\", \"unix:/PATH\" or \"tcp:HOST:PORT\""
            ))
        }
    }
}

impl std::fmt::Display for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Target::Off => write!(f, "off"),
            Target::Unix(p) => write!(f, "unix:{}", p.display()),
            Target::Tcp(hp) => write!(f, "tcp:{hp}"),
        }
    }
}

enum Conn {
    Unix(UnixDatagram),
    Tcp(TcpStream),
}

pub struct Sink {
    target: Target,
    conn: Option<Conn>,
    host: String,
    pid: u32,
    retry_at: Option<Instant>,
}

impl Sink {
    /// `None` when anchoring is off.
    pub fn new(target: Target) -> Option<Sink> {
        (target != Target::Off).then(|| Sink {
            target,
            conn: None,
            host: hostname(),
            pid: std::process::id(),
            retry_at: None,
        })
    }

    pub fn target(&self) -> &Target {
        &self.target
    }

    /// Sends one anchor. An error means it did not leave this process (and for a while after a
    /// failure nothing is tried: that is an error too).
    pub fn send(&mut self, a: &Anchor) -> Result<(), String> {
        if let Some(t) = self.retry_at {
            if Instant::now() < t {
                return Err(format!("{} unreachable; retrying shortly", self.target));
            }
            self.retry_at = None;
        }
        let msg = a.rfc5424(&self.host, self.pid);
        let r = self.try_send(&msg);
        if r.is_err() {
            self.conn = None;
            self.retry_at = Some(Instant::now() + RETRY_AFTER);
        }
        r.map_err(|e| format!("{}: {e}", self.target))
    }

    fn try_send(&mut self, msg: &str) -> std::io::Result<()> {
        // A collector never sends anything: a readable connection is one it closed (or reset).
        // The first write after that would still succeed, into the kernel's buffer, and the
        // anchor would be lost without a word; so it is found out first and connected again.
        if let Some(Conn::Tcp(s)) = &self.conn
            && peer_gone(s)
        {
            self.conn = None;
        }
        if self.conn.is_none() {
            self.conn = Some(self.connect()?);
        }
        match (&mut self.conn, &self.target) {
            (Some(Conn::Unix(s)), Target::Unix(path)) => s.send_to(msg.as_bytes(), path).map(drop),
            (Some(Conn::Tcp(s)), _) => {
                let framed = format!("{} {msg}", msg.len());
                s.write_all(framed.as_bytes())?;
                s.flush()
            }
            _ => Err(std::io::Error::other("anchoring is off")),
        }
    }

    fn connect(&self) -> std::io::Result<Conn> {
        match &self.target {
            Target::Off => Err(std::io::Error::other("anchoring is off")),
            Target::Unix(_) => {
                let s = UnixDatagram::unbound()?;
                s.set_write_timeout(Some(IO_TIMEOUT))?;
                Ok(Conn::Unix(s))
            }
            Target::Tcp(hp) => {
                let mut last = std::io::Error::other(format!("{hp}: no address"));
                for addr in hp.to_socket_addrs()? {
                    match TcpStream::connect_timeout(&addr, IO_TIMEOUT) {
                        Ok(s) => {
                            s.set_write_timeout(Some(IO_TIMEOUT))?;
                            s.set_nodelay(true)?;
                            return Ok(Conn::Tcp(s));
                        }
                        Err(e) => last = e,
                    }
                }
                Err(last)
            }
        }
    }
}

/// Whether the collector closed or reset the connection: anything to read, an end of file, or
/// an error, seen without waiting.
fn peer_gone(s: &TcpStream) -> bool {
    let mut b = [0u8; 1];
    match s.set_nonblocking(true) {
        Ok(()) => {}
        Err(_) => return true,
    }
    let r = s.peek(&mut b);
    let _ = s.set_nonblocking(false);
    match r {
        Ok(_) => true,
        Err(e) => e.kind() != std::io::ErrorKind::WouldBlock,
    }
}

fn hostname() -> String {
    let mut buf = [0u8; 256];
    // SAFETY: the buffer is valid for its length; gethostname NUL-terminates within it or
    // truncates, and the last byte stays 0 either way.
    let r = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len() - 1) };
    if r != 0 {
        return "-".into();
    }
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    String::from_utf8_lossy(&buf[..end]).into_owned()
}
