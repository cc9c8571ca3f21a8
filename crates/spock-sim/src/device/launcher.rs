//! A home screen for scenarios that do not bring their own: the Pixel launcher
//! (`com.google.android.apps.nexuslauncher`) with one labelled icon per launchable app,
//! written in the uiautomator dump format (attribute order as in the fixtures).
use std::sync::Arc;

use super::ui::{UiTree, escape_attr};
use crate::scenario::{AppSpec, ScreenSpec};

pub const LAUNCHER_PACKAGE: &str = "com.google.android.apps.nexuslauncher";
pub const LAUNCHER_ACTIVITY: &str = "com.google.android.apps.nexuslauncher.NexusLauncherActivity";

fn node(
    index: usize,
    text: &str,
    id: &str,
    class: &str,
    desc: &str,
    clickable: bool,
    b: [u32; 4],
) -> String {
    format!(
        "<node index=\"{index}\" text=\"{}\" resource-id=\"{id}\" class=\"{class}\" package=\"{LAUNCHER_PACKAGE}\" content-desc=\"{}\" checkable=\"false\" checked=\"false\" clickable=\"{clickable}\" enabled=\"true\" focusable=\"{clickable}\" focused=\"false\" scrollable=\"false\" long-clickable=\"{clickable}\" password=\"false\" selected=\"false\" bounds=\"[{},{}][{},{}]\"",
        escape_attr(text),
        escape_attr(desc),
        b[0],
        b[1],
        b[2],
        b[3]
    )
}

pub fn generated_home(apps: &[AppSpec], width: u32, height: u32) -> ScreenSpec {
    let mut xml = String::from(
        "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">",
    );
    xml.push_str(&node(
        0,
        "",
        "",
        "android.widget.FrameLayout",
        "",
        false,
        [0, 0, width, height],
    ));
    xml.push('>');
    xml.push_str(&node(
        0,
        "",
        &format!("{LAUNCHER_PACKAGE}:id/workspace"),
        "android.view.ViewGroup",
        "",
        false,
        [0, 0, width, height],
    ));
    xml.push('>');
    let cell = width / 4;
    let launchable = apps
        .iter()
        .filter(|a| a.launcher.is_some() && a.package != LAUNCHER_PACKAGE);
    for (i, a) in launchable.enumerate() {
        let (col, row) = (i as u32 % 4, i as u32 / 4);
        let b = [
            col * cell,
            300 + row * 330,
            (col + 1) * cell,
            300 + row * 330 + 300,
        ];
        xml.push_str(&node(
            i,
            &a.label,
            "",
            "android.widget.TextView",
            &a.label,
            true,
            b,
        ));
        xml.push_str("/>");
    }
    xml.push_str("</node></node></hierarchy>");
    // Built from escaped parts above, so it always parses; an empty tree is the fallback.
    let ui = UiTree::parse(&xml).unwrap_or_else(|_| UiTree::empty());
    ScreenSpec {
        id: "home".into(),
        package: LAUNCHER_PACKAGE.into(),
        activity: LAUNCHER_ACTIVITY.into(),
        fragments: Vec::new(),
        ui_file: "(generated launcher)".into(),
        ui: Arc::new(ui),
        template: None,
        deep_link: None,
        deep_link_var: None,
        animating: false,
        secure: false,
    }
}
