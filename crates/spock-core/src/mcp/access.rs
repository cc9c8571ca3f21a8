//! Tool access: what may be *attempted*. Confirmation decides what actually runs.
//!
//! Stored as what is off (a tool added later is on), except the host groups that cannot be
//! undone by unticking a box, which are stored as what was allowed (a group added later starts
//! off). Every call is checked as it arrives, so revoking takes effect mid-session.
//! `--allow-all` lifts the switches for this process only; it never lifts a confirmation.
use std::sync::RwLock;

pub use crate::model::AccessSettings;

use super::registry::{HostGroup, Level, Registry, ToolDef};
use super::result::{ErrorKind, ToolError};

#[derive(Debug)]
pub struct Access {
    settings: RwLock<AccessSettings>,
    allow_all: bool,
    /// Where a person changes it, named in refusals.
    where_: String,
}

impl Access {
    pub fn new(settings: AccessSettings, allow_all: bool, where_: String) -> Self {
        Access {
            settings: RwLock::new(settings),
            allow_all,
            where_,
        }
    }

    pub fn allow_all(&self) -> bool {
        self.allow_all
    }

    pub fn settings(&self) -> AccessSettings {
        self.settings.read().map(|s| s.clone()).unwrap_or_default()
    }

    pub fn replace(&self, new: AccessSettings) {
        if let Ok(mut s) = self.settings.write() {
            *s = new;
        }
    }

    /// Whether the stored switches allow the tool (ignoring `--allow-all`).
    pub fn stored_allows(&self, tool: &ToolDef) -> bool {
        let s = self.settings();
        !s.disabled.contains(tool.name)
            && tool
                .group
                .is_none_or(|g| s.allowed_groups.contains(g.key()))
    }

    pub fn allows(&self, tool: &ToolDef) -> bool {
        self.allow_all || self.stored_allows(tool)
    }

    /// The refusal for a call, or `Ok` when it may be attempted.
    pub fn check(&self, tool: &ToolDef) -> Result<(), ToolError> {
        if self.allows(tool) {
            return Ok(());
        }
        let s = self.settings();
        let (switch, message) = match tool.group {
            Some(g) if !s.allowed_groups.contains(g.key()) => (
                format!("access.allowed_groups += \"{}\"", g.key()),
                format!(
                    "{} is refused: the host group \"{}\" ({}) is off. A person can turn it on in \
                     the control centre (Settings → Tool access) or in {}.",
                    tool.name,
                    g.key(),
                    g.label(),
                    self.where_
                ),
            ),
            _ => (
                format!("access.disabled -= \"{}\"", tool.name),
                format!(
                    "{} is turned off. A person can turn it on in the control centre (Settings → \
                     Tool access) or in {} (access.disabled).",
                    tool.name, self.where_
                ),
            ),
        };
        Err(ToolError::new(ErrorKind::Disabled, message)
            .with_details(serde_json::json!({ "tool": tool.name, "setting": switch })))
    }

    pub fn set_enabled(&self, tool: &ToolDef, on: bool) {
        if let Ok(mut s) = self.settings.write() {
            if let Some(g) = tool.group
                && on
            {
                s.allowed_groups.insert(g.key().to_string());
            }
            if on {
                s.disabled.remove(tool.name);
            } else {
                s.disabled.insert(tool.name.to_string());
            }
        }
    }

    pub fn set_group(&self, group: HostGroup, on: bool) {
        if let Ok(mut s) = self.settings.write() {
            if on {
                s.allowed_groups.insert(group.key().to_string());
            } else {
                s.allowed_groups.remove(group.key());
            }
        }
    }

    /// "Enable all": every tool on, every host group allowed.
    pub fn enable_all(&self) {
        if let Ok(mut s) = self.settings.write() {
            s.disabled.clear();
            s.allowed_groups = HostGroup::ALL.iter().map(|g| g.key().to_string()).collect();
        }
    }

    /// "Read-only only": everything that is not read-only off, host groups off.
    pub fn read_only_only(&self, registry: &Registry) {
        if let Ok(mut s) = self.settings.write() {
            s.disabled = registry
                .all()
                .iter()
                .filter(|t| t.level != Level::ReadOnly)
                .map(|t| t.name.to_string())
                .collect();
            s.allowed_groups.clear();
        }
    }
}
