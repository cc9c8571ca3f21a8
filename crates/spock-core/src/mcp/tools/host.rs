//! Host tools (002_… "Host tools"): the state of spock-tui itself — status, its own log.
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::mcp::core::{ClientSeen, Endpoints, NO_CLIENT_YET};
use crate::mcp::ctx::Ctx;
use crate::mcp::logbuf::{LogEntry, level_of};
use crate::mcp::registry::{HostGroup, Level, Meta, ToolDef};
use crate::mcp::result::ToolError;
use crate::mcp::toolsets::Toolset;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoArgs {}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ToolCounts {
    pub total: usize,
    pub enabled: usize,
    pub read_only: usize,
    pub safe_action: usize,
    pub destructive: usize,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AccessState {
    /// True when `--allow-all` lifted every switch for this process (nothing was written).
    pub allow_all: bool,
    pub disabled: Vec<String>,
    pub allowed_groups: Vec<String>,
    /// Host groups that start on (observe, navigate, manage), switched off.
    pub disabled_groups: Vec<String>,
    /// The device tree: by device identity (and `default`, for devices without an entry),
    /// whether agents may Inspect and Interact, and the apps Interact is limited to. Empty:
    /// every device allows both. Lifted, like every switch, while `allowAll` is true.
    pub devices: std::collections::BTreeMap<String, crate::model::DeviceAccess>,
    /// Destructive calls always wait for a person; this says whether one can answer now.
    pub confirmation_responder: bool,
}

/// The audit trail on disk against its cap (`audit.max_total_mb`).
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AuditState {
    pub bytes: u64,
    pub max_bytes: u64,
    /// Set at 90% of the cap or more.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warning: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SettingsState {
    /// The configured port (the next start's).
    pub port: u16,
    /// The port HTTP serves on now, when it differs from `port` (`--port`, or `port` was taken).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub serving_port: Option<u16>,
    pub bind: String,
    pub history_size: usize,
    pub confirm_timeout_secs: u64,
    pub max_sessions: usize,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ClientState {
    pub name: String,
    pub version: String,
    pub transport: String,
    pub protocol: String,
    pub calls: u64,
    pub last_seen: String,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Status {
    pub version: String,
    pub uptime_secs: u64,
    /// The transports actually accepting connections.
    pub endpoints: EndpointState,
    /// Clients that identified themselves; empty with `clientsNote` when none has.
    pub clients: Vec<ClientState>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clients_note: Option<String>,
    pub tools: ToolCounts,
    pub access: AccessState,
    pub audit: AuditState,
    pub settings: SettingsState,
    /// The control centre's current screen ("none" when headless).
    pub screen: String,
    pub files: FileState,
    /// Devices as last seen by the device tracker (no device command is run).
    pub devices: Vec<crate::mcp::tools::common::DeviceRef>,
    /// The device this client selected (its full name `serial@host:port`), even while it is
    /// not attached. Each client session has its own selection.
    pub selected_device: Option<String>,
    /// Devices leased by clients (`android_lease_device`): holder and expiry.
    pub leases: Vec<crate::mcp::lease::LeaseInfo>,
    /// adb servers that are not answering, with why.
    pub adb_server_errors: Vec<String>,
    /// What spock-tui did to adb servers on its own (it starts one only on the default local
    /// endpoint, as `adb` would; never on an address given with --adb).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub adb_notes: Vec<String>,
    pub demo: bool,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EndpointState {
    pub http: Option<String>,
    pub sse: Option<String>,
    pub stdio: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FileState {
    pub config: String,
    pub token: String,
    pub log_dir: String,
    pub data_dir: String,
}

fn client_state(c: ClientSeen) -> ClientState {
    ClientState {
        name: c.name,
        version: c.version,
        transport: c.transport.label().to_string(),
        protocol: c.protocol,
        calls: c.calls,
        last_seen: c.last_seen.to_rfc3339(),
    }
}

pub fn status(ctx: &Ctx) -> Status {
    let core = &ctx.core;
    let reg = &core.registry;
    let cfg = core.config();
    let access = core.access.settings();
    let clients: Vec<ClientState> = core
        .sessions
        .clients()
        .into_iter()
        .map(client_state)
        .collect();
    let Endpoints {
        http, sse, stdio, ..
    } = core.endpoints();
    Status {
        version: env!("CARGO_PKG_VERSION").to_string(),
        uptime_secs: core.started.elapsed().as_secs(),
        endpoints: EndpointState { http, sse, stdio },
        clients_note: clients.is_empty().then(|| NO_CLIENT_YET.to_string()),
        clients,
        tools: ToolCounts {
            total: reg.len(),
            enabled: reg.all().iter().filter(|t| core.access.allows(t)).count(),
            read_only: reg.count(Level::ReadOnly),
            safe_action: reg.count(Level::SafeAction),
            destructive: reg.count(Level::Destructive),
        },
        access: AccessState {
            allow_all: core.access.allow_all(),
            disabled: access.disabled.into_iter().collect(),
            allowed_groups: access.allowed_groups.into_iter().collect(),
            disabled_groups: access.disabled_groups.into_iter().collect(),
            devices: access.devices,
            confirmation_responder: core.confirmer.has_responder(),
        },
        audit: {
            let u = core.audit.usage();
            AuditState {
                bytes: u.bytes,
                max_bytes: u.max_bytes,
                warning: u.warning(),
            }
        },
        settings: SettingsState {
            port: cfg.server.port,
            serving_port: core
                .endpoints()
                .http_port()
                .filter(|p| *p != cfg.server.port),
            bind: cfg.server.bind.clone(),
            history_size: cfg.history.size,
            confirm_timeout_secs: cfg.safety.confirm_timeout_secs,
            max_sessions: cfg.server.max_sessions,
        },
        screen: core.screen(),
        devices: crate::mcp::tools::common::DeviceRef::all(&core.devices, &core.devices.snapshot()),
        selected_device: core.sessions.selections.get(&ctx.origin),
        leases: {
            let now = tokio::time::Instant::now();
            core.sessions
                .leases
                .list()
                .iter()
                .map(|l| l.info(now))
                .collect()
        },
        adb_server_errors: core
            .devices
            .server_errors()
            .into_iter()
            .map(|(s, e)| format!("{s}: {e}"))
            .collect(),
        adb_notes: core.devices.notes(),
        demo: core.demo,
        files: FileState {
            config: crate::config::config_file(&core.paths)
                .display()
                .to_string(),
            token: core.paths.token_file().display().to_string(),
            log_dir: core.paths.log_dir().display().to_string(),
            data_dir: core.paths.data.display().to_string(),
        },
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LogsArgs {
    /// How many entries at most (default 200, maximum 1000).
    pub limit: Option<usize>,
    /// Minimum level: ERROR, WARN, INFO, DEBUG or TRACE.
    pub level: Option<String>,
    /// Case-insensitive substring the message must contain.
    pub contains: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Logs {
    /// Oldest first. Messages longer than 2000 characters are truncated.
    pub entries: Vec<LogEntryOut>,
    pub matched: usize,
    pub total: usize,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LogEntryOut {
    pub time: String,
    pub level: String,
    pub target: String,
    pub message: String,
}

impl From<LogEntry> for LogEntryOut {
    fn from(e: LogEntry) -> Self {
        LogEntryOut {
            time: e.time.to_rfc3339(),
            level: e.level,
            target: e.target,
            message: e.message,
        }
    }
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Cleared {
    pub cleared: usize,
}

pub fn tools() -> Vec<ToolDef> {
    vec![
        Meta {
            name: "spock_get_status",
            title: "spock-tui status",
            level: Level::ReadOnly,
            toolset: Toolset::Core,
            description: "spock-tui now: version, endpoints, clients, devices, tool counts, access, \
                          settings. A good first call.",
        }
        .def(|ctx: Ctx, _: NoArgs| async move { Ok::<_, ToolError>(status(&ctx)) })
        .in_group(HostGroup::Observe),
        Meta {
            name: "spock_get_logs",
            title: "Read spock-tui's own log",
            level: Level::ReadOnly,
            toolset: Toolset::Host,
            description: "spock-tui's own log (not the device's: use android_get_logcat), oldest first.",
        }
        .def(|ctx: Ctx, a: LogsArgs| async move {
            let limit = a.limit.unwrap_or(200);
            if limit == 0 || limit > 1000 {
                return Err(ToolError::invalid_args("limit must be between 1 and 1000"));
            }
            let level = match a.level.as_deref() {
                None => None,
                Some(s) => Some(level_of(s).ok_or_else(|| {
                    ToolError::invalid_args(format!("level {s:?}: use ERROR, WARN, INFO, DEBUG or TRACE"))
                })?),
            };
            // `contains` matches what the caller is shown, never the hidden text.
            let audience = ctx.audience();
            let (entries, matched, total) = ctx.core.logs.query_as(limit, level, a.contains.as_deref(), |s| {
                ctx.core.redactor.redact_str(s, audience).into_owned()
            });
            Ok(Logs { entries: entries.into_iter().map(Into::into).collect(), matched, total })
        })
        .in_group(HostGroup::Observe),
        Meta {
            name: "spock_clear_logs",
            title: "Clear spock-tui's own log",
            level: Level::SafeAction,
            toolset: Toolset::Host,
            description: "Discards every entry of spock-tui's in-memory log (the log file and the audit trail are kept).",
        }
        .def(|ctx: Ctx, _: NoArgs| async move { Ok::<_, ToolError>(Cleared { cleared: ctx.core.logs.clear() }) })
        .in_group(HostGroup::Observe),
    ]
}
