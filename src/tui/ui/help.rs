//! The help overlay, generated from the live keymap (`State::keymap`): it lists exactly the
//! keys the handler uses. The keys for where the person is come first, then the rest; two
//! columns on a wide terminal, one scrollable column on a small one.
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph};

use super::{ACCENT, bold, centered, dim};
use crate::tui::keymap::Scope;
use crate::tui::state::State;

/// Every scope, the current one first.
pub fn scopes(s: &State) -> Vec<Scope> {
    let here = if s.details.is_some() {
        Scope::Details
    } else {
        Scope::Screen(s.screen)
    };
    let mut v = vec![here, Scope::Global];
    for sc in Scope::all() {
        if !v.contains(&sc) {
            v.push(sc);
        }
    }
    v
}

pub fn lines(s: &State) -> Vec<Line<'static>> {
    let mut out = Vec::new();
    for scope in scopes(s) {
        let entries = s.keymap.help_entries(scope);
        if entries.is_empty() {
            continue;
        }
        out.push(Line::styled(scope.title(), bold().fg(ACCENT)));
        for (keys, what) in entries {
            out.push(Line::from(vec![
                Span::styled(format!("  {keys:<12}"), bold()),
                Span::raw(what),
            ]));
        }
    }
    out
}

pub fn draw(f: &mut Frame, area: Rect, s: &State) {
    let all = lines(s);
    let wide = area.width >= 140;
    let b = centered(
        area,
        if wide { 120 } else { 76 },
        area.height.saturating_sub(2),
    );
    super::clear_box(f, b);
    let block = Block::bordered()
        .border_style(Style::new().fg(ACCENT))
        .title(Span::styled(
            " Keys (generated from the keymap) — ? or Esc closes, ↑/↓ scroll ",
            bold(),
        ));
    let inner = block.inner(b);
    f.render_widget(block, b);
    let h = inner.height as usize;
    if wide && all.len() > h {
        let half = Rect {
            width: inner.width / 2,
            ..inner
        };
        let left: Vec<Line> = all
            .iter()
            .skip(s.help_scroll as usize)
            .take(h)
            .cloned()
            .collect();
        let right: Vec<Line> = all
            .iter()
            .skip(s.help_scroll as usize + h)
            .take(h)
            .cloned()
            .collect();
        f.render_widget(Paragraph::new(left), half);
        f.render_widget(
            Paragraph::new(right),
            Rect {
                x: inner.x + half.width,
                ..half
            },
        );
    } else {
        let mut shown: Vec<Line> = all
            .iter()
            .skip(s.help_scroll as usize)
            .take(h)
            .cloned()
            .collect();
        if all.len() > h + s.help_scroll as usize && !shown.is_empty() {
            shown.pop();
            shown.push(Line::styled("  … ↓ for more", dim()));
        }
        f.render_widget(Paragraph::new(shown), inner);
    }
}
