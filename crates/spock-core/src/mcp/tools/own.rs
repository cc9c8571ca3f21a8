//! Own tools as tools: each checked declaration ([`crate::own::OwnTool`]) becomes a
//! [`ToolDef`] the pipeline runs like any built-in (access with its own leaf, the device tree,
//! leases, consent, audit, redaction). Its arguments are parsed into the expanded command once,
//! at the check stage, so the guard reads, the person is shown and the device runs the same
//! text; a reload while a call waits for its yes does not change what that call runs (the
//! call holds its own declaration).
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value};

use crate::mcp::ctx::Ctx;
use crate::mcp::registry::{Meta, ToolDef, intern};
use crate::mcp::result::{ToolError, ToolOutput};
use crate::own::OwnTool;

/// One call's parsed arguments: the device asked for, the command to run, the app it names.
#[derive(Debug, Clone)]
pub struct OwnCall {
    serial: Option<String>,
    command: String,
    app: Option<String>,
}

/// The tool for `decl`.
pub fn tool_of(decl: &OwnTool) -> ToolDef {
    let decl = Arc::new(decl.clone());
    let meta = Meta {
        name: intern(&decl.name),
        title: intern(&decl.title),
        level: decl.level,
        toolset: decl.toolset,
        description: intern(&format!(
            "{} (own tool, {}:{})",
            decl.description.trim_end_matches('.'),
            decl.file
                .file_name()
                .map(|f| f.to_string_lossy().into_owned())
                .unwrap_or_default(),
            decl.line
        )),
    };
    let parse_decl = decl.clone();
    let run_decl = decl.clone();
    let tool = ToolDef::declared(
        meta,
        decl.input_schema(),
        decl.output_schema(),
        move |v: &Value| parse(&parse_decl, v),
        move |ctx: Ctx, call: OwnCall| run(ctx, run_decl.clone(), call),
    )
    .showing(|c: &OwnCall| Some(c.command.clone()));
    if decl.app.is_some() {
        tool.acts_on_app_with(|c: &OwnCall| c.app.clone())
    } else {
        tool
    }
}

/// The arguments checked against the declaration and the command expanded; the guard reads
/// the expanded command here, before anyone could be asked.
fn parse(decl: &OwnTool, v: &Value) -> Result<OwnCall, ToolError> {
    let empty = Map::new();
    let args = match v {
        Value::Object(m) => m,
        Value::Null => &empty,
        _ => return Err(ToolError::invalid_args("the arguments are not an object")),
    };
    let serial = match args.get("serial") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(_) => return Err(ToolError::invalid_args("`serial` is not a string")),
    };
    let command = decl.expand(args).map_err(ToolError::invalid_args)?;
    if let Some(r) = crate::guard::catastrophic(&command) {
        return Err(ToolError::refused(format!(
            "{} was not run: the guard refuses `{command}`: {}",
            decl.name, r.why
        )));
    }
    let app = decl.app.as_ref().and_then(|p| {
        args.get(p)
            .or_else(|| decl.params.get(p).and_then(|d| d.default.as_ref()))
            .and_then(Value::as_str)
            .map(str::to_string)
    });
    Ok(OwnCall {
        serial,
        command,
        app,
    })
}

async fn run(ctx: Ctx, decl: Arc<OwnTool>, call: OwnCall) -> Result<ToolOutput, ToolError> {
    let dev = ctx.device(call.serial.as_deref()).await?;
    let timeout = decl
        .timeout_secs
        .map(Duration::from_secs)
        .unwrap_or_else(|| ctx.timeout());
    let out = ctx.sh_timeout(&dev, &call.command, timeout).await?;
    if !out.success() {
        let said = [out.stderr_text(), out.stdout_text()]
            .into_iter()
            .map(|t| t.trim().lines().next().unwrap_or("").to_string())
            .find(|l| !l.is_empty())
            .unwrap_or_default();
        return Err(ToolError::device(format!(
            "`{}` exited with {}{}",
            call.command,
            out.exit_code,
            if said.is_empty() {
                String::new()
            } else {
                format!(": {said}")
            }
        )));
    }
    // Redacted as text before it is read: a rule that matches the text's shape (`password:
    // …`) would no longer see a value split from its key into structured content. Agents'
    // rules apply, for everyone (the person's record of an own tool shows it redacted too).
    let text = ctx
        .core
        .redactor
        .redact_str(&out.stdout_text(), crate::redact::Audience::Agent)
        .into_owned();
    let value = decl
        .read_output(&text)
        .map_err(|e| ToolError::device(format!("{}: {e}", decl.name)))?;
    ToolOutput::json(&value)
}
