//! Activity as a [`Screen`]: the session's calls, newest first; the selection follows the
//! newest call until the person moves, and Enter opens a call's details. Drawn by `draw`
//! (`screen/activity/draw.rs`).
pub mod draw;

use ratatui::Frame;
use ratatui::layout::Rect;

use super::kit::{Screen, paged_row_at};
use crate::tui::action::Action;
use crate::tui::effect::Effect;
use crate::tui::state::{Details, State};
use crate::tui::tab::ScreenId;

pub struct Activity;

impl Screen for Activity {
    fn id(&self) -> ScreenId {
        ScreenId::ACTIVITY
    }
    fn draw(&self, f: &mut Frame, body: Rect, s: &State) {
        draw::draw(f, body, s)
    }
    fn act(&self, s: &mut State, action: Action, _fx: &mut Vec<Effect>) -> bool {
        match action {
            Action::Open => {
                if let Some(seq) = s.activity_seq_at(s.activity_cursor()) {
                    s.details = Some(Details { seq, scroll: 0 });
                }
            }
            Action::Top => s.activity.selected = None,
            a => {
                let len = s.history.live_len();
                let Some(p) = s.moved(a, s.activity_cursor(), len) else {
                    return false;
                };
                s.activity.selected = s.activity_seq_at(p);
            }
        }
        true
    }
    fn row_at(&self, s: &State, body: Rect, col: u16, row: u16) -> Option<usize> {
        paged_row_at(draw::list_rows(body), s.activity_cursor(), col, row)
    }
    fn click(&self, s: &mut State, pos: usize, _fx: &mut Vec<Effect>) {
        s.activity.selected = s.activity_seq_at(pos);
    }
    fn select(&self, s: &mut State, id: &str) -> Result<(), String> {
        s.activity.selected = Some(call_seq(s, id)?);
        Ok(())
    }
}

/// The history position (`seq`) of the call `spock_navigate` names by its call id.
pub(super) fn call_seq(s: &State, id: &str) -> Result<u64, String> {
    let call_id: u64 = id
        .trim()
        .parse()
        .map_err(|_| format!("{id:?} is not a call id"))?;
    s.history
        .by_call_id(call_id)
        .map(|r| r.seq)
        .ok_or_else(|| format!("call {call_id} is not in this session's activity"))
}
