//! Batch: a destination `spock_navigate` accepts, said honestly to be empty for now.
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::widgets::{Paragraph, Wrap};

use super::block;
use crate::tui::state::State;

pub fn draw(f: &mut Frame, area: Rect, _s: &State) {
    let text = "Batch tasks arrive in a later version. Nothing here runs yet: tools are called \
                one at a time by MCP clients, and each call appears in Activity.";
    f.render_widget(
        Paragraph::new(text)
            .wrap(Wrap { trim: true })
            .block(block("Batch")),
        area,
    );
}
