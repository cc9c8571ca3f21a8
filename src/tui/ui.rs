//! Drawing: a pure function of `&State` into a ratatui `Frame`. No I/O, no locks, no clock.
//! The chrome (tab bar with the recording indicator, the footer, whose key hints come from the
//! live keymap) lives here; each screen's body (called through its `Screen::draw`), the modal
//! and the help overlay have their own file. Geometry helpers (`tab_at`, `row_at`) are pure
//! too, so a mouse click maps back to what was drawn without the draw code remembering
//! anything.
pub mod activity;
pub mod batch;
pub mod details;
pub mod help;
pub mod history;
pub mod messages;
pub mod modal;
pub mod picker;
pub mod settings;
pub mod status;
pub mod tools;

use std::time::Duration;

use chrono::{DateTime, Utc};
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph};

use super::action::Action;
use super::keymap::{Keymap, Scope};
use super::screen::ScreenId;
use super::state::{Layer, State};
use crate::mcp::events::Outcome;
use crate::mcp::registry::Level;
use crate::protocol::ServerStatus;

pub const ACCENT: Color = Color::Cyan;

pub fn bold() -> Style {
    Style::new().add_modifier(Modifier::BOLD)
}

pub fn dim() -> Style {
    Style::new().fg(Color::DarkGray)
}

pub fn selected() -> Style {
    Style::new().add_modifier(Modifier::REVERSED)
}

pub fn level_style(l: Level) -> Style {
    match l {
        Level::ReadOnly => Style::new().fg(Color::Green),
        Level::SafeAction => Style::new().fg(Color::Yellow),
        Level::Destructive => Style::new().fg(Color::Red).add_modifier(Modifier::BOLD),
    }
}

pub fn outcome_style(o: Option<Outcome>) -> Style {
    match o {
        None => Style::new().fg(ACCENT),
        Some(Outcome::Ok) => Style::new().fg(Color::Green),
        Some(Outcome::Denied | Outcome::Refused) => Style::new().fg(Color::Magenta),
        Some(_) => Style::new().fg(Color::Red),
    }
}

pub fn block(title: impl Into<String>) -> Block<'static> {
    Block::bordered().title(Span::styled(format!(" {} ", title.into()), bold()))
}

pub fn fmt_time(s: &State, at: &DateTime<Utc>) -> String {
    at.with_timezone(&s.tz).format("%H:%M:%S").to_string()
}

pub fn fmt_duration(d: Duration) -> String {
    let ms = d.as_millis();
    if ms < 1000 {
        format!("{ms} ms")
    } else if ms < 60_000 {
        format!("{:.1} s", d.as_secs_f64())
    } else {
        format!("{}m{:02}s", ms / 60_000, (ms / 1000) % 60)
    }
}

/// Seconds a running call has been running, from the state's wall clock.
pub fn running_for(s: &State, at: &DateTime<Utc>) -> String {
    let secs = (s.wall - *at).num_seconds().max(0);
    format!("{secs} s…")
}

/// The frame: tab bar, the screen, footer, then whatever layer sits on top.
pub fn draw(f: &mut Frame, s: &State) {
    let [tabs, body, footer] = chrome(f.area());
    draw_tabs(f, tabs, s);
    if let Some(ed) = &s.batch.editor {
        batch::draw_editor(f, body, ed);
    } else if let Some(d) = &s.details {
        details::draw(f, body, s, d);
    } else {
        s.screen.draw(f, body, s);
    }
    draw_footer(f, footer, s);
    if s.picker.is_some() {
        picker::draw(f, body, s);
    }
    if s.messages.is_some() {
        messages::draw(f, f.area(), s);
    }
    if s.help {
        help::draw(f, f.area(), s);
    }
    if s.prompt.is_some() {
        modal::draw_prompt(f, f.area(), s);
    }
    if !s.confirms.is_empty() || s.gate.withdrawn.is_some() {
        modal::draw(f, f.area(), s);
    }
    if s.no_color {
        strip_colours(f);
    }
}

/// `NO_COLOR`: no cell sets a colour, so none is written. (crossterm writes a colour change
/// under `NO_COLOR` as `ESC [ ; m`, which resets bold and reverse video too: the focused
/// button lost its only mark.) Modifiers — bold, reverse, dim — stay.
fn strip_colours(f: &mut Frame) {
    for cell in f.buffer_mut().content.iter_mut() {
        cell.fg = ratatui::style::Color::Reset;
        cell.bg = ratatui::style::Color::Reset;
    }
}

pub fn chrome(area: Rect) -> [Rect; 3] {
    Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(1),
        Constraint::Length(1),
    ])
    .areas(area)
}

const BRAND: &str = " spock-tui ";

/// The name is dropped on narrow terminals so every tab and the server state still fit in 80.
fn brand(width: u16) -> &'static str {
    if width >= 100 { BRAND } else { "" }
}

fn tab_label(width: u16, i: usize, s: ScreenId) -> String {
    if width >= 100 {
        format!(" {} {} ", i + 1, s.title())
    } else {
        format!("{} {}", i + 1, s.title())
    }
}

/// Each tab's column range on row 0 (one separator column after each tab).
fn tab_ranges(width: u16) -> Vec<(ScreenId, u16, u16)> {
    let mut x = brand(width).chars().count() as u16 + u16::from(width < 100);
    ScreenId::ALL
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let w = tab_label(width, i, *s).chars().count() as u16;
            let r = (*s, x, x + w);
            x += w + 1;
            r
        })
        .collect()
}

pub fn tab_at(width: u16, col: u16, row: u16) -> Option<ScreenId> {
    (row == 0)
        .then(|| {
            tab_ranges(width)
                .into_iter()
                .find(|(_, a, b)| col >= *a && col < *b)
                .map(|t| t.0)
        })
        .flatten()
}

fn draw_tabs(f: &mut Frame, area: Rect, s: &State) {
    let narrow = area.width < 100;
    let mut spans = vec![Span::styled(brand(area.width), bold().fg(ACCENT))];
    if narrow {
        spans.push(Span::raw(" "));
    }
    for (i, sc) in ScreenId::ALL.iter().enumerate() {
        let style = if *sc == s.screen {
            selected().add_modifier(Modifier::BOLD)
        } else {
            Style::new()
        };
        spans.push(Span::styled(tab_label(area.width, i, *sc), style));
        spans.push(Span::raw(if narrow { " " } else { "│" }));
    }
    f.render_widget(Paragraph::new(Line::from(spans)), area);
    let running = s.history.running();
    let mut right = Vec::new();
    if running > 0 {
        let label = if narrow {
            format!(" exec {running} ")
        } else {
            format!(" executing {running} ")
        };
        right.push(Span::styled(
            label,
            Style::new().fg(Color::Black).bg(ACCENT),
        ));
        right.push(Span::raw(" "));
    }
    if let Some(rec) = s.batch.recording() {
        let n = rec.steps.len();
        let label = if narrow {
            format!("● REC {n}")
        } else {
            format!("● REC {n} step{}", if n == 1 { "" } else { "s" })
        };
        right.push(Span::styled(label, batch::rec_style()));
        right.push(Span::raw(" "));
    }
    if s.demo {
        right.push(Span::styled("demo ", Style::new().fg(Color::Magenta)));
    }
    right.push(server_span(&s.server));
    right.push(Span::raw(" "));
    let line = Line::from(right).right_aligned();
    let w = line.width() as u16;
    if area.width > w {
        let r = Rect {
            x: area.x + area.width - w,
            width: w,
            ..area
        };
        f.render_widget(Paragraph::new(line), r);
    }
}

pub fn server_span(st: &ServerStatus) -> Span<'static> {
    let style = match st {
        ServerStatus::Running => Style::new().fg(Color::Green).add_modifier(Modifier::BOLD),
        ServerStatus::Failed(_) => Style::new().fg(Color::Red).add_modifier(Modifier::BOLD),
        _ => Style::new().fg(Color::Yellow),
    };
    Span::styled(format!("[{}]", st.label()), style)
}

/// The keys marked as hints for the current layer in the live keymap (those a screen finds
/// worth showing now), or the latest message.
fn draw_footer(f: &mut Frame, area: Rect, s: &State) {
    // A request that went away under the person's finger holds the keys: the footer says
    // so instead of offering y and n.
    if let Some(w) = &s.gate.withdrawn {
        let left = w.until.saturating_duration_since(s.now);
        let line = Line::from(Span::styled(
            format!(
                " keys do nothing for {:.1}s: the request went away (l: messages)",
                left.as_secs_f32(),
            ),
            Style::new().fg(Color::Yellow),
        ));
        f.render_widget(Paragraph::new(line), area);
        return;
    }
    // A message takes the footer while it lasts; the key hints come back when it expires.
    if let Some(n) = s.notice() {
        let line = Line::from(notice_span(&s.keymap, n, usize::from(area.width)));
        f.render_widget(Paragraph::new(line), area);
        return;
    }
    let layer = s.layer();
    let mut spans = Vec::new();
    // An agent's navigation that waited for the person: one key shows it.
    if let Some(o) = s.nav_offer()
        && matches!(layer, Layer::Screen(_) | Layer::Details)
        && let Some(k) = s.keymap.first_key(Scope::Global, Action::FollowNav)
    {
        spans.push(Span::styled(
            format!(" {k} "),
            Style::new().fg(Color::Black).bg(ACCENT),
        ));
        spans.push(Span::styled(
            format!(" show {} (an agent asks) ", o.screen.title()),
            Style::new().fg(ACCENT),
        ));
    }
    for (scope, a, k) in s.keymap.hints(layer) {
        if let Scope::Screen(sc) = scope
            && !sc.hint_now(s, a)
        {
            continue;
        }
        spans.push(Span::styled(
            format!(" {k} "),
            Style::new().fg(Color::Black).bg(Color::Gray),
        ));
        spans.push(Span::raw(format!(" {} ", a.short())));
    }
    f.render_widget(Paragraph::new(Line::from(spans)), area);
}

/// The footer's message in `room` columns; cut short, it says which key shows it whole.
fn notice_span(keymap: &Keymap, text: &str, room: usize) -> Span<'static> {
    let text = format!(" {}", super::escape::line(text));
    let fits = Span::raw(text.as_str()).width() <= room;
    let shown = if fits {
        text
    } else {
        let key = keymap
            .first_key(Scope::Global, Action::Messages)
            .unwrap_or_default();
        let more = format!("… ({key}: all)");
        let mut cut = String::new();
        for c in text.chars() {
            if Span::raw(format!("{cut}{c}{more}")).width() > room {
                break;
            }
            cut.push(c);
        }
        format!("{cut}{more}")
    };
    Span::styled(shown, Style::new().fg(ACCENT))
}

/// A bordered list's rows: inside the border of `area`, below `above` lines (a header,
/// search and filter lines).
pub(super) fn rows_below(area: Rect, above: u16) -> Rect {
    Rect {
        x: area.x + 1,
        y: area.y + 1 + above,
        width: area.width.saturating_sub(2),
        height: area.height.saturating_sub(2 + above),
    }
}

/// The list position under a click, for screens that draw a list.
pub fn row_at(s: &State, screen: ScreenId, col: u16, row: u16) -> Option<usize> {
    let [_, body, _] = chrome(Rect::new(0, 0, s.size.0, s.size.1));
    screen.row_at(s, body, col, row)
}

/// Clear `b` for a box drawn over the screen, and the cell left of it when that cell holds a
/// wide character (an emoji, CJK): its right half would cover the box's left border.
pub(super) fn clear_box(f: &mut Frame, b: Rect) {
    use unicode_width::UnicodeWidthStr as _;
    f.render_widget(ratatui::widgets::Clear, b);
    if b.x == 0 {
        return;
    }
    let buf = f.buffer_mut();
    for y in b.top()..b.bottom() {
        if let Some(cell) = buf.cell_mut((b.x - 1, y))
            && cell.symbol().width() > 1
        {
            cell.set_symbol(" ");
        }
    }
}

/// `area` shrunk to a centred box of at most `w`×`h`.
pub fn centered(area: Rect, w: u16, h: u16) -> Rect {
    let w = w.min(area.width);
    let h = h.min(area.height);
    Rect {
        x: area.x + (area.width - w) / 2,
        y: area.y + (area.height - h) / 2,
        width: w,
        height: h,
    }
}
