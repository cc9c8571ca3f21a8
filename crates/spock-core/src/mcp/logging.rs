//! MCP logging: this program's own log (the records `spock_get_logs` returns) sent as
//! `notifications/message` at or above the level a client asked for, redacted as an agent
//! sees it. The 2025 era sets the level per session with `logging/setLevel` ([`SessionLog`]);
//! 2026-07-28 removed that method: a request opts in with `io.modelcontextprotocol/logLevel`
//! in its `_meta` and gets the records logged while it runs, on its own response stream
//! ([`during`]); a request without it gets none. Nothing is sent while `spock_get_logs` is
//! switched off.
// Logging is deprecated by 2026-07-28 (SEP-2577) but remains in it, and is the 2025 era's.
#![allow(deprecated)]

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use rmcp::model::{LoggingLevel, LoggingMessageNotificationParam};
use rmcp::{Peer, RoleServer};
use serde_json::json;
use tokio::sync::{broadcast, watch};
use tokio_util::sync::CancellationToken;

use super::core::Core;
use super::logbuf::LogEntry;
use crate::redact::Audience;

/// Severity order of MCP's levels (RFC 5424's, least severe first).
pub fn rank(l: LoggingLevel) -> u8 {
    match l {
        LoggingLevel::Debug => 0,
        LoggingLevel::Info => 1,
        LoggingLevel::Notice => 2,
        LoggingLevel::Warning => 3,
        LoggingLevel::Error => 4,
        LoggingLevel::Critical => 5,
        LoggingLevel::Alert => 6,
        LoggingLevel::Emergency => 7,
    }
}

/// A record's tracing level as MCP names it.
pub fn level_of_entry(level: &str) -> LoggingLevel {
    match level.trim().to_ascii_uppercase().as_str() {
        "TRACE" | "DEBUG" => LoggingLevel::Debug,
        "WARN" | "WARNING" => LoggingLevel::Warning,
        "ERROR" => LoggingLevel::Error,
        _ => LoggingLevel::Info,
    }
}

/// Whether a record goes to a client that asked for `min`. rmcp's own records are never
/// sent: sending a notification may log, which would feed itself.
pub fn passes(entry: &LogEntry, min: LoggingLevel) -> bool {
    !entry.target.starts_with("rmcp") && rank(level_of_entry(&entry.level)) >= rank(min)
}

/// Records go out only while `spock_get_logs` may be called: a person who switched that tool
/// off has hidden this log from agents, notifications included.
fn readable(core: &Core) -> bool {
    core.registry
        .get("spock_get_logs")
        .is_some_and(|t| core.access.check(t).is_ok())
}

/// The notification for one record, as an agent is shown it.
pub fn message(core: &Core, entry: &LogEntry) -> LoggingMessageNotificationParam {
    let view = |s: &str| core.redactor.redact_str(s, Audience::Agent).into_owned();
    let data = json!({
        "time": entry.time.to_rfc3339(),
        "level": entry.level,
        "message": view(&entry.message),
    });
    let mut m = LoggingMessageNotificationParam::new(level_of_entry(&entry.level), data);
    m.logger = Some(view(&entry.target));
    m
}

/// Sends every record at or above the level in `level` until `stop`; then sends what was
/// already logged and ends.
async fn forward(
    core: Arc<Core>,
    peer: Peer<RoleServer>,
    mut rx: broadcast::Receiver<LogEntry>,
    level: watch::Receiver<Option<LoggingLevel>>,
    stop: CancellationToken,
) {
    loop {
        let entry = tokio::select! {
            biased;
            r = rx.recv() => match r {
                Ok(e) => e,
                Err(broadcast::error::RecvError::Lagged(_)) => continue,
                Err(broadcast::error::RecvError::Closed) => return,
            },
            _ = stop.cancelled() => break,
        };
        let min = *level.borrow();
        if let Some(min) = min
            && passes(&entry, min)
            && readable(&core)
            && peer
                .notify_logging_message(message(&core, &entry))
                .await
                .is_err()
        {
            return;
        }
    }
    // Stopped: what was logged before the stop still goes.
    let min = *level.borrow();
    while let Ok(entry) = rx.try_recv() {
        if let Some(min) = min
            && passes(&entry, min)
            && readable(&core)
            && peer
                .notify_logging_message(message(&core, &entry))
                .await
                .is_err()
        {
            return;
        }
    }
}

/// One 2025-era session's log level: its follower starts at the first `logging/setLevel` and
/// ends with the session (the last clone of its handler dropped).
#[derive(Debug)]
pub struct SessionLog {
    level: watch::Sender<Option<LoggingLevel>>,
    started: AtomicBool,
    stop: CancellationToken,
}

impl Default for SessionLog {
    fn default() -> Self {
        SessionLog {
            level: watch::channel(None).0,
            started: AtomicBool::new(false),
            stop: CancellationToken::new(),
        }
    }
}

impl Drop for SessionLog {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

impl SessionLog {
    pub fn set(&self, core: &Arc<Core>, peer: Peer<RoleServer>, level: LoggingLevel) {
        self.level.send_replace(Some(level));
        if !self.started.swap(true, Ordering::SeqCst) {
            let rx = core.logs.follow();
            tokio::spawn(forward(
                core.clone(),
                peer,
                rx,
                self.level.subscribe(),
                self.stop.clone(),
            ));
        }
    }
}

/// Runs `f` (one 2026-07-28 request); with a level, the records logged meanwhile go to the
/// request's peer (its response stream) before `f`'s answer does.
pub async fn during<F: Future>(
    core: &Arc<Core>,
    peer: &Peer<RoleServer>,
    min: Option<LoggingLevel>,
    f: F,
) -> F::Output {
    let Some(min) = min else {
        return f.await;
    };
    let stop = CancellationToken::new();
    let (_keep, level) = watch::channel(Some(min));
    let task = tokio::spawn(forward(
        core.clone(),
        peer.clone(),
        core.logs.follow(),
        level,
        stop.clone(),
    ));
    let out = f.await;
    stop.cancel();
    let _ = tokio::time::timeout(Duration::from_secs(2), task).await;
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(level: &str, target: &str) -> LogEntry {
        LogEntry {
            seq: 0,
            time: chrono::Utc::now(),
            level: level.into(),
            target: target.into(),
            message: "m".into(),
        }
    }

    #[test]
    fn levels_pass_at_or_above_the_minimum() {
        assert!(passes(&entry("ERROR", "spock"), LoggingLevel::Warning));
        assert!(passes(&entry("WARN", "spock"), LoggingLevel::Warning));
        assert!(!passes(&entry("INFO", "spock"), LoggingLevel::Warning));
        assert!(passes(&entry("TRACE", "spock"), LoggingLevel::Debug));
        assert!(!passes(&entry("ERROR", "spock"), LoggingLevel::Critical));
        // rmcp's own records would feed themselves.
        assert!(!passes(
            &entry("ERROR", "rmcp::service"),
            LoggingLevel::Debug
        ));
    }
}
