//! The background writer: the only code that touches the audit file after it is opened.
//!
//! Callers hand records over a channel and return at once; this thread serialises them,
//! writes them in `seq` order, syncs to disk shortly after a burst ends (and at least every
//! second while records keep coming), compacts when the file passes twice the cap, and
//! answers flush requests once everything before them is on disk. It exits when the last
//! [`super::Audit`] handle is dropped, after a final sync.
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use super::AuditRecord;
use super::file::{compact, open_append};

const IDLE_SYNC: Duration = Duration::from_millis(200);
const MAX_UNSYNCED: Duration = Duration::from_secs(1);

pub(super) enum Msg {
    Record(Arc<AuditRecord>),
    Flush(FlushReply),
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
    pub cap: usize,
    pub lines: usize,
    pub file: File,
    /// The hash of the last line written ([`super::chain`]).
    pub prev: String,
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
            cap,
            mut lines,
            file,
            mut prev,
        } = self;
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
        if lines > 2 * cap {
            match compact(&path, cap) {
                Ok(kept) => lines = kept,
                Err(e) => fail(&mut failure, "compaction", &e),
            }
        }
        loop {
            let msg = if dirty {
                match rx.recv_timeout(IDLE_SYNC) {
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
                    prev = hash;
                    if !dirty {
                        first_unsynced = Instant::now();
                    }
                    dirty = true;
                    lines += 1;
                    if lines > 2 * cap {
                        if let Err(e) = sync(&mut w) {
                            fail(&mut failure, "sync", &e);
                        }
                        dirty = false;
                        match compact(&path, cap).and_then(|kept| Ok((kept, open_append(&path)?))) {
                            Ok((kept, f)) => {
                                lines = kept;
                                w = BufWriter::new(f);
                            }
                            Err(e) => fail(&mut failure, "compaction", &e),
                        }
                    } else if first_unsynced.elapsed() >= MAX_UNSYNCED {
                        if let Err(e) = sync(&mut w) {
                            fail(&mut failure, "sync", &e);
                        }
                        dirty = false;
                    }
                }
                Some(Msg::Flush(reply)) => {
                    if let Err(e) = sync(&mut w) {
                        fail(&mut failure, "sync", &e);
                    }
                    dirty = false;
                    reply.send(failure.take().map_or(Ok(()), Err));
                }
                None => {
                    if let Err(e) = sync(&mut w) {
                        fail(&mut failure, "sync", &e);
                    }
                    dirty = false;
                }
            }
        }
        if let Err(e) = sync(&mut w) {
            fail(&mut failure, "final sync", &e);
        }
    }
}
