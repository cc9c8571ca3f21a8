//! Where adb servers are: `--adb HOST:PORT` (or `localfilesystem:/PATH`) values, else
//! `ADB_SERVER_SOCKET`, else `ANDROID_ADB_SERVER_PORT`, else 127.0.0.1:5037; and the one place
//! that may start a local adb server.
//!
//! A server on a filesystem socket (`adb -L localfilesystem:/PATH`, or `ADB_SERVER_SOCKET`
//! set to that for every adb command) has no TCP port: only who can open the path can use it,
//! which is how SECURITY.md keeps a sandboxed agent of the same user away from it.
//!
//! Starting a server is deliberately narrow, as `adb` itself does it: only for the endpoint
//! nobody named (no `--adb`, no `device.adb` in the config: 127.0.0.1:5037, or the port in
//! `ANDROID_ADB_SERVER_PORT`, where `adb` would start one too), only when it is on loopback and
//! refused a call (never from background tracking), only with `adb -P <that port>
//! start-server`, under a timeout, at most once per endpoint per [`START_RETRY_AFTER`]. An
//! address given explicitly may be an SSH tunnel or another person's server: spock-tui never
//! starts anything there; only `spock_restart_adb_server`, approved by a person, restarts a
//! local server.
use std::fmt;
use std::net::IpAddr;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

pub const DEFAULT_PORT: u16 = 5037;
/// A start attempt that did not help is not repeated sooner than this, so a broken adb
/// install does not become a process storm.
pub const START_RETRY_AFTER: Duration = Duration::from_secs(30);

/// An adb server's address: a TCP host and port, or (port 0) a filesystem socket whose path
/// is `host`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct AdbEndpoint {
    pub host: String,
    pub port: u16,
}

impl fmt::Display for AdbEndpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(path) = self.socket_path() {
            write!(f, "localfilesystem:{path}")
        } else if self.host.contains(':') {
            write!(f, "[{}]:{}", self.host, self.port)
        } else {
            write!(f, "{}:{}", self.host, self.port)
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid adb server address {input:?}: {why} (expected HOST:PORT, e.g. 127.0.0.1:5037)")]
pub struct EndpointParseError {
    pub input: String,
    pub why: &'static str,
}

impl std::str::FromStr for AdbEndpoint {
    type Err = EndpointParseError;

    /// Accepts `HOST:PORT`, `[v6]:PORT`, `:PORT` / `PORT` (loopback), `tcp:HOST:PORT` as
    /// adb's own `-L` spells it, and `localfilesystem:/PATH` (or `unix:/PATH`) for a server on a
    /// filesystem socket.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let err = |why| EndpointParseError {
            input: s.to_string(),
            why,
        };
        let t = s.trim();
        if let Some(path) = t
            .strip_prefix("localfilesystem:")
            .or_else(|| t.strip_prefix("unix:"))
        {
            if !path.starts_with('/') {
                return Err(err("a filesystem socket's path must be absolute"));
            }
            if path.len() >= 108 {
                return Err(err("a filesystem socket's path must be under 108 bytes"));
            }
            return Ok(AdbEndpoint::filesystem(path));
        }
        if t.starts_with("local:")
            || t.starts_with("localabstract:")
            || t.starts_with("localreserved:")
        {
            return Err(err(
                "only tcp: and localfilesystem: adb sockets are supported (an abstract socket \
                 is reachable by every process in the network namespace)",
            ));
        }
        let t = t.strip_prefix("tcp:").unwrap_or(t);
        if t.is_empty() {
            return Err(err("empty"));
        }
        let (host, port) = if let Some(rest) = t.strip_prefix('[') {
            let (h, p) = rest.split_once("]:").ok_or_else(|| err("missing ]:PORT"))?;
            (h.to_string(), p)
        } else if let Some((h, p)) = t.rsplit_once(':') {
            if h.contains(':') {
                return Err(err("IPv6 hosts must be written [addr]:port"));
            }
            (
                if h.is_empty() {
                    "127.0.0.1".to_string()
                } else {
                    h.to_string()
                },
                p,
            )
        } else {
            ("127.0.0.1".to_string(), t)
        };
        if host.is_empty() {
            return Err(err("empty host"));
        }
        let port: u16 = port
            .parse()
            .map_err(|_| err("port is not a number from 1 to 65535"))?;
        if port == 0 {
            return Err(err("port 0 is not a server"));
        }
        Ok(AdbEndpoint { host, port })
    }
}

impl AdbEndpoint {
    pub fn new(host: impl Into<String>, port: u16) -> Self {
        AdbEndpoint {
            host: host.into(),
            port,
        }
    }

    pub fn local(port: u16) -> Self {
        AdbEndpoint::new("127.0.0.1", port)
    }

    /// A server on the filesystem socket `path` (absolute).
    pub fn filesystem(path: &str) -> Self {
        AdbEndpoint::new(path, 0)
    }

    /// The filesystem socket's path, for a server on one.
    pub fn socket_path(&self) -> Option<&str> {
        (self.port == 0).then_some(self.host.as_str())
    }

    /// The `adb` options that name this server for its own commands (`start-server`,
    /// `kill-server`): `-L localfilesystem:/PATH`, or `-P PORT` (adb cannot listen on a named
    /// host, so a TCP server is started by port).
    pub fn adb_args(&self) -> Vec<String> {
        match self.socket_path() {
            Some(p) => vec!["-L".into(), format!("localfilesystem:{p}")],
            None => vec!["-P".into(), self.port.to_string()],
        }
    }

    /// Whether this endpoint is on this machine, which is the only place we may start adb.
    pub fn is_local(&self) -> bool {
        if self.socket_path().is_some() {
            return true;
        }
        if self.host.eq_ignore_ascii_case("localhost") {
            return true;
        }
        self.host
            .parse::<IpAddr>()
            .map(|ip| ip.is_loopback())
            .unwrap_or(false)
    }

    /// The servers to use: every `--adb` value, else `ADB_SERVER_SOCKET` (as adb reads it:
    /// `tcp:HOST:PORT` or `localfilesystem:/PATH`), else `ANDROID_ADB_SERVER_PORT` on loopback,
    /// else 127.0.0.1:5037. Duplicates are dropped, keeping order.
    pub fn resolve(
        cli: &[String],
        env_socket: Option<&str>,
        env_port: Option<&str>,
    ) -> Result<Vec<Self>, EndpointParseError> {
        let mut out: Vec<Self> = Vec::new();
        for v in cli {
            let e: Self = v.parse()?;
            if !out.contains(&e) {
                out.push(e);
            }
        }
        if out.is_empty()
            && let Some(spec) = env_socket.map(str::trim).filter(|s| !s.is_empty())
        {
            out.push(
                spec.parse()
                    .map_err(|e: EndpointParseError| EndpointParseError {
                        why: if e.why == "port is not a number from 1 to 65535" {
                            "ADB_SERVER_SOCKET is not tcp:HOST:PORT nor localfilesystem:/PATH"
                        } else {
                            e.why
                        },
                        ..e
                    })?,
            );
        }
        if out.is_empty() {
            let port = match env_port.map(str::trim).filter(|p| !p.is_empty()) {
                Some(p) => p
                    .parse::<u16>()
                    .ok()
                    .filter(|p| *p != 0)
                    .ok_or(EndpointParseError {
                        input: p.to_string(),
                        why: "ANDROID_ADB_SERVER_PORT is not a port number",
                    })?,
                None => DEFAULT_PORT,
            };
            out.push(Self::local(port));
        }
        Ok(out)
    }

    /// [`Self::resolve`] reading `ADB_SERVER_SOCKET` and `ANDROID_ADB_SERVER_PORT` from the
    /// environment.
    pub fn from_args_and_env(cli: &[String]) -> Result<Vec<Self>, EndpointParseError> {
        let socket = std::env::var("ADB_SERVER_SOCKET").ok();
        let env = std::env::var("ANDROID_ADB_SERVER_PORT").ok();
        Self::resolve(cli, socket.as_deref(), env.as_deref())
    }
}

/// Per-endpoint memory of start attempts; one lock per endpoint so concurrent callers that all
/// saw "connection refused" produce one `adb start-server`, not one each.
#[derive(Debug, Default)]
pub(crate) struct Starter {
    last: tokio::sync::Mutex<Option<(Instant, bool)>>,
}

impl Starter {
    /// Starts adb on `ep` if allowed now. Returns true when a start ran and reported success,
    /// so the caller should retry its connection.
    pub(crate) async fn try_start(&self, ep: &AdbEndpoint, timeout: Duration) -> bool {
        if !ep.is_local() {
            return false;
        }
        let mut last = self.last.lock().await;
        if let Some((t, ok)) = *last {
            if t.elapsed() < Duration::from_secs(2) {
                // Another caller started it while we waited for the lock: reuse its outcome.
                return ok;
            }
            if t.elapsed() < START_RETRY_AFTER {
                return false;
            }
        }
        let ok = self.start(ep, timeout).await;
        *last = Some((Instant::now(), ok));
        ok
    }

    async fn start(&self, ep: &AdbEndpoint, timeout: Duration) -> bool {
        let Some(adb) = find_adb() else {
            return false;
        };
        let args = ep.adb_args();
        tracing::info!(server = %ep, "starting adb server: adb {} start-server", args.join(" "));
        let mut cmd = tokio::process::Command::new(adb);
        cmd.args(&args)
            .arg("start-server")
            .env_remove("ADB_SERVER_SOCKET")
            .env("ANDROID_ADB_SERVER_PORT", ep.port.to_string())
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .kill_on_drop(true);
        match tokio::time::timeout(timeout, cmd.status()).await {
            Ok(Ok(st)) => st.success(),
            Ok(Err(e)) => {
                tracing::warn!(server = %ep, "could not run adb start-server: {e}");
                false
            }
            Err(_) => {
                tracing::warn!(server = %ep, "adb start-server timed out after {timeout:?}");
                false
            }
        }
    }
}

/// The `adb` binary on PATH, if any.
pub(crate) fn find_adb() -> Option<std::path::PathBuf> {
    find_program("adb")
}

/// A program on PATH, if any.
pub fn find_program(name: &str) -> Option<std::path::PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_spellings_people_type() {
        assert_eq!(
            "10.0.0.5:5037".parse(),
            Ok(AdbEndpoint::new("10.0.0.5", 5037))
        );
        assert_eq!("tcp:lab2:5038".parse(), Ok(AdbEndpoint::new("lab2", 5038)));
        assert_eq!(":6000".parse(), Ok(AdbEndpoint::local(6000)));
        assert_eq!("6000".parse(), Ok(AdbEndpoint::local(6000)));
        assert_eq!("[::1]:5037".parse(), Ok(AdbEndpoint::new("::1", 5037)));
        assert!("host:0".parse::<AdbEndpoint>().is_err());
        assert!("host:http".parse::<AdbEndpoint>().is_err());
        assert!("::1:5037".parse::<AdbEndpoint>().is_err());
        assert_eq!(AdbEndpoint::new("::1", 5037).to_string(), "[::1]:5037");
    }

    #[test]
    fn cli_wins_over_env_and_env_over_default() {
        let cli = vec!["a:1".to_string(), "b:2".to_string(), "a:1".to_string()];
        let got = AdbEndpoint::resolve(&cli, None, Some("7000")).unwrap();
        assert_eq!(
            got,
            vec![AdbEndpoint::new("a", 1), AdbEndpoint::new("b", 2)]
        );
        assert_eq!(
            AdbEndpoint::resolve(&[], None, Some("7000")).unwrap(),
            vec![AdbEndpoint::local(7000)]
        );
        assert_eq!(
            AdbEndpoint::resolve(&[], None, None).unwrap(),
            vec![AdbEndpoint::local(5037)]
        );
        assert!(AdbEndpoint::resolve(&[], None, Some("x")).is_err());
    }

    #[test]
    fn a_filesystem_socket_is_its_own_kind_of_endpoint() {
        let e: AdbEndpoint = "localfilesystem:/run/user/1000/adb/adb.sock"
            .parse()
            .unwrap();
        assert_eq!(e.socket_path(), Some("/run/user/1000/adb/adb.sock"));
        assert!(e.is_local());
        assert_eq!(e.to_string(), "localfilesystem:/run/user/1000/adb/adb.sock");
        assert_eq!(e.to_string().parse::<AdbEndpoint>(), Ok(e.clone()));
        assert_eq!(
            e.adb_args(),
            ["-L", "localfilesystem:/run/user/1000/adb/adb.sock"]
        );
        assert_eq!(
            "unix:/tmp/a.sock"
                .parse::<AdbEndpoint>()
                .unwrap()
                .socket_path(),
            Some("/tmp/a.sock")
        );
        assert!("localfilesystem:adb.sock".parse::<AdbEndpoint>().is_err());
        assert!("localabstract:adb".parse::<AdbEndpoint>().is_err());
        assert!(
            format!("localfilesystem:/{}", "a".repeat(120))
                .parse::<AdbEndpoint>()
                .is_err()
        );
        assert_eq!(AdbEndpoint::local(5037).socket_path(), None);
        assert_eq!(AdbEndpoint::local(5038).adb_args(), ["-P", "5038"]);
        // ADB_SERVER_SOCKET, as adb reads it, comes before ANDROID_ADB_SERVER_PORT; --adb first.
        assert_eq!(
            AdbEndpoint::resolve(&[], Some("localfilesystem:/s/adb.sock"), Some("7000")).unwrap(),
            vec![AdbEndpoint::filesystem("/s/adb.sock")]
        );
        assert_eq!(
            AdbEndpoint::resolve(&[], Some("tcp:127.0.0.1:6000"), None).unwrap(),
            vec![AdbEndpoint::local(6000)]
        );
        assert_eq!(
            AdbEndpoint::resolve(&["9000".into()], Some("localfilesystem:/s/adb.sock"), None)
                .unwrap(),
            vec![AdbEndpoint::local(9000)]
        );
        assert!(AdbEndpoint::resolve(&[], Some("vsock:3:5037"), None).is_err());
    }

    #[test]
    fn only_loopback_is_local() {
        assert!(AdbEndpoint::local(1).is_local());
        assert!(AdbEndpoint::new("localhost", 1).is_local());
        assert!(AdbEndpoint::new("::1", 1).is_local());
        assert!(!AdbEndpoint::new("192.168.1.4", 1).is_local());
        assert!(!AdbEndpoint::new("lab2", 1).is_local());
    }
}
