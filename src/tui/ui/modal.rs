//! The confirmation modal for destructive calls: who asks, which tool, which device, the
//! arguments in full, the stated reason, and a countdown to the default denial. Deny has
//! focus by default. The geometry is a pure function of the terminal size so mouse clicks
//! on the buttons map back, and the state can tell how much of the arguments is still below
//! the visible part, without the draw code remembering anything. Also our own small yes/no
//! prompt (delete a task? enable the host groups too?).
//!
//! Nothing the person approves is hidden: every character of the arguments is drawn (runs of
//! spaces as `␠×N`, invisible characters named, see [`escape::full`]), wrapped here at the
//! box's width so the number of lines is known, and approval waits until every line has
//! been on screen (and for a terminal big enough to show any). Focus is marked with arrows and reverse video, so it survives `NO_COLOR`.
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Wrap};
use unicode_width::UnicodeWidthChar as _;

use super::{bold, centered, dim};
use crate::tui::escape;
use crate::tui::event::Pending;
use crate::tui::state::{Blocked, Button, State};
use spock_core::model::who;

// Focused and unfocused labels have the same width, so the geometry does not depend on focus.
const DENY: &str = "[  Deny (n)  ]";
const DENY_FOCUSED: &str = "[▸ Deny (n) ◂]";
const APPROVE: &str = "[  Approve (y)  ]";
const APPROVE_FOCUSED: &str = "[▸ Approve (y) ◂]";

fn boxed(size: (u16, u16)) -> Rect {
    let area = Rect::new(0, 0, size.0, size.1);
    centered(
        area,
        size.0.saturating_sub(4).min(100),
        size.1.saturating_sub(2).min(30),
    )
}

/// A fence unanswered this long: the modal says approval waits for the terminal.
const SLOW_LINK: std::time::Duration = std::time::Duration::from_millis(500);

/// Inside the border.
fn inner(size: (u16, u16)) -> Rect {
    let b = boxed(size);
    Rect::new(
        b.x + 1,
        b.y + 1,
        b.width.saturating_sub(2),
        b.height.saturating_sub(2),
    )
}

/// Where the request (head and arguments) scrolls: the inner box less the three bottom rows
/// (countdown, what approval waits for, buttons).
fn text_rect(size: (u16, u16)) -> Rect {
    let i = inner(size);
    Rect {
        height: i.height.saturating_sub(3),
        ..i
    }
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

/// One logical line as styled pieces, before wrapping.
type Pieces = Vec<(String, Style)>;

/// The request as the person reads it, one entry per logical line.
fn request_lines(req: &Pending) -> Vec<Pieces> {
    let label = |k: &str| (format!("{k:<10}"), bold());
    let a = &req.ask;
    // What the server verified, then what the client claims, never one for the other.
    let mut out: Vec<Pieces> = vec![vec![
        label("Asked by"),
        (
            format!("{} (verified)", escape::full(&a.verified.describe())),
            Style::new(),
        ),
    ]];
    let claims = who::claims(&a.verified, &a.client, a.via.as_deref());
    if !claims.is_empty() {
        out.push(vec![
            label("Claims"),
            (
                format!("{} (not verified)", escape::full(&claims)),
                Style::new().fg(Color::Yellow),
            ),
        ]);
    }
    if !a.verified.is_person()
        && let Some(c) = &a.client
        && who::looks_like_control_centre(&format!("{} {}", c.name, c.version))
    {
        out.push(vec![
            label("Warning"),
            (
                "its name reads like a control centre's; it is an MCP client, not a person's \
                 terminal"
                    .to_string(),
                Style::new().fg(Color::Red).add_modifier(Modifier::BOLD),
            ),
        ]);
    }
    if let Some((approved, by)) = req.client_says.clone() {
        out.push(vec![
            label("Client"),
            (
                format!(
                    "the client says: {} (claim; {}; only your answer runs this call)",
                    if approved { "approve" } else { "deny" },
                    escape::full(&by)
                ),
                Style::new().fg(Color::Yellow),
            ),
        ]);
    }
    out.extend([
        vec![
            label("Tool"),
            (
                req.ask.tool.to_string(),
                Style::new().fg(Color::Red).add_modifier(Modifier::BOLD),
            ),
            (format!(" — {}", req.ask.title), Style::new()),
        ],
        vec![
            label("Device"),
            (escape::full(&device_line(&req.ask)), Style::new()),
        ],
    ]);
    if let Some(reason) = &req.ask.reason {
        out.push(vec![
            label("Reason"),
            (escape::full(reason), Style::new().fg(Color::Yellow)),
        ]);
    }
    out.push(vec![(
        "Arguments in full (␠×N: N spaces; <U+XXXX>: one character; ↑/↓ PgUp/PgDn)".to_string(),
        bold(),
    )]);
    // Pretty JSON keeps strings on one line; its indentation stays as it is, and everything
    // after it (keys and values) is shown in full.
    let args = serde_json::to_string_pretty(&req.ask.arguments).unwrap_or_default();
    for l in args.split('\n') {
        let body = l.trim_start_matches(' ');
        let indent = l.len() - body.len();
        out.push(vec![(
            format!("{}{}", " ".repeat(indent), escape::full(body)),
            Style::new(),
        )]);
    }
    out
}

/// Wraps one logical line at `width` columns: at the last space in the second half of the
/// row, else mid-word. Every character lands on some row.
fn wrap(pieces: Pieces, width: usize) -> Vec<Line<'static>> {
    let width = width.max(1);
    let chars: Vec<(char, usize)> = pieces
        .iter()
        .enumerate()
        .flat_map(|(i, (t, _))| t.chars().map(move |c| (c, i)))
        .collect();
    let mut rows: Vec<(usize, usize)> = Vec::new();
    let (mut start, mut col, mut last_space) = (0usize, 0usize, None::<usize>);
    let mut i = 0;
    while i < chars.len() {
        let w = chars[i].0.width().unwrap_or(0);
        if col + w > width && i > start {
            let end = match last_space {
                Some(sp) if sp + 1 > start && (sp + 1 - start) * 2 > width.min(i - start) => sp + 1,
                _ => i,
            };
            rows.push((start, end));
            start = end;
            col = chars[start..i]
                .iter()
                .map(|(c, _)| c.width().unwrap_or(0))
                .sum();
            last_space = None;
            continue;
        }
        if chars[i].0 == ' ' {
            last_space = Some(i);
        }
        col += w;
        i += 1;
    }
    rows.push((start, chars.len()));
    rows.into_iter()
        .map(|(a, b)| {
            let mut spans: Vec<Span<'static>> = Vec::new();
            let mut cur = String::new();
            let mut cur_piece = chars.get(a).map(|c| c.1).unwrap_or(0);
            for &(c, p) in &chars[a..b] {
                if p != cur_piece && !cur.is_empty() {
                    spans.push(Span::styled(std::mem::take(&mut cur), pieces[cur_piece].1));
                }
                cur_piece = p;
                cur.push(c);
            }
            if !cur.is_empty() {
                spans.push(Span::styled(cur, pieces[cur_piece].1));
            }
            Line::from(spans)
        })
        .collect()
}

/// The front request's rows as drawn at the current size.
fn rows(s: &State) -> Vec<Line<'static>> {
    let Some(req) = s.confirms.front() else {
        return Vec::new();
    };
    let width = usize::from(text_rect(s.size).width);
    let mut lines = request_lines(req);
    if !s.you.is_empty() {
        lines.push(vec![
            (format!("{:<10}", "Record"), bold()),
            (
                format!("your answer is recorded as {}", escape::full(&s.you)),
                dim(),
            ),
        ]);
    }
    lines.into_iter().flat_map(|l| wrap(l, width)).collect()
}

/// The front request's rows as plain text (what [`draw`] shows, scrolled or not).
pub fn text_rows(s: &State) -> Vec<String> {
    rows(s)
        .iter()
        .map(|l| l.spans.iter().map(|sp| sp.content.as_ref()).collect())
        .collect()
}

/// How far the request can scroll: its rows less the visible height.
pub fn max_scroll(s: &State) -> u16 {
    let total = rows(s).len();
    let h = usize::from(text_rect(s.size).height);
    u16::try_from(total.saturating_sub(h)).unwrap_or(u16::MAX)
}

/// Rows a page key scrolls the request by.
pub fn page(s: &State) -> u16 {
    text_rect(s.size).height.saturating_sub(1).max(1)
}

/// Rows of the request below the visible part at the current scroll.
pub fn lines_below(s: &State) -> u16 {
    max_scroll(s).saturating_sub(s.confirm_scroll)
}

/// The least room the request's text needs before anything in it can be approved: below
/// this the modal says to enlarge the terminal, and only a denial counts.
const MIN_TEXT: (u16, u16) = (24, 3);

/// Whether the terminal is too small to show the request.
pub fn too_small(size: (u16, u16)) -> bool {
    let t = text_rect(size);
    t.width < MIN_TEXT.0 || t.height < MIN_TEXT.1
}

/// The rows the current scroll shows.
fn visible(s: &State, total: usize) -> std::ops::Range<usize> {
    let top = usize::from(s.confirm_scroll.min(max_scroll(s)));
    top..(top + usize::from(text_rect(s.size).height)).min(total)
}

/// A frame has just drawn the front request: its visible rows count as seen. The record is
/// kept per layout; at another width the rows are other rows, and are seen afresh.
pub fn mark_seen(s: &mut State) {
    if too_small(s.size) {
        return;
    }
    let width = text_rect(s.size).width;
    let total = rows(s).len();
    if s.gate.seen_width != width || s.gate.seen.len() != total {
        s.gate.seen = vec![false; total];
        s.gate.seen_width = width;
    }
    for i in visible(s, total) {
        s.gate.seen[i] = true;
    }
}

/// Rows of the front request no frame has drawn at the current layout.
pub fn unseen(s: &State) -> u16 {
    let total = rows(s).len();
    let n = if s.gate.seen_width != text_rect(s.size).width || s.gate.seen.len() != total {
        total
    } else {
        s.gate.seen.iter().filter(|seen| !**seen).count()
    };
    u16::try_from(n).unwrap_or(u16::MAX)
}

/// What the frame being drawn leaves unseen: the rows not yet seen less the ones it shows,
/// and whether all of those lie below it (so scrolling down reaches them).
fn unseen_after_this_frame(s: &State) -> (usize, bool) {
    let total = rows(s).len();
    let shown = visible(s, total);
    let known = s.gate.seen_width == text_rect(s.size).width && s.gate.seen.len() == total;
    let seen = |i: usize| shown.contains(&i) || (known && s.gate.seen[i]);
    let left = (0..total).filter(|i| !seen(*i)).count();
    (left, (0..shown.start).all(seen))
}

/// `0.4 s`: tenths, rounded up, so it never says 0.0 while still waiting.
fn tenths(d: std::time::Duration) -> String {
    let t = d.as_millis().div_ceil(100);
    format!("{}.{} s", t / 10, t % 10)
}

pub fn draw(f: &mut Frame, _area: Rect, s: &State) {
    if let Some(w) = &s.gate.withdrawn {
        draw_withdrawn(f, s, w);
        return;
    }
    let Some(req) = s.confirms.front() else {
        return;
    };
    let b = boxed(s.size);
    super::clear_box(f, b);
    if too_small(s.size) {
        draw_too_small(f, b);
        return;
    }
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

    // Wrapped here, so the row count the state checks is the row count drawn.
    let scroll = s.confirm_scroll.min(max_scroll(s));
    f.render_widget(
        Paragraph::new(rows(s)).scroll((scroll, 0)),
        text_rect(s.size),
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

    // What approval waits for, if anything: the arming time and the end of the arguments.
    let blocked = s.approve_blocked(s.now);
    let mut waits = Vec::new();
    match blocked {
        // Drawn, and the terminal has not yet said it shows it: over a slow link, a while.
        Some(Blocked::NotShown)
            if s.gate.fence.as_ref().is_some_and(|f| {
                f.waiting
                    .is_some_and(|(_, _, at)| s.now.saturating_duration_since(at) >= SLOW_LINK)
            }) =>
        {
            waits.push(format!(
                "y available in {} from when your terminal shows this (waiting for it to say so)",
                tenths(s.gate.arming)
            ))
        }
        Some(Blocked::NotShown) => waits.push(format!("y available in {}", tenths(s.gate.arming))),
        Some(Blocked::Arming(d)) => waits.push(format!("y available in {}", tenths(d))),
        _ => {}
    }
    let (unseen, all_below) = unseen_after_this_frame(s);
    let plural = if unseen == 1 { "" } else { "s" };
    if unseen > 0 && all_below {
        waits.push(format!(
            "scroll to the end to approve: ↓ {unseen} more line{plural}"
        ));
    } else if unseen > 0 {
        waits.push(format!(
            "scroll over every line to approve: {unseen} line{plural} not shown yet"
        ));
    }
    let waiting = (!waits.is_empty()).then(|| waits.join(" · "));
    if let Some(w) = waiting {
        f.render_widget(
            Paragraph::new(Line::styled(w, Style::new().add_modifier(Modifier::BOLD)).centered()),
            Rect {
                y: cy + 1,
                height: 1,
                ..inner
            },
        );
    }

    let (d, a) = buttons(s.size);
    // Focus is the arrows and reverse video; colour only adds to it.
    let focused = |c: Color| {
        Style::new()
            .fg(c)
            .add_modifier(Modifier::REVERSED | Modifier::BOLD)
    };
    let (deny, deny_style) = match s.focus {
        Button::Deny => (DENY_FOCUSED, focused(Color::Green)),
        Button::Approve => (DENY, Style::new().fg(Color::Green)),
    };
    let (approve, mut approve_style) = match s.focus {
        Button::Approve => (APPROVE_FOCUSED, focused(Color::Red)),
        Button::Deny => (APPROVE, Style::new().fg(Color::Red)),
    };
    if blocked.is_some() {
        approve_style = approve_style.add_modifier(Modifier::DIM);
    }
    f.render_widget(Paragraph::new(Span::styled(deny, deny_style)), d);
    f.render_widget(Paragraph::new(Span::styled(approve, approve_style)), a);
}

/// No room to show the request: say so, with no buttons; `n` still denies.
fn draw_too_small(f: &mut Frame, b: Rect) {
    let frame = Block::bordered()
        .border_style(Style::new().fg(Color::Red))
        .title(Span::styled(" ⚠ Approve? ", bold().fg(Color::Red)));
    let inner = frame.inner(b);
    f.render_widget(frame, b);
    f.render_widget(
        Paragraph::new(Line::styled(
            "A destructive call waits. Enlarge the terminal to read it; n denies.",
            bold(),
        ))
        .wrap(Wrap { trim: true }),
        inner,
    );
}

/// The request on screen went away by itself: say so, with nothing to press, until the hold
/// ends and the next request (if any) takes its place.
fn draw_withdrawn(f: &mut Frame, s: &State, w: &crate::tui::state::Withdrawn) {
    let b = boxed(s.size);
    super::clear_box(f, b);
    let frame = Block::bordered()
        .border_style(Style::new().fg(Color::Yellow))
        .title(Span::styled(
            if w.decided.is_some() {
                " ⚠ Decided in another terminal "
            } else if w.timed_out {
                " ⚠ Request timed out "
            } else {
                " ⚠ Request withdrawn "
            },
            bold().fg(Color::Yellow),
        ));
    let inner = frame.inner(b);
    f.render_widget(frame, b);
    let what = w.outcome();
    let next = s.confirms.len();
    let left = tenths(w.until.saturating_duration_since(s.now));
    let mut lines = vec![
        Line::raw(""),
        Line::styled(
            format!("{} from {}: {what}.", escape::full(&w.tool), w.client),
            bold(),
        )
        .centered(),
        Line::raw(""),
        Line::raw(
            if w.decided.as_ref().is_some_and(|(approved, _)| *approved) {
                "Keys do nothing until this goes away."
            } else {
                "Nothing was approved. Keys do nothing until this goes away."
            },
        )
        .centered(),
    ];
    if next > 0 {
        lines.push(
            Line::raw(format!(
                "The next request ({next} waiting) appears in {left}; read it before answering."
            ))
            .centered(),
        );
    }
    f.render_widget(Paragraph::new(lines).wrap(Wrap { trim: true }), inner);
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
    super::clear_box(f, b);
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
