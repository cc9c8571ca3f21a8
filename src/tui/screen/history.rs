//! History as a [`Screen`]: open, search, filter, mark calls and make a batch task of them.
//! Drawn by `draw` (`screen/history/draw.rs`).
pub mod draw;

use ratatui::Frame;
use ratatui::layout::Rect;

use super::kit::{Screen, paged_row_at};
use crate::tui::action::Action;
use crate::tui::effect::Effect;
use crate::tui::input::LineInput;
use crate::tui::state::{Details, InputTarget, State};
use crate::tui::tab::ScreenId;

pub struct History;

impl Screen for History {
    fn id(&self) -> ScreenId {
        ScreenId::HISTORY
    }
    fn draw(&self, f: &mut Frame, body: Rect, s: &State) {
        draw::draw(f, body, s)
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
        paged_row_at(draw::list_rows(body), s.history_cursor(), col, row)
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
