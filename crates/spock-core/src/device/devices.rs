//! The registry of adb servers and their devices: [`Devices`] (listing, tracking, events) and
//! [`Device`] handles (shell, exec, files), each call bounded by a timeout.
//!
//! Shared state is one short-held `std::sync::Mutex` around bookkeeping (the device table, server
//! health, feature cache); it is never held across I/O, so calls to different devices (or the
//! same one) run fully in parallel, each on its own adb connection.
//!
//! One host's trouble stays on that host. Once tracking runs, calls answer from the table: a
//! call to a device asks only that device's server, and never waits on another one. A server
//! that stops answering (stopped, crashed, frozen: it may still accept connections) is noticed by
//! its tracker (the stream ends, or a liveness probe gets no answer), re-probed by that tracker
//! alone with backoff, and its devices stay listed as `unreachable` with the server's error
//! rather than vanishing or being re-listed on every call.
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use serde::Serialize;
use tokio::sync::broadcast;
use tokio_util::sync::CancellationToken;

use super::endpoint::AdbEndpoint;
use super::error::{DeviceError, bounded};
use super::listing::{self, DeviceEntry, DeviceState, parse_devices, qualify, split_qualified};
use super::parse::getprop::DeviceProps;
use super::wire::{Server, map_transport_failure};

/// Bounds for calls that take no timeout argument (host queries, connecting, starting adb).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timeouts {
    pub connect: Duration,
    pub host: Duration,
    pub start_server: Duration,
    /// How long a server may take to answer a liveness probe (`host:version`, every `probe`
    /// while its tracking stream is quiet) or a first listing before it counts as not answering.
    pub probe: Duration,
}

impl Default for Timeouts {
    fn default() -> Self {
        Timeouts {
            connect: Duration::from_secs(3),
            host: Duration::from_secs(10),
            start_server: Duration::from_secs(20),
            probe: Duration::from_secs(2),
        }
    }
}

/// Knobs beyond timeouts; the defaults are what the program runs with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DeviceOptions {
    /// A call may start `adb -P PORT start-server` when a loopback endpoint refuses, as `adb`
    /// itself does (adb on PATH only). Only for the endpoint nobody named: whoever builds the
    /// [`Devices`] turns this off for endpoints given with `--adb` or in the config.
    pub autostart_local_server: bool,
    /// Most shell output (stdout + stderr) kept from one command before it fails TooLarge.
    pub shell_output_cap: usize,
    /// Read each device's build properties (`getprop`) once when it arrives, in the background.
    pub read_props: bool,
}

impl Default for DeviceOptions {
    fn default() -> Self {
        DeviceOptions {
            autostart_local_server: true,
            shell_output_cap: 64 << 20,
            read_props: true,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum DeviceEvent {
    Added(DeviceEntry),
    Changed(DeviceEntry),
    /// `serial` is the name it was listed under, `id` its full name.
    Removed {
        serial: String,
        id: String,
    },
    ServerDown {
        server: AdbEndpoint,
        error: String,
    },
    ServerUp {
        server: AdbEndpoint,
    },
}

/// A line a person reads in the log: "device sim-1 (Pixel 7) attached on 127.0.0.1:5037".
impl std::fmt::Display for DeviceEvent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let device = |e: &DeviceEntry| {
            let model = e
                .model
                .as_deref()
                .map(|m| format!(" ({})", m.replace('_', " ")))
                .unwrap_or_default();
            format!("{}{model}", e.id)
        };
        match self {
            DeviceEvent::Added(e) => write!(f, "device {} attached, {}", device(e), e.state),
            DeviceEvent::Changed(e) => write!(f, "device {} is now {}", device(e), e.state),
            DeviceEvent::Removed { id, .. } => write!(f, "device {id} detached"),
            DeviceEvent::ServerDown { server, error } => {
                write!(f, "adb server {server} is down: {error}")
            }
            DeviceEvent::ServerUp { server } => write!(f, "adb server {server} is up"),
        }
    }
}

/// How long a call addressing a device on a down server waits for that server's tracker to
/// try again right now (only when the tracker is between attempts, not in the middle of one).
const NUDGE_WAIT: Duration = Duration::from_secs(1);
/// How long a device's build properties may take to read when it arrives.
const PROPS_TIMEOUT: Duration = Duration::from_secs(5);
const PROPS_RETRY_MAX: Duration = Duration::from_secs(30);

#[derive(Debug, Clone, PartialEq, Eq, Default)]
enum Health {
    /// Not heard from yet (neither a listing nor a failure).
    #[default]
    Unknown,
    Up,
    Down(DeviceError),
}

#[derive(Default)]
struct ServerState {
    /// Its devices as last listed; kept (shown unreachable) while it is down.
    entries: Vec<DeviceEntry>,
    health: Health,
    /// Its tracking stream is connected and has delivered a listing.
    live: bool,
    /// Its tracker is trying to connect right now.
    attempting: bool,
    /// Tracker attempts that ended (either way), so a waiter can tell "it tried again".
    attempts: u64,
}

/// What is known about a device without asking it: its build properties, read once when it
/// arrived (and again when it reconnects), and whether it has stopped answering.
#[derive(Debug, Clone, Default)]
pub struct DeviceFacts {
    pub props: Option<DeviceProps>,
    /// Why the device counts as not answering (its last call or property read timed out), or
    /// None while it answers.
    pub not_answering: Option<String>,
    /// `/proc/sys/kernel/random/boot_id` as read with the properties: new at every boot of
    /// the device, the same through every name that reaches it (see [`Devices::identity`]).
    pub boot_id: Option<String>,
    transport_id: Option<u64>,
    /// A reader task owns this generation; a newer arrival bumps it, retiring the old reader.
    generation: u64,
    reading: bool,
}

#[derive(Default)]
struct Table {
    servers: HashMap<AdbEndpoint, ServerState>,
    published: Vec<DeviceEntry>,
    /// Raw serial → the server a bare serial means. Set when the serial is first seen on one
    /// server only, and moved only when a listing showing the new owner is handed out
    /// ([`Devices::names_shown`]): a bare serial never silently moves to another phone.
    owners: HashMap<String, AdbEndpoint>,
    features: HashMap<(AdbEndpoint, String), Arc<Vec<String>>>,
    /// Full name → screen size apps see, and when it was read (see [`Devices::screen_size`]).
    screens: HashMap<String, (Instant, (u32, u32))>,
    /// Full name → facts.
    facts: HashMap<String, DeviceFacts>,
    /// Full names ever listed, so a device that left is told apart from one never seen.
    seen: std::collections::HashSet<String>,
}

impl Table {
    fn state(&mut self, ep: &AdbEndpoint) -> &mut ServerState {
        self.servers.entry(ep.clone()).or_default()
    }

    fn health(&self, ep: &AdbEndpoint) -> Health {
        self.servers
            .get(ep)
            .map(|s| s.health.clone())
            .unwrap_or_default()
    }
}

/// How many apps [`Devices::saw_apps`] keeps per device.
pub const APPS_SEEN_PER_DEVICE: usize = 64;

pub(crate) struct Inner {
    pub(crate) servers: Vec<Arc<Server>>,
    pub(crate) timeouts: Timeouts,
    pub(crate) opts: DeviceOptions,
    table: Mutex<Table>,
    events: broadcast::Sender<DeviceEvent>,
    /// Rung on every change of server health or tracker attempt.
    changed: tokio::sync::Notify,
    tracking: AtomicBool,
    pub(crate) shutdown: CancellationToken,
    /// Screen generations and kept settle dumps, shared by every handle and client.
    pub(crate) screens: super::screens::ScreenLog,
    /// How fast each device answered raw and PNG screenshots (which to ask for next).
    pub(crate) shot_speed: super::screencap_format::ShotSpeed,
    /// The apps seen on each device (by its identity, else its full name) in the screens read
    /// from it: what the person picks from when limiting a device's Interact to some apps.
    apps_seen: Mutex<HashMap<String, BTreeSet<String>>>,
    /// Every command and its answer, while a capture records ([`Devices::record_to`]).
    pub(crate) recorder: std::sync::OnceLock<Arc<super::record::Recorder>>,
}

impl Drop for Inner {
    fn drop(&mut self) {
        self.shutdown.cancel();
    }
}

/// What a server's error says, as the detail of a "not answering" message.
pub(crate) fn server_detail(e: &DeviceError) -> String {
    match e {
        DeviceError::ServerUnreachable { detail, .. } => detail.clone(),
        DeviceError::Timeout { after, .. } => format!("no answer within {after:?}"),
        other => other.to_string(),
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

    fn server(&self, ep: &AdbEndpoint) -> Option<Arc<Server>> {
        self.servers.iter().find(|s| &s.ep == ep).cloned()
    }

    pub(crate) fn tracking(&self) -> bool {
        self.tracking.load(Ordering::SeqCst)
    }

    /// Replaces what `ep` reports (from a one-off listing) and publishes the difference.
    fn set_devices(self: &Arc<Self>, ep: &AdbEndpoint, entries: Vec<DeviceEntry>) {
        let fetch = {
            let mut t = self.table();
            t.state(ep).entries = entries;
            self.publish_locked(&mut t)
        };
        self.read_props(fetch);
    }

    /// Recomputes the published list from every server's part, names included, and sends the
    /// differences as events. Returns the devices whose properties should be read now.
    fn publish_locked(&self, t: &mut Table) -> Vec<(String, u64)> {
        let mut all: Vec<DeviceEntry> = Vec::new();
        for s in &self.servers {
            let Some(st) = t.servers.get(&s.ep) else {
                continue;
            };
            let down = matches!(st.health, Health::Down(_));
            all.extend(st.entries.iter().cloned().map(|mut e| {
                if down {
                    e.state = DeviceState::Unreachable;
                }
                e
            }));
        }
        qualify(&mut all);
        // A serial seen on one server only is bound to it, unless it is bound already.
        for e in &all {
            if all
                .iter()
                .all(|o| o.raw_serial != e.raw_serial || o.server == e.server)
            {
                t.owners
                    .entry(e.raw_serial.clone())
                    .or_insert_with(|| e.server.clone());
            }
        }
        t.seen.extend(all.iter().map(|e| e.id.clone()));
        let old = std::mem::take(&mut t.published);
        for gone in old.iter().filter(|o| !all.iter().any(|n| n.id == o.id)) {
            let _ = self.events.send(DeviceEvent::Removed {
                serial: gone.serial.clone(),
                id: gone.id.clone(),
            });
        }
        for n in &all {
            match old.iter().find(|o| o.id == n.id) {
                None => drop(self.events.send(DeviceEvent::Added(n.clone()))),
                Some(o) if o != n => drop(self.events.send(DeviceEvent::Changed(n.clone()))),
                Some(_) => {}
            }
        }
        // Features belong to a connection of the device; a replug may bring another build.
        t.features.retain(|(e, raw), _| {
            all.iter()
                .any(|d| &d.server == e && &d.raw_serial == raw && d.state == DeviceState::Device)
        });
        // A screen size survives only while its device stays exactly as it was.
        t.screens.retain(|id, _| {
            all.iter().any(|n| {
                &n.id == id && n.state == DeviceState::Device && old.iter().any(|o| o == n)
            })
        });
        // Facts stay while the device is listed (unreachable included); a new connection of it
        // (another transport id) is read again.
        t.facts.retain(|id, _| all.iter().any(|n| &n.id == id));
        let mut fetch = Vec::new();
        if self.opts.read_props {
            for n in all.iter().filter(|n| n.state == DeviceState::Device) {
                let f = t.facts.entry(n.id.clone()).or_default();
                let replugged = f.transport_id != n.transport_id;
                if replugged || (f.props.is_none() && !f.reading) {
                    f.generation += 1;
                    f.transport_id = n.transport_id;
                    f.props = None;
                    f.reading = true;
                    fetch.push((n.id.clone(), f.generation));
                }
            }
        }
        t.published = all;
        fetch
    }

    /// Starts one background property read per device in `fetch`.
    fn read_props(self: &Arc<Self>, fetch: Vec<(String, u64)>) {
        if fetch.is_empty() {
            return;
        }
        let Ok(rt) = tokio::runtime::Handle::try_current() else {
            return;
        };
        for (id, generation) in fetch {
            rt.spawn(read_props_task(
                Arc::downgrade(self),
                self.shutdown.clone(),
                id,
                generation,
            ));
        }
    }

    fn mark_up_locked(&self, t: &mut Table, ep: &AdbEndpoint) {
        let st = t.state(ep);
        if st.health != Health::Up {
            st.health = Health::Up;
            let _ = self
                .events
                .send(DeviceEvent::ServerUp { server: ep.clone() });
        }
    }

    pub(crate) fn mark_up(&self, ep: &AdbEndpoint) {
        let mut t = self.table();
        self.mark_up_locked(&mut t, ep);
        drop(t);
        self.changed.notify_waiters();
    }

    /// Records a server that is not answering: its devices stay listed, as unreachable.
    pub(crate) fn mark_down(self: &Arc<Self>, ep: &AdbEndpoint, error: DeviceError) {
        let mut t = self.table();
        let st = t.state(ep);
        st.live = false;
        st.attempting = false;
        st.attempts += 1;
        let was_down = matches!(st.health, Health::Down(_));
        let text = server_detail(&error);
        st.health = Health::Down(error);
        if !was_down {
            tracing::warn!(server = %ep, "adb server is not answering: {text}");
            let _ = self.events.send(DeviceEvent::ServerDown {
                server: ep.clone(),
                error: text,
            });
        }
        let fetch = self.publish_locked(&mut t);
        drop(t);
        self.changed.notify_waiters();
        self.read_props(fetch);
    }

    /// The tracker is about to try connecting to `ep`.
    pub(crate) fn begin_attempt(&self, ep: &AdbEndpoint) {
        self.table().state(ep).attempting = true;
    }

    /// A listing from `ep`'s tracking stream: the table now follows that server live.
    pub(crate) fn set_tracked_devices(
        self: &Arc<Self>,
        ep: &AdbEndpoint,
        entries: Vec<DeviceEntry>,
    ) {
        let mut t = self.table();
        self.mark_up_locked(&mut t, ep);
        let st = t.state(ep);
        if !st.live {
            st.live = true;
            st.attempting = false;
            st.attempts += 1;
        }
        st.entries = entries;
        let fetch = self.publish_locked(&mut t);
        drop(t);
        self.changed.notify_waiters();
        self.read_props(fetch);
    }

    fn published_names(&self) -> Vec<String> {
        self.table()
            .published
            .iter()
            .map(|d| d.serial.clone())
            .collect()
    }

    /// Which listed device `name` means, by the table as it is. A full name always means that
    /// device; a bare serial means the one device with that serial, and is refused when several
    /// servers have it, or when the device it meant is gone and another has the same serial.
    /// An unreachable device is returned (state [`DeviceState::Unreachable`]); callers decide.
    fn lookup(&self, name: &str) -> Result<DeviceEntry, DeviceError> {
        let t = self.table();
        if let Some((raw, ep)) = split_qualified(name, &self.endpoints()) {
            let id = listing::qualified(raw, &ep);
            if let Some(e) = t.published.iter().find(|d| d.id == id) {
                return Ok(e.clone());
            }
            if let Health::Down(e) = t.health(&ep) {
                return Err(DeviceError::DeviceUnreachable {
                    device: id,
                    server: ep.to_string(),
                    detail: server_detail(&e),
                });
            }
            if !t.seen.contains(&id) {
                return Err(DeviceError::NoDevice {
                    serial: id,
                    known: t.published.iter().map(|d| d.serial.clone()).collect(),
                });
            }
            return Err(DeviceError::Detached {
                device: id,
                server: ep.to_string(),
                elsewhere: t
                    .published
                    .iter()
                    .filter(|d| d.raw_serial == raw)
                    .map(|d| d.id.clone())
                    .collect(),
            });
        }
        let hits: Vec<&DeviceEntry> = t
            .published
            .iter()
            .filter(|d| d.raw_serial == name)
            .collect();
        let owner = t.owners.get(name);
        match hits.as_slice() {
            [one] => match owner {
                // It meant a device on another server, which left: never this one silently.
                Some(o) if o != &one.server => Err(DeviceError::Detached {
                    device: listing::qualified(name, o),
                    server: o.to_string(),
                    elsewhere: vec![one.id.clone()],
                }),
                _ => Ok((*one).clone()),
            },
            [] => match owner {
                Some(o) => Err(DeviceError::Detached {
                    device: listing::qualified(name, o),
                    server: o.to_string(),
                    elsewhere: Vec::new(),
                }),
                None => Err(DeviceError::NoDevice {
                    serial: name.to_string(),
                    known: t.published.iter().map(|d| d.serial.clone()).collect(),
                }),
            },
            many => Err(DeviceError::Ambiguous {
                serial: name.to_string(),
                candidates: many.iter().map(|d| d.id.clone()).collect(),
            }),
        }
    }

    fn unreachable_error(&self, e: &DeviceEntry) -> DeviceError {
        let detail = match self.table().health(&e.server) {
            Health::Down(err) => server_detail(&err),
            _ => "it is not answering".to_string(),
        };
        DeviceError::DeviceUnreachable {
            device: e.id.clone(),
            server: e.server.to_string(),
            detail,
        }
    }

    /// Records how a call on device `id` ended: a timeout marks it not answering (shown in
    /// listings), any completed exchange marks it answering again.
    pub(crate) fn note_outcome<T>(&self, id: &str, r: &Result<T, DeviceError>) {
        let mut t = self.table();
        let Some(f) = t.facts.get_mut(id) else {
            return;
        };
        match r {
            Ok(_) => f.not_answering = None,
            Err(DeviceError::Timeout { what, after }) => {
                f.not_answering = Some(format!("{what} got no answer within {after:?}"))
            }
            Err(_) => {}
        }
    }
}

/// Reads `id`'s build properties (`getprop`, bounded by [`PROPS_TIMEOUT`]), retrying with
/// backoff while it does not answer, for as long as the same connection of it is listed.
async fn read_props_task(
    inner: std::sync::Weak<Inner>,
    stop: CancellationToken,
    id: String,
    generation: u64,
) {
    let mut backoff = Duration::from_secs(2);
    loop {
        let Some(strong) = inner.upgrade() else {
            return;
        };
        let current = |t: &Table| {
            t.facts.get(&id).is_some_and(|f| f.generation == generation)
                && t.published
                    .iter()
                    .any(|d| d.id == id && d.state == DeviceState::Device)
        };
        if !current(&strong.table()) {
            if let Some(f) = strong.table().facts.get_mut(&id)
                && f.generation == generation
            {
                f.reading = false;
            }
            return;
        }
        let dev = Device {
            name: id.clone(),
            transport_id: None,
            inner: strong.clone(),
        };
        let read = async {
            let props = dev.shell("getprop", PROPS_TIMEOUT).await?;
            let boot = if props.success() {
                dev.shell(&format!("cat {}", super::identity::BOOT_ID), PROPS_TIMEOUT)
                    .await
                    .ok()
                    .filter(|o| o.success())
                    .and_then(|o| super::identity::boot_id_of(&o.stdout_text()))
            } else {
                None
            };
            Ok::<_, DeviceError>((props, boot))
        };
        let r = tokio::select! {
            r = read => r,
            _ = stop.cancelled() => return,
        };
        drop(dev);
        {
            let mut t = strong.table();
            let Some(f) = t.facts.get_mut(&id).filter(|f| f.generation == generation) else {
                return;
            };
            match r {
                Ok((out, boot)) if out.success() => {
                    let map = super::parse::getprop::parse(&out.stdout_text());
                    f.props = Some(DeviceProps::from_map(&map));
                    f.boot_id = boot;
                    f.reading = false;
                    return;
                }
                Ok((out, _)) => {
                    tracing::debug!(device = %id, "getprop exited {}", out.exit_code);
                }
                Err(e) => {
                    tracing::debug!(device = %id, "reading build properties: {e}");
                }
            }
        }
        drop(strong);
        tokio::select! {
            _ = tokio::time::sleep(backoff) => {}
            _ = stop.cancelled() => return,
        }
        backoff = (backoff * 2).min(PROPS_RETRY_MAX);
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
                changed: tokio::sync::Notify::new(),
                tracking: AtomicBool::new(false),
                shutdown: CancellationToken::new(),
                screens: super::screens::ScreenLog::default(),
                shot_speed: super::screencap_format::ShotSpeed::default(),
                apps_seen: Mutex::default(),
                recorder: std::sync::OnceLock::new(),
            }),
        }
    }

    pub fn subscribe(&self) -> broadcast::Receiver<DeviceEvent> {
        self.inner.events.subscribe()
    }

    pub fn servers(&self) -> Vec<AdbEndpoint> {
        self.inner.endpoints()
    }

    /// Each adb server that is down now, with why and what to do (the error's own sentence):
    /// what Status shows when no device is listed.
    pub fn server_problems(&self) -> Vec<String> {
        let t = self.inner.table();
        self.inner
            .endpoints()
            .into_iter()
            .filter_map(|ep| match t.servers.get(&ep).map(|s| &s.health) {
                Some(Health::Down(e)) => Some(e.to_string()),
                _ => None,
            })
            .collect()
    }

    /// Starts one `host:track-devices-l` watcher per server (idempotent; needs a tokio runtime).
    /// Each reconnects with backoff and ends when the last `Devices` clone is dropped. From
    /// then on calls answer from the table these keep current.
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

    /// The devices now. Once tracking runs this is the table (a server not heard from yet is
    /// asked once, bounded by [`Timeouts::probe`]; a down server's devices are listed as
    /// unreachable), so it never waits on a server that does not answer. Before tracking, every
    /// server is asked now. Only when no server answers is this an error.
    pub async fn list(&self) -> Result<Vec<DeviceEntry>, DeviceError> {
        if !self.inner.tracking() {
            return self.list_now().await;
        }
        self.settle(None).await;
        if self.first_down_if_none_up().is_some() {
            // Nothing answers: the only useful wait is for a server to come back right now.
            self.nudge_and_wait(None).await;
        }
        match self.first_down_if_none_up() {
            Some(e) => Err(e),
            None => Ok(self.snapshot()),
        }
    }

    /// Asks every server now (each bounded by the host timeout), in parallel.
    async fn list_now(&self) -> Result<Vec<DeviceEntry>, DeviceError> {
        let host = self.inner.timeouts.host;
        let asks = self
            .inner
            .servers
            .iter()
            .map(|s| self.list_one(s.clone(), host));
        futures::future::join_all(asks).await;
        match self.first_down_if_none_up() {
            Some(e) => Err(e),
            None => Ok(self.snapshot()),
        }
    }

    /// One `host:devices-l` of `s`, bounded by `bound`, recorded in the table.
    async fn list_one(&self, s: Arc<Server>, bound: Duration) {
        let what = format!("listing devices on adb server {}", s.ep);
        match bounded(&what, bound, s.host_query("host:devices-l")).await {
            Ok(body) => {
                self.inner.mark_up(&s.ep);
                let entries = parse_devices(&String::from_utf8_lossy(&body), &s.ep);
                self.inner.set_devices(&s.ep, entries);
            }
            Err(e) => {
                let e = match e {
                    DeviceError::Timeout { after, .. } => DeviceError::ServerUnreachable {
                        server: s.ep.to_string(),
                        detail: format!(
                            "it accepted the connection but did not answer within {after:?}"
                        ),
                    },
                    other => other,
                };
                self.inner.mark_down(&s.ep, e)
            }
        }
    }

    /// With tracking: makes sure the servers a call may need have been heard from. A server
    /// not heard from yet (start-up) is listed once, bounded by [`Timeouts::probe`]; the default
    /// local endpoint, when down, gets the start `adb` itself would do on a command. Servers
    /// that are down otherwise are left to their trackers.
    async fn settle(&self, only: Option<&AdbEndpoint>) {
        let todo: Vec<Arc<Server>> = self
            .inner
            .servers
            .iter()
            .filter(|s| only.is_none_or(|ep| &s.ep == ep))
            .cloned()
            .collect();
        let probe = self.inner.timeouts.probe;
        let host = self.inner.timeouts.host;
        let start = self.inner.timeouts.start_server;
        futures::future::join_all(todo.into_iter().map(|s| async move {
            let health = self.inner.table().health(&s.ep);
            match health {
                Health::Unknown => {
                    let _one = s.first_listing.lock().await;
                    if self.inner.table().health(&s.ep) == Health::Unknown {
                        // The default endpoint may need a server started first (as adb would).
                        let bound = if s.may_autostart() {
                            host + start
                        } else {
                            probe
                        };
                        self.list_one(s.clone(), bound).await;
                    }
                }
                Health::Down(_) if s.may_autostart() => {
                    let _one = s.first_listing.lock().await;
                    if !matches!(self.inner.table().health(&s.ep), Health::Down(_)) {
                        return;
                    }
                    // A call connects the way `adb` does: a refused default port gets a server.
                    let started = bounded("connecting", host, s.connect()).await.is_ok();
                    if started {
                        s.wake.notify_one();
                        self.list_one(s.clone(), host).await;
                    }
                }
                _ => {}
            }
        }))
        .await;
    }

    /// When no server is up: the first down server's error (in configuration order).
    fn first_down_if_none_up(&self) -> Option<DeviceError> {
        let t = self.inner.table();
        let healths: Vec<Health> = self.inner.servers.iter().map(|s| t.health(&s.ep)).collect();
        if healths.contains(&Health::Up) {
            return None;
        }
        healths.into_iter().find_map(|h| match h {
            Health::Down(e) => Some(e),
            _ => None,
        })
    }

    /// Wakes the trackers of down servers (all, or `only`) that are waiting out their backoff,
    /// and waits up to [`NUDGE_WAIT`] for one of them to answer or for each to have tried.
    /// A tracker in the middle of an attempt (e.g. on a frozen server) is not waited for.
    async fn nudge_and_wait(&self, only: Option<&AdbEndpoint>) {
        let targets: Vec<(Arc<Server>, u64)> = {
            let t = self.inner.table();
            self.inner
                .servers
                .iter()
                .filter(|s| only.is_none_or(|ep| &s.ep == ep))
                .filter_map(|s| {
                    let st = t.servers.get(&s.ep)?;
                    (matches!(st.health, Health::Down(_)) && !st.attempting)
                        .then(|| (s.clone(), st.attempts))
                })
                .collect()
        };
        if targets.is_empty() {
            return;
        }
        for (s, _) in &targets {
            s.wake.notify_one();
        }
        let _ = tokio::time::timeout(NUDGE_WAIT, async {
            loop {
                let notified = self.inner.changed.notified();
                tokio::pin!(notified);
                notified.as_mut().enable();
                {
                    let t = self.inner.table();
                    let states: Vec<Option<&ServerState>> =
                        targets.iter().map(|(s, _)| t.servers.get(&s.ep)).collect();
                    let any_up = states
                        .iter()
                        .any(|st| st.is_some_and(|st| st.health == Health::Up));
                    let all_tried = states
                        .iter()
                        .zip(&targets)
                        .all(|(st, (_, n))| st.is_some_and(|st| st.attempts > *n));
                    if any_up || all_tried {
                        return;
                    }
                }
                notified.await;
            }
        })
        .await;
    }

    /// The listed device `name` means, ready for a call: see [`Inner::lookup`] for names. With
    /// tracking this reads the table (asking only the device's own server, and only when it was
    /// never heard from); a device whose server is down fails at once as unreachable, after
    /// giving that server's tracker one immediate retry when it was between attempts.
    pub async fn find(&self, name: &str) -> Result<DeviceEntry, DeviceError> {
        if !self.inner.tracking() {
            return match self.inner.lookup(name) {
                Ok(e) => Ok(e),
                Err(_) => {
                    self.list_now().await?;
                    self.inner.lookup(name)
                }
            };
        }
        let only = split_qualified(name, &self.inner.endpoints()).map(|(_, ep)| ep);
        self.settle(only.as_ref()).await;
        let mut entry = self.inner.lookup(name);
        let down_server = match &entry {
            Ok(e) if e.state == DeviceState::Unreachable => Some(e.server.clone()),
            Err(DeviceError::DeviceUnreachable { .. }) => only.clone(),
            _ => None,
        };
        if let Some(ep) = down_server {
            self.nudge_and_wait(Some(&ep)).await;
            entry = self.inner.lookup(name);
        }
        match entry {
            Ok(e) if e.state == DeviceState::Unreachable => Err(self.inner.unreachable_error(&e)),
            // Nothing known and no server answering: that is the news, not the missing name.
            Err(DeviceError::NoDevice { .. }) if self.first_down_if_none_up().is_some() => {
                self.nudge_and_wait(None).await;
                match (self.first_down_if_none_up(), self.inner.lookup(name)) {
                    (Some(down), Err(DeviceError::NoDevice { .. })) => Err(down),
                    (_, other) => other,
                }
            }
            other => other,
        }
    }

    /// [`Self::find`] by the table as it is, without asking anyone (e.g. to refuse an ambiguous
    /// serial before a person is asked to approve a call).
    pub fn find_now(&self, name: &str) -> Result<DeviceEntry, DeviceError> {
        self.inner.lookup(name)
    }

    /// Equivalent to [`Self::list`]: the devices as they are now, for resolving a call's device.
    pub async fn current(&self) -> Result<Vec<DeviceEntry>, DeviceError> {
        self.list().await
    }

    /// A listing was handed out: the short names it showed now mean what it showed. (A bare
    /// serial whose device left and came back on another server is refused until then.)
    pub fn names_shown(&self, shown: &[DeviceEntry]) {
        let mut t = self.inner.table();
        for e in shown.iter().filter(|e| e.serial == e.raw_serial) {
            t.owners.insert(e.raw_serial.clone(), e.server.clone());
        }
    }

    /// How long a screen size read from a device is trusted (a `wm size` costs a device a Java
    /// process start, ~100 ms on a phone, on every tap otherwise).
    pub const SCREEN_SIZE_TTL: Duration = Duration::from_secs(10);

    /// `serial`'s screen size if one was read in the last [`Self::SCREEN_SIZE_TTL`] and the
    /// device has not left, replugged or changed state since. Keyed by full name.
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

    /// What is known about device `id` (full name) without asking it.
    pub fn facts(&self, id: &str) -> Option<DeviceFacts> {
        self.inner.table().facts.get(id).cloned()
    }

    /// Who device `id` (full name) is, whatever name reaches it ([`super::identity`]), as read
    /// when it arrived; `None` when it could not be read (not yet, or never).
    pub fn identity(&self, id: &str) -> Option<String> {
        let f = self.facts(id)?;
        let p = f.props?;
        super::identity::of(
            p.fingerprint.as_deref(),
            p.serialno.as_deref(),
            f.boot_id.as_deref(),
        )
    }

    /// The apps on a screen read from device `id` (full name): kept for the person's
    /// Settings, at most [`APPS_SEEN_PER_DEVICE`] per device.
    pub fn saw_apps<'a>(&self, id: &str, packages: impl IntoIterator<Item = &'a str>) {
        let key = self.identity(id).unwrap_or_else(|| id.to_string());
        let mut seen = self
            .inner
            .apps_seen
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        let apps = seen.entry(key).or_default();
        for p in packages {
            if apps.len() >= APPS_SEEN_PER_DEVICE {
                break;
            }
            if !p.is_empty() && !apps.contains(p) {
                apps.insert(p.to_string());
            }
        }
    }

    /// Record every command sent to any device from now on, with its answer and timing,
    /// into `r` (once per [`Devices`]: a second recorder is refused).
    pub fn record_to(&self, r: Arc<super::record::Recorder>) -> bool {
        self.inner.recorder.set(r).is_ok()
    }

    /// The apps seen on each device so far ([`Devices::saw_apps`]), by identity.
    pub fn apps_seen(&self) -> BTreeMap<String, Vec<String>> {
        let seen = self
            .inner
            .apps_seen
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        seen.iter()
            .map(|(k, v)| (k.clone(), v.iter().cloned().collect()))
            .collect()
    }

    /// [`Devices::identity`], waiting (at most `bound`) while the device's properties are
    /// still being read, so a device that just arrived is not taken for a stranger.
    pub async fn identity_settled(&self, id: &str, bound: Duration) -> Option<String> {
        let deadline = Instant::now() + bound;
        loop {
            let reading = self
                .facts(id)
                .is_some_and(|f| f.reading && f.props.is_none() && f.not_answering.is_none());
            if !reading || Instant::now() >= deadline {
                return self.identity(id);
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// Waits (at most `bound`) for property reads of devices that just arrived, so a listing
    /// right after start-up is complete; a device that does not answer never holds it longer.
    pub async fn props_settled(&self, bound: Duration) {
        let deadline = Instant::now() + bound;
        while Instant::now() < deadline {
            let reading = self
                .inner
                .table()
                .facts
                .values()
                .any(|f| f.reading && f.props.is_none() && f.not_answering.is_none());
            if !reading {
                return;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// Servers whose last contact failed, with the failure as an agent-readable sentence.
    pub fn server_errors(&self) -> Vec<(AdbEndpoint, String)> {
        let t = self.inner.table();
        self.inner
            .servers
            .iter()
            .filter_map(|s| match t.health(&s.ep) {
                Health::Down(e) => Some((s.ep.clone(), e.to_string())),
                _ => None,
            })
            .collect()
    }

    /// What spock-tui did to adb servers on its own that a person should know about (an adb
    /// server started on the default endpoint).
    pub fn notes(&self) -> Vec<String> {
        self.inner
            .servers
            .iter()
            .filter_map(|s| s.started_note())
            .collect()
    }

    pub fn device(&self, serial: &str) -> Device {
        Device {
            name: serial.to_string(),
            transport_id: None,
            inner: self.inner.clone(),
        }
    }

    /// A handle pinned to exactly the connection `entry` lists: its full name, and its adb
    /// `transport_id` when adb gave one. Every use opens that transport (`host:transport-id:N`);
    /// once it is gone, uses fail with [`DeviceError::PinnedGone`] instead of reaching a device
    /// that took the name since (a selection change, another phone under the same serial).
    pub fn pinned(&self, entry: &DeviceEntry) -> Device {
        Device {
            name: entry.id.clone(),
            transport_id: entry.transport_id,
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

    /// Raw serials of the devices `server` had attached with `adb connect` (TCP transports,
    /// named `host:port`), as last listed.
    pub fn connected_over_tcp(&self, server: &AdbEndpoint) -> Vec<String> {
        let t = self.inner.table();
        t.servers
            .get(server)
            .map(|st| {
                st.entries
                    .iter()
                    .map(|e| e.raw_serial.clone())
                    .filter(|s| is_tcp_serial(s))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Restarts the local adb server `server` (`adb -P PORT kill-server`, or `-L
    /// localfilesystem:PATH`, then `start-server`),
    /// then reconnects the devices it had attached with `adb connect`. Refuses a remote server.
    /// Only `spock_restart_adb_server`, which a person approves, calls this.
    pub async fn restart_local_server(
        &self,
        server: &AdbEndpoint,
    ) -> Result<Restarted, DeviceError> {
        if !server.is_local() {
            return Err(DeviceError::Adb(format!(
                "{server} is not on this machine: a remote adb server is restarted on its own machine"
            )));
        }
        let adb = super::endpoint::find_adb().ok_or_else(|| {
            DeviceError::Adb("no `adb` binary on PATH to start the server again".into())
        })?;
        // What it has attached now, not what was last listed (nothing may have listed yet).
        let _ = self.list().await;
        let reconnect = self.connected_over_tcp(server);
        let attempts_before = self.inner.table().state(server).attempts;
        let named = server.adb_args();
        let limit = self.inner.timeouts.start_server;
        let run = |what: &str| {
            let mut cmd = tokio::process::Command::new(&adb);
            cmd.args(&named)
                .arg(what)
                .env("ADB_EMU", "0")
                .env_remove("ADB_SERVER_SOCKET")
                .stdin(std::process::Stdio::null())
                .kill_on_drop(true);
            async move { tokio::time::timeout(limit, cmd.output()).await }
        };
        let _ = run("kill-server").await;
        // kill-server returns while the old server may still hold its socket for a moment; a
        // start-server then talks to the dying one ("protocol fault").
        let gone_by = Instant::now() + limit;
        while Instant::now() < gone_by && still_answers(server).await {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        match run("start-server").await {
            Ok(Ok(o)) if o.status.success() => {}
            Ok(Ok(o)) => {
                return Err(DeviceError::Adb(format!(
                    "adb start-server on {server} failed: {}",
                    String::from_utf8_lossy(&o.stderr).trim()
                )));
            }
            Ok(Err(e)) => return Err(DeviceError::Adb(format!("could not run adb: {e}"))),
            Err(_) => {
                return Err(DeviceError::timeout(
                    format!("adb start-server on {server}"),
                    limit,
                ));
            }
        }
        tracing::info!(server = %server, "adb server restarted (approved); reconnecting {} device(s) attached with adb connect", reconnect.len());
        let temp;
        let s = match self.inner.server(server) {
            Some(s) => s,
            None => {
                let t = self.inner.timeouts;
                temp = Arc::new(Server::new(
                    server.clone(),
                    false,
                    t.connect,
                    t.start_server,
                ));
                temp
            }
        };
        let host = self.inner.timeouts.host;
        let results = futures::future::join_all(reconnect.iter().map(|serial| {
            let s = s.clone();
            async move {
                let what = format!("adb connect {serial}");
                let r = bounded(
                    &what,
                    host,
                    s.host_query_quiet(&format!("host:connect:{serial}")),
                )
                .await;
                match r {
                    Ok(b) => {
                        let text = String::from_utf8_lossy(&b).trim().to_string();
                        let ok = text.contains("connected to");
                        (serial.clone(), ok, text)
                    }
                    Err(e) => (serial.clone(), false, e.to_string()),
                }
            }
        }))
        .await;
        let mut out = Restarted {
            server: server.to_string(),
            reconnected: Vec::new(),
            not_reconnected: Vec::new(),
        };
        for (serial, ok, text) in results {
            if ok {
                out.reconnected.push(serial);
            } else {
                out.not_reconnected.push(format!("{serial}: {text}"));
            }
        }
        // The tracker picks the new server up now rather than after its backoff, and the table
        // follows the new server (its stream pushes the reconnected devices) before we answer.
        s.wake.notify_one();
        if self.inner.tracking() {
            let _ = tokio::time::timeout(host, async {
                loop {
                    let notified = self.inner.changed.notified();
                    tokio::pin!(notified);
                    notified.as_mut().enable();
                    {
                        let mut t = self.inner.table();
                        let st = t.state(server);
                        // Down once (the old stream ended), then live again.
                        if st.live && st.attempts >= attempts_before + 2 {
                            return;
                        }
                    }
                    s.wake.notify_one();
                    notified.await;
                }
            })
            .await;
        }
        Ok(out)
    }
}

/// What [`Devices::restart_local_server`] did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Restarted {
    pub server: String,
    /// Raw serials reconnected with `adb connect`.
    pub reconnected: Vec<String>,
    /// `serial: why` for those that did not come back.
    pub not_reconnected: Vec<String>,
}

/// `host:port` (or `[v6]:port`): how adb names a device attached with `adb connect`.
fn is_tcp_serial(s: &str) -> bool {
    s.parse::<std::net::SocketAddr>().is_ok()
        || s.rsplit_once(':').is_some_and(|(h, p)| {
            !h.is_empty()
                && !h.contains(':')
                && p.parse::<u16>().is_ok_and(|p| p > 0)
                && h.chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-')
        })
}

/// A device by name; nothing is checked until it is used. Cheap to clone.
#[derive(Clone)]
pub struct Device {
    name: String,
    /// Set on handles from [`Devices::pinned`]: only this connection of the device.
    transport_id: Option<u64>,
    pub(crate) inner: Arc<Inner>,
}

/// Where a call goes: the server and the device's serial there (and, for a pinned handle, the
/// one transport of it).
pub(crate) struct Target {
    pub server: Arc<Server>,
    pub raw: String,
    pub transport_id: Option<u64>,
}

impl Target {
    pub fn id(&self) -> String {
        listing::qualified(&self.raw, &self.server.ep)
    }
}

impl Device {
    /// The name this handle was made with: the full name `serial@host:port` for devices a tool
    /// call resolved (see [`Devices::find`]).
    pub fn serial(&self) -> &str {
        &self.name
    }

    /// The adb transport this handle is pinned to, if any (see [`Devices::pinned`]).
    pub fn transport_id(&self) -> Option<u64> {
        self.transport_id
    }

    /// For a pinned handle: the entry the table lists under its name must still be the same
    /// connection. A device that left, or a new connection (another phone, or the same one
    /// reconnected) under the name, is [`DeviceError::PinnedGone`].
    fn check_pin(
        &self,
        found: Result<DeviceEntry, DeviceError>,
    ) -> Result<DeviceEntry, DeviceError> {
        let Some(id) = self.transport_id else {
            return found;
        };
        let gone = |now: Option<String>| DeviceError::PinnedGone {
            device: self.name.clone(),
            transport_id: id,
            now,
        };
        match found {
            Ok(e) if e.transport_id.is_none_or(|t| t == id) => Ok(e),
            Ok(e) => Err(gone(Some(match e.transport_id {
                Some(t) => format!("{} (transport_id {t})", e.id),
                None => e.id,
            }))),
            Err(DeviceError::NoDevice { .. } | DeviceError::Detached { .. }) => Err(gone(None)),
            Err(other) => Err(other),
        }
    }

    /// Which server holds this device, and its serial there.
    pub(crate) async fn resolve(&self) -> Result<Target, DeviceError> {
        let servers = &self.inner.servers;
        let devices = Devices {
            inner: self.inner.clone(),
        };
        if self.inner.tracking() {
            let e = self.check_pin(devices.find(&self.name).await)?;
            let server = self
                .inner
                .server(&e.server)
                .ok_or_else(|| DeviceError::Protocol(format!("no server {}", e.server)))?;
            return Ok(Target {
                server,
                raw: e.raw_serial,
                transport_id: self.transport_id,
            });
        }
        // Without tracking (one-shot tools such as doctor, tests): adb answers for the device.
        if let Some((raw, ep)) = split_qualified(&self.name, &self.inner.endpoints())
            && let Some(s) = servers.iter().find(|s| s.ep == ep)
        {
            return Ok(Target {
                server: s.clone(),
                raw: raw.to_string(),
                transport_id: self.transport_id,
            });
        }
        if let [only] = servers.as_slice() {
            return Ok(Target {
                server: only.clone(),
                raw: self.name.clone(),
                transport_id: self.transport_id,
            });
        }
        let e = self.check_pin(devices.find(&self.name).await)?;
        let server = self
            .inner
            .server(&e.server)
            .ok_or_else(|| DeviceError::Protocol(format!("no server {}", e.server)))?;
        Ok(Target {
            server,
            raw: e.raw_serial,
            transport_id: self.transport_id,
        })
    }

    /// Fills in what a bare "not found" from adb lacks: the devices that do exist (the table
    /// with tracking; else freshly listed, so the answer is true before anything filled it).
    pub(crate) async fn explain(&self, e: DeviceError) -> DeviceError {
        match e {
            DeviceError::NoDevice { known, .. } if known.is_empty() => {
                let known = if self.inner.tracking() {
                    self.inner.published_names()
                } else {
                    let devices = Devices {
                        inner: self.inner.clone(),
                    };
                    match devices.list_now().await {
                        Ok(list) => list.into_iter().map(|d| d.serial).collect(),
                        Err(_) => self.inner.published_names(),
                    }
                };
                DeviceError::NoDevice {
                    serial: self.name.clone(),
                    known,
                }
            }
            other => other,
        }
    }

    /// A connection broke in the middle of a call: the device went away, or its adb server did.
    /// Tells them apart by asking that server (only it, briefly), so a crashed server is
    /// reported as the server's trouble, in the same words as before a call.
    pub(crate) async fn classify_break(&self, target: &Target, e: DeviceError) -> DeviceError {
        if !matches!(e, DeviceError::Lost { .. } | DeviceError::Io(_)) {
            return e;
        }
        let probe = self.inner.timeouts.probe.min(Duration::from_secs(1));
        let alive = bounded(
            "probe",
            probe,
            target.server.host_query_quiet("host:version"),
        )
        .await;
        match alive {
            Ok(_) => e,
            Err(pe) => DeviceError::DeviceUnreachable {
                device: target.id(),
                server: target.server.ep.to_string(),
                detail: format!("it went away during the call: {}", server_detail(&pe)),
            },
        }
    }

    /// `host-serial:SERIAL:features`, cached per device until it leaves or changes state.
    pub async fn features(&self, timeout: Duration) -> Result<Vec<String>, DeviceError> {
        let what = format!("reading features of {}", self.name);
        self.call(
            &what,
            timeout,
            |t| async move { self.features_of(&t).await },
        )
        .await
        .map(|f| f.as_ref().clone())
    }

    pub(crate) async fn features_of(&self, t: &Target) -> Result<Arc<Vec<String>>, DeviceError> {
        let key = (t.server.ep.clone(), t.raw.clone());
        if let Some(f) = self.inner.table().features.get(&key) {
            return Ok(f.clone());
        }
        let request = match t.transport_id {
            Some(id) => format!("host-transport-id:{id}:features"),
            None => format!("host-serial:{}:features", t.raw),
        };
        let body = match t.server.host_query(&request).await {
            Ok(b) => b,
            Err(DeviceError::Adb(m))
                if t.transport_id.is_some()
                    && (m.contains("not found") || m.contains("no device")) =>
            {
                return Err(DeviceError::PinnedGone {
                    device: t.id(),
                    transport_id: t.transport_id.unwrap_or_default(),
                    now: None,
                });
            }
            Err(e) => return Err(self.explain(map_transport_failure(&t.raw, e)).await),
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

    pub(crate) async fn has_feature(&self, t: &Target, name: &str) -> Result<bool, DeviceError> {
        Ok(self.features_of(t).await?.iter().any(|f| f == name))
    }
}

/// Whether something still accepts connections at `server` (a server that is going away).
async fn still_answers(server: &AdbEndpoint) -> bool {
    match server.socket_path() {
        Some(p) => tokio::net::UnixStream::connect(p).await.is_ok(),
        None => tokio::net::TcpStream::connect((server.host.as_str(), server.port))
            .await
            .is_ok(),
    }
}

#[cfg(test)]
mod tests {
    use super::is_tcp_serial;

    #[test]
    fn tcp_serials_are_host_port() {
        assert!(is_tcp_serial("127.0.0.1:5555"));
        assert!(is_tcp_serial("[::1]:5555"));
        assert!(is_tcp_serial("lab-phone.local:5555"));
        assert!(!is_tcp_serial("emulator-5554"));
        assert!(!is_tcp_serial("R58M12ABCDE"));
        assert!(!is_tcp_serial("adb-R58M12-abc._adb-tls-connect._tcp"));
    }
}
