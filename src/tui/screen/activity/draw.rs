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

/// Column widths for a list `width` wide: (tool, device, client), as a fixed split (before any
/// row is known).
pub fn widths(width: u16) -> (usize, usize, usize) {
    fit(width, std::iter::empty())
}

/// time, marker (2 cells: ⚡ is wide), outcome and duration, with their separators.
const FIXED: usize = 9 + 2 + 1 + 1 + 1 + 1 + 16 + 1 + 8;

/// Column widths shared by need: the device and client columns as wide as the widest of the
/// `rows` shown (within bounds), and everything left to the tool and what it acted on, so at
/// 80 columns a tool's name is not cut while columns stand empty, and at 160 nothing is left
/// blank.
pub fn fit<'a>(width: u16, rows: impl Iterator<Item = &'a CallEntry>) -> (usize, usize, usize) {
    let w = width as usize;
    let (mut need_d, mut need_c, mut need_t) = (6usize, 6usize, 8usize);
    let mut any = false;
    for r in rows {
        any = true;
        need_d = need_d.max(escape::width(r.device_label()));
        need_c = need_c.max(escape::width(&r.client_label()));
        need_t =
            need_t.max(escape::width(shown_tool(&r.tool, width)) + 1 + escape::width(&subject(r)));
    }
    if !any {
        // No rows yet: the old split.
        let (device, client) = if w >= 140 {
            (20, 28)
        } else if w >= 100 {
            (14, 18)
        } else {
            (10, 12)
        };
        let tool = w.saturating_sub(FIXED + device + client).clamp(8, 40);
        return (tool, device, client);
    }
    let room = w.saturating_sub(FIXED);
    // Each column as wide as its widest entry; where that is more than the room, the client
    // gives way first, then the device, down to 8 each, while the tool keeps up to 18 (its
    // name whole in most cases); what is left goes to the tool and what it acted on.
    let tool_floor = need_t.min(18);
    let mut device = need_d.min(32);
    let mut client = need_c.min(28);
    while tool_floor + device + client > room {
        if client > 8 {
            client -= 1;
        } else if device > 8 {
            device -= 1;
        } else {
            break;
        }
    }
    let tool = room.saturating_sub(device + client).max(8);
    (tool, device, client)
}

/// Below this width the tool column drops the `android_` every device tool starts with, to
/// leave room for what the call acted on.
const SHORT_NAMES_BELOW: u16 = 100;

/// The tool's name as the column shows it at `width`.
pub fn shown_tool(tool: &str, width: u16) -> &str {
    if width < SHORT_NAMES_BELOW {
        tool.strip_prefix("android_").unwrap_or(tool)
    } else {
        tool
    }
}

/// What a call acted on, to tell calls of one tool apart: its package, element, text or
/// command (the first of them it has), else nothing.
pub fn subject(r: &CallEntry) -> String {
    let a = &r.arguments;
    for key in [
        "packageName",
        "element",
        "command",
        "text",
        "url",
        "toolset",
        "taskId",
        "id",
        "keycode",
    ] {
        if let Some(v) = a.get(key) {
            return match v {
                serde_json::Value::String(s) => s.clone(),
                other => other.to_string(),
            };
        }
    }
    if let Some(sel) = a.get("selector") {
        return sel.to_string();
    }
    String::new()
}

pub fn header(width: u16) -> Line<'static> {
    header_for(widths(width))
}

pub fn header_for((t, d, c): (usize, usize, usize)) -> Line<'static> {
    Line::styled(
        format!(
            "{:<8}    {:<t$} {:<d$} {:<c$} {:<16} {:>8}",
            "time", "tool", "device", "client", "outcome", "took"
        ),
        bold(),
    )
}

pub fn row(s: &State, r: &CallEntry, width: u16, is_selected: bool) -> Line<'static> {
    row_for(s, r, width, widths(width), is_selected)
}

pub fn row_for(
    s: &State,
    r: &CallEntry,
    width: u16,
    (t, d, c): (usize, usize, usize),
    is_selected: bool,
) -> Line<'static> {
    let (outcome, took) = match &r.finished {
        Some(f) => (r.outcome_text(), fmt_duration(f.duration)),
        None => (format!("running {}", running_for(s, &r.at)), String::new()),
    };
    // The tool whole where it fits, then what it acted on in what is left of the column.
    let tool = escape::cell(shown_tool(&r.tool, width), t);
    let left = t.saturating_sub(escape::width(&tool) + 1);
    let what = subject(r);
    let what = if left >= 4 && !what.is_empty() {
        escape::cell(&what, left)
    } else {
        String::new()
    };
    let pad = t.saturating_sub(
        escape::width(&tool) + usize::from(!what.is_empty()) + escape::width(&what),
    );
    let spans = vec![
        Span::raw(format!("{} ", fmt_time(s, &r.at))),
        Span::styled(r.level.marker(), level_style(r.level)),
        // Pad the marker to two cells whatever its own width.
        Span::raw(" ".repeat(2 - Span::raw(r.level.marker()).width().min(2))),
        Span::raw(format!(" {tool}")),
        Span::styled(
            if what.is_empty() {
                String::new()
            } else {
                format!(" {what}")
            },
            dim(),
        ),
        Span::raw(format!(
            "{} {:<d$} {:<c$} ",
            " ".repeat(pad),
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
    let shown = || {
        s.history
            .live_newest_first()
            .skip(off)
            .take(inner.height as usize)
    };
    // The columns fit what is on screen now.
    let cols = fit(inner.width, shown());
    f.render_widget(
        Paragraph::new(header_for(cols)),
        Rect {
            y: body.y + 1,
            height: 1,
            ..inner
        },
    );
    let lines: Vec<Line> = shown()
        .enumerate()
        .map(|(i, r)| row_for(s, r, inner.width, cols, i + off == cursor))
        .collect();
    f.render_widget(Paragraph::new(lines), inner);
}
