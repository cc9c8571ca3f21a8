//! The two tools that widen what a client is listed: `spock_list_toolsets` and
//! `spock_enable_toolset` (both in `core`, so every client has them). Enabling only lists a
//! set's tools for the session: each call still passes the access switches, and a
//! destructive one still asks a person.
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::mcp::ctx::Ctx;
use crate::mcp::registry::{HostGroup, Level, Meta, ToolDef};
use crate::mcp::result::ToolError;
use crate::mcp::toolsets::{Selection, Toolset};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoArgs {}

#[derive(Debug, Serialize, JsonSchema)]
pub struct SetInfo {
    pub name: &'static str,
    pub purpose: &'static str,
    pub tools: usize,
    /// Listed to this client now.
    pub on: bool,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SetList {
    pub toolsets: Vec<SetInfo>,
    /// How this client gets another set listed.
    pub how: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EnableArgs {
    pub toolset: Toolset,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Enabled {
    pub toolset: Toolset,
    /// False when the set was already listed to this client.
    pub list_changed: bool,
    pub tools: Vec<&'static str>,
}

/// What the calling client is listed: everything for the person's own calls.
pub fn advertised(ctx: &Ctx) -> Selection {
    ctx.core.toolsets.for_session(ctx.origin.session.as_ref())
}

const STATELESS: &str = "This request has no session (MCP 2026-07-28), so no call can change \
what it is listed. Ask for sets on the endpoint instead: /mcp?toolsets=core,apps (or all); the \
person prints such a configuration with `spock-tui config --http --toolsets apps`";

fn how(ctx: &Ctx) -> String {
    match &ctx.origin.session {
        Some(s) if s.is_stateless() => STATELESS.into(),
        _ => "spock_enable_toolset {toolset} lists a set for this session \
              (notifications/tools/list_changed follows)."
            .into(),
    }
}

fn list(ctx: &Ctx) -> SetList {
    let on = advertised(ctx);
    let toolsets = Toolset::ALL
        .into_iter()
        .map(|t| SetInfo {
            name: t.key(),
            purpose: t.purpose(),
            tools: ctx
                .core
                .all_tools()
                .iter()
                .filter(|d| d.toolset == t)
                .count(),
            on: on.contains(t),
        })
        .collect();
    SetList {
        toolsets,
        how: how(ctx),
    }
}

fn enable(ctx: &Ctx, t: Toolset) -> Result<Enabled, ToolError> {
    let tools = ctx
        .core
        .all_tools()
        .iter()
        .filter(|d| d.toolset == t)
        .map(|d| d.name)
        .collect();
    if advertised(ctx).contains(t) {
        return Ok(Enabled {
            toolset: t,
            list_changed: false,
            tools,
        });
    }
    let session = match &ctx.origin.session {
        Some(s) if !s.is_stateless() => s,
        _ => {
            return Err(ToolError::refused(format!(
                "toolset {} was not enabled. {STATELESS}.",
                t.key()
            )));
        }
    };
    let who = super::super::toolsets::Toolsets::identity(session, ctx.origin.client.as_ref());
    let list_changed = ctx
        .core
        .toolsets
        .enable_remembered(session.key(), who.as_deref(), t);
    Ok(Enabled {
        toolset: t,
        list_changed,
        tools,
    })
}

pub fn tools() -> Vec<ToolDef> {
    vec![
        Meta {
            name: "spock_list_toolsets",
            title: "List toolsets",
            level: Level::ReadOnly,
            toolset: Toolset::Core,
            description: "The toolsets: name, purpose, tool count, and whether each is listed to \
                          you now.",
        }
        .def(|ctx: Ctx, _: NoArgs| async move { Ok::<_, ToolError>(list(&ctx)) })
        .in_group(HostGroup::Manage),
        Meta {
            name: "spock_enable_toolset",
            title: "Enable a toolset",
            level: Level::ReadOnly,
            toolset: Toolset::Core,
            description: "Lists a toolset's tools for this session. Approves nothing: \
                          destructive calls still ask a person.",
        }
        .def(|ctx: Ctx, a: EnableArgs| async move { enable(&ctx, a.toolset) })
        .in_group(HostGroup::Manage),
    ]
}
