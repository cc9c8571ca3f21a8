//! The terminal plumbing every control centre shares: raw mode, the alternate screen and the
//! mouse (restored on every exit path and from the panic hook), and the thread that turns
//! terminal input into [`Event`]s. The loop that uses them is `tui::attach`; what runs around
//! it in `spock-tui` without a subcommand (the server, the attach channel) is wired in
//! `app::local`.
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

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
        let ui = std::thread::current().id();
        std::panic::set_hook(Box::new(move |info| {
            // The control centre's own thread: give the terminal back, then say what happened.
            // Any other thread (a tool call on a runtime worker, caught and answered as an
            // error): the log says it, and the screen is left to the control centre.
            if std::thread::current().id() == ui {
                restore_terminal();
                previous(info);
            } else {
                tracing::error!(panic = %info, "a panic outside the control centre");
            }
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

/// The query a fence writes after a frame: DSR 5, "report status". Every VT100-compatible
/// terminal (and tmux, for its pane) answers `ESC [ 0 n`, in order: after everything it was
/// sent before the query, so after the frame is on its screen. No key sends that answer.
pub(crate) const FENCE_QUERY: &[u8] = b"\x1b[5n";
const FENCE_ANSWER: &[u8] = b"\x1b[0n";

/// Terminal input on its own thread, read from the terminal itself (stdin when it is one,
/// else `/dev/tty`, as crossterm does) and decoded here, so that the answer to a fence is
/// seen in its place among the keys: keys before it were typed before the frame the fence
/// followed was on the person's screen. A read error or end of input is a terminal that went
/// away: the loop stops as on SIGHUP. Resizes come from SIGWINCH ([`spawn_resize`]).
pub(super) fn spawn_input(tx: mpsc::UnboundedSender<Event>, stop: Arc<AtomicBool>) {
    std::thread::spawn(move || {
        let Some(tty) = Tty::open() else {
            let _ = tx.send(Event::Quit);
            return;
        };
        let mut decoder = Decoder::default();
        let mut buf = [0u8; 4096];
        while !stop.load(Ordering::Relaxed) {
            // Polling lets the thread notice `stop`; it produces no event and no redraw.
            match tty.wait(250) {
                Ok(false) => continue,
                Ok(true) => {}
                Err(_) => {
                    let _ = tx.send(Event::Quit);
                    break;
                }
            }
            let n = match tty.read(&mut buf) {
                Ok(0) | Err(_) => {
                    let _ = tx.send(Event::Quit);
                    break;
                }
                Ok(n) => n,
            };
            // Stamped as read, so a key typed before a confirmation was drawn cannot answer it.
            let at = tokio::time::Instant::now();
            let mut got = decoder.feed(&buf[..n]);
            if decoder.pending_esc() && !matches!(tty.wait(ESC_WAIT_MS), Ok(true)) {
                got.extend(decoder.flush());
            }
            let sent = got.into_iter().all(|ev| match ev {
                Input::Fence => tx.send(Event::Fence(at)).is_ok(),
                Input::Key(k) => esc_then_key(k)
                    .into_iter()
                    .all(|k| tx.send(Event::KeyAt(k, at)).is_ok()),
                Input::Mouse(m) => tx.send(Event::Mouse(m)).is_ok(),
            });
            if !sent {
                break;
            }
        }
    });
}

/// The terminal's size on every SIGWINCH, as a [`Event::Resize`], until the loop is gone.
pub(super) fn spawn_resize(tx: mpsc::UnboundedSender<Event>) {
    use tokio::signal::unix::{SignalKind, signal};
    let Ok(mut winch) = signal(SignalKind::window_change()) else {
        return;
    };
    tokio::spawn(async move {
        while winch.recv().await.is_some() {
            let Ok((w, h)) = crossterm::terminal::size() else {
                continue;
            };
            if tx.send(Event::Resize(w, h)).is_err() {
                break;
            }
        }
    });
}

/// The terminal's input side: stdin when it is a terminal, else `/dev/tty`.
struct Tty {
    fd: libc::c_int,
    _owned: Option<std::fs::File>,
}

impl Tty {
    fn open() -> Option<Tty> {
        use std::os::fd::AsRawFd;
        // SAFETY: isatty only inspects the descriptor.
        if unsafe { libc::isatty(libc::STDIN_FILENO) } == 1 {
            return Some(Tty {
                fd: libc::STDIN_FILENO,
                _owned: None,
            });
        }
        let f = std::fs::File::open("/dev/tty").ok()?;
        Some(Tty {
            fd: f.as_raw_fd(),
            _owned: Some(f),
        })
    }

    /// Whether input is waiting, within `ms`. A hang-up with nothing left to read is an error.
    fn wait(&self, ms: i32) -> std::io::Result<bool> {
        let mut p = libc::pollfd {
            fd: self.fd,
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one valid pollfd, for the duration of the call.
        let r = unsafe { libc::poll(&mut p, 1, ms) };
        if r < 0 {
            let e = std::io::Error::last_os_error();
            return match e.kind() {
                std::io::ErrorKind::Interrupted => Ok(false),
                _ => Err(e),
            };
        }
        if r == 0 {
            return Ok(false);
        }
        if p.revents & libc::POLLIN != 0 {
            return Ok(true);
        }
        Err(std::io::Error::other("the terminal hung up"))
    }

    fn read(&self, buf: &mut [u8]) -> std::io::Result<usize> {
        loop {
            // SAFETY: `buf` is valid for `buf.len()` bytes for the duration of the call.
            let n = unsafe { libc::read(self.fd, buf.as_mut_ptr().cast(), buf.len()) };
            if n >= 0 {
                return Ok(n as usize);
            }
            let e = std::io::Error::last_os_error();
            if e.kind() != std::io::ErrorKind::Interrupted {
                return Err(e);
            }
        }
    }
}

/// What the terminal sent, decoded: a key, a mouse event, or the answer to a fence.
#[derive(Debug, PartialEq)]
enum Input {
    Key(crossterm::event::KeyEvent),
    Mouse(crossterm::event::MouseEvent),
    Fence,
}

/// Bytes to [`Input`]s, in order, with crossterm's own parser (`terminput`) and its rule for
/// a lone Esc: an Esc with more bytes in the same read starts a sequence; at the end of a
/// read it is the Esc key.
#[derive(Default)]
struct Decoder {
    buf: Vec<u8>,
}

/// Longer than any sequence a terminal sends for a key or a click: junk, dropped.
const MAX_SEQUENCE: usize = 256;

impl Decoder {
    fn feed(&mut self, bytes: &[u8]) -> Vec<Input> {
        let mut out = Vec::new();
        for &b in bytes {
            self.buf.push(b);
            // A lone Esc waits for the next byte (or for `flush`): it may start a sequence
            // that a slow link split across reads.
            if self.buf == [0x1b] {
                continue;
            }
            if self.buf == FENCE_ANSWER {
                self.buf.clear();
                out.push(Input::Fence);
                continue;
            }
            match terminput::Event::parse_from(&self.buf) {
                Ok(None) if self.buf.len() < MAX_SEQUENCE => {}
                Ok(None) | Err(_) => self.buf.clear(),
                Ok(Some(ev)) => {
                    self.buf.clear();
                    match terminput_crossterm::to_crossterm(ev) {
                        Ok(crossterm::event::Event::Key(k)) => out.push(Input::Key(k)),
                        Ok(crossterm::event::Event::Mouse(m))
                            if m.kind != MouseEventKind::Moved =>
                        {
                            out.push(Input::Mouse(m))
                        }
                        _ => {}
                    }
                }
            }
        }
        out
    }

    /// Nothing followed a lone Esc in time: it was the Esc key.
    fn flush(&mut self) -> Vec<Input> {
        if self.buf == [0x1b] {
            self.buf.clear();
            return vec![Input::Key(crossterm::event::KeyCode::Esc.into())];
        }
        Vec::new()
    }

    fn pending_esc(&self) -> bool {
        self.buf == [0x1b]
    }
}

/// How long a lone Esc waits for the rest of a sequence before it is the Esc key.
const ESC_WAIT_MS: i32 = 50;

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

    fn keys(codes: &[crossterm::event::KeyCode]) -> Vec<Input> {
        codes
            .iter()
            .map(|&c| {
                Input::Key(crossterm::event::KeyEvent::new(
                    c,
                    crossterm::event::KeyModifiers::NONE,
                ))
            })
            .collect()
    }

    #[test]
    fn a_fence_answer_keeps_its_place_among_the_keys() {
        use crossterm::event::KeyCode::*;
        let mut d = Decoder::default();
        let mut want = keys(&[Char('y')]);
        want.push(Input::Fence);
        want.extend(keys(&[Char('y'), Tab, Enter]));
        assert_eq!(d.feed(b"y\x1b[0ny\t\r"), want);
        // Split across reads, byte by byte (a slow link does that): still one fence, and no
        // Esc, `[`, `0`, `n` (n denies).
        let mut d = Decoder::default();
        let got: Vec<Input> = b"y\x1b[0ny".iter().flat_map(|b| d.feed(&[*b])).collect();
        let mut want = keys(&[Char('y')]);
        want.push(Input::Fence);
        want.extend(keys(&[Char('y')]));
        assert_eq!(got, want);
    }

    #[test]
    fn other_reports_are_not_fences() {
        let mut d = Decoder::default();
        // A cursor-position report and a device-attributes answer.
        let got = d.feed(b"\x1b[12;40R\x1b[?62;22c\x1b[3n");
        assert!(!got.contains(&Input::Fence), "{got:?}");
    }

    #[test]
    fn arrows_clicks_and_esc_decode_as_crossterm_did() {
        use crossterm::event::KeyCode::*;
        let mut d = Decoder::default();
        assert_eq!(d.feed(b"\x1b[A\x1bOB"), keys(&[Up, Down]));
        // A lone Esc is the key once nothing follows it.
        assert_eq!(d.feed(b"\x1b"), vec![]);
        assert_eq!(d.flush(), keys(&[Esc]));
        assert_eq!(d.feed(b"\x1b"), vec![]);
        assert_eq!(d.feed(b"[B"), keys(&[Down]));
        let got = d.feed(b"\x1b[<0;12;5M");
        assert!(
            matches!(&got[..], [Input::Mouse(m)] if m.column == 11 && m.row == 4
                && m.kind == MouseEventKind::Down(crossterm::event::MouseButton::Left)),
            "{got:?}"
        );
        // Junk is dropped and what follows still decodes.
        assert_eq!(d.feed(b"\x1b[999999999999Zq"), keys(&[Char('q')]));
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
