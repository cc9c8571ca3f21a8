//! Wiring: `cli` parses, `app` wires, `tui` runs. [`main`] (`commands`) dispatches each
//! subcommand; this module builds what they share: logging, the core, and the server (both
//! transports) started and stopped as one by its controller (`controller`), with the attach
//! channel beside it ([`ControlChannel`]). `serve` (`serve`) and the control centre without a
//! subcommand (`local`) both use them; the control centre can stop and restart the server
//! while the core (history, access, clients) and the attached control centres live on. The
//! run flags ([`crate::cli::RunArgs`]) end here: `tui` is handed only what its loop needs.
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{EnvFilter, Layer};

use crate::config::token::TokenStore;
use crate::config::{Config, Paths, config_file};
use crate::device::{AdbEndpoint, DeviceOptions, Devices, Timeouts};
use crate::mcp::core::CoreParts;
use crate::mcp::logbuf::{BufferLayer, LogBuffer};
use crate::mcp::{Core, tools};
use crate::project::Projects;
use crate::transport::agent_door::AgentDoor;
use crate::transport::http::HttpOptions;
use crate::transport::socket::{Listener, SocketOptions};
use crate::transport::{Shared, control, http, socket};

mod commands;
mod controller;
mod local;
mod serve;

use crate::transport::switch::ServerHandle;
pub use commands::main;
pub use controller::spawn_controller;

/// How many daily log files are kept.
pub const LOG_DAYS: usize = 7;

/// How a log line writes its fields: as the default format does (`message`, then
/// `name=value`), with every control, line-separator and bidirectional-override character in a
/// value written as `\u{…}`. Values come from clients (a client's name, a tool name, a
/// command): a name holding a newline and a fake record must stay on its own line, and an
/// escape sequence must not reach the terminal that shows the log.
fn log_fields() -> impl for<'w> tracing_subscriber::fmt::FormatFields<'w> + 'static {
    use tracing_subscriber::field::MakeExt as _;
    tracing_subscriber::fmt::format::debug_fn(|w, field, value| {
        let text = log_safe(&format!("{value:?}"));
        if field.name() == "message" {
            write!(w, "{text}")
        } else {
            write!(w, "{}={text}", field.name())
        }
    })
    .delimited(" ")
}

/// `s` with what a terminal or a log reader would act on written as `\u{…}`.
pub fn log_safe(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if c.is_control()
            || matches!(c, '\u{2028}' | '\u{2029}')
            || crate::tui::escape::is_bidi_control(c)
        {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

/// Log to a file in the state directory (never stdout), to the in-memory buffer that
/// `spock_get_logs` reads, and to stderr when `to_stderr` (headless).
pub fn init_logging(
    paths: &Paths,
    logs: &LogBuffer,
    to_stderr: bool,
) -> anyhow::Result<tracing_appender::non_blocking::WorkerGuard> {
    crate::config::paths::private_dir(&paths.log_dir()).context("creating the log directory")?;
    // A long-running service: one file a day (`spock-tui.YYYY-MM-DD.log`), the last
    // LOG_DAYS kept; older ones are deleted as a new day's file opens.
    let file = tracing_appender::rolling::Builder::new()
        .rotation(tracing_appender::rolling::Rotation::DAILY)
        .filename_prefix("spock-tui")
        .filename_suffix("log")
        .max_log_files(LOG_DAYS)
        .build(paths.log_dir())
        .context("opening the log file")?;
    let (writer, guard) = tracing_appender::non_blocking(file);
    let filter = || {
        EnvFilter::try_from_env("SPOCK_TUI_LOG")
            .unwrap_or_else(|_| EnvFilter::new("info,rmcp=warn"))
    };
    let stderr = to_stderr.then(|| {
        tracing_subscriber::fmt::layer()
            .fmt_fields(log_fields())
            .with_writer(std::io::stderr)
            // Colour codes only for a person's terminal, never into a client's log file.
            .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
            .with_target(false)
            .with_filter(filter())
    });
    tracing_subscriber::registry()
        .with(
            tracing_subscriber::fmt::layer()
                .fmt_fields(log_fields())
                .with_writer(writer)
                .with_ansi(false)
                .with_filter(filter()),
        )
        .with(BufferLayer(logs.clone()).with_filter(filter()))
        .with(stderr)
        .try_init()
        .ok();
    Ok(guard)
}

pub struct Options {
    pub paths: Paths,
    pub config: Config,
    pub allow_all: bool,
    pub logs: LogBuffer,
    pub adb: Vec<AdbEndpoint>,
    pub projects: Vec<std::path::PathBuf>,
    /// Start `adb start-server` when a local adb server is not running (off for the demo), as
    /// `adb` itself would: only on an endpoint nobody named (see `adb_explicit`).
    pub autostart_adb: bool,
    /// The endpoints were given explicitly (`--adb` or `device.adb`): never start a server
    /// there (see [`adb_servers`]).
    pub adb_explicit: bool,
}

/// The adb servers to use: `--adb` flags, else the config's, else ANDROID_ADB_SERVER_PORT or
/// 127.0.0.1:5037.
pub fn adb_endpoints(cli: &[String], cfg: &Config) -> anyhow::Result<Vec<AdbEndpoint>> {
    Ok(adb_servers(cli, cfg)?.0)
}

/// [`adb_endpoints`], and whether they were given explicitly (`--adb` or `device.adb`). An
/// explicit address may be a tunnel or someone else's server, so spock-tui never starts an adb
/// server there. The default endpoint (127.0.0.1:5037, or `ANDROID_ADB_SERVER_PORT`'s port,
/// where `adb` itself starts a server on any command) may get one, as `adb` would.
pub fn adb_servers(cli: &[String], cfg: &Config) -> anyhow::Result<(Vec<AdbEndpoint>, bool)> {
    let given = if cli.is_empty() {
        cfg.device.adb.clone()
    } else {
        cli.to_vec()
    };
    let explicit = !given.is_empty();
    Ok((AdbEndpoint::from_args_and_env(&given)?, explicit))
}

pub fn build_core(opts: Options) -> anyhow::Result<Arc<Core>> {
    let mut projects = Vec::new();
    for dir in &opts.projects {
        match crate::project::load(dir) {
            Ok(p) => projects.push(p),
            Err(e) => tracing::warn!(error = %e, "ignoring --project {}", dir.display()),
        }
    }
    if projects.is_empty()
        && let Some(p) = std::env::current_dir()
            .ok()
            .and_then(|d| crate::project::discover(&d))
    {
        projects.push(p);
    }
    let audit = crate::audit::Audit::open_anchored(
        &opts.paths.audit_dir(),
        opts.config.history.size,
        crate::audit::Limits::total_mb(opts.config.audit.max_total_mb),
        opts.config.audit.anchor_target(),
        opts.config.audit.anchor_source().as_deref(),
    )
    .context("opening the audit trail")?;
    {
        // The trail verified once at start, against the anchors where they can be read
        // (Status shows the result); a thread of its own, the whole trail is read.
        let audit = audit.clone();
        let source = opts.config.audit.anchor_source();
        let _ = std::thread::Builder::new()
            .name("audit-verify".into())
            .spawn(move || match audit.verify_now(source.as_deref()) {
                Ok(s) => tracing::info!("audit trail: {s}"),
                Err(s) => tracing::error!("audit trail: {s}"),
            });
    }
    let mut redactor = crate::redact::Redactor::with_defaults_and(&opts.config.redaction.rules)
        .map_err(|e| anyhow::anyhow!("redaction rules: {e}"))?;
    redactor
        .keep_held_in(&opts.paths.held_fields_file())
        .map_err(|e| anyhow::anyhow!("redaction: {e}"))?;
    let registry = tools::catalogue();
    let batch = Arc::new(crate::batch::Batch::new(
        opts.paths.batch_dir(),
        registry.clone(),
    ));
    // Private copies a killed instance could not remove (this instance holds the lock now).
    crate::mcp::staged::clear_leftovers(&opts.paths.staging_dir());
    let core = Arc::new(Core::new(CoreParts {
        registry,
        config: opts.config,
        paths: opts.paths,
        logs: opts.logs,
        allow_all: opts.allow_all,
        devices: Devices::with_options(
            opts.adb,
            Timeouts::default(),
            DeviceOptions {
                autostart_local_server: opts.autostart_adb && !opts.adb_explicit,
                ..DeviceOptions::default()
            },
        ),
        projects: Projects::new(projects),
        audit,
        redactor,
        demo: !opts.autostart_adb,
        // The batch recorder keeps a recording's steps.
        observers: vec![batch.clone()],
    }));
    core.provide(batch);
    // Logged by the load itself (what loaded, and each file that did not, with its line).
    core.reload_own_tools();
    Ok(core)
}

pub fn load_config(paths: &Paths) -> anyhow::Result<Config> {
    Ok(Config::load(&config_file(paths))?)
}

/// The built-in virtual device behind an in-process adb-server front door: `--demo`.
/// `latency` is a profile spec (`phone`, `phone:SEED`); `None` answers instantly.
pub async fn start_demo(
    latency: Option<&str>,
    paths: &Paths,
) -> anyhow::Result<(crate::sim::cli::SimHandle, AdbEndpoint)> {
    let device: Arc<dyn crate::sim::Target> = Arc::new(crate::sim::device::SimDevice::demo());
    let options = |port: u16| -> anyhow::Result<crate::sim::cli::SimOptions> {
        let mut o = crate::sim::cli::SimOptions::adb_server_only(vec![device.clone()]);
        o.adb_server = Some(std::net::SocketAddr::from(([127, 0, 0, 1], port)));
        if let Some(spec) = latency {
            o.faults
                .push((None, crate::sim::cli::latency_command(spec)?));
        }
        Ok(o)
    };
    // The same port at every start of this home, so the device keeps its full name
    // (`sim-1@127.0.0.1:PORT`) across a restart; any free one when that is taken.
    let preferred = demo_port(paths);
    let handle = match crate::sim::cli::start(options(preferred)?).await {
        Ok(h) => h,
        Err(e) => {
            tracing::info!("demo adb server: port {preferred} is taken ({e}); using a free one");
            crate::sim::cli::start(options(0)?).await?
        }
    };
    let addr = handle
        .adb_server
        .context("the demo adb server did not bind")?;
    Ok((handle, AdbEndpoint::new(addr.ip().to_string(), addr.port())))
}

/// The demo's adb-server port for this home: 20000–31999 by a hash of its runtime directory
/// (below Linux's ephemeral ports, 32768 up, which the kernel hands out to outgoing
/// connections; away from adb's 5037).
fn demo_port(paths: &Paths) -> u16 {
    // FNV-1a over the path's bytes: the same port for a home with every build (the standard
    // library's hasher may change between Rust releases).
    use std::os::unix::ffi::OsStrExt;
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in paths.runtime.as_os_str().as_bytes() {
        h = (h ^ u64::from(*b)).wrapping_mul(0x0000_0100_0000_01b3);
    }
    20000 + (h % 12000) as u16
}

/// What both entry points (`serve` and the control centre) set up before the runtime: the
/// instance lock, paths, configuration, logging, where to listen, the token. Errors here print
/// plainly.
pub struct Prepared {
    /// Held until the process ends: one instance per home.
    pub lock: crate::config::lock::InstanceLock,
    pub paths: Paths,
    pub config: Config,
    pub logs: LogBuffer,
    pub listen: Listen,
    pub tokens: crate::config::token::TokenStore,
    pub guard: tracing_appender::non_blocking::WorkerGuard,
}

pub fn prepare(args: &crate::cli::RunArgs, log_to_stderr: bool) -> anyhow::Result<Prepared> {
    let paths = Paths::discover()?;
    let lock = crate::config::lock::InstanceLock::acquire(&paths)?;
    let config = load_config(&paths)?;
    let logs = LogBuffer::new(5000);
    let guard = init_logging(&paths, &logs, log_to_stderr)?;
    let listen = Listen::from_config(&config, args.bind.as_deref(), args.port)?;
    let tokens = crate::config::token::TokenStore::open(&paths.token_file())?;
    Ok(Prepared {
        lock,
        paths,
        config,
        logs,
        listen,
        tokens,
        guard,
    })
}

/// The core, with the demo device started first when asked for (inside the runtime).
pub async fn assemble(
    paths: Paths,
    config: Config,
    logs: LogBuffer,
    args: &crate::cli::RunArgs,
) -> anyhow::Result<(Arc<Core>, Option<crate::sim::cli::SimHandle>)> {
    let (demo, adb, explicit) = if args.demo {
        let (handle, ep) = start_demo(args.latency.as_deref(), &paths).await?;
        (Some(handle), vec![ep], true)
    } else {
        let (adb, explicit) = adb_servers(&args.adb, &config)?;
        (None, adb, explicit)
    };
    let core = build_core(Options {
        paths,
        config,
        allow_all: args.allow_all,
        logs,
        adb,
        projects: args.project.clone(),
        autostart_adb: !args.demo,
        adb_explicit: explicit,
    })?;
    core.toolsets.set_flag(args.toolsets.clone());
    Ok((core, demo))
}

/// Where to listen, resolved from config and flags.
#[derive(Debug, Clone)]
pub struct Listen {
    pub http: SocketAddr,
    /// The user asked for a non-loopback address on purpose.
    pub any_host: bool,
}

impl Listen {
    pub fn from_config(
        cfg: &Config,
        bind: Option<&str>,
        port: Option<u16>,
    ) -> anyhow::Result<Listen> {
        let host = bind.unwrap_or(&cfg.server.bind);
        let ip: std::net::IpAddr = host
            .parse()
            .with_context(|| format!("bind address {host:?} is not an IP address"))?;
        let port = port.unwrap_or(cfg.server.port);
        if !ip.is_loopback() {
            tracing::warn!(
                "HTTP is bound to {ip}, not loopback: any machine that can reach it and holds the token can drive your devices"
            );
            eprintln!(
                "warning: binding {ip}:{port} exposes the MCP endpoint beyond this machine (token still required)"
            );
        }
        Ok(Listen {
            http: SocketAddr::new(ip, port),
            any_host: !ip.is_loopback(),
        })
    }
}

/// Device arrivals and departures (from `host:track-devices`) as `ServerEvent`s, logged too.
async fn forward_device_events(
    shared: Shared,
    mut rx: tokio::sync::broadcast::Receiver<crate::device::DeviceEvent>,
) {
    loop {
        let change = tokio::select! {
            _ = shared.shutdown.cancelled() => return,
            r = rx.recv() => match r {
                Ok(c) => c,
                Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => continue,
                Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
            },
        };
        tracing::info!("{change}");
        shared.core.emit(crate::mcp::ServerEvent::Device { change });
    }
}

/// Notice edits to the config file and the own tools' files while running, so a person's
/// change (a tool switched off, a tool declared) reaches sessions that are already connected.
/// An invalid settings edit is logged and ignored; an own-tools file with an error loads
/// nothing and is logged with its line (the others load).
async fn watch_config(shared: Shared) {
    let path = config_file(&shared.core.paths);
    let tools = spock_core::own::tools_dir(&shared.core.paths.config);
    // Stats on the blocking pool: even a stat can stall on a slow home directory.
    async fn stamp(p: &std::path::Path) -> Option<std::time::SystemTime> {
        tokio::fs::metadata(p).await.and_then(|m| m.modified()).ok()
    }
    let tools_stamp = |dir: std::path::PathBuf| async move {
        tokio::task::spawn_blocking(move || spock_core::own::stamp(&dir))
            .await
            .unwrap_or_default()
    };
    let own = shared.core.own_tools();
    let mut last = stamp(&path).await;
    let mut tick = tokio::time::interval(Duration::from_millis(500));
    loop {
        tokio::select! {
            _ = shared.shutdown.cancelled() => return,
            _ = tick.tick() => {}
        }
        let now = stamp(&path).await;
        let settings_changed = now != last;
        // Compared with what the loaded set read, whoever loaded it last.
        if settings_changed || tools_stamp(tools.clone()).await != own.stamp() {
            // Own tools: from config.toml's `[[tool]]` and tools.d.
            let core = shared.core.clone();
            let _ = tokio::task::spawn_blocking(move || core.reload_own_tools()).await;
        }
        if !settings_changed {
            continue;
        }
        last = now;
        let p = path.clone();
        match tokio::task::spawn_blocking(move || Config::load(&p)).await {
            Ok(Ok(cfg)) => {
                if cfg != *shared.core.config() {
                    tracing::info!(file = %path.display(), "configuration changed on disk; applied");
                    shared.core.adopt_config(cfg);
                }
            }
            Ok(Err(e)) => tracing::error!(error = %e, "ignoring an invalid configuration edit"),
            Err(e) => tracing::error!(error = %e, "config reload failed"),
        }
    }
}

/// Bind HTTP where asked; when that port is taken, on a free one, with a note saying so. No
/// listener when HTTP cannot listen at all: the stdio transport starts regardless.
async fn bind_http(addr: SocketAddr) -> (Option<tokio::net::TcpListener>, Option<String>) {
    let e = match http::bind(addr).await {
        Ok(l) => return (Some(l), None),
        Err(e) => e,
    };
    if e.kind() == std::io::ErrorKind::AddrInUse && addr.port() != 0 {
        let free = http::bind(SocketAddr::new(addr.ip(), 0)).await;
        if let Ok((l, actual)) = free.and_then(|l| l.local_addr().map(|a| (l, a))) {
            let note = format!(
                "port {} was taken; serving on {}; pin one with --port or server.port in config.toml",
                addr.port(),
                actual.port()
            );
            tracing::warn!("{note}");
            return (Some(l), Some(note));
        }
    }
    let note = format!("HTTP cannot listen on {addr}: {e}; stdio still serves");
    tracing::error!("{note}");
    (None, Some(note))
}

/// The attach channel (a private Unix socket or nothing, never TCP), started before the server
/// so whoever sees the server running can attach, and kept up while the MCP transports are
/// stopped and restarted: attached control centres keep their connection. The serving
/// process's own control centre is a session of it too, over an in-process duplex
/// ([`ControlChannel::in_process`]).
pub struct ControlChannel {
    shared: Shared,
    opts: control::ControlOptions,
    server: ServerHandle,
    /// Accepting attach sessions; `None` when the socket could not be bound (logged).
    task: Option<tokio::task::JoinHandle<()>>,
}

impl ControlChannel {
    /// An error only when the control credential cannot be read or created (0600, never
    /// printed); a socket that cannot be bound is logged and leaves only the in-process door.
    pub fn start(
        core: &Arc<Core>,
        tokens: TokenStore,
        server: ServerHandle,
    ) -> anyhow::Result<Self> {
        let cfg = core.config();
        let credential =
            crate::config::token::TokenStore::open(&control::credential_file(&core.paths))?;
        let socket = control::socket_path(&core.paths);
        let opts = control::ControlOptions {
            socket: socket.clone(),
            credential,
            handshake_timeout: Duration::from_secs(cfg.server.handshake_timeout_secs.max(1)),
            write_timeout: Duration::from_secs(cfg.server.write_timeout_secs.max(1)),
        };
        let shared = Shared {
            core: core.clone(),
            tokens,
            shutdown: CancellationToken::new(),
        };
        let task = match control::bind(&socket) {
            Ok(listener) => Some(tokio::spawn(control::serve(
                listener,
                shared.clone(),
                opts.clone(),
                server.clone(),
            ))),
            Err(e) => {
                tracing::error!(error = %e, socket = %socket.display(), "no attach channel: `spock-tui attach` cannot connect");
                None
            }
        };
        Ok(ControlChannel {
            shared,
            opts,
            server,
            task,
        })
    }

    /// A session for this process's own control centre: its end of the duplex, and the
    /// credential its hello presents.
    pub fn in_process(&self) -> (tokio::io::DuplexStream, String) {
        (
            control::in_process(self.shared.clone(), self.opts.clone(), self.server.clone()),
            self.opts.credential.token(),
        )
    }

    /// Say goodbye to every attached control centre and close the socket.
    pub async fn stop(self) {
        self.shared.shutdown.cancel();
        if let Some(task) = self.task {
            let _ = tokio::time::timeout(Duration::from_secs(3), task).await;
        }
    }
}

/// A running server: both transports, stopped together.
pub struct Server {
    pub shared: Shared,
    /// Where HTTP listens; `None` when it could not (the endpoints' note says why).
    pub http_addr: Option<SocketAddr>,
    tasks: JoinSet<()>,
}

impl Server {
    pub async fn start(
        core: Arc<Core>,
        tokens: TokenStore,
        listen: &Listen,
    ) -> anyhow::Result<Server> {
        let cfg = core.config();
        let shared = Shared {
            core: core.clone(),
            tokens,
            shutdown: CancellationToken::new(),
        };
        let (listener, note) = bind_http(listen.http).await;
        let http_addr = listener.as_ref().and_then(|l| l.local_addr().ok());
        let mut tasks = JoinSet::new();
        // Record the HTTP endpoint before the socket writes its descriptor (which names it).
        core.set_endpoints(|e| {
            e.http = http_addr.map(|a| format!("http://{a}/mcp"));
            e.sse = http_addr.map(|a| format!("http://{a}/sse"));
            e.http_note = note;
        });
        if let Some(listener) = listener {
            let http_opts = HttpOptions {
                max_body_bytes: cfg.server.max_body_bytes,
                session_idle: Duration::from_secs(cfg.server.session_idle_secs.max(1)),
                any_host: listen.any_host,
                write_timeout: Duration::from_secs(cfg.server.write_timeout_secs.max(1)),
            };
            let s = shared.clone();
            tasks.spawn(async move {
                if let Err(e) = http::serve(listener, s, http_opts).await {
                    tracing::error!(error = %e, "HTTP transport stopped");
                }
            });
        }
        let sock = Listener::bind(&core.paths.socket_path())
            .await
            .context("binding the stdio socket")?;
        let sock_opts = SocketOptions {
            max_sessions: cfg.server.max_sessions,
            handshake_timeout: Duration::from_secs(cfg.server.handshake_timeout_secs.max(1)),
            write_timeout: Duration::from_secs(cfg.server.write_timeout_secs.max(1)),
            descriptor: core.paths.endpoint_file(),
            door: None,
        };
        let sock_opts_for_door = sock_opts.clone();
        // Written before `start` returns, so whoever started the server can name the endpoint.
        socket::publish(&sock, &shared, &sock_opts.descriptor)
            .context("writing the endpoint descriptor")?;
        let s = shared.clone();
        tasks.spawn(async move {
            if let Err(e) = socket::serve(sock, s, sock_opts).await {
                tracing::error!(error = %e, "socket transport stopped");
            }
        });
        // The agent's door, when the configuration names one (SECURITY.md): a second socket
        // an agent running as another user reaches through its group, served like the first.
        match AgentDoor::configured(&cfg.server.agent_dir, &cfg.server.agent_group) {
            Ok(None) => {}
            Ok(Some(door)) => {
                let listener = door.bind().with_context(|| {
                    format!("opening the agent's door in {}", door.dir.display())
                })?;
                door.write_descriptor(&socket::describe(&listener, &shared))
                    .context("writing the agent's descriptor")?;
                tracing::info!(dir = %door.dir.display(), gid = door.gid, "the agent's door is open");
                let opts = SocketOptions {
                    descriptor: door.descriptor(),
                    door: Some(door),
                    ..sock_opts_for_door.clone()
                };
                let s = shared.clone();
                tasks.spawn(async move {
                    if let Err(e) = socket::serve(listener, s, opts).await {
                        tracing::error!(error = %e, "the agent's door stopped");
                    }
                });
            }
            Err(e) => return Err(e).context("[server] agent_dir / agent_group"),
        }
        // Subscribe before tracking starts, so not even the first arrivals are lost.
        let (s, rx) = (shared.clone(), core.devices.subscribe());
        tasks.spawn(async move { forward_device_events(s, rx).await });
        core.devices.start_tracking();
        let s = shared.clone();
        tasks.spawn(async move { watch_config(s).await });
        match http_addr {
            Some(a) => tracing::info!(http = %a, "server started"),
            None => tracing::info!("server started (stdio only)"),
        }
        Ok(Server {
            shared,
            http_addr,
            tasks,
        })
    }

    /// Stop both transports; live sessions (and their relays) end.
    pub async fn stop(mut self) {
        // Calls cut off by the shutdown (the control centre denied what was waiting when it
        // quit) answer their clients with that denial before the transports close. Calls
        // waiting for a 2026-07-28 client's retry are denied now, and recorded.
        self.shared
            .core
            .kept::<crate::mcp::elicit::Rounds>()
            .close();
        self.shared
            .core
            .sessions
            .answered(Duration::from_secs(3))
            .await;
        tokio::time::sleep(Duration::from_millis(50)).await;
        self.shared.shutdown.cancel();
        let _ = tokio::time::timeout(Duration::from_secs(5), async {
            while self.tasks.join_next().await.is_some() {}
        })
        .await;
        if let Ok(mut e) = self.shared.core.endpoints.write() {
            e.http_note = None;
        }
        self.shared
            .core
            .emit(crate::mcp::ServerEvent::ServerStateChanged { running: false });
        tracing::info!("server stopped");
    }
}

/// The endpoints as `serve` prints them.
pub fn endpoints_text(core: &Core) -> String {
    let e = core.endpoints();
    let mut s = String::new();
    if let Some(h) = e.http {
        s.push_str(&format!("HTTP  {h}\n"));
    }
    if let Some(h) = e.sse {
        s.push_str(&format!("SSE   {h}\n"));
    }
    if let Some(h) = e.stdio {
        s.push_str(&format!(
            "stdio {h} (via `spock-tui relay {}`)\n",
            core.paths.endpoint_file().display()
        ));
    }
    if let Some(n) = e.http_note {
        s.push_str(&format!("note  {n}\n"));
    }
    s
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use tracing_subscriber::layer::SubscriberExt as _;

    #[derive(Clone, Default)]
    struct Buf(Arc<Mutex<Vec<u8>>>);

    impl std::io::Write for Buf {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// The finding: a client named "evil\n… WARN … outcome=Approved FORGED\x1b[2J\x1b]0;owned\x07"
    /// wrote a second, forged line into the log, with a screen clear and a title change.
    #[test]
    fn a_client_value_stays_on_its_line_and_sends_no_escape() {
        let buf = Buf::default();
        let out = buf.clone();
        let sub = tracing_subscriber::registry().with(
            tracing_subscriber::fmt::layer()
                .fmt_fields(super::log_fields())
                .with_writer(move || out.clone())
                .with_ansi(false),
        );
        let evil = "evil\n2026-12-01T00:00:00Z  WARN destructive tool call outcome=Approved FORGED\x1b[2J\x1b]0;owned\x07\u{202E}";
        tracing::subscriber::with_default(sub, || {
            tracing::warn!(client = %evil, tool = %"android_uninstall_app", "destructive tool call");
            tracing::warn!("a message that says {evil}");
        });
        let text = String::from_utf8(buf.0.lock().unwrap().clone()).unwrap();
        assert_eq!(text.lines().count(), 2, "{text}");
        assert!(
            !text.contains('\x1b') && !text.contains('\x07') && !text.contains('\u{202E}'),
            "{text:?}"
        );
        assert!(
            text.contains(r"client=evil\u{a}2026-12-01T00:00:00Z  WARN"),
            "{text}"
        );
        assert!(
            text.contains(r"FORGED\u{1b}[2J\u{1b}]0;owned\u{7}\u{202e}"),
            "{text}"
        );
        assert!(text.contains("tool=android_uninstall_app"), "{text}");
        assert!(text.contains("a message that says evil\\u{a}"), "{text}");
    }
}
