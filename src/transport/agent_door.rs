//! The agent's door: an MCP socket for an agent that runs as another Unix user (SECURITY.md,
//! "The set-up that makes the promise hold"). Everything else spock-tui keeps stays private
//! to the person's user (the runtime directory with `control.sock`, the config directory, the
//! data directory); this door is a directory of its own, `[server] agent_dir`, owned by the
//! person with the group `[server] agent_group` (mode 0750), holding the socket (0660) and a
//! descriptor (0640) with the socket's path and the MCP token, which `spock-tui relay
//! <agent_dir>/endpoint.json` reads as the agent's user. The socket is served like the
//! person's own: the token line, the peer's pid and uid recorded with every call.
use std::ffi::CString;
use std::os::unix::fs::{MetadataExt as _, PermissionsExt as _};
use std::path::PathBuf;

use super::socket::{Descriptor, Listener};

/// The agent's directory and the group that may use it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentDoor {
    pub dir: PathBuf,
    pub gid: u32,
}

impl AgentDoor {
    /// The door `[server] agent_dir` and `agent_group` ask for (`None` when either is empty).
    pub fn configured(dir: &str, group: &str) -> std::io::Result<Option<AgentDoor>> {
        if dir.is_empty() || group.is_empty() {
            return Ok(None);
        }
        Ok(Some(AgentDoor {
            dir: PathBuf::from(dir),
            gid: gid_of(group)?,
        }))
    }

    pub fn socket(&self) -> PathBuf {
        self.dir.join("mcp.sock")
    }

    pub fn descriptor(&self) -> PathBuf {
        self.dir.join("endpoint.json")
    }

    /// The directory made (or checked: this user's, written by nobody else) and given to the
    /// group, and the socket bound in it for the group.
    pub fn bind(&self) -> std::io::Result<Listener> {
        match std::fs::symlink_metadata(&self.dir) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                std::fs::create_dir(&self.dir)?;
            }
            Err(e) => return Err(e),
            Ok(m) => {
                let me = super::control::own_uid();
                if !m.is_dir() || m.uid() != me || m.mode() & 0o022 != 0 {
                    return Err(std::io::Error::other(format!(
                        "{} must be a directory of uid {me} that nobody else can write (it is \
                         uid {}, mode {:o}); remove it or fix it",
                        self.dir.display(),
                        m.uid(),
                        m.mode() & 0o7777
                    )));
                }
            }
        }
        std::os::unix::fs::chown(&self.dir, None, Some(self.gid))?;
        std::fs::set_permissions(&self.dir, std::fs::Permissions::from_mode(0o750))?;
        let sock = self.socket();
        let _ = std::fs::remove_file(&sock);
        let l = std::os::unix::net::UnixListener::bind(&sock)?;
        l.set_nonblocking(true)?;
        std::os::unix::fs::chown(&sock, None, Some(self.gid))?;
        std::fs::set_permissions(&sock, std::fs::Permissions::from_mode(0o660))?;
        Ok(Listener::Unix(tokio::net::UnixListener::from_std(l)?, sock))
    }

    /// The descriptor, for the group to read (0640), replaced whole.
    pub fn write_descriptor(&self, d: &Descriptor) -> std::io::Result<()> {
        let text = serde_json::to_string_pretty(d).map_err(std::io::Error::other)?;
        let tmp = self.dir.join(".endpoint.json.tmp");
        let _ = std::fs::remove_file(&tmp);
        {
            use std::io::Write as _;
            use std::os::unix::fs::OpenOptionsExt as _;
            let mut f = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .open(&tmp)?;
            f.write_all(text.as_bytes())?;
            f.sync_all()?;
        }
        std::os::unix::fs::chown(&tmp, None, Some(self.gid))?;
        std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(0o640))?;
        std::fs::rename(&tmp, self.descriptor())
    }

    /// Removed when the server stops.
    pub fn remove(&self) {
        let _ = std::fs::remove_file(self.socket());
        let _ = std::fs::remove_file(self.descriptor());
    }
}

/// The group's id, by name (through the system's group database).
fn gid_of(group: &str) -> std::io::Result<u32> {
    let name = CString::new(group).map_err(std::io::Error::other)?;
    // SAFETY: `name` is a valid C string; getgrnam returns null or a pointer to a static
    // entry, read at once before any other call could replace it (called once, at start).
    let entry = unsafe { libc::getgrnam(name.as_ptr()) };
    if entry.is_null() {
        return Err(std::io::Error::other(format!(
            "[server] agent_group: no group {group:?} (create it: groupadd {group})"
        )));
    }
    // SAFETY: checked non-null above.
    Ok(unsafe { (*entry).gr_gid })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_door_unless_both_are_set_and_an_unknown_group_is_named() {
        assert_eq!(AgentDoor::configured("", "x").unwrap(), None);
        assert_eq!(AgentDoor::configured("/tmp/x", "").unwrap(), None);
        let e = AgentDoor::configured("/tmp/x", "no-such-group-spock").unwrap_err();
        assert!(e.to_string().contains("no group"), "{e}");
    }

    #[test]
    fn a_directory_someone_else_can_write_is_refused() {
        let t = tempfile::tempdir().unwrap();
        let dir = t.path().join("door");
        std::fs::create_dir(&dir).unwrap();
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o777)).unwrap();
        // SAFETY: getegid has no failure mode.
        let gid = unsafe { libc::getegid() };
        let door = AgentDoor {
            dir: dir.clone(),
            gid,
        };
        let e = door.bind().err().expect("refused");
        assert!(e.to_string().contains("nobody else can write"), "{e}");
        assert!(std::path::Path::new(&dir).exists());
    }
}
