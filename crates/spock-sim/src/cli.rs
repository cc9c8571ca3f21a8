//! `spock-tui sim`: start virtual devices behind both front doors and print the bound addresses
//! as one JSON line; plus [`start`], the same thing as a library call for `--demo` and tests.
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context;
use serde::Serialize;
use tokio::net::TcpListener;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::Target;
use super::faults::{FaultCommand, Faults, control};
use super::services::ServedDevice;

pub mod placeholder;

const LOOPBACK_ANY_PORT: SocketAddr = SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), 0);

#[derive(clap::Args, Debug, Clone, Default)]
pub struct SimArgs {
    /// adbd listener for `adb connect` (port 0 picks a free one). Repeat for several devices;
    /// devices without an address of their own get a free port on the last address's IP.
    #[arg(long, value_name = "ADDR")]
    pub adbd: Vec<SocketAddr>,
    /// adb-server (host smart-socket protocol) listener, e.g. 127.0.0.1:0.
    #[arg(long = "adb-server", value_name = "ADDR")]
    pub adb_server: Option<SocketAddr>,
    /// Scenario file for the (first) device.
    #[arg(long, value_name = "FILE")]
    pub scenario: Option<PathBuf>,
    /// Scenario file of one more device; repeat for several devices.
    #[arg(long = "device", value_name = "FILE")]
    pub devices: Vec<PathBuf>,
    /// Fault-control endpoint (JSON lines) address; default 127.0.0.1:0.
    #[arg(long, value_name = "ADDR")]
    pub control: Option<SocketAddr>,
    /// Failure switch at start: `[SERIAL:]KIND[=VALUE]` with KIND one of refuse, drop=BYTES,
    /// delay=MS, hang=COMMAND, offline. Without SERIAL it applies to every device.
    #[arg(long = "fault", value_name = "SPEC")]
    pub faults: Vec<String>,
    /// Per-command latency: `instant` (default), `phone` (costs from published measurements,
    /// see BENCHMARKS.md; `phone:SEED` for another deterministic spread) or `phone-median`
    /// (each command at its median, no spread).
    #[arg(long, value_name = "PROFILE", env = "SPOCK_SIM_LATENCY")]
    pub latency: Option<String>,
    /// Serve a phone's capture (`spock-tui doctor --capture DIR`) as the (first) device: each
    /// command answers what it answered on the phone, after the time it took there (with
    /// `--latency`, that profile's times instead).
    #[arg(long, value_name = "DIR", conflicts_with = "scenario")]
    pub replay: Option<PathBuf>,
}

/// What to start. Devices are built by the caller (scenario loading is the device side's).
pub struct SimOptions {
    pub devices: Vec<Arc<dyn Target>>,
    /// The adb-server front door; `None` starts none.
    pub adb_server: Option<SocketAddr>,
    /// adbd listeners, one per device in order; empty starts none. Devices past the end of
    /// the list get port 0 on the last address's IP.
    pub adbd: Vec<SocketAddr>,
    /// The fault-control endpoint; `None` starts none.
    pub control: Option<SocketAddr>,
    /// Switches set before anything is served; `None` serial means every device.
    pub faults: Vec<(Option<String>, FaultCommand)>,
}

impl SimOptions {
    /// Just an adb-server front door on a free loopback port: what `--demo` needs.
    pub fn adb_server_only(devices: Vec<Arc<dyn Target>>) -> SimOptions {
        SimOptions {
            devices,
            adb_server: Some(LOOPBACK_ANY_PORT),
            adbd: Vec::new(),
            control: None,
            faults: Vec::new(),
        }
    }
}

#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct AdbdAddr {
    pub serial: String,
    pub addr: SocketAddr,
}

/// Running front doors. Dropping the handle stops them.
pub struct SimHandle {
    pub adb_server: Option<SocketAddr>,
    pub adbd: Vec<AdbdAddr>,
    pub control: Option<SocketAddr>,
    devices: Arc<Vec<ServedDevice>>,
    stop: CancellationToken,
    tasks: Vec<JoinHandle<()>>,
}

impl SimHandle {
    /// The line `spock-tui sim` prints: every bound address.
    pub fn json_line(&self) -> String {
        serde_json::json!({
            "adb_server": self.adb_server.map(|a| a.to_string()),
            "adbd": self.adbd,
            "control": self.control.map(|a| a.to_string()),
        })
        .to_string()
    }

    /// The failure switches of one device, to flip from in-process tests.
    pub fn faults(&self, serial: &str) -> Option<Arc<Faults>> {
        self.devices
            .iter()
            .find(|d| d.identity.serial == serial)
            .map(|d| d.faults.clone())
    }

    pub fn serials(&self) -> Vec<String> {
        self.devices
            .iter()
            .map(|d| d.identity.serial.clone())
            .collect()
    }

    /// Stop every front door and wait for the listeners to close.
    pub async fn stop(mut self) {
        self.stop.cancel();
        for t in self.tasks.drain(..) {
            let _ = t.await;
        }
    }
}

impl Drop for SimHandle {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

async fn bind(addr: SocketAddr, what: &str) -> anyhow::Result<(TcpListener, SocketAddr)> {
    let listener = TcpListener::bind(addr)
        .await
        .with_context(|| format!("binding the {what} listener to {addr}"))?;
    let local = listener.local_addr()?;
    Ok((listener, local))
}

/// Start the requested front doors; returns once every listener is bound.
pub async fn start(opts: SimOptions) -> anyhow::Result<SimHandle> {
    anyhow::ensure!(!opts.devices.is_empty(), "no devices to serve");
    let devices: Vec<ServedDevice> = opts.devices.into_iter().map(ServedDevice::new).collect();
    for (i, d) in devices.iter().enumerate() {
        if devices[..i]
            .iter()
            .any(|o| o.identity.serial == d.identity.serial)
        {
            anyhow::bail!(
                "two devices share the serial {:?}; give each its own",
                d.identity.serial
            );
        }
    }
    anyhow::ensure!(
        opts.adbd.len() <= devices.len(),
        "{} adbd addresses for {} devices",
        opts.adbd.len(),
        devices.len()
    );
    for (serial, command) in &opts.faults {
        let matching: Vec<&ServedDevice> = devices
            .iter()
            .filter(|d| serial.as_ref().is_none_or(|s| *s == d.identity.serial))
            .collect();
        anyhow::ensure!(!matching.is_empty(), "fault for unknown device {serial:?}");
        matching.iter().for_each(|d| {
            d.faults.apply(command);
        });
    }
    let devices = Arc::new(devices);
    let stop = CancellationToken::new();
    let mut tasks = Vec::new();

    let mut adbd = Vec::new();
    if let Some(last) = opts.adbd.last().copied() {
        for (i, device) in devices.iter().enumerate() {
            let addr = opts
                .adbd
                .get(i)
                .copied()
                .unwrap_or(SocketAddr::new(last.ip(), 0));
            let (listener, local) = bind(addr, "adbd").await?;
            adbd.push(AdbdAddr {
                serial: device.identity.serial.clone(),
                addr: local,
            });
            tasks.push(tokio::spawn(super::adbd::serve(
                listener,
                device.clone(),
                stop.child_token(),
            )));
        }
    }
    let adb_server = match opts.adb_server {
        Some(addr) => {
            let (listener, local) = bind(addr, "adb-server").await?;
            // `host:kill` cancels only this child, as it stops only this front door.
            tasks.push(tokio::spawn(super::server::serve(
                listener,
                devices.clone(),
                stop.child_token(),
            )));
            Some(local)
        }
        None => None,
    };
    let control = match opts.control {
        Some(addr) => {
            let (listener, local) = bind(addr, "control").await?;
            let table = Arc::new(
                devices
                    .iter()
                    .map(|d| (d.identity.serial.clone(), d.faults.clone()))
                    .collect(),
            );
            tasks.push(tokio::spawn(control::serve(
                listener,
                table,
                stop.child_token(),
            )));
            Some(local)
        }
        None => None,
    };
    Ok(SimHandle {
        adb_server,
        adbd,
        control,
        devices,
        stop,
        tasks,
    })
}

/// Build the devices to serve: one per `--scenario` / `--device` file, else the built-in demo.
fn load_devices(args: &SimArgs) -> anyhow::Result<Vec<Arc<dyn Target>>> {
    let files: Vec<&std::path::PathBuf> = args.scenario.iter().chain(args.devices.iter()).collect();
    let mut out: Vec<Arc<dyn Target>> = Vec::new();
    if let Some(dir) = &args.replay {
        let timing = args.latency.is_none();
        out.push(Arc::new(crate::replay::ReplayDevice::open(dir, timing)?));
    }
    if files.is_empty() && out.is_empty() {
        return Ok(vec![
            Arc::new(crate::device::SimDevice::demo()) as Arc<dyn Target>
        ]);
    }
    for f in files {
        let dev = crate::device::SimDevice::from_scenario_file(f)?;
        out.push(Arc::new(dev));
    }
    Ok(out)
}

fn options_from_args(args: &SimArgs, devices: Vec<Arc<dyn Target>>) -> anyhow::Result<SimOptions> {
    let faults = args
        .faults
        .iter()
        .map(|spec| FaultCommand::parse_flag(spec).with_context(|| format!("--fault {spec}")))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let mut faults = faults;
    if let Some(spec) = &args.latency {
        faults.push((None, latency_command(spec)?));
    }
    let neither = args.adbd.is_empty() && args.adb_server.is_none();
    Ok(SimOptions {
        devices,
        adb_server: if neither {
            Some(LOOPBACK_ANY_PORT)
        } else {
            args.adb_server
        },
        adbd: if neither {
            vec![LOOPBACK_ANY_PORT]
        } else {
            args.adbd.clone()
        },
        control: Some(args.control.unwrap_or(LOOPBACK_ANY_PORT)),
        faults,
    })
}

/// `--latency PROFILE[:SEED]` as the switch that sets it on every device.
pub fn latency_command(spec: &str) -> anyhow::Result<FaultCommand> {
    FaultCommand::parse_latency(spec).with_context(|| format!("--latency {spec}"))
}

pub fn run(args: SimArgs) -> anyhow::Result<()> {
    // Stdout carries the JSON line; logs go to stderr.
    let _ = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .try_init();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let devices = load_devices(&args)?;
        let handle = start(options_from_args(&args, devices)?).await?;
        {
            use std::io::Write;
            let mut out = std::io::stdout().lock();
            writeln!(out, "{}", handle.json_line())?;
            out.flush()?;
        }
        tokio::signal::ctrl_c().await?;
        handle.stop().await;
        Ok(())
    })
}

#[cfg(test)]
mod tests;
