//! The plain types the layers share: a tool's safety [`Level`], how a call came in and ended
//! ([`Transport`], [`Outcome`], [`Decision`]) and the person's access switches
//! ([`AccessSettings`]). They live here, below `mcp`, so the audit trail and the configuration
//! use them without importing the MCP core; `mcp::registry`, `mcp::events` and `mcp::access`
//! re-export them under their old paths.
use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

/// A tool's safety level: a property of the tool, never of a request.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, serde::Deserialize,
)]
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

/// Which front door a call came through.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, serde::Deserialize)]
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

/// How a call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Ok,
    Error,
    Denied,
    Refused,
    Cancelled,
    Timeout,
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
        }
    }
}

/// A person's (or the default's) answer to a destructive call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DecidedBy {
    Key,
    Timeout,
    NoResponder,
    Dropped,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
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
