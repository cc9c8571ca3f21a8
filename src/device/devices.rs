//! The registry of adb servers and their devices: [`Devices`] (listing, tracking, events) and
//! [`Device`] handles (shell, exec, files), each call bounded by a timeout.
//!
//! Shared state is one short-held `std::sync::Mutex` around bookkeeping (the device table, server
//! health, feature cache); it is never held across I/O, so calls to different devices (or the
//! same one) run fully in parallel, each on its own adb connection.
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use serde::Serialize;
use tokio::sync::broadcast;
use tokio_util::sync::CancellationToken;

use super::endpoint::AdbEndpoint;
use super::error::{DeviceError, bounded};
use super::listing::{self, DeviceEntry, parse_devices, qualify, split_qualified};
use super::wire::{Server, map_transport_failure};

/// Bounds for calls that take no timeout argument (host queries, connecting, starting adb).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timeouts {
    pub connect: Duration,
    pub host: Duration,
    pub start_server: Duration,
}

impl Default for Timeouts {
    fn default() -> Self {
        Timeouts {
            connect: Duration::from_secs(3),
            host: Duration::from_secs(10),
            start_server: Duration::from_secs(20),
        }
    }
}

/// Knobs beyond timeouts; the defaults are what the program runs with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DeviceOptions {
    /// Start `adb -P PORT start-server` when a loopback endpoint refuses (adb on PATH only).
    pub autostart_local_server: bool,
    /// Most shell output (stdout + stderr) kept from one command before it fails TooLarge.
    pub shell_output_cap: usize,
}

impl Default for DeviceOptions {
    fn default() -> Self {
        DeviceOptions {
            autostart_local_server: true,
            shell_output_cap: 64 << 20,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum DeviceEvent {
    Added(DeviceEntry),
    Changed(DeviceEntry),
    Removed { serial: String },
    ServerDown { server: AdbEndpoint, error: String },
    ServerUp { server: AdbEndpoint },
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Health {
    Up,
    Down(String),
}

#[derive(Default)]
struct Table {
    per_server: HashMap<AdbEndpoint, Vec<DeviceEntry>>,
    published: Vec<DeviceEntry>,
    health: HashMap<AdbEndpoint, Health>,
    /// Servers whose `track-devices` stream is connected and has delivered a listing: adb
    /// pushes every change on it, so their part of the table is current without asking.
    live: HashSet<AdbEndpoint>,
    features: HashMap<(AdbEndpoint, String), Arc<Vec<String>>>,
    /// Serial → screen size apps see, and when it was read (see [`Devices::screen_size`]).
    screens: HashMap<String, (Instant, (u32, u32))>,
}

pub(crate) struct Inner {
    pub(crate) servers: Vec<Arc<Server>>,
    pub(crate) timeouts: Timeouts,
    pub(crate) opts: DeviceOptions,
    table: Mutex<Table>,
    events: broadcast::Sender<DeviceEvent>,
    tracking: AtomicBool,
    pub(crate) shutdown: CancellationToken,
}

impl Drop for Inner {
    fn drop(&mut self) {
        self.shutdown.cancel();
    }
}

impl Inner {
    fn table(&self) -> MutexGuard<'_, Table> {
        // A panic elsewhere while holding it leaves plain data; keep serving.
        self.table.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn endpoints(&self) -> Vec<AdbEndpoint> {
        self.servers.iter().map(|s| s.ep.clone()).collect()
    }

    /// Replaces what `ep` reports and publishes the difference as events.
    pub(crate) fn set_devices(&self, ep: &AdbEndpoint, entries: Vec<DeviceEntry>) {
        let mut t = self.table();
        self.set_devices_locked(&mut t, ep, entries);
    }

    fn set_devices_locked(&self, t: &mut Table, ep: &AdbEndpoint, entries: Vec<DeviceEntry>) {
        t.per_server.insert(ep.clone(), entries);
        let mut all: Vec<DeviceEntry> = self
            .servers
            .iter()
            .flat_map(|s| t.per_server.get(&s.ep).cloned().unwrap_or_default())
            .collect();
        qualify(&mut all);
        let old = std::mem::take(&mut t.published);
        for gone in old
            .iter()
            .filter(|o| !all.iter().any(|n| n.serial == o.serial))
        {
            let _ = self.events.send(DeviceEvent::Removed {
                serial: gone.serial.clone(),
            });
        }
        for n in &all {
            match old.iter().find(|o| o.serial == n.serial) {
                None => drop(self.events.send(DeviceEvent::Added(n.clone()))),
                Some(o) if o != n => drop(self.events.send(DeviceEvent::Changed(n.clone()))),
                Some(_) => {}
            }
        }
        // Features belong to a connection of the device; a replug may bring another build.
        t.features.retain(|(e, raw), _| {
            all.iter().any(|d| {
                &d.server == e && &d.raw_serial == raw && d.state == listing::DeviceState::Device
            })
        });
        // A screen size survives only while its device stays exactly as it was.
        t.screens.retain(|serial, _| {
            all.iter().any(|n| {
                &n.serial == serial
                    && n.state == listing::DeviceState::Device
                    && old.iter().any(|o| o == n)
            })
        });
        t.published = all;
    }

    pub(crate) fn mark_up(&self, ep: &AdbEndpoint) {
        let mut t = self.table();
        if t.health.insert(ep.clone(), Health::Up) != Some(Health::Up) {
            let _ = self
                .events
                .send(DeviceEvent::ServerUp { server: ep.clone() });
        }
    }

    /// Records a dead server: its devices are gone until it answers again.
    pub(crate) fn mark_down(&self, ep: &AdbEndpoint, error: &str) {
        let mut t = self.table();
        t.live.remove(ep);
        let was = t.health.insert(ep.clone(), Health::Down(error.to_string()));
        if !matches!(was, Some(Health::Down(_))) {
            let _ = self.events.send(DeviceEvent::ServerDown {
                server: ep.clone(),
                error: error.to_string(),
            });
        }
        self.set_devices_locked(&mut t, ep, Vec::new());
    }

    /// A listing from `ep`'s tracking stream: the table now follows that server live.
    pub(crate) fn set_tracked_devices(&self, ep: &AdbEndpoint, entries: Vec<DeviceEntry>) {
        let mut t = self.table();
        self.set_devices_locked(&mut t, ep, entries);
        t.live.insert(ep.clone());
    }

    /// Every server's part of the table is kept current by its tracking stream.
    fn all_live(&self) -> bool {
        let t = self.table();
        self.servers.iter().all(|s| t.live.contains(&s.ep))
    }

    fn known(&self) -> Vec<String> {
        self.table()
            .published
            .iter()
            .map(|d| d.serial.clone())
            .collect()
    }
}

/// All configured adb servers and their devices. Cheap to clone.
#[derive(Clone)]
pub struct Devices {
    inner: Arc<Inner>,
}

impl Devices {
    pub fn new(servers: Vec<AdbEndpoint>, defaults: Timeouts) -> Self {
        Self::with_options(servers, defaults, DeviceOptions::default())
    }

    pub fn with_options(
        servers: Vec<AdbEndpoint>,
        timeouts: Timeouts,
        opts: DeviceOptions,
    ) -> Self {
        let mut eps: Vec<AdbEndpoint> = Vec::new();
        for s in servers {
            if !eps.contains(&s) {
                eps.push(s);
            }
        }
        if eps.is_empty() {
            eps.push(AdbEndpoint::local(super::endpoint::DEFAULT_PORT));
        }
        let servers = eps
            .into_iter()
            .map(|ep| {
                let auto = opts.autostart_local_server;
                Arc::new(Server::new(
                    ep,
                    auto,
                    timeouts.connect,
                    timeouts.start_server,
                ))
            })
            .collect();
        let (events, _) = broadcast::channel(256);
        Devices {
            inner: Arc::new(Inner {
                servers,
                timeouts,
                opts,
                table: Mutex::new(Table::default()),
                events,
                tracking: AtomicBool::new(false),
                shutdown: CancellationToken::new(),
            }),
        }
    }

    pub fn subscribe(&self) -> broadcast::Receiver<DeviceEvent> {
        self.inner.events.subscribe()
    }

    pub fn servers(&self) -> Vec<AdbEndpoint> {
        self.inner.endpoints()
    }

    /// Starts one `host:track-devices-l` watcher per server (idempotent; needs a tokio runtime).
    /// Each reconnects with backoff and ends when the last `Devices` clone is dropped.
    pub fn start_tracking(&self) {
        if self.inner.tracking.swap(true, Ordering::SeqCst) {
            return;
        }
        for s in &self.inner.servers {
            super::tracker::spawn(
                Arc::downgrade(&self.inner),
                s.clone(),
                self.inner.shutdown.clone(),
            );
        }
    }

    /// Asks every server now. A dead server is recorded (see [`Self::server_errors`]) and the
    /// others are still listed; only when no server answers is this an error.
    pub async fn list(&self) -> Result<Vec<DeviceEntry>, DeviceError> {
        let host = self.inner.timeouts.host;
        let asks = self.inner.servers.iter().map(|s| async move {
            let what = format!("listing devices on adb server {}", s.ep);
            (
                s,
                bounded(&what, host, s.host_query("host:devices-l")).await,
            )
        });
        let mut first_err = None;
        let mut answered = false;
        for (s, r) in futures::future::join_all(asks).await {
            match r {
                Ok(body) => {
                    answered = true;
                    self.inner.mark_up(&s.ep);
                    let entries = parse_devices(&String::from_utf8_lossy(&body), &s.ep);
                    self.inner.set_devices(&s.ep, entries);
                }
                Err(e) => {
                    self.inner.mark_down(&s.ep, &e.to_string());
                    first_err.get_or_insert(e);
                }
            }
        }
        match (answered, first_err) {
            (false, Some(e)) => Err(e),
            _ => Ok(self.snapshot()),
        }
    }

    /// The devices as they are now, for resolving a call's device: the table itself while every
    /// server's tracking stream is live (adb pushes each change there, so it is current and
    /// a call saves a `host:devices-l` round trip), else a fresh [`Self::list`].
    pub async fn current(&self) -> Result<Vec<DeviceEntry>, DeviceError> {
        if self.inner.all_live() {
            return Ok(self.snapshot());
        }
        self.list().await
    }

    /// How long a screen size read from a device is trusted (a `wm size` costs a device a Java
    /// process start, ~100 ms on a phone, on every tap otherwise).
    pub const SCREEN_SIZE_TTL: Duration = Duration::from_secs(10);

    /// `serial`'s screen size if one was read in the last [`Self::SCREEN_SIZE_TTL`] and the
    /// device has not left, replugged or changed state since.
    pub fn screen_size(&self, serial: &str) -> Option<(u32, u32)> {
        let t = self.inner.table();
        t.screens
            .get(serial)
            .filter(|(at, _)| at.elapsed() < Self::SCREEN_SIZE_TTL)
            .map(|(_, size)| *size)
    }

    pub fn remember_screen_size(&self, serial: &str, size: (u32, u32)) {
        self.inner
            .table()
            .screens
            .insert(serial.to_string(), (Instant::now(), size));
    }

    /// Forget `serial`'s screen size (a shell command may have changed it with `wm size`).
    pub fn forget_screen_size(&self, serial: &str) {
        self.inner.table().screens.remove(serial);
    }

    /// The last known devices (from tracking or the last `list`), without asking anyone.
    pub fn snapshot(&self) -> Vec<DeviceEntry> {
        self.inner.table().published.clone()
    }

    /// Servers whose last contact failed, with the failure as an agent-readable sentence.
    pub fn server_errors(&self) -> Vec<(AdbEndpoint, String)> {
        let t = self.inner.table();
        self.inner
            .servers
            .iter()
            .filter_map(|s| match t.health.get(&s.ep) {
                Some(Health::Down(e)) => Some((s.ep.clone(), e.clone())),
                _ => None,
            })
            .collect()
    }

    pub fn device(&self, serial: &str) -> Device {
        Device {
            name: serial.to_string(),
            inner: self.inner.clone(),
        }
    }

    /// `host:version` of `server` (adb's internal protocol version, e.g. 41).
    pub async fn server_version(&self, server: &AdbEndpoint) -> Result<u32, DeviceError> {
        let t = self.inner.timeouts;
        let temp;
        let s = match self.inner.servers.iter().find(|s| &s.ep == server) {
            Some(s) => s.as_ref(),
            None => {
                temp = Server::new(server.clone(), false, t.connect, t.start_server);
                &temp
            }
        };
        let what = format!("asking adb server {server} for its version");
        let body = bounded(&what, t.host, s.host_query("host:version")).await?;
        let text = String::from_utf8_lossy(&body);
        u32::from_str_radix(text.trim(), 16)
            .map_err(|_| DeviceError::Protocol(format!("{what}: got {text:?}")))
    }
}

/// A device by name; nothing is checked until it is used. Cheap to clone.
#[derive(Clone)]
pub struct Device {
    name: String,
    pub(crate) inner: Arc<Inner>,
}

impl Device {
    pub fn serial(&self) -> &str {
        &self.name
    }

    /// Which server holds this device, and its serial there.
    pub(crate) async fn resolve(&self) -> Result<(Arc<Server>, String), DeviceError> {
        let servers = &self.inner.servers;
        if let Some((raw, ep)) = split_qualified(&self.name, &self.inner.endpoints())
            && let Some(s) = servers.iter().find(|s| s.ep == ep)
        {
            return Ok((s.clone(), raw.to_string()));
        }
        if let [only] = servers.as_slice() {
            return Ok((only.clone(), self.name.clone()));
        }
        for attempt in 0..2 {
            let hits: Vec<DeviceEntry> = {
                let t = self.inner.table();
                t.published
                    .iter()
                    .filter(|d| d.raw_serial == self.name)
                    .cloned()
                    .collect()
            };
            match hits.as_slice() {
                [one] => {
                    let s = servers.iter().find(|s| s.ep == one.server);
                    if let Some(s) = s {
                        return Ok((s.clone(), one.raw_serial.clone()));
                    }
                }
                [] => {}
                many => {
                    return Err(DeviceError::Ambiguous {
                        serial: self.name.clone(),
                        candidates: many.iter().map(|d| d.serial.clone()).collect(),
                    });
                }
            }
            if attempt == 0 {
                // Unknown here: the table may just be stale. One fresh listing, then decide.
                let devices = Devices {
                    inner: self.inner.clone(),
                };
                devices.list().await?;
            }
        }
        Err(DeviceError::NoDevice {
            serial: self.name.clone(),
            known: self.inner.known(),
        })
    }

    /// Fills in what a bare "not found" lacks: the devices that do exist, freshly listed so
    /// the answer is true even before any listing or tracking filled the table.
    pub(crate) async fn explain(&self, e: DeviceError) -> DeviceError {
        match e {
            DeviceError::NoDevice { known, .. } if known.is_empty() => {
                let devices = Devices {
                    inner: self.inner.clone(),
                };
                let known = match devices.list().await {
                    Ok(list) => list.into_iter().map(|d| d.serial).collect(),
                    Err(_) => self.inner.known(),
                };
                DeviceError::NoDevice {
                    serial: self.name.clone(),
                    known,
                }
            }
            other => other,
        }
    }

    /// `host-serial:SERIAL:features`, cached per device until it leaves or changes state.
    pub async fn features(&self, timeout: Duration) -> Result<Vec<String>, DeviceError> {
        let what = format!("reading features of {}", self.name);
        bounded(&what, timeout, self.features_inner())
            .await
            .map(|f| f.as_ref().clone())
    }

    pub(crate) async fn features_inner(&self) -> Result<Arc<Vec<String>>, DeviceError> {
        let (server, raw) = self.resolve().await?;
        let key = (server.ep.clone(), raw.clone());
        if let Some(f) = self.inner.table().features.get(&key) {
            return Ok(f.clone());
        }
        let body = match server
            .host_query(&format!("host-serial:{raw}:features"))
            .await
        {
            Ok(b) => b,
            Err(e) => return Err(self.explain(map_transport_failure(&raw, e)).await),
        };
        let list: Vec<String> = String::from_utf8_lossy(&body)
            .trim()
            .split(',')
            .filter(|f| !f.is_empty())
            .map(str::to_string)
            .collect();
        let list = Arc::new(list);
        self.inner.table().features.insert(key, list.clone());
        Ok(list)
    }

    pub(crate) async fn has_feature(&self, name: &str) -> Result<bool, DeviceError> {
        Ok(self.features_inner().await?.iter().any(|f| f == name))
    }
}
