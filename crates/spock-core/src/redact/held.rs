//! The memory of text fields that have held a value hidden from agents, and its private file.
//!
//! A rule matches a whole value, so an agent able to edit a field (type one more character,
//! delete one) would make it stop matching and read the rest: once a field held a hidden value
//! its text stays hidden from agents whatever it holds later. Every tree the server reads feeds
//! this memory (not only the trees agents ask for), and it outlives a restart: one 0600 JSON
//! file in a 0700 directory under the data directory, rewritten atomically when it changes.
//!
//! The file never holds a value. A field is named by a salted SHA-256 of its key (package and
//! resource id, else package, class and bounds), beside the marker shown for it: someone who
//! can read the file learns how many fields held which kind of secret, not which apps or fields
//! (short of hashing a guessed key with the salt beside it), and nothing of the values.
//! Bounded: the oldest are forgotten past [`HELD_CAP`].
use std::collections::{HashMap, VecDeque};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

pub const HELD_CAP: usize = 4096;

#[derive(Debug)]
pub struct Held {
    salt: [u8; 16],
    /// Field key hash → marker.
    markers: HashMap<String, String>,
    order: VecDeque<String>,
    /// Changed since last written.
    dirty: bool,
    file: Option<PathBuf>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct OnDisk {
    version: u32,
    salt: String,
    /// `[key hash, marker]`, oldest first.
    fields: Vec<(String, String)>,
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

impl Default for Held {
    fn default() -> Self {
        let mut salt = [0u8; 16];
        if let Err(e) = getrandom::fill(&mut salt) {
            tracing::warn!("no random salt for the held-field memory: {e}");
        }
        Held {
            salt,
            markers: HashMap::new(),
            order: VecDeque::new(),
            dirty: false,
            file: None,
        }
    }
}

impl Held {
    pub fn key(&self, n: &crate::uitree::Node) -> String {
        let raw = if n.resource_id.is_empty() {
            format!("{}\0{}\0{:?}", n.package, n.class, n.bounds)
        } else {
            format!("{}\0id\0{}", n.package, n.resource_id)
        };
        let mut h = Sha256::new();
        h.update(self.salt);
        h.update(raw.as_bytes());
        hex(&h.finalize()[..16])
    }

    pub fn marker(&self, key: &str) -> Option<&String> {
        self.markers.get(key)
    }

    pub fn remember(&mut self, key: String, marker: String) {
        match self.markers.insert(key.clone(), marker.clone()) {
            None => self.order.push_back(key),
            Some(old) if old == marker => return,
            Some(_) => {}
        }
        self.dirty = true;
        while self.markers.len() > HELD_CAP {
            match self.order.pop_front() {
                Some(old) => {
                    self.markers.remove(&old);
                }
                None => break,
            }
        }
    }

    /// Whether there is something to write.
    pub fn unsaved(&self) -> bool {
        self.dirty && self.file.is_some()
    }

    /// The memory kept in `path` (none there: empty), keeping only markers `known` accepts (a
    /// rule since removed hides nothing any more).
    pub fn load(path: &Path, known: impl Fn(&str) -> bool) -> Result<Held, String> {
        let mut held = Held {
            file: Some(path.to_path_buf()),
            ..Held::default()
        };
        let bytes = match crate::config::private::read(path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(held),
            Err(e) => return Err(format!("reading {}: {e}", path.display())),
        };
        let bad = |why: String| {
            format!(
                "{} (the memory of fields that held hidden values) is unreadable: {why}; \
                 remove it to start afresh",
                path.display()
            )
        };
        let disk: OnDisk = serde_json::from_slice(&bytes).map_err(|e| bad(e.to_string()))?;
        if disk.version != 1 {
            return Err(bad(format!("version {} is not 1", disk.version)));
        }
        let salt: Vec<u8> = (0..disk.salt.len())
            .step_by(2)
            .filter_map(|i| u8::from_str_radix(disk.salt.get(i..i + 2)?, 16).ok())
            .collect();
        held.salt = salt
            .try_into()
            .map_err(|_| bad("its salt is not 16 bytes of hex".into()))?;
        for (key, marker) in disk.fields {
            if known(&marker) {
                held.remember(key, marker);
            }
        }
        held.dirty = false;
        Ok(held)
    }

    /// What to write (its file and bytes) when something changed, marked written.
    pub fn take_unsaved(&mut self) -> Option<(PathBuf, Vec<u8>)> {
        if !self.unsaved() {
            return None;
        }
        let disk = OnDisk {
            version: 1,
            salt: hex(&self.salt),
            fields: self
                .order
                .iter()
                .filter_map(|k| Some((k.clone(), self.markers.get(k)?.clone())))
                .collect(),
        };
        let bytes = serde_json::to_vec(&disk).ok()?;
        self.dirty = false;
        Some((self.file.clone()?, bytes))
    }

    /// A write failed: try again next time.
    pub fn unwritten(&mut self) {
        self.dirty = true;
    }
}
