//! Resource templates: one device's info, compact UI tree, screenshot (a PNG blob) and logcat
//! as URIs (`android://device/{serial}/info`, …). A read is the tool behind it called through
//! the one pipeline ([`super::server::CallRequest`]), so the same access switches, lease rules,
//! redaction and audit record apply as when an agent calls that tool; only read-only tools
//! stand behind a template.
use std::sync::Arc;

use base64::Engine as _;
use rmcp::model::{ReadResourceResult, ResourceContents, ResourceTemplate};
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

use super::core::Core;
use super::ctx::Origin;
use super::resources::JSON;
use super::result::{ErrorKind, ToolError};
use crate::redact::{Audience, redact_password_nodes};

struct Template {
    uri: &'static str,
    name: &'static str,
    title: &'static str,
    description: &'static str,
    mime: &'static str,
    /// The read-only tool a read calls.
    tool: &'static str,
    /// The path after `android://device/{serial}/`.
    leaf: &'static str,
}

const TEMPLATES: [Template; 4] = [
    Template {
        uri: "android://device/{serial}/info",
        name: "device-info",
        title: "Device info",
        description: "Model, Android version, ABI, screen and state of one device (android_get_device_info).",
        mime: JSON,
        tool: "android_get_device_info",
        leaf: "info",
    },
    Template {
        uri: "android://device/{serial}/ui",
        name: "device-ui",
        title: "UI tree (compact)",
        description: "The screen's semantics tree in its compact form (android_get_ui_tree compact=true).",
        mime: JSON,
        tool: "android_get_ui_tree",
        leaf: "ui",
    },
    Template {
        uri: "android://device/{serial}/screenshot",
        name: "device-screenshot",
        title: "Screenshot",
        description: "The screen as a PNG (android_take_screenshot format=png), as a blob.",
        mime: "image/png",
        tool: "android_take_screenshot",
        leaf: "screenshot",
    },
    Template {
        uri: "android://device/{serial}/logcat{?lines,minLevel}",
        name: "device-logcat",
        title: "Logcat",
        description: "Recent logcat lines and crashes (android_get_logcat); lines (default 200) and minLevel (V D I W E F).",
        mime: JSON,
        tool: "android_get_logcat",
        leaf: "logcat",
    },
];

/// The URI templates a client may read (`resources/templates/list`).
pub fn list() -> Vec<ResourceTemplate> {
    TEMPLATES
        .iter()
        .map(|t| {
            ResourceTemplate::new(t.uri, t.name)
                .with_title(t.title)
                .with_description(t.description)
                .with_mime_type(t.mime)
        })
        .collect()
}

/// The template variables of `resources/templates`, for completion.
pub fn variables(uri_template: &str) -> Option<&'static [&'static str]> {
    let t = TEMPLATES.iter().find(|t| t.uri == uri_template)?;
    Some(if t.leaf == "logcat" {
        &["serial", "lines", "minLevel"]
    } else {
        &["serial"]
    })
}

fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = s.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// A URI one of the templates produces: the template and the tool's arguments.
fn parse(uri: &str) -> Option<Result<(&'static Template, Value), String>> {
    let rest = uri.strip_prefix("android://device/")?;
    let (path, query) = rest.split_once('?').unwrap_or((rest, ""));
    let (serial, leaf) = path.rsplit_once('/')?;
    let t = TEMPLATES.iter().find(|t| t.leaf == leaf)?;
    let Some(serial) = percent_decode(serial).filter(|s| !s.is_empty() && !s.contains('/')) else {
        return Some(Err(format!("{uri}: the serial is not a device name")));
    };
    let mut args = Map::new();
    args.insert("serial".into(), Value::String(serial));
    match t.leaf {
        "ui" => {
            args.insert("compact".into(), Value::Bool(true));
        }
        "screenshot" => {
            args.insert("format".into(), Value::String("png".into()));
        }
        _ => {}
    }
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        let v = percent_decode(v).unwrap_or_default();
        match (t.leaf, k) {
            ("logcat", "lines") => match v.parse::<u64>() {
                Ok(n) => {
                    args.insert("lines".into(), json!(n));
                }
                Err(_) => return Some(Err(format!("{uri}: lines must be a number"))),
            },
            ("logcat", "minLevel") => {
                args.insert("minLevel".into(), Value::String(v));
            }
            _ => return Some(Err(format!("{uri}: unknown parameter {k}"))),
        }
    }
    Some(Ok((t, Value::Object(args))))
}

/// Why a template read did not answer, and whether the URI named nothing.
pub enum ReadError {
    NotATemplate,
    Invalid(String),
    Failed(ToolError),
}

/// Reads a templated URI by calling the tool behind it for `origin`.
pub async fn read(
    core: &Arc<Core>,
    origin: Origin,
    uri: &str,
    cancel: CancellationToken,
) -> Result<ReadResourceResult, ReadError> {
    let (t, args) = match parse(uri) {
        None => return Err(ReadError::NotATemplate),
        Some(Err(why)) => return Err(ReadError::Invalid(why)),
        Some(Ok(x)) => x,
    };
    let Some(done) = super::server::CallRequest::new(origin, t.tool, args)
        .cancel(cancel)
        .run(core)
        .await
    else {
        return Err(ReadError::Failed(ToolError::internal(format!(
            "{} is not in the catalogue",
            t.tool
        ))));
    };
    let mut out = match done.result {
        Ok(out) => out,
        Err(mut e) => {
            e.message = core
                .redactor
                .redact_str(&e.message, Audience::Agent)
                .into_owned();
            return Err(ReadError::Failed(e));
        }
    };
    core.redactor.redact_json(&mut out.json, Audience::Agent);
    redact_password_nodes(&mut out.json, Audience::Agent);
    let contents = if t.leaf == "screenshot" {
        let Some(img) = out.images.first() else {
            return Err(ReadError::Failed(ToolError::new(
                ErrorKind::Device,
                "the screenshot returned no image",
            )));
        };
        let b64 = base64::engine::general_purpose::STANDARD.encode(&img.data);
        vec![ResourceContents::blob(b64, uri).with_mime_type(img.mime)]
    } else {
        vec![ResourceContents::text(out.json.to_string(), uri).with_mime_type(JSON)]
    };
    Ok(ReadResourceResult::new(contents))
}

/// A template read's answer as the protocol has it: a URI nothing answers is "not found"
/// (`-32602` in 2026-07-28, `-32002` before; rmcp picks by version), a bad one invalid params,
/// a refused or failed tool call an error carrying the tool's message and kind.
pub fn answer(
    uri: &str,
    read: Result<ReadResourceResult, ReadError>,
) -> Result<ReadResourceResult, rmcp::ErrorData> {
    match read {
        Ok(r) => Ok(r),
        Err(ReadError::NotATemplate) => Err(rmcp::ErrorData::resource_not_found(
            format!(
                "unknown resource {uri}: resources/list names the fixed ones, \
                 resources/templates/list the device ones"
            ),
            None,
        )),
        Err(ReadError::Invalid(why)) => Err(rmcp::ErrorData::invalid_params(why, None)),
        Err(ReadError::Failed(e)) => {
            let data = Some(e.to_json());
            Err(rmcp::ErrorData::invalid_request(e.message, data))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_map_to_their_tool_and_arguments() {
        let (t, a) = parse("android://device/emulator-5554/info")
            .unwrap()
            .unwrap();
        assert_eq!(
            (t.tool, a["serial"].as_str()),
            ("android_get_device_info", Some("emulator-5554"))
        );
        let (t, a) = parse("android://device/127.0.0.1%3A5555/ui")
            .unwrap()
            .unwrap();
        assert_eq!(t.tool, "android_get_ui_tree");
        assert_eq!(a["serial"], "127.0.0.1:5555");
        assert_eq!(a["compact"], true);
        let (t, a) = parse("android://device/x/logcat?lines=50&minLevel=E")
            .unwrap()
            .unwrap();
        assert_eq!(t.tool, "android_get_logcat");
        assert_eq!(
            (a["lines"].as_u64(), a["minLevel"].as_str()),
            (Some(50), Some("E"))
        );
        assert!(
            parse("android://device/x/logcat?lines=many")
                .unwrap()
                .is_err()
        );
        assert!(parse("android://device/x/info?evil=1").unwrap().is_err());
        assert!(parse("android://device//info").unwrap().is_err());
        assert!(parse("android://device/x/shell").is_none());
        assert!(parse("android://devices").is_none());
    }

    #[test]
    fn every_template_names_a_read_only_tool() {
        let reg = crate::mcp::tools::catalogue();
        for t in TEMPLATES {
            let def = reg
                .get(t.tool)
                .unwrap_or_else(|| panic!("{} missing", t.tool));
            assert_eq!(
                def.level,
                crate::mcp::registry::Level::ReadOnly,
                "{}",
                t.tool
            );
        }
    }
}
