//! The bytes a call was approved for. A tool that sends a local file to a device (an APK to
//! install, a file to push) reads it once, when the call is checked, before anyone is asked:
//! what the person is shown (size, SHA-256, and for an APK its package and version) describes
//! exactly those bytes, and what runs after the yes sends exactly those bytes. Rewriting the
//! file while the modal is up (an agent, or a routine `gradle assembleDebug`) changes nothing
//! that runs.
//!
//! While nobody is asked the bytes stay in memory. A call that waits for a person may wait for
//! minutes, so its bytes go to a private copy instead (0600 in the 0700 `staging` directory
//! under the data directory, removed when the call ends, whatever happens), and are checked
//! against their SHA-256 when read back: a copy changed in between (only the same user can)
//! refuses the call rather than sending other bytes.
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use sha2::{Digest, Sha256};

use super::result::ToolError;

/// One local file's bytes, read once.
#[derive(Debug)]
pub struct Staged {
    /// Where it was read from (resolved, inside the allowed roots).
    pub source: PathBuf,
    pub len: u64,
    pub sha256: String,
    held: Held,
}

#[derive(Debug)]
enum Held {
    Memory(Vec<u8>),
    /// The private copy, removed on drop.
    File(PathBuf),
}

pub fn sha256_hex(data: &[u8]) -> String {
    Sha256::digest(data)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

impl Staged {
    pub fn new(source: PathBuf, data: Vec<u8>) -> Staged {
        Staged {
            source,
            len: data.len() as u64,
            sha256: sha256_hex(&data),
            held: Held::Memory(data),
        }
    }

    /// The bytes while they are in memory (before [`Staged::keep_private`]).
    pub fn in_memory(&self) -> Option<&[u8]> {
        match &self.held {
            Held::Memory(d) => Some(d),
            Held::File(_) => None,
        }
    }

    /// Moves the bytes to a private copy in `dir` (created 0700; the file 0600), for a call
    /// that waits for a person. Blocking: call off the runtime.
    pub fn keep_private(&mut self, dir: &Path, call_id: u64) -> Result<(), ToolError> {
        let Held::Memory(data) = &self.held else {
            return Ok(());
        };
        let path = dir.join(format!("call-{call_id}-{}", &self.sha256[..16]));
        crate::config::paths::write_atomic(&path, data).map_err(|e| {
            ToolError::internal(format!(
                "could not keep a private copy of {} for approval in {}: {e}",
                self.source.display(),
                dir.display()
            ))
        })?;
        self.held = Held::File(path);
        Ok(())
    }

    /// The approved bytes, handed over once: from memory, or read back from the private copy
    /// and checked against the digest the person was shown. Blocking: call off the runtime.
    pub fn take_bytes(&mut self) -> Result<Vec<u8>, ToolError> {
        match &mut self.held {
            Held::Memory(d) => Ok(std::mem::take(d)),
            Held::File(path) => {
                let data = crate::config::private::read(path).map_err(|e| {
                    ToolError::refused(format!(
                        "refused: the approved copy of {} could not be read back ({e}); nothing \
                         was sent",
                        self.source.display()
                    ))
                })?;
                if data.len() as u64 != self.len || sha256_hex(&data) != self.sha256 {
                    return Err(ToolError::refused(format!(
                        "refused: the approved copy of {} changed while the call waited for \
                         approval (it is not the {} bytes with SHA-256 {} the person approved); \
                         nothing was sent",
                        self.source.display(),
                        self.len,
                        self.sha256
                    )));
                }
                Ok(data)
            }
        }
    }

    /// `12345 bytes, SHA-256 0a1b…`: how the person is shown these bytes.
    pub fn describe(&self) -> String {
        format!("{} bytes, SHA-256 {}", self.len, self.sha256)
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        if let Held::File(p) = &self.held {
            let _ = std::fs::remove_file(p);
        }
    }
}

/// Removes the private copies an instance that was killed left behind (the staging directory
/// is this instance's alone once it holds the instance lock). Blocking; run at start-up.
pub fn clear_leftovers(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name();
        let ours = name.to_str().is_some_and(|n| n.starts_with("call-"));
        if ours && e.file_type().is_ok_and(|t| t.is_file()) {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

/// A call's slot for the bytes its checks read, shared by the call's checks and its run.
#[derive(Debug, Default, Clone)]
pub struct Slot(Arc<Mutex<Option<Staged>>>);

impl Slot {
    pub fn put(&self, s: Staged) {
        if let Ok(mut slot) = self.0.lock() {
            *slot = Some(s);
        }
    }

    /// What the call's checks read, if they read it (once: the run takes it).
    pub fn take(&self) -> Option<Staged> {
        self.0.lock().ok().and_then(|mut s| s.take())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_private_copy_is_checked_and_removed() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("staging");
        let mut s = Staged::new("/p/app.apk".into(), b"approved bytes".to_vec());
        let digest = s.sha256.clone();
        s.keep_private(&dir, 7).unwrap();
        assert!(s.in_memory().is_none());
        let Held::File(path) = &s.held else {
            panic!("kept on disk")
        };
        let path = path.clone();
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(
            std::fs::metadata(&path).unwrap().permissions().mode() & 0o777,
            0o600
        );
        assert_eq!(
            std::fs::metadata(&dir).unwrap().permissions().mode() & 0o777,
            0o700
        );
        assert_eq!(s.take_bytes().unwrap(), b"approved bytes");
        assert_eq!(sha256_hex(&s.take_bytes().unwrap()), digest);
        // Rewritten behind its back: refused, never other bytes.
        std::fs::write(&path, b"evil bytes!!!!").unwrap();
        let e = s.take_bytes().unwrap_err();
        assert!(e.message.contains("changed while the call waited"), "{e:?}");
        drop(s);
        assert!(!path.exists(), "removed when the call ends");
        // A copy a killed instance left is removed at the next start; nothing else is.
        std::fs::write(dir.join("call-9-0123456789abcdef"), b"left").unwrap();
        std::fs::write(dir.join("notes.txt"), b"not ours").unwrap();
        clear_leftovers(&dir);
        let left: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(left, ["notes.txt"]);
    }
}
