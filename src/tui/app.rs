//! The loop and its plumbing: the terminal (raw mode, alternate screen, mouse; restored on
//! every exit path and from the panic hook), the tasks that turn terminal input, server
//! events, confirmation and navigation requests and signals into [`Event`]s (batch snapshots
//! come from `batch_io`), the server's controller (`app::spawn_controller`, shared with
//! `serve`) with the attach channel beside it, and the effects `update()` asks for (what they
//! do to the core is `transport::control::commands`, shared with attached control centres).
use std::io::Write as _;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use anyhow::Context as _;
use crossterm::event::{DisableMouseCapture, MouseEventKind};
use crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use tokio::sync::{broadcast, mpsc, watch};

use super::batch_io::BatchLink;
use super::event::{CoreView, Event, ServerStatus};
use super::history::HistorySource;
use super::osc;
use super::state::State;
use super::ui;
use super::update::{Effect, ServerCtl};
use crate::app::{self as wiring, Listen, ServerHandle};
use crate::cli::RunArgs;
use crate::config::token::TokenStore;
use crate::mcp::Core;
use crate::transport::control::commands;

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
        let (core, demo) = wiring::assemble(paths, config, logs, &args).await?;
        let source = Box::new(super::history::AuditSource(core.audit.clone()));
        let opts = LoopOptions {
            port_fixed: args.port.is_some(),
            demo: args.demo,
        };
        let result = run_loop(core.clone(), tokens, listen, opts, source).await;
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

fn spawn_forwarders(core: &Arc<Core>, tx: &mpsc::UnboundedSender<Event>) {
    let mut events = core.subscribe();
    let t = tx.clone();
    tokio::spawn(async move {
        loop {
            let ev = match events.recv().await {
                Ok(ev) => Event::Server(ev),
                Err(broadcast::error::RecvError::Lagged(n)) => Event::Lagged(n),
                Err(broadcast::error::RecvError::Closed) => break,
            };
            if t.send(ev).is_err() {
                break;
            }
        }
    });
    let mut confirms = core.confirmer.attach();
    let t = tx.clone();
    tokio::spawn(async move {
        while let Some(req) = confirms.recv().await {
            if t.send(Event::Confirm(req)).is_err() {
                break;
            }
        }
    });
    // Devices: the tracker's events (and selection changes) refresh the list from its snapshot.
    let mut dev_events = core.devices.subscribe();
    let mut core_events = core.subscribe();
    let (t, c) = (tx.clone(), core.clone());
    tokio::spawn(async move {
        let rows = |c: &Core| -> Vec<super::event::DeviceRow> {
            let selected = c.selected_device.read().ok().and_then(|s| s.clone());
            c.devices
                .snapshot()
                .into_iter()
                .map(|d| super::event::DeviceRow {
                    selected: selected.as_deref() == Some(d.id.as_str()),
                    serial: d.serial,
                    state: d.state.to_string(),
                    model: d.model,
                })
                .collect()
        };
        // The first listing fills the table before any tracker event arrives.
        let _ = c.devices.list().await;
        if t.send(Event::Devices(rows(&c))).is_err() {
            return;
        }
        loop {
            tokio::select! {
                r = dev_events.recv() => if matches!(r, Err(broadcast::error::RecvError::Closed)) { break },
                r = core_events.recv() => match r {
                    Ok(crate::mcp::ServerEvent::DevicesChanged) | Err(broadcast::error::RecvError::Lagged(_)) => {}
                    Ok(_) => continue,
                    Err(broadcast::error::RecvError::Closed) => break,
                },
            }
            if t.send(Event::Devices(rows(&c))).is_err() {
                break;
            }
        }
    });
    let mut navs = core.ui.attach();
    let t = tx.clone();
    tokio::spawn(async move {
        while let Some(req) = navs.recv().await {
            if t.send(Event::Navigate(req)).is_err() {
                break;
            }
        }
    });
    let t = tx.clone();
    // Registered here, before the server starts: a signal can never meet the default action.
    use tokio::signal::unix::{SignalKind, signal};
    let (Ok(mut term), Ok(mut hup), Ok(mut int)) = (
        signal(SignalKind::terminate()),
        signal(SignalKind::hangup()),
        signal(SignalKind::interrupt()),
    ) else {
        return;
    };
    tokio::spawn(async move {
        tokio::select! {
            _ = term.recv() => {}
            _ = hup.recv() => {}
            _ = int.recv() => {}
        }
        let _ = t.send(Event::Quit);
    });
}

/// The controller's status as the loop's events.
fn spawn_status(mut status: watch::Receiver<ServerStatus>, tx: mpsc::UnboundedSender<Event>) {
    tokio::spawn(async move {
        while status.changed().await.is_ok() {
            let s = status.borrow_and_update().clone();
            if tx.send(Event::ServerStatus(s)).is_err() {
                break;
            }
        }
    });
}

/// What the loop needs of the command line (the rest of `RunArgs` stays with the wiring).
#[derive(Debug, Clone, Copy)]
pub struct LoopOptions {
    /// `--port` fixed the port: a port changed in Settings does not move the server.
    pub port_fixed: bool,
    /// `--demo`: the virtual device is the only device.
    pub demo: bool,
}

/// The control centre's loop. `source` preloads History (the audit store, once it lands).
pub async fn run_loop(
    core: Arc<Core>,
    tokens: TokenStore,
    listen: Listen,
    opts: LoopOptions,
    source: Box<dyn HistorySource>,
) -> anyhow::Result<()> {
    let guard = TerminalGuard::enter()?;
    let mut terminal = Terminal::new(CrosstermBackend::new(std::io::stdout()))?;
    terminal.clear()?;
    let (tx, mut rx) = mpsc::unbounded_channel::<Event>();
    let stop_input = Arc::new(AtomicBool::new(false));
    spawn_input(tx.clone(), stop_input.clone());
    spawn_forwarders(&core, &tx);
    let batch_link = BatchLink::spawn(&core, &tx);
    // The same controller `serve` has; the attach channel beside it lets other terminals
    // attach to this one, and stays up while the transports restart.
    let (ctl, controller) = wiring::spawn_controller(
        core.clone(),
        tokens.clone(),
        listen,
        opts.port_fixed,
        None,
    );
    spawn_status(ctl.status(), tx.clone());
    let channel = wiring::ControlChannel::start(&core, tokens.clone(), ctl.clone());
    ctl.send(ServerCtl::Start);

    let mut state = State::with_source(
        &core.registry,
        CoreView::read(&core, tokens.token()),
        source.as_ref(),
    );
    state.demo = opts.demo;
    // https://no-color.org: present and not empty.
    state.no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    state.tz = chrono::Local::now().fixed_offset().timezone();
    let size = terminal.size()?;
    state.size = (size.width, size.height);
    let in_tmux = osc::in_tmux();
    let mut written_screen = String::new();

    // A terminal that fails to take a frame (a dropped SSH link: EIO) ends the loop like
    // SIGHUP does, through the same clean-up below, never with the server's socket,
    // descriptor and lock left behind.
    let mut lost: Option<std::io::Error> = None;
    // Draw once per drained batch of events: nothing arrives, nothing is drawn.
    while !state.quit {
        state.now = tokio::time::Instant::now();
        state.wall = chrono::Utc::now();
        if let Err(e) = terminal.draw(|f| ui::draw(f, &state)) {
            tracing::warn!(error = %e, "the terminal went away; stopping as on SIGHUP");
            lost = Some(e);
            break;
        }
        // The frame is written: a confirmation on it has now been shown, and arms from here.
        state.frame_drawn(tokio::time::Instant::now());
        // No fixed frame rate: wait for an event, or a tick only while something counts
        // (every 100 ms while a sub-second countdown shows, else every second).
        let first = if let Some(every) = state.tick_every() {
            match tokio::time::timeout(every, rx.recv()).await {
                Ok(Some(ev)) => ev,
                Ok(None) => break,
                Err(_) => Event::Tick,
            }
        } else {
            match rx.recv().await {
                Some(ev) => ev,
                None => break,
            }
        };
        let mut batch = vec![first];
        while let Ok(ev) = rx.try_recv() {
            batch.push(ev);
        }
        let mut resync = false;
        let mut effects = Vec::new();
        state.now = tokio::time::Instant::now();
        state.wall = chrono::Utc::now();
        for ev in batch {
            resync |= matches!(ev, Event::Server(_) | Event::ServerStatus(_));
            effects.extend(state.update(ev));
        }
        if resync {
            effects.extend(state.update(Event::Sync(CoreView::read(&core, tokens.token()))));
        }
        // Keep `spock_get_status` truthful before any navigation request is answered.
        if written_screen != state.screen.name() {
            written_screen = state.screen.name().to_string();
            if let Ok(mut slot) = core.screen.write() {
                *slot = written_screen.clone();
            }
        }
        for fx in effects {
            let links = Links {
                tx: &tx,
                ctl: &ctl,
                batch: &batch_link,
            };
            let results = perform(fx, &core, &tokens, &links, &mut terminal, in_tmux);
            for ev in results {
                state.update(ev);
            }
        }
    }

    stop_input.store(true, Ordering::Relaxed);
    core.confirmer.detach();
    core.ui.detach();
    if let Ok(mut slot) = core.screen.write() {
        *slot = "none".into();
    }
    // Pending confirmations are dropped: their askers get the default denial.
    state.confirms.clear();
    if let Some(c) = channel {
        c.stop().await;
    }
    ctl.quit();
    let _ = tokio::time::timeout(Duration::from_secs(6), controller).await;
    drop(terminal);
    drop(guard);
    match lost {
        Some(e) => Err(anyhow::Error::new(e).context("the terminal went away")),
        None => Ok(()),
    }
}

/// Work an effect does off the event loop (file writes); what it returns comes back as events.
type OffLoop = Box<dyn FnOnce(&Core, &TokenStore) -> Vec<Event> + Send>;

/// Where an effect's work goes besides the core: the loop's own events (results of work done
/// off the loop), the server controller, the batch link.
struct Links<'a> {
    tx: &'a mpsc::UnboundedSender<Event>,
    ctl: &'a ServerHandle,
    batch: &'a BatchLink,
}

/// Carry out one effect; its results (a fresh view, a line for the person) come back as events.
fn perform<W: std::io::Write>(
    fx: Effect,
    core: &Arc<Core>,
    tokens: &TokenStore,
    links: &Links<'_>,
    terminal: &mut Terminal<CrosstermBackend<W>>,
    in_tmux: bool,
) -> Vec<Event> {
    let notice = |s: String| vec![Event::Notice(s)];
    let resync = || Event::Sync(CoreView::read(core, tokens.token()));
    // File writes run off the event loop; their results come back as events.
    let off_loop = |work: OffLoop| {
        let (core, tokens, tx) = (core.clone(), tokens.clone(), links.tx.clone());
        tokio::task::spawn_blocking(move || {
            for ev in work(&core, &tokens) {
                let _ = tx.send(ev);
            }
        });
        Vec::new()
    };
    /// A command's result, with a fresh view when it worked.
    fn synced(core: &Core, tokens: &TokenStore, r: Result<String, String>) -> Vec<Event> {
        match r {
            Ok(line) => vec![
                Event::Sync(CoreView::read(core, tokens.token())),
                Event::Notice(line),
            ],
            Err(e) => vec![Event::Notice(e)],
        }
    }
    match fx {
        Effect::Server(c) => {
            links.ctl.send(c);
            Vec::new()
        }
        Effect::Copy { what, text } => {
            let out = terminal.backend_mut();
            let ok = out
                .write_all(&osc::clipboard(&text))
                .and_then(|_| out.flush());
            notice(match ok {
                // Only the terminal knows whether it honoured the escape: say what was done.
                Ok(()) => format!(
                    "sent {what} to the terminal's clipboard (OSC 52; works where the terminal allows it{}); it is also on screen",
                    if in_tmux {
                        ", and tmux has set-clipboard on"
                    } else {
                        ""
                    }
                ),
                Err(e) => format!("could not copy: {e}"),
            })
        }
        Effect::Alert { title, body } => {
            let out = terminal.backend_mut();
            let _ = out
                .write_all(&osc::alert(&title, &body, in_tmux))
                .and_then(|_| out.flush());
            Vec::new()
        }
        Effect::Access(change) => match commands::access(core, &change) {
            Ok(what) => {
                // In force at once; written to the file off the loop.
                let mut out = vec![resync()];
                out.extend(off_loop(Box::new(move |core, tokens| {
                    let r = commands::save_access(core, &what);
                    synced(core, tokens, r)
                })));
                out
            }
            Err(e) => notice(e),
        },
        Effect::Setting(field, value) => off_loop(Box::new(move |core, tokens| {
            synced(core, tokens, commands::setting(core, field, value))
        })),
        Effect::SaveImages { stem, images } => off_loop(Box::new(move |core, _| {
            vec![Event::Notice(super::images::save(
                &core.paths.data.join("images"),
                &stem,
                &images,
            ))]
        })),
        Effect::Batch(cmd) => {
            links.batch.perform(cmd);
            Vec::new()
        }
        Effect::BreakLease { id, device } => notice(commands::break_lease(
            core,
            id,
            &device,
            &commands::Actor::in_process(),
        )),
        Effect::NavReply(req, result) => {
            match result {
                Ok(()) => req.applied(),
                Err(reason) => req.refused(reason),
            }
            Vec::new()
        }
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
