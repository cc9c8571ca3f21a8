//! Device leases (after DeviceFarmer STF's device booking): a client holds a device for a
//! while; other clients' actions on it (safe actions and destructive tools) are refused in the
//! call pipeline before anything runs or anyone is asked, naming the holder and the expiry.
//! Reads stay allowed. The person at the control centre is not a client: their own calls are
//! not held back, and they can break a lease on the Status screen.
//!
//! The holder is the client as it identified itself plus the connection it came through, so two
//! clients with the same name are different holders: a stdio or legacy-SSE connection (one
//! [`Connection`] per rmcp service) or a 2025-era HTTP session (its `Mcp-Session-Id`).
//! Stateless 2026-07-28 HTTP requests have no connection: such a client is known by its name
//! and version only, and its leases end by time (or release, or a person) alone.
//!
//! A lease ends when its time is up (a sweeper task records it at the deadline), when its
//! holder releases it, when its connection closes (stdio/SSE: the service is dropped; HTTP: the
//! client's `DELETE`; an HTTP session merely idling is parked and restored, so its lease stays),
//! or when a person breaks it. Taking, renewing and releasing are recorded as the
//! `android_lease_device` call itself; every other end is recorded here.
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::json;
use tokio::sync::Notify;
use tokio::time::Instant;

use super::core::Core;
use super::events::{ClientId, ServerEvent, Transport};
use crate::model::DecidedBy;

/// Bounds and default of `durationSeconds`.
pub const MIN_SECS: u64 = 10;
pub const MAX_SECS: u64 = 3600;
pub const DEFAULT_SECS: u64 = 600;

/// The tool whose name lease events carry in the audit trail.
pub use crate::audit::acts::LEASE_TOOL as TOOL;

/// Which connection a call came through, as leases tell holders apart.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Session {
    /// Never shown: an HTTP session id lets whoever knows it act in that session.
    key: String,
    /// What people and other clients see: `stdio#3`, `http session 1a2b3c4d`, `stateless http`.
    label: String,
    /// Where a stdio client's relay runs from when it came over SSH (`10.0.0.5:51234`, from the
    /// relay's `SSH_CONNECTION`): shown to the person beside the client's name.
    via: Option<String>,
    /// What the transport itself learned about the other end (peer credentials, address).
    peer: Option<crate::model::Peer>,
    /// The toolsets its endpoint asked for (`/mcp?toolsets=…`, `relay --toolsets …`).
    toolsets: super::toolsets::Selection,
    /// A 2026-07-28 request with no session: nothing it does changes what it is listed.
    stateless: bool,
}

impl Session {
    /// The key the connection's leases and enabled toolsets are held under. Never shown.
    pub fn key(&self) -> &str {
        &self.key
    }

    pub fn toolsets(&self) -> &super::toolsets::Selection {
        &self.toolsets
    }

    pub fn with_toolsets(mut self, sel: super::toolsets::Selection) -> Session {
        self.toolsets = sel;
        self
    }

    pub fn is_stateless(&self) -> bool {
        self.stateless
    }

    /// `ssh from 10.0.0.5:51234` for a stdio client whose relay runs under sshd.
    pub fn via(&self) -> Option<&str> {
        self.via.as_deref()
    }

    /// A stdio or legacy-SSE connection, numbered in the order they opened.
    pub fn connection(transport: Transport, n: u64) -> Session {
        let key = format!("{}#{n}", transport.label());
        Session {
            label: key.clone(),
            key,
            via: None,
            peer: None,
            toolsets: Default::default(),
            stateless: false,
        }
    }

    /// A 2025-era HTTP session, by its `Mcp-Session-Id`.
    pub fn http(session_id: &str) -> Session {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        session_id.hash(&mut h);
        Session {
            key: http_key(session_id),
            label: format!("http session {:08x}", h.finish() as u32),
            via: None,
            peer: None,
            toolsets: Default::default(),
            stateless: false,
        }
    }

    /// A stateless (2026-07-28) HTTP client: nothing but its name tells it apart.
    pub fn stateless(client: &Option<ClientId>) -> Session {
        Session {
            key: format!("http-stateless:{}", client_label(client)),
            label: "stateless http".into(),
            via: None,
            peer: None,
            toolsets: Default::default(),
            stateless: true,
        }
    }

    pub fn label(&self) -> &str {
        &self.label
    }

    /// What the transport verified about the other end (see [`crate::model::Peer`]).
    pub fn peer(&self) -> Option<&crate::model::Peer> {
        self.peer.as_ref()
    }

    pub fn with_peer(mut self, peer: Option<crate::model::Peer>) -> Session {
        self.peer = peer;
        self
    }
}

/// The key an HTTP session's leases are held under (released by the client's `DELETE`).
pub fn http_key(session_id: &str) -> String {
    format!("http:{session_id}")
}

/// `name/version`, as the audit trail names clients; `unknown` when it did not say.
fn client_label(client: &Option<ClientId>) -> String {
    client
        .as_ref()
        .map(|c| format!("{}/{}", c.name, c.version))
        .unwrap_or_else(|| "unknown".into())
}

/// Who holds a lease.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Holder {
    /// `name/version` as the client identified itself.
    pub client: String,
    pub transport: String,
    /// The holder's connection (`stdio#3`, `http session 1a2b3c4d`, `stateless http`).
    pub session: String,
    #[serde(skip)]
    #[schemars(skip)]
    key: String,
}

impl PartialEq for Holder {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}

impl Holder {
    /// The holder a call would be; `None` for calls that carry no client connection (the
    /// control centre's own).
    pub fn of(origin: &super::ctx::Origin) -> Option<Holder> {
        let s = origin.session.as_ref()?;
        Some(Holder {
            client: client_label(&origin.client),
            transport: origin.transport.label().to_string(),
            session: s.label.clone(),
            key: s.key.clone(),
        })
    }

    /// `client-a/1.0 (stdio#3)`.
    pub fn describe(&self) -> String {
        format!("{} ({})", self.client, self.session)
    }

    fn transport(&self) -> Transport {
        match self.transport.as_str() {
            "http" => Transport::Http,
            "sse" => Transport::Sse,
            "batch" => Transport::Batch,
            "tui" => Transport::Tui,
            _ => Transport::Stdio,
        }
    }
}

#[derive(Debug, Clone)]
pub struct Lease {
    pub id: u64,
    /// The device's full name, as resolution returns it.
    pub device: String,
    /// Who the device is, whatever name reaches it ([`crate::device::Devices::identity`]):
    /// what it was when the lease was taken (when it could be read), then each identity the
    /// leased name has shown since (a phone with no readable serial is known by its boot id,
    /// which a reboot changes). The lease covers every name with any of these.
    pub identities: Vec<String>,
    pub holder: Holder,
    pub since: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
    pub deadline: Instant,
}

/// A lease as tools and the audit trail show it.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LeaseInfo {
    pub device: String,
    pub holder: Holder,
    pub since: String,
    pub expires_at: String,
    pub seconds_left: u64,
}

impl Lease {
    pub fn left(&self, now: Instant) -> Duration {
        self.deadline.saturating_duration_since(now)
    }

    pub fn info(&self, now: Instant) -> LeaseInfo {
        LeaseInfo {
            device: self.device.clone(),
            holder: self.holder.clone(),
            since: rfc3339(&self.since),
            expires_at: rfc3339(&self.expires_at),
            seconds_left: self.left(now).as_secs(),
        }
    }

    /// `emulator-5554 is leased by client-a/1.0 (stdio#3) until 2025-05-01T12:00:00Z (599 s left)`.
    pub fn describe(&self, now: Instant) -> String {
        format!(
            "{} is leased by {} until {} ({} s left)",
            self.device,
            self.holder.describe(),
            self.expires_at.format("%Y-%m-%dT%H:%M:%SZ"),
            self.left(now).as_secs()
        )
    }
}

fn rfc3339(t: &DateTime<Utc>) -> String {
    t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

/// Whether taking a lease made a new one or extended the holder's own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Taken {
    New,
    Renewed,
}

/// A device as a lease names it: its full name and, when it could be read, its identity.
/// A lease covers the physical device: every name whose identity is the lease's.
#[derive(Debug, Clone, Copy)]
pub struct Target<'a> {
    pub device: &'a str,
    pub identity: Option<&'a str>,
}

impl<'a> From<&'a str> for Target<'a> {
    fn from(device: &'a str) -> Self {
        Target {
            device,
            identity: None,
        }
    }
}

impl Lease {
    /// Whether this lease holds `t`: the same name, or another name of the same device.
    pub fn covers(&self, t: Target<'_>) -> bool {
        self.device == t.device
            || t.identity
                .is_some_and(|i| self.identities.iter().any(|a| a == i))
    }
}

/// The lease table itself: plain data, every clock passed in. Refusals carry the lease in the
/// way (boxed: it is large and the rare case).
#[derive(Debug, Default)]
pub struct Table {
    leases: HashMap<String, Lease>,
    next_id: u64,
}

impl Table {
    /// Take `device` for `holder` until `now + dur`, or renew the holder's own lease to that.
    /// A lease held by someone else (and not yet expired) is the error.
    pub fn take<'a>(
        &mut self,
        target: impl Into<Target<'a>>,
        holder: &Holder,
        dur: Duration,
        now: Instant,
        wall: DateTime<Utc>,
    ) -> Result<(Taken, Lease), Box<Lease>> {
        let target = target.into();
        let expires_at = wall + chrono::Duration::from_std(dur).unwrap_or(chrono::Duration::MAX);
        if let Some(other) = self.blocker(target, Some(holder), now) {
            return Err(Box::new(other.clone()));
        }
        if let Some(l) = self
            .covering(target, now)
            .and_then(|d| self.leases.get_mut(&d))
        {
            l.deadline = now + dur;
            l.expires_at = expires_at;
            // The client may have said its name since: keep what it says now.
            l.holder = holder.clone();
            return Ok((Taken::Renewed, l.clone()));
        }
        self.next_id += 1;
        let lease = Lease {
            id: self.next_id,
            device: target.device.to_string(),
            identities: target.identity.map(str::to_string).into_iter().collect(),
            holder: holder.clone(),
            since: wall,
            expires_at,
            deadline: now + dur,
        };
        self.leases.insert(target.device.to_string(), lease.clone());
        Ok((Taken::New, lease))
    }

    /// Give `device` back (under any of its names). `Ok(None)`: it was not leased; the error:
    /// someone else holds it.
    pub fn release<'a>(
        &mut self,
        target: impl Into<Target<'a>>,
        holder: &Holder,
        now: Instant,
    ) -> Result<Option<Lease>, Box<Lease>> {
        let target = target.into();
        if let Some(other) = self.blocker(target, Some(holder), now) {
            return Err(Box::new(other.clone()));
        }
        Ok(self
            .covering(target, now)
            .and_then(|d| self.leases.remove(&d)))
    }

    /// The running lease on `target` under whichever of its names it was taken (once no one
    /// else's is in the way: the holder's own), by the name it is kept under.
    fn covering(&self, target: Target<'_>, now: Instant) -> Option<String> {
        self.leases
            .values()
            .find(|l| l.deadline > now && l.covers(target))
            .map(|l| l.device.clone())
    }

    /// The lease that stops `holder` acting on `device` (someone else's, still running, on
    /// this name or another name of the same device). `None` as holder (the control centre)
    /// is never stopped.
    pub fn blocker<'a>(
        &self,
        target: impl Into<Target<'a>>,
        holder: Option<&Holder>,
        now: Instant,
    ) -> Option<&Lease> {
        let holder = holder?;
        let target = target.into();
        self.leases
            .values()
            .filter(|l| l.deadline > now && l.holder != *holder && l.covers(target))
            .min_by_key(|l| l.id)
    }

    /// Remove and return the leases whose time is up.
    pub fn expire(&mut self, now: Instant) -> Vec<Lease> {
        let due: Vec<String> = self
            .leases
            .values()
            .filter(|l| l.deadline <= now)
            .map(|l| l.device.clone())
            .collect();
        due.iter().filter_map(|d| self.leases.remove(d)).collect()
    }

    /// Remove and return every lease held through the connection `key`.
    pub fn end_session(&mut self, key: &str) -> Vec<Lease> {
        let held: Vec<String> = self
            .leases
            .values()
            .filter(|l| l.holder.key == key)
            .map(|l| l.device.clone())
            .collect();
        held.iter().filter_map(|d| self.leases.remove(d)).collect()
    }

    /// Remove lease `id` on `device` (only that one: not a lease taken since it was shown).
    pub fn break_lease(&mut self, device: &str, id: u64) -> Option<Lease> {
        if self.leases.get(device)?.id != id {
            return None;
        }
        self.leases.remove(device)
    }

    /// How many leases there are, expired or not (for the watchers of [`Leases::changed`]).
    fn generation(&self) -> u64 {
        self.next_id
    }

    /// Running leases, by device.
    pub fn list(&self, now: Instant) -> Vec<Lease> {
        let mut v: Vec<Lease> = self
            .leases
            .values()
            .filter(|l| l.deadline > now)
            .cloned()
            .collect();
        v.sort_by(|a, b| a.device.cmp(&b.device));
        v
    }

    pub fn next_deadline(&self) -> Option<Instant> {
        self.leases.values().map(|l| l.deadline).min()
    }

    pub fn is_empty(&self) -> bool {
        self.leases.is_empty()
    }
}

/// How a lease ended without its holder's call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ended<'a> {
    Expired,
    Disconnected,
    /// Broken by a person; the terminal it was done from.
    Broken(&'a str, DecidedBy),
}

impl Ended<'_> {
    fn label(self) -> &'static str {
        match self {
            Ended::Expired => "expired",
            Ended::Disconnected => "holder_disconnected",
            Ended::Broken(..) => "broken",
        }
    }
}

#[derive(Debug, Default)]
struct Inner {
    table: Mutex<Table>,
    wake: Notify,
    /// Rung whenever a lease is taken: calls waiting for a person re-check their device.
    taken: Notify,
    sweeping: AtomicBool,
}

/// The lease table in [`Core`], with the sweeper that ends leases at their deadline.
#[derive(Debug, Default)]
pub struct Leases {
    inner: Arc<Inner>,
    connections: AtomicU64,
}

impl Leases {
    fn with<R>(&self, f: impl FnOnce(&mut Table) -> R) -> R {
        let mut t = self
            .inner
            .table
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        f(&mut t)
    }

    /// Running leases, by device.
    pub fn list(&self) -> Vec<Lease> {
        self.with(|t| t.list(Instant::now()))
    }

    /// The lease that refuses `holder`'s actions on `device`, if any.
    pub fn blocker(&self, device: Target<'_>, holder: Option<&Holder>) -> Option<Lease> {
        self.with(|t| t.blocker(device, holder, Instant::now()).cloned())
    }

    /// Learns the identity each leased name shows now (`current`: the device layer's), so a
    /// lease keeps holding a phone whose identity changed under the same name (a reboot).
    pub fn refresh(&self, current: impl Fn(&str) -> Option<String>) {
        self.with(|t| {
            for l in t.leases.values_mut() {
                if let Some(now) = current(&l.device)
                    && !l.identities.contains(&now)
                {
                    l.identities.push(now);
                }
            }
        })
    }

    /// A running lease held by someone other than `holder`, if any.
    pub fn any_held_by_other(&self, holder: &Holder) -> Option<Lease> {
        let now = Instant::now();
        self.with(|t| {
            t.leases
                .values()
                .filter(|l| l.deadline > now && l.holder != *holder)
                .min_by_key(|l| l.id)
                .cloned()
        })
    }

    /// Resolves once a lease has been taken since `seen` (a [`Leases::generation`]).
    pub async fn taken_since(&self, seen: u64) {
        loop {
            let woken = self.inner.taken.notified();
            if self.generation() != seen {
                return;
            }
            woken.await;
        }
    }

    /// Counts leases ever taken: a waiter compares it to learn of new ones.
    pub fn generation(&self) -> u64 {
        self.with(|t| t.generation())
    }

    pub fn is_empty(&self) -> bool {
        self.with(|t| t.is_empty())
    }

    /// The next connection's number (stdio and SSE share one sequence).
    pub fn next_connection(&self) -> u64 {
        self.connections.fetch_add(1, Ordering::Relaxed) + 1
    }
}

/// How long a lease check waits for a device that has just arrived to be read (its identity).
pub const IDENTITY_WAIT: Duration = Duration::from_secs(3);

/// Device `device` (full name) as leases see it: with its identity, once it has been read.
pub async fn identity(core: &Core, device: &str) -> Option<String> {
    core.devices.identity_settled(device, IDENTITY_WAIT).await
}

/// Resolves with the lease once someone else's lease holds `device` (identity `identity`) for
/// `holder`: at once when one does already.
pub async fn leased_by_other(
    core: &Core,
    device: &str,
    identity: Option<&str>,
    holder: &Holder,
) -> Lease {
    let target = Target { device, identity };
    loop {
        let seen = core.sessions.leases.generation();
        core.sessions.leases.refresh(|d| core.devices.identity(d));
        if let Some(l) = core.sessions.leases.blocker(target, Some(holder)) {
            return l;
        }
        core.sessions.leases.taken_since(seen).await;
    }
}

/// Take or renew a lease (the `android_lease_device` call records it).
pub fn take(
    core: &Arc<Core>,
    device: Target<'_>,
    holder: &Holder,
    dur: Duration,
) -> Result<(Taken, Lease), Box<Lease>> {
    let now = Instant::now();
    let (expired, r) = core.sessions.leases.with(|t| {
        let expired = t.expire(now);
        (expired, t.take(device, holder, dur, now, Utc::now()))
    });
    record_all(core, &expired, Ended::Expired);
    if r.is_ok() {
        ensure_sweeper(core);
        core.sessions.leases.inner.taken.notify_waiters();
        core.emit(ServerEvent::LeasesChanged);
    }
    r
}

/// Give a lease back (the `android_lease_device` call records it).
pub fn release(
    core: &Core,
    device: Target<'_>,
    holder: &Holder,
) -> Result<Option<Lease>, Box<Lease>> {
    let r = core
        .sessions
        .leases
        .with(|t| t.release(device, holder, Instant::now()));
    if matches!(r, Ok(Some(_))) {
        core.emit(ServerEvent::LeasesChanged);
    }
    r
}

/// A connection closed: its leases end, each on record.
pub fn session_ended(core: &Core, key: &str) {
    // Its calls still running end with it: a confirmation waiting on screen is withdrawn.
    core.sessions.end_session_calls(key);
    core.toolsets.session_ended(key);
    core.sessions.selections.session_ended(key);
    let ended = core.sessions.leases.with(|t| t.end_session(key));
    if !ended.is_empty() {
        record_all(core, &ended, Ended::Disconnected);
        core.emit(ServerEvent::LeasesChanged);
    }
}

/// A person broke lease `id` on `device` from the control centre; `None` when it already ended.
pub fn break_lease(core: &Core, device: &str, id: u64) -> Option<Lease> {
    break_lease_by(core, device, id, "terminal", DecidedBy::Key)
}

/// [`break_lease`] naming the terminal that broke it and how its key counts (an attached
/// control centre's is [`DecidedBy::Attached`]).
pub fn break_lease_by(
    core: &Core,
    device: &str,
    id: u64,
    by: &str,
    kind: DecidedBy,
) -> Option<Lease> {
    let broken = core.sessions.leases.with(|t| t.break_lease(device, id))?;
    record(core, &broken, Ended::Broken(by, kind));
    core.emit(ServerEvent::LeasesChanged);
    Some(broken)
}

/// End the leases whose time is up, each on record.
pub fn expire_due(core: &Core) -> usize {
    let expired = core.sessions.leases.with(|t| t.expire(Instant::now()));
    if !expired.is_empty() {
        record_all(core, &expired, Ended::Expired);
        core.emit(ServerEvent::LeasesChanged);
    }
    expired.len()
}

fn record_all(core: &Core, leases: &[Lease], how: Ended) {
    for l in leases {
        record(core, l, how);
    }
}

/// A lease end nobody called a tool for, in the audit trail like a call: tool
/// `android_lease_device`, arguments `{serial, event}`. Expiry and disconnection are the
/// holder's (its client and transport); a break is the person's, approved by key.
fn record(core: &Core, lease: &Lease, how: Ended) {
    let (transport, client) = match how {
        Ended::Broken(by, _) => (Transport::Tui, by.to_string()),
        _ => (lease.holder.transport(), lease.holder.client.clone()),
    };
    let mut info = serde_json::to_value(lease.info(Instant::now())).unwrap_or_default();
    if let Some(m) = info.as_object_mut() {
        m.insert("event".into(), json!(how.label()));
        // The holder's identity beside the public holder object, so History shows who it was.
        m.insert("heldBy".into(), json!(lease.holder.describe()));
    }
    let rec = crate::audit::acts::lease_ended(
        &lease.device,
        how.label(),
        transport,
        client,
        match how {
            Ended::Broken(_, kind) => Some(kind),
            _ => None,
        },
        info,
    );
    tracing::info!(device = %lease.device, holder = %lease.holder.describe(), event = how.label(), "lease ended");
    core.audit.append(rec);
}

/// One sweeper per core, running while any lease exists; woken when a lease is taken.
fn ensure_sweeper(core: &Arc<Core>) {
    let inner = core.sessions.leases.inner.clone();
    if inner.sweeping.swap(true, Ordering::SeqCst) {
        inner.wake.notify_one();
        return;
    }
    let weak = Arc::downgrade(core);
    tokio::spawn(sweep(inner, weak));
}

async fn sweep(inner: Arc<Inner>, core: Weak<Core>) {
    loop {
        let next = {
            let t = inner
                .table
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            match t.next_deadline() {
                Some(d) => d,
                None => {
                    // Under the table's lock: a lease taken after this starts a new sweeper.
                    inner.sweeping.store(false, Ordering::SeqCst);
                    return;
                }
            }
        };
        tokio::select! {
            _ = tokio::time::sleep_until(next) => {}
            _ = inner.wake.notified() => {}
        }
        let Some(core) = core.upgrade() else {
            inner.sweeping.store(false, Ordering::SeqCst);
            return;
        };
        expire_due(&core);
    }
}

/// One rmcp service's connection: when the last handle to it goes (the stdio or SSE connection
/// closed), the leases held through it end. HTTP services are per session or per request and
/// hold no leases of their own (HTTP leases are keyed by session id).
pub struct Connection {
    core: Arc<Core>,
    session: Option<Session>,
}

impl Connection {
    pub fn new(core: Arc<Core>, transport: Transport) -> Connection {
        let session = match transport {
            Transport::Stdio | Transport::Sse => Some(Session::connection(
                transport,
                core.sessions.leases.next_connection(),
            )),
            _ => None,
        };
        Connection { core, session }
    }

    pub fn session(&self) -> Option<&Session> {
        self.session.as_ref()
    }

    /// Record where the connection's client came from (see [`Session::via`]).
    pub fn set_via(&mut self, via: Option<String>) {
        if let Some(s) = &mut self.session {
            s.via = via;
        }
    }

    /// Record what the transport verified about the other end (see [`Session::peer`]).
    pub fn set_peer(&mut self, peer: Option<crate::model::Peer>) {
        if let Some(s) = &mut self.session {
            s.peer = peer;
        }
    }

    /// Record the toolsets the connection asked for (`relay --toolsets`).
    pub fn set_toolsets(&mut self, sel: super::toolsets::Selection) {
        if let Some(s) = &mut self.session {
            s.toolsets = sel;
        }
    }
}

impl Drop for Connection {
    fn drop(&mut self) {
        if let Some(s) = &self.session {
            session_ended(&self.core, &s.key);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn holder(name: &str, conn: u64) -> Holder {
        let s = Session::connection(Transport::Stdio, conn);
        Holder {
            client: format!("{name}/1.0"),
            transport: "stdio".into(),
            session: s.label,
            key: s.key,
        }
    }

    const MIN: Duration = Duration::from_secs(60);

    #[test]
    fn a_lease_refuses_others_until_it_expires() {
        let (a, b) = (holder("a", 1), holder("b", 2));
        let mut t = Table::default();
        let t0 = Instant::now();
        let (how, lease) = t.take("dev@h:1", &a, MIN, t0, Utc::now()).unwrap();
        assert_eq!(how, Taken::New);
        assert_eq!(lease.deadline, t0 + MIN);
        // The holder acts; the other is stopped, and told who holds it.
        assert!(t.blocker("dev@h:1", Some(&a), t0).is_none());
        let stop = t.blocker("dev@h:1", Some(&b), t0).expect("b is stopped");
        assert_eq!(stop.holder.client, "a/1.0");
        assert!(
            stop.describe(t0).contains("a/1.0 (stdio#1)"),
            "{}",
            stop.describe(t0)
        );
        // Another device is free; the control centre (no holder) is never stopped.
        assert!(t.blocker("other@h:1", Some(&b), t0).is_none());
        assert!(t.blocker("dev@h:1", None, t0).is_none());
        // b cannot take it.
        let err = t.take("dev@h:1", &b, MIN, t0, Utc::now()).unwrap_err();
        assert_eq!(err.holder, a);
        // At the deadline it is over: b acts and may take it.
        let t1 = t0 + MIN;
        assert!(t.blocker("dev@h:1", Some(&b), t1).is_none());
        assert_eq!(t.expire(t1).len(), 1);
        assert!(t.is_empty());
        let (how, _) = t.take("dev@h:1", &b, MIN, t1, Utc::now()).unwrap();
        assert_eq!(how, Taken::New);
    }

    #[test]
    fn the_holder_renews_and_a_namesake_is_someone_else() {
        let a = holder("a", 1);
        let twin = holder("a", 2); // same client name and version, another connection
        let mut t = Table::default();
        let t0 = Instant::now();
        let (_, first) = t.take("dev", &a, MIN, t0, Utc::now()).unwrap();
        let later = t0 + Duration::from_secs(50);
        let (how, renewed) = t.take("dev", &a, MIN, later, Utc::now()).unwrap();
        assert_eq!(how, Taken::Renewed);
        assert_eq!(renewed.id, first.id);
        assert_eq!(renewed.deadline, later + MIN);
        // Past the first deadline, still held.
        let t2 = t0 + MIN + Duration::from_secs(1);
        assert!(t.expire(t2).is_empty());
        assert!(t.blocker("dev", Some(&twin), t2).is_some());
        assert!(t.take("dev", &twin, MIN, t2, Utc::now()).is_err());
        assert!(t.release("dev", &twin, t2).is_err());
    }

    #[test]
    fn release_session_end_and_break() {
        let (a, b) = (holder("a", 1), holder("b", 2));
        let mut t = Table::default();
        let t0 = Instant::now();
        t.take("d1", &a, MIN, t0, Utc::now()).unwrap();
        t.take("d2", &a, MIN, t0, Utc::now()).unwrap();
        let (_, l3) = t.take("d3", &b, MIN, t0, Utc::now()).unwrap();
        // Releasing: only the holder; not leased is not an error.
        assert!(t.release("d1", &b, t0).is_err());
        assert!(t.release("d1", &a, t0).unwrap().is_some());
        assert!(t.release("d1", &a, t0).unwrap().is_none());
        // a's connection closes: its leases go, b's stays.
        let ended = t.end_session(&a.key);
        assert_eq!(
            ended.iter().map(|l| l.device.as_str()).collect::<Vec<_>>(),
            ["d2"]
        );
        assert_eq!(t.list(t0).len(), 1);
        // A person breaks the lease shown, not one taken since.
        assert!(t.break_lease("d3", l3.id + 100).is_none());
        assert!(t.break_lease("d3", l3.id).is_some());
        assert!(t.is_empty());
    }

    #[test]
    fn a_lease_holds_every_name_of_the_device() {
        let (a, b) = (holder("a", 1), holder("b", 2));
        let mut t = Table::default();
        let t0 = Instant::now();
        let phone = Some("google/husky:16 serial X boot 1");
        let by = |device| Target {
            device,
            identity: phone,
        };
        t.take(by("127.0.0.1:5555@h:1"), &a, MIN, t0, Utc::now())
            .unwrap();
        // The same phone as localhost, or through a second adb server: held.
        for alias in ["localhost:5555@h:1", "127.0.0.1:5555@h:2"] {
            let stop = t.blocker(by(alias), Some(&b), t0).expect(alias);
            assert_eq!(stop.device, "127.0.0.1:5555@h:1");
            assert!(t.take(by(alias), &b, MIN, t0, Utc::now()).is_err());
            assert!(t.release(by(alias), &b, t0).is_err());
        }
        // Another phone, or a name whose identity could not be read, is not.
        let other = Target {
            device: "emulator-5554@h:1",
            identity: Some("other"),
        };
        assert!(t.blocker(other, Some(&b), t0).is_none());
        assert!(t.blocker("localhost:5555@h:1", Some(&b), t0).is_none());
        // The holder renews through an alias: one lease, not two.
        let (how, _) = t
            .take(by("localhost:5555@h:1"), &a, MIN, t0, Utc::now())
            .unwrap();
        assert_eq!(how, Taken::Renewed);
        assert_eq!(t.list(t0).len(), 1);
        assert!(
            t.release(by("127.0.0.1:5555@h:2"), &a, t0)
                .unwrap()
                .is_some()
        );
        assert!(t.is_empty());
    }

    #[test]
    fn http_sessions_are_told_apart_without_showing_their_id() {
        let s = Session::http("0123456789abcdef-secret");
        assert!(!s.label().contains("secret"), "{}", s.label());
        assert_eq!(s.key, http_key("0123456789abcdef-secret"));
        assert_ne!(s.key, Session::http("another").key);
        let c = Some(ClientId {
            name: "n".into(),
            version: "1".into(),
        });
        assert_eq!(Session::stateless(&c), Session::stateless(&c.clone()));
    }

    /// The sweeper ends a lease at its deadline, with tokio's clock paused.
    #[tokio::test(start_paused = true)]
    async fn the_sweeper_ends_leases_on_their_own() {
        let dir = tempfile::tempdir().unwrap();
        let core = Arc::new(crate::mcp::Core::for_tests(
            crate::mcp::tools::catalogue(),
            dir.path(),
            false,
        ));
        let a = holder("a", 1);
        take(&core, "dev".into(), &a, Duration::from_secs(30)).unwrap();
        take(&core, "dev2".into(), &a, Duration::from_secs(90)).unwrap();
        let mut events = core.subscribe();
        tokio::time::sleep(Duration::from_secs(29)).await;
        assert_eq!(core.sessions.leases.list().len(), 2);
        tokio::time::sleep(Duration::from_secs(2)).await;
        assert_eq!(core.sessions.leases.list().len(), 1);
        assert!(
            core.sessions.leases.with(|t| t.leases.len()) == 1,
            "swept, not only hidden"
        );
        assert!(matches!(
            events.recv().await,
            Ok(ServerEvent::LeasesChanged)
        ));
        tokio::time::sleep(Duration::from_secs(60)).await;
        assert!(core.sessions.leases.is_empty());
        let recent = core.audit.recent(10);
        let expired: Vec<_> = recent
            .iter()
            .filter(|r| r.tool == TOOL && r.arguments["event"] == "expired")
            .collect();
        assert_eq!(expired.len(), 2, "{recent:?}");
        assert_eq!(expired[0].client, "a/1.0");
        // The sweeper stopped with the table empty; a new lease starts another.
        tokio::task::yield_now().await;
        assert!(!core.sessions.leases.inner.sweeping.load(Ordering::SeqCst));
        take(&core, "dev".into(), &a, Duration::from_secs(10)).unwrap();
        tokio::time::sleep(Duration::from_secs(11)).await;
        assert!(core.sessions.leases.is_empty());
    }
}
