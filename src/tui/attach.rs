//! `spock-tui attach`: a control centre for a server running elsewhere on this machine
//! (`spock-tui serve`, or another terminal's `spock-tui`), over the attach channel
//! (`transport::control`). It reuses the in-process control centre's state, update and
//! drawing: Activity fills from the server's call events, Status lists its devices, and a
//! confirmation shows in the same modal with the same arming and keys; `displayed` is sent
//! when a frame has drawn it whole and the answer goes back as `decide`. What needs the core
//! itself (access switches, settings, batch, server start/stop, History before attaching)
//! is not carried yet: those keys say so. Detaching (`q`) leaves the server serving.
use std::io::Write as _;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::Context as _;
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use tokio::sync::mpsc;

use super::app::{TerminalGuard, spawn_input};
use super::event::{CoreView, Event, ServerStatus};
use super::osc;
use super::screen::ScreenId;
use super::state::State;
use super::ui;
use super::update::Effect;
use crate::config::Paths;
use crate::transport::control;

mod link;

pub use link::{AttachError, Link};

pub fn run() -> anyhow::Result<()> {
    let paths = Paths::discover()?;
    let rt = crate::app::runtime()?;
    let ended: link::Ended = Arc::default();
    let result = rt.block_on(async {
        // Refusals (no server, wrong version, wrong credential) print plainly, before the
        // terminal is taken over.
        let connected = link::connect(
            &control::socket_path(&paths),
            &control::credential_file(&paths),
        )
        .await?;
        run_loop(connected, ended.clone()).await
    });
    let why = ended.lock().ok().and_then(|e| e.clone());
    if let Some(why) = why {
        eprintln!("spock-tui attach: the server went away ({why}); detached.");
        return Ok(());
    }
    result
}

async fn run_loop(c: link::Connected, ended: link::Ended) -> anyhow::Result<()> {
    let registry = crate::mcp::tools::catalogue();
    let welcome = c.welcome.clone();
    let guard = TerminalGuard::enter()?;
    let mut terminal = Terminal::new(CrosstermBackend::new(std::io::stdout()))?;
    terminal.clear()?;
    let (tx, mut rx) = mpsc::unbounded_channel::<Event>();
    let stop_input = Arc::new(AtomicBool::new(false));
    spawn_input(tx.clone(), stop_input.clone());
    spawn_signals(tx.clone());
    let link = Link::spawn(c, registry.clone(), tx.clone(), ended);
    let view = CoreView {
        history_size: welcome.history_size.max(1),
        responder: true,
        ..CoreView::default()
    };
    let mut state = State::new(&registry, view);
    state.demo = welcome.demo;
    state.server = ServerStatus::Running;
    state.screen = ScreenId::ACTIVITY;
    state.no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    state.tz = chrono::Local::now().fixed_offset().timezone();
    let size = terminal.size()?;
    state.size = (size.width, size.height);
    state.notify(format!(
        "attached to spock-tui {} (pid {}) as {}; q detaches, the server keeps serving",
        welcome.server_version, welcome.server_pid, welcome.you
    ));
    let in_tmux = osc::in_tmux();
    while !state.quit {
        state.now = tokio::time::Instant::now();
        state.wall = chrono::Utc::now();
        terminal
            .draw(|f| ui::draw(f, &state))
            .context("the terminal went away")?;
        state.frame_drawn(tokio::time::Instant::now());
        // The modal is on screen whole (nothing below its visible arguments, or the person
        // scrolled to the end): the server's arming time for it starts now.
        if state.gate.withdrawn.is_none()
            && let Some((id, _)) = state.gate.shown
            && (state.gate.end_seen || ui::modal::lines_below(&state) == 0)
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
        for fx in effects {
            if let Some(ev) = perform(fx, &mut terminal, in_tmux) {
                state.update(ev);
            }
        }
    }
    stop_input.store(true, Ordering::Relaxed);
    link.detach();
    // Unanswered requests on this screen stay with the server (and the other terminals).
    state.confirms.clear();
    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    drop(terminal);
    drop(guard);
    Ok(())
}

fn spawn_signals(tx: mpsc::UnboundedSender<Event>) {
    tokio::spawn(async move {
        use tokio::signal::unix::{SignalKind, signal};
        let (Ok(mut term), Ok(mut hup), Ok(mut int)) = (
            signal(SignalKind::terminate()),
            signal(SignalKind::hangup()),
            signal(SignalKind::interrupt()),
        ) else {
            return;
        };
        tokio::select! {
            _ = term.recv() => {}
            _ = hup.recv() => {}
            _ = int.recv() => {}
        }
        let _ = tx.send(Event::Quit);
    });
}

/// The effects an attached control centre can carry out itself (the clipboard, the bell);
/// the rest need the server's core, which this protocol version does not carry.
fn perform<W: std::io::Write>(
    fx: Effect,
    terminal: &mut Terminal<CrosstermBackend<W>>,
    in_tmux: bool,
) -> Option<Event> {
    let out = terminal.backend_mut();
    match fx {
        Effect::Copy { what, text } => {
            let ok = out
                .write_all(&osc::clipboard(&text))
                .and_then(|_| out.flush());
            Some(Event::Notice(match ok {
                Ok(()) => format!("sent {what} to the terminal's clipboard (OSC 52)"),
                Err(e) => format!("could not copy: {e}"),
            }))
        }
        Effect::Alert { title, body } => {
            let _ = out
                .write_all(&osc::alert(&title, &body, in_tmux))
                .and_then(|_| out.flush());
            None
        }
        Effect::NavReply(req, _) => {
            req.refused("an attached control centre does not navigate for agents");
            None
        }
        _ => Some(Event::Notice(
            "not available in an attached control centre yet: do this in the serving \
             terminal (`spock-tui`) or edit config.toml"
                .into(),
        )),
    }
}
