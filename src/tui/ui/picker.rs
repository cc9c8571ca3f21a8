//! History's filter picker: every tool, outcome, device and client seen, each a checkbox.
//! It stays open so several can be picked; chips above the list show what is picked.
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::Line;
use ratatui::widgets::{Block, Paragraph};

use super::{ACCENT, bold, centered, selected};
use crate::tui::escape;
use crate::tui::state::{FilterKind, State, page_offset};

fn picked(s: &State, kind: FilterKind, v: &str) -> bool {
    let f = &s.history_view.filters;
    match kind {
        FilterKind::Tool => f.tools.contains(v),
        FilterKind::Outcome => f.outcomes.contains(v),
        FilterKind::Device => f.devices.contains(v),
        FilterKind::Client => f.clients.contains(v),
    }
}

pub fn draw(f: &mut Frame, body: Rect, s: &State) {
    let Some(p) = &s.picker else { return };
    let b = centered(body, 60, body.height.saturating_sub(2));
    super::clear_box(f, b);
    let block = Block::bordered()
        .border_style(Style::new().fg(ACCENT))
        .title(" Filter History — Space toggles · x clears · Esc closes ");
    let inner = block.inner(b);
    f.render_widget(block, b);
    let h = inner.height as usize;
    let off = page_offset(p.cursor, h);
    let lines: Vec<Line> = p
        .options
        .iter()
        .enumerate()
        .skip(off)
        .take(h)
        .map(|(i, (kind, v))| {
            let text = format!(
                "{} {:<8} {}",
                if picked(s, *kind, v) { "[x]" } else { "[ ]" },
                kind.label(),
                escape::cell(v, 44)
            );
            if i == p.cursor {
                Line::styled(text, selected())
            } else {
                Line::raw(text)
            }
        })
        .collect();
    if lines.is_empty() {
        f.render_widget(
            Paragraph::new(Line::styled("Nothing recorded yet.", bold())),
            inner,
        );
    } else {
        f.render_widget(Paragraph::new(lines), inner);
    }
}
