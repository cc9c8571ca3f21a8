//! The adb-server front door: the host smart-socket protocol on a loopback TCP port, so the
//! device layer (through `adb_client`) and even the real `adb` client (`adb -P PORT`) can use
//! the virtual devices with no adb server running.
//!
//! Each connection reads `%04x`-framed requests: `host:` services are answered here
//! ([`hostreq`] has the formats); `host:transport…` binds the connection to a device, after
//! which one device service (shell, sync, …) takes over the socket after `OKAY`. Device fault
//! switches apply from the moment a device is selected.
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use futures::future::select_all;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio_util::sync::CancellationToken;

use self::hostreq::{Selector, fail, framed, okay_with};
use super::faults::DropBudget;
use super::services::{self, FEATURES, ServedDevice, Service};

pub mod hostreq;

/// The version adb 1.0.41 servers report; a matching `adb` client talks to us without
/// trying to restart "its" server.
pub const SERVER_VERSION: &str = "0029";

/// Serve until `stop` fires or a client sends `host:kill`.
pub async fn serve(
    listener: TcpListener,
    devices: Arc<Vec<ServedDevice>>,
    stop: CancellationToken,
) {
    loop {
        let accepted = tokio::select! {
            _ = stop.cancelled() => return,
            a = listener.accept() => a,
        };
        match accepted {
            Ok((stream, peer)) => {
                let devices = devices.clone();
                let stop = stop.clone();
                tokio::spawn(async move {
                    let conn = Conn {
                        devices,
                        stop: stop.clone(),
                        device: None,
                        budget: DropBudget::default(),
                    };
                    tokio::select! {
                        _ = stop.cancelled() => {}
                        r = conn.run(stream) => if let Err(e) = r {
                            tracing::info!("adb-server connection from {peer} closed: {e}");
                        }
                    }
                });
            }
            Err(e) => tracing::warn!("adb-server accept failed: {e}"),
        }
    }
}

#[derive(Debug, thiserror::Error)]
enum ConnError {
    #[error("i/o: {0}")]
    Io(#[from] std::io::Error),
    #[error("{0}")]
    Framing(#[from] hostreq::FramingError),
    #[error("dropped by the drop-after fault switch")]
    Dropped,
}

struct Conn {
    devices: Arc<Vec<ServedDevice>>,
    stop: CancellationToken,
    /// The device this connection is bound to, once a transport was selected.
    device: Option<ServedDevice>,
    budget: DropBudget,
}

impl Conn {
    /// Write a reply, applying the selected device's delay and drop switches.
    async fn reply(&mut self, stream: &mut TcpStream, bytes: &[u8]) -> Result<(), ConnError> {
        let Some(device) = &self.device else {
            stream.write_all(bytes).await?;
            return Ok(());
        };
        let faults = device.faults.snapshot();
        if faults.delay_ms > 0 {
            tokio::time::sleep(Duration::from_millis(faults.delay_ms)).await;
        }
        let allowed = self.budget.allow(&faults, bytes.len());
        stream.write_all(&bytes[..allowed]).await?;
        if allowed < bytes.len() {
            return Err(ConnError::Dropped);
        }
        Ok(())
    }

    async fn run(mut self, mut stream: TcpStream) -> Result<(), ConnError> {
        let _ = stream.set_nodelay(true);
        loop {
            let mut len = [0u8; 4];
            match stream.read_exact(&mut len).await {
                Ok(_) => {}
                Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(()),
                Err(e) => return Err(e.into()),
            }
            let len = hostreq::parse_length(len)?;
            let mut payload = vec![0u8; len];
            stream.read_exact(&mut payload).await?;
            let request = String::from_utf8_lossy(&payload).into_owned();
            tracing::debug!("adb-server request {request:?}");
            if let Some((selector, service)) = hostreq::split_host_prefix(&self.devices, &request) {
                if !self.host_request(&mut stream, selector, service).await? {
                    return Ok(());
                }
            } else {
                return self.device_service(stream, &request).await;
            }
        }
    }

    /// Answer a `host…:` request. Returns whether the connection takes another request: only
    /// after a transport was selected; adb closes after every other host reply, and the real
    /// `adb` client waits for that close (`ReadOrderlyShutdown`).
    async fn host_request(
        &mut self,
        stream: &mut TcpStream,
        selector: Option<Selector>,
        service: &str,
    ) -> Result<bool, ConnError> {
        let devices = self.devices.clone();
        // A request naming a device, or one bound by an earlier transport request.
        let chosen = || -> Result<usize, String> {
            match (&selector, &self.device) {
                (Some(sel), _) => hostreq::select(&devices, sel),
                (None, Some(d)) => devices
                    .iter()
                    .position(|x| x.identity.serial == d.identity.serial)
                    .ok_or_else(|| "device not found".to_owned()),
                (None, None) => hostreq::select(&devices, &Selector::Any),
            }
        };
        let transport = |s: &str| -> Option<(Selector, bool)> {
            if s == "transport-any" || s == "transport-usb" || s == "transport-local" {
                return Some((Selector::Any, false));
            }
            if let Some(serial) = s.strip_prefix("transport:") {
                return Some((Selector::Serial(serial.to_owned()), false));
            }
            if let Some(id) = s.strip_prefix("transport-id:") {
                return id.parse().ok().map(|id| (Selector::TransportId(id), false));
            }
            let t = s.strip_prefix("tport:")?;
            if let Some(serial) = t.strip_prefix("serial:") {
                return Some((Selector::Serial(serial.to_owned()), true));
            }
            if let Some(id) = t.strip_prefix("id:") {
                return id.parse().ok().map(|id| (Selector::TransportId(id), true));
            }
            matches!(t, "any" | "usb" | "local").then_some((Selector::Any, true))
        };
        match service {
            "version" => stream.write_all(&okay_with(SERVER_VERSION)).await?,
            "kill" => {
                stream.write_all(b"OKAY").await?;
                self.stop.cancel();
                return Ok(false);
            }
            "devices" | "devices-l" => {
                let list = hostreq::device_list(&devices, service == "devices-l");
                stream.write_all(&okay_with(&list)).await?;
            }
            "track-devices" | "track-devices-l" => {
                self.track(stream, service == "track-devices-l").await?;
                return Ok(false);
            }
            "host-features" => stream.write_all(&okay_with(FEATURES)).await?,
            "features" | "get-state" | "get-serialno" | "get-devpath" => {
                let reply = match chosen() {
                    Ok(i) => {
                        let d = &devices[i];
                        okay_with(match service {
                            "features" => FEATURES,
                            "get-state" => hostreq::state_name(d),
                            "get-serialno" => &d.identity.serial,
                            _ => "unknown",
                        })
                    }
                    // get-state still answers for an offline device.
                    Err(e) if service == "get-state" && e == "device offline" => {
                        okay_with("offline")
                    }
                    Err(e) => fail(&e),
                };
                stream.write_all(&reply).await?;
            }
            other => match transport(other) {
                Some((sel, with_id)) => match hostreq::select(&devices, &sel) {
                    Ok(i) => {
                        self.device = Some(devices[i].clone());
                        let mut reply = b"OKAY".to_vec();
                        if with_id {
                            reply.extend_from_slice(&(i as u64 + 1).to_le_bytes());
                        }
                        self.reply(stream, &reply).await?;
                        return Ok(true);
                    }
                    Err(e) => {
                        stream.write_all(&fail(&e)).await?;
                        return Ok(false);
                    }
                },
                None => {
                    stream.write_all(&fail("unknown host service")).await?;
                    return Ok(false);
                }
            },
        }
        Ok(false)
    }

    /// Push the device list now and whenever a device changes state, until the client leaves.
    async fn track(&mut self, stream: &mut TcpStream, long: bool) -> Result<(), ConnError> {
        stream.write_all(b"OKAY").await?;
        let mut watchers: Vec<_> = self.devices.iter().map(|d| d.faults.subscribe()).collect();
        let mut last = String::new();
        let mut probe = [0u8; 64];
        loop {
            let list = hostreq::device_list(&self.devices, long);
            if list != last || last.is_empty() {
                stream.write_all(&framed(&list)).await?;
                last = list;
            }
            if watchers.is_empty() {
                // Nothing can change; wait for the client to leave.
                while stream.read(&mut probe).await? > 0 {}
                return Ok(());
            }
            let changed = select_all(watchers.iter_mut().map(|w| Box::pin(w.changed())));
            tokio::select! {
                (r, _, _) = changed => if r.is_err() { return Ok(()) },
                n = stream.read(&mut probe) => if n? == 0 { return Ok(()) },
            }
        }
    }

    /// Open a device service on the bound device and hand it the socket.
    async fn device_service(
        mut self,
        mut stream: TcpStream,
        request: &str,
    ) -> Result<(), ConnError> {
        let Some(device) = self.device.clone() else {
            stream
                .write_all(&fail(
                    "no transport selected; send host:transport:<serial> first",
                ))
                .await?;
            return Ok(());
        };
        let faults = device.faults.snapshot();
        if faults.offline {
            self.reply(&mut stream, &fail("device offline")).await?;
            return Ok(());
        }
        let service = match Service::parse(request) {
            Ok(s) if !faults.refuse_open => s,
            // What the adb server reports when the device closes an OPEN it cannot serve.
            _ => {
                self.reply(&mut stream, &fail("closed")).await?;
                return Ok(());
            }
        };
        self.reply(&mut stream, b"OKAY").await?;
        let hangs = service.command_line().is_some_and(|c| faults.hangs(c));
        let pause = device.faults.pace.charge(&service);
        let (mut ours, theirs) = tokio::io::duplex(256 * 1024);
        let target = device.target.clone();
        let task = tokio::spawn(async move {
            if hangs {
                services::hang(theirs).await;
            } else {
                services::paced(pause).await;
                services::run(service, target, theirs).await;
            }
        });
        let result = self.pump(&mut stream, &mut ours).await;
        task.abort();
        let _ = stream.shutdown().await;
        result
    }

    /// Copy client bytes to the service and service bytes (through the fault switches) back.
    async fn pump(
        &mut self,
        stream: &mut TcpStream,
        service: &mut tokio::io::DuplexStream,
    ) -> Result<(), ConnError> {
        let mut from_client = vec![0u8; 64 * 1024];
        let mut from_service = vec![0u8; 64 * 1024];
        let mut client_open = true;
        loop {
            tokio::select! {
                n = stream.read(&mut from_client), if client_open => match n {
                    Ok(0) | Err(_) => {
                        client_open = false;
                        let _ = service.shutdown().await;
                    }
                    Ok(n) => if service.write_all(&from_client[..n]).await.is_err() {
                        client_open = false;
                    },
                },
                n = service.read(&mut from_service) => match n? {
                    0 => return Ok(()),
                    n => {
                        let chunk = Bytes::copy_from_slice(&from_service[..n]);
                        self.reply(stream, &chunk).await?;
                    }
                },
            }
        }
    }
}

#[cfg(test)]
mod tests;
