//! Settings as a [`Screen`]: moving between the selectable rows, toggling access, Enable all,
//! Read-only only, and editing the numeric settings. Drawn by `ui::settings`; the rows and
//! what activating one does are `tui::settings`.
use crossterm::event::KeyCode::Enter;
use ratatui::Frame;
use ratatui::layout::Rect;

use super::{Screen, paged_row_at};
use crate::protocol::AccessChange;
use crate::tui::action::Action;
use crate::tui::keymap::{Key, ch, key};
use crate::tui::state::State;
use crate::tui::ui;
use crate::tui::update::Effect;

/// The screen's own keys, in help's order; `hint` puts one in the footer.
const KEYS: &[Key] = &[
    key(Enter, Action::Open),
    key(ch(' '), Action::Toggle).hint(1),
    key(ch('a'), Action::EnableAll).hint(2),
    key(ch('r'), Action::ReadOnlyOnly).hint(3),
];

pub struct Settings;

impl Screen for Settings {
    fn name(&self) -> &'static str {
        "settings"
    }
    fn title(&self) -> &'static str {
        "Settings"
    }
    fn keys(&self) -> &'static [Key] {
        KEYS
    }
    fn draw(&self, f: &mut Frame, body: Rect, s: &State) {
        ui::settings::draw(f, body, s)
    }
    fn act(&self, s: &mut State, action: Action, fx: &mut Vec<Effect>) -> bool {
        match action {
            Action::Up => s.move_settings(-1),
            Action::Down => s.move_settings(1),
            Action::PageUp => s.move_settings(-(s.page() as isize)),
            Action::PageDown => s.move_settings(s.page() as isize),
            Action::Top => s.move_settings(-10_000),
            Action::Bottom => s.move_settings(10_000),
            Action::EnableAll => s.enable_all(),
            Action::ReadOnlyOnly => fx.push(Effect::Access(AccessChange::ReadOnlyOnly)),
            Action::Open | Action::Toggle => s.activate_setting(fx),
            _ => return false,
        }
        true
    }
    fn row_at(&self, s: &State, body: Rect, col: u16, row: u16) -> Option<usize> {
        paged_row_at(ui::settings::list_rows(body), s.settings_cursor, col, row)
    }
    fn click(&self, s: &mut State, pos: usize, fx: &mut Vec<Effect>) {
        if crate::tui::settings::rows(s)
            .get(pos)
            .is_some_and(|r| r.selectable())
        {
            s.settings_cursor = pos;
            self.act(s, Action::Toggle, fx);
        }
    }
}
