//! The one session token both transports check: ≥ 256 bits of OS randomness, stored 0600 in a
//! 0700 directory, compared in constant time, rotated by `spock-tui token rotate`. A running
//! server notices a rotation through the file and refuses the old token from then on.
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};
use std::time::SystemTime;

use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use super::paths::{private_dir, write_atomic};

pub mod proof;

const TOKEN_BYTES: usize = 32;

#[derive(Debug, thiserror::Error)]
pub enum TokenError {
    #[error("token file {path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("token file {path} holds no token: run `spock-tui token rotate`")]
    Empty { path: String },
    #[error("no OS randomness: {0}")]
    Random(String),
}

fn generate() -> Result<String, TokenError> {
    let mut buf = [0u8; TOKEN_BYTES];
    getrandom::fill(&mut buf).map_err(|e| TokenError::Random(e.to_string()))?;
    Ok(proof::hex(&buf))
}

fn io(path: &Path) -> impl Fn(std::io::Error) -> TokenError + '_ {
    move |source| TokenError::Io {
        path: path.display().to_string(),
        source,
    }
}

/// Read the token at `path`, creating it when absent.
pub fn load_or_create(path: &Path) -> Result<String, TokenError> {
    match super::private::read_to_string(path) {
        Ok(text) => {
            let t = text.trim().to_string();
            if t.is_empty() {
                return Err(TokenError::Empty {
                    path: path.display().to_string(),
                });
            }
            Ok(t)
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => rotate(path),
        Err(e) => Err(io(path)(e)),
    }
}

/// Write a fresh token to `path` and return it.
pub fn rotate(path: &Path) -> Result<String, TokenError> {
    if let Some(dir) = path.parent() {
        private_dir(dir).map_err(io(path))?;
    }
    let token = generate()?;
    write_atomic(path, format!("{token}\n").as_bytes()).map_err(io(path))?;
    Ok(token)
}

/// Constant-time comparison: both sides are hashed first, so neither length nor a shared
/// prefix changes the time taken.
pub fn matches(expected: &str, presented: &str) -> bool {
    let a = Sha256::digest(expected.as_bytes());
    let b = Sha256::digest(presented.as_bytes());
    bool::from(a.ct_eq(&b)) && !expected.is_empty()
}

#[derive(Debug)]
struct Current {
    token: String,
    generation: u64,
    modified: Option<SystemTime>,
}

/// The token the server checks, reloaded when the file changes.
#[derive(Debug, Clone)]
pub struct TokenStore {
    path: PathBuf,
    current: Arc<RwLock<Current>>,
}

impl TokenStore {
    pub fn open(path: &Path) -> Result<TokenStore, TokenError> {
        let token = load_or_create(path)?;
        let modified = std::fs::metadata(path).and_then(|m| m.modified()).ok();
        Ok(TokenStore {
            path: path.to_path_buf(),
            current: Arc::new(RwLock::new(Current {
                token,
                generation: 0,
                modified,
            })),
        })
    }

    /// A store holding a fixed token (tests, in-process servers).
    pub fn fixed(token: &str) -> TokenStore {
        TokenStore {
            path: PathBuf::new(),
            current: Arc::new(RwLock::new(Current {
                token: token.to_string(),
                generation: 0,
                modified: None,
            })),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn token(&self) -> String {
        self.current
            .read()
            .map(|c| c.token.clone())
            .unwrap_or_default()
    }

    /// Bumped on every change; live socket sessions end when it moves.
    pub fn generation(&self) -> u64 {
        self.current.read().map(|c| c.generation).unwrap_or(0)
    }

    /// Whether `proof` is `role`'s attach proof for these nonces under the current token
    /// ([`proof::verify`]).
    pub fn verify_proof(
        &self,
        role: proof::Role,
        client_nonce: &str,
        server_nonce: &str,
        presented: &str,
    ) -> bool {
        self.current
            .read()
            .map(|c| proof::verify(&c.token, role, client_nonce, server_nonce, presented))
            .unwrap_or(false)
    }

    /// The current token's attach proof for these nonces ([`proof::prove`]).
    pub fn prove(&self, role: proof::Role, client_nonce: &str, server_nonce: &str) -> String {
        proof::prove(&self.token(), role, client_nonce, server_nonce)
    }

    pub fn check(&self, presented: &str) -> bool {
        self.current
            .read()
            .map(|c| matches(&c.token, presented))
            .unwrap_or(false)
    }

    /// Re-read the file if it changed (called on a slow tick). Returns true on a change.
    pub fn reload_if_changed(&self) -> bool {
        if self.path.as_os_str().is_empty() {
            return false;
        }
        let modified = std::fs::metadata(&self.path)
            .and_then(|m| m.modified())
            .ok();
        // A planted link or someone else's file never becomes the token: keep the current one.
        let text = match super::private::read_to_string(&self.path) {
            Ok(t) => t,
            Err(e) => {
                if super::private::problem(&e).is_some() {
                    tracing::error!(error = %e, "the token file was not reloaded");
                }
                String::new()
            }
        };
        let token = text.trim().to_string();
        let Ok(mut cur) = self.current.write() else {
            return false;
        };
        if token.is_empty() || (token == cur.token && modified == cur.modified) {
            return false;
        }
        let changed = token != cur.token;
        cur.modified = modified;
        if changed {
            cur.token = token;
            cur.generation += 1;
        }
        changed
    }

    /// Replace the token in-process and on disk.
    pub fn rotate(&self) -> Result<(), TokenError> {
        let token = rotate(&self.path)?;
        if let Ok(mut cur) = self.current.write() {
            cur.token = token;
            cur.generation += 1;
            cur.modified = std::fs::metadata(&self.path)
                .and_then(|m| m.modified())
                .ok();
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn created_0600_in_0700_and_256_bits() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("cfg/token");
        let tok = load_or_create(&p).unwrap();
        assert_eq!(tok.len(), 64);
        assert_eq!(
            std::fs::metadata(&p).unwrap().permissions().mode() & 0o777,
            0o600
        );
        assert_eq!(
            std::fs::metadata(p.parent().unwrap())
                .unwrap()
                .permissions()
                .mode()
                & 0o777,
            0o700
        );
        assert_eq!(load_or_create(&p).unwrap(), tok);
    }

    #[test]
    fn prefix_suffix_and_empty_are_rejected() {
        let s = TokenStore::fixed("abcdef0123");
        assert!(s.check("abcdef0123"));
        assert!(!s.check("abcdef012"));
        assert!(!s.check("abcdef01234"));
        assert!(!s.check(""));
        assert!(!matches("", ""));
    }

    #[test]
    fn rotation_on_disk_is_picked_up() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("token");
        let store = TokenStore::open(&p).unwrap();
        let old = store.token();
        let new = rotate(&p).unwrap();
        assert!(store.reload_if_changed());
        assert!(store.check(&new));
        assert!(!store.check(&old));
        assert_eq!(store.generation(), 1);
    }
}
