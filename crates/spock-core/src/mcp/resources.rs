//! Resources (read without a tool call) and prompts (the first seed's workflows as something
//! an agent can call). Every resource is read fresh and stamped with the time it was read.
use chrono::Utc;
use rmcp::model::{
    GetPromptResult, Prompt, PromptArgument, PromptMessage, ReadResourceResult, Resource,
    ResourceContents, Role,
};
use serde_json::{Value, json};

use super::core::Core;

pub const DEVICES: &str = "android://devices";
pub const SELECTED: &str = "android://device/selected";
pub const APP_ID: &str = "android://project/application-id";
/// What every JSON resource says it is, in the list and in the read.
pub const JSON: &str = "application/json";

pub fn list() -> Vec<Resource> {
    let r = |uri: &str, name: &str, desc: &str| {
        let mut r = Resource::new(uri, name).with_description(desc);
        r.mime_type = Some(JSON.into());
        r
    };
    vec![
        r(
            DEVICES,
            "devices",
            "Attached devices on every adb server, read now.",
        ),
        r(
            SELECTED,
            "selected-device",
            "The device tools use when no serial is given.",
        ),
        r(
            APP_ID,
            "application-id",
            "The selected Android project's application id.",
        ),
    ]
}

/// Read a resource now. `Err` carries a message for an unknown URI.
pub async fn read(
    core: &Core,
    origin: &super::ctx::Origin,
    uri: &str,
) -> Result<ReadResourceResult, String> {
    let read_at = Utc::now().to_rfc3339();
    let body: Value = match uri {
        DEVICES => match core.devices.list().await {
            Ok(list) => {
                core.devices.names_shown(&list);
                json!({ "readAt": read_at, "devices": crate::mcp::tools::common::DeviceRef::all(&core.devices, &list),
                    "serverErrors": core.devices.server_errors().iter().map(|(s, e)| format!("{s}: {e}")).collect::<Vec<_>>() })
            }
            Err(e) => json!({ "readAt": read_at, "devices": [], "error": e.to_string() }),
        },
        SELECTED => {
            let selected = core.sessions.selections.get(origin);
            let list = core.devices.list().await.unwrap_or_default();
            let effective = selected
                .clone()
                .or_else(|| (list.len() == 1).then(|| list[0].id.clone()));
            json!({ "readAt": read_at, "selected": selected, "effective": effective,
                    "note": if effective.is_none() && list.len() > 1 { "several devices and none selected: call android_select_device" } else { "" } })
        }
        APP_ID => match core.projects.current() {
            Ok(p) => {
                json!({ "readAt": read_at, "project": p.name, "dir": p.dir, "applicationId": p.application_id })
            }
            Err(e) => json!({ "readAt": read_at, "applicationId": null, "error": e }),
        },
        other => {
            return Err(format!(
                "unknown resource {other}: resources/list names the three there are"
            ));
        }
    };
    Ok(ReadResourceResult::new(vec![
        ResourceContents::text(body.to_string(), uri).with_mime_type(JSON),
    ]))
}

struct Workflow {
    name: &'static str,
    description: &'static str,
    args: &'static [(&'static str, &'static str, bool)],
    text: fn(&serde_json::Map<String, Value>) -> String,
}

fn arg<'a>(args: &'a serde_json::Map<String, Value>, k: &str, default: &'a str) -> &'a str {
    args.get(k).and_then(Value::as_str).unwrap_or(default)
}

const WORKFLOWS: [Workflow; 3] = [
    Workflow {
        name: "debug_crash",
        description: "Debug a crash: one call gathers activity, UI and error logcat from the same moment.",
        args: &[("packageName", "The app that crashed (optional)", false)],
        text: |a| {
            format!(
                "Debug a crash{}. Call android_get_debug_context with include [\"activity\",\"ui\",\"logcat\"] and \
                 minLevel \"E\" — one call, every section from the same moment. Read the FATAL EXCEPTION in the \
                 logcat section (crashes summarises it), relate its stack frames to the screen the UI section shows, \
                 and explain the cause and the fix.",
                match arg(a, "packageName", "") {
                    "" => String::new(),
                    p => format!(" in {p}"),
                }
            )
        },
    },
    Workflow {
        name: "test_deep_link",
        description: "Test a deep link: open it, see which activity opened, look at the screen.",
        args: &[
            ("uri", "The deep link, e.g. shop://product/42", true),
            (
                "packageName",
                "The app expected to handle it (optional)",
                false,
            ),
            (
                "activity",
                "The activity expected to open, e.g. com.example.shop.ProductActivity (optional)",
                false,
            ),
        ],
        text: |a| {
            format!(
                "Test the deep link {}. 1) android_open_deep_link with uri {:?}{}. 2) android_get_current_activity to see \
                 which activity opened{}. 3) android_take_screenshot. Report which screen opened and whether it is the \
                 one the link should open.",
                arg(a, "uri", "<uri>"),
                arg(a, "uri", "<uri>"),
                match arg(a, "packageName", "") {
                    "" => String::new(),
                    p => format!(" and packageName {p:?}"),
                },
                match arg(a, "activity", "") {
                    "" => String::new(),
                    x => format!(" (expected: {x})"),
                }
            )
        },
    },
    Workflow {
        name: "investigate_permission",
        description: "Investigate a permission problem: declared vs granted, the denial in logcat, grant, restart.",
        args: &[
            ("packageName", "The app", true),
            (
                "permission",
                "The permission, e.g. android.permission.CAMERA (optional)",
                false,
            ),
        ],
        text: |a| {
            let p = arg(a, "packageName", "<package>");
            format!(
                "Investigate a permission problem in {p}. 1) android_get_package_info for {p}: compare requested \
                 permissions with granted ones (notGranted). 2) android_get_logcat with packageName {p:?} and contains \
                 \"denied\" (or \"Permission\") to find the denial. 3) If a needed runtime permission{} is not granted, \
                 android_grant_permission, then android_restart_app and check again.",
                match arg(a, "permission", "") {
                    "" => String::new(),
                    x => format!(" ({x})"),
                }
            )
        },
    },
];

pub fn prompts() -> Vec<Prompt> {
    WORKFLOWS
        .iter()
        .map(|w| {
            let args = w
                .args
                .iter()
                .map(|(n, d, req)| {
                    let mut a = PromptArgument::new(*n).with_description(*d);
                    a.required = Some(*req);
                    a
                })
                .collect();
            Prompt::new(w.name, Some(w.description), Some(args))
        })
        .collect()
}

pub fn prompt(
    name: &str,
    args: &serde_json::Map<String, Value>,
) -> Result<GetPromptResult, String> {
    let w = WORKFLOWS.iter().find(|w| w.name == name).ok_or_else(|| {
        format!(
            "unknown prompt {name}: prompts/list names {}",
            WORKFLOWS
                .iter()
                .map(|w| w.name)
                .collect::<Vec<_>>()
                .join(", ")
        )
    })?;
    for (n, _, required) in w.args {
        if *required && arg(args, n, "").is_empty() {
            return Err(format!("prompt {name} needs the argument {n}"));
        }
    }
    Ok(
        GetPromptResult::new(vec![PromptMessage::new_text(Role::User, (w.text)(args))])
            .with_description(w.description),
    )
}
