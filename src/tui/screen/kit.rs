//! What every screen implements ([`Screen`]) and shares (the paged list's geometry): the
//! screens import it, and `screen.rs`, which registers them, re-exports it.
use ratatui::Frame;
use ratatui::layout::Rect;

use crate::tui::action::Action;
use crate::tui::effect::Effect;
use crate::tui::state::State;
use crate::tui::tab::ScreenId;

/// One screen of the control centre. Implemented by a unit struct in `screen/`; see the module
/// documentation for what adding one involves.
pub trait Screen: Sync {
    /// Which screen this is.
    fn id(&self) -> ScreenId;
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
        Err(format!(
            "the {} screen has nothing to select",
            self.id().name()
        ))
    }
}

/// The list position under (`col`, `row`) for a screen whose list is drawn in `rows`, paged
/// so that `cursor` is visible (see `state::page_offset`).
pub(in crate::tui) fn paged_row_at(rows: Rect, cursor: usize, col: u16, row: u16) -> Option<usize> {
    if !rows.contains(ratatui::layout::Position { x: col, y: row }) {
        return None;
    }
    let offset = crate::tui::state::page_offset(cursor, rows.height as usize);
    Some(offset + usize::from(row - rows.y))
}
