//! The control centre's screens (the tabs): one [`Screen`] trait each implements, the
//! [`ScreenId`] handle the state, the keymap and the layers carry, and [`ALL`], the one
//! registration point.
//!
//! A screen says everything the rest of the control centre needs to know about it: its name
//! (for `spock_navigate` and `spock_get_status`) and title, its keys (its keymap scope; the
//! ones marked as hints make the footer), how it draws (a pure function of `&State`), what it
//! does with the actions it accepts, which hints are worth showing now, and, optionally, its
//! list's geometry for the mouse and what `spock_navigate`'s `select` means on it.
//!
//! Adding a screen touches two files: the screen's own file under `screen/` (a unit struct and
//! its `impl Screen`), and this one (its `mod` line and its entry in [`ALL`]). The tab bar, the
//! number key (`1`…`9`, in [`ALL`]'s order), Tab/Shift-Tab, the help overlay, the footer and the
//! mouse pick it up from there. Agents reach it with `spock_navigate` only once its name is also
//! in the core's vocabulary (`mcp::uilink::SCREENS`, a separate, deliberate decision that
//! `tests/tui_update.rs` checks). A screen with state of its own adds a field to `State`.
pub mod activity;
pub mod batch;
pub mod history;
pub mod settings;
pub mod status;
pub mod tools;

use std::fmt;
use std::hash::{Hash, Hasher};

use ratatui::Frame;
use ratatui::layout::Rect;

use super::action::Action;
use super::keymap::Key;
use super::state::State;
use super::update::Effect;

/// Every screen, in tab order: the registration point.
pub const ALL: &[ScreenId] = &[
    ScreenId::STATUS,
    ScreenId::TOOLS,
    ScreenId::ACTIVITY,
    ScreenId::HISTORY,
    ScreenId::SETTINGS,
    ScreenId::BATCH,
];

/// One screen of the control centre. Implemented by a unit struct in `screen/`; see the module
/// documentation for what adding one involves.
pub trait Screen: Sync {
    /// The name `spock_navigate` uses and `spock_get_status` reports: lower case, unique.
    fn name(&self) -> &'static str;
    /// The tab's title.
    fn title(&self) -> &'static str;
    /// The keys that apply on this screen only, in the order help lists them. A key marked
    /// with [`Key::hint`] is shown in the footer, in the order of the hint numbers; a screen
    /// may repeat a key that works everywhere to feature it there (help lists it once).
    fn keys(&self) -> &'static [Key];
    /// The screen's body (between the tab bar and the footer). Pure: no I/O, locks or clock.
    fn draw(&self, f: &mut Frame, body: Rect, s: &State);
    /// Carry out `action`; `false` when this screen has nothing to do with it, and the keys
    /// that work everywhere get it.
    fn act(&self, s: &mut State, action: Action, fx: &mut Vec<Effect>) -> bool;
    /// Whether the footer hint for `action` is worth showing now (a cancel key only while
    /// there is something to cancel).
    fn hint_now(&self, _s: &State, _action: Action) -> bool {
        true
    }
    /// The list position drawn at (`col`, `row`) of the terminal, for a mouse click; `body`
    /// is the area `draw` got. Screens without a list answer `None`.
    fn row_at(&self, _s: &State, _body: Rect, _col: u16, _row: u16) -> Option<usize> {
        None
    }
    /// A click on list position `pos` (what [`row_at`](Self::row_at) found).
    fn click(&self, _s: &mut State, _pos: usize, _fx: &mut Vec<Effect>) {}
    /// `spock_navigate`'s `select` on this screen: a tool, a call id, a device serial.
    fn select(&self, _s: &mut State, _what: &str) -> Result<(), String> {
        Err(format!("the {} screen has nothing to select", self.name()))
    }
}

/// A screen, as the state, the layers and the keymap refer to it: a copyable handle on its
/// [`Screen`] implementation, compared by name.
#[derive(Clone, Copy)]
pub struct ScreenId(pub &'static dyn Screen);

impl ScreenId {
    pub const STATUS: ScreenId = ScreenId(&status::Status);
    pub const TOOLS: ScreenId = ScreenId(&tools::Tools);
    pub const ACTIVITY: ScreenId = ScreenId(&activity::Activity);
    pub const HISTORY: ScreenId = ScreenId(&history::History);
    pub const SETTINGS: ScreenId = ScreenId(&settings::Settings);
    pub const BATCH: ScreenId = ScreenId(&batch::Batch);
    /// Every screen, in tab order (see [`ALL`]).
    pub const ALL: &'static [ScreenId] = ALL;

    pub fn name(self) -> &'static str {
        self.0.name()
    }
    pub fn title(self) -> &'static str {
        self.0.title()
    }
    pub fn from_name(name: &str) -> Option<ScreenId> {
        ALL.iter().copied().find(|s| s.name() == name)
    }
    /// The position in the tab bar.
    pub fn index(self) -> usize {
        ALL.iter().position(|s| *s == self).unwrap_or(0)
    }
}

impl std::ops::Deref for ScreenId {
    type Target = dyn Screen;
    fn deref(&self) -> &(dyn Screen + 'static) {
        self.0
    }
}

impl PartialEq for ScreenId {
    fn eq(&self, other: &ScreenId) -> bool {
        self.name() == other.name()
    }
}

impl Eq for ScreenId {}

impl Hash for ScreenId {
    fn hash<H: Hasher>(&self, h: &mut H) {
        self.name().hash(h)
    }
}

impl fmt::Debug for ScreenId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.title())
    }
}

/// The list position under (`col`, `row`) for a screen whose list is drawn in `rows`, paged
/// so that `cursor` is visible (see `state::page_offset`).
pub(super) fn paged_row_at(rows: Rect, cursor: usize, col: u16, row: u16) -> Option<usize> {
    if !rows.contains(ratatui::layout::Position { x: col, y: row }) {
        return None;
    }
    let offset = super::state::page_offset(cursor, rows.height as usize);
    Some(offset + usize::from(row - rows.y))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_lower_case() {
        for (i, a) in ALL.iter().enumerate() {
            assert_eq!(a.name(), a.name().to_ascii_lowercase());
            assert!(
                ALL[i + 1..].iter().all(|b| b.name() != a.name()),
                "{} is registered twice",
                a.name()
            );
        }
    }
}
