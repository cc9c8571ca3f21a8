//! The directories spock-tui uses. Everything in them is private: created, opened and
//! written through [`super::private`] (re-exported here for the callers that only need
//! `private_dir` and `write_atomic`).
use std::path::{Path, PathBuf};

pub use super::private::{private_dir, write_atomic};

/// `SPOCK_TUI_HOME` puts everything under one directory (tests, portable installs).
pub const HOME_ENV: &str = "SPOCK_TUI_HOME";

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Paths {
    pub config: PathBuf,
    pub data: PathBuf,
    pub state: PathBuf,
    pub runtime: PathBuf,
}

/// This user's logind runtime directory (`/run/user/UID`), where `XDG_RUNTIME_DIR` points in
/// a login session, when the variable itself is missing: an MCP client that starts `spock-tui
/// relay` with a trimmed environment (the Python SDK passes only HOME, PATH, SHELL, TERM, USER
/// and LOGNAME) then finds the instance its person started from a login shell. Only a
/// directory of this uid that nobody else can enter counts.
fn logind_runtime(base: &Path) -> Option<PathBuf> {
    use std::os::unix::fs::MetadataExt as _;
    // SAFETY: getuid has no failure mode and touches no memory.
    let uid = unsafe { libc::getuid() };
    let dir = base.join(uid.to_string());
    let m = std::fs::symlink_metadata(&dir).ok()?;
    (m.is_dir() && m.uid() == uid && m.mode() & 0o077 == 0).then_some(dir)
}

impl Paths {
    pub fn under(home: &Path) -> Paths {
        Paths {
            config: home.join("config"),
            data: home.join("data"),
            state: home.join("state"),
            runtime: home.join("run"),
        }
    }

    /// From `SPOCK_TUI_HOME`, else the platform's directories.
    pub fn discover() -> std::io::Result<Paths> {
        if let Some(home) = std::env::var_os(HOME_ENV).filter(|h| !h.is_empty()) {
            return Ok(Paths::under(Path::new(&home)));
        }
        let dirs =
            directories::ProjectDirs::from("dev", "spock", "spock-tui").ok_or_else(|| {
                std::io::Error::new(
                    std::io::ErrorKind::NotFound,
                    "no home directory: set SPOCK_TUI_HOME",
                )
            })?;
        let data = dirs.data_dir().to_path_buf();
        Ok(Paths {
            config: dirs.config_dir().to_path_buf(),
            state: dirs
                .state_dir()
                .map(Path::to_path_buf)
                .unwrap_or_else(|| data.join("state")),
            runtime: dirs
                .runtime_dir()
                .map(Path::to_path_buf)
                .or_else(|| logind_runtime(Path::new("/run/user")).map(|d| d.join("spock-tui")))
                .unwrap_or_else(|| data.join("run")),
            data,
        })
    }

    pub fn token_file(&self) -> PathBuf {
        self.config.join("token")
    }
    pub fn endpoint_file(&self) -> PathBuf {
        self.runtime.join("endpoint.json")
    }
    pub fn socket_path(&self) -> PathBuf {
        self.runtime.join("mcp.sock")
    }
    pub fn log_dir(&self) -> PathBuf {
        self.state.clone()
    }
    pub fn audit_dir(&self) -> PathBuf {
        self.data.join("audit")
    }
    pub fn pull_dir(&self) -> PathBuf {
        self.data.join("pulls")
    }
    pub fn batch_dir(&self) -> PathBuf {
        self.data.join("batch")
    }
    /// Which text fields held a value hidden from agents (`redact::held`).
    pub fn held_fields_file(&self) -> PathBuf {
        self.data.join("redact").join("held-fields.json")
    }
    /// Private copies of files whose calls wait for approval (`mcp::staged`).
    pub fn staging_dir(&self) -> PathBuf {
        self.data.join("staging")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn a_logind_runtime_directory_counts_only_when_it_is_this_users_and_private() {
        let t = tempfile::tempdir().unwrap();
        // SAFETY: getuid has no failure mode.
        let uid = unsafe { libc::getuid() };
        let dir = t.path().join(uid.to_string());
        assert_eq!(logind_runtime(t.path()), None);
        std::fs::create_dir(&dir).unwrap();
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        assert_eq!(logind_runtime(t.path()), None, "others can enter it");
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).unwrap();
        assert_eq!(logind_runtime(t.path()), Some(dir));
    }

    #[test]
    fn private_dir_and_atomic_write_set_modes() {
        let t = tempfile::tempdir().unwrap();
        let d = t.path().join("a/b");
        private_dir(&d).unwrap();
        assert_eq!(
            std::fs::metadata(&d).unwrap().permissions().mode() & 0o777,
            0o700
        );
        let f = d.join("secret");
        write_atomic(&f, b"x").unwrap();
        write_atomic(&f, b"yz").unwrap();
        assert_eq!(std::fs::read(&f).unwrap(), b"yz");
        assert_eq!(
            std::fs::metadata(&f).unwrap().permissions().mode() & 0o777,
            0o600
        );
        assert_eq!(
            std::fs::read_dir(&d).unwrap().count(),
            1,
            "no temp file left behind"
        );
    }
}
