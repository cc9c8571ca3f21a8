//! The one event enum the loop waits on: terminal input, server events, confirmation and
//! navigation requests, server lifecycle reports, device lists, batch snapshots and replies,
//! and the slow tick. Also the
//! plain-data snapshots of the core the state is refreshed from, so `update()` never locks.
use std::collections::BTreeSet;
use std::path::PathBuf;

use crossterm::event::{KeyEvent, MouseEvent};

use super::batch::{BatchData, BatchReply};
use crate::mcp::ServerEvent;
use crate::mcp::access::AccessSettings;
use crate::mcp::confirm::ConfirmRequest;
use crate::mcp::core::{ClientSeen, Core, Endpoints};
use crate::mcp::uilink::NavRequest;

#[derive(Debug)]
pub enum Event {
    Key(KeyEvent),
    /// A key with the time the input thread read it: a key read before the frame that first
    /// showed a confirmation cannot answer it. (`Key` counts as read when it is handled.)
    KeyAt(KeyEvent, tokio::time::Instant),
    Mouse(MouseEvent),
    Resize(u16, u16),
    /// The terminal answered a fence, read at this time: every frame written before that
    /// fence is on the person's screen, and every key read before it was typed before.
    Fence(tokio::time::Instant),
    Server(ServerEvent),
    /// The event channel overflowed and this many events were lost.
    Lagged(u64),
    Sync(CoreView),
    Confirm(ConfirmRequest),
    Navigate(NavRequest),
    ServerStatus(ServerStatus),
    /// The server's History preload again, after the attach link reconnected.
    History(super::history::Preloaded),
    Devices(Vec<DeviceRow>),
    /// Tasks, runs, the runner's position and the recording, read from `core.batch`.
    Batch(BatchData),
    /// How a batch command the person gave went.
    BatchReply(BatchReply),
    /// A line for the footer (an effect's result: copied, saved, an error).
    Notice(String),
    Tick,
    /// Ctrl-C from a signal, SIGTERM, SIGHUP.
    Quit,
}

pub use crate::app::ServerStatus;

/// A device as the device layer reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceRow {
    pub serial: String,
    /// `device`, `offline`, `unauthorized`, …
    pub state: String,
    pub model: Option<String>,
    pub selected: bool,
}

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
    pub leases: Vec<super::leases::LeaseRow>,
}

impl CoreView {
    pub fn read(core: &Core, token: String) -> CoreView {
        let cfg = core.config();
        CoreView {
            endpoints: core.endpoints(),
            clients: core.clients(),
            enabled: core
                .registry
                .all()
                .iter()
                .filter(|t| core.access.allows(t))
                .map(|t| t.name.to_string())
                .collect(),
            access: core.access.settings(),
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
            leases: super::leases::rows(core),
        }
    }
}
