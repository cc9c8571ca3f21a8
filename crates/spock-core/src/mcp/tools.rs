//! The tool families, one file each. `catalogue()` is every tool in the order `tools/list`
//! and the control centre show them.
pub mod actions;
pub mod appfn;
pub mod apps;
pub mod batch;
pub mod common;
pub mod devices;
pub mod files;
pub mod gestures;
pub mod host;
pub mod inspect;
pub mod lease;
pub mod project;
pub mod screen;
pub mod screenrecord;
pub mod settings;
pub mod shell;
pub mod triage;
pub mod ui;

use super::registry::{Registry, ToolDef};

pub fn catalogue() -> Registry {
    let mut tools: Vec<ToolDef> = Vec::new();
    tools.extend(devices::tools());
    tools.extend(lease::tools());
    tools.extend(inspect::tools());
    tools.extend(screen::tools());
    tools.extend(ui::tools());
    tools.extend(triage::tools());
    tools.extend(actions::tools());
    tools.extend(gestures::tools());
    tools.extend(apps::tools());
    tools.extend(appfn::tools());
    tools.extend(files::tools());
    tools.extend(screenrecord::tools());
    tools.extend(project::tools());
    tools.extend(host::tools());
    tools.extend(settings::tools());
    tools.extend(shell::tools());
    tools.extend(batch::tools());
    Registry::new(tools)
}
