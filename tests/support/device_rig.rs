//! A core wired to a fresh demo virtual device, in-process: what the Rust integration tests
//! that call tools run against. Reached as `crate::support::device_rig`.
#![allow(dead_code)]
use std::sync::Arc;

use super::virtual_core;
use spock_tui::config::Config;
use spock_tui::mcp::Core;
use spock_tui::mcp::events::Transport;
use spock_tui::mcp::server::Origin;
use spock_tui::sim::cli::SimHandle;
use spock_tui::sim::device::SimDevice;

pub struct Rig {
    pub core: Arc<Core>,
    pub dev: SimDevice,
    _sim: SimHandle,
    _tmp: tempfile::TempDir,
}

pub async fn rig_with(allow_all: bool, config: Config) -> Rig {
    rig_on(SimDevice::demo(), allow_all, config).await
}

/// [`rig_with`] on a virtual device of the caller's (a scenario of its own).
pub async fn rig_on(dev: SimDevice, allow_all: bool, config: Config) -> Rig {
    let tmp = tempfile::tempdir().expect("tmp");
    let (core, sim) =
        virtual_core::core_on_virtual_device(tmp.path(), config, allow_all, dev.clone())
            .await
            .expect("core");
    Rig {
        core,
        dev,
        _sim: sim,
        _tmp: tmp,
    }
}

impl Rig {
    /// The virtual device's failure switches (hang a command, delay replies).
    pub fn faults(&self) -> Arc<spock_tui::sim::faults::Faults> {
        self._sim
            .faults(&self.dev.serial())
            .expect("the demo device")
    }
}

/// A call as an anonymous stdio client would make it.
pub fn origin() -> Origin {
    Origin {
        transport: Transport::Stdio,
        client: None,
        session: None,
    }
}

/// A whole call from [`origin`], never cancelled; the tool must exist.
pub async fn stdio_call(
    core: &Arc<Core>,
    tool: &str,
    args: serde_json::Value,
) -> spock_tui::mcp::server::CallOutcome {
    spock_tui::mcp::server::CallRequest::new(origin(), tool, args)
        .run(core)
        .await
        .expect("known tool")
}

/// The demo scenario, read from the repository's `assets/demo`, with its login screen's XML
/// changed by `edit`.
pub fn demo_with_login(edit: impl Fn(String) -> String) -> SimDevice {
    demo_with(|toml| toml, edit)
}

/// The demo scenario with its TOML changed by `edit_toml` and its login screen's XML by
/// `edit_login`.
pub fn demo_with(
    edit_toml: impl Fn(String) -> String,
    edit_login: impl Fn(String) -> String,
) -> SimDevice {
    let demo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/demo");
    let toml = edit_toml(std::fs::read_to_string(demo.join("demo.toml")).expect("demo.toml"));
    let load = |rel: &str| -> std::io::Result<Vec<u8>> {
        let bytes = std::fs::read(demo.join(rel))?;
        match rel {
            "screens/login.xml" => {
                Ok(edit_login(String::from_utf8_lossy(&bytes).into_owned()).into_bytes())
            }
            _ => Ok(bytes),
        }
    };
    let scenario =
        spock_tui::sim::scenario::Scenario::parse(&toml, "demo.toml", &load).expect("the scenario");
    SimDevice::from_scenario(scenario)
}
