//! The tool families, one file each. `catalogue()` is every tool in the order `tools/list`
//! and the control centre show them.
pub mod apps;
pub mod batch;
pub mod common;
pub mod devices;
pub mod host;
pub mod inspect;
pub mod screen;
pub mod settings;
pub mod shell;
pub mod triage;
pub mod ui;

use super::registry::{Registry, ToolDef};

pub fn catalogue() -> Registry {
    let mut tools: Vec<ToolDef> = Vec::new();
    tools.extend(devices::tools());
    tools.extend(inspect::tools());
    tools.extend(screen::tools());
    tools.extend(ui::tools());
    tools.extend(triage::tools());
    tools.extend(apps::tools());
    tools.extend(host::tools());
    tools.extend(settings::tools());
    tools.extend(shell::tools());
    tools.extend(batch::tools());
    Registry::new(tools)
}
