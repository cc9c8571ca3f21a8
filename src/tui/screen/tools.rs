//! Tools as a [`Screen`]: search, the destructive-only filter, moving through the catalogue,
//! and `spock_navigate` selecting a tool. Drawn by `draw` (`screen/tools/draw.rs`).
pub mod draw;

use ratatui::Frame;
use ratatui::layout::Rect;

use super::kit::Screen;
use crate::tui::action::Action;
use crate::tui::effect::Effect;
use crate::tui::input::LineInput;
use crate::tui::state::{InputTarget, State};
use crate::tui::tab::ScreenId;

pub struct Tools;

impl Screen for Tools {
    fn id(&self) -> ScreenId {
        ScreenId::TOOLS
    }
    fn draw(&self, f: &mut Frame, body: Rect, s: &State) {
        draw::draw(f, body, s)
    }
    fn act(&self, s: &mut State, action: Action, _fx: &mut Vec<Effect>) -> bool {
        match action {
            Action::Search => {
                s.input = Some((InputTarget::ToolSearch, LineInput::new(&s.tools_view.query)))
            }
            Action::ToggleDestructiveOnly => {
                s.tools_view.destructive_only = !s.tools_view.destructive_only;
                s.tools_view.cursor = 0;
            }
            Action::ClearFilters => {
                s.tools_view.query.clear();
                s.tools_view.destructive_only = false;
            }
            a => {
                let len = s.visible_tools().len();
                let Some(p) = s.moved(a, s.tools_view.cursor, len) else {
                    return false;
                };
                s.tools_view.cursor = p;
            }
        }
        true
    }
    fn row_at(&self, s: &State, body: Rect, col: u16, row: u16) -> Option<usize> {
        let area = draw::list_rows(body);
        if !area.contains(ratatui::layout::Position { x: col, y: row }) {
            return None;
        }
        draw::tool_at_display_row(s, area.height as usize, usize::from(row - area.y))
    }
    fn click(&self, s: &mut State, pos: usize, _fx: &mut Vec<Effect>) {
        s.tools_view.cursor = pos;
    }
    fn select(&self, s: &mut State, name: &str) -> Result<(), String> {
        if s.tool(name).is_none() {
            return Err(format!("no tool named {name:?}"));
        }
        s.tools_view.query.clear();
        s.tools_view.destructive_only = false;
        s.tools_view.cursor = s
            .visible_tools()
            .iter()
            .position(|t| t.name == name)
            .unwrap_or(0);
        Ok(())
    }
}
