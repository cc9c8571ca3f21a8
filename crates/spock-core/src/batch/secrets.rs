//! The typed-password store: what calls whose record says «password» withheld (their private
//! part: the real `text`, and a form's real `fields`), keyed by
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

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::BatchError;
use crate::config::paths::{private_dir, write_atomic};

/// The longest value kept (its JSON); a longer one is no password a person typed.
pub const MAX_VALUE: usize = 4096;

/// One kept value. Earlier versions kept the typed text alone; it still reads.
#[derive(Debug, Serialize, Deserialize)]
#[serde(untagged)]
enum Kept {
    /// Tried first: a string is the old form.
    Text(String),
    Private(Value),
}

impl Kept {
    /// The private part a step made from the record runs with.
    fn private(self) -> Value {
        match self {
            Kept::Private(v) => v,
            Kept::Text(t) => serde_json::json!({ "text": t }),
        }
    }
}

const FILE: &str = "typed.json";

#[derive(Debug)]
pub struct TypedSecrets {
    dir: PathBuf,
    /// Read-modify-write of the one file is serialised.
    lock: Mutex<()>,
    /// Values told of ([`Self::keeping`]) and not yet written: readable at once, so the
    /// write happens off the call's path.
    unwritten: Mutex<Unwritten>,
}

/// What was told and not yet written, and History's reach as last told.
#[derive(Debug, Default)]
struct Unwritten {
    values: BTreeMap<u64, Value>,
    /// The newest record told and the History size then: a record `window` or more behind
    /// it is out of reach, written or not.
    newest: u64,
    window: u64,
}

impl Unwritten {
    fn reaches(&self, seq: u64) -> bool {
        self.window == 0 || seq + self.window > self.newest
    }
}

impl TypedSecrets {
    pub fn new(dir: PathBuf) -> TypedSecrets {
        TypedSecrets {
            dir,
            lock: Mutex::new(()),
            unwritten: Mutex::new(Unwritten::default()),
        }
    }

    /// `private` for record `seq` is on its way to [`Self::keep`]: readable by [`Self::get`]
    /// from now on. Does not block.
    pub fn keeping(&self, seq: u64, private: &Value, window: usize) {
        let Ok(mut u) = self.unwritten.lock() else {
            return;
        };
        u.newest = u.newest.max(seq);
        u.window = window.max(1) as u64;
        if private.is_object() && private.to_string().len() <= MAX_VALUE {
            u.values.insert(seq, private.clone());
        }
        let (newest, window) = (u.newest, u.window);
        u.values.retain(|&k, _| k + window > newest);
    }

    fn path(&self) -> PathBuf {
        self.dir.join(FILE)
    }

    fn load(&self) -> Result<BTreeMap<u64, Kept>, BatchError> {
        let path = self.path();
        match crate::config::private::read(&path) {
            Ok(bytes) => serde_json::from_slice(&bytes)
                .map_err(|e| BatchError::Io(format!("{} is unreadable: {e}", path.display()))),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(BTreeMap::new()),
            Err(e) => Err(BatchError::Io(format!("reading {}: {e}", path.display()))),
        }
    }

    /// Keeps `private` (a step's private part) for record `seq`, dropping every value whose
    /// record is `window` or more records older (History no longer holds it). Values are
    /// written off the calls' path and may arrive out of order: a newer record's stays.
    pub fn keep(&self, seq: u64, private: &Value, window: usize) -> Result<(), BatchError> {
        let _held = self.lock.lock().map_err(|_| poisoned())?;
        // An unreadable file is replaced: what it held is lost, never shown.
        let mut all = self.load().unwrap_or_default();
        let window = window.max(1) as u64;
        // Written off the calls' path, two values may arrive out of order: a newer one stays.
        all.retain(|&k, _| k != seq && k + window > seq);
        if private.is_object() && private.to_string().len() <= MAX_VALUE {
            // Stored as the value itself: an object never reads back as the old plain text.
            all.insert(seq, Kept::Private(private.clone()));
        }
        private_dir(&self.dir)
            .map_err(|e| BatchError::Io(format!("creating {}: {e}", self.dir.display())))?;
        let bytes = serde_json::to_vec(&all)
            .map_err(|e| BatchError::Io(format!("encoding typed values: {e}")))?;
        let path = self.path();
        let written = write_atomic(&path, &bytes)
            .map_err(|e| BatchError::Io(format!("writing {}: {e}", path.display())));
        if let Ok(mut u) = self.unwritten.lock() {
            // Written, or not kept (a failed write is said by the caller): either way the
            // file decides from now on, and what History no longer reaches goes too.
            u.values.retain(|&k, _| k != seq && k + window > seq);
        }
        written
    }

    /// The private part of the call recorded as `seq`, while it is kept.
    pub fn get(&self, seq: u64) -> Option<Value> {
        {
            let u = self.unwritten.lock().ok()?;
            if !u.reaches(seq) {
                return None;
            }
            if let Some(v) = u.values.get(&seq) {
                return Some(v.clone());
            }
        }
        let _held = self.lock.lock().ok()?;
        self.load().ok()?.remove(&seq).map(Kept::private)
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
        let text = |t: &str| serde_json::json!({ "text": t });
        assert_eq!(s.get(1), None);
        s.keep(10, &text("hunter2"), 100).unwrap();
        s.keep(50, &text("s3cret"), 100).unwrap();
        assert_eq!(s.get(10), Some(text("hunter2")));
        let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&s.dir), 0o700);
        assert_eq!(mode(&s.path()), 0o600);
        // Record 10 is 100 records behind 110: History has let it go, and so does the store.
        s.keep(110, &text("third"), 100).unwrap();
        assert_eq!(s.get(10), None);
        assert_eq!(s.get(50), Some(text("s3cret")));
        // A smaller history applies at the next value kept.
        s.keep(111, &text("fourth"), 1).unwrap();
        assert_eq!((s.get(50), s.get(110)), (None, None));
        assert_eq!(s.get(111), Some(text("fourth")));
        // A value too long to be a password is not kept at all.
        s.keep(112, &text(&"x".repeat(MAX_VALUE + 1)), 100).unwrap();
        assert_eq!(s.get(112), None);
        // A form's fields are kept whole.
        let form = serde_json::json!({"fields": [{"element": "pw", "text": "hunter2"}]});
        s.keep(113, &form, 100).unwrap();
        assert_eq!(s.get(113), Some(form));
        // An unreadable file loses its values but never blocks the next.
        std::fs::write(s.path(), b"{not json").unwrap();
        assert_eq!(s.get(111), None);
        s.keep(114, &text("fifth"), 100).unwrap();
        assert_eq!(s.get(114), Some(text("fifth")));
    }

    /// The call's answer goes back before its value is written: told first, it reads at once,
    /// and two writes that arrive out of order lose neither.
    #[test]
    fn a_value_told_first_reads_at_once_and_late_writes_lose_nothing() {
        let tmp = tempfile::tempdir().unwrap();
        let s = TypedSecrets::new(tmp.path().join("history-private"));
        let text = |t: &str| serde_json::json!({ "text": t });
        s.keeping(7, &text("hunter2"), 100);
        s.keeping(8, &text("s3cret"), 100);
        assert_eq!(s.get(7), Some(text("hunter2")));
        assert!(!s.path().exists(), "told, not written yet");
        s.keep(8, &text("s3cret"), 100).unwrap();
        s.keep(7, &text("hunter2"), 100).unwrap();
        assert!(s.unwritten.lock().unwrap().values.is_empty());
        assert_eq!(
            s.get(8),
            Some(text("s3cret")),
            "the older write kept the newer value"
        );
        assert_eq!(s.get(7), Some(text("hunter2")));
        // What is too long to keep is not held in memory either.
        s.keeping(9, &text(&"x".repeat(MAX_VALUE + 1)), 100);
        assert_eq!(s.get(9), None);
        // Out of History's reach as soon as a newer value is told, before any write.
        s.keeping(10, &text("newer"), 1);
        assert_eq!((s.get(8), s.get(10)), (None, Some(text("newer"))));
    }

    #[test]
    fn a_value_kept_by_an_earlier_version_still_reads() {
        let tmp = tempfile::tempdir().unwrap();
        let s = TypedSecrets::new(tmp.path().join("history-private"));
        s.keep(1, &serde_json::json!({"text": "x"}), 100).unwrap();
        std::fs::write(s.path(), br#"{"7":"hunter2"}"#).unwrap();
        assert_eq!(s.get(7), Some(serde_json::json!({"text": "hunter2"})));
    }
}
