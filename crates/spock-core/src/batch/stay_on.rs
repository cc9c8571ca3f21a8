//! A batch run's keepScreenOn: the tool the runner calls before the first step and after the
//! last, declared here, beside the runner that uses it (it is no tool of the catalogue).
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::mcp::ctx::Ctx;
use crate::mcp::registry::{Level, Meta, ToolDef};
use crate::mcp::result::ToolError;
use crate::mcp::toolsets::Toolset;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct StayOnArgs {
    pub serial: Option<String>,
    /// true: note the device's `stay_on_while_plugged_in` and keep the screen on; false: put
    /// `restore` back.
    pub on: bool,
    /// The value noted when it was turned on.
    pub restore: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct StayOn {
    pub serial: String,
    /// The setting before it was turned on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub previous: Option<String>,
    /// The command that put it back.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub restored_with: Option<String>,
}

const STAY_ON_KEY: &str = "stay_on_while_plugged_in";

async fn stay_on(ctx: Ctx, a: StayOnArgs) -> Result<StayOn, ToolError> {
    let dev = ctx.device(a.serial.as_deref()).await?;
    let serial = dev.serial().to_string();
    if a.on {
        let previous = ctx
            .sh_ok(&dev, &format!("settings get global {STAY_ON_KEY}"))
            .await?
            .trim()
            .to_string();
        ctx.sh_ok(&dev, "svc power stayon true").await?;
        return Ok(StayOn {
            serial,
            previous: Some(previous),
            restored_with: None,
        });
    }
    // `null` (never set) or anything not a number: the platform default, off.
    let cmd = match a.restore.as_deref().and_then(|p| p.parse::<u32>().ok()) {
        Some(n) => format!("settings put global {STAY_ON_KEY} {n}"),
        None => "svc power stayon false".to_string(),
    };
    ctx.sh_ok(&dev, &cmd).await?;
    Ok(StayOn {
        serial,
        previous: None,
        restored_with: Some(cmd),
    })
}

/// A batch run's keepScreenOn (`svc power stayon true`, then the previous setting put back):
/// not in the catalogue, but run through the call pipeline like a step, so it meets the access
/// switches (`access.disabled += "android_keep_screen_on"` turns it off) and is audited as the
/// run's, from the client that started it.
pub fn keep_screen_on_tool() -> ToolDef {
    Meta {
        name: "android_keep_screen_on",
        title: "Keep screen on (batch run)",
        level: Level::SafeAction,
        toolset: Toolset::Batch,
        description: "Keep the device's screen on for a batch run, then put its setting back.",
    }
    .def(stay_on)
}
