//! The audit trail: every tool call, kept in memory for the UI and on disk as JSON lines so
//! "what did the agent do to my device" survives a restart.
//!
//! Vocabulary: a *record* is always an audit record ([`AuditRecord`], one line of the trail;
//! `CallFinished::record` and History's `audit_seq` are its `seq`). A batch *recording* turns
//! calls into a task's steps (`batch::recorder`); a batch run keeps a *run log*
//! (`batch::runlog`); History holds *entries* (`tui::history::CallEntry`); a *screen recording*
//! is an MP4 (`mcp::tools::screenrecord`).
//!
//! One [`Audit`] value (cheap to clone) is shared by the MCP server, batch runner and TUI.
//! [`Audit::append`] never waits on the disk: it assigns the sequence number, keeps the
//! record in a bounded in-memory window, tells subscribers, and hands it to a background
//! writer thread ([`writer`]), which syncs regularly and rotates the live file into numbered
//! files (`audit.1.jsonl`, `audit.2.jsonl`, … oldest first) under a total cap ([`Limits`]):
//! no record is dropped to make room; only the oldest rotated file goes, when the trail is over
//! the cap. Destructive, denied and refused records are kept in an index so History can always
//! show them. The live file is `audit.jsonl` (mode 0600) in a 0700 directory; a destructive,
//! denied or refused call's record is synced before its answer ([`Audit::append_answered`]),
//! any other within the writer's window; a crash costs at most a torn last line ([`file`]).
//! Each record carries the hash of the one before it ([`chain`], `spock-tui audit verify`). Destructive calls are
//! also logged with `tracing::warn!`, so they reach the log file too.
//!
//! Call [`Audit::close`] (or at least [`Audit::flush`]) before the process exits: records still
//! queued when it ends are lost, and so is the stop anchor.
use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, mpsc};

use tokio::sync::broadcast;

pub mod acts;
pub mod anchor;
mod chain;
mod file;
mod head;
mod record;
mod writer;

pub use chain::{Break, GENESIS, Verified, line_hash, trail_files, verify, verify_anchored};
pub use file::{KEPT_FILE, LoadReport, Source};
pub use head::{TrailState, now_ms};
pub use record::{
    AuditRecord, DecidedBy, Decision, Level, MAX_INLINE_BASE64, Outcome, Transport, now_rfc3339,
    scrub_binary,
};
use writer::{FlushReply, Msg, Writer};

const SUBSCRIBER_BACKLOG: usize = 1024;
/// Records kept in memory; older ones are read back from the file when asked for.
const MEMORY_WINDOW: usize = 1000;
/// Destructive, denied and refused records held in memory for History; older ones stay on
/// disk (counted in [`TrailState::kept_out_of_memory`]).
const MEMORY_KEPT: usize = 10_000;

/// How large the trail may grow on disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The live file is rotated when it reaches this size.
    pub rotate_bytes: u64,
    /// The oldest rotated file is deleted only while the whole trail is over this.
    pub max_total_bytes: u64,
}

impl Limits {
    /// A total cap of `mb` MiB (`audit.max_total_mb`); files rotate at an eighth of it, at
    /// most 64 MiB.
    pub fn total_mb(mb: u64) -> Limits {
        let max_total_bytes = mb.max(1) * 1024 * 1024;
        Limits {
            rotate_bytes: (max_total_bytes / 8).clamp(64 * 1024, 64 * 1024 * 1024),
            max_total_bytes,
        }
    }
}

impl Default for Limits {
    fn default() -> Limits {
        Limits::total_mb(1024)
    }
}

/// How full the trail is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Usage {
    pub bytes: u64,
    pub max_bytes: u64,
}

impl Usage {
    /// A warning once the trail holds 90% of its cap or more.
    pub fn warning(&self) -> Option<String> {
        (self.bytes.saturating_mul(10) >= self.max_bytes.saturating_mul(9)).then(|| {
            format!(
                "the audit trail is at {}% of its {} MiB cap: the oldest rotated file will be deleted to make room (raise audit.max_total_mb in config.toml to keep more)",
                self.bytes.saturating_mul(100) / self.max_bytes.max(1),
                self.max_bytes / (1024 * 1024)
            )
        })
    }
}

#[derive(Debug, thiserror::Error)]
pub enum AuditError {
    #[error("audit file {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("the audit writer failed: {0}")]
    Writer(String),
    #[error("the audit writer has stopped")]
    WriterGone,
    #[error("could not start the audit writer: {0}")]
    Spawn(std::io::Error),
}

#[derive(Clone)]
pub struct Audit {
    inner: Arc<Inner>,
}

struct Inner {
    state: Mutex<State>,
    report: LoadReport,
    path: PathBuf,
    limits: Limits,
    total_bytes: Arc<AtomicU64>,
    trail: head::SharedState,
}

struct State {
    next_seq: u64,
    cap: usize,
    recent: VecDeque<Arc<AuditRecord>>,
    /// The trail's destructive, denied and refused records, oldest first: the newest
    /// `kept_max` of them (the others are on disk only).
    kept: Vec<Arc<AuditRecord>>,
    kept_max: usize,
    tx: mpsc::Sender<Msg>,
    events: broadcast::Sender<Arc<AuditRecord>>,
}

impl Audit {
    /// Opens (or creates) `dir/audit.jsonl`, reads back what is there, keeps the most recent
    /// `cap` records in memory, and starts the writer thread.
    pub fn open(dir: &Path, cap: usize) -> Result<Audit, AuditError> {
        Audit::open_with(dir, cap, Limits::default())
    }

    /// [`Audit::open`] with the trail's size limits.
    pub fn open_with(dir: &Path, cap: usize, limits: Limits) -> Result<Audit, AuditError> {
        Audit::open_anchored(dir, cap, limits, anchor::Target::Off, None)
    }

    /// [`Audit::open_with`], anchoring the chain's head to `target` ([`anchor`]). `source` is
    /// a log the anchors can be read back from (`audit.anchor_source`): when readable, the
    /// trail continues after the last anchored seq if the files end before it.
    pub fn open_anchored(
        dir: &Path,
        cap: usize,
        limits: Limits,
        target: anchor::Target,
        source: Option<&Path>,
    ) -> Result<Audit, AuditError> {
        let cap = cap.max(1);
        file::prepare_dir(dir)?;
        let path = dir.join(file::FILE_NAME);
        let mut loaded = file::load(&path, cap.min(MEMORY_WINDOW))?;
        if loaded.report.skipped_corrupt > 0 || loaded.report.torn_tail {
            tracing::warn!(
                path = %path.display(),
                corrupt = loaded.report.skipped_corrupt,
                torn = loaded.report.torn_tail,
                "audit file had damaged lines; they were skipped"
            );
        }
        let (prev, file_seq) = match loaded.last_hash.clone() {
            Some(h) => (h, loaded.next_seq - 1),
            None => match file::rotated_files(dir)?.pop() {
                Some((_, newest)) => {
                    file::last_line(&newest)?.unwrap_or_else(|| (GENESIS.to_string(), 0))
                }
                None => (GENESIS.to_string(), 0),
            },
        };
        // Sequence numbers never go back: not after the live file was emptied by a rotation,
        // nor after the newest records were deleted.
        let file_seq = file_seq.max(loaded.next_seq - 1);
        loaded.report.file_seq = file_seq;
        loaded.report.state_seq = head::read_state(dir).map(|h| h.seq);
        if let Some(src) = source {
            let trail = anchor::trail_id(dir);
            loaded.report.source = match anchor::read_file(src) {
                Ok(all) => {
                    Source::Read(all.iter().filter(|a| a.trail == trail).map(|a| a.seq).max())
                }
                Err(e) => {
                    tracing::warn!(source = %src.display(), "audit: the anchor log is unreadable: {e}");
                    Source::Unreadable
                }
            };
        }
        loaded.next_seq = loaded.report.continue_after() + 1;
        if loaded.next_seq > file_seq + 1 {
            tracing::warn!(path = %path.display(), "audit: {}", loaded.report.resumed());
        } else {
            tracing::info!(path = %path.display(), "audit: {}", loaded.report.resumed());
        }
        // Oldest first: those kept from files the cap deleted, then the rotated files'.
        let mut kept = file::kept_records(&dir.join(file::KEPT_FILE))?;
        for (_, p) in file::rotated_files(dir)? {
            kept.extend(file::kept_records(&p)?);
        }
        kept.extend(loaded.kept);
        let handle = file::open_append(&path)?;
        let deleted_at_open =
            writer::enforce_cap(&path, limits.max_total_bytes, Some(loaded.next_seq))?;
        let total_bytes = Arc::new(AtomicU64::new(deleted_at_open.total));
        let kept_out_of_memory = kept.len().saturating_sub(MEMORY_KEPT);
        kept.drain(..kept_out_of_memory);
        let trail = Arc::new(Mutex::new(TrailState {
            target: (target != anchor::Target::Off).then(|| target.to_string()),
            resumed: loaded.report.resumed(),
            kept_out_of_memory,
            ..TrailState::default()
        }));
        let (tx, rx) = mpsc::channel();
        let w = Writer {
            path: path.clone(),
            limits,
            live_bytes: handle.metadata().map(|m| m.len()).unwrap_or(0),
            total_bytes: total_bytes.clone(),
            file: handle,
            anchoring: head::Anchoring::new(
                dir.to_path_buf(),
                anchor::Sink::new(target),
                file_seq,
                prev.clone(),
                limits.max_total_bytes,
                trail.clone(),
            ),
            prev,
            deleted_at_open,
        };
        std::thread::Builder::new()
            .name("audit-writer".into())
            .spawn(move || w.run(rx))
            .map_err(AuditError::Spawn)?;
        let (events, _) = broadcast::channel(SUBSCRIBER_BACKLOG);
        let state = State {
            next_seq: loaded.next_seq,
            cap,
            recent: {
                let mut r = loaded.recent;
                while r.len() > MEMORY_WINDOW {
                    r.pop_front();
                }
                r
            },
            kept,
            kept_max: MEMORY_KEPT,
            tx,
            events,
        };
        Ok(Audit {
            inner: Arc::new(Inner {
                state: Mutex::new(state),
                report: loaded.report,
                path,
                limits,
                total_bytes,
                trail,
            }),
        })
    }

    fn state(&self) -> MutexGuard<'_, State> {
        // A panic while holding this lock cannot leave the state half-updated in a way that
        // matters more than losing the audit trail, so a poisoned lock is used as is.
        self.inner.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Records a call and returns its sequence number. Never blocks on I/O: binary content
    /// is replaced by a digest here, serialising and writing happen on the writer thread.
    pub fn append(&self, mut record: AuditRecord) -> u64 {
        if let Some(r) = record.result.as_mut() {
            scrub_binary(r);
        }
        scrub_binary(&mut record.arguments);
        record::cap_strings(&mut record.arguments);
        if record.level == Level::Destructive {
            tracing::warn!(
                tool = %record.tool,
                device = record.device.as_deref().unwrap_or("-"),
                outcome = ?record.outcome,
                decision = ?record.decision,
                client = %record.client,
                arguments = %record.arguments,
                "destructive tool call"
            );
        }
        let mut st = self.state();
        let seq = st.next_seq;
        st.next_seq += 1;
        record.seq = seq;
        let rec = Arc::new(record);
        if rec.must_keep() {
            st.kept.push(rec.clone());
            if st.kept.len() > st.kept_max {
                let over = st.kept.len() - st.kept_max;
                st.kept.drain(..over);
                head::lock(&self.inner.trail).kept_out_of_memory += over;
            }
        }
        st.recent.push_back(rec.clone());
        while st.recent.len() > st.cap.min(MEMORY_WINDOW) {
            st.recent.pop_front();
        }
        if st.tx.send(Msg::Record(rec.clone())).is_err() {
            tracing::error!(seq, "audit writer has stopped; record kept in memory only");
        }
        // No subscribers is normal (headless); lagging ones see `Lagged` and resync.
        let _ = st.events.send(rec);
        seq
    }

    /// [`Audit::append`] for a call about to be answered: a destructive, denied or refused
    /// call's record is written and synced (fdatasync) before this returns, so a crash right
    /// after the answer cannot lose it; any other record follows the writer's short window.
    pub async fn append_answered(&self, record: AuditRecord) -> u64 {
        let keep = record.must_keep();
        let seq = self.append(record);
        if keep && let Err(e) = self.flush().await {
            tracing::error!(seq, "audit record not confirmed on disk: {e}");
        }
        seq
    }

    /// The last `n` records, oldest first. Beyond the in-memory window they are read back from
    /// the trail's files (a blocking read: call it off the async runtime).
    pub fn recent(&self, n: usize) -> Vec<Arc<AuditRecord>> {
        let st = self.state();
        let skip = st.recent.len().saturating_sub(n);
        let mem: Vec<Arc<AuditRecord>> = st.recent.iter().skip(skip).cloned().collect();
        if mem.len() >= n || st.next_seq.saturating_sub(1) <= st.recent.len() as u64 {
            return mem;
        }
        drop(st);
        let _ = self.flush_blocking();
        let first_in_memory = mem.first().map_or(u64::MAX, |r| r.seq);
        let mut out: Vec<Arc<AuditRecord>> = Vec::new();
        let files = self.dir().map(trail_files).transpose().ok().flatten();
        let _ = file::visit_tail_many(&files.unwrap_or_default(), n, &mut |r| {
            if r.seq < first_in_memory {
                out.push(Arc::new(r));
            }
        });
        out.extend(mem);
        let skip = out.len().saturating_sub(n);
        out.split_off(skip)
    }

    fn dir(&self) -> Option<&Path> {
        self.inner.path.parent()
    }

    /// The last `n` records, oldest first, handed to `f` one at a time (read from the trail's
    /// files, then any newer ones still in memory), preceded by every older destructive, denied
    /// or refused record: those are never out of History's reach, however many others came
    /// after them. For a caller that keeps its own compact form of each. A blocking read: call
    /// it off the async runtime.
    pub fn visit_recent(&self, n: usize, mut f: impl FnMut(AuditRecord)) -> Result<(), AuditError> {
        let _ = self.flush_blocking();
        let kept: Vec<Arc<AuditRecord>> = self.state().kept.clone();
        let mut kept_done = false;
        let last_seq = std::cell::Cell::new(0);
        let mut emit = |r: AuditRecord, f: &mut dyn FnMut(AuditRecord)| {
            if !kept_done {
                kept_done = true;
                for k in kept.iter().filter(|k| k.seq < r.seq) {
                    f((**k).clone());
                }
            }
            last_seq.set(last_seq.get().max(r.seq));
            f(r);
        };
        let files = match self.dir() {
            Some(d) => trail_files(d)?,
            None => Vec::new(),
        };
        file::visit_tail_many(&files, n, &mut |r: AuditRecord| emit(r, &mut f))?;
        let newer: Vec<Arc<AuditRecord>> = self
            .state()
            .recent
            .iter()
            .filter(|r| r.seq > last_seq.get())
            .cloned()
            .collect();
        for r in newer {
            emit((*r).clone(), &mut f);
        }
        Ok(())
    }

    /// How full the trail is on disk, against its cap.
    pub fn usage(&self) -> Usage {
        Usage {
            bytes: self.inner.total_bytes.load(Ordering::Relaxed),
            max_bytes: self.inner.limits.max_total_bytes,
        }
    }

    /// Every record held in memory (at most `cap`), oldest first.
    pub fn snapshot(&self) -> Vec<Arc<AuditRecord>> {
        self.state().recent.iter().cloned().collect()
    }

    /// Records whose tool name, arguments, result or error contain `query`
    /// (case-insensitive), oldest first. An empty query matches everything.
    pub fn search(&self, query: &str) -> Vec<Arc<AuditRecord>> {
        let q = query.to_lowercase();
        let recs = self.snapshot();
        recs.into_iter()
            .filter(|r| {
                q.is_empty()
                    || r.tool.to_lowercase().contains(&q)
                    || r.arguments.to_string().to_lowercase().contains(&q)
                    || r.result
                        .as_ref()
                        .is_some_and(|v| v.to_string().to_lowercase().contains(&q))
                    || r.error
                        .as_ref()
                        .is_some_and(|e| e.to_lowercase().contains(&q))
            })
            .collect()
    }

    /// New records as they are appended. A subscriber more than 1024 records behind gets
    /// `RecvError::Lagged` and should re-read [`Audit::snapshot`].
    pub fn subscribe(&self) -> broadcast::Receiver<Arc<AuditRecord>> {
        self.state().events.subscribe()
    }

    /// Waits until everything appended so far is written and synced.
    pub async fn flush(&self) -> Result<(), AuditError> {
        let (tx, rx) = tokio::sync::oneshot::channel();
        self.request_flush(FlushReply::Async(tx))?;
        rx.await
            .map_err(|_| AuditError::WriterGone)?
            .map_err(AuditError::Writer)
    }

    /// [`Audit::flush`], then the stop anchor: call it as the server stops (the writer thread
    /// may not outlive the process long enough to send it on its own).
    pub async fn close(&self) -> Result<(), AuditError> {
        let (tx, rx) = tokio::sync::oneshot::channel();
        self.state()
            .tx
            .send(Msg::Close(FlushReply::Async(tx)))
            .map_err(|_| AuditError::WriterGone)?;
        rx.await
            .map_err(|_| AuditError::WriterGone)?
            .map_err(AuditError::Writer)
    }

    /// [`Audit::flush`] for code outside the async runtime (shutdown paths, tests).
    pub fn flush_blocking(&self) -> Result<(), AuditError> {
        let (tx, rx) = mpsc::sync_channel(1);
        self.request_flush(FlushReply::Blocking(tx))?;
        rx.recv()
            .map_err(|_| AuditError::WriterGone)?
            .map_err(AuditError::Writer)
    }

    fn request_flush(&self, reply: FlushReply) -> Result<(), AuditError> {
        self.state()
            .tx
            .send(Msg::Flush(reply))
            .map_err(|_| AuditError::WriterGone)
    }

    #[cfg(test)]
    fn set_kept_max(&self, n: usize) {
        self.state().kept_max = n;
    }

    /// The trail's state for Status and History: anchored where and when, the last verify.
    pub fn trail_state(&self) -> TrailState {
        head::lock(&self.inner.trail).clone()
    }

    /// Checks the chain (and, with `anchors`, the trail against them) and keeps the result
    /// for [`Audit::trail_state`]. A blocking read of the whole trail: call it off the async
    /// runtime.
    pub fn verify_now(&self, anchors: Option<&Path>) -> Result<String, String> {
        let _ = self.flush_blocking();
        let r = self
            .dir()
            .ok_or_else(|| "no audit directory".to_string())
            .and_then(|d| {
                let v = match anchors {
                    Some(src) => {
                        let read = anchor::read_file(src)
                            .map_err(|e| format!("anchor log {}: {e}", src.display()))?;
                        verify_anchored(d, &read)
                    }
                    None => verify(d),
                }
                .map_err(|e| e.to_string())?;
                summary(&v)
            });
        let mut t = head::lock(&self.inner.trail);
        t.verified_ms = Some(head::now_ms());
        t.verified_ok = Some(r.is_ok());
        t.verified = match &r {
            Ok(s) | Err(s) => s.clone(),
        };
        drop(t);
        r
    }

    /// What reading the file back at open found (damaged lines skipped, torn tail).
    pub fn load_report(&self) -> LoadReport {
        self.inner.report
    }

    pub fn path(&self) -> &Path {
        &self.inner.path
    }

    pub fn cap(&self) -> usize {
        self.state().cap
    }

    /// A new history size, applied at once: a lower one trims the records held in memory (and
    /// what [`Audit::snapshot`] and [`Audit::search`] see) now, not at the next start. Nothing
    /// is removed from disk.
    pub fn set_cap(&self, cap: usize) {
        let mut st = self.state();
        st.cap = cap.max(1);
        let keep = st.cap.min(MEMORY_WINDOW);
        while st.recent.len() > keep {
            st.recent.pop_front();
        }
    }
}

/// One line for Status: `Ok("intact …")` or `Err(what is wrong)`.
fn summary(v: &Verified) -> Result<String, String> {
    if let Some(b) = &v.broken {
        return Err(format!("broken: {b}"));
    }
    match &v.anchors {
        Some(r) if !r.tampered.is_empty() => Err(format!(
            "tampered: {}{}",
            r.tampered[0],
            if r.tampered.len() > 1 {
                format!(" (and {} more)", r.tampered.len() - 1)
            } else {
                String::new()
            }
        )),
        Some(r) => Ok(format!(
            "intact: {} records agree with {} anchors",
            v.records, r.anchors
        )),
        None => Ok(format!(
            "chain intact: {} records (no anchor log to check against)",
            v.records
        )),
    }
}

#[cfg(test)]
mod tests;
