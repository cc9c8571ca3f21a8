//! The screens (the tabs) as plain names: [`ScreenId`], what the state, the keymap, the layers
//! and the actions carry, and [`ScreenId::ALL`], the tab order. What a screen does and draws is
//! its [`Screen`](super::screen::Screen) implementation, found with
//! [`screen::of`](super::screen::of); nothing below the screens needs it.
use std::fmt;

/// A screen of the control centre: its name (what `spock_navigate` uses and `spock_get_status`
/// reports: lower case, unique) and its tab's title.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct ScreenId {
    name: &'static str,
    title: &'static str,
}

const fn id(name: &'static str, title: &'static str) -> ScreenId {
    ScreenId { name, title }
}

impl ScreenId {
    pub const STATUS: ScreenId = id("status", "Status");
    pub const TOOLS: ScreenId = id("tools", "Tools");
    pub const ACTIVITY: ScreenId = id("activity", "Activity");
    pub const HISTORY: ScreenId = id("history", "History");
    pub const SETTINGS: ScreenId = id("settings", "Settings");
    pub const BATCH: ScreenId = id("batch", "Batch");
    /// Every screen, in tab order (the number keys `1`…`9` follow it).
    pub const ALL: &'static [ScreenId] = &[
        ScreenId::STATUS,
        ScreenId::TOOLS,
        ScreenId::ACTIVITY,
        ScreenId::HISTORY,
        ScreenId::SETTINGS,
        ScreenId::BATCH,
    ];

    pub fn name(self) -> &'static str {
        self.name
    }
    pub fn title(self) -> &'static str {
        self.title
    }
    pub fn from_name(name: &str) -> Option<ScreenId> {
        ScreenId::ALL.iter().copied().find(|s| s.name == name)
    }
    /// The position in the tab bar.
    pub fn index(self) -> usize {
        ScreenId::ALL.iter().position(|s| *s == self).unwrap_or(0)
    }
}

impl fmt::Debug for ScreenId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.title)
    }
}

#[cfg(test)]
mod tests {
    use super::ScreenId;

    #[test]
    fn names_are_lower_case_and_unique() {
        for (i, a) in ScreenId::ALL.iter().enumerate() {
            assert_eq!(a.name(), a.name().to_ascii_lowercase());
            assert!(
                ScreenId::ALL[i + 1..].iter().all(|b| b.name() != a.name()),
                "{} twice",
                a.name()
            );
        }
    }
}
