//! Status: what is actually true — server state, the transports really accepting
//! connections, tool counts, devices (or the honest absence of a device layer), the clients
//! that identified themselves (or 000_…'s plain sentence), and the client configuration,
//! wrapped so a token is never cut at the border and scrolled by the moving keys (Status has
//! no list of its own), its keys and "more" on the bottom border where a title cannot hide them.
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use crate::mcp::core::NO_CLIENT_YET;
use crate::protocol::ServerStatus;
use crate::tui::escape;
use crate::tui::state::State;
use crate::tui::ui::{block, bold, dim, server_span};

/// `http://127.0.0.1:8765/mcp` → `HTTP (127.0.0.1:8765)`.
pub fn http_label(url: &str) -> String {
    let hostport = url.trim_start_matches("http://").trim_end_matches("/mcp");
    format!("HTTP ({hostport})")
}

/// `unix:/run/x/mcp.sock` → `stdio (unix:/run/x/mcp.sock)`; the TCP fallback says so.
pub fn stdio_label(endpoint: &str) -> String {
    if endpoint.starts_with("tcp:") {
        format!("stdio ({endpoint}, TCP fallback)")
    } else {
        format!("stdio ({endpoint})")
    }
}

fn server_lines(s: &State) -> Vec<Line<'static>> {
    let mut first = vec![Span::styled("Server      ", bold()), server_span(&s.server)];
    if let ServerStatus::Failed(e) = &s.server {
        first.push(Span::styled(
            format!(" {}", escape::line(e)),
            Style::new().fg(Color::Red),
        ));
    }
    let e = &s.core.endpoints;
    let labels: Vec<String> = [
        e.http.as_deref().map(http_label),
        e.stdio.as_deref().map(stdio_label),
    ]
    .into_iter()
    .flatten()
    .collect();
    // One transport a line: a long socket path must not push the other off screen.
    let mut transports: Vec<Line> = Vec::new();
    if s.server != ServerStatus::Running {
        transports.push(Line::from(vec![
            Span::styled("Accepting   ", bold()),
            Span::styled("nothing (the server is not running)", dim()),
        ]));
    } else if labels.is_empty() {
        transports.push(Line::from(vec![
            Span::styled("Accepting   ", bold()),
            Span::raw("nothing yet"),
        ]));
    }
    if s.server == ServerStatus::Running {
        for (i, l) in labels.into_iter().enumerate() {
            let head = if i == 0 {
                "Accepting   "
            } else {
                "            "
            };
            transports.push(Line::from(vec![
                Span::styled(head, bold()),
                Span::raw(escape::line(&l)),
            ]));
        }
    }
    // Why HTTP is not where it was asked to be: one clause a line, so it fits 80 columns.
    if s.server == ServerStatus::Running
        && let Some(note) = &e.http_note
    {
        for (i, clause) in note.split("; ").enumerate() {
            let head = if i == 0 {
                "Note        "
            } else {
                "            "
            };
            transports.push(Line::from(vec![
                Span::styled(head, bold()),
                Span::styled(escape::line(clause), Style::new().fg(Color::Yellow)),
            ]));
        }
    }
    let enabled = s.tools.iter().filter(|t| s.enabled(t.name)).count();
    let mut tools = vec![
        Span::styled("Tools       ", bold()),
        Span::raw(format!("{enabled} enabled / {} total", s.tools.len())),
    ];
    if s.core.allow_all {
        tools.push(Span::styled(
            "   (--allow-all: switches lifted for this run)",
            Style::new().fg(Color::Yellow),
        ));
    }
    let confirm = vec![
        Span::styled("Confirm     ", bold()),
        Span::raw(format!(
            "destructive calls ask here; denied after {} s without an answer",
            s.core.confirm_timeout_secs
        )),
    ];
    let mut lines = vec![Line::from(first)];
    lines.extend(transports);
    lines.push(Line::from(tools));
    lines.push(Line::from(confirm));
    let now = spock_core::audit::now_ms();
    for (i, (ok, text)) in s.core.trail.lines(now).into_iter().enumerate() {
        let style = if ok {
            Style::new()
        } else {
            Style::new().fg(Color::Yellow)
        };
        lines.push(Line::from(vec![
            Span::styled(
                if i == 0 {
                    "Trail       "
                } else {
                    "            "
                },
                bold(),
            ),
            Span::styled(escape::line(&text), style),
        ]));
    }
    if let Some(w) = &s.core.audit_warning {
        lines.push(Line::from(vec![
            Span::styled("Audit       ", bold()),
            Span::styled(w.clone(), Style::new().fg(Color::Yellow)),
        ]));
    }
    lines
}

fn device_lines(s: &State) -> Vec<Line<'static>> {
    match &s.devices {
        None => vec![Line::styled("no device layer yet", dim())],
        Some(d) if d.is_empty() && s.device_problems.is_empty() => {
            vec![Line::styled("no device connected", dim())]
        }
        // Why none: each adb server that is down, as doctor would say it.
        Some(d) if d.is_empty() => s
            .device_problems
            .iter()
            .map(|p| {
                Line::styled(
                    format!("no device: {}", escape::line(p)),
                    Style::new().fg(Color::Yellow),
                )
            })
            .collect(),
        Some(d) => d
            .iter()
            .map(|d| {
                Line::from(vec![
                    Span::raw(if d.selected { "▸ " } else { "  " }),
                    Span::styled(escape::cell(&d.serial, 32), bold()),
                    Span::raw(format!("  {}  ", escape::cell(&d.state, 16))),
                    Span::styled(escape::cell(d.model.as_deref().unwrap_or(""), 40), dim()),
                ])
            })
            .collect(),
    }
}

fn client_lines(s: &State) -> Vec<Line<'static>> {
    if s.core.clients.is_empty() {
        return vec![Line::raw(NO_CLIENT_YET)];
    }
    s.core
        .clients
        .iter()
        .map(|c| {
            Line::from(vec![
                Span::styled(escape::cell(&c.name, 32), bold()),
                Span::raw(format!(" {}", escape::cell(&c.version, 16))),
                Span::styled(
                    format!(
                        "  via {} · protocol {} · {} calls · last {}",
                        c.transport.label(),
                        escape::cell(&c.protocol, 12),
                        c.calls,
                        crate::tui::ui::fmt_time(s, &c.last_seen)
                    ),
                    dim(),
                ),
            ])
        })
        .collect()
}

/// The five panels: server, devices, clients, leases (no rows when there are none), and the
/// client configuration (the rest).
fn panels(area: Rect, s: &State) -> [Rect; 5] {
    let devices = match &s.devices {
        Some(d) if !d.is_empty() => d.len(),
        // Why there is none, wrapped: room for a few lines of it.
        Some(_) if !s.device_problems.is_empty() => 4,
        _ => 1,
    };
    let client_h = if s.core.clients.is_empty() {
        2
    } else {
        s.core.clients.len().min(6) as u16
    };
    // Leases, when any: a small block of their own between clients and configuration.
    let lease_h = match s.core.leases.len() {
        0 => 0,
        n => n.min(4) as u16 + 2,
    };
    Layout::vertical([
        Constraint::Length((server_lines(s).len() as u16 + 2).max(7)),
        Constraint::Length(devices.min(6) as u16 + 2),
        Constraint::Length(client_h + 2),
        Constraint::Length(lease_h),
        Constraint::Min(3),
    ])
    .areas(area)
}

/// `line` cut into pieces at most `width` columns wide: a token or a path is shown whole,
/// over several rows, never cut off at the border.
fn wrap_hard(line: &str, width: usize) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut used = 0;
    for c in line.chars() {
        let w = Span::raw(&*c.encode_utf8(&mut [0; 4])).width();
        if used + w > width.max(1) && used > 0 {
            out.push(String::new());
            used = 0;
        }
        if let Some(last) = out.last_mut() {
            last.push(c);
        }
        used += w;
    }
    out
}

/// The configuration panel's rows at `width`, wrapped.
fn config_lines(s: &State, width: usize) -> Vec<Line<'static>> {
    match s.config_text() {
        Ok(text) => {
            let mut lines = Vec::new();
            if s.status.http {
                lines.extend(
                    wrap_hard(
                        "This configuration contains the token: treat it like a password. Prefer stdio.",
                        width,
                    )
                    .into_iter()
                    .map(|l| Line::styled(l, Style::new().fg(Color::Yellow))),
                );
            }
            for l in escape::lines(&text) {
                lines.extend(wrap_hard(&l, width).into_iter().map(Line::raw));
            }
            lines
        }
        Err(e) => wrap_hard(&e, width)
            .into_iter()
            .map(|l| Line::styled(l, dim()))
            .collect(),
    }
}

/// How far the configuration panel can scroll in the state's terminal size: what key
/// handling clamps to, so the first key back up always moves.
pub fn config_max_scroll(s: &State) -> u16 {
    let [_, body, _] = crate::tui::ui::chrome(Rect::new(0, 0, s.size.0, s.size.1));
    let [.., cfg] = panels(body, s);
    let inner = block("").inner(cfg);
    let rows = config_lines(s, inner.width as usize).len();
    u16::try_from(rows.saturating_sub(inner.height as usize)).unwrap_or(u16::MAX)
}

pub fn draw(f: &mut Frame, area: Rect, s: &State) {
    let [server, dev, cli, held, cfg] = panels(area, s);
    let leases = super::leases::lines(s);
    if !leases.is_empty() {
        f.render_widget(
            Paragraph::new(leases).block(block(super::leases::title(s))),
            held,
        );
    }
    f.render_widget(
        Paragraph::new(server_lines(s)).block(block("Server")),
        server,
    );
    f.render_widget(
        Paragraph::new(device_lines(s))
            .wrap(Wrap { trim: true })
            .block(block("Devices")),
        dev,
    );
    f.render_widget(
        Paragraph::new(client_lines(s))
            .wrap(Wrap { trim: true })
            .block(block("Clients (as they identified themselves)")),
        cli,
    );
    // The keys sit on the bottom border, where a long title cannot push them off.
    let inner = block("").inner(cfg);
    let body = config_lines(s, inner.width as usize);
    let scroll = s.status.scroll.min(config_max_scroll(s));
    let below = body
        .len()
        .saturating_sub(usize::from(scroll) + inner.height as usize);
    let mut keys = "t stdio/HTTP · ←/→ client · y copy".to_string();
    if below > 0 {
        keys.push_str(&format!(" · ↓ {below} more (j/↓)"));
    }
    if scroll > 0 {
        keys.push_str(" · ↑ k/↑");
    }
    let frame = block(s.config_title()).title_bottom(Span::styled(format!(" {keys} "), bold()));
    f.render_widget(Paragraph::new(body).scroll((scroll, 0)).block(frame), cfg);
}
