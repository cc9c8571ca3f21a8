//! Batch as a [`Screen`]: run, cancel, edit, make, delete and record tasks. The screen's
//! state, its editor and what its keys do are `tui::batch`; drawn by `ui::batch`.
use crossterm::event::KeyCode::{Delete, Enter};
use ratatui::Frame;
use ratatui::layout::Rect;

use super::Screen;
use crate::tui::action::Action;
use crate::tui::keymap::{Key, ch, key};
use crate::tui::state::State;
use crate::tui::ui;
use crate::tui::update::Effect;

/// The screen's own keys, in help's order; `hint` puts one in the footer.
const KEYS: &[Key] = &[
    key(Enter, Action::RunTask).hint(1),
    key(ch('r'), Action::RunTask),
    key(ch('x'), Action::CancelRun).hint(1),
    key(ch('e'), Action::EditTask).hint(3),
    key(ch('n'), Action::NewTask),
    key(ch('d'), Action::DeleteTask).hint(4),
    key(Delete, Action::DeleteTask),
    key(ch('m'), Action::ToggleRecording).hint(2),
];

pub struct Batch;

impl Screen for Batch {
    fn name(&self) -> &'static str {
        "batch"
    }
    fn title(&self) -> &'static str {
        "Batch"
    }
    fn keys(&self) -> &'static [Key] {
        KEYS
    }
    fn draw(&self, f: &mut Frame, body: Rect, s: &State) {
        ui::batch::draw(f, body, s)
    }
    fn act(&self, s: &mut State, action: Action, fx: &mut Vec<Effect>) -> bool {
        s.act_batch(action, fx)
    }
    /// While a run is in progress, stopping it is the key worth showing (a second run would be
    /// refused); otherwise starting one.
    fn hint_now(&self, s: &State, action: Action) -> bool {
        match action {
            Action::RunTask => s.batch.running().is_none(),
            Action::CancelRun => s.batch.running().is_some(),
            _ => true,
        }
    }
}
