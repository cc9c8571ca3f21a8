//! End to end against Debian's real `adb`: a private adb server (`adb -P <port>`) connects to
//! our adbd front door, and the real `adb` client also talks to our adb-server front door.
//! Skips (and says why) without an `adb` binary; fails instead when `CI` is set.
use std::io::Read;
use std::net::SocketAddr;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use spock_tui::sim::Target;
use spock_tui::sim::cli::{SimHandle, SimOptions, start};
use spock_tui::sim::faults::FaultCommand;

/// The protocol tests' minimal device (wire formats, not device behaviour).
mod double {
    pub use spock_tui::sim::cli::placeholder::PlaceholderTarget as DoubleTarget;
}

use crate::support::private_adb::{adb_present, free_port};

struct Out {
    code: Option<i32>,
    stdout: Vec<u8>,
    stderr: String,
}

/// Run a command with a deadline; `code` is None when it had to be killed.
fn run(mut cmd: Command, limit: Duration) -> Out {
    let mut child = cmd
        .env("ADB_EMU", "0")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut so = child.stdout.take().unwrap();
    let mut se = child.stderr.take().unwrap();
    let t_out = std::thread::spawn(move || {
        let mut b = Vec::new();
        let _ = so.read_to_end(&mut b);
        b
    });
    let t_err = std::thread::spawn(move || {
        let mut b = Vec::new();
        let _ = se.read_to_end(&mut b);
        b
    });
    let deadline = Instant::now() + limit;
    let code = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status.code();
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Out {
        code,
        stdout: t_out.join().unwrap(),
        stderr: String::from_utf8_lossy(&t_err.join().unwrap()).into_owned(),
    }
}

/// A private adb server, killed on drop so no test leaves one behind.
struct PrivateAdb {
    port: u16,
}

impl PrivateAdb {
    fn start() -> PrivateAdb {
        let port = free_port();
        let out = run(
            Self::cmd_on(port, &["start-server"]),
            Duration::from_secs(20),
        );
        assert_eq!(out.code, Some(0), "adb start-server: {}", out.stderr);
        PrivateAdb { port }
    }

    fn cmd_on(port: u16, args: &[&str]) -> Command {
        let mut c = Command::new("adb");
        c.arg("-P").arg(port.to_string()).args(args);
        c
    }

    fn adb(&self, args: &[&str]) -> Out {
        self.adb_within(args, Duration::from_secs(30))
    }

    fn adb_within(&self, args: &[&str], limit: Duration) -> Out {
        run(Self::cmd_on(self.port, args), limit)
    }

    /// `adb connect` and wait until the device is `device`.
    fn connect(&self, addr: SocketAddr) -> String {
        let serial = addr.to_string();
        let out = self.adb(&["connect", &serial]);
        assert!(
            String::from_utf8_lossy(&out.stdout).contains("connected to"),
            "connect: {:?} {}",
            out.stdout,
            out.stderr
        );
        self.wait_state(&serial, "device", Duration::from_secs(15));
        serial
    }

    fn state(&self, serial: &str) -> String {
        let out = self.adb(&["devices"]);
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        text.lines()
            .filter_map(|l| l.split_once('\t'))
            .find(|(s, _)| *s == serial)
            .map(|(_, st)| st.to_owned())
            .unwrap_or_else(|| "absent".to_owned())
    }

    fn wait_state(&self, serial: &str, want: &str, limit: Duration) {
        let deadline = Instant::now() + limit;
        loop {
            let got = self.state(serial);
            if got == want {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "{serial} stayed {got:?}, wanted {want:?}"
            );
            std::thread::sleep(Duration::from_millis(200));
        }
    }
}

impl Drop for PrivateAdb {
    fn drop(&mut self) {
        let _ = run(
            Self::cmd_on(self.port, &["kill-server"]),
            Duration::from_secs(10),
        );
    }
}

struct Sim {
    rt: tokio::runtime::Runtime,
    handle: Option<SimHandle>,
}

impl Sim {
    fn start(models: &[(&str, &str)], server: bool) -> Sim {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let devices: Vec<Arc<dyn Target>> = models
            .iter()
            .map(|(serial, model)| {
                Arc::new(double::DoubleTarget::new(serial, model)) as Arc<dyn Target>
            })
            .collect();
        let loopback: SocketAddr = "127.0.0.1:0".parse().unwrap();
        let opts = SimOptions {
            devices,
            adb_server: server.then_some(loopback),
            adbd: vec![loopback],
            control: Some(loopback),
            faults: Vec::new(),
        };
        let handle = rt.block_on(start(opts)).unwrap();
        Sim {
            rt,
            handle: Some(handle),
        }
    }

    fn handle(&self) -> &SimHandle {
        self.handle.as_ref().unwrap()
    }

    fn fault(&self, serial: &str, command: FaultCommand) {
        self.handle().faults(serial).unwrap().apply(&command);
    }
}

impl Drop for Sim {
    fn drop(&mut self) {
        if let Some(h) = self.handle.take() {
            self.rt.block_on(h.stop());
        }
    }
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn devices_shell_exit_codes_exec_out_and_push_pull() {
    if !adb_present() {
        return;
    }
    let sim = Sim::start(&[("sim-1", "Pixel 7")], false);
    let adb = PrivateAdb::start();
    let s = adb.connect(sim.handle().adbd[0].addr);

    let listing = text(&adb.adb(&["devices", "-l"]).stdout);
    let line = listing
        .lines()
        .find(|l| l.starts_with(&s))
        .unwrap_or_else(|| panic!("{listing}"));
    assert!(
        line.contains(" device ")
            && line.contains("model:Pixel_7")
            && line.contains("device:emu64x"),
        "{line}"
    );

    let hi = adb.adb(&["-s", &s, "shell", "echo", "hi"]);
    assert_eq!((hi.code, text(&hi.stdout)), (Some(0), "hi\n".to_owned()));

    let e42 = adb.adb(&["-s", &s, "shell", "echo out; exit 42"]);
    assert_eq!(
        (e42.code, text(&e42.stdout)),
        (Some(42), "out\n".to_owned())
    );

    // stderr arrives on adb's stderr, separate from stdout (shell v2).
    let e127 = adb.adb(&["-s", &s, "shell", "echo out; frobnicate"]);
    assert_eq!(e127.code, Some(127));
    assert_eq!(text(&e127.stdout), "out\n");
    assert_eq!(
        e127.stderr,
        "/system/bin/sh: frobnicate: inaccessible or not found\n"
    );

    // 1 MB of random bytes: push, pull back, and exec-out, all byte-exact.
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("random.bin");
    let data: Vec<u8> = (0..1_000_000u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    std::fs::write(&src, &data).unwrap();
    let push = adb.adb(&[
        "-s",
        &s,
        "push",
        src.to_str().unwrap(),
        "/sdcard/new/dir/random.bin",
    ]);
    assert_eq!(
        push.code,
        Some(0),
        "push: {}{}",
        text(&push.stdout),
        push.stderr
    );
    let back = dir.path().join("back.bin");
    let pull = adb.adb(&[
        "-s",
        &s,
        "pull",
        "/sdcard/new/dir/random.bin",
        back.to_str().unwrap(),
    ]);
    assert_eq!(pull.code, Some(0), "pull: {}", pull.stderr);
    assert!(std::fs::read(&back).unwrap() == data, "pulled file differs");
    let exec = adb.adb(&["-s", &s, "exec-out", "cat", "/sdcard/new/dir/random.bin"]);
    assert_eq!(exec.code, Some(0));
    assert!(
        exec.stdout == data,
        "exec-out returned {} bytes, not the file",
        exec.stdout.len()
    );

    let missing = adb.adb(&["-s", &s, "pull", "/sdcard/nope", back.to_str().unwrap()]);
    assert_ne!(missing.code, Some(0));
    // adb 29 prints this error on stdout.
    let said = format!("{}{}", text(&missing.stdout), missing.stderr);
    assert!(
        said.contains("failed to stat remote object '/sdcard/nope': No such file or directory"),
        "{said}"
    );
}

#[test]
fn twenty_parallel_shells_and_reconnect() {
    if !adb_present() {
        return;
    }
    let sim = Sim::start(&[("sim-1", "Pixel 7")], false);
    let adb = Arc::new(PrivateAdb::start());
    let s = adb.connect(sim.handle().adbd[0].addr);
    let workers: Vec<_> = (0..20)
        .map(|i| {
            let (adb, s) = (adb.clone(), s.clone());
            std::thread::spawn(move || {
                adb.adb(&["-s", &s, "shell", "sleep 0.5; echo", &format!("n{i}")])
            })
        })
        .collect();
    for (i, w) in workers.into_iter().enumerate() {
        let out = w.join().unwrap();
        assert_eq!(
            (out.code, text(&out.stdout)),
            (Some(0), format!("n{i}\n")),
            "{}",
            out.stderr
        );
    }

    let gone = adb.adb(&["disconnect", &s]);
    assert_eq!(gone.code, Some(0));
    assert_eq!(adb.state(&s), "absent");
    adb.connect(sim.handle().adbd[0].addr);
    let again = adb.adb(&["-s", &s, "shell", "echo", "again"]);
    assert_eq!(text(&again.stdout), "again\n");
}

#[test]
fn faults_refuse_delay_hang() {
    if !adb_present() {
        return;
    }
    let sim = Sim::start(&[("sim-1", "Pixel 7")], false);
    let adb = PrivateAdb::start();
    let s = adb.connect(sim.handle().adbd[0].addr);

    sim.fault("sim-1", FaultCommand::Refuse);
    let refused = adb.adb(&["-s", &s, "shell", "echo", "hi"]);
    assert_ne!(refused.code, Some(0));
    assert_eq!(refused.stderr.trim(), "error: closed");
    sim.fault("sim-1", FaultCommand::Clear);

    sim.fault("sim-1", FaultCommand::Delay { ms: 300 });
    let t = Instant::now();
    let slow = adb.adb(&["-s", &s, "shell", "echo", "slow"]);
    assert_eq!(text(&slow.stdout), "slow\n");
    assert!(
        t.elapsed() >= Duration::from_millis(300),
        "took only {:?}",
        t.elapsed()
    );
    sim.fault("sim-1", FaultCommand::Clear);

    sim.fault(
        "sim-1",
        FaultCommand::Hang {
            command: "screenrecord".into(),
        },
    );
    let hung = adb.adb_within(
        &["-s", &s, "shell", "screenrecord", "/sdcard/a.mp4"],
        Duration::from_secs(2),
    );
    assert_eq!(hung.code, None, "a hung command must not answer");
    // Other commands on the same device still answer.
    assert_eq!(
        text(&adb.adb(&["-s", &s, "shell", "echo", "alive"]).stdout),
        "alive\n"
    );
}

#[test]
fn faults_offline_and_drop() {
    if !adb_present() {
        return;
    }
    let sim = Sim::start(&[("sim-1", "Pixel 7")], false);
    let adb = PrivateAdb::start();
    let s = adb.connect(sim.handle().adbd[0].addr);

    sim.fault("sim-1", FaultCommand::Offline);
    adb.wait_state(&s, "offline", Duration::from_secs(10));
    let off = adb.adb(&["-s", &s, "shell", "echo", "hi"]);
    assert_ne!(off.code, Some(0));
    assert!(off.stderr.contains("device offline"), "{}", off.stderr);
    sim.fault("sim-1", FaultCommand::Online);
    adb.wait_state(&s, "device", Duration::from_secs(15));
    assert_eq!(
        text(&adb.adb(&["-s", &s, "shell", "echo", "back"]).stdout),
        "back\n"
    );

    let big = vec![7u8; 300_000];
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("big.bin");
    std::fs::write(&src, &big).unwrap();
    assert_eq!(
        adb.adb(&["-s", &s, "push", src.to_str().unwrap(), "/sdcard/big.bin"])
            .code,
        Some(0)
    );
    sim.fault("sim-1", FaultCommand::Drop { bytes: 5000 });
    let cut = adb.adb(&["-s", &s, "exec-out", "cat", "/sdcard/big.bin"]);
    assert!(
        cut.stdout.len() < big.len(),
        "the connection was not dropped ({} bytes arrived)",
        cut.stdout.len()
    );
    sim.fault("sim-1", FaultCommand::Clear);
    // adb reconnects by itself once the link behaves again.
    adb.wait_state(&s, "device", Duration::from_secs(20));
    let whole = adb.adb(&["-s", &s, "exec-out", "cat", "/sdcard/big.bin"]);
    assert!(whole.stdout == big);
}

#[test]
fn real_adb_client_against_the_adb_server_front_door() {
    if !adb_present() {
        return;
    }
    let sim = Sim::start(
        &[("sim-1", "Pixel 7"), ("emulator-5554", "sdk phone")],
        true,
    );
    let port = sim.handle().adb_server.unwrap().port();
    let cmd = |args: &[&str]| run(PrivateAdb::cmd_on(port, args), Duration::from_secs(20));

    let listing = text(&cmd(&["devices", "-l"]).stdout);
    assert!(listing.contains("sim-1                  device product:sdk_gphone64_x86_64 model:Pixel_7 device:emu64x transport_id:1"), "{listing}");
    assert!(listing.contains("model:sdk_phone"), "{listing}");

    let hi = cmd(&["-s", "sim-1", "shell", "echo hi; exit 3"]);
    assert_eq!(
        (hi.code, text(&hi.stdout)),
        (Some(3), "hi\n".to_owned()),
        "{}",
        hi.stderr
    );
    let err = cmd(&["-s", "emulator-5554", "shell", "nosuch"]);
    assert_eq!(err.code, Some(127));
    assert!(err.stderr.contains("nosuch: inaccessible or not found"));

    let ambiguous = cmd(&["shell", "echo"]);
    assert!(
        ambiguous.stderr.contains("more than one device"),
        "{}",
        ambiguous.stderr
    );

    sim.fault("sim-1", FaultCommand::Offline);
    let listing = text(&cmd(&["devices"]).stdout);
    assert!(listing.contains("sim-1\toffline"), "{listing}");
    assert!(
        cmd(&["-s", "sim-1", "shell", "echo"])
            .stderr
            .contains("device offline")
    );
    sim.fault("sim-1", FaultCommand::Clear);

    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("f.bin");
    std::fs::write(&src, b"\x00\x01binary\r\n\xff").unwrap();
    assert_eq!(
        cmd(&[
            "-s",
            "sim-1",
            "push",
            src.to_str().unwrap(),
            "/sdcard/f.bin"
        ])
        .code,
        Some(0)
    );
    let exec = cmd(&["-s", "sim-1", "exec-out", "cat", "/sdcard/f.bin"]);
    assert_eq!(exec.stdout, b"\x00\x01binary\r\n\xff");

    // `adb kill-server` sends host:kill, which stops this front door only.
    let _ = cmd(&["kill-server"]);
    let deadline = Instant::now() + Duration::from_secs(5);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
        assert!(
            Instant::now() < deadline,
            "adb-server front door still accepting after host:kill"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(
        std::net::TcpStream::connect(sim.handle().adbd[0].addr).is_ok(),
        "adbd must keep running"
    );
}
