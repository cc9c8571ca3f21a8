//! The tool catalogue as the screens show it: each declaration copied once from the registry
//! (name, title, level, host group, description, parameters from the input schema), in display
//! order with destructive tools first.
use std::collections::BTreeSet;

use serde_json::Value;

use crate::mcp::registry::{HostGroup, Level, Registry, ToolDef};
use crate::mcp::toolsets::Toolset;

/// One declared parameter of a tool, for the catalogue pane.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Param {
    pub name: String,
    pub kind: String,
    pub required: bool,
    pub description: String,
}

/// A tool's declaration as the screens show it (copied once from the registry).
#[derive(Debug, Clone, PartialEq)]
pub struct ToolInfo {
    pub name: &'static str,
    pub title: &'static str,
    pub level: Level,
    pub group: Option<HostGroup>,
    /// The toolset that lists it (`core`, `apps`, …).
    pub toolset: Toolset,
    pub description: &'static str,
    pub params: Vec<Param>,
    pub schema: Value,
}

impl ToolInfo {
    pub fn from_def(t: &ToolDef) -> ToolInfo {
        let schema = Value::Object((*t.input_schema).clone());
        ToolInfo {
            name: t.name,
            title: t.title,
            level: t.level,
            group: t.group,
            toolset: t.toolset,
            description: t.description,
            params: params_of(&schema),
            schema,
        }
    }

    /// An own tool, as the server says it is declared (its texts interned: the screens hold
    /// `&'static str`s, and a reload that changes nothing adds nothing).
    pub fn from_own(t: &crate::protocol::OwnToolView) -> ToolInfo {
        use crate::mcp::registry::intern;
        ToolInfo {
            name: intern(&t.name),
            title: intern(&t.title),
            level: t.level,
            group: None,
            toolset: t.toolset,
            description: intern(&t.description),
            params: params_of(&t.input_schema),
            schema: t.input_schema.clone(),
        }
    }
}

/// The parameters an input schema declares.
fn params_of(schema: &Value) -> Vec<Param> {
    let required: BTreeSet<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|props| {
            props
                .iter()
                .map(|(name, p)| Param {
                    name: name.clone(),
                    kind: type_of(p),
                    required: required.contains(name.as_str()),
                    description: p
                        .get("description")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_string(),
                })
                .collect()
        })
        .unwrap_or_default()
}

fn type_of(p: &Value) -> String {
    match p.get("type") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(a)) => a
            .iter()
            .filter_map(Value::as_str)
            .filter(|s| *s != "null")
            .collect::<Vec<_>>()
            .join("|"),
        _ if p.get("enum").is_some() => "enum".into(),
        _ => "any".into(),
    }
}

/// The catalogue in display order: destructive first, then safe actions, then read-only.
pub fn catalogue(registry: &Registry) -> Vec<ToolInfo> {
    with_own(registry, &[])
}

/// [`catalogue`] with the own tools loaded now.
pub fn with_own(registry: &Registry, own: &[crate::protocol::OwnToolView]) -> Vec<ToolInfo> {
    let mut tools: Vec<ToolInfo> = registry.all().iter().map(ToolInfo::from_def).collect();
    tools.extend(own.iter().map(ToolInfo::from_own));
    tools.sort_by_key(|t| std::cmp::Reverse(t.level));
    tools
}
