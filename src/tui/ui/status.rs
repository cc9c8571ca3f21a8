//! Status: what is actually true — server state, the transports really accepting
//! connections, tool counts, devices (or the honest absence of a device layer), the clients
//! that identified themselves (or 000_…'s plain sentence), and the client configuration.
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use super::{block, bold, dim, server_span};
use crate::mcp::core::NO_CLIENT_YET;
use crate::tui::escape;
use crate::tui::event::ServerStatus;
use crate::tui::state::State;

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
    lines
}

fn device_lines(s: &State) -> Vec<Line<'static>> {
    match &s.devices {
        None => vec![Line::styled("no device layer yet", dim())],
        Some(d) if d.is_empty() => vec![Line::styled("no device connected", dim())],
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
                        super::fmt_time(s, &c.last_seen)
                    ),
                    dim(),
                ),
            ])
        })
        .collect()
}

pub fn draw(f: &mut Frame, area: Rect, s: &State) {
    let server_text = server_lines(s);
    let devices = device_lines(s);
    let clients = client_lines(s);
    let client_h = if s.core.clients.is_empty() {
        2
    } else {
        clients.len().min(6) as u16
    };
    // Leases, when any: a small block of their own between clients and configuration.
    let leases = crate::tui::leases::lines(s);
    let lease_h = if leases.is_empty() {
        0
    } else {
        leases.len().min(4) as u16 + 2
    };
    let [server, dev, cli, held, cfg] = Layout::vertical([
        Constraint::Length((server_text.len() as u16 + 2).max(7)),
        Constraint::Length(devices.len().min(6) as u16 + 2),
        Constraint::Length(client_h + 2),
        Constraint::Length(lease_h),
        Constraint::Min(3),
    ])
    .areas(area);
    if !leases.is_empty() {
        f.render_widget(
            Paragraph::new(leases).block(block(crate::tui::leases::title(s))),
            held,
        );
    }
    f.render_widget(Paragraph::new(server_text).block(block("Server")), server);
    f.render_widget(Paragraph::new(devices).block(block("Devices")), dev);
    f.render_widget(
        Paragraph::new(clients)
            .wrap(Wrap { trim: true })
            .block(block("Clients (as they identified themselves)")),
        cli,
    );
    let title = format!("{} — t stdio/HTTP · ←/→ client · y copy", s.config_title());
    let body: Vec<Line> = match s.config_text() {
        Ok(text) => {
            let mut lines = Vec::new();
            if s.status.http {
                lines.push(Line::styled(
                    "This configuration contains the token: treat it like a password. Prefer stdio.",
                    Style::new().fg(Color::Yellow),
                ));
            }
            lines.extend(escape::lines(&text).into_iter().map(Line::raw));
            lines
        }
        Err(e) => vec![Line::styled(e, dim())],
    };
    f.render_widget(Paragraph::new(body).block(block(title)), cfg);
}
