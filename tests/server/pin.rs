//! Issue 15 item 1: the device is resolved before a person is asked, shown (name and model),
//! and the approved call is pinned to it down to adb's `transport_id`. A selection change, or
//! another phone taking the serial while the modal is open, never redirects the call.
//!
//! The selection tests run against the virtual device's own front door (two phones); the
//! transport tests run a private Debian `adb` server `adb connect`-ed to virtual adbds, so a
//! reconnect gets a new transport_id as on a real lab (skipped without `adb`, failing under CI).
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;
use spock_tui::app::{Options, build_core};
use spock_tui::config::{Config, Paths};
use spock_tui::device::{AdbEndpoint, DeviceEntry, DeviceState};
use spock_tui::mcp::Core;
use spock_tui::mcp::events::{DecidedBy, Outcome};
use spock_tui::mcp::logbuf::LogBuffer;
use spock_tui::sim::Target;
use spock_tui::sim::cli::{SimHandle, SimOptions, start};
use spock_tui::sim::device::SimDevice;

use crate::support::device_rig;
use crate::support::private_adb;
use device_rig::stdio_call;
use private_adb::{PrivateAdb, adb_present};

const APP: &str = "com.example.notes";

fn core_on(home: &std::path::Path, servers: Vec<AdbEndpoint>) -> Arc<Core> {
    let mut config = Config::default_config();
    config.safety.confirm_timeout_secs = 60;
    let core = build_core(Options {
        paths: Paths::under(home),
        config,
        allow_all: false,
        logs: LogBuffer::new(100),
        adb: servers,
        projects: vec![],
        autostart_adb: false,
        adb_explicit: true,
    })
    .unwrap();
    core.devices.start_tracking();
    core
}

async fn until(core: &Core, what: &str, want: impl Fn(&[DeviceEntry]) -> bool) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !want(&core.devices.snapshot()) {
        assert!(
            Instant::now() < deadline,
            "{what}: {:?}",
            core.devices.snapshot()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn two_phones() -> (
    SimDevice,
    SimDevice,
    SimHandle,
    Arc<Core>,
    tempfile::TempDir,
) {
    let (a, b) = (SimDevice::demo(), SimDevice::demo());
    let sim = start(SimOptions::adb_server_only(vec![
        Arc::new(a.clone()) as Arc<dyn Target>,
        Arc::new(b.clone()),
    ]))
    .await
    .unwrap();
    let addr = sim.adb_server.unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let core = core_on(
        tmp.path(),
        vec![AdbEndpoint::new(addr.ip().to_string(), addr.port())],
    );
    until(&core, "both phones listed", |l| {
        l.iter().filter(|e| e.state == DeviceState::Device).count() == 2
    })
    .await;
    (a, b, sim, core, tmp)
}

async fn select(core: &Arc<Core>, serial: &str) {
    let r = stdio_call(core, "android_select_device", json!({ "serial": serial })).await;
    assert!(r.result.is_ok(), "{:?}", r.result.err());
}

/// The selected phone is the one shown and the one that runs, even when the agent selects
/// another while the person reads the modal (before: "the selected device" was shown, and the
/// approved uninstall ran on whatever was selected at the yes).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_selection_change_while_asking_does_not_redirect_the_call() {
    let (a, b, sim, core, _tmp) = two_phones().await;
    select(&core, &a.serial()).await;
    let mut rx = core.confirmer.attach();
    let c = core.clone();
    let other = b.serial();
    let person = tokio::spawn(async move {
        let req = rx.recv().await.expect("asked");
        let shown = (req.ask.device.clone(), req.ask.device_model.clone());
        // The agent moves the selection while the modal is open.
        select(&c, &other).await;
        req.answer(true);
        shown
    });
    let done = stdio_call(
        &core,
        "android_uninstall_app",
        json!({ "packageName": APP }),
    )
    .await;
    let (device, model) = person.await.unwrap();
    assert_eq!(
        device.as_deref(),
        Some(a.serial().as_str()),
        "the modal names the phone"
    );
    assert_eq!(model.as_deref(), Some("Pixel 7"));
    assert!(done.result.is_ok(), "{:?}", done.result.err());
    assert!(!a.is_installed(APP), "the phone shown was the one approved");
    assert!(
        b.is_installed(APP),
        "the newly selected phone was not touched"
    );
    sim.stop().await;
}

/// Several phones and none named or selected: refused before anyone is asked (before: asked,
/// then failed after the yes).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn several_devices_and_none_named_is_refused_before_asking() {
    let (a, b, sim, core, _tmp) = two_phones().await;
    let mut rx = core.confirmer.attach();
    let done = stdio_call(
        &core,
        "android_uninstall_app",
        json!({ "packageName": APP }),
    )
    .await;
    let e = done.result.expect_err("refused");
    assert!(e.message.contains("none is selected"), "{}", e.message);
    assert!(done.decision.is_none(), "nobody was asked");
    assert!(rx.try_recv().is_err(), "nothing reached the modal");
    assert!(a.is_installed(APP) && b.is_installed(APP));
    sim.stop().await;
}

/// A denial and a timeout are on record with the device they would have run on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn denied_and_timed_out_calls_are_audited_with_the_resolved_device() {
    let (a, _b, sim, core, _tmp) = two_phones().await;
    select(&core, &a.serial()).await;
    let mut rx = core.confirmer.attach();
    let person = tokio::spawn(async move {
        rx.recv().await.expect("asked").answer(false);
        let held = rx.recv().await.expect("asked again");
        // Silence: the second one times out.
        tokio::time::sleep(Duration::from_secs(3)).await;
        drop(held);
    });
    let denied = stdio_call(
        &core,
        "android_uninstall_app",
        json!({ "packageName": APP }),
    )
    .await;
    assert_eq!(denied.outcome, Outcome::Denied);
    core.confirmer.set_timeout(Duration::from_secs(1));
    let timed_out = stdio_call(
        &core,
        "android_clear_app_data",
        json!({ "packageName": APP }),
    )
    .await;
    assert_eq!(
        timed_out.decision.map(|d| d.by),
        Some(DecidedBy::Timeout),
        "{:?}",
        timed_out.result.err()
    );
    person.await.unwrap();
    let records = core.audit.recent(20);
    for tool in ["android_uninstall_app", "android_clear_app_data"] {
        let rec = records
            .iter()
            .rev()
            .find(|r| r.tool == tool)
            .expect("audited");
        let device = rec.device.as_deref().unwrap_or("-");
        assert!(
            device.starts_with(&format!("{}@", a.serial())),
            "{tool} audited with {device}"
        );
    }
    assert!(a.is_installed(APP));
    sim.stop().await;
}

/// A phone listening on `addr`. The port a phone just stopped listening on may take a moment
/// to be free again (its listener's task ends after `stop` returns), so binding is retried for
/// a few seconds.
async fn phone_on(addr: std::net::SocketAddr, dev: &SimDevice) -> SimHandle {
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(5);
    loop {
        let started = start(SimOptions {
            devices: vec![Arc::new(dev.clone()) as Arc<dyn Target>],
            adb_server: None,
            adbd: vec![addr],
            control: None,
            faults: Vec::new(),
        })
        .await;
        match started {
            Ok(sim) => return sim,
            Err(e) if tokio::time::Instant::now() < deadline => {
                eprintln!("binding {addr} again: {e:#}");
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            }
            Err(e) => panic!("a phone on {addr}: {e:#}"),
        }
    }
}

fn transport_of(l: &[DeviceEntry], id: &str) -> Option<u64> {
    l.iter()
        .find(|e| e.id == id && e.state == DeviceState::Device)
        .and_then(|e| e.transport_id)
}

/// While the modal is open the phone behind `127.0.0.1:PORT` is swapped: the first phone
/// disconnects and a different one connects under the same serial (a new adb transport). The
/// approved uninstall runs on neither: the one shown is gone, and the new one was never shown.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_phone_under_the_same_serial_never_gets_the_approved_call() {
    if !adb_present() {
        return;
    }
    let (first, second) = (SimDevice::demo(), SimDevice::demo());
    let sim = phone_on("127.0.0.1:0".parse().unwrap(), &first).await;
    let addr = sim.adbd[0].addr;
    let serial = addr.to_string();
    let adb = PrivateAdb::start();
    adb.connect(&serial);
    let tmp = tempfile::tempdir().unwrap();
    let core = core_on(tmp.path(), vec![adb.ep()]);
    let id = format!("{serial}@{}", adb.ep());
    until(&core, "the first phone online", |l| {
        transport_of(l, &id).is_some()
    })
    .await;
    let before = transport_of(&core.devices.snapshot(), &id).unwrap();

    let mut rx = core.confirmer.attach();
    let c = core.clone();
    let (id_, serial_, second_) = (id.clone(), serial.clone(), second.clone());
    let person = tokio::spawn(async move {
        let req = rx.recv().await.expect("asked");
        let shown = req.ask.device.clone();
        // The swap, with the modal open.
        let out = adb.adb(&["disconnect", &serial_]);
        assert!(out.status.success(), "{out:?}");
        sim.stop().await;
        let sim2 = phone_on(addr, &second_).await;
        assert_eq!(
            sim2.adbd[0].addr, addr,
            "the second phone listens where the first did"
        );
        adb.connect(&serial_);
        until(&c, "the second phone under the same name", |l| {
            transport_of(l, &id_).is_some_and(|t| t != before)
        })
        .await;
        req.answer(true);
        (shown, adb, sim2)
    });
    let done = stdio_call(
        &core,
        "android_uninstall_app",
        json!({ "packageName": APP }),
    )
    .await;
    let (shown, adb, sim2) = person.await.unwrap();
    assert_eq!(shown.as_deref(), Some(serial.as_str()));
    let e = done
        .result
        .expect_err("the approved call must not run on another phone");
    assert!(
        e.message
            .contains("the device shown when you approved is gone"),
        "{}",
        e.message
    );
    assert!(
        second.is_installed(APP),
        "the phone nobody approved kept its app"
    );
    assert!(first.is_installed(APP));
    drop(core);
    drop(adb);
    sim2.stop().await;
}

/// The same phone reconnecting (a new transport_id): a pinned handle fails rather than following
/// the name, both when the table already lists the new connection and when nothing but adb
/// itself knows (no tracking: the pinned call opens `host:transport-id:N`, which is gone).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pinned_handle_opens_exactly_its_transport() {
    if !adb_present() {
        return;
    }
    let phone = SimDevice::demo();
    let sim = phone_on("127.0.0.1:0".parse().unwrap(), &phone).await;
    let serial = sim.adbd[0].addr.to_string();
    let adb = PrivateAdb::start();
    adb.connect(&serial);
    let tmp = tempfile::tempdir().unwrap();
    let core = core_on(tmp.path(), vec![adb.ep()]);
    let id = format!("{serial}@{}", adb.ep());
    until(&core, "online", |l| transport_of(l, &id).is_some()).await;
    let entry = core
        .devices
        .snapshot()
        .into_iter()
        .find(|e| e.id == id)
        .unwrap();
    let pinned = core.devices.pinned(&entry);
    let untracked = spock_tui::device::Devices::new(vec![adb.ep()], Default::default());
    let pinned_untracked = untracked.pinned(&entry);
    let t = Duration::from_secs(10);
    for p in [&pinned, &pinned_untracked] {
        let ok = p.shell("echo here", t).await.unwrap();
        assert_eq!(ok.stdout_text().trim(), "here");
    }
    adb.adb(&["disconnect", &serial]);
    adb.connect(&serial);
    until(&core, "reconnected", |l| {
        transport_of(l, &id).is_some_and(|n| Some(n) != entry.transport_id)
    })
    .await;
    for p in [&pinned, &pinned_untracked] {
        let e = p.shell("echo here", t).await.unwrap_err();
        assert!(
            e.to_string()
                .contains("the device shown when you approved is gone"),
            "{e}"
        );
    }
    // An unpinned handle follows the name, as before.
    let out = core
        .devices
        .device(&id)
        .shell("echo here", t)
        .await
        .unwrap();
    assert_eq!(out.stdout_text().trim(), "here");
    drop(core);
    sim.stop().await;
}
