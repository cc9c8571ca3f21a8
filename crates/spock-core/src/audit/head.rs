//! The chain's head as the writer thread knows it, and where it goes: the anchor sink
//! ([`super::anchor`]) and the local state file `audit.state.json` beside the trail, which
//! follows the head at every sync so sequence numbers never go back across restarts, even
//! when the newest records are gone (deleted, or the live file emptied just after a rotation).
//!
//! The state file is the writer's user's to change like the trail itself: it keeps an honest
//! server honest after records vanish, and proves nothing on its own; anchors do that.
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use serde::{Deserialize, Serialize};

use super::anchor::{Anchor, Reason, Sink};
use super::file::{io, open_append, open_read};
use super::{AuditError, now_rfc3339};

pub(super) const STATE_FILE: &str = "audit.state.json";
/// While records flow, the head is anchored at least this often.
pub(super) const ANCHOR_EVERY: Duration = Duration::from_secs(3);
/// Failures to anchor are logged at most this often.
const WARN_EVERY: Duration = Duration::from_secs(60);

/// The state file's content: the head at the last sync.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct Head {
    pub run: String,
    pub seq: u64,
    pub hash: String,
    pub time: String,
}

/// The state file's head, if there is a readable one.
pub(super) fn read_state(dir: &Path) -> Option<Head> {
    let f = open_read(&dir.join(STATE_FILE)).ok()??;
    serde_json::from_reader(std::io::BufReader::new(f)).ok()
}

/// Replaces the state file (a new file renamed over the old: a crash leaves one or the other).
fn write_state(dir: &Path, head: &Head) -> Result<(), AuditError> {
    use std::io::Write as _;
    let tmp = dir.join(format!("{STATE_FILE}.tmp"));
    let _ = std::fs::remove_file(&tmp);
    let mut f = open_append(&tmp)?;
    let body = serde_json::to_vec(head).map_err(|e| io(&tmp, std::io::Error::other(e)))?;
    f.write_all(&body).map_err(|e| io(&tmp, e))?;
    f.sync_data().map_err(|e| io(&tmp, e))?;
    let to = dir.join(STATE_FILE);
    std::fs::rename(&tmp, &to).map_err(|e| io(&to, e))
}

/// The trail's state as the person sees it (Status, History): where it is anchored, when it
/// last was, the last failure to, how the sequence resumed, and the last verify. Times are
/// milliseconds since the Unix epoch.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct TrailState {
    /// `audit.anchor` as resolved (`unix:/dev/log`, `tcp:HOST:PORT`); `None`: not anchored.
    pub target: Option<String>,
    /// When the head was last anchored, and its seq.
    pub last_anchor_ms: Option<u64>,
    pub last_anchor_seq: Option<u64>,
    /// The last failure to anchor (sink unreachable, …), cleared by the next anchor sent.
    pub failure: Option<String>,
    pub failure_ms: Option<u64>,
    /// Where sequence numbers continued from at start ([`super::LoadReport::resumed`]).
    pub resumed: String,
    /// The last verify of the trail: when, whether it held, and what it said.
    pub verified_ms: Option<u64>,
    pub verified_ok: Option<bool>,
    pub verified: String,
    /// Destructive, denied and refused records no longer held in memory (still on disk).
    pub kept_out_of_memory: usize,
}

/// Now, in milliseconds since the Unix epoch.
pub fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

impl TrailState {
    /// Status's lines about the trail, ages counted to `now_ms`: one line when all is well
    /// (each `bool` says whether the line is good news).
    pub fn lines(&self, now_ms: u64) -> Vec<(bool, String)> {
        let ago = |t: u64| {
            let s = now_ms.saturating_sub(t) / 1000;
            match s {
                0..=59 => format!("{s} s ago"),
                60..=3599 => format!("{} min ago", s / 60),
                _ => format!("{} h ago", s / 3600),
            }
        };
        let verified = match (self.verified_ok, self.verified_ms) {
            (Some(true), Some(at)) => format!(" · verified {}", ago(at)),
            _ => String::new(),
        };
        let mut out = vec![match (&self.target, self.last_anchor_ms) {
            (None, _) => (
                false,
                format!("not anchored (audit.anchor): a rewrite cannot be proven{verified}"),
            ),
            (Some(t), Some(at)) => (
                true,
                format!(
                    "anchored to {t} · {} (seq {}){verified}",
                    ago(at),
                    self.last_anchor_seq.unwrap_or(0)
                ),
            ),
            (Some(t), None) => (
                false,
                format!("anchored to {t} · nothing delivered yet{verified}"),
            ),
        }];
        if let (Some(f), Some(at)) = (&self.failure, self.failure_ms) {
            out.push((false, format!("anchoring failed {}: {f}", ago(at))));
        }
        if let (Some(false), Some(at)) = (self.verified_ok, self.verified_ms) {
            out.push((false, format!("verify {}: {}", ago(at), self.verified)));
        }
        if self.resumed.contains("missing") {
            out.push((false, self.resumed.clone()));
        }
        if self.kept_out_of_memory > 0 {
            out.push((
                true,
                format!(
                    "{} older destructive, denied and refused records are on disk only (History holds the newest 10000)",
                    self.kept_out_of_memory
                ),
            ));
        }
        out
    }
}

pub(super) type SharedState = Arc<Mutex<TrailState>>;

pub(super) fn lock(s: &SharedState) -> std::sync::MutexGuard<'_, TrailState> {
    s.lock().unwrap_or_else(|p| p.into_inner())
}

/// Lives on the writer thread.
pub(super) struct Anchoring {
    pub dir: PathBuf,
    pub trail: String,
    pub run: String,
    pub sink: Option<Sink>,
    /// The last record written (0 and the genesis hash for an empty trail).
    pub seq: u64,
    pub hash: String,
    anchored: Option<u64>,
    /// The seq the state file holds, as far as this run wrote it.
    stated: Option<u64>,
    last_at: Instant,
    warned_at: Option<Instant>,
    /// The trail's total cap in bytes, stated in start and cap anchors.
    pub cap: u64,
    pub shared: SharedState,
}

impl Anchoring {
    pub fn new(
        dir: PathBuf,
        sink: Option<Sink>,
        seq: u64,
        hash: String,
        cap: u64,
        shared: SharedState,
    ) -> Anchoring {
        Anchoring {
            cap,
            shared,
            trail: super::anchor::trail_id(&dir),
            dir,
            run: uuid::Uuid::new_v4().simple().to_string(),
            sink,
            seq,
            hash,
            anchored: None,
            stated: None,
            last_at: Instant::now(),
            warned_at: None,
        }
    }

    pub fn wrote(&mut self, seq: u64, hash: &str) {
        self.seq = seq;
        self.hash.clear();
        self.hash.push_str(hash);
    }

    /// Anchors the head now. Call only once what it names is synced to disk.
    pub fn anchor(&mut self, reason: Reason) {
        let cap = (reason == Reason::Start).then_some(self.cap);
        self.anchor_with(reason, cap, None, None);
    }

    /// A destructive, denied or refused record, once synced: its outcome goes with it.
    pub fn anchor_record(&mut self, outcome: &str) {
        self.anchor_with(Reason::Record, None, None, Some(outcome.to_string()));
    }

    /// A deletion at the size cap left `first` the trail's oldest seq.
    pub fn anchor_cap(&mut self, first: Option<u64>) {
        self.anchor_with(Reason::Cap, Some(self.cap), first, None);
    }

    /// The kept file's own cap dropped refused records below seq `first`.
    pub fn anchor_kept_cap(&mut self, first: Option<u64>) {
        self.anchor_with(
            Reason::KeptCap,
            Some(super::anchor::kept_cap(self.cap)),
            first,
            None,
        );
    }

    fn anchor_with(
        &mut self,
        reason: Reason,
        cap: Option<u64>,
        first: Option<u64>,
        outcome: Option<String>,
    ) {
        let a = Anchor {
            trail: self.trail.clone(),
            run: self.run.clone(),
            seq: self.seq,
            hash: self.hash.clone(),
            time: now_rfc3339(),
            reason,
            cap,
            first,
            outcome,
        };
        self.last_at = Instant::now();
        if reason != Reason::Tick || self.stated != Some(self.seq) {
            self.state(&a.time);
        }
        if let Some(sink) = self.sink.as_mut() {
            match sink.send(&a) {
                Ok(()) => {
                    self.anchored = Some(self.seq);
                    let mut s = lock(&self.shared);
                    s.last_anchor_ms = Some(now_ms());
                    s.last_anchor_seq = Some(self.seq);
                    s.failure = None;
                    s.failure_ms = None;
                }
                // The head stays unanchored: the next tick tries again.
                Err(e) => {
                    let mut s = lock(&self.shared);
                    s.failure = Some(e.clone());
                    s.failure_ms = Some(now_ms());
                    drop(s);
                    self.warn(&format!("audit anchor not sent: {e}"));
                }
            }
        } else {
            self.anchored = Some(self.seq);
        }
    }

    fn state(&mut self, time: &str) {
        let head = Head {
            run: self.run.clone(),
            seq: self.seq,
            hash: self.hash.clone(),
            time: time.to_string(),
        };
        match write_state(&self.dir, &head) {
            Ok(()) => self.stated = Some(self.seq),
            Err(e) => self.warn(&format!("audit state file not updated: {e}")),
        }
    }

    fn warn(&mut self, what: &str) {
        if self.warned_at.is_none_or(|t| t.elapsed() >= WARN_EVERY) {
            self.warned_at = Some(Instant::now());
            tracing::warn!(seq = self.seq, "{what}");
        }
    }

    /// How long until the head is due to be anchored; `None` when it already is.
    pub fn due_in(&self) -> Option<Duration> {
        (self.anchored != Some(self.seq))
            .then(|| ANCHOR_EVERY.saturating_sub(self.last_at.elapsed()))
    }

    /// After a sync: the state file follows the head, and the head is anchored if it has
    /// waited long enough.
    pub fn synced(&mut self) {
        if self.due_in() == Some(Duration::ZERO) {
            self.anchor(Reason::Tick);
        } else if self.stated != Some(self.seq) {
            self.state(&now_rfc3339());
        }
    }
}
