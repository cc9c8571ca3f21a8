//! The device layer against the scripted fake adb server in [`super::fake`]: framing, exit
//! codes, errors, timeouts, tracking and several servers.
use std::time::Duration;

use bytes::Bytes;
use tokio_util::sync::CancellationToken;

use super::fake::{FakeAdb, HostMode, line};
use super::*;

const T: Duration = Duration::from_secs(5);

fn devs(servers: &[&FakeAdb]) -> Devices {
    let t = Timeouts {
        connect: Duration::from_secs(2),
        host: Duration::from_secs(2),
        start_server: T,
        probe: Duration::from_millis(300),
    };
    let opts = DeviceOptions {
        autostart_local_server: false,
        shell_output_cap: 1 << 20,
        read_props: true,
    };
    Devices::with_options(servers.iter().map(|f| f.ep.clone()).collect(), t, opts)
}

async fn next_event(rx: &mut tokio::sync::broadcast::Receiver<DeviceEvent>) -> DeviceEvent {
    tokio::time::timeout(T, rx.recv())
        .await
        .expect("an event in time")
        .expect("open channel")
}

#[tokio::test]
async fn version_and_long_listing() {
    let f = FakeAdb::start(&line("emulator-5554", "device", "Pixel_7", 1)).await;
    let d = devs(&[&f]);
    assert_eq!(d.server_version(&f.ep).await.unwrap(), 0x29);
    let list = d.list().await.unwrap();
    assert_eq!(list.len(), 1);
    assert_eq!(list[0].serial, "emulator-5554");
    assert_eq!(list[0].state, DeviceState::Device);
    assert_eq!(list[0].model.as_deref(), Some("Pixel_7"));
    assert_eq!(list[0].transport_id, Some(1));
    assert!(d.server_errors().is_empty());
}

#[tokio::test]
async fn shell_v2_keeps_exit_code_and_separate_stderr() {
    let f = FakeAdb::start(&line("s1", "device", "m", 1)).await;
    let out = devs(&[&f]).device("s1").shell("exit42", T).await.unwrap();
    assert_eq!(out.exit_code, 42);
    assert_eq!(&out.stdout[..], b"out\n");
    assert_eq!(&out.stderr[..], b"err\n");
}

#[tokio::test]
async fn legacy_shell_recovers_exit_code_from_sentinel() {
    let f = FakeAdb::start(&line("old", "device", "m", 1)).await;
    f.features
        .lock()
        .unwrap()
        .insert("old".into(), "cmd".into());
    let dev = devs(&[&f]).device("old");
    let out = dev.shell("exit42", T).await.unwrap();
    assert_eq!((out.exit_code, &out.stdout[..]), (42, &b"out\nerr\n"[..]));
    assert!(
        out.stderr.is_empty(),
        "legacy shell merges stderr into stdout"
    );
    let e = dev.shell("vanish", T).await.unwrap_err();
    assert!(matches!(e, DeviceError::Lost { .. }), "{e}");
}

#[tokio::test]
async fn hung_server_times_out() {
    let f = FakeAdb::start("").await;
    f.set_mode(HostMode::Hang);
    let d = devs(&[&f]);
    let started = std::time::Instant::now();
    let e = d.server_version(&f.ep).await.unwrap_err();
    assert!(matches!(e, DeviceError::Timeout { .. }), "{e}");
    assert!(started.elapsed() < Duration::from_secs(4));
    assert!(e.to_string().contains("timed out after"), "{e}");
}

#[tokio::test]
async fn server_dropping_mid_reply_is_a_clear_error() {
    let f = FakeAdb::start(&line("s1", "device", "m", 1)).await;
    f.set_mode(HostMode::DropMidReply);
    let e = devs(&[&f]).list().await.unwrap_err();
    assert!(matches!(e, DeviceError::Io(_)), "{e}");
    assert!(
        e.to_string()
            .contains("closed the connection in the middle of host:devices-l"),
        "{e}"
    );
}

#[tokio::test]
async fn device_vanishing_mid_shell_is_lost_not_success() {
    let f = FakeAdb::start(&line("s1", "device", "m", 1)).await;
    let e = devs(&[&f])
        .device("s1")
        .shell("vanish", T)
        .await
        .unwrap_err();
    assert!(
        matches!(e, DeviceError::Lost { ref serial, .. } if serial == "s1"),
        "{e}"
    );
}

#[tokio::test]
async fn unknown_and_unauthorized_devices_are_named() {
    let f = FakeAdb::start(&(line("s1", "device", "m", 1) + &line("s2", "device", "m", 2))).await;
    let d = devs(&[&f]);
    d.list().await.unwrap();
    let e = d.device("nope").shell("true", T).await.unwrap_err();
    assert_eq!(
        e,
        DeviceError::NoDevice {
            serial: "nope".into(),
            known: vec!["s1".into(), "s2".into()]
        }
    );
    assert!(e.to_string().contains("s1, s2"));
    f.refuse.lock().unwrap().insert(
        "s2".into(),
        "device unauthorized.\nThis adb server's $ADB_VENDOR_KEYS is not set".into(),
    );
    let e = d.device("s2").exec_out("bytes 1", T, 10).await.unwrap_err();
    assert_eq!(
        e,
        DeviceError::Unauthorized {
            serial: "s2".into()
        }
    );
    assert!(e.to_string().contains("accept the USB debugging prompt"));
    f.refuse
        .lock()
        .unwrap()
        .insert("s2".into(), "device offline".into());
    let e = d.device("s2").exec_out("bytes 1", T, 10).await.unwrap_err();
    assert_eq!(
        e,
        DeviceError::Offline {
            serial: "s2".into()
        }
    );
}

#[tokio::test]
async fn exec_out_is_byte_exact_and_capped() {
    let f = FakeAdb::start(&line("s1", "device", "m", 1)).await;
    let dev = devs(&[&f]).device("s1");
    let b = dev.exec_out("bytes 3", T, 1 << 20).await.unwrap();
    let want: Vec<u8> = (0..3).flat_map(|_| 0u8..=255).collect();
    assert_eq!(
        &b[..],
        &want[..],
        "every byte value, CR/LF included, unchanged"
    );
    let e = dev.exec_out("bytes 100", T, 1000).await.unwrap_err();
    assert_eq!(e, DeviceError::TooLarge { limit: 1000 });
}

#[tokio::test]
async fn shell_output_cap_and_cancel() {
    let f = FakeAdb::start(&line("s1", "device", "m", 1)).await;
    let dev = devs(&[&f]).device("s1");
    let e = dev.shell("flood", T).await.unwrap_err();
    assert_eq!(e, DeviceError::TooLarge { limit: 1 << 20 });
    let cancel = CancellationToken::new();
    let c2 = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(100)).await;
        c2.cancel();
    });
    let e = dev.shell_with_cancel("hang", T, cancel).await.unwrap_err();
    assert_eq!(e, DeviceError::Cancelled);
    let e = dev
        .shell("hang", Duration::from_millis(200))
        .await
        .unwrap_err();
    assert!(matches!(e, DeviceError::Timeout { .. }), "{e}");
}

#[tokio::test]
async fn a_hanging_device_does_not_hold_up_others() {
    let f = FakeAdb::start(&(line("s1", "device", "m", 1) + &line("s2", "device", "m", 2))).await;
    let d = devs(&[&f]);
    let (a, b) = (d.device("s1"), d.device("s2"));
    let slow = tokio::spawn(async move { a.shell("hang", Duration::from_secs(3)).await });
    let started = std::time::Instant::now();
    for _ in 0..5 {
        assert_eq!(&b.shell("echo hi", T).await.unwrap().stdout[..], b"echo hi");
    }
    assert!(started.elapsed() < Duration::from_secs(2));
    slow.abort();
}

#[tokio::test]
async fn push_pull_stat_round_trip_with_cap() {
    let f = FakeAdb::start(&line("s1", "device", "m", 1)).await;
    let dev = devs(&[&f]).device("s1");
    let data: Bytes = (0..200_000u32)
        .map(|i| (i % 251) as u8)
        .collect::<Vec<u8>>()
        .into();
    assert_eq!(dev.stat("/sdcard/x.bin", T).await.unwrap(), None);
    dev.push(data.clone(), "/sdcard/x.bin", 0o644, T)
        .await
        .unwrap();
    assert_eq!(
        f.files.lock().unwrap()["/sdcard/x.bin"].0,
        0o100644,
        "regular file, given mode"
    );
    let st = dev.stat("/sdcard/x.bin", T).await.unwrap().unwrap();
    assert_eq!(st.size, 200_000);
    assert!(st.is_file());
    assert_eq!(dev.pull("/sdcard/x.bin", 1 << 20, T).await.unwrap(), data);
    let e = dev.pull("/sdcard/x.bin", 100_000, T).await.unwrap_err();
    assert_eq!(e, DeviceError::TooLarge { limit: 100_000 });
    let e = dev.pull("/sdcard/none", 10, T).await.unwrap_err();
    assert!(e.to_string().contains("No such file or directory"), "{e}");
    // A device without stat_v2 gets the 32-bit STAT.
    f.features
        .lock()
        .unwrap()
        .insert("s1".into(), "shell_v2".into());
    let d2 = devs(&[&f]).device("s1");
    assert_eq!(
        d2.stat("/sdcard/x.bin", T).await.unwrap().unwrap().size,
        200_000
    );
    assert_eq!(d2.stat("/sdcard/none", T).await.unwrap(), None);
}

#[tokio::test]
async fn spawned_shell_is_waited_for() {
    let f = FakeAdb::start(&line("s1", "device", "m", 1)).await;
    let dev = devs(&[&f]).device("s1");
    let mut run = dev.spawn_shell("exit42").await.unwrap();
    assert_eq!(run.wait(T).await.unwrap().exit_code, 42);
    let mut run = dev.spawn_shell("hang").await.unwrap();
    let e = run.wait(Duration::from_millis(100)).await.unwrap_err();
    assert!(matches!(e, DeviceError::Timeout { .. }));
    assert!(
        !run.is_finished(),
        "a timed-out wait leaves the command running"
    );
}

#[tokio::test]
async fn colliding_serials_are_qualified_and_routed() {
    let a =
        FakeAdb::start(&(line("same", "device", "A", 1) + &line("only-a", "device", "A", 2))).await;
    let b = FakeAdb::start(&line("same", "device", "B", 1)).await;
    let d = devs(&[&a, &b]);
    let list = d.list().await.unwrap();
    let names: Vec<&str> = list.iter().map(|e| e.serial.as_str()).collect();
    let qa = format!("same@{}", a.ep);
    let qb = format!("same@{}", b.ep);
    assert_eq!(names, [qa.as_str(), "only-a", qb.as_str()]);
    b.features
        .lock()
        .unwrap()
        .insert("same".into(), "cmd".into()); // b's copy is legacy
    let out = d.device(&qb).shell("exit42", T).await.unwrap();
    assert!(out.stderr.is_empty(), "routed to server b (legacy shell)");
    assert_eq!(
        d.device(&qa).shell("exit42", T).await.unwrap().stderr,
        Bytes::from_static(b"err\n")
    );
    let e = d.device("same").shell("true", T).await.unwrap_err();
    assert!(matches!(e, DeviceError::Ambiguous { .. }), "{e}");
    assert!(d.device("only-a").shell("true", T).await.is_ok());
}

#[tokio::test]
async fn one_dead_server_does_not_hide_the_others() {
    let a = FakeAdb::start(&line("s1", "device", "m", 1)).await;
    let dead = FakeAdb::start("").await;
    let dead_ep = dead.ep.clone();
    dead.kill();
    drop(dead);
    tokio::time::sleep(Duration::from_millis(50)).await;
    let t = Timeouts {
        connect: Duration::from_secs(1),
        host: Duration::from_secs(1),
        start_server: T,
        probe: Duration::from_millis(300),
    };
    let opts = DeviceOptions {
        autostart_local_server: false,
        shell_output_cap: 1 << 20,
        read_props: false,
    };
    let d = Devices::with_options(vec![a.ep.clone(), dead_ep.clone()], t, opts);
    let list = d.list().await.unwrap();
    assert_eq!(list.len(), 1);
    let errs = d.server_errors();
    assert_eq!(errs.len(), 1);
    assert_eq!(errs[0].0, dead_ep);
    assert!(errs[0].1.contains("unreachable"), "{}", errs[0].1);
    let only_dead = Devices::with_options(vec![dead_ep], t, opts);
    let e = only_dead.list().await.unwrap_err();
    assert!(matches!(e, DeviceError::ServerUnreachable { .. }), "{e}");
}

#[tokio::test]
async fn tracking_publishes_arrivals_departures_and_server_health() {
    let f = FakeAdb::start(&line("s1", "device", "m", 1)).await;
    let port = f.ep.port;
    let d = devs(&[&f]);
    let mut rx = d.subscribe();
    d.start_tracking();
    assert_eq!(
        next_event(&mut rx).await,
        DeviceEvent::ServerUp {
            server: f.ep.clone()
        }
    );
    assert!(matches!(next_event(&mut rx).await, DeviceEvent::Added(e) if e.serial == "s1"));
    f.devices
        .send_replace(line("s1", "unauthorized", "m", 1) + &line("s2", "device", "m", 2));
    assert!(matches!(next_event(&mut rx).await,
        DeviceEvent::Changed(e) if e.serial == "s1" && e.state == DeviceState::Unauthorized));
    assert!(matches!(next_event(&mut rx).await, DeviceEvent::Added(e) if e.serial == "s2"));
    f.devices.send_replace(line("s2", "device", "m", 2));
    assert!(matches!(next_event(&mut rx).await,
        DeviceEvent::Removed { serial, id } if serial == "s1" && id == format!("s1@{}", f.ep)));
    // The server dies: it is reported down, and its devices stay listed as unreachable.
    f.kill();
    drop(f);
    let mut down = false;
    for _ in 0..2 {
        match next_event(&mut rx).await {
            DeviceEvent::ServerDown { .. } => down = true,
            DeviceEvent::Changed(e) => {
                assert_eq!(
                    (e.serial.as_str(), e.state),
                    ("s2", DeviceState::Unreachable)
                )
            }
            other => panic!("unexpected {other:?}"),
        }
    }
    assert!(down);
    let now = d.snapshot();
    assert_eq!(now.len(), 1);
    assert_eq!(now[0].state, DeviceState::Unreachable);
    // It comes back on the same port: tracking reconnects on its own; s2 is gone, s3 arrives.
    let f = FakeAdb::start_on(port, &line("s3", "device", "m", 3)).await;
    assert_eq!(
        next_event(&mut rx).await,
        DeviceEvent::ServerUp {
            server: f.ep.clone()
        }
    );
    let mut seen = Vec::new();
    for _ in 0..2 {
        match next_event(&mut rx).await {
            DeviceEvent::Removed { serial, .. } => seen.push(format!("-{serial}")),
            DeviceEvent::Added(e) => seen.push(format!("+{}", e.serial)),
            other => panic!("unexpected {other:?}"),
        }
    }
    seen.sort();
    assert_eq!(seen, ["+s3", "-s2"]);
}

/// The measurement behind not using adb_client's sync (see `sync.rs`): against the same fake
/// server our client passes, its push drops the caller's mode (always 0777), and a hung server
/// pins the blocking thread past any timeout we put around `spawn_blocking`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn adb_client_sync_measured_unfit() {
    use adb_client::server_device::ADBServerDevice;
    let f = FakeAdb::start(&line("s1", "device", "m", 1)).await;
    let addr: std::net::SocketAddrV4 = format!("127.0.0.1:{}", f.ep.port).parse().unwrap();
    tokio::task::spawn_blocking(move || {
        let mut dev = ADBServerDevice::new("s1".into(), Some(addr));
        dev.push(&b"hello"[..], "/sdcard/a.txt")
    })
    .await
    .unwrap()
    .unwrap();
    let (mode, data) = f.files.lock().unwrap()["/sdcard/a.txt"].clone();
    assert_eq!(
        (mode, &data[..]),
        (0o777, &b"hello"[..]),
        "no way to ask for 0644"
    );

    f.set_mode(HostMode::Hang);
    let (tx, rx) = std::sync::mpsc::channel();
    let blocked = tokio::task::spawn_blocking(move || {
        let mut dev = ADBServerDevice::new("s1".into(), Some(addr));
        let mut sink = Vec::new();
        let r = dev.pull(&"/sdcard/a.txt", &mut sink);
        let _ = tx.send(r.is_ok());
    });
    let waited = tokio::time::timeout(Duration::from_millis(300), blocked).await;
    assert!(waited.is_err(), "our timeout fires…");
    assert!(
        rx.recv_timeout(Duration::from_millis(700)).is_err(),
        "…but the thread is still stuck"
    );
    f.kill(); // lets the stuck thread finish so the runtime can shut down
}

/// While tracking is live a call's device comes from the table (no `host:devices-l` round
/// trip): with the server refusing to answer listings, `current` still answers at once. When
/// the only server is gone, that is an error, not a stale answer.
#[tokio::test]
async fn current_uses_the_live_tracked_table_and_fails_when_no_server_answers() {
    let f = FakeAdb::start(&line("s1", "device", "m", 1)).await;
    let d = devs(&[&f]);
    let mut rx = d.subscribe();
    d.start_tracking();
    assert!(matches!(
        next_event(&mut rx).await,
        DeviceEvent::ServerUp { .. }
    ));
    assert!(matches!(next_event(&mut rx).await, DeviceEvent::Added(e) if e.serial == "s1"));
    f.set_mode(HostMode::Hang);
    let now = tokio::time::timeout(Duration::from_millis(500), d.current())
        .await
        .expect("answered from the tracked table, without asking the server")
        .unwrap();
    assert_eq!(now.len(), 1);
    assert_eq!(now[0].serial, "s1");
    // An untracked registry over the same (hanging) server has to ask, and waits.
    let untracked = devs(&[&f]);
    assert!(
        tokio::time::timeout(Duration::from_millis(300), untracked.current())
            .await
            .is_err()
    );
    f.kill();
    drop(f);
    loop {
        if let DeviceEvent::ServerDown { .. } = next_event(&mut rx).await {
            break;
        }
    }
    let e = d.current().await.unwrap_err();
    assert!(matches!(e, DeviceError::ServerUnreachable { .. }), "{e}");
}

/// Tracking on, both servers heard from: waits until `want` holds for the table.
async fn until(d: &Devices, what: &str, want: impl Fn(&[DeviceEntry]) -> bool) {
    let deadline = std::time::Instant::now() + T;
    while !want(&d.snapshot()) {
        assert!(
            std::time::Instant::now() < deadline,
            "{what}: {:?}",
            d.snapshot()
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

fn state_of(list: &[DeviceEntry], id: &str) -> Option<DeviceState> {
    list.iter().find(|e| e.id == id).map(|e| e.state.clone())
}

/// Item 1: a server that stopped answering (it accepts connections, never replies: a frozen or
/// wedged adb) never slows calls to a device on another server, whose answers come from the
/// table; its own devices stay listed as unreachable and fail at once, naming the server.
#[tokio::test]
async fn a_server_that_stops_answering_never_slows_calls_elsewhere() {
    let a = FakeAdb::start(&line("s1", "device", "m", 1)).await;
    let b = FakeAdb::start(&line("s2", "device", "m", 2)).await;
    let b_port = b.ep.port;
    let t = Timeouts {
        connect: Duration::from_secs(5),
        host: Duration::from_secs(5),
        start_server: T,
        probe: Duration::from_millis(300),
    };
    let opts = DeviceOptions {
        autostart_local_server: false,
        shell_output_cap: 1 << 20,
        read_props: false,
    };
    let d = Devices::with_options(vec![a.ep.clone(), b.ep.clone()], t, opts);
    d.start_tracking();
    until(&d, "both listed", |l| l.len() == 2).await;
    // b dies and comes back wedged: its tracker cannot get a listing any more.
    b.kill();
    drop(b);
    let b = FakeAdb::start_on(b_port, &line("s2", "device", "m", 2)).await;
    b.set_mode(HostMode::Hang);
    let s2 = format!("s2@{}", b.ep);
    until(&d, "s2 unreachable", |l| {
        state_of(l, &s2) == Some(DeviceState::Unreachable)
    })
    .await;
    for _ in 0..5 {
        let started = std::time::Instant::now();
        assert!(d.device("s1").shell("true", T).await.is_ok());
        assert_eq!(d.list().await.unwrap().len(), 2, "s2 stays listed");
        assert!(
            started.elapsed() < Duration::from_secs(1),
            "a call on a's device waited {:?} (b's host timeout is 5 s)",
            started.elapsed()
        );
    }
    let started = std::time::Instant::now();
    let e = d.device("s2").shell("true", T).await.unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(2), "{e}");
    assert!(
        matches!(&e, DeviceError::DeviceUnreachable { device, .. } if *device == s2),
        "{e}"
    );
    assert!(e.to_string().contains(&b.ep.to_string()), "{e}");
    // A live stream that goes quiet because its server froze is caught by the probe.
    let e2 = d.server_errors();
    assert_eq!(e2.len(), 1, "{e2:?}");
    a.set_mode(HostMode::Hang);
    let s1 = format!("s1@{}", a.ep);
    until(&d, "s1 unreachable after a froze", |l| {
        state_of(l, &s1) == Some(DeviceState::Unreachable)
    })
    .await;
    assert!(
        d.server_errors()[0].1.contains("stopped answering"),
        "{:?}",
        d.server_errors()
    );
}

/// Items 5 and 6: the full name is accepted for every device and always means it; a bare
/// serial two servers have is refused naming both; short names do not change while another
/// server goes down and comes back.
#[tokio::test]
async fn names_hold_while_another_server_goes_and_comes() {
    let a =
        FakeAdb::start(&(line("same", "device", "A", 1) + &line("only-a", "device", "A", 2))).await;
    let b = FakeAdb::start(&line("same", "device", "B", 1)).await;
    let b_port = b.ep.port;
    let d = devs(&[&a, &b]);
    d.start_tracking();
    until(&d, "three listed", |l| l.len() == 3).await;
    let qa = format!("same@{}", a.ep);
    let qb = format!("same@{}", b.ep);
    let names =
        |d: &Devices| -> Vec<String> { d.snapshot().into_iter().map(|e| e.serial).collect() };
    let before = names(&d);
    assert_eq!(before, [qa.clone(), "only-a".into(), qb.clone()]);
    let e = d.device("same").shell("true", T).await.unwrap_err();
    assert!(
        matches!(&e, DeviceError::Ambiguous { candidates, .. } if *candidates == [qa.clone(), qb.clone()]),
        "{e}"
    );
    assert!(
        e.to_string().contains(&qa) && e.to_string().contains(&qb),
        "{e}"
    );
    // The full name of a device nobody else shares is accepted too; one never seen is not.
    let only_a = format!("only-a@{}", a.ep);
    assert!(d.device(&only_a).shell("true", T).await.is_ok());
    let e = d
        .device(&format!("nope@{}", a.ep))
        .shell("true", T)
        .await
        .unwrap_err();
    assert!(matches!(e, DeviceError::NoDevice { .. }), "{e}");
    b.kill();
    drop(b);
    until(&d, "b's device unreachable", |l| {
        state_of(l, &qb) == Some(DeviceState::Unreachable)
    })
    .await;
    assert_eq!(names(&d), before, "names hold while b is down");
    assert!(
        d.device(&qa).shell("true", T).await.is_ok(),
        "a's copy by its listed name"
    );
    assert!(d.device("only-a").shell("true", T).await.is_ok());
    let e = d.device("same").shell("true", T).await.unwrap_err();
    assert!(
        matches!(e, DeviceError::Ambiguous { .. }),
        "still ambiguous: {e}"
    );
    let _b = FakeAdb::start_on(b_port, &line("same", "device", "B", 1)).await;
    until(&d, "b's device back", |l| {
        state_of(l, &qb) == Some(DeviceState::Device)
    })
    .await;
    assert_eq!(names(&d), before, "and after it comes back");
}

/// Item 6: a bare serial whose device disconnected is never sent to another device with the
/// same serial on another server; once a listing has shown the new one under that name, the
/// name means it.
#[tokio::test]
async fn a_bare_serial_never_moves_to_another_server_silently() {
    let a = FakeAdb::start(&line("x", "device", "A", 1)).await;
    let b = FakeAdb::start("").await;
    b.features
        .lock()
        .unwrap()
        .insert("x".into(), super::fake::V2.into());
    let d = devs(&[&a, &b]);
    d.start_tracking();
    until(&d, "x on a", |l| l.len() == 1).await;
    assert!(d.device("x").shell("true", T).await.is_ok());
    a.devices.send_replace(String::new());
    b.devices.send_replace(line("x", "device", "B", 7));
    let xb = format!("x@{}", b.ep);
    until(&d, "x on b only", |l| l.len() == 1 && l[0].id == xb).await;
    let before = b.ran("true");
    let e = d.device("x").shell("true", T).await.unwrap_err();
    let xa = format!("x@{}", a.ep);
    assert_eq!(
        e,
        DeviceError::Detached {
            device: xa.clone(),
            server: a.ep.to_string(),
            elsewhere: vec![xb.clone()]
        }
    );
    assert!(e.to_string().contains(&xb), "names the other one: {e}");
    assert_eq!(b.ran("true"), before, "nothing ran on b's phone");
    assert!(
        d.device(&xb).shell("true", T).await.is_ok(),
        "by its full name"
    );
    d.names_shown(&d.snapshot());
    assert!(
        d.device("x").shell("true", T).await.is_ok(),
        "once shown as x"
    );
}

/// Item 2: build properties are read once when a device arrives (and again when it
/// reconnects), never per listing; a phone that does not answer is marked, not waited for.
#[tokio::test]
async fn properties_are_read_on_arrival_not_per_listing() {
    let f = FakeAdb::start(&(line("s1", "device", "m", 1) + &line("s2", "device", "m", 2))).await;
    f.hung.lock().unwrap().insert("s2".into());
    let d = devs(&[&f]);
    d.start_tracking();
    until(&d, "listed", |l| l.len() == 2).await;
    let s1 = format!("s1@{}", f.ep);
    let s2 = format!("s2@{}", f.ep);
    let deadline = std::time::Instant::now() + T;
    while d.facts(&s1).and_then(|x| x.props).is_none() {
        assert!(
            std::time::Instant::now() < deadline,
            "s1's properties were never read"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(d.facts(&s1).unwrap().props.unwrap().sdk, Some(34));
    let started = std::time::Instant::now();
    for _ in 0..50 {
        d.list().await.unwrap();
    }
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(f.ran("getprop"), 1, "read once, not per listing");
    // The hung phone: its read times out (host timeout 2 s) and it is marked not answering.
    let deadline = std::time::Instant::now() + T;
    while d.facts(&s2).and_then(|x| x.not_answering).is_none() {
        assert!(std::time::Instant::now() < deadline, "s2 never marked");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(d.facts(&s2).unwrap().props.is_none());
    // s1 reconnects (a new transport id): read again.
    f.devices
        .send_replace(line("s1", "device", "m", 9) + &line("s2", "device", "m", 2));
    let deadline = std::time::Instant::now() + T;
    while f.ran("getprop") < 2 {
        assert!(
            std::time::Instant::now() < deadline,
            "not read again after a reconnect"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Item 8: a server that dies in the middle of a call is reported as the server's trouble, in
/// the same words as before a call; a device that drops while its server lives is "lost".
#[tokio::test]
async fn a_server_crash_mid_call_is_one_cause_with_one_wording() {
    let f = FakeAdb::start(&line("s1", "device", "m", 1)).await;
    let d = devs(&[&f]);
    let dev = d.device("s1");
    let e = dev.shell("vanish", T).await.unwrap_err();
    assert!(matches!(e, DeviceError::Lost { .. }), "{e}");
    let call = tokio::spawn(async move { dev.shell("hang", T).await });
    tokio::time::sleep(Duration::from_millis(200)).await;
    f.kill();
    let e = call.await.unwrap().unwrap_err();
    assert!(
        matches!(&e, DeviceError::DeviceUnreachable { device, .. } if device == &format!("s1@{}", f.ep)),
        "{e}"
    );
    assert!(!e.to_string().contains("cable"), "{e}");
    assert!(e.to_string().contains("adb server"), "{e}");
}
