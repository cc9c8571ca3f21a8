//! The whole frame, composed: the tab bar, the screen in front (its own [`Screen`] draws it),
//! the footer with the hints the screen finds worth showing now, then whatever layer sits on
//! top (picker, message log, help, a question, the confirmation). Above the screens and the
//! shared drawing in `ui`, which know nothing of it; the mouse asks it where a screen's rows
//! are.
//!
//! [`Screen`]: super::screen::Screen
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::action::Action;
use super::keymap::{Keymap, Scope};
use super::screen;
use super::state::{Layer, State};
use super::tab::ScreenId;
use super::ui::{self, ACCENT};

/// The frame: tab bar, the screen, footer, then whatever layer sits on top.
pub fn draw(f: &mut Frame, s: &State) {
    let [tabs, body, footer] = ui::chrome(f.area());
    ui::draw_tabs(f, tabs, s);
    if let Some(ed) = &s.batch.editor {
        screen::batch::draw::draw_editor(f, body, ed);
    } else if let Some(d) = &s.details {
        ui::details::draw(f, body, s, d);
    } else {
        screen::of(s.screen).draw(f, body, s);
    }
    draw_footer(f, footer, s);
    if s.picker.is_some() {
        ui::picker::draw(f, body, s);
    }
    if s.messages.is_some() {
        ui::messages::draw(f, f.area(), s);
    }
    if s.help {
        ui::help::draw(f, f.area(), s);
    }
    if s.prompt.is_some() {
        ui::modal::draw_prompt(f, f.area(), s);
    }
    if !s.confirms.is_empty() || s.gate.withdrawn.is_some() {
        ui::modal::draw(f, f.area(), s);
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
            && !screen::of(sc).hint_now(s, a)
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

/// The list position under a click, for screens that draw a list.
pub fn row_at(s: &State, screen: ScreenId, col: u16, row: u16) -> Option<usize> {
    let [_, body, _] = ui::chrome(Rect::new(0, 0, s.size.0, s.size.1));
    screen::of(screen).row_at(s, body, col, row)
}
