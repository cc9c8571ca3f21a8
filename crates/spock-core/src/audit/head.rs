//! The chain's head as the writer thread knows it, and where it goes: the anchor sink
//! ([`super::anchor`]) and the local state file `audit.state.json` beside the trail, which
//! follows the head at every sync so sequence numbers never go back across restarts, even
//! when the newest records are gone (deleted, or the live file emptied just after a rotation).
//!
//! The state file is the writer's user's to change like the trail itself: it keeps an honest
//! server honest after records vanish, and proves nothing on its own; anchors do that.
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

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
}

impl Anchoring {
    pub fn new(dir: PathBuf, sink: Option<Sink>, seq: u64, hash: String) -> Anchoring {
        Anchoring {
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
        let a = Anchor {
            trail: self.trail.clone(),
            run: self.run.clone(),
            seq: self.seq,
            hash: self.hash.clone(),
            time: now_rfc3339(),
            reason,
        };
        self.anchored = Some(self.seq);
        self.last_at = Instant::now();
        self.state(&a.time);
        if let Some(sink) = self.sink.as_mut()
            && let Err(e) = sink.send(&a)
        {
            self.warn(&format!("audit anchor not sent: {e}"));
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
