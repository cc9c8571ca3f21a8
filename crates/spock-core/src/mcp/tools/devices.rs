//! Which devices there are and what they are: list, info, screen, selection.
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::common::{DeviceRef, SerialOnly};
use crate::device::DeviceState;
use crate::device::parse::{battery, getprop, wm};
use crate::mcp::ctx::Ctx;
use crate::mcp::registry::{Branch, Level, Meta, ToolDef};
use crate::mcp::result::ToolError;
use crate::mcp::toolsets::Toolset;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoArgs {}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListedDevice {
    #[serde(flatten)]
    pub device: DeviceRef,
    /// From the device's build properties, read once when it arrived (null until then).
    pub sdk: Option<u32>,
    pub release: Option<String>,
    /// False when its last call (or the property read) got no answer in time, or its adb server
    /// is not answering.
    pub answering: bool,
    /// Why it counts as not answering.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_answering: Option<String>,
    pub selected: bool,
    /// Which phone it is whatever name reaches it (build fingerprint and serial): what leases
    /// and the device tree of tool access (`access.devices`) are keyed by. Null until read.
    pub identity: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DeviceList {
    pub devices: Vec<ListedDevice>,
    /// adb servers that did not answer, with why.
    pub server_errors: Vec<String>,
}

/// How long a listing waits for build properties of devices that have just arrived.
const FRESH_PROPS_WAIT: std::time::Duration = std::time::Duration::from_secs(1);

/// Answers from the live device table: no device is asked anything here (properties were read
/// when each device arrived), so one hung phone or host never slows a listing down.
async fn list_devices(ctx: Ctx) -> Result<DeviceList, ToolError> {
    let devs = &ctx.core.devices;
    devs.list().await?;
    devs.props_settled(FRESH_PROPS_WAIT).await;
    let entries = devs.snapshot();
    devs.names_shown(&entries);
    let selected = ctx.core.sessions.selections.get(&ctx.origin);
    let refs = DeviceRef::all(devs, &entries);
    let devices = entries
        .iter()
        .zip(refs)
        .map(|(e, device)| {
            let facts = devs.facts(&e.id).unwrap_or_default();
            let props = facts.props.unwrap_or_default();
            let not_answering = match e.state {
                DeviceState::Unreachable => device.server_error.clone(),
                _ => facts.not_answering,
            };
            ListedDevice {
                device,
                sdk: props.sdk,
                release: props.release,
                answering: not_answering.is_none(),
                not_answering,
                selected: selected.as_deref() == Some(e.id.as_str()),
                identity: devs.identity(&e.id),
            }
        })
        .collect();
    let server_errors = devs
        .server_errors()
        .into_iter()
        .map(|(s, e)| format!("{s}: {e}"))
        .collect();
    Ok(DeviceList {
        devices,
        server_errors,
    })
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DeviceInfo {
    pub serial: String,
    pub model: Option<String>,
    pub manufacturer: Option<String>,
    pub brand: Option<String>,
    pub release: Option<String>,
    pub sdk: Option<u32>,
    pub abi: Option<String>,
    pub abis: Vec<String>,
    pub fingerprint: Option<String>,
    pub build_type: Option<String>,
    pub screen: Option<wm::Size>,
    pub density: Option<u32>,
    pub battery: Option<BatterySummary>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct BatterySummary {
    pub percent: Option<u32>,
    pub status: Option<String>,
    pub plugged: Option<String>,
}

async fn device_info(ctx: Ctx, a: SerialOnly) -> Result<DeviceInfo, ToolError> {
    let dev = ctx.device(a.serial.as_deref()).await?;
    let (props, size, density, bat) = tokio::join!(
        ctx.sh_ok(&dev, "getprop"),
        ctx.sh_ok(&dev, "wm size"),
        ctx.sh_ok(&dev, "wm density"),
        ctx.sh_ok(&dev, "dumpsys battery"),
    );
    let props = getprop::DeviceProps::from_map(&getprop::parse(&props?));
    let battery = bat
        .ok()
        .map(|t| battery::parse(&t))
        .map(|b| BatterySummary {
            percent: b.percent,
            status: b.status,
            plugged: b.plugged,
        });
    Ok(DeviceInfo {
        serial: dev.serial().to_string(),
        model: props.model,
        manufacturer: props.manufacturer,
        brand: props.brand,
        release: props.release,
        sdk: props.sdk,
        abi: props.abi,
        abis: props.abis,
        fingerprint: props.fingerprint,
        build_type: props.build_type,
        screen: size.ok().and_then(|t| wm::parse_size(&t).effective),
        density: density.ok().and_then(|t| wm::parse_density(&t).effective),
        battery,
    })
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ScreenInfo {
    pub serial: String,
    pub width: Option<u32>,
    pub height: Option<u32>,
    pub density: Option<u32>,
    /// 0, 90, 180 or 270 degrees; null when the device did not report it.
    pub rotation: Option<u32>,
    pub display_id: u32,
    /// null when the device did not report it.
    pub screen_on: Option<bool>,
    pub locked: Option<bool>,
    pub notes: Vec<String>,
}

fn field_after<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    text.lines().find_map(|l| {
        let i = l.find(key)?;
        let rest = &l[i + key.len()..];
        Some(
            rest.split(|c: char| c.is_whitespace() || c == ',' || c == '}')
                .next()
                .unwrap_or(""),
        )
    })
}

async fn screen_info(ctx: Ctx, a: SerialOnly) -> Result<ScreenInfo, ToolError> {
    let dev = ctx.device(a.serial.as_deref()).await?;
    let (size, density, power, window) = tokio::join!(
        ctx.sh_ok(&dev, "wm size"),
        ctx.sh_ok(&dev, "wm density"),
        ctx.sh(&dev, "dumpsys power"),
        ctx.sh(&dev, "dumpsys window"),
    );
    let size = wm::parse_size(&size?).effective;
    let mut notes = Vec::new();
    let power = power.ok().filter(|o| o.success()).map(|o| o.stdout_text());
    let window = window
        .ok()
        .filter(|o| o.success())
        .map(|o| o.stdout_text())
        .unwrap_or_default();
    let screen_on = power.as_deref().and_then(|p| {
        field_after(p, "mWakefulness=")
            .map(|w| w == "Awake")
            .or_else(|| field_after(p, "Display Power: state=").map(|s| s == "ON"))
    });
    if screen_on.is_none() {
        notes.push("screen on/off not reported by `dumpsys power` on this device".into());
    }
    let locked = field_after(&window, "mDreamingLockscreen=")
        .or_else(|| field_after(&window, "isKeyguardShowing="))
        .or_else(|| field_after(&window, "mShowingLockscreen="))
        .map(|v| v == "true");
    if locked.is_none() {
        notes.push("lock state not reported by `dumpsys window` on this device".into());
    }
    let rotation = field_after(&window, "mRotation=")
        .or_else(|| field_after(&window, "mCurrentRotation="))
        .and_then(|r| match r.trim_start_matches("ROTATION_") {
            "0" => Some(0),
            "1" | "90" => Some(90),
            "2" | "180" => Some(180),
            "3" | "270" => Some(270),
            _ => None,
        });
    Ok(ScreenInfo {
        serial: dev.serial().to_string(),
        width: size.as_ref().map(|s| s.width),
        height: size.as_ref().map(|s| s.height),
        density: density.ok().and_then(|t| wm::parse_density(&t).effective),
        rotation,
        display_id: 0,
        screen_on,
        locked,
        notes,
    })
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SelectArgs {
    /// The device to use when a call names none: its serial, or `serial@host:port`.
    pub serial: String,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Selected {
    /// The device's full name `serial@host:port`: the selection stays on this device; when it
    /// is gone, calls say so rather than using another.
    pub selected: String,
    pub previous: Option<String>,
}

pub fn tools() -> Vec<ToolDef> {
    vec![
        Meta {
            name: "android_list_devices",
            title: "List devices",
            level: Level::ReadOnly,
            toolset: Toolset::Core,
            description: "Attached devices on every adb server: serial, id (serial@host:port), state, model, sdk, answering, selected.",
        }
        .def(|ctx: Ctx, _: NoArgs| list_devices(ctx)),
        Meta {
            name: "android_get_device_info",
            title: "Device info",
            level: Level::ReadOnly,
            toolset: Toolset::Debug,
            description: "Model, manufacturer, Android release and SDK, ABIs, screen size and density, battery summary.",
        }
        .def(device_info),
        Meta {
            name: "android_get_screen_info",
            title: "Screen info",
            level: Level::ReadOnly,
            toolset: Toolset::Debug,
            description: "Screen size, density, rotation, display id, whether the screen is on and locked.",
        }
        .def(screen_info),
        Meta {
            name: "android_select_device",
            title: "Select device",
            level: Level::SafeAction,
            toolset: Toolset::Core,
            description: "Make a device the default for calls that give no serial (needed when several are attached).",
        }
        .def(|ctx: Ctx, a: SelectArgs| async move {
            let dev = ctx.device(Some(&a.serial)).await?;
            let previous = ctx
                .core
                .sessions.selections
                .set(&ctx.origin, dev.serial().to_string())
                .map_err(|e| crate::mcp::result::ToolError::invalid_args(e.to_string()))?;
            ctx.core.emit(crate::mcp::ServerEvent::DevicesChanged);
            Ok(Selected { selected: dev.serial().to_string(), previous })
        })
        .in_branch(Branch::Host),
    ]
}
