//! The confirmation modal for destructive calls: who asks, which tool, which device, the
//! arguments in full, the stated reason, and a countdown to the default denial. Deny has
//! focus by default. The geometry is a pure function of the terminal size so mouse clicks
//! on the buttons map back without the draw code remembering anything. Also our own small
//! yes/no prompt (delete a task? enable the host groups too?).
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Wrap};

use super::{bold, centered, dim};
use crate::mcp::events::ClientId;
use crate::tui::escape;
use crate::tui::state::{Button, State};

const DENY: &str = "[ Deny (n) ]";
const APPROVE: &str = "[ Approve (y) ]";

fn boxed(size: (u16, u16)) -> Rect {
    let area = Rect::new(0, 0, size.0, size.1);
    centered(
        area,
        size.0.saturating_sub(4).min(100),
        size.1.saturating_sub(2).min(30),
    )
}

/// The button row's rectangles: (deny, approve).
fn buttons(size: (u16, u16)) -> (Rect, Rect) {
    let b = boxed(size);
    let y = b.y + b.height.saturating_sub(2);
    let deny_w = DENY.chars().count() as u16;
    let approve_w = APPROVE.chars().count() as u16;
    let total = deny_w + 4 + approve_w;
    let x = b.x + b.width.saturating_sub(total) / 2;
    (
        Rect::new(x, y, deny_w, 1),
        Rect::new(x + deny_w + 4, y, approve_w, 1),
    )
}

pub fn button_at(size: (u16, u16), col: u16, row: u16) -> Option<Button> {
    let (d, a) = buttons(size);
    let p = ratatui::layout::Position { x: col, y: row };
    if d.contains(p) {
        Some(Button::Deny)
    } else if a.contains(p) {
        Some(Button::Approve)
    } else {
        None
    }
}

pub fn draw(f: &mut Frame, _area: Rect, s: &State) {
    let Some(req) = s.confirms.front() else {
        return;
    };
    let b = boxed(s.size);
    f.render_widget(Clear, b);
    let queued = s.confirms.len();
    let title = if queued > 1 {
        format!(" ⚠ Approve a destructive call? (1 of {queued} waiting) ")
    } else {
        " ⚠ Approve a destructive call? ".to_string()
    };
    let frame = Block::bordered()
        .border_style(Style::new().fg(Color::Red))
        .title(Span::styled(
            title,
            Style::new().fg(Color::Red).add_modifier(Modifier::BOLD),
        ));
    let inner = frame.inner(b);
    f.render_widget(frame, b);

    let field = |k: &str, v: String| {
        Line::from(vec![Span::styled(format!("{k:<10}"), bold()), Span::raw(v)])
    };
    let mut head = vec![
        field(
            "Client",
            format!(
                "{} via {}",
                escape::line(&ClientId::label(&req.ask.client)),
                req.ask.transport.label()
            ),
        ),
        Line::from(vec![
            Span::styled(format!("{:<10}", "Tool"), bold()),
            Span::styled(
                req.ask.tool,
                Style::new().fg(Color::Red).add_modifier(Modifier::BOLD),
            ),
            Span::raw(format!(" — {}", req.ask.title)),
        ]),
        field("Device", escape::line(&device_line(&req.ask))),
    ];
    if let Some(reason) = &req.ask.reason {
        head.push(Line::from(vec![
            Span::styled(format!("{:<10}", "Reason"), bold()),
            Span::styled(escape::line(reason), Style::new().fg(Color::Yellow)),
        ]));
    }
    head.push(Line::styled("Arguments (in full; ↑/↓ scroll)", bold()));
    let args = serde_json::to_string_pretty(&req.ask.arguments).unwrap_or_default();
    head.extend(escape::lines(&args).into_iter().map(Line::raw));
    // One wrapped, scrollable paragraph: a long reason or argument is never cut off.
    let text_area = Rect {
        height: inner.height.saturating_sub(3),
        ..inner
    };
    f.render_widget(
        Paragraph::new(head)
            .wrap(Wrap { trim: false })
            .scroll((s.confirm_scroll, 0)),
        text_area,
    );

    let left = req.deadline.saturating_duration_since(s.now).as_secs();
    let countdown = Line::from(vec![
        Span::styled(
            format!("Denied automatically in {left} s"),
            Style::new().fg(Color::Yellow),
        ),
        Span::styled("  ·  Tab switch · Enter press", dim()),
    ])
    .centered();
    let cy = inner.y + inner.height.saturating_sub(3);
    f.render_widget(
        Paragraph::new(countdown),
        Rect {
            y: cy,
            height: 1,
            ..inner
        },
    );

    let (d, a) = buttons(s.size);
    let focused = Style::new()
        .fg(Color::Black)
        .bg(Color::White)
        .add_modifier(Modifier::BOLD);
    let (ds, as_) = match s.focus {
        Button::Deny => (focused, Style::new().fg(Color::Green)),
        Button::Approve => (Style::new().fg(Color::Red), focused.bg(Color::Green)),
    };
    f.render_widget(Paragraph::new(Span::styled(DENY, ds)), d);
    f.render_widget(Paragraph::new(Span::styled(APPROVE, as_)), a);
}

/// The yes/no prompt, small and centred over everything but a destructive-call confirmation.
pub fn draw_prompt(f: &mut Frame, area: Rect, s: &State) {
    let Some(p) = &s.prompt else {
        return;
    };
    let question = p.question();
    // Room for the question wrapped in 58 columns (a line of slack for word breaks) and the keys.
    let h = (question.chars().count() / 58 + 2) as u16 + 1 + 2;
    let b = centered(area, 60, h);
    f.render_widget(Clear, b);
    let frame = Block::bordered()
        .border_style(Style::new().fg(Color::Yellow))
        .title(Span::styled(" Are you sure? ", bold().fg(Color::Yellow)));
    let inner = frame.inner(b);
    f.render_widget(frame, b);
    let lines = vec![
        Line::styled(question, bold()).centered(),
        Line::styled("y yes · n / Esc no", dim()).centered(),
    ];
    f.render_widget(Paragraph::new(lines).wrap(Wrap { trim: true }), inner);
}

/// The device the call was pinned to before asking, with its model: what runs is exactly this.
fn device_line(ask: &crate::mcp::confirm::Ask) -> String {
    match (&ask.device, &ask.device_model) {
        (Some(d), Some(m)) => format!("{d} ({m})"),
        (Some(d), None) => d.clone(),
        (None, _) => "none (this call does not act on a device)".into(),
    }
}
