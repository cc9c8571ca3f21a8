//! The Settings screen's rows, derived from the state: the two one-click decisions, the host
//! groups, the numeric settings, then every tool grouped by level. Drawing and key handling
//! both walk this one list, so what is shown is what the cursor moves over.
use super::state::State;
use crate::mcp::access::DEFAULT_DEVICE;
use crate::mcp::registry::{HostGroup, Level};
use crate::protocol::SettingField;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Row {
    Heading(String),
    EnableAll,
    ReadOnlyOnly,
    Group(HostGroup),
    Field(SettingField),
    /// Index into `State::tools`.
    Tool(usize),
    /// One device's Inspect (`interact: false`) or Interact switch in the device tree: its
    /// identity (or `default`) and how a person knows it.
    Device {
        key: String,
        label: String,
        interact: bool,
    },
    /// The apps one device's Interact is limited to (Enter edits the list).
    DeviceApps {
        key: String,
        label: String,
    },
    /// A device in the tree, closed or opened (Enter or Space) to its switches.
    DeviceHead {
        key: String,
        label: String,
    },
}

impl Row {
    pub fn selectable(&self) -> bool {
        !matches!(self, Row::Heading(_))
    }
}

pub fn rows(s: &State) -> Vec<Row> {
    let mut rows = vec![
        Row::Heading("Tool access".into()),
        Row::EnableAll,
        Row::ReadOnlyOnly,
        Row::Heading("Host groups (Settings & servers stay off until allowed)".into()),
    ];
    rows.extend(HostGroup::ALL.iter().map(|g| Row::Group(*g)));
    rows.push(Row::Heading("Server and safety".into()));
    rows.extend(
        [
            SettingField::HistorySize,
            SettingField::ConfirmTimeout,
            SettingField::Port,
        ]
        .into_iter()
        .map(Row::Field),
    );
    // Shown, not edited here: turning it on is a decision to trust the client (README).
    rows.push(Row::Heading(format!(
        "  Approval through the MCP client ([confirm] via_client): {}",
        if s.core.confirm_via_client {
            "ON (trusts the client to ask a person)"
        } else {
            "off"
        }
    )));
    rows.push(Row::Heading(format!(
        "Devices: {}{}",
        if s.core.allow_all {
            "Inspect · Interact (lifted by --allow-all for this run)"
        } else {
            "Inspect (see it) · Interact (act on it); Enter opens one"
        },
        if s.settings_filter.is_empty() {
            String::new()
        } else {
            format!(" — filter {:?} (Esc clears)", s.settings_filter)
        }
    )));
    let wanted = |text: &str| {
        s.settings_filter.is_empty()
            || text
                .to_lowercase()
                .contains(&s.settings_filter.to_lowercase())
    };
    for (key, label) in tree_devices(s) {
        if !wanted(&label) && !wanted(&key) {
            continue;
        }
        rows.push(Row::DeviceHead {
            key: key.clone(),
            label: label.clone(),
        });
        if !s.settings_expanded.contains(&key) {
            continue;
        }
        for interact in [false, true] {
            rows.push(Row::Device {
                key: key.clone(),
                label: label.clone(),
                interact,
            });
        }
        rows.push(Row::DeviceApps { key, label });
    }
    for level in [Level::Destructive, Level::SafeAction, Level::ReadOnly] {
        let tools: Vec<usize> = (0..s.tools.len())
            .filter(|&i| s.tools[i].level == level && wanted(s.tools[i].name))
            .collect();
        if tools.is_empty() {
            continue;
        }
        rows.push(Row::Heading(format!(
            "{} {} ({})",
            level.marker(),
            level.label(),
            tools.len()
        )));
        rows.extend(tools.into_iter().map(Row::Tool));
    }
    rows
}

pub fn field_value(s: &State, f: SettingField) -> String {
    match f {
        SettingField::HistorySize => s.core.history_size.to_string(),
        SettingField::ConfirmTimeout => s.core.confirm_timeout_secs.to_string(),
        SettingField::Port => s.core.port.to_string(),
    }
}

/// The device tree's entries to show: devices without an entry of their own, then each entry
/// (named by its label, else by an attached device with that identity, else the identity), then
/// the attached devices that have none.
pub fn tree_devices(s: &State) -> Vec<(String, String)> {
    let access = &s.core.access;
    let seen = |id: &str| {
        s.core
            .seen_devices
            .iter()
            .find(|(i, _)| i == id)
            .map(|(_, l)| l.clone())
    };
    let mut out = vec![(
        DEFAULT_DEVICE.to_string(),
        "devices without an entry of their own".to_string(),
    )];
    for (id, entry) in access.devices.iter().filter(|(k, _)| *k != DEFAULT_DEVICE) {
        let label = seen(id)
            .or_else(|| entry.label.clone())
            .unwrap_or_else(|| id.clone());
        out.push((id.clone(), label));
    }
    for (id, label) in &s.core.seen_devices {
        if !access.devices.contains_key(id) {
            out.push((id.clone(), label.clone()));
        }
    }
    out
}

/// Whether the device tree allows `key`'s Inspect or Interact.
pub fn device_on(s: &State, key: &str, interact: bool) -> bool {
    let access = &s.core.access;
    let d = access
        .devices
        .get(key)
        .or_else(|| access.devices.get(DEFAULT_DEVICE))
        .cloned()
        .unwrap_or_default();
    if interact { d.interact } else { d.inspect }
}

/// The apps `key`'s Interact is limited to, comma-separated; `None`: any app.
pub fn device_apps(s: &State, key: &str) -> Option<String> {
    let access = &s.core.access;
    access
        .devices
        .get(key)
        .or_else(|| access.devices.get(DEFAULT_DEVICE))
        .and_then(|d| d.apps.as_ref())
        .map(|a| a.iter().cloned().collect::<Vec<_>>().join(", "))
}

/// The apps seen on the screens of the device `key` (an identity), for its apps list; every
/// device's for the default entry.
pub fn apps_seen(s: &State, key: &str) -> Vec<String> {
    if key == DEFAULT_DEVICE {
        let mut all: Vec<String> = s.core.apps_seen.values().flatten().cloned().collect();
        all.sort();
        all.dedup();
        return all;
    }
    s.core.apps_seen.get(key).cloned().unwrap_or_default()
}

/// The app Tab adds to the apps list `typed` for device `key`: the first seen on it and not in
/// the list yet.
pub fn next_seen_app(s: &State, key: &str, typed: &str) -> Option<String> {
    let typed: Vec<&str> = typed.split([',', ' ']).filter(|a| !a.is_empty()).collect();
    apps_seen(s, key)
        .into_iter()
        .find(|a| !typed.contains(&a.as_str()))
}

/// An apps list as typed: package names separated by commas or spaces; empty: any app.
pub fn parse_apps(text: &str) -> Result<Option<Vec<String>>, String> {
    let apps: Vec<String> = text
        .split([',', ' '])
        .map(str::trim)
        .filter(|a| !a.is_empty())
        .map(str::to_string)
        .collect();
    if apps.is_empty() {
        return Ok(None);
    }
    let package = |a: &str| {
        let parts: Vec<&str> = a.split('.').collect();
        parts.len() >= 2
            && parts.iter().all(|p| {
                p.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
                    && p.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            })
    };
    match apps.iter().find(|a| !package(a)) {
        Some(bad) => Err(format!(
            "{bad:?} is no package name (like com.example.shop): nothing changed"
        )),
        None => Ok(Some(apps)),
    }
}

pub fn group_on(s: &State, g: HostGroup) -> bool {
    g.on_in(&s.core.access)
}

impl State {
    pub fn first_selectable_setting(&self) -> usize {
        rows(self).iter().position(Row::selectable).unwrap_or(0)
    }

    /// Move the settings cursor by `delta` selectable rows.
    pub fn move_settings(&mut self, delta: isize) {
        let rows = rows(self);
        let mut i = self.settings_cursor.min(rows.len().saturating_sub(1));
        let mut left = delta.unsigned_abs();
        while left > 0 {
            let next = if delta < 0 {
                i.checked_sub(1)
            } else {
                Some(i + 1).filter(|n| *n < rows.len())
            };
            let Some(n) = next else { break };
            i = n;
            if rows[i].selectable() {
                left -= 1;
                self.settings_cursor = i;
            }
        }
    }

    pub fn settings_row(&self) -> Option<Row> {
        rows(self).get(self.settings_cursor).cloned()
    }
}
