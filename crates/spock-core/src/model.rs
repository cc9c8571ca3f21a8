//! The plain types every layer of the core shares: who called through which door, how a call
//! ended and who decided, a tool's safety level, and the stored access switches. They live
//! here, below `mcp`, `audit`, `config` and `batch`, so none of those imports another to name
//! them (the old paths, `mcp::events::Outcome` and so on, re-export these).
use std::collections::BTreeSet;

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
    Key,
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

/// Host tools whose effect cannot be undone by unticking a box start off, and are stored as
/// what was allowed (so a group added later starts off too).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HostGroup {
    Settings,
    AdbServer,
}

impl HostGroup {
    pub const ALL: [HostGroup; 2] = [HostGroup::Settings, HostGroup::AdbServer];
    pub fn key(self) -> &'static str {
        match self {
            HostGroup::Settings => "settings",
            HostGroup::AdbServer => "adb_server",
        }
    }
    pub fn label(self) -> &'static str {
        match self {
            HostGroup::Settings => "Settings & servers: change settings",
            HostGroup::AdbServer => "Settings & servers: restart the adb server",
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AccessSettings {
    /// Tools switched off.
    #[serde(default)]
    pub disabled: BTreeSet<String>,
    /// Host groups switched on (`settings`, `adb_server`).
    #[serde(default)]
    pub allowed_groups: BTreeSet<String>,
}
