//! The terminal plumbing every control centre shares: raw mode, the alternate screen and the
//! mouse (restored on every exit path and from the panic hook), and the thread that turns
//! terminal input into [`Event`]s. The loop that uses them is `tui::attach`; what runs around
//! it in `spock-tui` without a subcommand (the server, the attach channel) is wired in
//! `app::local`.
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use anyhow::Context as _;
use crossterm::event::{DisableMouseCapture, MouseEventKind};
use crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use tokio::sync::mpsc;

use super::event::Event;

fn restore_terminal() {
    let mut out = std::io::stdout();
    let _ = crossterm::execute!(
        out,
        DisableMouseCapture,
        LeaveAlternateScreen,
        crossterm::cursor::Show
    );
    let _ = disable_raw_mode();
}

/// Mouse reporting for clicks, wheel and drags only (`?1000h ?1002h` with SGR coordinates
/// `?1006h`). crossterm's `EnableMouseCapture` also asks for every motion (`?1003h`): after a
/// dropped SSH session the terminal goes on reporting each mouse move as escape junk typed
/// into the shell. Turned off by `DisableMouseCapture`, which resets all of them.
struct EnableMouseButtons;

impl crossterm::Command for EnableMouseButtons {
    fn write_ansi(&self, f: &mut impl std::fmt::Write) -> std::fmt::Result {
        f.write_str(MOUSE_BUTTONS_ON)
    }
}

pub(crate) const MOUSE_BUTTONS_ON: &str = "\x1b[?1000h\x1b[?1002h\x1b[?1006h";

/// Raw mode, alternate screen and mouse on; off again on drop and in the panic hook.
pub(super) struct TerminalGuard;

impl TerminalGuard {
    pub(super) fn enter() -> anyhow::Result<TerminalGuard> {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            restore_terminal();
            previous(info);
        }));
        enable_raw_mode().context("the terminal cannot enter raw mode (is this a terminal?)")?;
        let guard = TerminalGuard;
        crossterm::execute!(std::io::stdout(), EnterAlternateScreen, EnableMouseButtons)?;
        Ok(guard)
    }
}

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        restore_terminal();
    }
}

/// Terminal input on its own thread: crossterm's reader blocks, and must not block the runtime.
pub(super) fn spawn_input(tx: mpsc::UnboundedSender<Event>, stop: Arc<AtomicBool>) {
    std::thread::spawn(move || {
        while !stop.load(Ordering::Relaxed) {
            // Polling lets the thread notice `stop`; it produces no event and no redraw.
            // A read error is a terminal that went away: stop the whole program cleanly.
            match crossterm::event::poll(Duration::from_millis(250)) {
                Ok(false) => continue,
                Ok(true) => {}
                Err(_) => {
                    let _ = tx.send(Event::Quit);
                    break;
                }
            }
            let ev = match crossterm::event::read() {
                // Stamped as read, so a key typed before a confirmation was drawn cannot answer it.
                Ok(crossterm::event::Event::Key(k)) => {
                    let at = tokio::time::Instant::now();
                    if esc_then_key(k)
                        .into_iter()
                        .any(|k| tx.send(Event::KeyAt(k, at)).is_err())
                    {
                        break;
                    }
                    continue;
                }
                Ok(crossterm::event::Event::Mouse(m)) if m.kind != MouseEventKind::Moved => {
                    Event::Mouse(m)
                }
                Ok(crossterm::event::Event::Resize(w, h)) => Event::Resize(w, h),
                Ok(_) => continue,
                Err(_) => {
                    let _ = tx.send(Event::Quit);
                    break;
                }
            };
            if tx.send(ev).is_err() {
                break;
            }
        }
    });
}

/// An Esc followed by type-ahead arrives in one read and crossterm reports it as Alt+key
/// (what a terminal sends for Alt is exactly Esc, key). No binding here uses Alt, so the
/// person meant what they typed: Esc (close, cancel), then the key.
fn esc_then_key(k: crossterm::event::KeyEvent) -> Vec<crossterm::event::KeyEvent> {
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    if k.modifiers.contains(KeyModifiers::ALT) && matches!(k.code, KeyCode::Char(_)) {
        let mut key = k;
        key.modifiers.remove(KeyModifiers::ALT);
        vec![KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE), key]
    } else {
        vec![k]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn esc_then_type_ahead_is_two_keys_not_alt() {
        use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
        let alt_j = KeyEvent::new(KeyCode::Char('j'), KeyModifiers::ALT);
        assert_eq!(
            esc_then_key(alt_j),
            vec![
                KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE),
                KeyEvent::new(KeyCode::Char('j'), KeyModifiers::NONE)
            ]
        );
        let plain = KeyEvent::new(KeyCode::Char('y'), KeyModifiers::NONE);
        assert_eq!(esc_then_key(plain), vec![plain]);
        let ctrl_c = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
        assert_eq!(esc_then_key(ctrl_c), vec![ctrl_c]);
    }

    #[test]
    fn mouse_reporting_never_asks_for_every_motion() {
        let mut s = String::new();
        crossterm::Command::write_ansi(&EnableMouseButtons, &mut s).unwrap();
        assert!(s.contains("?1002h") && s.contains("?1006h"), "{s:?}");
        assert!(!s.contains("?1003h"), "all-motion reporting: {s:?}");
        // Whatever we turn on, the reset turns off.
        let mut off = String::new();
        crossterm::Command::write_ansi(&DisableMouseCapture, &mut off).unwrap();
        for mode in ["1000", "1002", "1006"] {
            assert!(
                off.contains(&format!("?{mode}l")),
                "{mode} left on: {off:?}"
            );
        }
    }
}
