//! The message log: every recent footer message in full, newest first, with its time. The
//! footer shows one line for a few seconds; this is where a long or missed one is read.
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Wrap};

use super::{ACCENT, bold, centered, dim, fmt_time};
use crate::tui::escape;
use crate::tui::state::State;

pub fn lines(s: &State) -> Vec<Line<'static>> {
    if s.notices.is_empty() {
        return vec![Line::styled("No messages yet.", dim())];
    }
    s.notices
        .iter()
        .rev()
        .map(|n| {
            Line::from(vec![
                Span::styled(format!("{} ", fmt_time(s, &n.wall)), dim()),
                Span::raw(escape::line(&n.text)),
            ])
        })
        .collect()
}

pub fn draw(f: &mut Frame, area: Rect, s: &State) {
    let b = centered(
        area,
        area.width.saturating_sub(4).min(120),
        area.height.saturating_sub(2),
    );
    super::clear_box(f, b);
    let block = Block::bordered()
        .border_style(Style::new().fg(ACCENT))
        .title(Span::styled(
            format!(
                " Messages ({}, newest first) — l or Esc closes, ↑/↓ scroll ",
                s.notices.len()
            ),
            bold(),
        ));
    f.render_widget(
        Paragraph::new(lines(s))
            .wrap(Wrap { trim: false })
            .scroll((s.messages.unwrap_or(0), 0))
            .block(block),
        b,
    );
}
