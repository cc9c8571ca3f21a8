//! `Core`: what every session of every transport shares — the registry, access switches, the
//! confirmer, the devices, the audit trail, the redactor, the configuration, the event channel
//! and this program's log — beside [`Sessions`], the per-client and per-call bookkeeping.
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use serde::Serialize;
use tokio::sync::broadcast;

use super::access::Access;
use super::confirm::Confirmer;
use super::events::{ClientId, ServerEvent, Transport};
use super::logbuf::LogBuffer;
use super::navigation::UiLink;
use super::registry::Registry;
use super::sessions::Sessions;
use crate::audit::Audit;
use crate::config::{Config, ConfigError, Paths};
use crate::device::Devices;
use crate::project::Projects;
use crate::redact::Redactor;

pub use super::sessions::ClientSeen;

/// The transports actually accepting connections.
#[derive(Debug, Clone, Default, Serialize, serde::Deserialize)]
pub struct Endpoints {
    pub http: Option<String>,
    pub sse: Option<String>,
    pub stdio: Option<String>,
    /// Why HTTP is not where it was asked to be (its port was taken, or it cannot listen).
    pub http_note: Option<String>,
}

impl Endpoints {
    /// The port HTTP serves on now (`http://127.0.0.1:PORT/mcp`), if it serves.
    pub fn http_port(&self) -> Option<u16> {
        let url = self.http.as_deref()?;
        let authority = url.split("://").nth(1)?.split('/').next()?;
        authority.rsplit_once(':')?.1.parse().ok()
    }
}

/// See [`Core::stream_opened`].
pub struct OpenStream {
    _guard: super::sessions::StreamGuard,
    events: broadcast::Sender<ServerEvent>,
}

impl Drop for OpenStream {
    fn drop(&mut self) {
        let _ = self
            .events
            .send(ServerEvent::ServerStateChanged { running: true });
    }
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
    pub projects: Projects,
    /// Every call, kept across restarts.
    pub audit: Audit,
    /// What agents must not see (and, for `everywhere` rules, nobody).
    pub redactor: Redactor,
    /// Running against the built-in virtual device.
    pub demo: bool,
    /// Told of every finished call after its audit record (the batch recorder is one).
    observers: Vec<std::sync::Arc<dyn super::observe::CallObserver>>,
    /// Per client and per call: selections, leases, claims, the clients seen, the calls
    /// running and the ones owed an answer.
    pub sessions: Sessions,
    /// What a module keeps for the whole server, owned by that module (see [`Core::kept`]),
    /// and the services the wiring provides ([`Core::provide`]).
    kept: Mutex<std::collections::HashMap<std::any::TypeId, Arc<dyn std::any::Any + Send + Sync>>>,
    /// Which toolsets are advertised, to whom ([`super::toolsets`]).
    pub toolsets: super::toolsets::Toolsets,
    events: broadcast::Sender<ServerEvent>,
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
        let toolsets = super::toolsets::Toolsets::new(configured_toolsets);
        toolsets.remember_in(parts.paths.state.join("toolsets-enabled.json"));
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
            projects: parts.projects,
            audit: parts.audit,
            redactor: parts.redactor,
            demo: parts.demo,
            observers: parts.observers,
            sessions: Sessions::default(),
            kept: Mutex::new(Default::default()),
            toolsets,
            events,
        }
    }

    /// A core for the crate's own tests: `registry`'s tools, default settings, files under
    /// `dir`, no projects, and an adb endpoint nothing listens on (no device is reached).
    #[cfg(test)]
    pub(crate) fn for_tests(registry: Registry, dir: &std::path::Path, allow_all: bool) -> Core {
        let paths = Paths::under(dir);
        let config = Config::default_config();
        let audit = Audit::open_with(
            &paths.audit_dir(),
            config.history.size,
            crate::audit::Limits::total_mb(config.audit.max_total_mb),
        )
        .expect("a test audit trail");
        let redactor =
            Redactor::with_defaults_and(&config.redaction.rules).expect("the default rules");
        Core::new(CoreParts {
            registry,
            config,
            paths,
            logs: LogBuffer::new(10),
            allow_all,
            devices: Devices::with_options(
                vec![crate::device::AdbEndpoint::new("127.0.0.1".to_string(), 1)],
                crate::device::Timeouts::default(),
                crate::device::DeviceOptions {
                    autostart_local_server: false,
                    ..crate::device::DeviceOptions::default()
                },
            ),
            projects: Projects::new(vec![]),
            audit,
            redactor,
            demo: true,
            observers: Vec::new(),
        })
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
    /// it as running until [`Sessions::started_ended`] (see [`Sessions::append_started`]).
    pub fn append_started(&self, record: crate::audit::AuditRecord) -> u64 {
        self.sessions.append_started(|| self.audit.append(record))
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

    /// The configuration in force. Cheap: every device command reads its timeout from it.
    pub fn config(&self) -> Arc<Config> {
        self.config
            .read()
            .map(|c| Arc::clone(&c))
            .unwrap_or_else(|_| Arc::new(Config::default_config()))
    }

    /// Change the configuration, save it, then apply it everywhere it matters. A change the
    /// configuration's checks refuse is [`ConfigError::Invalid`]; one whose file cannot be
    /// written is [`ConfigError::Write`], and changes nothing: the file is written before
    /// anything in memory moves, so what runs is never what the file does not say.
    pub fn update_config(&self, f: impl FnOnce(&mut Config)) -> Result<Config, ConfigError> {
        let mut cfg = Config::clone(&self.config());
        f(&mut cfg);
        cfg.access = self.access.settings();
        let file = crate::config::config_file(&self.paths);
        cfg.validate().map_err(|message| ConfigError::Invalid {
            path: file.display().to_string(),
            message,
        })?;
        cfg.save(&file)?;
        self.confirmer
            .set_timeout(Duration::from_secs(cfg.safety.confirm_timeout_secs));
        self.confirmer
            .set_wait_for_attach(cfg.safety.wait_for_attach);
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

    /// Persist the access switches (after a change from the control centre, in force already).
    pub fn save_access(&self) -> Result<(), ConfigError> {
        self.update_config(|_| {}).map(|_| ())
    }

    /// Record a client that identified itself; emits an event the first time it is seen.
    /// An open stdio connection or SSE stream, counted (and the screens told) until the
    /// returned guard is dropped: what `q` says it would cut off.
    pub fn stream_opened(&self, transport: Transport) -> OpenStream {
        let guard = self.sessions.stream_opened(transport);
        self.emit(ServerEvent::ServerStateChanged { running: true });
        OpenStream {
            _guard: guard,
            events: self.events.clone(),
        }
    }

    pub fn client_seen(&self, transport: Transport, client: &ClientId, protocol: &str) {
        if self.sessions.client_seen(transport, client, protocol) {
            self.emit(ServerEvent::ClientIdentified {
                transport,
                client: client.clone(),
                protocol: protocol.to_string(),
            });
        }
    }

    /// Note which toolsets a client was served with (shown on the Tools screen).
    pub fn client_toolsets(&self, transport: Transport, client: &ClientId, label: String) {
        if self.sessions.client_toolsets(transport, client, label) {
            self.emit(ServerEvent::ServerStateChanged { running: true });
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A configuration change is saved before it is applied: a file that cannot be written
    /// changes nothing in memory either, and the caller can tell that from a refused value.
    #[test]
    fn a_change_that_cannot_be_saved_changes_nothing_and_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let core = Core::for_tests(Registry::new(vec![]), dir.path(), false);
        let before = core.config().safety.confirm_timeout_secs;

        let refused = core.update_config(|c| c.safety.confirm_timeout_secs = 0);
        assert!(
            matches!(refused, Err(ConfigError::Invalid { .. })),
            "{refused:?}"
        );

        // A directory where the file goes: no write can land there, root's included.
        let file = crate::config::config_file(&core.paths);
        std::fs::create_dir_all(&file).unwrap();
        let unsaved = core.update_config(|c| c.safety.confirm_timeout_secs = before + 7);
        assert!(
            matches!(unsaved, Err(ConfigError::Write { .. })),
            "{unsaved:?}"
        );
        assert_eq!(core.config().safety.confirm_timeout_secs, before);
        assert_eq!(core.confirmer.timeout(), Duration::from_secs(before));

        std::fs::remove_dir(&file).unwrap();
        let saved = core.update_config(|c| c.safety.confirm_timeout_secs = before + 7);
        assert!(saved.is_ok(), "{saved:?}");
        assert_eq!(core.config().safety.confirm_timeout_secs, before + 7);
        assert_eq!(core.confirmer.timeout(), Duration::from_secs(before + 7));
    }
}
