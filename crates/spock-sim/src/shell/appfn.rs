//! `cmd app_function`: list and execute the AppFunctions apps declare in the scenario, in the
//! format of Android 16's `AppFunctionManagerServiceShellCommand`.
//!
//! Follows yaap/frameworks_base (an AOSP frameworks/base tree; the aosp-mirror snapshots here
//! predate AppFunctions) `services/appfunctions/java/com/android/server/appfunctions/`
//! `AppFunctionManagerServiceShellCommand.java` and `AppSearchDataJsonConverter.java`
//! @3ddcaa00537ad17c17a59c73990d12441d689aaf:
//!
//! - `list-app-functions [--user U]` prints one JSON object, indented by 2, mapping each package
//!   to its AppSearch search results. Each result is `{schemaType: document}` plus its joined
//!   results under their own schema type (`searchResultToJsonObject`), and every document
//!   property is an array, single values included (`convertGenericDocumentToJson`). The static
//!   document (`AppFunctionStaticMetadata-<package>`) carries `functionId`, `packageName`,
//!   `schemaName`, `schemaCategory`, `schemaVersion`, `enabledByDefault`; the joined runtime
//!   document (`AppFunctionRuntimeMetadata-<package>`) carries `enabled` (0 default, 1 enabled,
//!   2 disabled). The `description` and `parameters` (`name`, `dataType`, `isRequired`)
//!   properties are this device's own: the Jetpack library's richer metadata documents are
//!   not in the sources read.
//! - `execute-app-function --package P --function F --parameters JSON [--brief-yaml]` prints
//!   the result document (`{"androidAppfunctionsReturnValue": ["…"]}`) and exits 0; a failure
//!   prints `Error executing app function: …. See logcat for more details.` on stdout and exits
//!   255 (`return -1`). Missing options print `Error: --package must be specified.` (255).
use serde_json::{Map, Value, json};

use super::Ctx;
use crate::scenario::AppFunctionSpec;

/// The property `ExecuteAppFunctionResponse` stores a function's return value under.
const RETURN_VALUE: &str = "androidAppfunctionsReturnValue";

/// `JSONObject.toString(2)`: two-space indentation.
fn pretty(v: &Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_default()
}

fn static_document(pkg: &str, f: &AppFunctionSpec) -> Value {
    let mut d = Map::new();
    d.insert("functionId".into(), json!([f.id]));
    d.insert("packageName".into(), json!([pkg]));
    if let Some(n) = &f.schema_name {
        d.insert("schemaName".into(), json!([n]));
    }
    if let Some(c) = &f.schema_category {
        d.insert("schemaCategory".into(), json!([c]));
    }
    if let Some(v) = f.schema_version {
        d.insert("schemaVersion".into(), json!([v]));
    }
    d.insert("enabledByDefault".into(), json!([true]));
    d.insert(
        "restrictCallersWithExecuteAppFunctions".into(),
        json!([false]),
    );
    if !f.description.is_empty() {
        d.insert("description".into(), json!([f.description]));
    }
    let params: Vec<Value> = f
        .parameters
        .iter()
        .map(|(name, ty)| json!({ "name": [name], "dataType": [ty], "isRequired": [true] }))
        .collect();
    if !params.is_empty() {
        d.insert("parameters".into(), Value::Array(params));
    }
    Value::Object(d)
}

fn search_result(pkg: &str, f: &AppFunctionSpec) -> Value {
    let runtime = format!("AppFunctionRuntimeMetadata-{pkg}");
    json!({
        format!("AppFunctionStaticMetadata-{pkg}"): static_document(pkg, f),
        runtime.clone(): {
            runtime: { "functionId": [f.id], "packageName": [pkg], "enabled": [0] }
        }
    })
}

/// `getNextOption` loop: every option must be known and take its value.
fn options(ctx: &mut Ctx, args: &[String], known: &[&str]) -> Result<Map<String, Value>, i32> {
    let mut out = Map::new();
    let mut it = args.iter().skip(2);
    while let Some(a) = it.next() {
        if a == "--brief-yaml" && known.contains(&"--brief-yaml") {
            out.insert(a.clone(), Value::Bool(true));
            continue;
        }
        if !known.contains(&a.as_str()) {
            ctx.outln(&format!("Unknown option: {a}"));
            return Err(255);
        }
        let Some(v) = it.next() else {
            // `getNextArgRequired`: an IllegalArgumentException, caught by onCommand.
            ctx.outln(&format!(
                "Exception: java.lang.IllegalArgumentException: Argument expected after \"{a}\""
            ));
            return Err(255);
        };
        out.insert(a.clone(), Value::String(v.clone()));
    }
    Ok(out)
}

fn list(ctx: &mut Ctx, args: &[String]) -> i32 {
    if let Err(code) = options(ctx, args, &["--user"]) {
        return code;
    }
    let mut out = Map::new();
    for app in ctx.st.installed.values() {
        if app.spec.functions.is_empty() {
            continue;
        }
        let pkg = &app.spec.package;
        let results = app
            .spec
            .functions
            .iter()
            .map(|f| search_result(pkg, f))
            .collect();
        out.insert(pkg.clone(), Value::Array(results));
    }
    ctx.outln(&pretty(&Value::Object(out)));
    0
}

/// `onError`: the `AppFunctionException` as `toString()` prints it.
fn failed(ctx: &mut Ctx, msg: &str) -> i32 {
    ctx.outln(&format!(
        "Error executing app function: android.app.appfunctions.AppFunctionException: {msg}. \
         See logcat for more details. "
    ));
    255
}

fn execute(ctx: &mut Ctx, args: &[String]) -> i32 {
    let opts = match options(
        ctx,
        args,
        &[
            "--package",
            "--function",
            "--parameters",
            "--user",
            "--timeout-duration",
            "--brief-yaml",
        ],
    ) {
        Ok(o) => o,
        Err(code) => return code,
    };
    let get = |k: &str| opts.get(k).and_then(Value::as_str).map(str::to_string);
    for required in ["--package", "--function", "--parameters"] {
        if get(required).is_none() {
            ctx.outln(&format!("Error: {required} must be specified."));
            return 255;
        }
    }
    let (pkg, id) = (
        get("--package").unwrap_or_default(),
        get("--function").unwrap_or_default(),
    );
    let params: Map<String, Value> =
        match serde_json::from_str(&get("--parameters").unwrap_or_default()) {
            Ok(Value::Object(m)) => m,
            // `new JSONObject(json)` throws; onCommand prints the exception.
            _ => {
                ctx.outln("Exception: org.json.JSONException: Value is not a JSON object");
                return 255;
            }
        };
    let Some(f) = ctx
        .st
        .installed
        .get(&pkg)
        .and_then(|a| a.spec.functions.iter().find(|f| f.id == id))
        .cloned()
    else {
        return failed(ctx, &format!("App function not found: {pkg}/{id}"));
    };
    let mut result = f.result.clone();
    for (name, ty) in &f.parameters {
        let Some(v) = params.get(name) else {
            return failed(ctx, &format!("Missing parameter: {name}"));
        };
        let ok = match ty.as_str() {
            "string" => v.is_string(),
            "integer" => v.is_i64() || v.is_u64(),
            "number" => v.is_number(),
            "boolean" => v.is_boolean(),
            _ => true,
        };
        if !ok {
            return failed(ctx, &format!("Parameter {name} must be a {ty}"));
        }
        let text = v.as_str().map_or_else(|| v.to_string(), str::to_string);
        result = result.replace(&format!("{{{name}}}"), &text);
    }
    if opts.contains_key("--brief-yaml") {
        ctx.outln(&format!("{RETURN_VALUE}:\n- {result}"));
    } else {
        ctx.outln(&pretty(&json!({ RETURN_VALUE: [result] })));
    }
    0
}

pub fn app_function(ctx: &mut Ctx, args: &[String]) -> i32 {
    match args.get(1).map(String::as_str) {
        Some("list-app-functions") => list(ctx, args),
        Some("execute-app-function") => execute(ctx, args),
        Some(other) if other != "help" && other != "-h" => {
            // `ShellCommand.handleDefaultCommands`.
            ctx.outln(&format!("Unknown command: {other}"));
            255
        }
        _ => {
            ctx.outln("AppFunctionManagerService commands:\n  help\n    Prints this help text.\n\n  list-app-functions [--user <USER_ID>]\n    Lists all app functions for a specified user in JSON.\n\n  execute-app-function --package <PACKAGE_NAME> --function <FUNCTION_ID> --parameters <PARAMETERS_JSON> [--user <USER_ID>][--timeout-duration <SECONDS>] [--brief-yaml]");
            0
        }
    }
}
