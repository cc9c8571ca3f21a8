//! The `adb_client` crate (what the device layer uses) against our adb-server front door.
//!
//! What adb_client 3.2.3 does, read from its source and checked here:
//! - `ADBServer::connect` (every `ADBServer` call: `devices`, `devices_long`, `version`) first
//!   runs `adb start-server` (`ADBServer::start`, no port argument) whenever the address is
//!   loopback, and ignores a failure to spawn it. With `adb` installed that would start a real
//!   server on 5037, so `ANDROID_ADB_SERVER_PORT` is set to our front door: the spawned
//!   `adb start-server` then asks *us* `host:version`, gets `0029` (= adb's 41), and exits
//!   without starting anything. (A version mismatch would make it send `host:kill`.)
//!   `ADBServer::new_from_path(addr, Some(path))` replaces the binary it spawns.
//! - `ADBServerDevice` calls (shell, push, pull, stat, list) connect straight to the address
//!   and never spawn anything.
//! - Its shell asks `host:features` after `host:transport:` and uses `shell,v2,…,raw:` when
//!   `shell_v2` or `cmd` is listed, but drops the exit code (see `shell_output_and_stderr`);
//!   its push ends with `DONE` + a u64 mtime (12 bytes, not 8).
//!   All calls are blocking, so they run on std threads here (`spawn_blocking` in async code).
use std::net::{SocketAddr, SocketAddrV4};
use std::sync::{Arc, Once};

use adb_client::ADBDeviceExt;
use adb_client::server::ADBServer;
use adb_client::server_device::ADBServerDevice;
use spock_sim::Target;
use spock_sim::cli::{SimHandle, SimOptions, start};

/// The protocol tests' minimal device (wire formats, not device behaviour).
mod double {
    pub use spock_sim::cli::placeholder::PlaceholderTarget as DoubleTarget;
}

fn sim(serials: &[&str]) -> (tokio::runtime::Runtime, SimHandle, SocketAddrV4) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let devices: Vec<Arc<dyn Target>> = serials
        .iter()
        .map(|s| Arc::new(double::DoubleTarget::new(s, "Pixel 7")) as Arc<dyn Target>)
        .collect();
    let handle = rt
        .block_on(start(SimOptions::adb_server_only(devices)))
        .unwrap();
    let addr = match handle.adb_server.unwrap() {
        SocketAddr::V4(a) => a,
        other => panic!("expected an IPv4 loopback address, got {other}"),
    };
    (rt, handle, addr)
}

static PORT_ENV: Once = Once::new();

/// Point any `adb start-server` adb_client spawns at our front door (see the module doc).
/// Set once, before the first ADBServer call; every test's front door answers `host:version`
/// identically, so whichever port wins is harmless.
fn server_for(addr: SocketAddrV4) -> ADBServer {
    PORT_ENV.call_once(|| {
        // SAFETY: set once, before this process spawns any adb_client work that reads it.
        unsafe { std::env::set_var("ANDROID_ADB_SERVER_PORT", addr.port().to_string()) };
    });
    ADBServer::new(addr)
}

#[test]
fn lists_devices_and_version() {
    let (_rt, _handle, addr) = sim(&["sim-1", "emulator-5554"]);
    std::thread::spawn(move || {
        let mut server = server_for(addr);
        let devices = server.devices().unwrap();
        let serials: Vec<&str> = devices.iter().map(|d| d.identifier.as_str()).collect();
        assert_eq!(serials, ["sim-1", "emulator-5554"]);
        let long = server.devices_long().unwrap();
        assert_eq!(long[0].model, "Pixel_7");
        assert_eq!(long[0].product, "sdk_gphone64_x86_64");
        assert_eq!(long[1].transport_id, 2);
        let version = server.version().unwrap();
        assert_eq!(version.to_string(), "1.0.41");
    })
    .join()
    .unwrap();
}

#[test]
fn shell_output_and_stderr() {
    let (_rt, _handle, addr) = sim(&["sim-1"]);
    std::thread::spawn(move || {
        let mut device = ADBServerDevice::new("sim-1".into(), Some(addr));
        let (mut out, mut err) = (Vec::new(), Vec::new());
        // adb_client 3.2.3 reads the exit packet, then keeps reading and returns `Ok(None)` at
        // the EOF that follows it (as a real adb server sends): the exit code never reaches the
        // caller. The code on the wire is proven by the real `adb` in sim_adb_real.rs.
        let code = device
            .shell_command(&"echo hello; nosuch", Some(&mut out), Some(&mut err))
            .unwrap();
        assert!(code.is_none() || code == Some(127), "{code:?}");
        assert_eq!(out, b"hello\n");
        assert_eq!(err, b"/system/bin/sh: nosuch: inaccessible or not found\n");

        let mut out = Vec::new();
        device
            .shell_command(&"echo one; echo two", Some(&mut out), None)
            .unwrap();
        assert_eq!(out, b"one\ntwo\n");
    })
    .join()
    .unwrap();
}

#[test]
fn push_pull_stat_list_round_trip() {
    let (_rt, _handle, addr) = sim(&["sim-1"]);
    std::thread::spawn(move || {
        let data: Vec<u8> = (0..300_000u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 11) as u8)
            .collect();
        let mut device = ADBServerDevice::new("sim-1".into(), Some(addr));
        // adb_client's 12-byte DONE; the parent directory does not exist yet (fixed_push_mkdir).
        device
            .push(&mut data.as_slice(), "/sdcard/deep/er/file.bin")
            .unwrap();
        let mut back = Vec::new();
        device.pull(&"/sdcard/deep/er/file.bin", &mut back).unwrap();
        assert!(
            back == data,
            "pulled {} bytes, pushed {}",
            back.len(),
            data.len()
        );

        let stat = device.stat("/sdcard/deep/er/file.bin").unwrap();
        assert_eq!(stat.file_size, 300_000);
        assert_eq!(stat.file_perm & 0o170000, 0o100000);
        let names: Vec<String> = device
            .list("/sdcard/deep/er")
            .unwrap()
            .into_iter()
            .map(|item| format!("{item:?}"))
            .collect();
        assert!(names.iter().any(|n| n.contains("file.bin")), "{names:?}");

        // Pulling a missing file is an error, not an empty file.
        let mut nothing = Vec::new();
        assert!(device.pull(&"/sdcard/missing", &mut nothing).is_err());
    })
    .join()
    .unwrap();
}
