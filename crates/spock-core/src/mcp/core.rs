//! `Core`: what every session of every transport shares — the registry, access switches, the
//! confirmer, the event channel, this program's log, and what is known about clients.
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use serde::Serialize;
use tokio::sync::broadcast;

use super::access::Access;
use super::confirm::Confirmer;
use super::events::{ClientId, ServerEvent, Transport};
use super::logbuf::LogBuffer;
use super::registry::Registry;
use super::uilink::UiLink;
use crate::audit::Audit;
use crate::config::{Config, Paths};
use crate::device::Devices;
use crate::project::Projects;
use crate::redact::Redactor;

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

/// The transports actually accepting connections.
#[derive(Debug, Clone, Default, Serialize, serde::Deserialize)]
pub struct Endpoints {
    pub http: Option<String>,
    pub sse: Option<String>,
    pub stdio: Option<String>,
    /// Why HTTP is not where it was asked to be (its port was taken, or it cannot listen).
    pub http_note: Option<String>,
}

pub struct Core {
    pub registry: Registry,
    pub access: Access,
    pub confirmer: Confirmer,
    pub logs: LogBuffer,
    pub paths: Paths,
    /// Shared, not copied: a reader takes the `Arc` (one atomic increment), a change swaps it.
    pub config: RwLock<Arc<Config>>,
    pub endpoints: RwLock<Endpoints>,
    /// The control centre's current screen, for `spock_get_status` ("none" when headless).
    pub screen: RwLock<String>,
    pub started: Instant,
    pub ui: UiLink,
    pub devices: Devices,
    /// The device each client's calls use when they give no `serial` (`android_select_device`).
    pub selections: super::selection::Selections,
    pub projects: Projects,
    /// Every call, kept across restarts.
    pub audit: Audit,
    /// What agents must not see (and, for `everywhere` rules, nobody).
    pub redactor: Redactor,
    /// Running against the built-in virtual device.
    pub demo: bool,
    /// Told of every finished call after its audit record (the batch recorder is one).
    observers: Vec<std::sync::Arc<dyn super::observe::CallObserver>>,
    /// Devices leased by clients (`android_lease_device`).
    pub leases: super::lease::Leases,
    /// Files and packages a call is creating on a device, one call at a time.
    pub claims: super::claims::Claims,
    /// What a module keeps for the whole server, owned by that module (see [`Core::kept`]),
    /// and the services the wiring provides ([`Core::provide`]).
    kept: Mutex<std::collections::HashMap<std::any::TypeId, Arc<dyn std::any::Any + Send + Sync>>>,
    /// Which toolsets are advertised, to whom ([`super::toolsets`]).
    pub toolsets: super::toolsets::Toolsets,
    events: broadcast::Sender<ServerEvent>,
    clients: Mutex<Vec<ClientSeen>>,
    call_seq: AtomicU64,
    /// Client calls whose answer has not been handed to their transport yet: a shutdown lets
    /// them answer (a call cut off by it gets the denial it is recorded with) before closing.
    answering: std::sync::atomic::AtomicUsize,
    /// Client calls running now, by the session key they came through: a session its client
    /// ends (an HTTP `DELETE`) cancels them, so a confirmation still waiting is withdrawn.
    in_flight: Mutex<std::collections::HashMap<u64, (String, tokio_util::sync::CancellationToken)>>,
    in_flight_seq: AtomicU64,
    /// The `seq`s of destructive calls' `started` audit records whose call is running now.
    started_running: Mutex<std::collections::BTreeSet<u64>>,
}

impl std::fmt::Debug for Core {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Core")
            .field("tools", &self.registry.len())
            .finish()
    }
}

pub struct CoreParts {
    pub registry: Registry,
    pub config: Config,
    pub paths: Paths,
    pub logs: LogBuffer,
    pub allow_all: bool,
    pub devices: Devices,
    pub projects: Projects,
    pub audit: Audit,
    pub redactor: Redactor,
    pub demo: bool,
    /// Told of every finished call after its audit record: the wiring names them (the batch
    /// recorder is one), so the core names none.
    pub observers: Vec<Arc<dyn super::observe::CallObserver>>,
}

impl Core {
    pub fn new(parts: CoreParts) -> Core {
        let (events, _) = broadcast::channel(4096);
        let configured_toolsets = parts.config.server.toolset_selection();
        let where_ = crate::config::config_file(&parts.paths)
            .display()
            .to_string();
        Core {
            access: Access::new(parts.config.access.clone(), parts.allow_all, where_),
            confirmer: {
                let c = Confirmer::new(Duration::from_secs(
                    parts.config.safety.confirm_timeout_secs,
                ));
                c.set_wait_for_attach(parts.config.safety.wait_for_attach);
                c
            },
            registry: parts.registry,
            logs: parts.logs,
            paths: parts.paths,
            config: RwLock::new(Arc::new(parts.config)),
            endpoints: RwLock::new(Endpoints::default()),
            screen: RwLock::new("none".into()),
            started: Instant::now(),
            ui: UiLink::default(),
            devices: parts.devices,
            selections: Default::default(),
            projects: parts.projects,
            audit: parts.audit,
            redactor: parts.redactor,
            demo: parts.demo,
            observers: parts.observers,
            leases: Default::default(),
            claims: Default::default(),
            kept: Mutex::new(Default::default()),
            toolsets: super::toolsets::Toolsets::new(configured_toolsets),
            events,
            clients: Mutex::new(Vec::new()),
            call_seq: AtomicU64::new(1),
            answering: std::sync::atomic::AtomicUsize::new(0),
            in_flight: Mutex::new(Default::default()),
            in_flight_seq: AtomicU64::new(0),
            started_running: Mutex::new(Default::default()),
        }
    }

    /// The one `T` this server keeps, made on first use: state a module owns for the whole
    /// server (the screen recordings running, the screens each client was last sent, the calls
    /// waiting for their client's retry). The module declares the type; the core holds it
    /// without knowing it, so the core imports none of them.
    pub fn kept<T: Default + Send + Sync + 'static>(&self) -> Arc<T> {
        let mut kept = self.kept.lock().unwrap_or_else(|p| p.into_inner());
        let any = kept
            .entry(std::any::TypeId::of::<T>())
            .or_insert_with(|| Arc::new(T::default()))
            .clone();
        // Keyed by its type: always a `T`.
        any.downcast::<T>()
            .unwrap_or_else(|_| Arc::new(T::default()))
    }

    /// Hand the core a service the wiring made (the batch store and runner), for
    /// [`Core::provided`]. A second one of the same type replaces the first.
    pub fn provide<T: Send + Sync + 'static>(&self, service: Arc<T>) {
        self.kept
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(std::any::TypeId::of::<T>(), service);
    }

    /// The service of type `T` the wiring provided, if it did.
    pub fn provided<T: Send + Sync + 'static>(&self) -> Option<Arc<T>> {
        let kept = self.kept.lock().unwrap_or_else(|p| p.into_inner());
        kept.get(&std::any::TypeId::of::<T>())
            .cloned()
            .and_then(|a| a.downcast::<T>().ok())
    }

    /// Appends a destructive call's `started` record (not yet synced: flush after) and lists
    /// it as running until [`Self::started_ended`]. Listed under the same lock
    /// [`Self::started_running`] takes, so whoever reads the record back and asks waits for the
    /// listing: a running call is never taken for an interrupted one.
    pub fn append_started(&self, record: crate::audit::AuditRecord) -> u64 {
        let mut running = self
            .started_running
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        let seq = self.audit.append(record);
        running.insert(seq);
        seq
    }

    /// The call of `started` record `seq` has its ending on record (or was dropped).
    pub fn started_ended(&self, seq: u64) {
        self.started_running
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&seq);
    }

    /// Whether `started` record `seq` belongs to a call of this server that is running now
    /// (not one a server stopped during).
    pub fn started_running(&self, seq: u64) -> bool {
        self.started_running
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .contains(&seq)
    }

    /// Registers a client call running under session `key`, cancelled through `cancel` if the
    /// session ends first ([`Self::end_session_calls`]); the guard unregisters it.
    pub fn in_flight(
        self: &Arc<Self>,
        key: &str,
        cancel: tokio_util::sync::CancellationToken,
    ) -> InFlightGuard {
        let id = self.in_flight_seq.fetch_add(1, Ordering::Relaxed);
        if let Ok(mut m) = self.in_flight.lock() {
            m.insert(id, (key.to_string(), cancel));
        }
        InFlightGuard(self.clone(), id)
    }

    /// Cancels every call running under session `key`; how many there were.
    pub fn end_session_calls(&self, key: &str) -> usize {
        let Ok(m) = self.in_flight.lock() else {
            return 0;
        };
        m.values()
            .filter(|(k, _)| k == key)
            .map(|(_, c)| c.cancel())
            .count()
    }

    /// Counts a client call until the guard is dropped (its answer handed to the transport).
    pub fn answering(self: &std::sync::Arc<Self>) -> AnsweringGuard {
        self.answering.fetch_add(1, Ordering::SeqCst);
        AnsweringGuard(self.clone())
    }

    /// Waits (at most `bound`) until every client call has its answer (see [`Self::answering`]).
    pub async fn answered(&self, bound: Duration) {
        let deadline = tokio::time::Instant::now() + bound;
        while self.answering.load(Ordering::SeqCst) > 0 && tokio::time::Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    pub fn observers(&self) -> &[std::sync::Arc<dyn super::observe::CallObserver>] {
        &self.observers
    }

    pub fn subscribe(&self) -> broadcast::Receiver<ServerEvent> {
        self.events.subscribe()
    }

    pub fn emit(&self, event: ServerEvent) {
        // No receiver is fine: headless with nobody listening.
        let _ = self.events.send(event);
    }

    pub fn next_call_id(&self) -> u64 {
        self.call_seq.fetch_add(1, Ordering::Relaxed)
    }

    /// The configuration in force. Cheap: every device command reads its timeout from it.
    pub fn config(&self) -> Arc<Config> {
        self.config
            .read()
            .map(|c| Arc::clone(&c))
            .unwrap_or_else(|_| Arc::new(Config::default_config()))
    }

    /// Apply a changed configuration everywhere it matters and save it.
    pub fn update_config(&self, f: impl FnOnce(&mut Config)) -> Result<Config, String> {
        let mut cfg = Config::clone(&self.config());
        f(&mut cfg);
        cfg.access = self.access.settings();
        cfg.validate()?;
        self.confirmer
            .set_timeout(Duration::from_secs(cfg.safety.confirm_timeout_secs));
        self.confirmer
            .set_wait_for_attach(cfg.safety.wait_for_attach);
        self.access.replace(cfg.access.clone());
        cfg.save(&crate::config::config_file(&self.paths))
            .map_err(|e| e.to_string())?;
        self.audit.set_cap(cfg.history.size);
        if let Ok(mut slot) = self.config.write() {
            *slot = Arc::new(cfg.clone());
        }
        Ok(cfg)
    }

    /// Take a configuration edited on disk (by a person, while running): access switches,
    /// timeouts and sizes apply at once; ports wait for a restart.
    pub fn adopt_config(&self, cfg: Config) {
        self.confirmer
            .set_timeout(Duration::from_secs(cfg.safety.confirm_timeout_secs));
        self.confirmer
            .set_wait_for_attach(cfg.safety.wait_for_attach);
        self.access.replace(cfg.access.clone());
        self.audit.set_cap(cfg.history.size);
        self.toolsets.set_configured(cfg.server.toolset_selection());
        if let Ok(mut slot) = self.config.write() {
            *slot = Arc::new(cfg);
        }
        self.emit(ServerEvent::ServerStateChanged { running: true });
    }

    /// Persist the access switches (after a change from the control centre).
    pub fn save_access(&self) -> Result<(), String> {
        self.update_config(|_| {}).map(|_| ())
    }

    /// Record a client that identified itself; emits an event the first time it is seen.
    pub fn client_seen(&self, transport: Transport, client: &ClientId, protocol: &str) {
        let now = Utc::now();
        let Ok(mut clients) = self.clients.lock() else {
            return;
        };
        if let Some(c) = clients.iter_mut().find(|c| {
            c.name == client.name && c.version == client.version && c.transport == transport
        }) {
            c.last_seen = now;
            c.protocol = protocol.to_string();
            return;
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
        drop(clients);
        self.emit(ServerEvent::ClientIdentified {
            transport,
            client: client.clone(),
            protocol: protocol.to_string(),
        });
    }

    pub fn count_call(&self, transport: Transport, client: &Option<ClientId>) {
        let Some(client) = client else { return };
        if let Ok(mut clients) = self.clients.lock()
            && let Some(c) = clients.iter_mut().find(|c| {
                c.name == client.name && c.version == client.version && c.transport == transport
            })
        {
            c.calls += 1;
            c.last_seen = Utc::now();
        }
    }

    /// Note which toolsets a client was served with (shown on the Tools screen).
    pub fn client_toolsets(&self, transport: Transport, client: &ClientId, label: String) {
        let mut changed = false;
        if let Ok(mut clients) = self.clients.lock()
            && let Some(c) = clients.iter_mut().find(|c| {
                c.name == client.name && c.version == client.version && c.transport == transport
            })
            && c.toolsets != label
        {
            c.toolsets = label;
            changed = true;
        }
        if changed {
            self.emit(ServerEvent::ServerStateChanged { running: true });
        }
    }

    pub fn clients(&self) -> Vec<ClientSeen> {
        self.clients.lock().map(|c| c.clone()).unwrap_or_default()
    }

    pub fn endpoints(&self) -> Endpoints {
        self.endpoints.read().map(|e| e.clone()).unwrap_or_default()
    }

    pub fn set_endpoints(&self, f: impl FnOnce(&mut Endpoints)) {
        if let Ok(mut e) = self.endpoints.write() {
            f(&mut e);
        }
        self.emit(ServerEvent::ServerStateChanged { running: true });
    }

    pub fn screen(&self) -> String {
        self.screen.read().map(|s| s.clone()).unwrap_or_default()
    }
}

/// The sentence from 000_… shown when no client has identified itself.
pub const NO_CLIENT_YET: &str = "No client has identified itself yet. On either transport, a \
client is only known once it calls initialize.";

/// See [`Core::in_flight`].
pub struct InFlightGuard(Arc<Core>, u64);

impl Drop for InFlightGuard {
    fn drop(&mut self) {
        if let Ok(mut m) = self.0.in_flight.lock() {
            m.remove(&self.1);
        }
    }
}

/// See [`Core::answering`].
pub struct AnsweringGuard(std::sync::Arc<Core>);

impl Drop for AnsweringGuard {
    fn drop(&mut self) {
        self.0.answering.fetch_sub(1, Ordering::SeqCst);
    }
}
