//! The signals that stop a serving process (SIGINT, SIGTERM, SIGHUP), and which one did.
//! A SIGHUP the process started with ignored (`nohup spock-tui serve &`) stays ignored: a
//! handler registered for it replaces the ignore, and the dropped SSH link would stop the
//! server nohup was meant to keep.
use std::future::Future;
use std::sync::OnceLock;

use tokio::signal::unix::{Signal, SignalKind, signal};

static HANGUP_IGNORED: OnceLock<bool> = OnceLock::new();

/// Whether SIGHUP was ignored when the process started. `main` asks first, before anything
/// registers a handler; later calls return that answer.
pub fn hangup_ignored() -> bool {
    *HANGUP_IGNORED.get_or_init(|| {
        // SAFETY: an all-zero `sigaction` is a valid value for sigaction to fill in.
        let mut old: libc::sigaction = unsafe { std::mem::zeroed() };
        // SAFETY: with a null new action, sigaction only reads the current one into `old`.
        let read = unsafe { libc::sigaction(libc::SIGHUP, std::ptr::null(), &mut old) };
        read == 0 && old.sa_sigaction == libc::SIG_IGN
    })
}

/// Resolves with the name of the first stop signal to arrive. Every handler is registered
/// before this returns, so a signal arriving before the first await never meets the default
/// action; SIGHUP gets none when it was ignored at start (it stays ignored).
pub fn stop() -> impl Future<Output = &'static str> + Send + 'static {
    let int = signal(SignalKind::interrupt()).ok();
    let term = signal(SignalKind::terminate()).ok();
    let hup = if hangup_ignored() {
        tracing::info!("SIGHUP is ignored (nohup): a dropped link does not stop this process");
        None
    } else {
        signal(SignalKind::hangup()).ok()
    };
    async fn on(s: Option<Signal>, name: &'static str) -> &'static str {
        match s {
            Some(mut s) => {
                s.recv().await;
                name
            }
            None => std::future::pending().await,
        }
    }
    async move {
        tokio::select! {
            n = on(int, "SIGINT") => n,
            n = on(term, "SIGTERM") => n,
            n = on(hup, "SIGHUP") => n,
        }
    }
}
