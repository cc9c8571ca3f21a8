//! `spock-tui attach`: a control centre for a server running elsewhere on this machine
//! (`spock-tui serve`, or another terminal's `spock-tui`), over the attach channel
//! (`transport::control`). It reuses the in-process control centre's state, update and
//! drawing: Activity fills from the server's call events, Status lists its devices, and a
//! confirmation shows in the same modal with the same arming and keys; `displayed` is sent
//! when a frame has drawn it whole and the answer goes back as `decide`. The whole control
//! centre works: History starts with the server's audit trail, and the access switches,
//! settings, Batch, leases and server start/stop go to the server as commands (it carries
//! them out with the same code the in-process control centre uses); agents' navigation
//! requests switch this screen. When the server goes away it keeps its screen and reconnects
//! for a bounded time (`SPOCK_TUI_ATTACH_RECONNECT_SECS`, 30 s). Detaching (`q`) leaves the
//! server serving.
//!
//! The control centre of `spock-tui` (no subcommand) is this same loop: its link is an
//! in-process duplex to a session of the same attach channel ([`Mode::InProcess`]), so the
//! consent rules and every command go through the server side exactly as for an attached
//! terminal; only the peer check differs.
use std::io::Write as _;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use tokio::sync::mpsc;

use super::effect::Effect;
use super::event::Event;
use super::history::Preloaded;
use super::osc;
use super::state::State;
use super::terminal::{FENCE_QUERY, TerminalGuard, spawn_input, spawn_resize};
use super::ui;
use crate::config::Paths;
use crate::protocol::ClientMsg;
use crate::transport::control;

mod link;

pub use link::{AttachError, Connected, Ended, Link, Target, TokenShown, connect, connect_io};

/// Which control centre this loop is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// `spock-tui attach`: starts on Activity and says it attached.
    Attached,
    /// The serving process's own (`spock-tui`): starts on Status, its server's fate is its.
    InProcess,
}

/// How long an attached control centre tries to reconnect after the server went away.
const RECONNECT_SECS: u64 = 30;

pub fn run() -> anyhow::Result<()> {
    let paths = Paths::discover()?;
    let rt = crate::process::runtime()?;
    let ended: link::Ended = Arc::default();
    let reconnect_for = std::env::var("SPOCK_TUI_ATTACH_RECONNECT_SECS")
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .unwrap_or(RECONNECT_SECS);
    let target = link::Target {
        socket: Some(control::socket_path(&paths)),
        credential_file: control::credential_file(&paths),
        reconnect_for: std::time::Duration::from_secs(reconnect_for),
        token: TokenShown::Hint(format!(
            "<MCP token: the file {}>",
            paths.token_file().display()
        )),
        connected_now: None,
    };
    let result = rt.block_on(async {
        // Refusals (no server, wrong version, wrong credential) print plainly, before the
        // terminal is taken over.
        let socket = control::socket_path(&paths);
        let connected = link::connect(&socket, &target.credential_file).await?;
        let (tx, rx) = mpsc::unbounded_channel::<Event>();
        spawn_signals(tx.clone());
        run_loop(
            connected,
            ended.clone(),
            target,
            paths,
            (tx, rx),
            Mode::Attached,
        )
        .await
    });
    let why = ended.lock().ok().and_then(|e| e.clone());
    if let Some(why) = why {
        eprintln!("spock-tui attach: the server went away ({why}); detached.");
        return Ok(());
    }
    result
}

/// The control centre's loop over a link; `events` is the loop's channel (signals may already
/// feed it). A terminal that fails to take a frame (a dropped SSH link: EIO) ends it like
/// SIGHUP does, as an error after the clean-up.
pub async fn run_loop(
    mut c: Connected,
    ended: Ended,
    target: Target,
    paths: Paths,
    events: (mpsc::UnboundedSender<Event>, mpsc::UnboundedReceiver<Event>),
    mode: Mode,
) -> anyhow::Result<()> {
    let registry = crate::mcp::tools::catalogue();
    let welcome = c.welcome.clone();
    let guard = TerminalGuard::enter()?;
    let mut terminal = Terminal::new(CrosstermBackend::new(std::io::stdout()))?;
    clear(&mut terminal)?;
    let (tx, mut rx) = events;
    let stop_input = Arc::new(AtomicBool::new(false));
    spawn_input(tx.clone(), stop_input.clone());
    spawn_resize(tx.clone());
    let source = Preloaded {
        records: std::mem::take(&mut c.history),
        source: std::mem::take(&mut c.history_source),
    };
    let view = c.view.clone().into_view(match &target.token {
        TokenShown::Hint(h) => h.clone(),
        TokenShown::Live(t) => t.token(),
    });
    let status = c.status.clone();
    let connected_now = target.connected_now.clone();
    let link = Link::spawn(c, registry.clone(), tx.clone(), ended, target);
    let mut state = State::with_source(&registry, view, &source);
    drop(source);
    state.demo = welcome.demo;
    state.you = welcome.you.clone();
    state.attached = mode == Mode::Attached;
    state.server = status;
    // A request counts as shown when the terminal says so (its answer to a fence), not when
    // the frame is written: over a slow link the person sees it a round trip later.
    state.gate.fence = Some(Default::default());
    state.no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    state.tz = chrono::Local::now().fixed_offset().timezone();
    let size = terminal.size()?;
    state.size = (size.width, size.height);
    if mode == Mode::Attached {
        state.notify(format!(
            "attached to spock-tui {} (pid {}) as {}; q detaches, the server keeps serving",
            welcome.server_version, welcome.server_pid, welcome.you
        ));
    }
    let in_tmux = osc::in_tmux();
    // Whether this tmux lets a copy through to the person's terminal, asked once, off the
    // runtime.
    let tmux_clipboard = Arc::new(std::sync::OnceLock::new());
    if in_tmux {
        let slot = tmux_clipboard.clone();
        tokio::task::spawn_blocking(move || {
            if let Some(v) = osc::tmux_set_clipboard() {
                let _ = slot.set(v);
            }
        });
    }
    let mut written_screen = String::new();
    let mut lost: Option<std::io::Error> = None;
    // The request the last frame showed in front: a new one is drawn on a cleared screen, so
    // no cell a terminal drew differently from ratatui's idea of it can keep an earlier text.
    let mut front_drawn: Option<u64> = None;
    // The bell and desktop notifications for a new request go out after the frame that
    // shows it, never before.
    let mut alerts: Vec<u8> = Vec::new();
    // A first fence as soon as the screen is up: whether this terminal answers them is known
    // before the first request.
    let mut probe = true;
    while !state.quit {
        state.now = tokio::time::Instant::now();
        state.wall = chrono::Utc::now();
        let front = state.confirms.front().map(|r| r.id);
        if front.is_some()
            && front != front_drawn
            && let Err(e) = clear(&mut terminal)
        {
            tracing::warn!(error = %e, "the terminal went away; stopping as on SIGHUP");
            lost = Some(e);
            break;
        }
        front_drawn = front;
        if let Err(e) = terminal.draw(|f| super::frame::draw(f, &state)) {
            tracing::warn!(error = %e, "the terminal went away; stopping as on SIGHUP");
            lost = Some(e);
            break;
        }
        state.frame_drawn(tokio::time::Instant::now());
        let fence_for = state.gate.fence.as_ref().and_then(|f| f.wanted);
        if fence_for.is_some() || probe || !alerts.is_empty() {
            let out = terminal.backend_mut();
            let mut bytes = std::mem::take(&mut alerts);
            if fence_for.is_some() || probe {
                bytes.extend_from_slice(FENCE_QUERY);
            }
            if let Err(e) = out.write_all(&bytes).and_then(|_| out.flush()) {
                tracing::warn!(error = %e, "the terminal went away; stopping as on SIGHUP");
                lost = Some(e);
                break;
            }
            let now = tokio::time::Instant::now();
            match fence_for {
                Some(id) => state.fence_sent(id, now),
                None if probe => state.fence_sent(u64::MAX, now),
                None => {}
            }
            probe = false;
        }
        // Every line of the modal has been on screen: the server's arming time for it starts
        // now.
        if state.gate.withdrawn.is_none()
            && let Some((id, _)) = state.gate.shown
            && !ui::modal::too_small(state.size)
            && ui::modal::unseen(&state) == 0
        {
            link.displayed(id);
        }
        let first = match state.tick_every() {
            Some(every) => match tokio::time::timeout(every, rx.recv()).await {
                Ok(Some(ev)) => ev,
                Ok(None) => break,
                Err(_) => Event::Tick,
            },
            None => match rx.recv().await {
                Some(ev) => ev,
                None => break,
            },
        };
        let mut batch = vec![first];
        while let Ok(ev) = rx.try_recv() {
            batch.push(ev);
        }
        state.now = tokio::time::Instant::now();
        state.wall = chrono::Utc::now();
        let mut effects = Vec::new();
        for ev in batch {
            effects.extend(state.update(ev));
        }
        if state.quit
            && let Some(now) = &connected_now
        {
            state.quit_unless(now());
        }
        // Keep `spock_get_status` truthful before any navigation request is answered.
        if written_screen != state.screen.name() {
            written_screen = state.screen.name().to_string();
            link.send(ClientMsg::Screen {
                name: written_screen.clone(),
            });
        }
        for fx in effects {
            if let Effect::Alert { title, body } = &fx {
                alerts.extend(osc::alert(title, body, in_tmux));
                continue;
            }
            if let Some(ev) = perform(
                fx,
                &link,
                &paths,
                &tx,
                &mut terminal,
                in_tmux,
                &tmux_clipboard,
            ) {
                state.update(ev);
            }
        }
    }
    // Fences still unanswered would have their answers typed into the shell once the
    // terminal is back to normal: wait for them a little.
    if lost.is_none() {
        let deadline = tokio::time::Instant::now() + std::time::Duration::from_millis(500);
        while state
            .gate
            .fence
            .as_ref()
            .is_some_and(|f| f.answers == Some(true) && f.answered < f.sent)
        {
            match tokio::time::timeout_at(deadline, rx.recv()).await {
                Ok(Some(Event::Fence(at))) => {
                    state.update(Event::Fence(at));
                }
                Ok(Some(_)) => {}
                Ok(None) | Err(_) => break,
            }
        }
    }
    stop_input.store(true, Ordering::Relaxed);
    link.detach();
    // Unanswered requests on this screen stay with the server (and the other terminals).
    state.confirms.clear();
    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    // Not dropped: ratatui's drop prints to stderr when it cannot show the cursor, and
    // printing to a terminal that went away (a dropped SSH link) panics, before the serving
    // process has stopped its server. The guard restores the terminal (cursor included).
    std::mem::forget(terminal);
    drop(guard);
    match lost {
        Some(e) => Err(anyhow::Error::new(e).context("the terminal went away")),
        None => Ok(()),
    }
}

/// Clear the screen and make the next frame redraw every cell, without asking the terminal
/// where its cursor is (`Terminal::clear` does, and waits up to 2 s for the answer: a slow
/// link would end the control centre, and the late answer would land in the shell).
fn clear<W: std::io::Write>(terminal: &mut Terminal<CrosstermBackend<W>>) -> std::io::Result<()> {
    let area = terminal.size()?;
    terminal.resize(ratatui::layout::Rect::new(0, 0, area.width, area.height))
}

/// SIGTERM, SIGHUP and SIGINT end the loop (SIGHUP only when it was not ignored at start).
/// Registered at once (not in the task), so a signal arriving before the server starts never
/// meets the default action.
pub fn spawn_signals(tx: mpsc::UnboundedSender<Event>) {
    let stop = crate::process::signals::stop();
    tokio::spawn(async move {
        let by = stop.await;
        tracing::info!("stopped by {by}");
        let _ = tx.send(Event::Quit);
    });
}

/// Carry out one effect: what changes the server goes to it as a command (its result comes
/// back as a `notice`, a fresh view, a batch reply); the clipboard, the bell and saving images
/// are this terminal's own.
fn perform<W: std::io::Write>(
    fx: Effect,
    link: &Link,
    paths: &Paths,
    tx: &mpsc::UnboundedSender<Event>,
    terminal: &mut Terminal<CrosstermBackend<W>>,
    in_tmux: bool,
    tmux_clipboard: &std::sync::OnceLock<String>,
) -> Option<Event> {
    let out = terminal.backend_mut();
    match fx {
        Effect::Copy { what, text } => {
            let ok = out
                .write_all(&osc::clipboard(&text))
                .and_then(|_| out.flush());
            Some(Event::Notice(match ok {
                // Only the terminal knows whether it honoured the escape: say what was done.
                Ok(()) => osc::copied(&what, in_tmux, tmux_clipboard.get().map(|v| v.as_str())),
                Err(e) => format!("could not copy: {e}"),
            }))
        }
        // Written by the loop after the next frame, the one that shows the request.
        Effect::Alert { .. } => None,
        Effect::Decide { call_id, approve } => {
            link.decide(call_id, approve);
            None
        }
        Effect::NavReply(req, result) => {
            // The link sends the answer to the server.
            match result {
                Ok(()) => req.applied(),
                Err(reason) => req.refused(reason),
            }
            None
        }
        Effect::Server(action) => {
            link.send(ClientMsg::Server { action });
            None
        }
        Effect::Access(change) => {
            link.send(ClientMsg::Access { change });
            None
        }
        Effect::ReloadTools => {
            link.send(ClientMsg::ReloadTools);
            None
        }
        Effect::RotateCredential => {
            link.send(ClientMsg::RotateCredential);
            None
        }
        Effect::Setting(field, value) => {
            link.send(ClientMsg::Setting { field, value });
            None
        }
        Effect::Batch(cmd) => {
            link.send(ClientMsg::Batch { cmd });
            None
        }
        Effect::BreakLease { id, device } => {
            link.send(ClientMsg::BreakLease { id, device });
            None
        }
        Effect::SaveImages { stem, images } => {
            let (dir, tx) = (paths.data.join("images"), tx.clone());
            tokio::task::spawn_blocking(move || {
                let _ = tx.send(Event::Notice(super::images::save(&dir, &stem, &images)));
            });
            None
        }
    }
}
