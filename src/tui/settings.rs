//! The Settings screen's rows, derived from the state: the two one-click decisions, the host
//! groups, the numeric settings, then every tool grouped by level. Drawing and key handling
//! both walk this one list, so what is shown is what the cursor moves over.
use super::state::State;
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
        Row::Heading("Host groups (off until allowed)".into()),
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
    for level in [Level::Destructive, Level::SafeAction, Level::ReadOnly] {
        let tools: Vec<usize> = (0..s.tools.len())
            .filter(|&i| s.tools[i].level == level)
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

pub fn group_on(s: &State, g: HostGroup) -> bool {
    s.core.access.allowed_groups.contains(g.key())
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
