//! `spock-tui` without a subcommand, and the terminal plumbing every control centre shares:
//! raw mode, the alternate screen and the mouse (restored on every exit path and from the
//! panic hook), and the thread that turns terminal input into [`Event`]s. The control centre
//! here is the attached one (`tui::attach`) over an in-process duplex to a session of the
//! attach channel: one code path for the screen, the consent rules and every command; this
//! file only wires the server (its controller, the attach channel) around it.
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use anyhow::Context as _;
use crossterm::event::{DisableMouseCapture, MouseEventKind};
use crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use tokio::sync::mpsc;

use super::attach::{self, Mode, Target, TokenShown};
use super::event::Event;
use super::update::ServerCtl;
use crate::app as wiring;
use crate::cli::RunArgs;
use crate::transport::control;

/// `spock-tui` without a subcommand: the control centre, serving both transports.
pub fn run(args: RunArgs) -> anyhow::Result<()> {
    // Flags and files are checked before the terminal is taken over, so errors print plainly;
    // the terminal owns stdout, so logs go to the file and the in-memory buffer only.
    let wiring::Prepared {
        lock: _lock,
        paths,
        config,
        logs,
        listen,
        tokens,
        guard: _guard,
    } = wiring::prepare(&args, false)?;
    let rt = wiring::runtime()?;
    rt.block_on(async move {
        let (core, demo) = wiring::assemble(paths.clone(), config, logs, &args).await?;
        // Registered before the server starts: a signal can never meet the default action.
        let (tx, rx) = mpsc::unbounded_channel::<Event>();
        attach::spawn_signals(tx.clone());
        // The same controller `serve` has, and the attach channel beside it: other terminals
        // attach to this one, and it stays up while the transports restart.
        let (ctl, controller) = wiring::spawn_controller(
            core.clone(),
            tokens.clone(),
            listen,
            args.port.is_some(),
            None,
        );
        let channel = wiring::ControlChannel::start(&core, tokens.clone(), ctl.clone())?;
        // This terminal's control centre: a session of the attach channel, in process,
        // attached before the server starts, so no call finds nobody to ask.
        let (duplex, credential) = channel.in_process();
        let (r, w) = tokio::io::split(duplex);
        let connected = attach::connect_io(Box::new(r), Box::new(w), credential).await;
        ctl.send(ServerCtl::Start);
        let result = match connected {
            Ok(connected) => {
                let target = Target {
                    socket: None,
                    credential_file: control::credential_file(&paths),
                    reconnect_for: Duration::ZERO,
                    token: TokenShown::Live(tokens.clone()),
                };
                let ended: attach::Ended = Arc::default();
                attach::run_loop(connected, ended, target, paths, (tx, rx), Mode::InProcess).await
            }
            Err(e) => Err(anyhow::Error::new(e).context("the control centre could not attach")),
        };
        // Goodbye to attached terminals; what waited on them is denied (nobody is left).
        channel.stop().await;
        ctl.quit();
        let _ = tokio::time::timeout(Duration::from_secs(6), controller).await;
        if let Err(e) = core.audit.flush().await {
            tracing::error!(error = %e, "the audit trail could not be flushed");
        }
        if let Some(d) = demo {
            d.stop().await;
        }
        result
    })
}

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
