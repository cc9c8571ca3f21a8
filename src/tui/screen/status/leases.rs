//! Device leases on the Status screen: who holds which device and for how long, and a person
//! breaking one (`x`, then `y` at the yes/no prompt; audited as the control centre's act).
//! `L` moves between leases when there are several (`l` is the message log everywhere).
use ratatui::style::{Color, Style};
use ratatui::text::{Line, Span};

use crate::tui::action::Action;
use crate::tui::effect::Effect;
use crate::tui::escape;
use crate::tui::prompt::Prompt;
use crate::tui::state::State;

impl State {
    fn lease_cursor(&self) -> usize {
        self.status
            .lease
            .min(self.core.leases.len().saturating_sub(1))
    }

    /// Status's lease keys; `false` for any other action.
    pub(in crate::tui) fn act_lease(&mut self, action: Action) -> bool {
        let n = self.core.leases.len();
        match action {
            Action::NextLease if n == 0 => self.notify("no device is leased"),
            Action::NextLease => self.status.lease = (self.lease_cursor() + 1) % n,
            Action::BreakLease => match self.core.leases.get(self.lease_cursor()) {
                None => self.notify("no device is leased: nothing to break"),
                Some(l) => {
                    self.prompt = Some(Prompt::BreakLease {
                        id: l.id,
                        device: l.device.clone(),
                        holder: l.holder.clone(),
                    })
                }
            },
            _ => return false,
        }
        true
    }

    /// The answer to "break the lease?": y breaks it, n or Esc keeps it.
    pub(in crate::tui) fn answer_break(
        &mut self,
        yes: bool,
        id: u64,
        device: String,
        fx: &mut Vec<Effect>,
    ) {
        if yes {
            fx.push(Effect::BreakLease { id, device });
        } else {
            self.notify(format!("kept the lease on {}", escape::line(&device)));
        }
    }
}

/// `9m 58s left` (or `1h 00m left`).
fn left(secs: u64) -> String {
    if secs >= 3600 {
        format!("{}h {:02}m left", secs / 3600, (secs / 60) % 60)
    } else {
        format!("{}m {:02}s left", secs / 60, secs % 60)
    }
}

/// The Leases block's lines, the selected lease marked (only when there is a choice).
pub fn lines(s: &State) -> Vec<Line<'static>> {
    let many = s.core.leases.len() > 1;
    let cursor = s.lease_cursor();
    s.core
        .leases
        .iter()
        .enumerate()
        .map(|(i, l)| {
            let mark = if many && i == cursor { "▸ " } else { "  " };
            Line::from(vec![
                Span::raw(mark),
                Span::styled(escape::cell(&l.device, 32), crate::tui::ui::bold()),
                Span::raw("  held by "),
                Span::styled(escape::cell(&l.holder, 40), Style::new().fg(Color::Yellow)),
                Span::styled(
                    format!(
                        "  {} (until {})",
                        left(l.deadline.saturating_duration_since(s.now).as_secs()),
                        crate::tui::ui::fmt_time(s, &l.expires_at)
                    ),
                    crate::tui::ui::dim(),
                ),
            ])
        })
        .collect()
}

/// The block's title, with its keys.
pub fn title(s: &State) -> String {
    if s.core.leases.len() > 1 {
        "Leases — x break (asks) · L next".into()
    } else {
        "Leases — x break (asks)".into()
    }
}
