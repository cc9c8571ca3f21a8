//! The plain types every layer of the core shares: who called through which door, how a call
//! ended and who decided, a tool's safety level, and the stored access switches. They live
//! here, below `mcp`, `audit`, `config` and `batch`, so none of those imports another to name
//! them (the old paths, `mcp::events::Outcome` and so on, re-export these).
use std::collections::{BTreeMap, BTreeSet};

pub mod toolset;
pub mod who;

pub use who::{Peer, Verified};

use serde::{Deserialize, Serialize};

/// Which front door a call came through.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Transport {
    Http,
    Sse,
    Stdio,
    Batch,
    Tui,
}

impl Transport {
    pub fn label(self) -> &'static str {
        match self {
            Transport::Http => "http",
            Transport::Sse => "sse",
            Transport::Stdio => "stdio",
            Transport::Batch => "batch",
            Transport::Tui => "tui",
        }
    }
}

/// A client as it identified itself in `initialize` (or per-request metadata on 2026-07-28).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClientId {
    pub name: String,
    pub version: String,
}

impl ClientId {
    pub fn label(client: &Option<ClientId>) -> String {
        match client {
            Some(c) => format!("{} {}", c.name, c.version),
            None => "unknown".to_string(),
        }
    }
}

/// How a call ended; or, for [`Outcome::Started`], that it is about to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Ok,
    Error,
    Denied,
    Refused,
    Cancelled,
    Timeout,
    /// Not an ending: a destructive call's first record, written (synced and anchored) after
    /// its approval and before it runs, so a crash mid-call leaves it on record. The call's
    /// second record (its ending) names it in `started`; one without a second record is a call
    /// the server stopped during (History shows it as interrupted).
    Started,
}

impl Outcome {
    pub fn label(self) -> &'static str {
        match self {
            Outcome::Ok => "ok",
            Outcome::Error => "error",
            Outcome::Denied => "denied",
            Outcome::Refused => "refused",
            Outcome::Cancelled => "cancelled",
            Outcome::Timeout => "timeout",
            Outcome::Started => "started",
        }
    }
}

/// A person's (or the default's) answer to a destructive call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DecidedBy {
    /// A key at the serving process's own keyboard (its in-process control centre).
    Key,
    /// A key at an attached control centre: another process, named by the record's `decider`
    /// (its uid, pid and executable as the server verified them, and its terminal, verified
    /// or marked claimed).
    Attached,
    Timeout,
    NoResponder,
    Dropped,
    /// The MCP client answered (elicitation, `[confirm] via_client`): trusted to have asked
    /// a person.
    Client,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Decision {
    pub approved: bool,
    pub by: DecidedBy,
}

impl Decision {
    pub fn deny(by: DecidedBy) -> Self {
        Decision {
            approved: false,
            by,
        }
    }
}

/// A tool's safety level: a property of the tool, never of a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Level {
    ReadOnly,
    SafeAction,
    Destructive,
}

impl Level {
    pub fn label(self) -> &'static str {
        match self {
            Level::ReadOnly => "Read-only",
            Level::SafeAction => "Safe action",
            Level::Destructive => "Destructive",
        }
    }
    /// The activity marker: `✓` read-only, `⚡` action, `⚠` destructive.
    pub fn marker(self) -> &'static str {
        match self {
            Level::ReadOnly => "✓",
            Level::SafeAction => "⚡",
            Level::Destructive => "⚠",
        }
    }
}

/// The host tools in JetWhale's four groups: Observe, Navigate, Manage, and Settings &
/// servers, whose two tools do what unticking a box cannot undo and are switched one by one.
/// Those two start off and are stored as what was allowed (so a group added later that
/// cannot be undone starts off too); the other three start on and are stored as what was
/// switched off.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HostGroup {
    /// The server's status and its own log (`spock_get_status`, `spock_get_logs`,
    /// `spock_clear_logs`).
    Observe,
    /// The control centre's screen (`spock_navigate`).
    Navigate,
    /// Toolsets and projects (`spock_list_toolsets`, `spock_enable_toolset`,
    /// `android_select_project`).
    Manage,
    Settings,
    AdbServer,
}

impl HostGroup {
    pub const ALL: [HostGroup; 5] = [
        HostGroup::Observe,
        HostGroup::Navigate,
        HostGroup::Manage,
        HostGroup::Settings,
        HostGroup::AdbServer,
    ];
    pub fn key(self) -> &'static str {
        match self {
            HostGroup::Observe => "observe",
            HostGroup::Navigate => "navigate",
            HostGroup::Manage => "manage",
            HostGroup::Settings => "settings",
            HostGroup::AdbServer => "adb_server",
        }
    }
    pub fn label(self) -> &'static str {
        match self {
            HostGroup::Observe => "Observe: the server's status and log",
            HostGroup::Navigate => "Navigate: move the control centre's screen",
            HostGroup::Manage => "Manage: toolsets and projects",
            HostGroup::Settings => "Settings & servers: change settings",
            HostGroup::AdbServer => "Settings & servers: restart the adb server",
        }
    }
    /// On until switched off (what it does, unticking undoes); the others start off.
    pub fn starts_on(self) -> bool {
        matches!(
            self,
            HostGroup::Observe | HostGroup::Navigate | HostGroup::Manage
        )
    }
    /// Whether `settings` allow this group.
    pub fn on_in(self, settings: &AccessSettings) -> bool {
        if self.starts_on() {
            !settings.disabled_groups.contains(self.key())
        } else {
            settings.allowed_groups.contains(self.key())
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AccessSettings {
    /// Tools switched off.
    #[serde(default)]
    pub disabled: BTreeSet<String>,
    /// Host groups that start off, switched on (`settings`, `adb_server`).
    #[serde(default)]
    pub allowed_groups: BTreeSet<String>,
    /// Host groups that start on, switched off (`observe`, `navigate`, `manage`).
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    pub disabled_groups: BTreeSet<String>,
    /// What agents may do on each device, keyed by the device's identity (what leases use:
    /// it survives reconnects and every name that reaches the phone), and under
    /// [`DEFAULT_DEVICE`] for every device without an entry of its own.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub devices: BTreeMap<String, DeviceAccess>,
}

/// The key of [`AccessSettings::devices`] for devices that have no entry of their own.
pub const DEFAULT_DEVICE: &str = "default";

/// Which of a device's two risks agents may take (JetWhale's Inspect and Interact): seeing it,
/// and acting on it; and, for acting, which apps.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DeviceAccess {
    /// What reads the device: screenshots, the UI tree, finds and waits, logcat, package and
    /// activity reads, pulls, recordings.
    #[serde(default = "yes")]
    pub inspect: bool,
    /// What acts on it: taps, typing, keys, gestures, launches, intents, pushes, installs, shell.
    #[serde(default = "yes")]
    pub interact: bool,
    /// Interact only with these apps (packages); `None`: any app. An element action checks the
    /// package of the node it acts on, in the dump it acts on; a launch, an intent or an app
    /// tool its target package; what cannot name its app (shell, raw coordinates, keys,
    /// typing without an element, pushes, installs, deep links) is refused unless `raw`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub apps: Option<BTreeSet<String>>,
    /// With `apps` set: allow what cannot name its app all the same.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub raw: bool,
    /// The name a person knows the device by (its model and serial when it was set), shown
    /// beside the identity; no part of the check.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
}

fn yes() -> bool {
    true
}

impl Default for DeviceAccess {
    fn default() -> Self {
        DeviceAccess {
            inspect: true,
            interact: true,
            apps: None,
            raw: false,
            label: None,
        }
    }
}

impl DeviceAccess {
    /// Allows no more than both `self` and `other` do: what applies to a device that could be
    /// either (one whose identity cannot be read yet).
    pub fn meet(&self, other: &DeviceAccess) -> DeviceAccess {
        let apps = match (&self.apps, &other.apps) {
            (None, None) => None,
            (Some(a), None) | (None, Some(a)) => Some(a.clone()),
            (Some(a), Some(b)) => Some(a.intersection(b).cloned().collect()),
        };
        DeviceAccess {
            inspect: self.inspect && other.inspect,
            interact: self.interact && other.interact,
            raw: self.raw && other.raw,
            apps,
            label: None,
        }
    }
}

impl AccessSettings {
    /// What applies to the device with identity `identity`: its own entry, else the default;
    /// for a device whose identity is not known, no more than every entry allows (it could be
    /// any of them).
    pub fn device(&self, identity: Option<&str>) -> (DeviceAccess, DeviceBranch) {
        let default = self
            .devices
            .get(DEFAULT_DEVICE)
            .cloned()
            .unwrap_or_default();
        match identity {
            Some(id) => match self.devices.get(id) {
                Some(own) if id != DEFAULT_DEVICE => {
                    (own.clone(), DeviceBranch::Own(id.to_string()))
                }
                _ => (default, DeviceBranch::Default),
            },
            None => {
                let all = self.devices.values().fold(default, |acc, d| acc.meet(d));
                (all, DeviceBranch::Unknown)
            }
        }
    }
}

/// Which entry of the device tree decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DeviceBranch {
    /// The device's own entry (its identity).
    Own(String),
    /// The entry for devices without one of their own.
    Default,
    /// The device has not said who it is: every entry at once.
    Unknown,
}
