//! History: the audit trail, searchable across tool name, arguments and result and narrowed
//! by multi-select filters; bounded by the history-size setting. Calls can be marked (Space)
//! and made into a batch task (b).
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::tui::escape;
use crate::tui::screen::activity::draw as activity;
use crate::tui::state::{InputTarget, State, page_offset};
use crate::tui::ui::{ACCENT, block, dim};

/// The list's rows: below the search and filter lines, inside the border, below the header.
pub fn list_rows(body: Rect) -> Rect {
    crate::tui::ui::rows_below(body, 3)
}

fn chips(s: &State) -> Line<'static> {
    let f = &s.history_view.filters;
    if f.is_empty() {
        return Line::styled("filters: all   (f choose · x clear)", dim());
    }
    let mut spans = vec![Span::raw("filters: ")];
    for (label, set) in [
        ("tool", &f.tools),
        ("outcome", &f.outcomes),
        ("device", &f.devices),
        ("client", &f.clients),
    ] {
        if set.is_empty() {
            continue;
        }
        let vals: Vec<String> = set.iter().map(|v| escape::cell(v, 30)).collect();
        spans.push(Span::styled(
            format!("[{label}: {}] ", vals.join(", ")),
            Style::new().fg(ACCENT),
        ));
    }
    Line::from(spans)
}

pub fn draw(f: &mut Frame, body: Rect, s: &State) {
    let search = match &s.input {
        Some((InputTarget::TaskName, i)) => Line::from(vec![
            Span::styled(
                format!(
                    "Name the task ({} marked calls): ",
                    s.history_view.marked.len()
                ),
                Style::new().fg(ACCENT),
            ),
            Span::raw(escape::line(&i.text)),
            Span::styled("▏", Style::new().fg(ACCENT)),
            Span::styled("  Enter save · Esc cancel", dim()),
        ]),
        Some((InputTarget::HistorySearch, i)) => Line::from(vec![
            Span::styled("/", Style::new().fg(ACCENT)),
            Span::raw(escape::line(&i.text)),
            Span::styled("▏", Style::new().fg(ACCENT)),
        ]),
        _ if s.history_view.query.is_empty() => {
            Line::styled("/ search tool, arguments and result", dim())
        }
        _ => Line::from(vec![
            Span::styled("/", Style::new().fg(ACCENT)),
            Span::raw(escape::line(&s.history_view.query)),
        ]),
    };
    let top = Rect { height: 1, ..body };
    f.render_widget(Paragraph::new(search), top);
    f.render_widget(
        Paragraph::new(chips(s)),
        Rect {
            y: body.y + 1,
            ..top
        },
    );
    let frame = Rect {
        y: body.y + 2,
        height: body.height.saturating_sub(2),
        ..body
    };
    let shown = s.history_len();
    let marked = match s.history_view.marked.len() {
        0 => String::new(),
        n => format!(" · {n} marked (b: make a task)"),
    };
    // What fits in the border, most important first: the counts, what is marked, the
    // trail's state, where the records come from.
    let room = usize::from(frame.width.saturating_sub(4));
    let mut title = format!(
        "History — {shown} of {} (keeps {}){marked}",
        s.history.len(),
        s.history.capacity()
    );
    let (source, trail) = (escape::line(&s.history.source), trail_word(&s.core.trail));
    let fits = |t: &str| t.chars().count() <= room;
    // The source's own words without its path or reason in brackets, where the whole is long.
    let short = source.split(" (").next().unwrap_or(&source).to_string();
    title = [
        format!("{title} · {source} · {trail}"),
        format!("{title} · {short} · {trail}"),
        format!("{title} · {short}"),
    ]
    .into_iter()
    .find(|t| fits(t))
    .unwrap_or(title);
    f.render_widget(block(title), frame);
    let inner = list_rows(body);
    f.render_widget(
        Paragraph::new(activity::header(inner.width)),
        Rect {
            y: frame.y + 1,
            height: 1,
            ..inner
        },
    );
    if shown == 0 {
        let msg = if s.history.is_empty() {
            "No calls recorded yet."
        } else {
            "Nothing matches the search and filters."
        };
        f.render_widget(Paragraph::new(Line::styled(msg, dim())), inner);
        return;
    }
    let cursor = s.history_cursor();
    let off = page_offset(cursor, inner.height as usize);
    let shown = || {
        (off..off + inner.height as usize)
            .filter_map(|pos| Some((pos, s.history_seq_at(pos)?)))
            .filter_map(|(pos, seq)| Some((pos, seq, s.history.get(seq)?)))
    };
    // The columns fit what is on screen now.
    let cols = activity::fit(inner.width, shown().map(|(_, _, r)| r));
    f.render_widget(
        Paragraph::new(activity::header_for(cols)),
        Rect {
            y: frame.y + 1,
            height: 1,
            ..inner
        },
    );
    let lines: Vec<Line> = shown()
        .map(|(pos, seq, r)| {
            let mut line = activity::row_for(s, r, inner.width, cols, pos == cursor);
            // A marked call shows a dot in the space after its time; the columns stay put.
            if s.history_view.marked.contains(&seq)
                && let Some(first) = line.spans.first_mut()
            {
                let time = first.content.trim_end().to_string();
                *first = Span::styled(format!("{time}●"), Style::new().fg(ACCENT));
            }
            line
        })
        .collect();
    f.render_widget(Paragraph::new(lines), inner);
}

/// The trail's state in a word or three, for History's title (Status has the whole of it).
fn trail_word(t: &spock_core::audit::TrailState) -> String {
    if t.verified_ok == Some(false) {
        return "trail TAMPERED (see Status)".into();
    }
    match (&t.target, t.last_anchor_ms, &t.failure) {
        (None, ..) => "trail not anchored".into(),
        (Some(_), _, Some(_)) => "trail anchoring FAILS (see Status)".into(),
        (Some(_), Some(at), None) => format!(
            "trail anchored {} s ago",
            spock_core::audit::now_ms().saturating_sub(at) / 1000
        ),
        (Some(_), None, None) => "trail not anchored yet".into(),
    }
}
