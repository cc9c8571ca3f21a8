//! A private real adb server (Debian's `adb` on its own port and HOME), for the Rust tests
//! that drive the device layer against it. Reached as `crate::support::private_adb`.
#![allow(dead_code)]
use std::net::TcpListener;
use std::process::Command;
use std::time::{Duration, Instant};

use spock_tui::device::AdbEndpoint;

/// Whether `adb` is installed; without it the caller skips, saying so (CI must have it).
pub fn adb_present() -> bool {
    let found = Command::new("adb")
        .arg("version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI is set but no `adb` binary is installed (apt-get install adb)"
        );
        eprintln!("SKIPPED: no `adb` binary on PATH (apt-get install adb)");
    }
    found
}

/// A free loopback port outside 5554-5585, where adb would take it for an emulator.
pub fn free_port() -> u16 {
    loop {
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        if !(5554..=5585).contains(&port) {
            return port;
        }
    }
}

/// A private adb server with its own HOME, killed on drop.
pub struct PrivateAdb {
    pub port: u16,
    home: tempfile::TempDir,
}

impl PrivateAdb {
    pub fn start() -> PrivateAdb {
        let a = PrivateAdb {
            port: free_port(),
            home: tempfile::tempdir().unwrap(),
        };
        let out = a.adb(&["start-server"]);
        assert!(out.status.success(), "adb start-server: {out:?}");
        a
    }

    /// Runs `adb`; on a runtime worker it gives the worker's queued tasks away first (the
    /// virtual phone it talks to may be one of them).
    pub fn adb(&self, args: &[&str]) -> std::process::Output {
        let run = || {
            Command::new("adb")
                .arg("-P")
                .arg(self.port.to_string())
                .args(args)
                .env("ADB_EMU", "0")
                .env("HOME", self.home.path())
                .output()
                .unwrap()
        };
        match tokio::runtime::Handle::try_current() {
            Ok(h) if h.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread => {
                tokio::task::block_in_place(run)
            }
            _ => run(),
        }
    }

    /// `adb connect`, retried for a few seconds (a listener that just started may be missed).
    pub fn connect(&self, addr: &str) {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let out = self.adb(&["connect", addr]);
            if String::from_utf8_lossy(&out.stdout).contains("connected to") {
                return;
            }
            assert!(Instant::now() < deadline, "{out:?}");
            let pause = || std::thread::sleep(Duration::from_millis(200));
            match tokio::runtime::Handle::try_current() {
                Ok(_) => tokio::task::block_in_place(pause),
                Err(_) => pause(),
            }
        }
    }

    pub fn ep(&self) -> AdbEndpoint {
        AdbEndpoint::local(self.port)
    }
}

impl Drop for PrivateAdb {
    fn drop(&mut self) {
        let _ = self.adb(&["kill-server"]);
    }
}
