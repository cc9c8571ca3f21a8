//! Request details: everything known about one call — client, transport, device, duration,
//! the decision for destructive calls and how it was made, the arguments and the result
//! (images described by size and dimensions, with a key to save them).
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use super::{block, bold, dim, fmt_duration, level_style, outcome_style, running_for};
use crate::tui::escape;
use crate::tui::images;
use crate::tui::state::{Details, State};

fn field(name: &str, value: String) -> Line<'static> {
    Line::from(vec![
        Span::styled(format!("{name:<11}"), bold()),
        Span::raw(value),
    ])
}

fn json_lines(v: &serde_json::Value) -> Vec<Line<'static>> {
    let text = serde_json::to_string_pretty(v).unwrap_or_default();
    escape::lines(&text).into_iter().map(Line::raw).collect()
}

pub fn draw(f: &mut Frame, body: Rect, s: &State, d: &Details) {
    let Some(r) = s.history.get(d.seq) else {
        f.render_widget(
            Paragraph::new("This call has left the history (Esc to go back).")
                .block(block("Request")),
            body,
        );
        return;
    };
    let mut lines = vec![
        Line::from(vec![
            Span::styled(format!("{} ", r.level.marker()), level_style(r.level)),
            Span::styled(escape::line(&r.tool), bold()),
            Span::styled(format!("  {}", r.level.label()), level_style(r.level)),
        ]),
        field(
            "time",
            r.at.with_timezone(&s.tz)
                .format("%Y-%m-%d %H:%M:%S%.3f")
                .to_string(),
        ),
        field(
            "client",
            escape::line(&match (r.person, r.client_label()) {
                (true, l) => format!("{l} (the person's own act)"),
                (false, l) if l.starts_with("claims ") => format!("{l} (an MCP client)"),
                (false, l) => format!("{l} (as the client names itself)"),
            }),
        ),
        field("transport", r.transport.label().to_string()),
        field("device", escape::line(r.device_label())),
    ];
    if let Some(id) = r.call_id {
        lines.push(field("call id", id.to_string()));
    }
    match &r.finished {
        Some(fin) => {
            lines.push(Line::from(vec![
                Span::styled(format!("{:<11}", "outcome"), bold()),
                Span::styled(r.outcome_label(), outcome_style(Some(fin.outcome))),
            ]));
            lines.push(field("duration", fmt_duration(fin.duration)));
        }
        None => lines.push(Line::from(vec![
            Span::styled(format!("{:<11}", "outcome"), bold()),
            Span::styled(
                format!("running {}", running_for(s, &r.at)),
                outcome_style(None),
            ),
        ])),
    }
    if let Some(dec) = r.decision_label() {
        let color = if dec.starts_with("approved") {
            Color::Green
        } else {
            Color::Magenta
        };
        lines.push(Line::from(vec![
            Span::styled(format!("{:<11}", "decision"), bold()),
            Span::styled(dec, Style::new().fg(color)),
        ]));
    }
    lines.push(Line::raw(""));
    lines.push(Line::styled("Arguments", bold()));
    lines.extend(json_lines(&r.arguments));
    lines.push(Line::raw(""));
    if let Some(fin) = &r.finished {
        let result = fin.result.value();
        let found = images::of_call(&fin.images, &result);
        if !found.is_empty() {
            let list: Vec<String> = found.iter().map(|i| i.summary()).collect();
            lines.push(Line::styled(
                format!(
                    "Images ({}) — w saves them: {}",
                    found.len(),
                    list.join(" ")
                ),
                Style::new().fg(Color::Cyan),
            ));
        }
        lines.push(Line::styled("Result", bold()));
        lines.extend(json_lines(&images::summarised(&result)));
    } else {
        lines.push(Line::styled("Result: not yet (the call is running)", dim()));
    }
    let title = format!(
        "Request {} — Esc back · ↑/↓ scroll · c copy request · C copy response",
        r.call_id.unwrap_or(r.seq)
    );
    f.render_widget(
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .scroll((d.scroll, 0))
            .block(block(title)),
        body,
    );
}
