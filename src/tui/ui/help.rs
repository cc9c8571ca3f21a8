//! The help overlay, generated from the keymap (`action::BINDINGS`): it lists exactly the
//! keys the handler uses, for every scope.
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph};

use super::{ACCENT, bold, centered};
use crate::tui::action::{Scope, help_entries};
use crate::tui::state::{Screen, State};

pub fn scopes() -> Vec<Scope> {
    let mut v = vec![Scope::Global];
    v.extend(Screen::ALL.iter().map(|s| Scope::Screen(*s)));
    v.extend([Scope::Details, Scope::Picker, Scope::Input, Scope::Confirm]);
    v
}

pub fn lines() -> Vec<Line<'static>> {
    let mut out = Vec::new();
    for scope in scopes() {
        let entries = help_entries(scope);
        if entries.is_empty() {
            continue;
        }
        out.push(Line::styled(scope.title(), bold().fg(ACCENT)));
        for (keys, what) in entries {
            out.push(Line::from(vec![Span::styled(format!("  {keys:<16}"), bold()), Span::raw(what)]));
        }
    }
    out
}

pub fn draw(f: &mut Frame, area: Rect, _s: &State) {
    let all = lines();
    let b = centered(area, 72, area.height.saturating_sub(2));
    f.render_widget(Clear, b);
    let block = Block::bordered()
        .border_style(Style::new().fg(ACCENT))
        .title(Span::styled(" Keys (generated from the keymap) — ? or Esc closes ", bold()));
    let inner = block.inner(b);
    f.render_widget(block, b);
    // Two columns when the list is taller than the box.
    if all.len() > inner.height as usize && inner.width >= 70 {
        let half = Rect { width: inner.width / 2, ..inner };
        let split = inner.height as usize;
        f.render_widget(Paragraph::new(all[..split.min(all.len())].to_vec()), half);
        let rest: Vec<Line> = all.iter().skip(split).cloned().collect();
        f.render_widget(Paragraph::new(rest), Rect { x: inner.x + half.width, ..half });
    } else {
        f.render_widget(Paragraph::new(all).style(Style::new().fg(Color::Reset)), inner);
    }
}
