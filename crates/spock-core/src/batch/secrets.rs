//! The typed-password store: the real text of calls whose record says «password», keyed by
//! the audit record's `seq` (call ids start again at 1 with every run of the program; a record's
//! seq never does), so a task made from History's marked calls (`b`) replays what was typed
//! instead of the placeholder.
//!
//! One 0600 JSON file in a 0700 directory of its own under the batch directory, written
//! atomically. No tool reads it and nothing returns or exports it; only the control centre's
//! history→task conversion takes values out, into the new task's private part. Bounded like
//! History: a value is kept only while its record is among the last `history.size` records
//! (older calls have left History's reach), and a value over [`MAX_VALUE`] bytes is not kept
//! at all (a step made from it says so and refuses to run).
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Mutex;

use super::BatchError;
use crate::config::paths::{private_dir, write_atomic};

/// The longest text kept; a longer one is no password a person typed.
pub const MAX_VALUE: usize = 4096;

const FILE: &str = "typed.json";

#[derive(Debug)]
pub struct TypedSecrets {
    dir: PathBuf,
    /// Read-modify-write of the one file is serialised.
    lock: Mutex<()>,
}

impl TypedSecrets {
    pub fn new(dir: PathBuf) -> TypedSecrets {
        TypedSecrets {
            dir,
            lock: Mutex::new(()),
        }
    }

    fn path(&self) -> PathBuf {
        self.dir.join(FILE)
    }

    fn load(&self) -> Result<BTreeMap<u64, String>, BatchError> {
        let path = self.path();
        match crate::config::private::read(&path) {
            Ok(bytes) => serde_json::from_slice(&bytes)
                .map_err(|e| BatchError::Io(format!("{} is unreadable: {e}", path.display()))),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(BTreeMap::new()),
            Err(e) => Err(BatchError::Io(format!("reading {}: {e}", path.display()))),
        }
    }

    /// Keeps `text` for record `seq`, dropping every value whose record is `window` or more
    /// records older (History no longer holds it). Records are numbered in order, so `seq`
    /// is the newest.
    pub fn keep(&self, seq: u64, text: &str, window: usize) -> Result<(), BatchError> {
        let _held = self.lock.lock().map_err(|_| poisoned())?;
        // An unreadable file is replaced: what it held is lost, never shown.
        let mut all = self.load().unwrap_or_default();
        let window = window.max(1) as u64;
        all.retain(|&k, _| k < seq && k + window > seq);
        if text.len() <= MAX_VALUE {
            all.insert(seq, text.to_string());
        }
        private_dir(&self.dir)
            .map_err(|e| BatchError::Io(format!("creating {}: {e}", self.dir.display())))?;
        let bytes = serde_json::to_vec(&all)
            .map_err(|e| BatchError::Io(format!("encoding typed values: {e}")))?;
        let path = self.path();
        write_atomic(&path, &bytes)
            .map_err(|e| BatchError::Io(format!("writing {}: {e}", path.display())))
    }

    /// The text typed by the call recorded as `seq`, while it is kept.
    pub fn get(&self, seq: u64) -> Option<String> {
        let _held = self.lock.lock().ok()?;
        self.load().ok()?.remove(&seq)
    }
}

fn poisoned() -> BatchError {
    BatchError::Io("the typed-password store's lock was poisoned".into())
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    #[test]
    fn kept_privately_by_record_and_pruned_with_the_history() {
        let tmp = tempfile::tempdir().unwrap();
        let s = TypedSecrets::new(tmp.path().join("history-private"));
        assert_eq!(s.get(1), None);
        s.keep(10, "hunter2", 100).unwrap();
        s.keep(50, "s3cret", 100).unwrap();
        assert_eq!(s.get(10).as_deref(), Some("hunter2"));
        let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&s.dir), 0o700);
        assert_eq!(mode(&s.path()), 0o600);
        // Record 10 is 100 records behind 110: History has let it go, and so does the store.
        s.keep(110, "third", 100).unwrap();
        assert_eq!(s.get(10), None);
        assert_eq!(s.get(50).as_deref(), Some("s3cret"));
        // A smaller history applies at the next value kept.
        s.keep(111, "fourth", 1).unwrap();
        assert_eq!((s.get(50), s.get(110)), (None, None));
        assert_eq!(s.get(111).as_deref(), Some("fourth"));
        // A value too long to be a password is not kept at all.
        s.keep(112, &"x".repeat(MAX_VALUE + 1), 100).unwrap();
        assert_eq!(s.get(112), None);
        // An unreadable file loses its values but never blocks the next.
        std::fs::write(s.path(), b"{not json").unwrap();
        assert_eq!(s.get(111), None);
        s.keep(113, "fifth", 100).unwrap();
        assert_eq!(s.get(113).as_deref(), Some("fifth"));
    }
}
