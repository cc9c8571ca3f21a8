//! The background writer: the only code that touches the audit file after it is opened.
//!
//! Callers hand records over a channel and return at once; this thread serialises them,
//! writes them in `seq` order (handed to the kernel as soon as the queue is drained, so a
//! killed process loses none it has answered), syncs to disk shortly after a burst ends (and at least every
//! second while records keep coming), rotates the live file when it reaches its size
//! (`audit.jsonl` becomes the next `audit.N.jsonl`), deletes the oldest rotated file only while
//! the trail is over its total cap, and answers flush requests once everything before them is
//! on disk. No record is ever dropped to make room for another. It exits when the last
//! [`super::Audit`] handle is dropped, after a final sync.
//!
//! It also anchors the chain's head outside the file ([`super::head`]): at start and stop,
//! after each destructive, denied or refused record (synced first), each rotation and cap
//! deletion, and every few seconds while records flow.
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, TryRecvError};
use std::time::{Duration, Instant};

use super::AuditRecord;
use super::anchor::Reason;
use super::file::{io, open_append, rotated_files};
use super::head::Anchoring;
use super::{AuditError, Limits};

const IDLE_SYNC: Duration = Duration::from_millis(200);
const MAX_UNSYNCED: Duration = Duration::from_secs(1);

pub(super) enum Msg {
    Record(Arc<AuditRecord>),
    Flush(FlushReply),
    /// The server is stopping: a flush, then the stop anchor.
    Close(FlushReply),
}

pub(super) enum FlushReply {
    Async(tokio::sync::oneshot::Sender<Result<(), String>>),
    Blocking(std::sync::mpsc::SyncSender<Result<(), String>>),
}

impl FlushReply {
    fn send(self, r: Result<(), String>) {
        // The asker may have given up waiting; nothing to do then.
        match self {
            FlushReply::Async(tx) => {
                let _ = tx.send(r);
            }
            FlushReply::Blocking(tx) => {
                let _ = tx.send(r);
            }
        }
    }
}

pub(super) struct Writer {
    pub path: PathBuf,
    pub limits: Limits,
    /// Bytes in the live file, and in the whole trail (shared with [`super::Audit::usage`]).
    pub live_bytes: u64,
    pub total_bytes: Arc<AtomicU64>,
    pub file: File,
    /// The hash of the last line written ([`super::chain`]).
    pub prev: String,
    pub anchoring: Anchoring,
    /// What the size cap deleted while the trail was opened.
    pub deleted_at_open: Capped,
}

/// A record as written: its fields, then `prev`, the hash of the line before it.
#[derive(serde::Serialize)]
struct Line<'a> {
    #[serde(flatten)]
    rec: &'a AuditRecord,
    prev: &'a str,
}

impl Writer {
    pub(super) fn run(self, rx: Receiver<Msg>) {
        let Writer {
            path,
            limits,
            mut live_bytes,
            total_bytes,
            file,
            mut prev,
            mut anchoring,
            deleted_at_open,
        } = self;
        anchoring.anchor(Reason::Start);
        if deleted_at_open.deleted > 0 {
            anchoring.anchor_cap(deleted_at_open.first_left);
        }
        if deleted_at_open.kept_trimmed.is_some() {
            anchoring.anchor_kept_cap(deleted_at_open.kept_trimmed);
        }
        let mut w = BufWriter::new(file);
        let mut dirty = false;
        let mut first_unsynced = Instant::now();
        // The first failure since the last flush, reported to the next flush.
        let mut failure: Option<String> = None;
        let fail = |failure: &mut Option<String>, what: &str, e: &dyn std::fmt::Display| {
            tracing::error!(path = %path.display(), "audit {what} failed: {e}");
            failure.get_or_insert_with(|| format!("audit {what} failed: {e}"));
        };
        let sync = |w: &mut BufWriter<File>| -> std::io::Result<()> {
            w.flush()?;
            w.get_ref().sync_data()
        };
        loop {
            let msg = if dirty {
                match rx.try_recv() {
                    Ok(m) => Some(m),
                    Err(TryRecvError::Disconnected) => break,
                    Err(TryRecvError::Empty) => {
                        // Nothing queued: hand what is buffered to the kernel now, so a killed
                        // process loses nothing it has answered; the sync to disk follows on
                        // the idle timer. Under a flood this batches, one write per drain.
                        if !w.buffer().is_empty()
                            && let Err(e) = w.flush()
                        {
                            fail(&mut failure, "write", &e);
                        }
                        match rx.recv_timeout(IDLE_SYNC) {
                            Ok(m) => Some(m),
                            Err(RecvTimeoutError::Timeout) => None,
                            Err(RecvTimeoutError::Disconnected) => break,
                        }
                    }
                }
            } else if let Some(wait) = anchoring.due_in() {
                match rx.recv_timeout(wait) {
                    Ok(m) => Some(m),
                    Err(RecvTimeoutError::Timeout) => None,
                    Err(RecvTimeoutError::Disconnected) => break,
                }
            } else {
                match rx.recv() {
                    Ok(m) => Some(m),
                    Err(_) => break,
                }
            };
            match msg {
                Some(Msg::Record(rec)) => {
                    let line = Line {
                        rec: &rec,
                        prev: &prev,
                    };
                    let mut line = match serde_json::to_vec(&line) {
                        Ok(l) => l,
                        Err(e) => {
                            fail(&mut failure, "serialisation", &e);
                            continue;
                        }
                    };
                    let hash = super::chain::line_hash(&line);
                    line.push(b'\n');
                    if let Err(e) = w.write_all(&line) {
                        fail(&mut failure, "write", &e);
                        continue;
                    }
                    anchoring.wrote(rec.seq, &hash);
                    prev = hash;
                    if !dirty {
                        first_unsynced = Instant::now();
                    }
                    dirty = true;
                    live_bytes += line.len() as u64;
                    total_bytes.fetch_add(line.len() as u64, Ordering::Relaxed);
                    if rec.must_keep() {
                        // Anchored only once on disk: an anchored record lost to a crash would
                        // look like tampering.
                        match sync(&mut w) {
                            Ok(()) => {
                                dirty = false;
                                anchoring.anchor_record(rec.outcome.label());
                            }
                            Err(e) => fail(&mut failure, "sync", &e),
                        }
                    }
                    if live_bytes >= limits.rotate_bytes {
                        // Anchors name only what is on disk: a failed sync anchors nothing.
                        let synced = match sync(&mut w) {
                            Ok(()) => true,
                            Err(e) => {
                                fail(&mut failure, "sync", &e);
                                false
                            }
                        };
                        dirty = false;
                        match rotate(&path).and_then(|()| open_append(&path)) {
                            Ok(f) => {
                                w = BufWriter::new(f);
                                live_bytes = 0;
                                if synced {
                                    anchoring.anchor(Reason::Rotate);
                                }
                            }
                            Err(e) => fail(&mut failure, "rotation", &e),
                        }
                        match enforce_cap(&path, limits.max_total_bytes, Some(rec.seq + 1)) {
                            Ok(c) => {
                                total_bytes.store(c.total, Ordering::Relaxed);
                                if c.deleted > 0 {
                                    anchoring.anchor_cap(c.first_left);
                                }
                                if c.kept_trimmed.is_some() {
                                    anchoring.anchor_kept_cap(c.kept_trimmed);
                                }
                            }
                            Err(e) => fail(&mut failure, "cap", &e),
                        }
                    } else if dirty && first_unsynced.elapsed() >= MAX_UNSYNCED {
                        match sync(&mut w) {
                            Ok(()) => anchoring.synced(),
                            Err(e) => fail(&mut failure, "sync", &e),
                        }
                        dirty = false;
                    }
                }
                Some(Msg::Close(reply)) => {
                    match sync(&mut w) {
                        Ok(()) => anchoring.anchor(Reason::Stop),
                        Err(e) => fail(&mut failure, "sync", &e),
                    }
                    dirty = false;
                    reply.send(failure.take().map_or(Ok(()), Err));
                }
                Some(Msg::Flush(reply)) => {
                    match sync(&mut w) {
                        Ok(()) => anchoring.synced(),
                        Err(e) => fail(&mut failure, "sync", &e),
                    }
                    dirty = false;
                    reply.send(failure.take().map_or(Ok(()), Err));
                }
                None => {
                    match sync(&mut w) {
                        Ok(()) => anchoring.synced(),
                        Err(e) => fail(&mut failure, "sync", &e),
                    }
                    dirty = false;
                }
            }
        }
        // The process may end before this thread does: [`super::Audit::close`] is the stop
        // anchor that counts; this one covers records that came after it, or no close at all.
        match sync(&mut w) {
            Ok(()) if anchoring.due_in().is_some() => anchoring.anchor(Reason::Stop),
            Ok(()) => {}
            Err(e) => fail(&mut failure, "final sync", &e),
        }
    }
}

/// `audit.jsonl` becomes `audit.N.jsonl`, N one past the newest rotated file; one rename, so a
/// crash leaves either name. The directory is synced so the rename itself is durable.
fn rotate(live: &Path) -> Result<(), AuditError> {
    let dir = live.parent().unwrap_or(Path::new("."));
    let next = rotated_files(dir)?.last().map_or(1, |(n, _)| n + 1);
    let to = dir.join(format!("audit.{next}.jsonl"));
    std::fs::rename(live, &to).map_err(|e| io(live, e))?;
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// What [`enforce_cap`] did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(super) struct Capped {
    /// The trail's total size afterwards.
    pub total: u64,
    /// Rotated files deleted.
    pub deleted: usize,
    /// The oldest seq left in the trail's files, after a deletion.
    pub first_left: Option<u64>,
    /// The kept file went over its own cap ([`super::anchor::kept_cap`]): its oldest lines
    /// were dropped; this is its oldest seq left.
    pub kept_trimmed: Option<u64>,
}

/// Deletes the oldest rotated files while the trail is over `max_total`; the live file is
/// never deleted, and a deleted file's destructive, denied and refused records are first
/// appended to [`super::file::KEPT_FILE`] as they were (which has a cap of its own, a quarter
/// of the trail's: over it, its oldest lines go until it is at three quarters of it).
pub(super) fn enforce_cap(
    live: &Path,
    max_total: u64,
    next_seq: Option<u64>,
) -> Result<Capped, AuditError> {
    let dir = live.parent().unwrap_or(Path::new("."));
    let size = |p: &Path| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0);
    let rotated = rotated_files(dir)?;
    let mut total: u64 = size(live) + rotated.iter().map(|(_, p)| size(p)).sum::<u64>();
    let mut out = Capped::default();
    let kept_path = dir.join(super::file::KEPT_FILE);
    for (_, p) in &rotated {
        if total <= max_total {
            break;
        }
        let n = size(p);
        let kept = super::file::kept_lines(p)?;
        if !kept.is_empty() {
            let mut f = open_append(&kept_path)?;
            for line in &kept {
                f.write_all(line).map_err(|e| io(&kept_path, e))?;
                f.write_all(b"\n").map_err(|e| io(&kept_path, e))?;
            }
            f.sync_all().map_err(|e| io(&kept_path, e))?;
        }
        tracing::warn!(file = %p.display(), bytes = n, kept = kept.len(), "audit trail over its total cap: oldest file deleted, its destructive, denied and refused records kept");
        std::fs::remove_file(p).map_err(|e| io(p, e))?;
        total = total.saturating_sub(n);
        out.deleted += 1;
    }
    out.total = total;
    if out.deleted > 0 {
        let files = super::chain::trail_files(dir)?;
        // Nothing older left at all: the next record will be the oldest.
        out.first_left = files
            .iter()
            .find_map(|p| super::file::first_seq(p).ok().flatten())
            .or(next_seq);
        out.kept_trimmed = super::file::trim_kept(&kept_path, super::anchor::kept_cap(max_total))?;
    }
    Ok(out)
}
