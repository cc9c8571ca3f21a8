//! `android_lease_device`: take, renew or release a device lease (see `mcp::lease`). Who holds
//! what is in `spock_get_status` (`leases`) and on the control centre's Status screen.
use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::mcp::ctx::Ctx;
use crate::mcp::lease::{self, DEFAULT_SECS, Holder, LeaseInfo, MAX_SECS, MIN_SECS, Taken};
use crate::mcp::registry::{Branch, Level, Meta, ToolDef};
use crate::mcp::result::ToolError;
use crate::mcp::toolsets::Toolset;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct LeaseArgs {
    pub serial: Option<String>,
    /// Seconds from now, 10..3600 (default 600); the holder calling again renews.
    pub duration_seconds: Option<u64>,
    /// Give the lease back instead.
    #[serde(default)]
    pub release: bool,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LeaseResult {
    /// `taken`, `renewed`, `released`, or `not_leased` (release of a device nobody held).
    pub action: String,
    pub device: String,
    /// The lease now held (absent after a release).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lease: Option<LeaseInfo>,
}

fn check(a: &LeaseArgs) -> Result<(), ToolError> {
    match a.duration_seconds {
        Some(_) if a.release => Err(ToolError::invalid_args(
            "durationSeconds and release=true do not go together: release gives the lease back",
        )),
        Some(s) if !(MIN_SECS..=MAX_SECS).contains(&s) => Err(ToolError::invalid_args(format!(
            "durationSeconds must be between {MIN_SECS} and {MAX_SECS}, got {s}"
        ))),
        _ => Ok(()),
    }
}

/// Another client's lease: the same refusal the pipeline gives, for the race it cannot see.
fn held_by_other(ctx: &Ctx, lease: &lease::Lease) -> ToolError {
    let now = tokio::time::Instant::now();
    ToolError::refused(format!(
        "{} was not run: {}.",
        ctx.tool,
        lease.describe(now)
    ))
    .with_details(serde_json::json!({ "lease": lease.info(now) }))
}

async fn lease_device(ctx: Ctx, a: LeaseArgs) -> Result<LeaseResult, ToolError> {
    let Some(holder) = Holder::of(&ctx.origin) else {
        return Err(ToolError::refused(
            "leases are held by MCP clients; the control centre's own calls are never held back",
        ));
    };
    let dev = ctx.device(a.serial.as_deref()).await?;
    let device = dev.serial().to_string();
    // Asked of the phone itself, now: the name's facts may be an earlier phone's.
    let identity = match crate::device::identity::read_live(&dev, ctx.timeout()).await {
        Ok(live) if live.identity.is_some() => live.identity,
        _ => lease::identity(&ctx.core, &device).await,
    };
    let target = lease::Target {
        device: &device,
        identity: identity.as_deref(),
    };
    let now = tokio::time::Instant::now();
    if a.release {
        return match lease::release(&ctx.core, target, &holder) {
            Ok(Some(_)) => Ok(LeaseResult {
                action: "released".into(),
                device,
                lease: None,
            }),
            Ok(None) => Ok(LeaseResult {
                action: "not_leased".into(),
                device,
                lease: None,
            }),
            Err(other) => Err(held_by_other(&ctx, &other)),
        };
    }
    let dur = Duration::from_secs(a.duration_seconds.unwrap_or(DEFAULT_SECS));
    match lease::take(&ctx.core, target, &holder, dur) {
        Ok((how, l)) => Ok(LeaseResult {
            action: match how {
                Taken::New => "taken",
                Taken::Renewed => "renewed",
            }
            .into(),
            device,
            lease: Some(l.info(now)),
        }),
        Err(other) => Err(held_by_other(&ctx, &other)),
    }
}

pub fn tools() -> Vec<ToolDef> {
    vec![
        Meta {
            name: "android_lease_device",
            title: "Lease device",
            level: Level::SafeAction,
            toolset: Toolset::Host,
            description: "Hold a device for a while: other clients' actions on it are refused (reads \
                          stay allowed) until you release it, disconnect, or it expires. Call again \
                          to renew.",
        }
        .def(lease_device)
        .in_branch(Branch::Host)
        .precheck(check),
    ]
}
