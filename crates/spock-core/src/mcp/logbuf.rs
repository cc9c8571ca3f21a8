//! This program's own log, kept in memory for `spock_get_logs` (002_… getLogs semantics:
//! oldest first, level and case-insensitive substring filters, long messages truncated).
use std::collections::VecDeque;
use std::fmt::Write as _;
use std::sync::{Arc, Mutex};

use chrono::{DateTime, Utc};
use serde::Serialize;
use tracing::field::{Field, Visit};
use tracing::{Event, Level, Subscriber};
use tracing_subscriber::layer::{Context, Layer};

pub const MAX_MESSAGE: usize = 2000;

#[derive(Debug, Clone, Serialize)]
pub struct LogEntry {
    pub seq: u64,
    pub time: DateTime<Utc>,
    pub level: String,
    pub target: String,
    pub message: String,
}

#[derive(Debug, Default)]
struct Inner {
    entries: VecDeque<LogEntry>,
    next: u64,
}

/// A bounded ring of log entries, shared by the tracing layer and the tools. Each new entry
/// is also offered live to [`LogBuffer::follow`]ers (MCP `notifications/message`).
#[derive(Debug, Clone)]
pub struct LogBuffer {
    inner: Arc<Mutex<Inner>>,
    cap: usize,
    live: tokio::sync::broadcast::Sender<LogEntry>,
}

impl LogBuffer {
    pub fn new(cap: usize) -> Self {
        LogBuffer {
            inner: Arc::new(Mutex::new(Inner::default())),
            cap: cap.max(1),
            live: tokio::sync::broadcast::channel(256).0,
        }
    }

    /// Every entry pushed from now on (a follower that falls behind skips what it missed).
    pub fn follow(&self) -> tokio::sync::broadcast::Receiver<LogEntry> {
        self.live.subscribe()
    }

    pub fn push(&self, level: &str, target: &str, message: String) {
        if let Ok(mut inner) = self.inner.lock() {
            let seq = inner.next;
            inner.next += 1;
            if inner.entries.len() >= self.cap {
                inner.entries.pop_front();
            }
            let entry = LogEntry {
                seq,
                time: Utc::now(),
                level: level.to_string(),
                target: target.to_string(),
                message,
            };
            if self.live.receiver_count() > 0 {
                let _ = self.live.send(entry.clone());
            }
            inner.entries.push_back(entry);
        }
    }

    pub fn clear(&self) -> usize {
        self.inner
            .lock()
            .map(|mut i| {
                let n = i.entries.len();
                i.entries.clear();
                n
            })
            .unwrap_or(0)
    }

    pub fn len(&self) -> usize {
        self.inner.lock().map(|i| i.entries.len()).unwrap_or(0)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The most recent `limit` entries that pass the filters, oldest first, with the number
    /// matched and the total held.
    pub fn query(
        &self,
        limit: usize,
        min_level: Option<Level>,
        contains: Option<&str>,
    ) -> (Vec<LogEntry>, usize, usize) {
        self.query_as(limit, min_level, contains, |s| s.to_string())
    }

    /// [`LogBuffer::query`] as a reader sees the log: `view` turns each message and target
    /// into what that reader is shown (redaction), and `contains` matches that text, never
    /// the original, so a substring filter cannot probe what the reader is not shown. The
    /// entries come back whole; the answer is redacted on its way to the reader.
    pub fn query_as(
        &self,
        limit: usize,
        min_level: Option<Level>,
        contains: Option<&str>,
        view: impl Fn(&str) -> String,
    ) -> (Vec<LogEntry>, usize, usize) {
        let Ok(inner) = self.inner.lock() else {
            return (Vec::new(), 0, 0);
        };
        let needle = contains.map(str::to_lowercase);
        let matched: Vec<&LogEntry> = inner
            .entries
            .iter()
            .filter(|e| min_level.is_none_or(|min| level_of(&e.level).is_some_and(|l| l <= min)))
            .filter(|e| {
                needle.as_ref().is_none_or(|n| {
                    view(&e.message).to_lowercase().contains(n)
                        || view(&e.target).to_lowercase().contains(n)
                })
            })
            .collect();
        let count = matched.len();
        let skip = count.saturating_sub(limit);
        let out = matched
            .into_iter()
            .skip(skip)
            .map(|e| {
                let mut e = e.clone();
                if e.message.chars().count() > MAX_MESSAGE {
                    e.message =
                        e.message.chars().take(MAX_MESSAGE).collect::<String>() + "… [truncated]";
                }
                e
            })
            .collect();
        (out, count, inner.entries.len())
    }
}

/// tracing's levels order TRACE > DEBUG > INFO > WARN > ERROR in verbosity; `l <= min` keeps
/// entries at least as severe as `min`.
pub fn level_of(s: &str) -> Option<Level> {
    s.trim().parse::<Level>().ok()
}

/// The tracing layer feeding a [`LogBuffer`].
pub struct BufferLayer(pub LogBuffer);

struct MessageVisitor(String);

impl Visit for MessageVisitor {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            let _ = write!(self.0, "{value:?}");
        } else {
            let _ = write!(self.0, " {}={value:?}", field.name());
        }
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "message" {
            self.0.push_str(value);
        } else {
            let _ = write!(self.0, " {}={value}", field.name());
        }
    }
}

impl<S: Subscriber> Layer<S> for BufferLayer {
    fn on_event(&self, event: &Event<'_>, _ctx: Context<'_, S>) {
        let mut v = MessageVisitor(String::new());
        event.record(&mut v);
        let meta = event.metadata();
        self.0.push(meta.level().as_str(), meta.target(), v.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contains_matches_what_the_reader_is_shown_not_the_hidden_text() {
        let b = LogBuffer::new(10);
        b.push("INFO", "t", "login password=hunter2xyz".to_string());
        let r = crate::redact::Redactor::with_defaults();
        let view = |s: &str| r.redact_str(s, crate::redact::Audience::Agent).into_owned();
        for probe in ["hunter2", "password=h", "xyz"] {
            let (hit, n, _) = b.query_as(200, None, Some(probe), view);
            assert_eq!((n, hit.len()), (0, 0), "{probe} matched hidden text");
        }
        let (hit, n, _) = b.query_as(200, None, Some("password=«redacted"), view);
        assert_eq!((n, hit.len()), (1, 1));
    }

    #[test]
    fn filters_limit_oldest_first_and_truncates() {
        let b = LogBuffer::new(10);
        for i in 0..12 {
            b.push(
                if i % 2 == 0 { "INFO" } else { "ERROR" },
                "t",
                format!("msg {i}"),
            );
        }
        b.push("WARN", "t", "x".repeat(2500));
        let (all, matched, total) = b.query(200, None, None);
        assert_eq!(total, 10);
        assert_eq!(matched, 10);
        assert_eq!(all.first().map(|e| e.message.as_str()), Some("msg 3"));
        assert!(all.last().unwrap().message.ends_with("[truncated]"));
        let (errs, n, _) = b.query(2, Some(Level::ERROR), None);
        assert_eq!(n, 5);
        assert_eq!(
            errs.iter().map(|e| e.message.as_str()).collect::<Vec<_>>(),
            ["msg 9", "msg 11"]
        );
        let (hit, n, _) = b.query(200, None, Some("MSG 1"));
        assert_eq!(n, 2);
        assert_eq!(hit[0].message, "msg 10");
    }
}
