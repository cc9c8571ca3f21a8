//! Tools: the whole catalogue, destructive first, searchable and filterable, whether or not
//! the server runs — so a person can review what is exposed before starting it. Each row
//! carries the tool's call count and a mark while a call to it is running.
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use crate::mcp::registry::Level;
use crate::mcp::toolsets::Toolset;
use crate::tui::escape;
use crate::tui::state::{InputTarget, State, ToolInfo, page_offset};
use crate::tui::ui::{ACCENT, block, bold, dim, level_style, selected};

enum Row<'a> {
    Heading(Level, usize),
    Tool(usize, &'a ToolInfo),
}

fn display_rows<'a>(tools: &[&'a ToolInfo]) -> Vec<Row<'a>> {
    let mut rows = Vec::new();
    for level in [Level::Destructive, Level::SafeAction, Level::ReadOnly] {
        let n = tools.iter().filter(|t| t.level == level).count();
        if n == 0 {
            continue;
        }
        rows.push(Row::Heading(level, n));
        rows.extend(
            tools
                .iter()
                .enumerate()
                .filter(|(_, t)| t.level == level)
                .map(|(i, t)| Row::Tool(i, t)),
        );
    }
    rows
}

fn split(body: Rect) -> [Rect; 2] {
    let left = if body.width >= 120 {
        52
    } else {
        body.width * 9 / 20
    };
    Layout::horizontal([Constraint::Length(left), Constraint::Min(10)]).areas(body)
}

/// The list's rows inside its border, below the search line.
pub fn list_rows(body: Rect) -> Rect {
    let [left, _] = split(body);
    crate::tui::ui::rows_below(left, 1)
}

fn offset(s: &State, rows: &[Row], height: usize) -> usize {
    let pos = rows
        .iter()
        .position(|r| matches!(r, Row::Tool(i, _) if *i == s.tools_view.cursor))
        .unwrap_or(0);
    page_offset(pos, height)
}

/// The tool index (in the visible list) under a click `rel` rows into the list.
pub fn tool_at_display_row(s: &State, height: usize, rel: usize) -> Option<usize> {
    let visible = s.visible_tools();
    let rows = display_rows(&visible);
    match rows.get(offset(s, &rows, height) + rel)? {
        Row::Tool(i, _) => Some(*i),
        Row::Heading(..) => None,
    }
}

pub fn draw(f: &mut Frame, body: Rect, s: &State) {
    let [left, right] = split(body);
    let visible = s.visible_tools();
    let rows = display_rows(&visible);
    let inner = list_rows(body);
    let title = format!(
        "Tools {}/{}{}",
        visible.len(),
        s.tools.len(),
        if s.tools_view.destructive_only {
            " · destructive only"
        } else {
            ""
        }
    );
    f.render_widget(block(title), left);
    let editing = matches!(&s.input, Some((InputTarget::ToolSearch, _)));
    let search = match (&s.input, s.tools_view.query.is_empty()) {
        (Some((InputTarget::ToolSearch, i)), _) => Line::from(vec![
            Span::styled("/", Style::new().fg(ACCENT)),
            Span::raw(escape::line(&i.text)),
            Span::styled("▏", Style::new().fg(ACCENT)),
        ]),
        (_, true) => Line::styled("/ search name and description", dim()),
        (_, false) => Line::from(vec![
            Span::styled("/", Style::new().fg(ACCENT)),
            Span::raw(escape::line(&s.tools_view.query)),
        ]),
    };
    let _ = editing;
    f.render_widget(
        Paragraph::new(search),
        Rect {
            height: 1,
            y: left.y + 1,
            x: left.x + 1,
            width: inner.width,
        },
    );
    let height = inner.height as usize;
    let off = offset(s, &rows, height);
    let w = inner.width as usize;
    let lines: Vec<Line> = rows
        .iter()
        .skip(off)
        .take(height)
        .map(|r| match r {
            Row::Heading(l, n) => Line::styled(
                format!("{} {} ({n})", l.marker(), l.label()),
                level_style(*l),
            ),
            Row::Tool(i, t) => {
                let st = s.stat(t.name);
                let mut badge = String::new();
                if st.running > 0 {
                    badge.push_str("⟳ ");
                }
                if st.calls > 0 {
                    badge.push_str(&format!("[{}]", st.calls));
                }
                if !s.enabled(t.name) {
                    badge.push_str(" off");
                }
                let name_w = w.saturating_sub(badge.chars().count() + 3);
                let text = format!("  {:<name_w$} {badge}", escape::cell(t.name, name_w));
                let mut style = if s.enabled(t.name) {
                    Style::new()
                } else {
                    dim()
                };
                if st.running > 0 {
                    style = style.fg(ACCENT);
                }
                if *i == s.tools_view.cursor {
                    style = selected();
                }
                Line::styled(text, style)
            }
        })
        .collect();
    f.render_widget(Paragraph::new(lines), inner);
    match s.selected_tool() {
        Some(t) => f.render_widget(
            Paragraph::new(detail(s, t))
                .wrap(Wrap { trim: false })
                .block(block(t.title)),
            right,
        ),
        None => f.render_widget(
            Paragraph::new("No tool matches.").block(block("Tool")),
            right,
        ),
    }
}

/// Which identified clients are listed `set`, from the toolsets each was last served with.
fn seen_by(s: &State, set: Toolset) -> String {
    let seeing: Vec<String> = s
        .core
        .clients
        .iter()
        .filter(|c| {
            c.toolsets == "all"
                || c.toolsets.split(',').any(|k| k == set.key())
                || set == Toolset::Core
        })
        .map(|c| format!("{} ({})", escape::line(&c.name), escape::line(&c.toolsets)))
        .collect();
    if seeing.is_empty() {
        "listed to no client yet".into()
    } else {
        format!("listed to {}", seeing.join(", "))
    }
}

fn detail(s: &State, t: &ToolInfo) -> Vec<Line<'static>> {
    let st = s.stat(t.name);
    let enabled = if s.enabled(t.name) {
        Span::styled("enabled", Style::new().fg(Color::Green))
    } else {
        Span::styled(
            "off (Settings → Tool access)",
            Style::new().fg(Color::Magenta),
        )
    };
    let mut lines = vec![
        Line::styled(t.name, bold()),
        Line::from(vec![
            Span::styled(
                format!("{} {}", t.level.marker(), t.level.label()),
                level_style(t.level),
            ),
            Span::raw(" · "),
            enabled,
            Span::raw(format!(" · {} calls", st.calls)),
            Span::styled(
                if st.running > 0 {
                    format!(" · {} running", st.running)
                } else {
                    String::new()
                },
                Style::new().fg(ACCENT),
            ),
        ]),
    ];
    if let Some(g) = t.group {
        lines.push(Line::styled(
            format!("host group: {} ({})", g.key(), g.label()),
            dim(),
        ));
    }
    lines.push(Line::styled(
        format!("toolset: {} · {}", t.toolset.key(), seen_by(s, t.toolset)),
        dim(),
    ));
    if t.level == Level::Destructive {
        lines.push(Line::styled(
            "Every call waits for a person to approve it here.",
            Style::new().fg(Color::Red),
        ));
    }
    lines.push(Line::raw(""));
    lines.extend(escape::lines(t.description).into_iter().map(Line::raw));
    lines.push(Line::raw(""));
    if t.params.is_empty() {
        lines.push(Line::styled("No arguments.", dim()));
    } else {
        lines.push(Line::styled("Arguments", bold()));
        for p in &t.params {
            lines.push(Line::from(vec![
                Span::styled(format!("  {}", escape::line(&p.name)), bold()),
                Span::raw(format!(
                    " {} {}",
                    escape::line(&p.kind),
                    if p.required { "required" } else { "optional" }
                )),
            ]));
            if !p.description.is_empty() {
                lines.push(Line::styled(
                    format!("    {}", escape::line(&p.description)),
                    dim(),
                ));
            }
        }
    }
    lines.push(Line::raw(""));
    lines.push(Line::styled("Input schema", bold()));
    let schema = serde_json::to_string_pretty(&t.schema).unwrap_or_default();
    lines.extend(
        escape::lines(&schema)
            .into_iter()
            .map(|l| Line::styled(l, dim())),
    );
    lines
}
