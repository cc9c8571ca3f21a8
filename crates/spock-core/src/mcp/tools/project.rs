//! `android_select_project`: which Android project tools use when several were given. With one
//! project every tool already targets it; with several, tools refuse and name the candidates
//! until one is selected, exactly as with several attached devices.
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::mcp::ctx::Ctx;
use crate::mcp::registry::{HostGroup, Level, Meta, ToolDef};
use crate::mcp::result::ToolError;
use crate::mcp::toolsets::Toolset;
use crate::project::Project;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct SelectArgs {
    /// The project's name (its directory name) or its directory.
    pub project: String,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SelectedProject {
    pub selected: Project,
    /// Every known project, by name.
    pub projects: Vec<String>,
}

async fn select(ctx: Ctx, a: SelectArgs) -> Result<SelectedProject, ToolError> {
    let projects = &ctx.core.projects;
    let selected = projects
        .select(a.project.trim())
        .map_err(ToolError::not_found)?
        .clone();
    Ok(SelectedProject {
        selected,
        projects: projects.all().iter().map(|p| p.name.clone()).collect(),
    })
}

pub fn tools() -> Vec<ToolDef> {
    vec![
        Meta {
            name: "android_select_project",
            title: "Select project",
            level: Level::SafeAction,
            toolset: Toolset::Host,
            description: "Make a project (name or directory) the one tools use; needed only when several are open.",
        }
        .def(select)
        .in_group(HostGroup::Manage),
    ]
}
