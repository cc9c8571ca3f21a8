//! The adb host smart-socket protocol, client side: a request is four hex digits of length and
//! the text; the server answers `OKAY` or `FAIL` + hex-length message. Host services then
//! answer with one hex-length block; device services turn the socket into the device's stream.
//!
//! Written on tokio rather than through adb_client because adb_client 3.2.3 is blocking, has no
//! timeouts, and runs `adb start-server` on every call (see the parent module doc).
use std::io::ErrorKind;
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::endpoint::{AdbEndpoint, Starter};
use super::error::DeviceError;

/// Largest host reply we accept (a `devices-l` of hundreds of devices is a few tens of KiB).
pub(crate) const MAX_HOST_REPLY: usize = 1 << 20;

/// One adb server we talk to, with its start-server memory and its tracker's doorbell.
#[derive(Debug)]
pub(crate) struct Server {
    pub ep: AdbEndpoint,
    starter: Starter,
    /// Whether a call may start adb here when the port refuses: only the default local
    /// endpoint (never one given explicitly), decided by whoever built the [`Devices`].
    ///
    /// [`Devices`]: super::Devices
    autostart: bool,
    connect_timeout: Duration,
    start_timeout: Duration,
    /// Wakes this server's tracker out of its backoff sleep (a call is waiting for it).
    pub(crate) wake: tokio::sync::Notify,
    /// Serialises one-off listings, so a burst of calls at start-up asks once, not once each.
    pub(crate) first_listing: tokio::sync::Mutex<()>,
    /// What spock-tui started here, said once in the log and kept for status and doctor.
    started: std::sync::Mutex<Option<String>>,
}

/// The byte stream to an adb server: TCP, or a filesystem socket.
pub(crate) trait AdbIo:
    tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + Sync
{
}
impl<T: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + Sync> AdbIo for T {}

/// An open smart socket to `server`.
pub(crate) struct Conn {
    pub stream: Box<dyn AdbIo>,
    pub server: AdbEndpoint,
}

impl Server {
    pub fn new(ep: AdbEndpoint, autostart: bool, connect: Duration, start: Duration) -> Self {
        Server {
            autostart: autostart && ep.is_local(),
            ep,
            starter: Starter::default(),
            connect_timeout: connect,
            start_timeout: start,
            wake: tokio::sync::Notify::new(),
            first_listing: tokio::sync::Mutex::new(()),
            started: std::sync::Mutex::new(None),
        }
    }

    /// Connects for a call. When the port refuses and this is the default local endpoint, starts
    /// a server there once (as `adb` itself does on any command), says so, and retries.
    pub async fn connect(&self) -> Result<Conn, DeviceError> {
        match self.connect_once().await {
            Err((kind, err))
                if self.autostart
                    && (kind == Some(ErrorKind::ConnectionRefused)
                        || (kind == Some(ErrorKind::NotFound)
                            && self.ep.socket_path().is_some())) =>
            {
                if self.starter.try_start(&self.ep, self.start_timeout).await {
                    let note = format!(
                        "no adb server was running on {} (the default endpoint), so spock-tui started one as `adb` itself would (`adb {} start-server`); it keeps running after spock-tui exits",
                        self.ep,
                        self.ep.adb_args().join(" ")
                    );
                    tracing::info!(server = %self.ep, "{note}");
                    if let Ok(mut n) = self.started.lock() {
                        *n = Some(note);
                    }
                    self.connect_once().await.map_err(|(_, e)| e)
                } else {
                    Err(err)
                }
            }
            other => other.map_err(|(_, e)| e),
        }
    }

    /// Connects without ever starting anything: what background work (tracking, probes) uses.
    pub async fn connect_quiet(&self) -> Result<Conn, DeviceError> {
        self.connect_once().await.map_err(|(_, e)| e)
    }

    /// Whether a call may start adb on this endpoint (see [`Self::connect`]).
    pub fn may_autostart(&self) -> bool {
        self.autostart
    }

    /// The note left by the last server start on this endpoint, if spock-tui started one.
    pub fn started_note(&self) -> Option<String> {
        self.started.lock().ok().and_then(|n| n.clone())
    }

    async fn connect_once(&self) -> Result<Conn, (Option<ErrorKind>, DeviceError)> {
        let unreachable = |detail: String| DeviceError::ServerUnreachable {
            server: self.ep.to_string(),
            detail,
        };
        let connect = async {
            match self.ep.socket_path() {
                Some(path) => tokio::net::UnixStream::connect(path)
                    .await
                    .map(|s| Box::new(s) as Box<dyn AdbIo>),
                None => TcpStream::connect((self.ep.host.as_str(), self.ep.port))
                    .await
                    .map(|s| {
                        let _ = s.set_nodelay(true);
                        Box::new(s) as Box<dyn AdbIo>
                    }),
            }
        };
        match tokio::time::timeout(self.connect_timeout, connect).await {
            Ok(Ok(stream)) => Ok(Conn {
                stream,
                server: self.ep.clone(),
            }),
            Ok(Err(e)) => Err((Some(e.kind()), unreachable(e.to_string()))),
            Err(_) => Err((
                None,
                unreachable(format!(
                    "no answer to connect within {:?}",
                    self.connect_timeout
                )),
            )),
        }
    }

    /// A host service answering one hex-length block (`host:version`, `host:devices-l`, …).
    pub async fn host_query(&self, request: &str) -> Result<Bytes, DeviceError> {
        let mut c = self.connect().await?;
        c.request(request).await?;
        c.read_block(MAX_HOST_REPLY, request).await
    }

    /// [`Self::host_query`] that never starts a server (background work).
    pub async fn host_query_quiet(&self, request: &str) -> Result<Bytes, DeviceError> {
        let mut c = self.connect_quiet().await?;
        c.request(request).await?;
        c.read_block(MAX_HOST_REPLY, request).await
    }

    /// Switches a fresh connection to device `serial`, then opens `service` on it. With a
    /// `transport_id` the switch is `host:transport-id:N`: exactly that connection of the
    /// device, never another one that has the serial now.
    pub async fn open_device(
        &self,
        serial: &str,
        transport_id: Option<u64>,
        service: &str,
    ) -> Result<Conn, DeviceError> {
        let mut c = self.connect().await?;
        match transport_id {
            Some(id) => c.send(&format!("host:transport-id:{id}")).await?,
            None => c.send(&format!("host:transport:{serial}")).await?,
        }
        if let Err(e) = c.status("host:transport").await {
            return Err(match (transport_id, e) {
                // adb: "no device with transport id 'N'"; the virtual device: "device not found".
                (Some(id), DeviceError::Adb(m))
                    if m.contains("not found") || m.contains("no device") =>
                {
                    DeviceError::PinnedGone {
                        device: super::listing::qualified(serial, &self.ep),
                        transport_id: id,
                        now: None,
                    }
                }
                (_, e) => map_transport_failure(serial, e),
            });
        }
        c.request(service).await.map_err(|e| match e {
            // adbd refusing the service after the transport was fine: the device vanished or
            // does not have it; both read well as the device's own words.
            DeviceError::Adb(m) if m.contains("offline") || m.contains("not found") => {
                DeviceError::Lost {
                    serial: serial.to_string(),
                    what: format!("opening {service}"),
                }
            }
            other => other,
        })?;
        Ok(c)
    }
}

/// Maps adb's `host:transport` refusals (its exact words, e.g. "device 'X' not found",
/// "device offline", "device unauthorized.\n…", "device still authorizing") to typed errors.
pub(crate) fn map_transport_failure(serial: &str, e: DeviceError) -> DeviceError {
    let DeviceError::Adb(msg) = e else { return e };
    let s = serial.to_string();
    if msg.contains("not found") {
        DeviceError::NoDevice {
            serial: s,
            known: Vec::new(),
        }
    } else if msg.contains("unauthorized") {
        DeviceError::Unauthorized { serial: s }
    } else if msg.contains("offline") {
        DeviceError::Offline { serial: s }
    } else if msg.contains("still authorizing") {
        DeviceError::NotReady {
            serial: s,
            state: "authorizing".into(),
        }
    } else if msg.contains("still connecting") {
        DeviceError::NotReady {
            serial: s,
            state: "connecting".into(),
        }
    } else {
        DeviceError::Adb(msg)
    }
}

impl Conn {
    /// Sends a request and reads its OKAY/FAIL.
    pub async fn request(&mut self, req: &str) -> Result<(), DeviceError> {
        self.send(req).await?;
        self.status(req).await
    }

    pub async fn send(&mut self, req: &str) -> Result<(), DeviceError> {
        if req.len() > 0xffff {
            return Err(DeviceError::Protocol(format!(
                "request is {} bytes; adb accepts at most 65535",
                req.len()
            )));
        }
        let mut buf = Vec::with_capacity(4 + req.len());
        buf.extend_from_slice(format!("{:04x}", req.len()).as_bytes());
        buf.extend_from_slice(req.as_bytes());
        self.stream
            .write_all(&buf)
            .await
            .map_err(|e| self.io(e, req))
    }

    /// Reads `OKAY`, or `FAIL` + message as [`DeviceError::Adb`].
    pub async fn status(&mut self, what: &str) -> Result<(), DeviceError> {
        let mut st = [0u8; 4];
        self.read_exact(&mut st, what).await?;
        match &st {
            b"OKAY" => Ok(()),
            b"FAIL" => {
                let msg = self.read_block(MAX_HOST_REPLY, what).await?;
                Err(DeviceError::Adb(
                    String::from_utf8_lossy(&msg).trim().to_string(),
                ))
            }
            other => Err(DeviceError::Protocol(format!(
                "expected OKAY or FAIL from {} answering {what}, got {:?}",
                self.server,
                String::from_utf8_lossy(other)
            ))),
        }
    }

    /// Reads one block of four hex digits of length and that many bytes.
    pub async fn read_block(&mut self, max: usize, what: &str) -> Result<Bytes, DeviceError> {
        let mut hex = [0u8; 4];
        self.read_exact(&mut hex, what).await?;
        let len = std::str::from_utf8(&hex)
            .ok()
            .and_then(|h| usize::from_str_radix(h, 16).ok())
            .ok_or_else(|| {
                DeviceError::Protocol(format!(
                    "bad length {:?} from {} answering {what}",
                    String::from_utf8_lossy(&hex),
                    self.server
                ))
            })?;
        if len > max {
            return Err(DeviceError::TooLarge { limit: max as u64 });
        }
        let mut data = vec![0u8; len];
        self.read_exact(&mut data, what).await?;
        Ok(Bytes::from(data))
    }

    pub async fn read_exact(&mut self, buf: &mut [u8], what: &str) -> Result<(), DeviceError> {
        match self.stream.read_exact(buf).await {
            Ok(_) => Ok(()),
            Err(e) => Err(self.io(e, what)),
        }
    }

    /// Reads until EOF, failing with TooLarge as soon as more than `max` bytes arrived.
    pub async fn read_to_end_capped(
        &mut self,
        max: usize,
        what: &str,
    ) -> Result<Bytes, DeviceError> {
        let mut out = BytesMut::new();
        loop {
            out.reserve(64 * 1024);
            let n = self
                .stream
                .read_buf(&mut out)
                .await
                .map_err(|e| self.io(e, what))?;
            if n == 0 {
                return Ok(out.freeze());
            }
            if out.len() > max {
                return Err(DeviceError::TooLarge { limit: max as u64 });
            }
        }
    }

    pub async fn write_all(&mut self, data: &[u8], what: &str) -> Result<(), DeviceError> {
        self.stream
            .write_all(data)
            .await
            .map_err(|e| self.io(e, what))
    }

    /// An I/O failure in the middle of an exchange: the server (or device) went away.
    pub fn io(&self, e: std::io::Error, what: &str) -> DeviceError {
        if e.kind() == ErrorKind::UnexpectedEof {
            DeviceError::Io(format!(
                "adb server {} closed the connection in the middle of {what}",
                self.server
            ))
        } else {
            DeviceError::Io(format!("{what} on adb server {}: {e}", self.server))
        }
    }
}
