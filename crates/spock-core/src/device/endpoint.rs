//! Where adb servers are: `--adb HOST:PORT` values, else `ANDROID_ADB_SERVER_PORT`, else
//! 127.0.0.1:5037; and the one place that may start a local adb server.
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

#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct AdbEndpoint {
    pub host: String,
    pub port: u16,
}

impl fmt::Display for AdbEndpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.host.contains(':') {
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

    /// Accepts `HOST:PORT`, `[v6]:PORT`, `:PORT` / `PORT` (loopback), and `tcp:HOST:PORT` as
    /// adb's own `-L` spells it.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let err = |why| EndpointParseError {
            input: s.to_string(),
            why,
        };
        let t = s.trim();
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

    /// Whether this endpoint is on this machine, which is the only place we may start adb.
    pub fn is_local(&self) -> bool {
        if self.host.eq_ignore_ascii_case("localhost") {
            return true;
        }
        self.host
            .parse::<IpAddr>()
            .map(|ip| ip.is_loopback())
            .unwrap_or(false)
    }

    /// The servers to use: every `--adb` value, else `ANDROID_ADB_SERVER_PORT` on loopback,
    /// else 127.0.0.1:5037. Duplicates are dropped, keeping order.
    pub fn resolve(
        cli: &[String],
        env_port: Option<&str>,
    ) -> Result<Vec<Self>, EndpointParseError> {
        let mut out: Vec<Self> = Vec::new();
        for v in cli {
            let e: Self = v.parse()?;
            if !out.contains(&e) {
                out.push(e);
            }
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

    /// [`Self::resolve`] reading `ANDROID_ADB_SERVER_PORT` from the environment.
    pub fn from_args_and_env(cli: &[String]) -> Result<Vec<Self>, EndpointParseError> {
        let env = std::env::var("ANDROID_ADB_SERVER_PORT").ok();
        Self::resolve(cli, env.as_deref())
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
        tracing::info!(server = %ep, "starting adb server: adb -P {} start-server", ep.port);
        let mut cmd = tokio::process::Command::new(adb);
        cmd.arg("-P")
            .arg(ep.port.to_string())
            .arg("start-server")
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
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join("adb"))
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
        let got = AdbEndpoint::resolve(&cli, Some("7000")).unwrap();
        assert_eq!(
            got,
            vec![AdbEndpoint::new("a", 1), AdbEndpoint::new("b", 2)]
        );
        assert_eq!(
            AdbEndpoint::resolve(&[], Some("7000")).unwrap(),
            vec![AdbEndpoint::local(7000)]
        );
        assert_eq!(
            AdbEndpoint::resolve(&[], None).unwrap(),
            vec![AdbEndpoint::local(5037)]
        );
        assert!(AdbEndpoint::resolve(&[], Some("x")).is_err());
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
