//! What the screens show of the core: [`CoreView`] as the control centre in the serving
//! process reads it, and its wire form [`ViewWire`] (never the MCP token), with the rows it
//! holds (leases, devices) and a destructive call waiting for a person ([`AskWire`]).
use std::collections::BTreeSet;
use std::path::PathBuf;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::time::Instant;

use crate::mcp::access::AccessSettings;
use crate::mcp::core::{ClientSeen, Core, Endpoints};
use crate::mcp::events::{ClientId, Transport};
use crate::mcp::registry::Level;

/// What the state needs from the core, copied out under the core's locks by the loop.
#[derive(Debug, Clone, Default)]
pub struct CoreView {
    pub endpoints: Endpoints,
    pub clients: Vec<ClientSeen>,
    /// Tools the access switches currently allow (`--allow-all` included).
    pub enabled: BTreeSet<String>,
    pub access: AccessSettings,
    pub allow_all: bool,
    pub history_size: usize,
    /// Set when the audit trail is at 90% of its cap or more (`audit.max_total_mb`).
    pub audit_warning: Option<String>,
    /// The audit trail's anchoring and last verify (Status, History).
    pub trail: spock_core::audit::TrailState,
    pub confirm_timeout_secs: u64,
    /// `[confirm] via_client`: destructive calls may be approved through the MCP client.
    pub confirm_via_client: bool,
    pub port: u16,
    pub bind: String,
    pub responder: bool,
    pub config_file: PathBuf,
    /// For the stdio client configuration.
    pub exe: PathBuf,
    pub descriptor: PathBuf,
    /// For the HTTP client configuration (shown with a warning; it is a credential).
    pub token: String,
    /// Devices leased by clients, by device.
    pub leases: Vec<LeaseRow>,
    /// The MCP clients connected now ("1 over stdio"): what quitting would cut off.
    pub connected: Vec<String>,
    /// The devices attached now that have said which phone they are: (identity, how a person
    /// knows it), for the device tree on Settings.
    pub seen_devices: Vec<(String, String)>,
    /// The apps seen on each device's screens, by identity: what Settings offers for a
    /// device's apps list.
    pub apps_seen: std::collections::BTreeMap<String, Vec<String>>,
    /// The own tools loaded now (declared in TOML), for the Tools and Settings screens.
    pub own_tools: Vec<OwnToolView>,
}

/// An own tool as the screens show it (the built-ins come from the catalogue compiled in).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OwnToolView {
    pub name: String,
    pub title: String,
    pub level: Level,
    pub toolset: crate::mcp::toolsets::Toolset,
    pub description: String,
    pub input_schema: Value,
}

fn own_tools(core: &Core) -> Vec<OwnToolView> {
    core.own_tools()
        .all()
        .iter()
        .map(|t| OwnToolView {
            name: t.name.to_string(),
            title: t.title.to_string(),
            level: t.level,
            toolset: t.toolset,
            description: t.description.to_string(),
            input_schema: Value::Object((*t.input_schema).clone()),
        })
        .collect()
}

/// The attached devices with an identity, each once, named by serial and model.
fn seen_devices(core: &Core) -> Vec<(String, String)> {
    let mut seen: Vec<(String, String)> = Vec::new();
    for e in core.devices.snapshot() {
        let Some(id) = core.devices.identity(&e.id) else {
            continue;
        };
        if seen.iter().any(|(i, _)| *i == id) {
            continue;
        }
        let model = core
            .devices
            .facts(&e.id)
            .and_then(|f| f.props)
            .and_then(|p| p.model)
            .map(|m| format!(" ({m})"))
            .unwrap_or_default();
        seen.push((id, format!("{}{model}", e.serial)));
    }
    seen
}

impl CoreView {
    pub fn read(core: &Core, token: String) -> CoreView {
        let cfg = core.config();
        CoreView {
            endpoints: core.endpoints(),
            clients: core.sessions.clients(),
            enabled: core
                .all_tools()
                .iter()
                .filter(|t| core.access.allows(t))
                .map(|t| t.name.to_string())
                .collect(),
            access: core.access.settings(),
            seen_devices: seen_devices(core),
            apps_seen: core.devices.apps_seen(),
            own_tools: own_tools(core),
            allow_all: core.access.allow_all(),
            history_size: cfg.history.size,
            audit_warning: core.audit.usage().warning(),
            trail: core.audit.trail_state(),
            confirm_timeout_secs: cfg.safety.confirm_timeout_secs,
            confirm_via_client: cfg.confirm.via_client,
            port: cfg.server.port,
            bind: cfg.server.bind.clone(),
            responder: core.confirmer.has_responder(),
            config_file: crate::config::config_file(&core.paths),
            exe: std::env::current_exe().unwrap_or_else(|_| PathBuf::from("spock-tui")),
            descriptor: core.paths.endpoint_file(),
            token,
            leases: lease_rows(core),
            connected: core.sessions.connected(),
        }
    }
}

/// A lease as Status shows it, copied out of the core with the rest of [`CoreView`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeaseRow {
    pub id: u64,
    pub device: String,
    /// `client/version (stdio#3)`.
    pub holder: String,
    pub expires_at: DateTime<Utc>,
    pub deadline: Instant,
}

/// The leases Status shows, read from the core.
pub fn lease_rows(core: &Core) -> Vec<LeaseRow> {
    core.sessions
        .leases
        .list()
        .into_iter()
        .map(|l| LeaseRow {
            id: l.id,
            holder: l.holder.describe(),
            device: l.device,
            expires_at: l.expires_at,
            deadline: l.deadline,
        })
        .collect()
}

/// A lease as Status shows it; `remaining_ms` as of sending.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LeaseWire {
    pub id: u64,
    pub device: String,
    pub holder: String,
    pub expires_at: DateTime<Utc>,
    pub remaining_ms: u64,
}

/// What the screens show of the core (the in-process `CoreView`), without the MCP token: an
/// attached control centre shows the HTTP client configuration with a placeholder and says
/// where the token is.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct ViewWire {
    pub endpoints: Endpoints,
    pub clients: Vec<ClientSeen>,
    pub enabled: Vec<String>,
    pub access: AccessSettings,
    /// The attached devices that said which phone they are (absent from older servers).
    #[serde(default)]
    pub seen_devices: Vec<(String, String)>,
    /// The apps seen on each device's screens (absent from older servers).
    #[serde(default)]
    pub apps_seen: std::collections::BTreeMap<String, Vec<String>>,
    /// The own tools loaded now (absent from older servers).
    #[serde(default)]
    pub own_tools: Vec<OwnToolView>,
    pub allow_all: bool,
    pub history_size: usize,
    pub audit_warning: Option<String>,
    /// The audit trail's anchoring and last verify (absent from older servers).
    #[serde(default)]
    pub trail: spock_core::audit::TrailState,
    pub confirm_timeout_secs: u64,
    /// `[confirm] via_client`: a headless server asks through an MCP client (elicitation).
    #[serde(default)]
    pub confirm_via_client: bool,
    pub port: u16,
    pub bind: String,
    pub responder: bool,
    pub config_file: String,
    pub descriptor: String,
    pub exe: String,
    pub leases: Vec<LeaseWire>,
    /// The MCP clients connected now (absent from older servers).
    #[serde(default)]
    pub connected: Vec<String>,
}

/// A destructive call waiting for a person, as the modal shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AskWire {
    pub call_id: u64,
    pub tool: String,
    pub title: String,
    pub level: Level,
    /// A claim: the name the client gave.
    pub client: Option<ClientId>,
    pub transport: Transport,
    /// A claim: `ssh from …`, as the client's relay reported it.
    pub via: Option<String>,
    /// What the server verified about who asks (protocol 3; absent from older servers, then
    /// read as an MCP client's over `transport`, never as the person's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verified: Option<spock_core::model::Verified>,
    pub device: Option<String>,
    pub device_model: Option<String>,
    pub arguments: Value,
    pub reason: Option<String>,
    /// The whole confirmation timeout, and how much of it is left as this is sent.
    pub timeout_ms: u64,
    pub remaining_ms: u64,
}

/// A device as the Status screen lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeviceWire {
    pub serial: String,
    pub state: String,
    pub model: Option<String>,
    pub selected: bool,
}

impl ViewWire {
    /// The wire form of a view; the token is not copied.
    pub fn from_view(v: &CoreView) -> ViewWire {
        let now = tokio::time::Instant::now();
        ViewWire {
            endpoints: v.endpoints.clone(),
            clients: v.clients.clone(),
            enabled: v.enabled.iter().cloned().collect(),
            access: v.access.clone(),
            seen_devices: v.seen_devices.clone(),
            apps_seen: v.apps_seen.clone(),
            own_tools: v.own_tools.clone(),
            allow_all: v.allow_all,
            history_size: v.history_size,
            audit_warning: v.audit_warning.clone(),
            trail: v.trail.clone(),
            confirm_timeout_secs: v.confirm_timeout_secs,
            confirm_via_client: v.confirm_via_client,
            port: v.port,
            bind: v.bind.clone(),
            responder: v.responder,
            config_file: v.config_file.display().to_string(),
            descriptor: v.descriptor.display().to_string(),
            exe: v.exe.display().to_string(),
            leases: v
                .leases
                .iter()
                .map(|l| LeaseWire {
                    id: l.id,
                    device: l.device.clone(),
                    holder: l.holder.clone(),
                    expires_at: l.expires_at,
                    remaining_ms: l.deadline.saturating_duration_since(now).as_millis() as u64,
                })
                .collect(),
            connected: v.connected.clone(),
        }
    }

    /// The view an attached control centre draws; `token` stands in for the MCP token.
    pub fn into_view(self, token: String) -> CoreView {
        let now = tokio::time::Instant::now();
        CoreView {
            endpoints: self.endpoints,
            clients: self.clients,
            enabled: self.enabled.into_iter().collect(),
            access: self.access,
            seen_devices: self.seen_devices,
            apps_seen: self.apps_seen,
            own_tools: self.own_tools,
            allow_all: self.allow_all,
            history_size: self.history_size.max(1),
            audit_warning: self.audit_warning,
            trail: self.trail,
            confirm_timeout_secs: self.confirm_timeout_secs,
            confirm_via_client: self.confirm_via_client,
            port: self.port,
            bind: self.bind,
            responder: self.responder,
            config_file: self.config_file.into(),
            exe: self.exe.into(),
            descriptor: self.descriptor.into(),
            token,
            leases: self
                .leases
                .into_iter()
                .map(|l| LeaseRow {
                    id: l.id,
                    device: l.device,
                    holder: l.holder,
                    expires_at: l.expires_at,
                    deadline: now + std::time::Duration::from_millis(l.remaining_ms),
                })
                .collect(),
            connected: self.connected,
        }
    }
}
