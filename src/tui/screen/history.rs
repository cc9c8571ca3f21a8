//! History as a [`Screen`]: open, search, filter, mark calls and make a batch task of them.
//! Drawn by `ui::history`.
use crossterm::event::KeyCode::{Enter, Esc};
use ratatui::Frame;
use ratatui::layout::Rect;

use super::{Screen, paged_row_at};
use crate::tui::action::Action;
use crate::tui::input::LineInput;
use crate::tui::keymap::{Key, ch, key};
use crate::tui::state::{Details, InputTarget, State};
use crate::tui::ui;
use crate::tui::update::Effect;

/// The screen's own keys, in help's order; `hint` puts one in the footer.
const KEYS: &[Key] = &[
    key(Enter, Action::Open).hint(1),
    key(ch('/'), Action::Search).hint(2),
    key(ch('f'), Action::Filter).hint(3),
    key(ch('x'), Action::ClearFilters),
    key(Esc, Action::ClearFilters),
    key(ch(' '), Action::Mark).hint(4),
    key(ch('b'), Action::TaskFromMarked),
];

pub struct History;

impl Screen for History {
    fn name(&self) -> &'static str {
        "history"
    }
    fn title(&self) -> &'static str {
        "History"
    }
    fn keys(&self) -> &'static [Key] {
        KEYS
    }
    fn draw(&self, f: &mut Frame, body: Rect, s: &State) {
        ui::history::draw(f, body, s)
    }
    fn act(&self, s: &mut State, action: Action, _fx: &mut Vec<Effect>) -> bool {
        match action {
            Action::Open => {
                if let Some(seq) = s.history_seq_at(s.history_cursor()) {
                    s.details = Some(Details { seq, scroll: 0 });
                }
            }
            Action::Search => {
                s.input = Some((
                    InputTarget::HistorySearch,
                    LineInput::new(&s.history_view.query),
                ))
            }
            Action::Filter => s.open_picker(),
            Action::Mark => s.toggle_mark(),
            Action::TaskFromMarked => s.task_from_marked(),
            Action::ClearFilters => {
                s.history_view.query.clear();
                s.history_view.filters = Default::default();
                s.refresh_matches();
            }
            Action::Top => s.history_view.selected = None,
            a => {
                let len = s.history_len();
                let Some(p) = s.moved(a, s.history_cursor(), len) else {
                    return false;
                };
                s.history_view.selected = s.history_seq_at(p);
            }
        }
        true
    }
    fn row_at(&self, s: &State, body: Rect, col: u16, row: u16) -> Option<usize> {
        paged_row_at(ui::history::list_rows(body), s.history_cursor(), col, row)
    }
    fn click(&self, s: &mut State, pos: usize, _fx: &mut Vec<Effect>) {
        s.history_view.selected = s.history_seq_at(pos);
    }
    fn select(&self, s: &mut State, id: &str) -> Result<(), String> {
        let seq = super::activity::call_seq(s, id)?;
        s.history_view.query.clear();
        s.history_view.filters = Default::default();
        s.refresh_matches();
        s.history_view.selected = Some(seq);
        Ok(())
    }
}
