//! The command line as a person meets it on a shared lab machine, run as a process: a taken
//! port, a second instance on the same home, client configuration per client, flags that
//! belong to other subcommands, a closed pipe, `doctor` beside a demo, what `serve` prints and
//! logs, and a relay that ends quietly.
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::Value;

#[path = "support/mod.rs"]
mod support;
use support::program::{lines_of, spock};

const WAIT: Duration = Duration::from_secs(60);
const INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"cli-test","version":"1"}}}"#;

/// `spock-tui <args>` at `home`, reading nothing from stdin.
fn cmd(home: &Path, args: &[&str]) -> Command {
    let mut c = spock(home, args);
    c.stdin(Stdio::null());
    c
}

/// Run to completion, killed (and failed) if it outlives [`WAIT`]; stderr is captured, and
/// stdout unless the caller pointed it elsewhere.
fn finish(mut c: Command) -> Output {
    let mut child = c.stderr(Stdio::piped()).spawn().expect("spawn");
    let deadline = Instant::now() + WAIT;
    while child.try_wait().expect("wait").is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            let out = child.wait_with_output().expect("output");
            panic!(
                "still running after {WAIT:?}: {}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().expect("output")
}

fn run(home: &Path, args: &[&str]) -> (Output, String, String) {
    let mut c = cmd(home, args);
    c.stdout(Stdio::piped());
    let out = finish(c);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    (out, stdout, stderr)
}

fn free_port_held() -> (std::net::TcpListener, u16) {
    let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = l.local_addr().expect("addr").port();
    (l, port)
}

fn sigterm(child: &Child) {
    // SAFETY: a signal to a child this test spawned and still owns.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) };
}

fn wait_exit(child: &mut Child) -> std::process::ExitStatus {
    let deadline = Instant::now() + WAIT;
    loop {
        if let Some(st) = child.try_wait().expect("wait") {
            return st;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("did not exit within {WAIT:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// `spock-tui serve --demo` in its own home, with what it printed on stdout.
struct Serve {
    child: Child,
    home: PathBuf,
    lines: Vec<String>,
    stderr: PathBuf,
}

impl Serve {
    fn start(home: &Path, extra: &[&str]) -> Serve {
        let stderr = home.with_extension(format!("{}.err", std::process::id()));
        let mut args = vec!["serve", "--demo"];
        if !extra.contains(&"--port") {
            args.extend(["--port", "0"]);
        }
        args.extend(extra);
        let mut child = cmd(home, &args)
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(&stderr).expect("stderr file"))
            .spawn()
            .expect("spawn serve");
        let rx = lines_of(child.stdout.take().expect("stdout"));
        // `serve` prints its endpoints, then the demo line last.
        let mut lines = Vec::new();
        let deadline = Instant::now() + WAIT;
        while !lines.iter().any(|l: &String| l.starts_with("demo ")) {
            let left = deadline.saturating_duration_since(Instant::now());
            match rx.recv_timeout(left) {
                Ok(l) => lines.push(l),
                Err(_) => {
                    let _ = child.kill();
                    panic!(
                        "serve did not come up; printed {lines:?}; stderr: {}",
                        std::fs::read_to_string(&stderr).unwrap_or_default()
                    );
                }
            }
        }
        Serve {
            child,
            home: home.to_path_buf(),
            lines,
            stderr,
        }
    }

    fn line(&self, head: &str) -> Option<&str> {
        self.lines
            .iter()
            .find(|l| l.starts_with(head))
            .map(String::as_str)
    }

    fn descriptor_path(&self) -> PathBuf {
        self.home.join("run").join("endpoint.json")
    }

    fn descriptor(&self) -> Value {
        let text = std::fs::read_to_string(self.descriptor_path()).expect("descriptor");
        serde_json::from_str(&text).expect("descriptor json")
    }

    fn stop(&mut self) -> String {
        sigterm(&self.child);
        wait_exit(&mut self.child);
        std::fs::read_to_string(&self.stderr).unwrap_or_default()
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A relay to `descriptor` that has completed `initialize`; its stdin is still open.
struct Relay {
    child: Child,
    out: mpsc::Receiver<String>,
}

impl Relay {
    fn initialized(home: &Path, descriptor: &Path) -> Relay {
        let mut child = cmd(home, &["relay", descriptor.to_str().expect("utf-8 path")])
            // A stopped server is not waited for long (the relay waits 30 s for a restart).
            .env("SPOCK_TUI_RELAY_RECONNECT_SECS", "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn relay");
        let out = lines_of(child.stdout.take().expect("stdout"));
        let stdin = child.stdin.as_mut().expect("stdin");
        writeln!(stdin, "{INIT}").expect("write initialize");
        stdin.flush().expect("flush");
        let answer = out.recv_timeout(WAIT).expect("an answer to initialize");
        assert!(answer.contains(r#""result""#), "{answer}");
        Relay { child, out }
    }

    /// Wait for the relay to end; its stderr.
    fn stderr_at_exit(mut self) -> String {
        wait_exit(&mut self.child);
        let mut err = String::new();
        let _ = self
            .child
            .stderr
            .take()
            .expect("stderr")
            .read_to_string(&mut err);
        drop(self.out);
        err
    }
}

fn port_of(url: &str) -> u16 {
    url.trim_end_matches("/mcp")
        .rsplit(':')
        .next()
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("no port in {url}"))
}

#[test]
fn a_taken_port_serves_on_a_free_one_and_says_so() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let (_held, port) = free_port_held();
    let serve = Serve::start(&home, &["--port", &port.to_string()]);
    let http = serve.line("HTTP ").expect("an HTTP line");
    let actual = port_of(http.trim_start_matches("HTTP").trim());
    assert_ne!(actual, port);
    let note = serve.line("note ").expect("a note line");
    assert!(
        note.contains(&format!("port {port} was taken; serving on {actual}"))
            && note.contains("pin one with --port or server.port in config.toml"),
        "{note}"
    );
    std::net::TcpStream::connect(("127.0.0.1", actual)).expect("HTTP listens there");
    // The descriptor carries it for `config` and the control centre.
    let d = serve.descriptor();
    assert_eq!(port_of(d["http"].as_str().unwrap()), actual);
    assert!(
        d["http_note"].as_str().unwrap().contains("was taken"),
        "{d}"
    );
    let (out, stdout, stderr) = run(&home, &["config", "--http", "--client", "cursor"]);
    assert!(out.status.success(), "{stderr}");
    assert!(stdout.contains(&format!(":{actual}/mcp")), "{stdout}");
    assert!(
        stderr.contains(&format!("port {port} was taken")) && stderr.contains("pin one"),
        "{stderr}"
    );
}

#[test]
fn stdio_serves_when_http_cannot_listen_at_all() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    // TEST-NET-1: no machine of ours has this address, so HTTP cannot bind it.
    let serve = Serve::start(&home, &["--bind", "192.0.2.1"]);
    assert!(serve.line("HTTP ").is_none(), "{:?}", serve.lines);
    let note = serve.line("note ").expect("a note line");
    assert!(note.contains("HTTP cannot listen on 192.0.2.1"), "{note}");
    assert!(serve.line("stdio ").is_some(), "{:?}", serve.lines);
    let relay = Relay::initialized(&home, &serve.descriptor_path());
    drop(relay);
}

#[test]
fn a_second_instance_on_the_same_home_refuses_and_the_first_stays_reachable() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let mut first = Serve::start(&home, &[]);
    let pid = first.child.id();
    let refusal = format!(
        "another spock-tui (pid {pid}) is serving {} and writing its audit trail; reach it with \
         `spock-tui attach` (or `spock-tui config` for a client), stop it (kill {pid}), or use \
         another SPOCK_TUI_HOME for a second instance",
        home.display()
    );
    for second in [
        &["serve", "--demo", "--port", "0"][..],
        // The control centre refuses before it takes the terminal.
        &["--demo", "--port", "0"][..],
    ] {
        let (out, _, stderr) = run(&home, second);
        assert!(!out.status.success(), "{second:?} started");
        assert!(stderr.contains(&refusal), "{second:?}: {stderr}");
    }
    assert_eq!(first.descriptor()["pid"], pid);
    let relay = Relay::initialized(&home, &first.descriptor_path());
    drop(relay);
    // A crash leaves the descriptor and the socket behind, but never the lock.
    first.child.kill().unwrap();
    first.child.wait().unwrap();
    let next = Serve::start(&home, &[]);
    assert_eq!(next.descriptor()["pid"], next.child.id());
}

/// A descriptor naming a socket this test listens on (`config` checks that the instance
/// answers): keep the listener alive while the command runs.
fn fake_descriptor(home: &Path, http_note: Option<&str>) -> std::os::unix::net::UnixListener {
    use std::os::unix::fs::PermissionsExt as _;
    let run = home.join("run");
    std::fs::create_dir_all(&run).unwrap();
    std::fs::set_permissions(&run, std::fs::Permissions::from_mode(0o700)).unwrap();
    let listener = std::os::unix::net::UnixListener::bind(run.join("mcp.sock")).unwrap();
    let mut d = serde_json::json!({
        "unix": run.join("mcp.sock"),
        "token": "tok-secret",
        "pid": std::process::id(),
        "http": "http://127.0.0.1:8765/mcp",
    });
    if let Some(n) = http_note {
        d["http_note"] = n.into();
    }
    let file = run.join("endpoint.json");
    std::fs::write(&file, d.to_string()).unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
    listener
}

#[test]
fn config_refuses_a_descriptor_whose_instance_is_gone() {
    let tmp = tempfile::tempdir().unwrap();
    drop(fake_descriptor(tmp.path(), None));
    let (out, stdout, stderr) = run(tmp.path(), &["config", "--stdio"]);
    assert!(!out.status.success());
    assert!(stdout.is_empty(), "nothing to paste: {stdout}");
    assert!(
        stderr.contains("no running instance") && stderr.contains("not answering"),
        "{stderr}"
    );
}

#[test]
fn config_refuses_http_for_claude_desktop() {
    let tmp = tempfile::tempdir().unwrap();
    let (out, stdout, stderr) = run(
        tmp.path(),
        &["config", "--http", "--client", "claude-desktop"],
    );
    assert!(!out.status.success());
    assert!(stdout.is_empty(), "{stdout}");
    assert!(
        stderr.contains("only launches stdio servers")
            && stderr.contains("spock-tui config --stdio --client claude-desktop"),
        "{stderr}"
    );
}

#[test]
fn config_names_the_file_each_client_reads() {
    let tmp = tempfile::tempdir().unwrap();
    let _instance = fake_descriptor(tmp.path(), None);
    let desktop = if cfg!(target_os = "macos") {
        "~/Library/Application Support/Claude/claude_desktop_config.json"
    } else {
        "~/.config/Claude/claude_desktop_config.json"
    };
    let cases = [
        ("claude-code", "stdio", ".mcp.json"),
        ("claude-code", "http", "~/.claude.json"),
        ("claude-desktop", "stdio", desktop),
        ("cursor", "stdio", "~/.cursor/mcp.json"),
        ("cursor", "http", ".cursor/mcp.json"),
        ("vscode", "stdio", ".vscode/mcp.json"),
        ("vscode", "http", ".vscode/mcp.json"),
        ("codex", "stdio", "~/.codex/config.toml"),
        ("codex", "http", "~/.codex/config.toml"),
        ("gemini", "stdio", "~/.gemini/settings.json"),
        ("gemini", "http", "~/.gemini/settings.json"),
        ("generic", "http", "mcpServers"),
    ];
    for (client, transport, file) in cases {
        let (out, _, stderr) = run(
            tmp.path(),
            &["config", &format!("--{transport}"), "--client", client],
        );
        assert!(out.status.success(), "{client} {transport}: {stderr}");
        assert!(stderr.contains(file), "{client} {transport}: {stderr}");
    }
}

#[test]
fn config_for_codex_over_http_keeps_the_token_out_of_the_file() {
    let tmp = tempfile::tempdir().unwrap();
    let _instance = fake_descriptor(tmp.path(), None);
    let (out, stdout, stderr) = run(tmp.path(), &["config", "--http", "--client", "codex"]);
    assert!(out.status.success(), "{stderr}");
    let table: toml::Table = stdout.parse().expect(&stdout);
    let entry = &table["mcp_servers"]["spock-tui"];
    assert_eq!(entry["url"].as_str(), Some("http://127.0.0.1:8765/mcp"));
    assert_eq!(
        entry["bearer_token_env_var"].as_str(),
        Some("SPOCK_TUI_TOKEN")
    );
    assert!(!stdout.contains("tok-secret"), "{stdout}");
    let token_file = tmp.path().join("config").join("token");
    assert!(
        stderr.contains("export SPOCK_TUI_TOKEN=") && stderr.contains(token_file.to_str().unwrap()),
        "{stderr}"
    );
}

#[test]
fn run_flags_are_refused_where_they_mean_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let _instance = fake_descriptor(tmp.path(), None);
    let run_flags: [&[&str]; 6] = [
        &["--demo"],
        &["--port", "0"],
        &["--bind", "127.0.0.1"],
        &["--allow-all"],
        &["--project", "."],
        &["--adb", "127.0.0.1:5037"],
    ];
    let subcommands: [&[&str]; 7] = [
        &["config", "--stdio"],
        &["token", "path"],
        &["relay"],
        &["completions", "bash"],
        &["sim"],
        &["doctor"],
        &["relay", "x.json"],
    ];
    for sub in subcommands {
        for flag in run_flags {
            if sub[0] == "doctor" && flag[0] == "--adb" {
                continue; // doctor checks the servers it is given
            }
            let args: Vec<&str> = sub.iter().chain(flag.iter()).copied().collect();
            let (out, stdout, stderr) = run(tmp.path(), &args);
            assert_eq!(
                out.status.code(),
                Some(2),
                "{args:?} was accepted: {stdout}"
            );
            assert!(stderr.contains("unexpected argument"), "{args:?}: {stderr}");
        }
    }
    // Before a subcommand they belong to the control centre, which is not what runs.
    let (out, _, stderr) = run(tmp.path(), &["--demo", "config", "--stdio"]);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    for sub in ["sim", "config", "token", "completions", "relay"] {
        let (_, stdout, stderr) = run(tmp.path(), &[sub, "--help"]);
        let help = stdout + &stderr;
        for flag in ["--demo", "--port", "--bind", "--allow-all", "--project"] {
            assert!(!help.contains(flag), "`{sub} --help` lists {flag}:\n{help}");
        }
    }
    for help in [&["--help"][..], &["serve", "--help"][..]] {
        let (_, stdout, _) = run(tmp.path(), help);
        for flag in ["--demo", "--port", "--bind", "--allow-all", "--adb"] {
            assert!(stdout.contains(flag), "{help:?} lacks {flag}:\n{stdout}");
        }
    }
}

#[test]
fn printing_into_a_closed_pipe_exits_quietly() {
    let tmp = tempfile::tempdir().unwrap();
    let _instance = fake_descriptor(tmp.path(), None);
    for args in [
        &["completions", "bash"][..],
        &["config", "--stdio", "--client", "vscode"][..],
        &["token", "path"][..],
    ] {
        // `| head -1` after head has gone: the reading end is already closed.
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let mut c = cmd(tmp.path(), args);
        c.stdout(writer);
        let out = finish(c);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert!(out.status.success(), "{args:?}: {:?} {stderr}", out.status);
    }
}

#[test]
fn doctor_checks_a_running_demo_and_summarises_once() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let serve = Serve::start(&home, &[]);
    let demo_adb = serve
        .line("demo ")
        .and_then(|l| l.rsplit(' ').next())
        .unwrap()
        .to_string();
    let (out, stdout, stderr) = run(&home, &["doctor"]);
    assert!(out.status.success(), "{stdout}{stderr}");
    assert!(
        stdout.contains(&format!("adb server {demo_adb} reachable"))
            && stdout.contains(&format!("device sim-1 (Pixel_7) on {demo_adb}: device")),
        "{stdout}"
    );
    assert!(!stdout.contains(":5037"), "{stdout}");
    assert_eq!(stdout.matches("all good").count(), 1, "{stdout}");
    assert!(stderr.is_empty(), "{stderr}");
    // With problems: the summary is still printed once, and the exit status says so.
    let (_held, closed) = free_port_held();
    let lonely = tmp.path().join("lonely");
    let (out, stdout, stderr) = run(
        &lonely,
        &["doctor", "--adb", &format!("127.0.0.1:{closed}")],
    );
    assert!(!out.status.success(), "{stdout}");
    let both = stdout + &stderr;
    assert_eq!(both.matches("problem(s)").count(), 1, "{both}");
}

#[test]
fn serve_prints_its_stdio_endpoint_and_logs_without_colour() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let mut serve = Serve::start(&home, &[]);
    let stdio = serve.line("stdio ").expect("a stdio line").to_string();
    let descriptor = serve.descriptor_path();
    assert!(
        stdio.contains(&format!("spock-tui relay {}", descriptor.display())),
        "{stdio}"
    );
    assert!(serve.line("HTTP ").is_some() && serve.line("SSE ").is_some());
    let log = serve.stop();
    assert!(log.contains("server started"), "{log}");
    assert!(
        !log.contains('\u{1b}'),
        "ANSI codes in a log that is not a terminal: {log:?}"
    );
}

#[test]
fn relay_is_quiet_when_its_client_closes_and_speaks_when_the_server_leaves() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let mut serve = Serve::start(&home, &[]);
    let mut relay = Relay::initialized(&home, &serve.descriptor_path());
    drop(relay.child.stdin.take()); // the client is done
    let err = relay.stderr_at_exit();
    assert!(err.is_empty(), "stderr after a clean close: {err:?}");
    // The server going away while the client still talks is worth a line.
    let relay = Relay::initialized(&home, &serve.descriptor_path());
    serve.stop();
    let err = relay.stderr_at_exit();
    assert!(
        err.contains("the server closed the session") && err.contains("none came back within 1 s"),
        "{err:?}"
    );
}

/// A trail of `n` taps under `home`: its live file.
fn taps_trail(home: &Path, n: u64) -> std::path::PathBuf {
    use spock_tui::audit::{Audit, AuditRecord, Level, Transport};
    let audit_dir = spock_tui::config::Paths::under(home).audit_dir();
    let audit = Audit::open(&audit_dir, 100).expect("open");
    for x in 0..n {
        audit.append(AuditRecord::new(
            "android_tap",
            Level::SafeAction,
            Transport::Http,
            serde_json::json!({ "x": x }),
        ));
    }
    audit.flush_blocking().expect("flush");
    audit.path().to_path_buf()
}

#[test]
fn audit_verify_says_intact_then_names_the_first_break() {
    let dir = tempfile::tempdir().expect("tempdir");
    let home = dir.path().join("home");
    let file = taps_trail(&home, 6);

    let (out, stdout, stderr) = run(&home, &["audit", "verify"]);
    assert!(out.status.success(), "{stdout}{stderr}");
    assert!(
        stdout.starts_with("intact: 6 records in 1 files"),
        "{stdout}"
    );

    // One byte of the fourth record changed: verify names that record, exit code 1.
    let text = std::fs::read_to_string(&file).expect("read");
    let at = text
        .match_indices(r#""x":3"#)
        .next()
        .expect("fourth record")
        .0;
    let mut bytes = text.into_bytes();
    bytes[at + 4] = b'4';
    std::fs::write(&file, &bytes).expect("write");
    let (out, stdout, stderr) = run(&home, &["audit", "verify"]);
    assert_eq!(out.status.code(), Some(1), "{stdout}{stderr}");
    assert!(stderr.contains("line 4, seq 4"), "{stderr}");
    assert!(stderr.contains("altered"), "{stderr}");
    // Run flags belong to the control centre, not to `audit verify`.
    let (out, _, _) = run(&home, &["audit", "verify", "--demo"]);
    assert!(!out.status.success());
}

/// `audit verify --anchors -` reads the anchors from standard input (a `journalctl` pipe); a
/// check that cannot run exits 2, not 1 ("tampered"); a FIFO put in the live file's place is
/// refused rather than waited on; a chain run over a gap in the numbers is a break.
#[test]
fn audit_verify_reads_anchors_from_stdin_and_tells_could_not_run_from_tampered() {
    let dir = tempfile::tempdir().expect("tempdir");
    let home = dir.path().join("home");
    let audit_dir = spock_tui::config::Paths::under(&home).audit_dir();
    let file = taps_trail(&home, 4);
    let text = std::fs::read_to_string(&file).expect("read");
    let last = text.lines().last().expect("a line");
    let hash = spock_tui::audit::line_hash(last.as_bytes());
    let trail = spock_tui::audit::anchor::trail_id(&audit_dir);
    // One anchor for seq 5, one past the file's end: the trail lost its newest record.
    let anchors = format!(
        "audit anchor trail={trail} run=r1 seq=4 hash={hash} time=t reason=stop\n\
         audit anchor trail={trail} run=r1 seq=5 hash={} time=t reason=record\n",
        "ab".repeat(32)
    );
    let mut c = cmd(&home, &["audit", "verify", "--anchors", "-"]);
    c.stdin(Stdio::piped()).stdout(Stdio::piped());
    let mut child = c.stderr(Stdio::piped()).spawn().expect("spawn");
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), anchors.as_bytes()).unwrap();
    let out = child.wait_with_output().expect("wait");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("records up to seq 5 were anchored but the trail ends at seq 4"),
        "{stderr}"
    );

    // `--dir` names the trail to check; a directory that is not there is no intact trail.
    let (out, stdout, stderr) = run(
        &home,
        &["audit", "verify", "--dir", audit_dir.to_str().unwrap()],
    );
    assert!(
        out.status.success() && stdout.starts_with("intact: 4 records"),
        "{stdout}{stderr}"
    );
    let (out, _, stderr) = run(&home, &["audit", "verify", "--dir", "/nonexistent/audit"]);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("is not an audit directory"), "{stderr}");

    // An anchor log that is not there: exit 2.
    let (out, _, stderr) = run(&home, &["audit", "verify", "--anchors", "/nonexistent/log"]);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("could not run"), "{stderr}");

    // The second record taken out, the later ones' chain made to run over the gap.
    let lines: Vec<&str> = text.lines().collect();
    let mut recs: Vec<serde_json::Value> = lines
        .iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    recs.remove(1);
    let mut prev = spock_tui::audit::GENESIS.to_string();
    let mut out_text = String::new();
    for r in &mut recs {
        r["prev"] = serde_json::Value::String(prev.clone());
        let l = serde_json::to_string(r).unwrap();
        prev = spock_tui::audit::line_hash(l.as_bytes());
        out_text.push_str(&l);
        out_text.push('\n');
    }
    std::fs::write(&file, &out_text).unwrap();
    let (out, stdout, stderr) = run(&home, &["audit", "verify"]);
    assert_eq!(out.status.code(), Some(1), "{stdout}{stderr}");
    assert!(
        stderr.contains("record seq 2 is missing") || stderr.contains("seq 2..=2 are missing"),
        "{stderr}"
    );

    // A FIFO in the live file's place: refused at once, exit 2.
    std::fs::remove_file(&file).unwrap();
    let c_path = std::ffi::CString::new(file.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o600) }, 0);
    let (out, _, stderr) = run(&home, &["audit", "verify"]);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("not a regular file"), "{stderr}");
}

/// A long-running service's log rotates daily and keeps a bounded number of files: a week of
/// old ones is pruned to the newest when the day's file opens.
#[test]
fn the_log_is_one_file_a_day_and_old_days_are_pruned() {
    use std::os::unix::fs::PermissionsExt as _;
    let tmp = tempfile::tempdir().unwrap();
    let state = tmp.path().join("state");
    std::fs::create_dir_all(&state).unwrap();
    std::fs::set_permissions(&state, std::fs::Permissions::from_mode(0o700)).unwrap();
    // Pruned by creation time (as the files of past days were made): create them in order,
    // far enough apart for the filesystem's clock.
    for day in 1..=12 {
        std::fs::write(
            state.join(format!("spock-tui.2020-01-{day:02}.log")),
            "old\n",
        )
        .unwrap();
        std::thread::sleep(Duration::from_millis(20));
    }
    std::fs::write(state.join("unrelated.txt"), "kept").unwrap();
    let serve = Serve::start(tmp.path(), &[]);
    drop(serve);
    let mut logs: Vec<String> = std::fs::read_dir(&state)
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.starts_with("spock-tui.") && n.ends_with(".log"))
        .collect();
    logs.sort();
    let today = format!("spock-tui.{}.log", chrono::Utc::now().format("%Y-%m-%d"));
    assert!(logs.contains(&today), "{logs:?}");
    const LOG_DAYS: usize = spock_tui::app::LOG_DAYS;
    assert_eq!(logs.len(), LOG_DAYS, "{logs:?}");
    assert_eq!(
        logs[0],
        format!("spock-tui.2020-01-{:02}.log", 12 - (LOG_DAYS - 2)),
        "{logs:?}"
    );
    assert_eq!(
        logs[..LOG_DAYS - 1].last().map(String::as_str),
        Some("spock-tui.2020-01-12.log"),
        "the newest old days are kept: {logs:?}"
    );
    assert!(state.join("unrelated.txt").exists());
}
