//! Settings as a [`Screen`]: moving between the selectable rows, toggling access, Enable all,
//! Read-only only, and editing the numeric settings. Drawn by `draw`; the rows, derived from
//! the state, are `tui::settings`.
pub mod draw;

use ratatui::Frame;
use ratatui::layout::Rect;

use super::kit::{Screen, paged_row_at};
use crate::protocol::AccessChange;
use crate::tui::action::Action;
use crate::tui::effect::Effect;
use crate::tui::state::State;
use crate::tui::tab::ScreenId;

pub struct Settings;

impl Screen for Settings {
    fn id(&self) -> ScreenId {
        ScreenId::SETTINGS
    }
    fn draw(&self, f: &mut Frame, body: Rect, s: &State) {
        draw::draw(f, body, s)
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
            Action::ReloadTools => fx.push(Effect::ReloadTools),
            Action::RotateCredential => {
                s.prompt = Some(crate::tui::prompt::Prompt::RotateCredential)
            }
            Action::Open | Action::Toggle => s.activate_setting(fx),
            Action::Search => {
                s.input = Some((
                    crate::tui::state::InputTarget::SettingsFilter,
                    crate::tui::input::LineInput::new(&s.settings_filter),
                ))
            }
            Action::ClearFilters => {
                s.settings_filter.clear();
                s.settings_cursor = s.first_selectable_setting();
            }
            _ => return false,
        }
        true
    }
    fn row_at(&self, s: &State, body: Rect, col: u16, row: u16) -> Option<usize> {
        paged_row_at(draw::list_rows(body), s.settings_cursor, col, row)
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
