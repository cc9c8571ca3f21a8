//! `cmd app_function`: list and execute the AppFunctions apps declare in the scenario.
//!
//! No capture of this command's real output exists in the fixtures, so the format is our own,
//! JSON throughout so agents can parse it:
//!
//! `list-app-functions [--package P]` prints
//! `{"<package>":[{"id":"createNote","description":"…","enabled":true,"parameters":{"title":"string"}}]}`.
//!
//! `execute-app-function --package P --function ID --parameters '{"title":"x"}'` checks that
//! every declared parameter is present with its declared JSON type (`string`, `integer`,
//! `number`, `boolean`) and prints `{"result":"…"}`, where `{name}` placeholders in the
//! scenario's `result` are replaced by the parameter values. Errors print
//! `{"error":"…"}` on stderr and exit 1.
use serde_json::{Map, Value, json};

use super::Ctx;

fn fail(ctx: &mut Ctx, msg: &str) -> i32 {
    ctx.errln(&json!({ "error": msg }).to_string());
    1
}

fn option(args: &[String], name: &str) -> Option<String> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1).cloned())
}

pub fn app_function(ctx: &mut Ctx, args: &[String]) -> i32 {
    match args.get(1).map(String::as_str) {
        Some("list-app-functions") => {
            let only = option(args, "--package");
            let mut out = Map::new();
            for app in ctx.st.installed.values() {
                if app.spec.functions.is_empty()
                    || only.as_ref().is_some_and(|p| *p != app.spec.package)
                {
                    continue;
                }
                let fns: Vec<Value> = app
                    .spec
                    .functions
                    .iter()
                    .map(|f| {
                        json!({
                            "id": f.id,
                            "description": f.description,
                            "enabled": true,
                            "parameters": f.parameters,
                        })
                    })
                    .collect();
                out.insert(app.spec.package.clone(), Value::Array(fns));
            }
            ctx.outln(&Value::Object(out).to_string());
            0
        }
        Some("execute-app-function") => {
            let (Some(pkg), Some(id)) = (option(args, "--package"), option(args, "--function"))
            else {
                return fail(ctx, "--package and --function are required");
            };
            let params = option(args, "--parameters").unwrap_or_else(|| "{}".into());
            let params: Map<String, Value> = match serde_json::from_str(&params) {
                Ok(Value::Object(m)) => m,
                Ok(_) => return fail(ctx, "--parameters must be a JSON object"),
                Err(e) => return fail(ctx, &format!("--parameters is not valid JSON: {e}")),
            };
            let Some(app) = ctx.st.installed.get(&pkg) else {
                return fail(ctx, &format!("package not found: {pkg}"));
            };
            let Some(f) = app.spec.functions.iter().find(|f| f.id == id).cloned() else {
                return fail(ctx, &format!("function not found: {pkg}/{id}"));
            };
            let mut result = f.result.clone();
            for (name, ty) in &f.parameters {
                let Some(v) = params.get(name) else {
                    return fail(ctx, &format!("missing parameter: {name}"));
                };
                let ok = match ty.as_str() {
                    "string" => v.is_string(),
                    "integer" => v.is_i64() || v.is_u64(),
                    "number" => v.is_number(),
                    "boolean" => v.is_boolean(),
                    _ => true,
                };
                if !ok {
                    return fail(ctx, &format!("parameter {name} must be a {ty}"));
                }
                let text = v.as_str().map_or_else(|| v.to_string(), str::to_string);
                result = result.replace(&format!("{{{name}}}"), &text);
            }
            ctx.outln(&json!({ "result": result }).to_string());
            0
        }
        _ => {
            ctx.errln("usage: cmd app_function list-app-functions [--package PACKAGE]\n       cmd app_function execute-app-function --package PACKAGE --function ID --parameters JSON");
            1
        }
    }
}
