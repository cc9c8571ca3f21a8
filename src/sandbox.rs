//! `spock-tui sandbox -- COMMAND…`: an agent run as the person's own user, under bubblewrap,
//! so that it reaches spock-tui only through the agent's door (SECURITY.md, "An agent of your
//! own user, in a sandbox").
//!
//! What the line does, from this installation's own paths (so nothing is left to a hand-copied
//! recipe): the filesystem read-only (`--ro-bind / /`), writable only in the working directory
//! and the `--rw` paths; spock-tui's config, data, state and runtime directories, the adb keys
//! (`~/.android`) and the directory of each adb server's filesystem socket hidden under empty
//! tmpfs; the door bound back read-only (its socket and descriptor, nothing to rewrite); a
//! private `/tmp`, no capabilities (not even root's), its own process and IPC namespaces (no other process of the person to read
//! or trace), a new session (no keystrokes pushed into the person's terminal), and the child
//! killed with its parent. An adb server on TCP is reachable from any process with this
//! machine's network, so the line is refused while one is configured unless the agent gets no
//! network at all (`--no-network`); an adb server on a filesystem socket leaves the network
//! to the agent (its model's API) and keeps the phones out of its reach.
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use spock_core::device::AdbEndpoint;

/// What to run: bubblewrap's arguments (without the program), and what to tell the person.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    pub args: Vec<OsString>,
    /// The directories hidden, for the person's information.
    pub hidden: Vec<PathBuf>,
    /// The door's descriptor: what the agent's MCP configuration gives `spock-tui relay`.
    pub descriptor: PathBuf,
}

/// What the line is built from.
#[derive(Debug, Clone)]
pub struct Inputs<'a> {
    pub paths: &'a spock_core::config::Paths,
    /// `[server] agent_dir` (empty: no door).
    pub agent_dir: &'a str,
    pub servers: &'a [AdbEndpoint],
    /// The person's home (`$HOME`), for `~/.android`.
    pub home: Option<&'a Path>,
    pub cwd: &'a Path,
    pub rw: &'a [PathBuf],
    pub no_network: bool,
    pub command: &'a [OsString],
}

/// Why no line was made.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum Refused {
    #[error(
        "no agent's door: set `[server] agent_dir` (a directory outside spock-tui's own) and \
         `agent_group` (your own group, for an agent of your user) in config.toml and start the \
         server; the sandboxed agent reaches MCP through it (SECURITY.md)"
    )]
    NoDoor,
    #[error(
        "the adb server {0} is on TCP, which any process with this machine's network can use (adb \
         has no authentication): serve adb on a filesystem socket (`export \
         ADB_SERVER_SOCKET=localfilesystem:$XDG_RUNTIME_DIR/adb/adb.sock`, SECURITY.md \"The adb \
         server\"), or give the agent no network with --no-network"
    )]
    AdbOnTcp(String),
    #[error("{0} is inside {1}, which the sandbox hides: the agent cannot have it")]
    InsideHidden(PathBuf, PathBuf),
    #[error("no command to run: spock-tui sandbox [OPTIONS] -- COMMAND [ARGS…]")]
    NoCommand,
    #[error("{0}: {1}")]
    Io(PathBuf, String),
}

/// The directories an agent of this user must not see: spock-tui's own, the adb keys, and the
/// directory of each adb server's filesystem socket. Made (0700) when missing, so hiding them
/// does not depend on them existing before the agent starts.
fn hidden(i: &Inputs) -> Vec<PathBuf> {
    let p = i.paths;
    let mut out = vec![
        p.config.clone(),
        p.data.clone(),
        p.state.clone(),
        p.runtime.clone(),
    ];
    if let Some(h) = i.home {
        out.push(h.join(".android"));
    }
    for s in i.servers {
        if let Some(dir) = s.socket_path().and_then(|p| Path::new(p).parent()) {
            out.push(dir.to_path_buf());
        }
    }
    let mut seen = Vec::new();
    for d in out {
        if !seen.contains(&d) {
            seen.push(d);
        }
    }
    seen
}

/// The line, or why not. Makes the hidden directories that do not exist yet (0700).
pub fn plan(i: &Inputs) -> Result<Plan, Refused> {
    if i.command.is_empty() {
        return Err(Refused::NoCommand);
    }
    if i.agent_dir.is_empty() {
        return Err(Refused::NoDoor);
    }
    let door = PathBuf::from(i.agent_dir);
    if !i.no_network
        && let Some(s) = i.servers.iter().find(|s| s.socket_path().is_none())
    {
        return Err(Refused::AdbOnTcp(s.to_string()));
    }
    let hidden = hidden(i);
    let writable: Vec<PathBuf> = std::iter::once(i.cwd.to_path_buf())
        .chain(i.rw.iter().cloned())
        .collect();
    for w in writable.iter().chain(std::iter::once(&door)) {
        if let Some(h) = hidden.iter().find(|h| w.starts_with(h)) {
            return Err(Refused::InsideHidden(w.clone(), h.clone()));
        }
    }
    for h in &hidden {
        if !h.exists() {
            spock_core::config::paths::private_dir(h)
                .map_err(|e| Refused::Io(h.clone(), e.to_string()))?;
        }
    }
    let mut a: Vec<OsString> = Vec::new();
    let mut push = |parts: &[&std::ffi::OsStr]| a.extend(parts.iter().map(|p| p.to_os_string()));
    push(&["--ro-bind".as_ref(), "/".as_ref(), "/".as_ref()]);
    push(&["--dev".as_ref(), "/dev".as_ref()]);
    push(&["--proc".as_ref(), "/proc".as_ref()]);
    push(&["--tmpfs".as_ref(), "/tmp".as_ref()]);
    // The writable paths first, then the hidden directories over them: a hidden directory
    // inside the working directory (spock-tui's home in a project, say) stays hidden.
    for w in &writable {
        push(&["--bind".as_ref(), w.as_os_str(), w.as_os_str()]);
    }
    for h in &hidden {
        push(&["--tmpfs".as_ref(), h.as_os_str()]);
    }
    // Last, so nothing above covers it; read-only, so its descriptor cannot be rewritten.
    push(&["--ro-bind".as_ref(), door.as_os_str(), door.as_os_str()]);
    // No capabilities, not even for root (whose would otherwise let it unmount the tmpfs that
    // hides a directory); the bounding set too, so no program run inside regains them.
    push(&["--cap-drop".as_ref(), "ALL".as_ref()]);
    push(&["--unshare-pid".as_ref(), "--unshare-ipc".as_ref()]);
    if i.no_network {
        push(&["--unshare-net".as_ref()]);
    }
    push(&[
        "--new-session".as_ref(),
        "--die-with-parent".as_ref(),
        "--chdir".as_ref(),
        i.cwd.as_os_str(),
        "--setenv".as_ref(),
        "SPOCK_TUI_AGENT_DESCRIPTOR".as_ref(),
        door.join("endpoint.json").as_os_str(),
        "--".as_ref(),
    ]);
    a.extend(i.command.iter().cloned());
    Ok(Plan {
        args: a,
        hidden,
        descriptor: door.join("endpoint.json"),
    })
}

/// The line as a person would type it.
pub fn shell_line(bwrap: &str, plan: &Plan) -> String {
    let mut words = vec![bwrap.to_string()];
    words.extend(plan.args.iter().map(|a| a.to_string_lossy().into_owned()));
    shell_words::join(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inputs<'a>(
        paths: &'a spock_core::config::Paths,
        servers: &'a [AdbEndpoint],
        cmd: &'a [OsString],
        cwd: &'a Path,
    ) -> Inputs<'a> {
        Inputs {
            paths,
            agent_dir: "/srv/door",
            servers,
            // Under the test's own directory: a plan makes what it hides.
            home: Some(paths.config.parent().unwrap()),
            cwd,
            rw: &[],
            no_network: false,
            command: cmd,
        }
    }

    #[test]
    fn the_line_hides_spock_tuis_directories_and_binds_only_the_door_back() {
        let t = tempfile::tempdir().unwrap();
        let paths = spock_core::config::Paths::under(&t.path().join("home"));
        let servers = [AdbEndpoint::filesystem(
            t.path().join("adb/adb.sock").to_str().unwrap(),
        )];
        let cmd = [OsString::from("claude")];
        let cwd = t.path().join("project");
        let i = inputs(&paths, &servers, &cmd, &cwd);
        let p = plan(&i).unwrap();
        let line = shell_line("bwrap", &p);
        for d in [&paths.config, &paths.data, &paths.state, &paths.runtime] {
            assert!(line.contains(&format!("--tmpfs {}", d.display())), "{line}");
            // Made, private, so it is hidden even before the server first runs.
            use std::os::unix::fs::PermissionsExt as _;
            assert_eq!(
                std::fs::metadata(d).unwrap().permissions().mode() & 0o777,
                0o700
            );
        }
        assert!(
            line.contains(&format!("--tmpfs {}/home/.android", t.path().display())),
            "{line}"
        );
        assert!(
            line.contains(&format!("--tmpfs {}/adb", t.path().display())),
            "{line}"
        );
        assert!(line.starts_with("bwrap --ro-bind / / "), "{line}");
        assert!(
            line.contains("--ro-bind /srv/door /srv/door --cap-drop ALL --unshare-pid"),
            "{line}"
        );
        assert!(
            line.contains(&format!("--bind {0} {0}", cwd.display())),
            "{line}"
        );
        assert!(line.contains("--new-session --die-with-parent"), "{line}");
        assert!(!line.contains("--unshare-net"), "{line}");
        assert!(line.ends_with(" -- claude"), "{line}");
        // The door comes after every tmpfs, so none of them covers it; the writable binds come
        // before them, so none of them uncovers a hidden directory inside it.
        let door_at = line.find("--ro-bind /srv/door").unwrap();
        assert!(line.rfind("--tmpfs").unwrap() < door_at, "{line}");
        let home_hidden = line
            .find(&format!("--tmpfs {}", paths.config.display()))
            .unwrap();
        assert!(line.find("--bind ").unwrap() < home_hidden, "{line}");
    }

    #[test]
    fn an_adb_server_on_tcp_is_refused_unless_the_agent_gets_no_network() {
        let t = tempfile::tempdir().unwrap();
        let paths = spock_core::config::Paths::under(t.path());
        let servers = [AdbEndpoint::local(5037)];
        let cmd = [OsString::from("claude")];
        let cwd = PathBuf::from("/work");
        let mut i = inputs(&paths, &servers, &cmd, &cwd);
        assert_eq!(plan(&i), Err(Refused::AdbOnTcp("127.0.0.1:5037".into())));
        i.no_network = true;
        let line = shell_line("bwrap", &plan(&i).unwrap());
        assert!(line.contains("--unshare-net"), "{line}");
    }

    #[test]
    fn no_door_no_command_or_a_writable_path_inside_a_hidden_one_is_refused() {
        let t = tempfile::tempdir().unwrap();
        let paths = spock_core::config::Paths::under(t.path());
        let cmd = [OsString::from("claude")];
        let cwd = PathBuf::from("/work");
        let mut i = inputs(&paths, &[], &cmd, &cwd);
        i.agent_dir = "";
        assert_eq!(plan(&i), Err(Refused::NoDoor));
        i.agent_dir = "/srv/door";
        i.command = &[];
        assert_eq!(plan(&i), Err(Refused::NoCommand));
        i.command = &cmd;
        let inside = paths.config.join("x");
        i.cwd = &inside;
        assert!(matches!(plan(&i), Err(Refused::InsideHidden(..))));
        let rw = [t.path().join(".android/keys")];
        i.cwd = &cwd;
        i.rw = &rw;
        assert!(matches!(plan(&i), Err(Refused::InsideHidden(..))));
    }
}
