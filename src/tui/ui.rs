//! Drawing: pure functions of `&State` into a ratatui `Frame`. No I/O, no locks, no clock.
//! What the screens and the layers share lives here (styles, the chrome's layout, the tab
//! bar, bordered lists, boxes over the screen); each screen's body, the modal and the help
//! overlay have their own file. The frame is put together above, in `frame.rs`. Geometry
//! helpers (`tab_at`, `chrome`) are pure too, so a mouse click maps back to what was drawn
//! without the draw code remembering anything.
pub mod details;
pub mod help;
pub mod messages;
pub mod modal;
pub mod picker;
pub mod style;

use std::time::Duration;

use chrono::{DateTime, Utc};
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph};

use super::state::State;
use super::tab::ScreenId;
use crate::mcp::events::Outcome;
use crate::mcp::registry::Level;
use crate::protocol::ServerStatus;

pub use style::{ACCENT, bold, dim, rec_style, selected};

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

pub fn draw_tabs(f: &mut Frame, area: Rect, s: &State) {
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
    // Right of the tabs, never over them: the server's state always, then what fits of the
    // calls running, the recording and the demo mark, in that order of importance.
    let tabs_end = tab_ranges(area.width).last().map_or(0, |r| r.2) + 1;
    let room = area.width.saturating_sub(tabs_end);
    let running = s.history.running();
    let exec_span = |label: String| Span::styled(label, Style::new().fg(Color::Black).bg(ACCENT));
    // The long label where it fits beside the server's state, else the short one.
    let exec = (running > 0).then(|| {
        let long = exec_span(format!(" executing {running} "));
        if !narrow && long.width() as u16 + 1 + (server_span(&s.server).width() as u16) < room {
            long
        } else {
            exec_span(format!(" exec {running} "))
        }
    });
    let rec = s.batch.recording().map(|rec| {
        let n = rec.steps.len();
        let label = if narrow {
            format!("● REC {n}")
        } else {
            format!("● REC {n} step{}", if n == 1 { "" } else { "s" })
        };
        Span::styled(label, rec_style())
    });
    let demo = s
        .demo
        .then(|| Span::styled("demo", Style::new().fg(Color::Magenta)));
    let server = server_span(&s.server);
    let width = |parts: &[&Span]| parts.iter().map(|p| p.width() as u16 + 1).sum::<u16>();
    let mut shown: Vec<&Span> = vec![&server];
    for extra in [&exec, &rec, &demo].into_iter().flatten() {
        let mut with = shown.clone();
        with.push(extra);
        if width(&with) <= room {
            shown = with;
        }
    }
    // In reading order: running, recording, demo, then the server's state.
    let order = |sp: &&Span| {
        [&exec, &rec, &demo]
            .iter()
            .position(|o| o.as_ref().is_some_and(|o| std::ptr::eq(o, *sp)))
            .unwrap_or(3)
    };
    shown.sort_by_key(order);
    let mut right = Vec::new();
    for sp in shown {
        right.push(sp.clone());
        right.push(Span::raw(" "));
    }
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

/// A bordered list's rows: inside the border of `area`, below `above` lines (a header,
/// search and filter lines).
pub(crate) fn rows_below(area: Rect, above: u16) -> Rect {
    Rect {
        x: area.x + 1,
        y: area.y + 1 + above,
        width: area.width.saturating_sub(2),
        height: area.height.saturating_sub(2 + above),
    }
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
