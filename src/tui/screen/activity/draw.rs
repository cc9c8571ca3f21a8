//! Activity: every call of this session as it happens, newest first — time, safety marker,
//! tool, device, client, outcome (with the decision for destructive calls) and duration.
//! The row format is shared with History.
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::tui::escape;
use crate::tui::history::CallEntry;
use crate::tui::state::{State, page_offset};
use crate::tui::ui::{
    block, bold, dim, fmt_duration, fmt_time, level_style, outcome_style, running_for, selected,
};

/// Column widths for a list `width` wide: (tool, device, client).
pub fn widths(width: u16) -> (usize, usize, usize) {
    let w = width as usize;
    // time, marker (2 cells: ⚡ is wide), outcome and duration, with their separators.
    let fixed = 9 + 2 + 1 + 1 + 1 + 1 + 16 + 1 + 8;
    let (device, client) = if w >= 140 {
        (20, 28)
    } else if w >= 100 {
        (14, 18)
    } else {
        (10, 12)
    };
    let tool = w.saturating_sub(fixed + device + client).clamp(8, 40);
    (tool, device, client)
}

pub fn header(width: u16) -> Line<'static> {
    let (t, d, c) = widths(width);
    Line::styled(
        format!(
            "{:<8}    {:<t$} {:<d$} {:<c$} {:<16} {:>8}",
            "time", "tool", "device", "client", "outcome", "took"
        ),
        bold(),
    )
}

pub fn row(s: &State, r: &CallEntry, width: u16, is_selected: bool) -> Line<'static> {
    let (t, d, c) = widths(width);
    let (outcome, took) = match &r.finished {
        Some(f) => (r.outcome_text(), fmt_duration(f.duration)),
        None => (format!("running {}", running_for(s, &r.at)), String::new()),
    };
    let spans = vec![
        Span::raw(format!("{} ", fmt_time(s, &r.at))),
        Span::styled(r.level.marker(), level_style(r.level)),
        // Pad the marker to two cells whatever its own width.
        Span::raw(" ".repeat(2 - Span::raw(r.level.marker()).width().min(2))),
        Span::raw(format!(
            " {:<t$} {:<d$} {:<c$} ",
            escape::cell(&r.tool, t),
            escape::cell(r.device_label(), d),
            escape::cell(&r.client_label(), c)
        )),
        Span::styled(
            format!("{:<16}", escape::cell(&outcome, 16)),
            outcome_style(r.finished.as_ref().map(|f| f.outcome)),
        ),
        Span::raw(format!(" {took:>8}")),
    ];
    let line = Line::from(spans);
    if is_selected {
        line.style(selected())
    } else {
        line
    }
}

/// The list's rows inside the border, below the header.
pub fn list_rows(body: Rect) -> Rect {
    crate::tui::ui::rows_below(body, 1)
}

pub fn draw(f: &mut Frame, body: Rect, s: &State) {
    let running = s.history.running();
    let total = s.history.live_len();
    let title = if running > 0 {
        format!("Activity — {total} calls · executing {running}")
    } else {
        format!("Activity — {total} calls · idle")
    };
    f.render_widget(block(title), body);
    let inner = list_rows(body);
    f.render_widget(
        Paragraph::new(header(inner.width)),
        Rect {
            y: body.y + 1,
            height: 1,
            ..inner
        },
    );
    if total == 0 {
        f.render_widget(
            Paragraph::new(Line::styled(
                "No calls yet. Each tool call appears here as it happens.",
                dim(),
            )),
            inner,
        );
        return;
    }
    let cursor = s.activity_cursor();
    let off = page_offset(cursor, inner.height as usize);
    let lines: Vec<Line> = s
        .history
        .live_newest_first()
        .enumerate()
        .skip(off)
        .take(inner.height as usize)
        .map(|(i, r)| row(s, r, inner.width, i == cursor))
        .collect();
    f.render_widget(Paragraph::new(lines), inner);
}
