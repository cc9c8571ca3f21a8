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
    };
    let opts = DeviceOptions {
        autostart_local_server: false,
        shell_output_cap: 1 << 20,
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
    };
    let opts = DeviceOptions {
        autostart_local_server: false,
        shell_output_cap: 1 << 20,
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
    assert_eq!(
        next_event(&mut rx).await,
        DeviceEvent::Removed {
            serial: "s1".into()
        }
    );
    // The server dies: its devices go, and it is reported down.
    f.kill();
    drop(f);
    let mut down = false;
    for _ in 0..2 {
        match next_event(&mut rx).await {
            DeviceEvent::ServerDown { .. } => down = true,
            DeviceEvent::Removed { serial } => assert_eq!(serial, "s2"),
            other => panic!("unexpected {other:?}"),
        }
    }
    assert!(down);
    assert!(d.snapshot().is_empty());
    // It comes back on the same port: tracking reconnects on its own.
    let f = FakeAdb::start_on(port, &line("s3", "device", "m", 3)).await;
    assert_eq!(
        next_event(&mut rx).await,
        DeviceEvent::ServerUp {
            server: f.ep.clone()
        }
    );
    assert!(matches!(next_event(&mut rx).await, DeviceEvent::Added(e) if e.serial == "s3"));
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
/// the stream is lost it asks again, so a dead server is an error, not a stale answer.
#[tokio::test]
async fn current_uses_the_live_tracked_table_and_falls_back_when_tracking_is_lost() {
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
