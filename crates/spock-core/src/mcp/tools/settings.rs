//! Host tools that change spock-tui itself: `spock_navigate` (the control centre's screen) and
//! `spock_update_settings` (002_… updateSettings: only the keys given, validated before
//! anything is written, reports what applied and what waits for a restart).
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::mcp::ctx::Ctx;
use crate::mcp::navigation::SCREENS;
use crate::mcp::registry::{HostGroup, Level, Meta, ToolDef};
use crate::mcp::result::ToolError;
use crate::mcp::toolsets::Toolset;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NavigateArgs {
    /// status, tools, activity, history, settings or batch.
    pub destination: String,
    /// Optional: a tool name (tools), a call id (activity/history) or a device serial (status).
    pub select: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Navigated {
    pub applied: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    pub destination: String,
}

#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct SettingsArgs {
    /// HTTP port (1..65535). Saved; takes effect when the server restarts.
    pub port: Option<u32>,
    /// Calls kept in history (1..1000000). Applies at once.
    pub history_size: Option<u64>,
    /// Seconds a confirmation waits before the default denial (1..3600). Applies at once.
    pub confirm_timeout_secs: Option<u64>,
    /// Concurrent stdio sessions (1..1024). Takes effect when the server restarts.
    pub max_sessions: Option<u64>,
    /// Default device command timeout in ms (100..600000). Applies at once.
    pub command_timeout_ms: Option<u64>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SettingsApplied {
    /// Keys written to the config file.
    pub applied: Vec<String>,
    /// Keys whose effect waits for a server restart.
    pub pending_restart: Vec<String>,
    pub notes: Vec<String>,
    pub config_file: String,
}

fn range(name: &str, v: Option<u64>, lo: u64, hi: u64) -> Result<(), ToolError> {
    match v {
        Some(x) if x < lo || x > hi => Err(ToolError::invalid_args(format!(
            "{name} must be between {lo} and {hi}, got {x}"
        ))),
        _ => Ok(()),
    }
}

/// Ranges were checked by the precheck, before anyone was asked to approve the call.
async fn update_settings(ctx: Ctx, a: SettingsArgs) -> Result<SettingsApplied, ToolError> {
    let core = ctx.core.clone();
    // Saving writes the config file: off the async runtime.
    let (applied, pending) = tokio::task::spawn_blocking(move || {
        let mut applied = Vec::new();
        let mut pending = Vec::new();
        core.update_config(|c| {
            if let Some(p) = a.port {
                c.server.port = p as u16;
                applied.push("port".to_string());
                pending.push("port".to_string());
            }
            if let Some(h) = a.history_size {
                c.history.size = h as usize;
                applied.push("historySize".to_string());
            }
            if let Some(t) = a.confirm_timeout_secs {
                c.safety.confirm_timeout_secs = t;
                applied.push("confirmTimeoutSecs".to_string());
            }
            if let Some(m) = a.max_sessions {
                c.server.max_sessions = m as usize;
                applied.push("maxSessions".to_string());
                pending.push("maxSessions".to_string());
            }
            if let Some(t) = a.command_timeout_ms {
                c.device.command_timeout_ms = t;
                applied.push("commandTimeoutMs".to_string());
            }
        })
        .map(|_| (applied, pending))
    })
    .await
    .map_err(|e| ToolError::internal(format!("settings worker failed: {e}")))?
    .map_err(|e| match e {
        crate::config::ConfigError::Invalid { message, .. } => ToolError::invalid_args(message),
        // The file could not be written: nothing changed, and the arguments were fine.
        other => ToolError::internal(format!("nothing changed: {other}")),
    })?;
    let mut notes = Vec::new();
    if !pending.is_empty() {
        notes.push(
            "The MCP server is never restarted by this tool (that would drop your own connection): \
             pending keys apply when a person restarts it from the control centre or the process restarts."
                .to_string(),
        );
    }
    Ok(SettingsApplied {
        applied,
        pending_restart: pending,
        notes,
        config_file: crate::config::config_file(&ctx.core.paths)
            .display()
            .to_string(),
    })
}

pub fn tools() -> Vec<ToolDef> {
    vec![
        Meta {
            name: "spock_navigate",
            title: "Switch the control centre's screen",
            level: Level::SafeAction,
            toolset: Toolset::Host,
            description: "Switch the person's control centre to a screen (status, tools, activity, history, \
                          settings, batch), selecting a tool, call or device. Reports applied: false with a reason.",
        }
        .def(|ctx: Ctx, a: NavigateArgs| async move {
            let dest = a.destination.to_ascii_lowercase();
            if !SCREENS.contains(&dest.as_str()) {
                return Err(ToolError::invalid_args(format!("destination {:?}: use one of {}", a.destination, SCREENS.join(", "))));
            }
            let r = ctx.core.ui.navigate(dest.clone(), a.select).await;
            Ok(Navigated { applied: r.is_ok(), reason: r.err(), destination: dest })
        })
        .in_group(HostGroup::Navigate),
        Meta {
            name: "spock_update_settings",
            title: "Change spock-tui settings",
            level: Level::Destructive,
            toolset: Toolset::Host,
            description: "Change only the settings given, all validated before anything is written. Reports what applied and what waits for a restart.",
        }
        .def(update_settings)
        .precheck(|a: &SettingsArgs| {
            if a.port.is_none()
                && a.history_size.is_none()
                && a.confirm_timeout_secs.is_none()
                && a.max_sessions.is_none()
                && a.command_timeout_ms.is_none()
            {
                return Err(ToolError::invalid_args("no settings given: pass at least one key"));
            }
            range("port", a.port.map(u64::from), 1, 65535)?;
            range("historySize", a.history_size, 1, 1_000_000)?;
            range("confirmTimeoutSecs", a.confirm_timeout_secs, 1, 3600)?;
            range("maxSessions", a.max_sessions, 1, 1024)?;
            range("commandTimeoutMs", a.command_timeout_ms, 100, 600_000)
        })
        .in_group(HostGroup::Settings),
    ]
}
