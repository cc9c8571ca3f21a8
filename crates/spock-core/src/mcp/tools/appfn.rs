//! AppFunctions: listing what apps expose (`cmd app_function list-app-functions`, filtered as
//! longarm's `app_functions_query`) and calling one, with its arguments checked and encoded
//! against the metadata the device itself listed (required parameters present, no unknown
//! ones, JSON types that match) before anything is executed.
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::inspect::refused;
use crate::device::Device;
use crate::device::parse::appfn::{self, AppFunction, AppFunctionParam};
use crate::guard::{self, shell_quote};
use crate::mcp::ctx::Ctx;
use crate::mcp::registry::{Level, Meta, ToolDef, destroying_verb};
use crate::mcp::result::ToolError;
use crate::mcp::toolsets::Toolset;

const LIST: &str = "cmd app_function list-app-functions";
/// `ExecuteAppFunctionResponse.PROPERTY_RETURN_VALUE`.
const RETURN_VALUE: &str = "androidAppfunctionsReturnValue";

/// A function id as apps declare them (`createNote`, `com.x.NoteFunctions#createNote`).
pub fn check_function_id(id: &str) -> Result<(), ToolError> {
    let ok = !id.is_empty()
        && id.len() <= 255
        && id
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "._#$:-".contains(c));
    if ok {
        return Ok(());
    }
    Err(ToolError::refused(format!(
        "refused (function-id): {:?} is not a function id (letters, digits and . _ # $ : - only)",
        id.chars().take(80).collect::<String>()
    )))
}

/// Does `v` have the JSON shape AppFunction metadata names?
fn type_ok(ty: &str, v: &Value) -> bool {
    match ty.to_ascii_lowercase().as_str() {
        "string" | "str" => v.is_string(),
        "int" | "integer" | "long" | "short" | "byte" => v.is_i64() || v.is_u64(),
        "float" | "double" | "number" => v.is_number(),
        "boolean" | "bool" => v.is_boolean(),
        "object" => v.is_object(),
        "array" | "list" => v.is_array(),
        _ => true,
    }
}

/// Checks `args` against `f`'s parameters and returns the `--parameters` JSON.
pub fn encode_arguments(f: &AppFunction, args: &Map<String, Value>) -> Result<String, ToolError> {
    let missing: Vec<&str> = f
        .parameters
        .iter()
        .filter(|p| p.required && !args.contains_key(&p.name))
        .map(|p| p.name.as_str())
        .collect();
    if !missing.is_empty() {
        return Err(ToolError::invalid_args(format!(
            "{} needs {}",
            f.function_id,
            missing.join(", ")
        )));
    }
    for (k, v) in args {
        let Some(p) = f.parameters.iter().find(|p| p.name == *k) else {
            let known: Vec<&str> = f.parameters.iter().map(|p| p.name.as_str()).collect();
            return Err(ToolError::invalid_args(format!(
                "{} has no parameter {k:?} (it takes: {})",
                f.function_id,
                if known.is_empty() {
                    "nothing".into()
                } else {
                    known.join(", ")
                }
            )));
        };
        if !type_ok(&p.r#type, v) {
            return Err(ToolError::invalid_args(format!(
                "parameter {k} must be {} (got {v})",
                p.r#type
            )));
        }
    }
    serde_json::to_string(args).map_err(|e| ToolError::internal(format!("encoding arguments: {e}")))
}

/// A listed function and the raw JSON object it came from.
type Entry = (AppFunction, Map<String, Value>);

/// Parses the listing, also reading what the typed parser leaves out: schema fields, and
/// parameters given as a `{"name": "type"}` map (the virtual device's form; every parameter
/// it lists is one it requires).
fn parse(text: &str) -> Result<Vec<Entry>, ToolError> {
    let fns = appfn::parse_list(text)
        .map_err(|e| ToolError::device(format!("could not read the AppFunction list: {e}")))?;
    let raw: Option<Value> = text
        .find(['[', '{'])
        .and_then(|i| {
            serde_json::Deserializer::from_str(&text[i..])
                .into_iter()
                .next()
        })
        .and_then(Result::ok)
        .map(|v: Value| appfn::normalize(&v));
    let mut objects = Vec::new();
    if let Some(v) = &raw {
        collect_objects(v, &mut objects);
    }
    Ok(fns
        .into_iter()
        .map(|mut f| {
            let extra = objects
                .iter()
                .find(|o| {
                    ["functionId", "function_id", "id"]
                        .iter()
                        .any(|k| o.get(*k).and_then(Value::as_str) == Some(&f.function_id))
                })
                .map(|o| (*o).clone())
                .unwrap_or_default();
            if f.parameters.is_empty()
                && let Some(Value::Object(m)) = extra.get("parameters")
            {
                f.parameters = m
                    .iter()
                    .map(|(name, ty)| AppFunctionParam {
                        name: name.clone(),
                        r#type: ty.as_str().unwrap_or("any").to_string(),
                        required: true,
                        description: None,
                    })
                    .collect();
            }
            (f, extra)
        })
        .collect())
}

fn collect_objects<'a>(v: &'a Value, out: &mut Vec<&'a Map<String, Value>>) {
    match v {
        Value::Array(a) => a.iter().for_each(|x| collect_objects(x, out)),
        Value::Object(o) => {
            out.push(o);
            o.values().for_each(|x| collect_objects(x, out));
        }
        _ => {}
    }
}

async fn list_all(ctx: &Ctx, dev: &Device) -> Result<Vec<Entry>, ToolError> {
    let out = ctx.sh(dev, LIST).await?;
    let text = out.stdout_text();
    if !out.success() && !text.contains(['[', '{']) {
        return Err(ToolError::device(format!(
            "`{LIST}` failed on {} (exit {}): {} (AppFunctions need Android 16 or later)",
            dev.serial(),
            out.exit_code,
            out.stderr_text().trim()
        )));
    }
    parse(&text)
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ListArgs {
    pub serial: Option<String>,
    #[serde(default)]
    pub package_names: Vec<String>,
    pub schema_category: Option<String>,
    pub schema_name: Option<String>,
    pub min_schema_version: Option<u64>,
    /// Default 100.
    pub max_results: Option<usize>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Listed {
    pub serial: String,
    pub count: usize,
    pub functions: Vec<AppFunction>,
    pub truncated: bool,
}

fn field<'a>(o: &'a Map<String, Value>, keys: &[&str]) -> Option<&'a Value> {
    keys.iter().find_map(|k| o.get(*k))
}

async fn list(ctx: Ctx, a: ListArgs) -> Result<Listed, ToolError> {
    for p in &a.package_names {
        guard::package_name(p).map_err(refused)?;
    }
    let dev = ctx.device(a.serial.as_deref()).await?;
    let all = list_all(&ctx, &dev).await?;
    let text_is = |o: &Map<String, Value>, keys: &[&str], want: &Option<String>| {
        want.as_ref().is_none_or(|w| {
            field(o, keys)
                .and_then(Value::as_str)
                .is_some_and(|v| v.eq_ignore_ascii_case(w))
        })
    };
    let mut functions: Vec<AppFunction> = all
        .into_iter()
        .filter(|(f, o)| {
            (a.package_names.is_empty() || a.package_names.contains(&f.package_name))
                && text_is(
                    o,
                    &["schemaCategory", "schema_category"],
                    &a.schema_category,
                )
                && text_is(o, &["schemaName", "schema_name"], &a.schema_name)
                && a.min_schema_version.is_none_or(|min| {
                    field(o, &["schemaVersion", "schema_version"])
                        .and_then(Value::as_u64)
                        .is_some_and(|v| v >= min)
                })
        })
        .map(|(f, _)| f)
        .collect();
    let max = a.max_results.unwrap_or(100).clamp(1, 1000);
    let truncated = functions.len() > max;
    functions.truncate(max);
    Ok(Listed {
        serial: dev.serial().to_string(),
        count: functions.len(),
        functions,
        truncated,
    })
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct CallArgs {
    pub serial: Option<String>,
    pub package_name: String,
    /// The exact functionId from android_list_app_functions.
    pub function_id: String,
    /// Parameter values by name, checked against the function's metadata.
    #[serde(default)]
    pub arguments: Map<String, Value>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Called {
    pub package_name: String,
    pub function_id: String,
    pub result: Value,
}

async fn call(ctx: Ctx, a: CallArgs) -> Result<Called, ToolError> {
    guard::package_name(&a.package_name).map_err(refused)?;
    check_function_id(&a.function_id)?;
    let dev = ctx.device(a.serial.as_deref()).await?;
    let all = list_all(&ctx, &dev).await?;
    let Some((f, _)) = all
        .iter()
        .find(|(f, _)| f.package_name == a.package_name && f.function_id == a.function_id)
    else {
        let ids: Vec<&str> = all
            .iter()
            .filter(|(f, _)| f.package_name == a.package_name)
            .map(|(f, _)| f.function_id.as_str())
            .collect();
        return Err(ToolError::not_found(format!(
            "{} exposes no function {:?}{}",
            a.package_name,
            a.function_id,
            if ids.is_empty() {
                " (it exposes none)".into()
            } else {
                format!("; it has {}", ids.join(", "))
            }
        )));
    };
    if f.enabled == Some(false) {
        return Err(ToolError::refused(format!(
            "{} is disabled in {}",
            f.function_id, f.package_name
        )));
    }
    let params = encode_arguments(f, &a.arguments)?;
    let cmd = format!(
        "cmd app_function execute-app-function --package {} --function {} --parameters {}",
        shell_quote(&a.package_name),
        shell_quote(&a.function_id),
        shell_quote(&params)
    );
    let out = ctx.sh(&dev, &cmd).await?;
    let text = out.stdout_text();
    // Android prints failures on stdout (`Error executing app function: …`) and exits 255.
    if !out.success() || text.trim_start().starts_with("Error") {
        let both = format!("{}\n{}", text.trim(), out.stderr_text().trim());
        let msg = serde_json::from_str::<Value>(both.trim())
            .ok()
            .and_then(|v| v.get("error").and_then(Value::as_str).map(str::to_string))
            .unwrap_or_else(|| both.trim().to_string());
        return Err(ToolError::device(format!(
            "{} failed: {msg}",
            a.function_id
        )));
    }
    // The result document keeps the return value under `androidAppfunctionsReturnValue`,
    // as an array (every AppSearch property is one): a single value is given as itself.
    let result = match serde_json::from_str::<Value>(text.trim()) {
        Ok(Value::Object(o)) if o.len() == 1 && o.contains_key(RETURN_VALUE) => {
            match &o[RETURN_VALUE] {
                Value::Array(a) if a.len() == 1 => a[0].clone(),
                v => v.clone(),
            }
        }
        Ok(v) => v,
        Err(_) => Value::String(text.trim().to_string()),
    };
    Ok(Called {
        package_name: a.package_name,
        function_id: a.function_id,
        result,
    })
}

/// An AppFunction that deletes (its id or the app's own description of it says delete, remove,
/// clear…: `deleteNote`, `NoteFunctions#removeAllNotes`, "Deletes a note") is destructive for
/// that call: what it removes inside the app no normal action brings back. Judged against the
/// device's own listing, after the checks that need no device; a function the device does not
/// list is left to the call to report.
async fn deleting_function(ctx: Ctx, a: CallArgs) -> Result<Option<String>, ToolError> {
    guard::package_name(&a.package_name).map_err(refused)?;
    check_function_id(&a.function_id)?;
    let dev = ctx.device(a.serial.as_deref()).await?;
    let all = list_all(&ctx, &dev).await?;
    let Some((f, _)) = all
        .iter()
        .find(|(f, _)| f.package_name == a.package_name && f.function_id == a.function_id)
    else {
        return Ok(None);
    };
    let said = destroying_verb(&f.function_id)
        .map(|v| (v, "its id"))
        .or_else(|| {
            f.description
                .as_deref()
                .and_then(destroying_verb)
                .map(|v| (v, "the app's description of it"))
        });
    Ok(said.map(|(verb, where_)| {
        format!(
            "the AppFunction {} of {} deletes ({where_} says \"{verb}\"): what it removes cannot \
             be brought back by a normal action",
            a.function_id, a.package_name
        )
    }))
}

pub fn tools() -> Vec<ToolDef> {
    vec![
        Meta {
            name: "android_list_app_functions",
            title: "List AppFunctions",
            level: Level::ReadOnly,
            toolset: Toolset::Appfunctions,
            description: "AppFunctions apps expose, with exact functionId and parameter metadata.",
        }
        .def(list),
        Meta {
            name: "android_call_app_function",
            title: "Call AppFunction",
            level: Level::SafeAction,
            toolset: Toolset::Appfunctions,
            description: "Execute an AppFunction; arguments are checked against its listed parameters first. \
                          One that deletes (its id or description says so) asks the person.",
        }
        .def(call)
        .reads_too()
        .acts_on_app(|a: &CallArgs| Some(a.package_name.clone()))
        .escalates(
            "a function whose id or description says delete, remove, clear, wipe, reset… (deleteNote)",
            deleting_function,
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    // The listing format documented in device::parse::appfn, and the virtual device's
    // grouped form with a `{"name": "type"}` parameter map.
    const DOCUMENTED: &str = r#"[{"packageName":"com.example.notes","functionId":"com.example.notes.NoteFunctions#createNote",
        "enabled":true,"schemaCategory":"productivity","schemaName":"createNote","schemaVersion":2,
        "parameters":[{"name":"title","type":"string","required":true},{"name":"pinned","type":"boolean"},
                      {"name":"count","type":"int"}]}]"#;
    const GROUPED: &str = r#"{"com.example.notes":[{"id":"createNote","enabled":true,"parameters":{"title":"string","body":"string"}}]}"#;

    fn args(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap()
    }

    #[test]
    fn arguments_are_checked_against_the_listed_metadata() {
        let fns = parse(DOCUMENTED).unwrap();
        let (f, extra) = &fns[0];
        assert_eq!(extra.get("schemaVersion"), Some(&json_num(2)));
        let ok = encode_arguments(
            f,
            &args(serde_json::json!({"title": "a'b; $(x)", "pinned": true})),
        )
        .unwrap();
        assert_eq!(
            serde_json::from_str::<Value>(&ok).unwrap()["title"],
            "a'b; $(x)"
        );
        let err = |v| encode_arguments(f, &args(v)).unwrap_err().message;
        assert!(err(serde_json::json!({"pinned": true})).contains("needs title"));
        assert!(
            err(serde_json::json!({"title": "x", "pinned": "yes"}))
                .contains("pinned must be boolean")
        );
        assert!(err(serde_json::json!({"title": "x", "count": 1.5})).contains("count must be int"));
        assert!(
            err(serde_json::json!({"title": "x", "colour": "red"}))
                .contains("no parameter \"colour\"")
        );
    }

    fn json_num(n: u64) -> Value {
        Value::from(n)
    }

    #[test]
    fn parameter_maps_are_read_as_required_parameters() {
        let fns = parse(GROUPED).unwrap();
        let (f, _) = &fns[0];
        assert_eq!(f.package_name, "com.example.notes");
        let mut names: Vec<(&str, bool)> = f
            .parameters
            .iter()
            .map(|p| (p.name.as_str(), p.required))
            .collect();
        names.sort();
        assert_eq!(names, [("body", true), ("title", true)]);
        assert!(encode_arguments(f, &args(serde_json::json!({"title": "x"}))).is_err());
    }

    #[test]
    fn function_ids() {
        for good in ["createNote", "com.x.NoteFunctions#createNote", "a_b:c-d$e"] {
            assert!(check_function_id(good).is_ok(), "{good}");
        }
        for bad in ["", "-x", "$(id)", "a b", "a;b", "a`b`", "a\nb", "'a'"] {
            assert!(check_function_id(bad).is_err(), "{bad:?}");
        }
    }
}
