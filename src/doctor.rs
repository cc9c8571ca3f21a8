//! `spock-tui doctor`: what a person checks first when nothing works — adb, the adb servers,
//! each device's state with what to do about it, the running instance's endpoints, the audit
//! trail (does it verify, and is its writer the instance that answers), and the permissions
//! of the files holding secrets. Unless told otherwise it checks the adb servers
//! the running instance uses (from its descriptor): for a demo, its built-in virtual device.
use std::fmt::Write as _;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::Duration;

use crate::config::Paths;
use crate::config::lock::{Holder, InstanceLock};
use crate::device::{AdbEndpoint, DeviceOptions, DeviceState, Devices, Timeouts};
use crate::transport::socket::Descriptor;

/// Which adb servers to check.
pub enum Servers {
    /// Named with `--adb`: checked whatever else runs.
    Given(Vec<AdbEndpoint>),
    /// The configured (or default) ones, unless a running instance names its own.
    Default(Vec<AdbEndpoint>),
}

/// The running instance as its descriptor describes it: `None` when there is no descriptor.
fn instance(paths: &Paths) -> Option<Result<(Descriptor, bool), String>> {
    let text = std::fs::read_to_string(paths.endpoint_file()).ok()?;
    Some(
        serde_json::from_str::<Descriptor>(&text)
            .map(|d| {
                let alive = d.is_live();
                (d, alive)
            })
            .map_err(|e| e.to_string()),
    )
}

pub struct Report {
    pub text: String,
    pub problems: usize,
}

fn line(out: &mut String, ok: bool, problems: &mut usize, msg: impl AsRef<str>) {
    if !ok {
        *problems += 1;
    }
    let _ = writeln!(out, "{} {}", if ok { "✓" } else { "✗" }, msg.as_ref());
}

fn mode(p: &Path) -> Option<u32> {
    std::fs::metadata(p)
        .ok()
        .map(|m| m.permissions().mode() & 0o777)
}

fn state_advice(state: &DeviceState) -> Option<&'static str> {
    match state {
        DeviceState::Device => None,
        DeviceState::Unauthorized => Some(
            "accept the USB debugging prompt on the phone (or revoke authorisations and replug)",
        ),
        DeviceState::Offline => {
            Some("replug the cable or run `adb reconnect`; check the phone is unlocked")
        }
        DeviceState::NoPermissions => {
            Some("the host user cannot open the USB device: add a udev rule (plugdev group)")
        }
        DeviceState::Authorizing | DeviceState::Connecting => {
            Some("wait a few seconds, then check again")
        }
        _ => Some(
            "the device is not in normal mode (recovery/bootloader/sideload): reboot it into Android",
        ),
    }
}

pub async fn run(paths: &Paths, servers: Servers) -> Report {
    let mut out = String::new();
    let mut problems = 0;
    let instance = instance(paths);
    let live = match &instance {
        Some(Ok((d, true))) => Some(d),
        _ => None,
    };
    let live_http = live.and_then(|d| d.http.clone());
    let (servers, demo) = match (servers, live) {
        (Servers::Default(_), Some(d)) if !d.adb.is_empty() => {
            let own: Vec<AdbEndpoint> = d.adb.iter().filter_map(|a| a.parse().ok()).collect();
            let _ = writeln!(
                out,
                "checking the adb server{} of the running {}instance (pid {}): {}",
                if own.len() == 1 { "" } else { "s" },
                if d.demo { "demo " } else { "" },
                d.pid,
                d.adb.join(", ")
            );
            (own, d.demo)
        }
        (Servers::Default(s) | Servers::Given(s), _) => (s, false),
    };
    // adb binary
    let adb = tokio::time::timeout(
        Duration::from_secs(10),
        tokio::process::Command::new("adb").arg("version").output(),
    )
    .await;
    match adb {
        Ok(Ok(o)) if o.status.success() => {
            let v = String::from_utf8_lossy(&o.stdout);
            line(
                &mut out,
                true,
                &mut problems,
                format!("adb found: {}", v.lines().next().unwrap_or("").trim()),
            );
        }
        _ if demo => line(
            &mut out,
            true,
            &mut problems,
            "adb not found on PATH (the demo's virtual device does not need it)",
        ),
        _ => line(
            &mut out,
            false,
            &mut problems,
            "adb not found on PATH (install platform-tools, or use --demo); remote servers still work",
        ),
    }
    let devices = Devices::with_options(
        servers.clone(),
        Timeouts::default(),
        DeviceOptions {
            autostart_local_server: false,
            ..DeviceOptions::default()
        },
    );
    for s in &servers {
        match devices.server_version(s).await {
            Ok(v) => line(
                &mut out,
                true,
                &mut problems,
                format!("adb server {s} reachable (protocol {v})"),
            ),
            Err(e) => line(
                &mut out,
                false,
                &mut problems,
                format!("adb server {s}: {e}{}", start_note(s)),
            ),
        }
    }
    match devices.list().await {
        Ok(list) if list.is_empty() => line(
            &mut out,
            false,
            &mut problems,
            "no devices attached (check the cable, `adb devices`, or use --demo)",
        ),
        Ok(list) => {
            for d in list {
                let model = d.model.clone().unwrap_or_else(|| "?".into());
                match state_advice(&d.state) {
                    None => line(
                        &mut out,
                        true,
                        &mut problems,
                        format!("device {} ({model}) on {}: {}", d.serial, d.server, d.state),
                    ),
                    Some(advice) => line(
                        &mut out,
                        false,
                        &mut problems,
                        format!(
                            "device {} ({model}) on {}: {} — {advice}",
                            d.serial, d.server, d.state
                        ),
                    ),
                }
            }
        }
        Err(_) => {}
    }
    // the running instance, and who writes the audit trail
    let live_pid = live.map(|d| d.pid);
    let holder = {
        let p = paths.clone();
        tokio::task::spawn_blocking(move || InstanceLock::holder(&p)).await
    };
    let holds = matches!(holder, Ok(Ok(Holder::Process(_))));
    match instance {
        Some(Ok((d, alive))) => line(
            &mut out,
            alive,
            &mut problems,
            format!(
                "instance pid {} {}: stdio {}, HTTP {}{}",
                d.pid,
                if alive {
                    "running"
                } else {
                    "not running (stale descriptor)"
                },
                d.endpoint_label(),
                d.http.as_deref().unwrap_or("none"),
                d.http_note
                    .as_deref()
                    .map(|n| format!(" ({n})"))
                    .unwrap_or_default()
            ),
        ),
        Some(Err(e)) => line(
            &mut out,
            false,
            &mut problems,
            format!("endpoint descriptor unreadable: {e}"),
        ),
        // A server holding the trail without a descriptor is told below.
        None if holds => {}
        None => line(
            &mut out,
            true,
            &mut problems,
            "no running instance (start `spock-tui` or `spock-tui serve`)",
        ),
    }
    trail(paths, holder, live_pid, &mut out, &mut problems).await;
    // secrets on disk
    for (what, file, want_file, dir_want) in [
        ("token", paths.token_file(), 0o600, 0o700),
        ("endpoint descriptor", paths.endpoint_file(), 0o600, 0o700),
    ] {
        match mode(&file) {
            None => line(
                &mut out,
                true,
                &mut problems,
                format!("{what}: {} not created yet", file.display()),
            ),
            Some(m) => {
                let dm = file.parent().and_then(mode).unwrap_or(0);
                let ok = m == want_file && dm == dir_want;
                line(
                    &mut out,
                    ok,
                    &mut problems,
                    format!(
                        "{what}: {} is {m:o} in a {dm:o} directory{}",
                        file.display(),
                        if ok {
                            ""
                        } else {
                            " — should be 600 in 700: chmod it"
                        }
                    ),
                );
            }
        }
    }
    tool_files(paths, &mut out, &mut problems);
    reach(
        paths,
        live_http.as_deref(),
        &servers,
        &mut out,
        &mut problems,
    );
    let _ = writeln!(
        out,
        "{}",
        if problems == 0 {
            "all good".to_string()
        } else {
            format!("{problems} problem(s)")
        }
    );
    Report {
        text: out,
        problems,
    }
}

/// Who can reach what: the attach socket (this uid only, by its peer credentials), the MCP
/// socket's directory, the HTTP address, and each adb server (no authentication: every local
/// user). What is open is said, with where SECURITY.md says how to close it.
fn reach(
    paths: &Paths,
    http: Option<&str>,
    servers: &[AdbEndpoint],
    out: &mut String,
    problems: &mut usize,
) {
    use std::os::unix::fs::MetadataExt as _;
    let me = crate::transport::control::own_uid();
    let run = &paths.runtime;
    match std::fs::metadata(run) {
        Ok(m) => {
            let mode = m.mode() & 0o777;
            let ok = mode & 0o077 == 0 && m.uid() == me;
            line(
                out,
                ok,
                problems,
                format!(
                    "sockets: {} is {mode:o}, uid {}{}; control.sock takes uid {me} only (peer \
                     credentials) and the control credential",
                    run.display(),
                    m.uid(),
                    if ok {
                        ""
                    } else {
                        " — other users can reach the MCP and attach sockets: chmod 700 it"
                    }
                ),
            );
        }
        Err(_) => line(
            out,
            true,
            problems,
            format!("sockets: {} not created yet", run.display()),
        ),
    }
    // The agent's door, when configured: the group's, written by nobody but this user.
    let cfg = crate::config::Config::load(&crate::config::config_file(paths)).ok();
    if let Some(dir) = cfg
        .as_ref()
        .map(|c| c.server.agent_dir.clone())
        .filter(|d| !d.is_empty())
    {
        let group = cfg.map(|c| c.server.agent_group).unwrap_or_default();
        match std::fs::metadata(&dir) {
            Ok(m) => {
                let mode = m.mode() & 0o777;
                let ok = m.uid() == me && mode & 0o027 == 0;
                line(
                    out,
                    ok,
                    problems,
                    format!(
                        "agent's door {dir}: {mode:o}, gid {} (agent_group {group:?}){}",
                        m.gid(),
                        if ok {
                            ": the group reaches the MCP socket and nothing else"
                        } else {
                            " — others can write it or it is not yours: the server refuses it"
                        }
                    ),
                );
            }
            Err(_) => line(
                out,
                true,
                problems,
                format!("agent's door {dir}: made when the server starts (agent_group {group:?})"),
            ),
        }
    }
    if let Some(http) = http {
        let loopback =
            http.contains("://127.") || http.contains("://[::1]") || http.contains("://localhost");
        line(
            out,
            loopback,
            problems,
            format!(
                "HTTP {http}: {}",
                if loopback {
                    "loopback only, the token on every request"
                } else {
                    "reachable beyond this machine (the token still applies; put TLS in front of it)"
                }
            ),
        );
    }
    for s in servers {
        match s.socket_path() {
            // A filesystem socket: who may open it is what its modes say.
            Some(p) => {
                let (ok, why) = socket_reach(std::path::Path::new(p), me);
                line(out, ok, problems, format!("adb server {s}: {why}"));
            }
            // Not counted as a problem: it is how adb works. Said, so nobody takes spock-tui
            // for the only door to the phones.
            None => {
                let _ = writeln!(
                    out,
                    "  note adb server {s}: any local user, and any sandbox with this machine's \
                     network, can use it (adb has no authentication); to keep an agent out, see \
                     SECURITY.md (\"The adb server\")"
                );
            }
        }
    }
}

/// Who can open the filesystem socket `path`: its directory and itself must be this user's
/// and closed to others (connecting needs write on the socket and search on each directory).
fn socket_reach(path: &std::path::Path, me: u32) -> (bool, String) {
    use std::os::unix::fs::MetadataExt as _;
    let dir = path.parent().unwrap_or(std::path::Path::new("/"));
    let (Ok(d), s) = (std::fs::metadata(dir), std::fs::symlink_metadata(path)) else {
        return (
            true,
            format!(
                "{} does not exist yet (it is made by the adb server)",
                dir.display()
            ),
        );
    };
    let dir_closed = d.uid() == me && d.mode() & 0o077 == 0;
    let sock_closed = s
        .as_ref()
        .is_ok_and(|s| s.uid() == me && s.mode() & 0o022 == 0);
    if dir_closed {
        (
            true,
            format!(
                "on a filesystem socket in {} ({:o}, uid {}): only uid {me} can reach it",
                dir.display(),
                d.mode() & 0o777,
                d.uid()
            ),
        )
    } else if sock_closed {
        (
            true,
            format!(
                "on a filesystem socket only uid {me} can write; its directory {} is {:o}: \
                 make it 700 so a changed socket mode cannot open it",
                dir.display(),
                d.mode() & 0o777
            ),
        )
    } else {
        (
            false,
            format!(
                "its socket or its directory {} ({:o}, uid {}) lets other users in: put it in a \
                 700 directory of yours (SECURITY.md, \"The adb server\")",
                dir.display(),
                d.mode() & 0o777,
                d.uid()
            ),
        )
    }
}

/// The files that say what tools exist and what they may do (config.toml, `tools.d` and its
/// files, and the directory holding them) must be writable by the person only: a file an
/// agent can write is a tool an agent can define, or access it can open. Then what the own
/// tools' files declare, and each file that would load nothing.
fn tool_files(paths: &Paths, out: &mut String, problems: &mut usize) {
    use std::os::unix::fs::MetadataExt as _;
    // SAFETY: getuid has no failure mode and touches no memory.
    let me = unsafe { libc::getuid() };
    let config = crate::config::config_file(paths);
    let tools = crate::own::tools_dir(&paths.config);
    let mut files = vec![paths.config.clone(), config.clone(), tools.clone()];
    if let Ok(entries) = std::fs::read_dir(&tools) {
        let mut found: Vec<_> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        found.sort();
        files.extend(found);
    }
    let mut open = Vec::new();
    for f in &files {
        let Ok(m) = std::fs::symlink_metadata(f) else {
            continue;
        };
        let mode = m.mode() & 0o777;
        if m.uid() != me {
            open.push(format!("{} belongs to uid {}", f.display(), m.uid()));
        } else if mode & 0o022 != 0 {
            open.push(format!("{} is {mode:o} (others can write it)", f.display()));
        } else if m.file_type().is_symlink() {
            open.push(format!(
                "{} is a symlink (its target decides who can write it)",
                f.display()
            ));
        }
    }
    if open.is_empty() {
        line(
            out,
            true,
            problems,
            format!(
                "tool definitions: {} and {} are writable by you only",
                config.display(),
                tools.display()
            ),
        );
    } else {
        for o in open {
            line(
                out,
                false,
                problems,
                format!(
                    "tool definitions: {o} — a file another user or an agent can write is a tool it \
                     can define: chown it to you and chmod go-w"
                ),
            );
        }
    }
    let builtin = {
        let catalogue = crate::mcp::tools::catalogue();
        move |n: &str| catalogue.get(n).is_some()
    };
    let loaded = crate::own::load(&config, &builtin);
    if !loaded.tools.is_empty() {
        line(
            out,
            true,
            problems,
            format!(
                "own tools: {} ({})",
                loaded.tools.len(),
                loaded
                    .tools
                    .iter()
                    .map(|t| t.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        );
    }
    for e in &loaded.errors {
        line(
            out,
            false,
            problems,
            format!("own tools: {e} (nothing from that file loads)"),
        );
    }
}

fn pid_text(pid: Option<u32>) -> String {
    pid.map_or_else(|| "unknown".into(), |p| p.to_string())
}

/// The audit trail: does it verify (as `audit verify` does), and is its writer (whoever holds
/// the lock beside it) the instance whose endpoint answers (`live`)? Two servers on one trail
/// interleave two hash chains; a server whose runtime directory was removed is unreachable.
async fn trail(
    paths: &Paths,
    holder: Result<Result<Holder, crate::config::lock::LockError>, tokio::task::JoinError>,
    live: Option<u32>,
    out: &mut String,
    problems: &mut usize,
) {
    let dir = paths.audit_dir();
    let d = dir.clone();
    match tokio::task::spawn_blocking(move || crate::audit::verify(&d)).await {
        Ok(Ok(v)) => match &v.broken {
            None if v.files == 0 => line(
                out,
                true,
                problems,
                format!("audit trail: none yet ({})", dir.display()),
            ),
            None => line(
                out,
                true,
                problems,
                format!(
                    "audit trail intact: {} records in {} files ({})",
                    v.records,
                    v.files,
                    dir.display()
                ),
            ),
            Some(b) => line(
                out,
                false,
                problems,
                format!(
                    "audit trail broken after {} intact records: {b} (altered, or written by two servers at once; `spock-tui audit verify`)",
                    v.records
                ),
            ),
        },
        Ok(Err(e)) => line(out, false, problems, format!("audit trail unreadable: {e}")),
        Err(e) => line(
            out,
            false,
            problems,
            format!("audit trail not checked: {e}"),
        ),
    }
    let lock = InstanceLock::file(paths);
    match (holder, live) {
        (Ok(Ok(Holder::Process(pid))), Some(p)) if pid == Some(p) => line(
            out,
            true,
            problems,
            format!("audit trail written by the running instance (pid {p})"),
        ),
        (Ok(Ok(Holder::Process(pid))), Some(p)) => line(
            out,
            false,
            problems,
            format!(
                "two servers: pid {} holds the audit trail but pid {p} answers at the endpoint; stop one (kill PID)",
                pid_text(pid)
            ),
        ),
        (Ok(Ok(Holder::Process(pid))), None) => line(
            out,
            false,
            problems,
            format!(
                "pid {pid} holds the audit trail but no endpoint answers (its runtime directory {} removed, at a logout?): it puts its sockets back within seconds once it can, and logs why not; else stop it (kill {pid}) and start it again",
                paths.runtime.display(),
                pid = pid_text(pid)
            ),
        ),
        (Ok(Ok(Holder::Nobody)), Some(p)) => line(
            out,
            false,
            problems,
            format!(
                "the running instance (pid {p}) does not hold {} (an older spock-tui?): a second server could write the same trail; restart it",
                lock.display()
            ),
        ),
        (Ok(Ok(Holder::Nobody)), None) => {}
        (Ok(Err(e)), _) => line(out, false, problems, format!("audit trail lock: {e}")),
        (Err(e), _) => line(
            out,
            false,
            problems,
            format!("audit trail lock not checked: {e}"),
        ),
    }
}

/// Who starts a server that is not running: spock-tui only on the default local endpoint (as
/// `adb` would, on a call), never on an address given with --adb.
fn start_note(s: &crate::device::AdbEndpoint) -> &'static str {
    if s.is_local() {
        " (spock-tui starts an adb server only on the default endpoint, as `adb` itself would, never on an address given with --adb)"
    } else {
        ""
    }
}
