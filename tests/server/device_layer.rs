//! The device layer against Debian's real `adb` server on a private port (skipped, saying so,
//! when no `adb` is on PATH). No phone is attached, so this proves the host protocol, error
//! wording and recovery; device calls are covered by the fake server in `crates/spock-core/src/device/tests.rs`.
use std::net::TcpListener;
use std::process::Command;
use std::time::{Duration, Instant};

use spock_tui::device::{AdbEndpoint, DeviceError, DeviceEvent, DeviceOptions, Devices, Timeouts};

fn adb_on_path() -> bool {
    Command::new("adb")
        .arg("version")
        .output()
        .is_ok_and(|o| o.status.success())
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A private adb server, killed when dropped (and so even when an assertion fails).
struct AdbServer(u16);

impl AdbServer {
    fn start(port: u16) -> AdbServer {
        let st = Command::new("adb")
            .args(["-P", &port.to_string(), "start-server"])
            .env("ADB_EMU", "0")
            .output()
            .expect("run adb");
        assert!(
            st.status.success(),
            "adb start-server: {}",
            String::from_utf8_lossy(&st.stderr)
        );
        AdbServer(port)
    }

    fn kill(&self) {
        let _ = Command::new("adb")
            .args(["-P", &self.0.to_string(), "kill-server"])
            .output();
    }
}

impl Drop for AdbServer {
    fn drop(&mut self) {
        self.kill();
    }
}

fn devices(port: u16, autostart: bool) -> Devices {
    let t = Timeouts {
        connect: Duration::from_secs(2),
        host: Duration::from_secs(5),
        start_server: Duration::from_secs(20),
        ..Timeouts::default()
    };
    let opts = DeviceOptions {
        autostart_local_server: autostart,
        ..DeviceOptions::default()
    };
    Devices::with_options(vec![AdbEndpoint::local(port)], t, opts)
}

async fn wait_for(
    rx: &mut tokio::sync::broadcast::Receiver<DeviceEvent>,
    want: impl Fn(&DeviceEvent) -> bool,
) -> DeviceEvent {
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let ev = tokio::time::timeout(left, rx.recv())
            .await
            .expect("event in time")
            .unwrap();
        if want(&ev) {
            return ev;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn real_adb_server_lists_fails_clearly_and_recovers() {
    if !adb_on_path() {
        eprintln!("SKIPPED: no `adb` on PATH (apt-get install -y adb)");
        return;
    }
    let port = free_port();
    let server = AdbServer::start(port);
    let ep = AdbEndpoint::local(port);
    let d = devices(port, false);
    let mut rx = d.subscribe();

    assert!(
        d.server_version(&ep).await.unwrap() >= 31,
        "adb 1.0.31 or newer"
    );
    assert!(
        d.list().await.unwrap().is_empty(),
        "no devices on a private server"
    );

    // adb's own refusal for an unknown serial becomes a typed, named error.
    let e = d
        .device("no-such-phone")
        .shell("true", Duration::from_secs(5))
        .await
        .unwrap_err();
    assert_eq!(
        e,
        DeviceError::NoDevice {
            serial: "no-such-phone".into(),
            known: vec![]
        }
    );
    let e = d
        .device("no-such-phone")
        .features(Duration::from_secs(5))
        .await
        .unwrap_err();
    assert!(matches!(e, DeviceError::NoDevice { .. }), "{e}");

    // Up is a transition: reported once, by whichever call saw the server first.
    wait_for(&mut rx, |e| matches!(e, DeviceEvent::ServerUp { .. })).await;
    d.start_tracking();
    tokio::time::sleep(Duration::from_millis(300)).await;

    // The server dies under us: tracking reports it, and calls say what is wrong.
    server.kill();
    let ev = wait_for(&mut rx, |e| matches!(e, DeviceEvent::ServerDown { .. })).await;
    let DeviceEvent::ServerDown {
        server: down,
        error,
    } = ev
    else {
        unreachable!()
    };
    assert_eq!(down, ep);
    assert!(!error.is_empty());
    let e = d.list().await.unwrap_err();
    assert!(matches!(e, DeviceError::ServerUnreachable { .. }), "{e}");
    assert!(
        e.to_string().contains(&ep.to_string()),
        "names the server: {e}"
    );
    assert_eq!(d.server_errors().len(), 1);

    // adb comes back: tracking reconnects by itself (a listing while nothing answers asks the
    // tracker to retry at once), and the next call succeeds.
    let _server = AdbServer::start(port);
    assert!(d.list().await.unwrap().is_empty());
    assert!(d.server_errors().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_local_port_gets_adb_started_on_that_port_only() {
    if !adb_on_path() {
        eprintln!("SKIPPED: no `adb` on PATH (apt-get install -y adb)");
        return;
    }
    let port = free_port();
    let guard = AdbServer(port); // nothing runs yet; kills what autostart starts
    let d = devices(port, true);
    assert!(
        d.list().await.unwrap().is_empty(),
        "adb was started on {port} and answered"
    );
    assert!(d.server_version(&AdbEndpoint::local(port)).await.is_ok());
    drop(guard);

    // Without autostart the same situation is a clear error, not a silent start.
    let port = free_port();
    let e = devices(port, false).list().await.unwrap_err();
    assert!(matches!(e, DeviceError::ServerUnreachable { .. }), "{e}");
    assert!(
        TcpListener::bind(("127.0.0.1", port)).is_ok(),
        "nothing was started on {port}"
    );
}

/// Item 3: background work (tracking, its retries) never starts an adb server; on the default
/// endpoint a call does, as `adb` itself would on any command, and says so. An endpoint given
/// explicitly (`autostart_local_server: false`, as app.rs builds it for `--adb`) never gets
/// one, however many calls fail.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn adb_is_started_only_by_a_call_on_the_default_endpoint() {
    if !adb_on_path() {
        eprintln!("SKIPPED: no `adb` on PATH (apt-get install -y adb)");
        return;
    }
    let nothing_on = |port: u16| TcpListener::bind(("127.0.0.1", port)).is_ok();
    // The default endpoint: tracking retries for a while and starts nothing…
    let port = free_port();
    let guard = AdbServer(port); // kills what the call below starts
    let d = devices(port, true);
    d.start_tracking();
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert!(nothing_on(port), "tracking started an adb server on {port}");
    assert!(d.notes().is_empty());
    // …and a call starts one, as `adb devices` would, and says so.
    assert!(d.list().await.unwrap().is_empty());
    assert!(!nothing_on(port), "the call started adb on {port}");
    let notes = d.notes();
    assert!(
        notes.len() == 1 && notes[0].contains("started one as `adb` itself would"),
        "{notes:?}"
    );
    drop(d);
    drop(guard);

    // An explicit endpoint: calls fail, naming the server, and nothing is ever started.
    let port = free_port();
    let _guard = AdbServer(port);
    let d = devices(port, false);
    d.start_tracking();
    for _ in 0..3 {
        let e = d.list().await.unwrap_err();
        assert!(matches!(e, DeviceError::ServerUnreachable { .. }), "{e}");
        let e = d
            .device("emulator-5554")
            .shell("true", Duration::from_secs(5))
            .await
            .unwrap_err();
        assert!(e.to_string().contains(&port.to_string()), "{e}");
    }
    tokio::time::sleep(Duration::from_millis(1000)).await;
    assert!(nothing_on(port), "something was started on {port}");
    assert!(d.notes().is_empty());
}
