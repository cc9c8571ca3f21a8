//! The calls the control centre knows about, newest last, in one bounded `VecDeque`: one
//! [`CallEntry`] each (an *entry*; "record" is kept for the audit record an entry came from or
//! produced, its `audit_seq`).
//!
//! Activity and History are two views of the same records: Activity shows this session's
//! (`live`) calls as they happen, History adds whatever a [`HistorySource`] preloads from an
//! earlier session, searchable and filterable. Records get a local `seq` that is contiguous,
//! so a record is found by arithmetic, not by a scan, even with a million of them.
use std::collections::VecDeque;
use std::time::Duration;

use chrono::{DateTime, Utc};
use serde_json::Value;

use crate::mcp::events::{CallImage, ClientId, DecidedBy, Decision, Outcome, Transport};
use crate::mcp::registry::Level;

/// How a call ended, once it has.
#[derive(Debug, Clone, PartialEq)]
pub struct Finished {
    pub outcome: Outcome,
    pub duration: Duration,
    pub decision: Option<Decision>,
    pub result: Payload,
    /// The images the tool returned beside the JSON (none for a record read back from the
    /// audit trail, which keeps only their size and hash).
    pub images: Vec<CallImage>,
}

/// A result kept as its compact JSON text: a parsed `serde_json::Value` costs several times
/// the text's size, and ten thousand of them are what History holds. Parsed again only for
/// the one record a person is looking at.
#[derive(Debug, Clone, PartialEq)]
pub struct Payload(std::sync::Arc<str>);

impl Payload {
    pub fn new(v: &Value) -> Payload {
        Payload(v.to_string().into())
    }
    pub fn text(&self) -> &str {
        &self.0
    }
    pub fn value(&self) -> Value {
        serde_json::from_str(&self.0).unwrap_or(Value::Null)
    }
}

impl From<Value> for Payload {
    fn from(v: Value) -> Payload {
        Payload::new(&v)
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct CallEntry {
    /// Local, increasing, unique within one [`History`] (gaps where calls were evicted).
    pub seq: u64,
    /// The core's call id, for calls made while this control centre ran.
    pub call_id: Option<u64>,
    pub live: bool,
    pub at: DateTime<Utc>,
    pub tool: String,
    pub level: Level,
    pub transport: Transport,
    pub client: Option<ClientId>,
    pub device: Option<String>,
    pub arguments: Value,
    pub finished: Option<Finished>,
    /// The call's audit record (its `seq`), once it has one.
    pub audit_seq: Option<u64>,
    /// A destructive call's `started` record (its `seq`), when it was read back from the
    /// trail: the call's first record, written before it ran. Its ending names it
    /// (`AuditRecord::started`), and the two are this one entry.
    pub started_seq: Option<u64>,
    /// The person's own act, as the server verified it (not from the client's name).
    pub person: bool,
}

impl CallEntry {
    /// Destructive, denied or refused: never evicted to make room for other calls, so History
    /// can always show it.
    pub fn kept(&self) -> bool {
        self.level == Level::Destructive
            || self.finished.as_ref().is_some_and(|f| {
                matches!(f.outcome, Outcome::Denied | Outcome::Refused)
                    || f.decision.is_some_and(|d| !d.approved)
            })
    }

    /// A record from outside the event stream (an audit store's entry at merge time).
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        at: DateTime<Utc>,
        tool: impl Into<String>,
        level: Level,
        transport: Transport,
        client: Option<ClientId>,
        device: Option<String>,
        arguments: Value,
        finished: Option<Finished>,
    ) -> CallEntry {
        CallEntry {
            seq: 0,
            call_id: None,
            live: false,
            at,
            tool: tool.into(),
            level,
            transport,
            client,
            device,
            arguments,
            finished,
            audit_seq: None,
            started_seq: None,
            person: false,
        }
    }

    /// A destructive call whose `started` record has no ending on record, read back from a
    /// trail whose server is not running it (the server leaves a call it runs now out of the
    /// preload): the server stopped while it ran. Held as a finished call whose outcome is
    /// [`Outcome::Started`], its last record.
    pub fn interrupted(&self) -> bool {
        self.finished
            .as_ref()
            .is_some_and(|f| f.outcome == Outcome::Started)
    }

    /// Case-insensitive match on tool name, outcome and decision (the words the lists show:
    /// `denied`, `timeout`), arguments and result; `query` already lower-case. Searched in
    /// place rather than through a lower-cased copy of every record: ten thousand copies are
    /// megabytes, one pass over them is a few milliseconds per keystroke.
    pub fn matches_lower(&self, query: &str) -> bool {
        query.is_empty()
            || contains_ci(&self.tool, query)
            || contains_ci(&self.arguments.to_string(), query)
            || self.finished.as_ref().is_some_and(|f| {
                contains_ci(self.outcome_label(), query)
                    || f.decision
                        .is_some_and(|d| contains_ci(decided(d.by), query))
                    || contains_ci(f.result.text(), query)
            })
    }

    pub fn outcome_label(&self) -> &'static str {
        match &self.finished {
            None => "running",
            Some(_) if self.interrupted() => INTERRUPTED,
            Some(f) => f.outcome.label(),
        }
    }

    /// The outcome as the lists show it, with how a destructive call was decided:
    /// `ok (key)`, `denied (timeout)`, `running`.
    pub fn outcome_text(&self) -> String {
        match &self.finished {
            Some(f) => match f.decision {
                Some(d) => format!("{} ({})", self.outcome_label(), decided(d.by)),
                None => f.outcome.label().to_string(),
            },
            None => "running".into(),
        }
    }

    /// The outcome filter: a call is a `timeout` when the tool timed out or when its
    /// confirmation did (then it is `denied` too).
    pub fn outcome_in(&self, outcomes: &std::collections::BTreeSet<String>) -> bool {
        let confirmation_timed_out = self
            .finished
            .as_ref()
            .and_then(|f| f.decision)
            .is_some_and(|d| d.by == DecidedBy::Timeout);
        outcomes.contains(self.outcome_label())
            || (confirmation_timed_out && outcomes.contains(Outcome::Timeout.label()))
    }

    /// The client as the lists show it: an MCP client whose name reads like the control
    /// centre's is shown as its claim (first, so a narrow column keeps it), so it never
    /// passes for the person's own acts.
    pub fn client_label(&self) -> String {
        let name = ClientId::label(&self.client);
        if !self.person && spock_core::model::who::looks_like_control_centre(&name) {
            format!("claims \"{name}\"")
        } else {
            name
        }
    }

    pub fn device_label(&self) -> &str {
        self.device.as_deref().unwrap_or("-")
    }

    /// "approved (key)", "denied (timeout)" … for destructive calls that were asked about.
    pub fn decision_label(&self) -> Option<String> {
        let d = self.finished.as_ref()?.decision?;
        let how = match d.by {
            DecidedBy::Key => "by key",
            DecidedBy::Attached => "by key, attached terminal",
            DecidedBy::Timeout => "at the timeout",
            DecidedBy::NoResponder => "no responder",
            DecidedBy::Dropped => "request dropped",
            DecidedBy::Client => "the MCP client (elicitation)",
        };
        Some(format!(
            "{} ({how})",
            if d.approved { "approved" } else { "denied" }
        ))
    }
}

/// The outcome History shows for a call a server stopped during ([`CallEntry::interrupted`]).
pub const INTERRUPTED: &str = "interrupted";

/// What History says of such a call, as its result.
pub const INTERRUPTED_NOTE: &str = "the server stopped while this call ran: it was approved and \
     started (its started record is on the audit trail), but how it ended is not on record, nor \
     whether it took effect";

/// How a destructive call was decided, in a word or two.
pub fn decided(by: DecidedBy) -> &'static str {
    match by {
        DecidedBy::Key => "key",
        DecidedBy::Attached => "attached",
        DecidedBy::Timeout => "timeout",
        DecidedBy::NoResponder => "no responder",
        DecidedBy::Dropped => "dropped",
        DecidedBy::Client => "client",
    }
}

/// `hay` contains `needle_lower` ignoring case (ASCII in place; otherwise by lower-casing).
fn contains_ci(hay: &str, needle_lower: &str) -> bool {
    if needle_lower.is_ascii() {
        let (h, n) = (hay.as_bytes(), needle_lower.as_bytes());
        n.is_empty()
            || (h.len() >= n.len() && h.windows(n.len()).any(|w| w.eq_ignore_ascii_case(n)))
    } else {
        hay.to_lowercase().contains(needle_lower)
    }
}

/// Where the entries from before this session come from: the audit records the server sends
/// after the welcome ([`Preloaded`], what every control centre uses, in-process or attached) or
/// nothing ([`SessionOnly`]: events alone, as most tests start).
pub trait HistorySource: Send {
    /// Up to `cap` earlier records, oldest first.
    fn preload(&self, cap: usize) -> Vec<CallEntry>;
    /// One honest line for the History header.
    fn describe(&self) -> String;
}

/// Only what this control centre saw since it started.
#[derive(Debug, Default, Clone, Copy)]
pub struct SessionOnly;

impl HistorySource for SessionOnly {
    fn preload(&self, _cap: usize) -> Vec<CallEntry> {
        Vec::new()
    }
    fn describe(&self) -> String {
        "this session only (the audit store is not connected yet)".into()
    }
}

impl CallEntry {
    /// An audit record as History holds it: the result as compact text, no images.
    pub fn from_record(r: crate::audit::AuditRecord) -> CallEntry {
        let at = DateTime::parse_from_rfc3339(&r.time)
            .map(|t| t.with_timezone(&Utc))
            .unwrap_or_else(|_| Utc::now());
        let client = (r.client != "unknown").then(|| {
            let (name, version) = r.client.split_once('/').unwrap_or((r.client.as_str(), ""));
            ClientId {
                name: name.to_string(),
                version: version.to_string(),
            }
        });
        let result = match (&r.result, &r.error) {
            (Some(v), _) => Payload::new(v),
            (None, Some(e)) => Payload::new(&serde_json::json!({ "error": e })),
            // A started record alone: shown as interrupted until its ending pairs with it.
            (None, None) if r.outcome == Outcome::Started => {
                Payload::new(&serde_json::json!({ "interrupted": INTERRUPTED_NOTE }))
            }
            (None, None) => Payload::new(&Value::Null),
        };
        let started_seq = match r.outcome {
            Outcome::Started => Some(r.seq),
            _ => r.started,
        };
        let mut c = CallEntry::new(
            at,
            r.tool,
            r.level,
            r.transport,
            client,
            r.device,
            r.arguments,
            Some(Finished {
                outcome: r.outcome,
                duration: Duration::from_millis(r.duration_ms),
                decision: r.decision,
                result,
                images: Vec::new(),
            }),
        );
        c.audit_seq = Some(r.seq);
        c.started_seq = started_seq;
        c.person = r.verified.as_ref().is_some_and(|v| v.is_person());
        c
    }
}

/// The audit trail's recent records, as stored (already redacted), which the attach session
/// sends every control centre after its welcome: what happened before it started, across
/// restarts. Held as entries ([`CallEntry::from_record`]), as they arrived.
#[derive(Debug)]
pub struct Preloaded {
    pub records: Vec<CallEntry>,
    pub source: String,
}

impl HistorySource for Preloaded {
    fn preload(&self, cap: usize) -> Vec<CallEntry> {
        let skip = self.records.len().saturating_sub(cap);
        self.records.iter().skip(skip).cloned().collect()
    }
    fn describe(&self) -> String {
        format!("{} (from the server)", self.source)
    }
}

/// What [`History::reload`] changed, by tool: calls added, running calls that ended.
#[derive(Debug, Default, PartialEq)]
pub struct Reloaded {
    pub added: Vec<String>,
    pub ended: Vec<String>,
}

#[derive(Debug, Clone)]
pub struct History {
    entries: VecDeque<CallEntry>,
    cap: usize,
    next_seq: u64,
    pub source: String,
}

impl History {
    pub fn new(cap: usize) -> History {
        History {
            entries: VecDeque::new(),
            cap: cap.max(1),
            next_seq: 1,
            source: SessionOnly.describe(),
        }
    }

    pub fn from_source(cap: usize, source: &dyn HistorySource) -> History {
        let mut h = History::new(cap);
        h.source = source.describe();
        let preload = source.preload(cap);
        h.entries.reserve_exact(preload.len());
        for r in preload {
            if let Some(r) = h.pair(r) {
                h.push(r);
            }
        }
        h
    }

    /// A destructive call's ending read back from the trail, paired with the entry its
    /// `started` record made (one call, one entry: the ending replaces the interrupted
    /// state). Returns the entry back when it is no such ending or its started record is not
    /// held.
    fn pair(&mut self, r: CallEntry) -> Option<CallEntry> {
        let Some(started) = r.started_seq.filter(|_| !r.interrupted()) else {
            return Some(r);
        };
        let Some(e) = self
            .entries
            .iter_mut()
            .rev()
            .find(|e| e.started_seq == Some(started) && e.interrupted())
        else {
            return Some(r);
        };
        e.finished = r.finished;
        e.audit_seq = r.audit_seq;
        e.device = r.device.or(e.device.take());
        e.arguments = r.arguments;
        None
    }

    /// The server's History preload again, after the attach link reconnected: the records
    /// newer than the newest audit record this History holds (calls made while the link was
    /// down, by the old server or the new one) are appended as this session's, so Activity
    /// shows them too; the ones it holds already are not added twice. Calls still shown as
    /// running from the old connection get their ending from the trail.
    pub fn reload(&mut self, source: &dyn HistorySource) -> Reloaded {
        let known = self.entries.iter().filter_map(|e| e.audit_seq).max();
        let mut done = Reloaded::default();
        for r in source.preload(self.cap) {
            let Some(seq) = r.audit_seq else { continue };
            if known.is_some_and(|k| seq <= k) {
                continue;
            }
            // The ending of a call whose started record this History holds (as interrupted,
            // from this preload or an earlier one): that entry, already counted as ended.
            let Some(mut r) = self.pair(r) else { continue };
            // A call this control centre saw start but whose end it missed (the link went
            // down while it ran): the trail's record is its ending, not another call. A
            // started record alone is an ending too: the server stopped while it ran (the
            // server it reconnected to leaves a call it runs now out of the preload).
            if let Some(e) = self.entries.iter_mut().rev().find(|e| {
                e.live
                    && e.finished.is_none()
                    && e.audit_seq.is_none()
                    && e.tool == r.tool
                    && e.arguments == r.arguments
            }) {
                e.finished = r.finished.take();
                e.audit_seq = Some(seq);
                e.started_seq = r.started_seq;
                done.ended.push(r.tool);
                continue;
            }
            r.live = true;
            done.added.push(r.tool.clone());
            self.push(r);
        }
        done
    }

    /// Append (newest), evicting the oldest beyond the capacity. Returns the record's seq.
    pub fn push(&mut self, mut record: CallEntry) -> u64 {
        record.seq = self.next_seq;
        self.next_seq += 1;
        self.entries.push_back(record);
        self.evict();
        self.next_seq - 1
    }

    /// A live call began.
    #[allow(clippy::too_many_arguments)]
    pub fn started(
        &mut self,
        call_id: u64,
        at: DateTime<Utc>,
        tool: &str,
        level: Level,
        transport: Transport,
        client: Option<ClientId>,
        device: Option<String>,
        arguments: Value,
    ) -> u64 {
        let mut r = CallEntry::new(at, tool, level, transport, client, device, arguments, None);
        r.call_id = Some(call_id);
        r.live = true;
        self.push(r)
    }

    /// The live entry of call `call_id`. Running calls are recent: searched from the newest
    /// end. Only live entries carry a call id.
    fn live_mut(&mut self, call_id: u64) -> Option<&mut CallEntry> {
        self.entries
            .iter_mut()
            .rev()
            .find(|r| r.live && r.call_id == Some(call_id))
    }

    /// Call `call_id` is the person's own act (the server said so when it started).
    pub fn set_person(&mut self, call_id: u64) {
        if let Some(r) = self.live_mut(call_id) {
            r.person = true;
        }
    }

    /// The device a call resolved to (known only once it ran).
    pub fn set_device(&mut self, call_id: u64, device: Option<String>) {
        if let Some(r) = self.live_mut(call_id) {
            r.device = device;
        }
    }

    /// A running call's arguments as the person may now see them (typed text shown once the
    /// field is known to be no password field).
    pub fn set_arguments(&mut self, call_id: u64, arguments: Value) {
        if let Some(r) = self.live_mut(call_id) {
            r.arguments = arguments;
        }
    }

    /// A live call ended (its audit record is `record`); false when its start was never seen
    /// (evicted or missed).
    pub fn finished(&mut self, call_id: u64, finished: Finished, record: u64) -> bool {
        let Some(r) = self.live_mut(call_id) else {
            return false;
        };
        r.finished = Some(finished);
        r.audit_seq = Some(record);
        true
    }

    pub fn get(&self, seq: u64) -> Option<&CallEntry> {
        let idx = self.entries.binary_search_by_key(&seq, |r| r.seq).ok()?;
        self.entries.get(idx)
    }

    /// Drops the oldest calls beyond the capacity, except destructive, denied and refused ones
    /// ([`CallEntry::kept`]), which stay however many others come after them.
    fn evict(&mut self) {
        while self.entries.len() > self.cap {
            let Some(i) = self.entries.iter().position(|r| !r.kept()) else {
                return;
            };
            self.entries.remove(i);
        }
    }

    pub fn by_call_id(&self, call_id: u64) -> Option<&CallEntry> {
        self.entries
            .iter()
            .rev()
            .find(|r| r.live && r.call_id == Some(call_id))
    }

    pub fn newest_first(&self) -> impl Iterator<Item = &CallEntry> {
        self.entries.iter().rev()
    }

    /// This session's calls, newest first (they are contiguous at the newest end).
    pub fn live_newest_first(&self) -> impl Iterator<Item = &CallEntry> {
        self.entries.iter().rev().take_while(|r| r.live)
    }

    pub fn live_len(&self) -> usize {
        self.live_newest_first().count()
    }

    pub fn newest_seq(&self) -> Option<u64> {
        self.entries.back().map(|r| r.seq)
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn capacity(&self) -> usize {
        self.cap
    }

    pub fn set_capacity(&mut self, cap: usize) {
        self.cap = cap.max(1);
        self.evict();
    }

    pub fn running(&self) -> usize {
        self.live_newest_first()
            .filter(|r| r.finished.is_none())
            .count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn start(h: &mut History, id: u64, tool: &str) -> u64 {
        h.started(
            id,
            Utc::now(),
            tool,
            Level::ReadOnly,
            Transport::Http,
            None,
            None,
            json!({"q": id}),
        )
    }

    #[test]
    fn bounded_and_found_by_seq() {
        let mut h = History::new(3);
        for i in 1..=5 {
            start(&mut h, i, "t");
        }
        assert_eq!(h.len(), 3);
        assert!(h.get(2).is_none());
        assert_eq!(h.get(4).and_then(|r| r.call_id), Some(4));
        assert_eq!(h.newest_first().next().map(|r| r.seq), Some(5));
        h.set_capacity(1);
        assert_eq!(h.len(), 1);
    }

    #[test]
    fn destructive_and_denied_calls_are_never_evicted() {
        let mut h = History::new(3);
        let d = h.started(
            1,
            Utc::now(),
            "android_push_file",
            Level::Destructive,
            Transport::Http,
            None,
            None,
            json!({}),
        );
        let denied = start(&mut h, 2, "android_tap");
        h.finished(
            2,
            Finished {
                outcome: Outcome::Denied,
                duration: Duration::ZERO,
                decision: None,
                result: json!({}).into(),
                images: Vec::new(),
            },
            2,
        );
        for i in 3..=2000 {
            start(&mut h, i, "android_get_screen");
        }
        assert_eq!(h.len(), 3);
        assert_eq!(h.get(d).map(|r| r.tool.as_str()), Some("android_push_file"));
        assert_eq!(h.get(denied).map(|r| r.tool.as_str()), Some("android_tap"));
        assert_eq!(h.newest_first().next().and_then(|r| r.call_id), Some(2000));
        // Lowering the size keeps them too.
        h.set_capacity(1);
        assert_eq!(h.len(), 2);
        assert!(h.get(d).is_some() && h.get(denied).is_some());
    }

    #[test]
    fn finish_updates_search_text() {
        let mut h = History::new(10);
        start(&mut h, 7, "android_tap");
        assert!(!h.newest_first().next().unwrap().matches_lower("needle"));
        let f = Finished {
            outcome: Outcome::Ok,
            duration: Duration::from_millis(3),
            decision: None,
            result: json!({"x": "NEEDLE"}).into(),
            images: Vec::new(),
        };
        assert!(h.finished(7, f.clone(), 7));
        assert!(!h.finished(99, f, 99));
        assert!(h.newest_first().next().unwrap().matches_lower("needle"));
        assert_eq!(h.running(), 0);
    }

    #[test]
    fn preloaded_records_are_not_live() {
        struct Two;
        impl HistorySource for Two {
            fn preload(&self, _cap: usize) -> Vec<CallEntry> {
                (0..2)
                    .map(|_| {
                        CallEntry::new(
                            Utc::now(),
                            "old",
                            Level::ReadOnly,
                            Transport::Stdio,
                            None,
                            None,
                            json!({}),
                            None,
                        )
                    })
                    .collect()
            }
            fn describe(&self) -> String {
                "two".into()
            }
        }
        let mut h = History::from_source(10, &Two);
        start(&mut h, 1, "new");
        assert_eq!(h.len(), 3);
        assert_eq!(h.live_len(), 1);
        assert_eq!(h.source, "two");
    }

    fn audited(seq: u64, tool: &str) -> crate::audit::AuditRecord {
        serde_json::from_value(json!({
            "seq": seq, "time": "2026-11-30T20:00:00Z", "tool": tool, "level": "read_only",
            "transport": "http", "client": "agent/1", "arguments": {"n": seq},
            "outcome": "ok", "durationMs": 1, "result": {"ok": true}
        }))
        .unwrap()
    }

    #[test]
    fn a_reload_after_a_reconnect_adds_what_was_missed_once() {
        let first = Preloaded {
            records: (1..=3)
                .map(|s| CallEntry::from_record(audited(s, "old")))
                .collect(),
            source: "trail".into(),
        };
        let mut h = History::from_source(100, &first);
        // Seen live on the first connection: record 4.
        start(&mut h, 7, "live");
        let f = Finished {
            outcome: Outcome::Ok,
            duration: Duration::ZERO,
            decision: None,
            result: Payload::new(&json!(null)),
            images: Vec::new(),
        };
        assert!(h.finished(7, f, 4));
        // A call that started before the link went down and ended while it was down: 5.
        start(&mut h, 8, "slow");
        h.set_arguments(8, json!({"n": 5}));
        assert_eq!(h.len(), 5);
        // The new preload: all of the above, and 6 and 7 made while the link was down.
        let again = Preloaded {
            records: (1..=7)
                .map(|s| CallEntry::from_record(audited(s, if s == 5 { "slow" } else { "old" })))
                .collect(),
            source: "trail".into(),
        };
        let done = h.reload(&again);
        assert_eq!(done.added, vec!["old", "old"]);
        assert_eq!(done.ended, vec!["slow"]);
        let seqs: Vec<u64> = h.newest_first().filter_map(|e| e.audit_seq).collect();
        assert_eq!(seqs, vec![7, 6, 5, 4, 3, 2, 1], "each record once");
        assert_eq!(h.len(), 7);
        assert!(h.newest_first().all(|e| e.finished.is_some()));
        // Activity (this session's calls) shows what happened while the link was down.
        assert_eq!(h.live_len(), 4);
        // A second reload of the same trail adds nothing.
        assert_eq!(h.reload(&again), Reloaded::default());
        assert_eq!(h.len(), 7);
    }

    /// A destructive call's record: `started` (its first, before it ran) or its ending.
    fn destructive(seq: u64, outcome: &str, started: Option<u64>) -> crate::audit::AuditRecord {
        let mut v = json!({
            "seq": seq, "time": "2026-11-30T20:00:00.000Z", "tool": "android_uninstall_app",
            "level": "destructive", "transport": "http", "client": "agent/1",
            "arguments": {"packageName": "a.b"}, "outcome": outcome, "durationMs": 0,
            "decision": {"approved": true, "by": "key"}
        });
        if let Some(s) = started {
            v["started"] = json!(s);
            v["result"] = json!({"uninstalled": true});
            v["durationMs"] = json!(40);
        }
        serde_json::from_value(v).unwrap()
    }

    fn preloaded(records: Vec<crate::audit::AuditRecord>) -> Preloaded {
        Preloaded {
            records: records.into_iter().map(CallEntry::from_record).collect(),
            source: "trail".into(),
        }
    }

    #[test]
    fn a_started_record_and_its_ending_are_one_entry() {
        let h = History::from_source(
            100,
            &preloaded(vec![
                destructive(5, "started", None),
                audited(6, "android_get_screen"),
                destructive(7, "ok", Some(5)),
            ]),
        );
        assert_eq!(h.len(), 2, "one entry for the pair");
        let e = h.newest_first().nth(1).unwrap();
        assert_eq!(e.tool, "android_uninstall_app");
        assert_eq!((e.audit_seq, e.started_seq), (Some(7), Some(5)));
        assert!(!e.interrupted());
        assert_eq!(e.outcome_text(), "ok (key)");
        assert!(e.matches_lower("uninstalled"));
        assert_eq!(
            e.finished.as_ref().unwrap().duration,
            Duration::from_millis(40)
        );
    }

    #[test]
    fn a_started_record_without_its_ending_is_an_interrupted_call() {
        let h = History::from_source(
            100,
            &preloaded(vec![
                destructive(5, "started", None),
                audited(6, "android_get_screen"),
            ]),
        );
        assert_eq!(h.len(), 2);
        let e = h.newest_first().nth(1).unwrap();
        assert!(e.interrupted());
        assert_eq!(e.outcome_label(), "interrupted");
        assert_eq!(e.outcome_text(), "interrupted (key)");
        assert_eq!(e.audit_seq, Some(5));
        assert!(e.kept());
        assert!(e.matches_lower("interrupted"));
        let said = e.finished.as_ref().unwrap().result.text().to_string();
        assert!(
            said.contains("server stopped while this call ran"),
            "{said}"
        );
        let filter = ["interrupted".to_string()].into_iter().collect();
        assert!(e.outcome_in(&filter));
        assert_eq!(h.running(), 0);
    }

    #[test]
    fn a_reload_ends_a_live_call_from_its_started_record_and_its_ending_once() {
        let live = |h: &mut History| {
            h.started(
                9,
                Utc::now(),
                "android_uninstall_app",
                Level::Destructive,
                Transport::Http,
                None,
                None,
                json!({"packageName": "a.b"}),
            )
        };
        // The link went down while it ran; the trail has both of its records.
        let mut h = History::new(100);
        live(&mut h);
        let done = h.reload(&preloaded(vec![
            destructive(1, "started", None),
            destructive(2, "ok", Some(1)),
        ]));
        assert_eq!(done.ended, vec!["android_uninstall_app"]);
        assert!(done.added.is_empty());
        assert_eq!(h.len(), 1);
        let e = h.newest_first().next().unwrap();
        assert_eq!((e.audit_seq, e.started_seq), (Some(2), Some(1)));
        assert_eq!(e.outcome_label(), "ok");
        // The server stopped while it ran: only its started record, an ending all the same.
        let mut h = History::new(100);
        live(&mut h);
        let done = h.reload(&preloaded(vec![destructive(1, "started", None)]));
        assert_eq!(done.ended, vec!["android_uninstall_app"]);
        assert!(done.added.is_empty());
        assert_eq!(h.len(), 1);
        assert!(h.newest_first().next().unwrap().interrupted());
        assert_eq!(h.running(), 0);
        // A call this History never saw: added once, as interrupted; its ending, should a
        // later preload carry it, completes that entry rather than adding another.
        let mut h = History::new(100);
        let done = h.reload(&preloaded(vec![destructive(1, "started", None)]));
        assert_eq!(done.added, vec!["android_uninstall_app"]);
        let done = h.reload(&preloaded(vec![
            destructive(1, "started", None),
            destructive(2, "ok", Some(1)),
        ]));
        assert_eq!(done, Reloaded::default());
        assert_eq!(h.len(), 1);
        assert_eq!(h.newest_first().next().unwrap().outcome_label(), "ok");
    }
}
