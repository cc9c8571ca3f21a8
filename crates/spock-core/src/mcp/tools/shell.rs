//! The escape hatch and the adb server itself: `android_run_adb_command` (destructive, a
//! stated reason, bounded time and output, a refusal list checked before anyone is asked) and
//! `spock_restart_adb_server` (local servers only; devices attached with `adb connect` are
//! reconnected).
use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::guard;
use crate::mcp::ctx::Ctx;
use crate::mcp::registry::{HostGroup, Level, Meta, ToolDef};
use crate::mcp::result::ToolError;
use crate::mcp::toolsets::Toolset;

const OUTPUT_CAP: usize = 256 * 1024;
const MAX_TIMEOUT_MS: u64 = 120_000;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct RunArgs {
    pub serial: Option<String>,
    /// The shell command line, as after `adb shell`.
    pub command: String,
    /// Why no typed tool can do this; shown to the person who approves it.
    pub reason: String,
    /// Default 10000, max 120000.
    pub timeout_ms: Option<u64>,
}

fn check_run(a: &RunArgs) -> Result<(), ToolError> {
    let reason = a.reason.trim().chars().count();
    if reason == 0 {
        return Err(ToolError::invalid_args(
            "reason is required: say why no typed tool can do this",
        ));
    }
    if reason < 5 {
        return Err(ToolError::invalid_args(
            "reason is too short (at least 5 characters): say why no typed tool can do this",
        ));
    }
    if a.command.trim().is_empty() {
        return Err(ToolError::invalid_args("command is empty"));
    }
    if a.timeout_ms.is_some_and(|t| t == 0 || t > MAX_TIMEOUT_MS) {
        return Err(ToolError::invalid_args(format!(
            "timeoutMs must be between 1 and {MAX_TIMEOUT_MS}"
        )));
    }
    // Too long to be approved anyway: refused before the guard reads it.
    if a.command.len() > crate::mcp::server::MAX_CONFIRM_ARGS {
        return Err(ToolError::refused(format!(
            "the command is {} bytes; a command to approve may be at most {} bytes (nobody was asked)",
            a.command.len(),
            crate::mcp::server::MAX_CONFIRM_ARGS
        )));
    }
    if let Some(r) = guard::catastrophic(&a.command) {
        return Err(ToolError::refused(format!(
            "{r}. This command is never run, whatever is approved; it was not shown for confirmation."
        ))
        .with_details(serde_json::json!({ "rule": r.rule })));
    }
    Ok(())
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RunOut {
    pub serial: String,
    pub exit_code: i32,
    pub stdout: String,
    pub stderr: String,
    /// Set when the output was cut at the cap.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

fn cap(s: String, note: &mut Option<String>, which: &str) -> String {
    if s.len() <= OUTPUT_CAP {
        return s;
    }
    let mut end = OUTPUT_CAP;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    *note = Some(format!(
        "{which} was cut at {OUTPUT_CAP} bytes of {}",
        s.len()
    ));
    s[..end].to_string()
}

async fn run(ctx: Ctx, a: RunArgs) -> Result<RunOut, ToolError> {
    let dev = ctx.device(a.serial.as_deref()).await?;
    tracing::warn!(serial = dev.serial(), command = %a.command, reason = %a.reason, "running an approved adb command");
    let running = ctx.sh_timeout(
        &dev,
        &a.command,
        Duration::from_millis(a.timeout_ms.unwrap_or(10_000)),
    );
    let out =
        crate::progress::ticking("adb command running", Duration::from_secs(1), running).await;
    // Whatever it ran (`wm size 720x1280`, a fold, a display change) may have changed the screen.
    ctx.core.devices.forget_screen_size(dev.serial());
    let out = out?;
    let mut note = None;
    let stdout = cap(out.stdout_text(), &mut note, "stdout");
    let stderr = cap(out.stderr_text(), &mut note, "stderr");
    Ok(RunOut {
        serial: dev.serial().to_string(),
        exit_code: out.exit_code,
        stdout,
        stderr,
        note,
    })
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoArgs {}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Restarted {
    pub servers: Vec<String>,
    /// Devices reconnected with `adb connect` (they had been attached that way before).
    pub reconnected: Vec<String>,
    /// `serial: why` for devices attached with `adb connect` that did not come back.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub not_reconnected: Vec<String>,
    /// Remote servers left alone: they are restarted on their own machines.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<String>,
    pub devices_after: usize,
}

/// The demo's adb server is part of this process: nothing to restart, so the call is refused
/// before a person is asked to approve what cannot work.
fn restartable(ctx: &Ctx) -> Result<(), ToolError> {
    if ctx.core.demo {
        return Err(ToolError::refused(
            "the built-in demo adb server cannot be restarted (it is part of this process)",
        ));
    }
    Ok(())
}

/// Restarts each local adb server (never a remote one), then reconnects the devices it had
/// attached with `adb connect`: a person approved this call (it is destructive).
async fn restart(ctx: Ctx) -> Result<Restarted, ToolError> {
    restartable(&ctx)?;
    let devices = &ctx.core.devices;
    let (local, remote): (Vec<_>, Vec<_>) =
        devices.servers().into_iter().partition(|ep| ep.is_local());
    if local.is_empty() {
        return Err(ToolError::refused(
            "no local adb server is configured; remote servers are restarted on their own machines",
        ));
    }
    let mut out = Restarted {
        servers: Vec::new(),
        reconnected: Vec::new(),
        not_reconnected: Vec::new(),
        skipped: remote.iter().map(ToString::to_string).collect(),
        devices_after: 0,
    };
    for ep in &local {
        let r = devices.restart_local_server(ep).await?;
        out.servers.push(r.server);
        out.reconnected.extend(r.reconnected);
        out.not_reconnected.extend(r.not_reconnected);
    }
    out.devices_after = devices
        .list()
        .await
        .map(|l| {
            l.iter()
                .filter(|d| d.state == crate::device::DeviceState::Device)
                .count()
        })
        .unwrap_or(0);
    Ok(out)
}

pub fn tools() -> Vec<ToolDef> {
    vec![
        Meta {
            name: "android_run_adb_command",
            title: "Run a shell command (escape hatch)",
            level: Level::Destructive,
            toolset: Toolset::Shell,
            description: "Run an arbitrary `adb shell` command. Prefer a typed tool; `reason` must say why none fits \
                          (the person sees it). Bounded time and output. Catastrophic commands are refused \
                          outright: a guard rail, not a sandbox.",
        }
        .def(run)
        .reads_too()
        .precheck(check_run),
        Meta {
            name: "spock_restart_adb_server",
            title: "Restart the adb server",
            level: Level::Destructive,
            toolset: Toolset::Host,
            description: "Restart the local adb server(s), never a remote one. Disconnects every device; USB ones come back \
                          on their own, ones attached with `adb connect` are reconnected.",
        }
        .def(|ctx: Ctx, _: NoArgs| restart(ctx))
        .refuses_before_asking(restartable)
        .in_group(HostGroup::AdbServer),
    ]
}
