//! The tool families, one file each. `catalogue()` is every tool in the order `tools/list`
//! and the control centre show them.
pub mod acted;
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
pub mod own;
pub mod project;
pub mod screen;
pub mod screenrecord;
pub mod settings;
pub mod shell;
pub mod shown;
pub mod toolsets;
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
    tools.extend(toolsets::tools());
    Registry::new(tools)
}

#[cfg(test)]
mod tests {
    use super::catalogue;
    use crate::mcp::registry::ToolDef;
    use crate::mcp::toolsets::{Selection, Toolset};
    use serde_json::Value;

    /// The most characters the default `tools/list` answer may take (the JSON-RPC line as
    /// written): half of mobile-mcp 1.0.4's whole list (27,569).
    const DEFAULT_LIST_BUDGET: usize = 13_800;
    const INSTRUCTIONS_BUDGET: usize = 1_000;

    fn list_line(sel: &Selection) -> String {
        let tools: Vec<_> = catalogue()
            .all()
            .iter()
            .filter(|t| sel.contains(t.toolset))
            .map(ToolDef::to_mcp)
            .collect();
        let result = rmcp::model::ListToolsResult::with_all_items(tools);
        serde_json::to_string(&serde_json::json!({"jsonrpc": "2.0", "id": 2, "result": result}))
            .unwrap()
    }

    #[test]
    fn every_set_lists_tools_and_core_is_the_agent_loop() {
        let reg = catalogue();
        for set in Toolset::ALL {
            assert!(reg.in_set(set).count() > 0, "{} lists no tool", set.key());
        }
        let core: Vec<&str> = reg.in_set(Toolset::Core).map(|t| t.name).collect();
        for loop_tool in [
            "android_list_devices",
            "android_take_screenshot",
            "android_get_ui_tree",
            "android_find_ui_element",
            "android_tap_element",
            "android_input_text_into_element",
            "android_swipe",
            "android_press_key",
            "android_launch_app",
            "spock_get_status",
            "spock_list_toolsets",
            "spock_enable_toolset",
        ] {
            assert!(core.contains(&loop_tool), "{loop_tool} is not in core");
        }
    }

    #[test]
    fn the_default_list_and_the_instructions_fit_their_budgets() {
        let line = list_line(&Selection::core());
        assert!(
            line.len() <= DEFAULT_LIST_BUDGET,
            "the default tools/list is {} characters, over {DEFAULT_LIST_BUDGET}",
            line.len()
        );
        let all = list_line(&Selection::all());
        assert!(all.len() > line.len() * 2, "the sets left out most tools");
        let n = crate::mcp::server::INSTRUCTIONS.chars().count();
        assert!(
            n <= INSTRUCTIONS_BUDGET,
            "the instructions are {n} characters"
        );
    }

    #[test]
    fn every_output_property_is_typed() {
        for t in catalogue().all() {
            let schema = t.output_schema.as_ref();
            assert_eq!(schema.get("type"), Some(&Value::String("object".into())));
            let props = schema["properties"].as_object().unwrap();
            for (name, p) in props {
                // A type, or one typed branch per type (never a `type` array: not portable).
                let typed = p.get("type").is_some_and(Value::is_string)
                    || p.get("anyOf").and_then(Value::as_array).is_some_and(|a| {
                        a.iter()
                            .all(|b| b.get("type").is_some_and(Value::is_string))
                    });
                assert!(typed, "{}: output property {name} is untyped: {p}", t.name);
                if p["type"] == "array" {
                    assert!(
                        p.get("items").and_then(|i| i.get("type")).is_some(),
                        "{}: {name}'s items are untyped",
                        t.name
                    );
                }
            }
        }
    }
}
