//! What the server keeps about the clients it is serving now, apart from the shared services
//! (registry, devices, audit trail, redactor, configuration) that [`super::Core`] holds: the
//! clients that identified themselves, the device each selected, the leases they hold, what
//! their calls are creating, the calls running and the ones still owed an answer. None of it
//! outlives the process; all of it is per client or per call.
use std::collections::{BTreeSet, HashMap};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use chrono::{DateTime, Utc};
use serde::Serialize;
use tokio_util::sync::CancellationToken;

use super::events::{ClientId, Transport};

/// A client that identified itself, as the transport saw it.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct ClientSeen {
    pub name: String,
    pub version: String,
    pub transport: Transport,
    pub protocol: String,
    pub first_seen: DateTime<Utc>,
    pub last_seen: DateTime<Utc>,
    pub calls: u64,
    /// The toolsets its latest `tools/list` or call was served with (`core,apps`, `all`).
    pub toolsets: String,
}

/// The per-client, per-call bookkeeping of one server.
#[derive(Default)]
pub struct Sessions {
    /// The device each client's calls use when they give no `serial` (`android_select_device`).
    pub selections: super::selection::Selections,
    /// Devices leased by clients (`android_lease_device`).
    pub leases: super::lease::Leases,
    /// Files and packages a call is creating on a device, one call at a time.
    pub claims: super::claims::Claims,
    clients: Mutex<Vec<ClientSeen>>,
    calls: Arc<Calls>,
    /// Connections open now that stay open between calls: stdio sockets, SSE streams.
    streams: Arc<Mutex<HashMap<Transport, usize>>>,
}

/// An open stdio connection or SSE stream, counted until dropped (see [`Sessions::connected`]).
pub struct StreamGuard(Arc<Mutex<HashMap<Transport, usize>>>, Transport);

impl Drop for StreamGuard {
    fn drop(&mut self) {
        if let Some(n) = lock(&self.0).get_mut(&self.1) {
            *n = n.saturating_sub(1);
        }
    }
}

/// How recently an HTTP client must have made a request to count as connected (HTTP holds no
/// connection between calls).
pub const HTTP_ACTIVE: Duration = Duration::from_secs(60);

/// The calls of this server: their ids, the ones running, the ones owed an answer.
struct Calls {
    seq: AtomicU64,
    /// Client calls whose answer has not been handed to their transport yet: a shutdown lets
    /// them answer (a call cut off by it gets the denial it is recorded with) before closing.
    answering: AtomicUsize,
    /// Client calls running now, by the session key they came through: a session its client
    /// ends (an HTTP `DELETE`) cancels them, so a confirmation still waiting is withdrawn.
    in_flight: Mutex<HashMap<u64, (String, CancellationToken)>>,
    in_flight_seq: AtomicU64,
    /// The `seq`s of destructive calls' `started` audit records whose call is running now.
    started_running: Mutex<BTreeSet<u64>>,
}

impl Default for Calls {
    fn default() -> Self {
        Calls {
            seq: AtomicU64::new(1),
            answering: AtomicUsize::new(0),
            in_flight: Mutex::new(HashMap::new()),
            in_flight_seq: AtomicU64::new(0),
            started_running: Mutex::new(BTreeSet::new()),
        }
    }
}

impl Sessions {
    pub fn next_call_id(&self) -> u64 {
        self.calls.seq.fetch_add(1, Ordering::Relaxed)
    }

    /// Lists a destructive call's `started` record as running while `append` writes it (under
    /// the lock [`Self::started_running`] takes, so whoever reads the record back and asks
    /// waits for the listing: a running call is never taken for an interrupted one).
    pub fn append_started(&self, append: impl FnOnce() -> u64) -> u64 {
        let mut running = lock(&self.calls.started_running);
        let seq = append();
        running.insert(seq);
        seq
    }

    /// The call of `started` record `seq` has its ending on record (or was dropped).
    pub fn started_ended(&self, seq: u64) {
        lock(&self.calls.started_running).remove(&seq);
    }

    /// Whether `started` record `seq` belongs to a call of this server that is running now
    /// (not one a server stopped during).
    pub fn started_running(&self, seq: u64) -> bool {
        lock(&self.calls.started_running).contains(&seq)
    }

    /// Registers a client call running under session `key`, cancelled through `cancel` if the
    /// session ends first ([`Self::end_session_calls`]); the guard unregisters it.
    pub fn in_flight(&self, key: &str, cancel: CancellationToken) -> InFlightGuard {
        let id = self.calls.in_flight_seq.fetch_add(1, Ordering::Relaxed);
        lock(&self.calls.in_flight).insert(id, (key.to_string(), cancel));
        InFlightGuard(self.calls.clone(), id)
    }

    /// Cancels every call running under session `key`; how many there were.
    pub fn end_session_calls(&self, key: &str) -> usize {
        lock(&self.calls.in_flight)
            .values()
            .filter(|(k, _)| k == key)
            .map(|(_, c)| c.cancel())
            .count()
    }

    /// Counts a client call until the guard is dropped (its answer handed to the transport).
    pub fn answering(&self) -> AnsweringGuard {
        self.calls.answering.fetch_add(1, Ordering::SeqCst);
        AnsweringGuard(self.calls.clone())
    }

    /// Waits (at most `bound`) until every client call has its answer (see [`Self::answering`]).
    pub async fn answered(&self, bound: Duration) {
        let deadline = tokio::time::Instant::now() + bound;
        while self.calls.answering.load(Ordering::SeqCst) > 0
            && tokio::time::Instant::now() < deadline
        {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    /// Counts an open stdio connection or SSE stream until the guard is dropped.
    pub fn stream_opened(&self, transport: Transport) -> StreamGuard {
        *lock(&self.streams).entry(transport).or_insert(0) += 1;
        StreamGuard(self.streams.clone(), transport)
    }

    /// The clients connected now, said for a person ("1 over stdio", "2 over HTTP (a request in
    /// the last minute)"): what quitting would cut off. Empty when none.
    pub fn connected(&self) -> Vec<String> {
        let mut out = Vec::new();
        let streams = lock(&self.streams).clone();
        for (t, what) in [(Transport::Stdio, "stdio"), (Transport::Sse, "legacy SSE")] {
            match streams.get(&t).copied().unwrap_or(0) {
                0 => {}
                n => out.push(format!("{n} over {what}")),
            }
        }
        let since = Utc::now() - chrono::Duration::from_std(HTTP_ACTIVE).unwrap_or_default();
        let http = lock(&self.clients)
            .iter()
            .filter(|c| c.transport == Transport::Http && c.last_seen >= since)
            .count();
        if http > 0 {
            out.push(format!("{http} over HTTP (a request in the last minute)"));
        }
        out
    }

    /// Records a client that identified itself; true the first time it is seen.
    pub fn client_seen(&self, transport: Transport, client: &ClientId, protocol: &str) -> bool {
        let now = Utc::now();
        let mut clients = lock(&self.clients);
        if let Some(c) = find(&mut clients, transport, client) {
            c.last_seen = now;
            c.protocol = protocol.to_string();
            return false;
        }
        clients.push(ClientSeen {
            name: client.name.clone(),
            version: client.version.clone(),
            transport,
            protocol: protocol.to_string(),
            first_seen: now,
            last_seen: now,
            calls: 0,
            toolsets: String::new(),
        });
        true
    }

    pub fn count_call(&self, transport: Transport, client: &Option<ClientId>) {
        let Some(client) = client else { return };
        if let Some(c) = find(&mut lock(&self.clients), transport, client) {
            c.calls += 1;
            c.last_seen = Utc::now();
        }
    }

    /// Notes which toolsets a client was served with; true when that changed.
    pub fn client_toolsets(&self, transport: Transport, client: &ClientId, label: String) -> bool {
        match find(&mut lock(&self.clients), transport, client) {
            Some(c) if c.toolsets != label => {
                c.toolsets = label;
                true
            }
            _ => false,
        }
    }

    pub fn clients(&self) -> Vec<ClientSeen> {
        lock(&self.clients).clone()
    }
}

fn find<'a>(
    clients: &'a mut [ClientSeen],
    transport: Transport,
    client: &ClientId,
) -> Option<&'a mut ClientSeen> {
    clients
        .iter_mut()
        .find(|c| c.name == client.name && c.version == client.version && c.transport == transport)
}

/// A lock a panicked holder left is still the bookkeeping: taken as it is.
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// See [`Sessions::in_flight`].
pub struct InFlightGuard(Arc<Calls>, u64);

impl Drop for InFlightGuard {
    fn drop(&mut self) {
        lock(&self.0.in_flight).remove(&self.1);
    }
}

/// See [`Sessions::answering`].
pub struct AnsweringGuard(Arc<Calls>);

impl Drop for AnsweringGuard {
    fn drop(&mut self) {
        self.0.answering.fetch_sub(1, Ordering::SeqCst);
    }
}
