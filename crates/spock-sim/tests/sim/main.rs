//! The virtual device alone (the sim crate, nothing of the client): its shell and screens
//! driven directly, and the `adb_client` crate against its adb-server front door.
//!
//! One test binary (`cargo test -p spock-sim --test sim`), one module per area: a new test goes
//! into the module of the area it tests, or a new module listed here.
use std::path::PathBuf;
use std::time::Duration;

use spock_sim::device::SimDevice;
use spock_sim::device::run::LineRun as Run;

mod adb_client;
mod device;
mod public_structure;
mod system_services;

/// `tests/fixtures/` at the repository root (the first directory up from this crate that holds
/// `Cargo.lock`): the real captures the device is compared with. The client's tests find it
/// through `spock_core::testdata`, which the sim may not import.
fn fixtures_dir() -> PathBuf {
    let manifest = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest
        .ancestors()
        .find(|d| d.join("Cargo.lock").is_file())
        .unwrap_or(manifest)
        .join("tests")
        .join("fixtures")
}

/// Runs `cmd` on the device to its end (20 s at most).
async fn sh(dev: &SimDevice, cmd: &str) -> Run {
    dev.run_line(cmd, Duration::from_secs(20))
        .await
        .expect("shell command timed out")
}
