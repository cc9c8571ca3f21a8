//! A core wired to a virtual device behind an in-process adb-server front door, with
//! everything under one directory: what the in-process tests and benchmarks run against.
//! Test support, not product code: reached as `crate::support::virtual_core`.
#![allow(dead_code)]
use std::sync::Arc;

use anyhow::Context as _;
use spock_tui::app::{Options, build_core};
use spock_tui::config::{Config, Paths};
use spock_tui::device::AdbEndpoint;
use spock_tui::mcp::Core;
use spock_tui::mcp::logbuf::LogBuffer;
use spock_tui::sim::cli::{SimHandle, SimOptions, start};
use spock_tui::sim::device::SimDevice;

pub async fn core_on_virtual_device(
    home: &std::path::Path,
    config: Config,
    allow_all: bool,
    device: SimDevice,
) -> anyhow::Result<(Arc<Core>, SimHandle)> {
    let sim = start(SimOptions::adb_server_only(vec![Arc::new(device)])).await?;
    let addr = sim
        .adb_server
        .context("the adb server front door did not bind")?;
    let core = build_core(Options {
        paths: Paths::under(home),
        config,
        allow_all,
        logs: LogBuffer::new(1000),
        adb: vec![AdbEndpoint::new(addr.ip().to_string(), addr.port())],
        projects: vec![],
        autostart_adb: false,
        adb_explicit: true,
    })?;
    Ok((core, sim))
}
