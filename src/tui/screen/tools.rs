//! Tools as a [`Screen`]: search, the destructive-only filter, moving through the catalogue,
//! and `spock_navigate` selecting a tool. Drawn by `ui::tools`.
use crossterm::event::KeyCode::Esc;
use ratatui::Frame;
use ratatui::layout::Rect;

use super::Screen;
use crate::tui::action::Action;
use crate::tui::input::LineInput;
use crate::tui::keymap::{Key, ch, key};
use crate::tui::state::{InputTarget, State};
use crate::tui::ui;
use crate::tui::update::Effect;

/// The screen's own keys, in help's order; `hint` puts one in the footer.
const KEYS: &[Key] = &[
    key(ch('/'), Action::Search).hint(1),
    key(ch('d'), Action::ToggleDestructiveOnly).hint(2),
    key(Esc, Action::ClearFilters),
];

pub struct Tools;

impl Screen for Tools {
    fn name(&self) -> &'static str {
        "tools"
    }
    fn title(&self) -> &'static str {
        "Tools"
    }
    fn keys(&self) -> &'static [Key] {
        KEYS
    }
    fn draw(&self, f: &mut Frame, body: Rect, s: &State) {
        ui::tools::draw(f, body, s)
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
        let area = ui::tools::list_rows(body);
        if !area.contains(ratatui::layout::Position { x: col, y: row }) {
            return None;
        }
        ui::tools::tool_at_display_row(s, area.height as usize, usize::from(row - area.y))
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
