//! A lab's adb server, for real: Debian's `adb` on a private port, `adb connect`-ed to a virtual
//! device's adbd, driven through the device layer. What a person's approved
//! `spock_restart_adb_server` does (restart a local server, then reconnect what had been
//! attached with `adb connect`). Skips (saying so) without `adb`; fails instead when `CI` is set.
//! The several-host behaviour through the MCP server is `tests/python/test_lab.py`.
use std::sync::Arc;
use std::time::{Duration, Instant};

use spock_tui::device::{AdbEndpoint, DeviceOptions, DeviceState, Devices, Timeouts};
use spock_tui::sim::Target;
use spock_tui::sim::cli::{SimOptions, start};
use spock_tui::sim::device::SimDevice;

use crate::support::private_adb;
use private_adb::{PrivateAdb, adb_present};

async fn until(d: &Devices, what: &str, want: impl Fn(&[spock_tui::device::DeviceEntry]) -> bool) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !want(&d.snapshot()) {
        assert!(Instant::now() < deadline, "{what}: {:?}", d.snapshot());
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Item 3's one exception: a restart a person approved stops and starts the local server,
/// then reconnects the device that had been attached with `adb connect` (a fresh server knows
/// no TCP devices), so the lab comes back as it was. A remote server is refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_approved_restart_reconnects_devices_attached_with_adb_connect() {
    if !adb_present() {
        return;
    }
    let sim = start(SimOptions {
        devices: vec![Arc::new(SimDevice::demo()) as Arc<dyn Target>],
        adb_server: None,
        adbd: vec!["127.0.0.1:0".parse().unwrap()],
        control: None,
        faults: Vec::new(),
    })
    .await
    .unwrap();
    let addr = sim.adbd[0].addr.to_string();
    let adb = PrivateAdb::start();
    let out = adb.adb(&["connect", &addr]);
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("connected to"),
        "{out:?}"
    );
    let d = Devices::with_options(
        vec![adb.ep()],
        Timeouts::default(),
        DeviceOptions {
            autostart_local_server: false,
            ..DeviceOptions::default()
        },
    );
    d.start_tracking();
    let id = format!("{addr}@{}", adb.ep());
    until(&d, "the device online", |l| {
        l.iter()
            .any(|e| e.id == id && e.state == DeviceState::Device)
    })
    .await;
    assert_eq!(d.connected_over_tcp(&adb.ep()), vec![addr.clone()]);

    let r = d.restart_local_server(&adb.ep()).await.unwrap();
    assert_eq!(r.reconnected, vec![addr.clone()], "{r:?}");
    assert!(r.not_reconnected.is_empty(), "{r:?}");
    let listed = String::from_utf8_lossy(&adb.adb(&["devices"]).stdout).into_owned();
    assert!(
        listed.contains(&format!("{addr}\tdevice")),
        "the new server has it: {listed}"
    );
    until(&d, "the device back after the restart", |l| {
        l.iter()
            .any(|e| e.id == id && e.state == DeviceState::Device)
    })
    .await;
    let out = d
        .device(&id)
        .shell("getprop ro.build.version.sdk", Duration::from_secs(10))
        .await
        .unwrap();
    assert_eq!(out.stdout_text().trim(), "34");

    let e = d
        .restart_local_server(&AdbEndpoint::new("10.255.0.1", 5037))
        .await
        .unwrap_err();
    assert!(e.to_string().contains("not on this machine"), "{e}");
    drop(d);
    sim.stop().await;
}
