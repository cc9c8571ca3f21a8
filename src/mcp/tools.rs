//! The tool families, one file each. `catalogue()` is every tool in the order `tools/list`
//! and the control centre show them.
pub mod host;
pub mod settings;

use super::registry::{Registry, ToolDef};

pub fn catalogue() -> Registry {
    let mut tools: Vec<ToolDef> = Vec::new();
    tools.extend(host::tools());
    tools.extend(settings::tools());
    Registry::new(tools)
}
