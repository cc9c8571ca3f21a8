//! Batch as a [`Screen`]: run, cancel, edit, make, delete and record tasks. What its keys do
//! is `act` (`screen/batch/act.rs`), how it is drawn `draw`; its data, as the state holds it,
//! is `tui::batch`.
pub mod act;
pub mod draw;

use ratatui::Frame;
use ratatui::layout::Rect;

use super::kit::Screen;
use crate::tui::action::Action;
use crate::tui::effect::Effect;
use crate::tui::state::State;
use crate::tui::tab::ScreenId;

pub struct Batch;

impl Screen for Batch {
    fn id(&self) -> ScreenId {
        ScreenId::BATCH
    }
    fn draw(&self, f: &mut Frame, body: Rect, s: &State) {
        draw::draw(f, body, s)
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
