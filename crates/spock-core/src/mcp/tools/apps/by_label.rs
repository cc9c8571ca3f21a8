//! Launching an app by the label its icon carries ("Shop", "Google Maps"), for an agent that
//! knows the name a person uses and not the package: the home screen shows each launchable
//! app's icon with its label (a launcher's icon names its app by text or content description),
//! and a tap on that icon sends what the launcher sends. Nothing else on a phone maps a label
//! to a package from a shell (`pm` and `cmd package` print resource ids, not resolved labels).
use super::{Started, with_matches};
use crate::device::Device;
use crate::mcp::ctx::Ctx;
use crate::mcp::result::ToolError;
use crate::mcp::tools::acted::ActionOut;
use crate::mcp::tools::actions::press_node;
use crate::mcp::tools::gestures::GestureKind;
use crate::mcp::tools::inspect::current_activity;
use crate::mcp::tools::ui::dump_settled;
use crate::uitree::{NodeId, UiTree};

/// `KEYCODE_HOME` by number.
const HOME: u32 = 3;

/// The visible nodes labelled `label` (text or content description, case and outer spaces
/// aside), one per tappable icon.
fn icons(tree: &UiTree, label: &str) -> Vec<NodeId> {
    let want = label.trim().to_lowercase();
    let mut found: Vec<NodeId> = Vec::new();
    for n in tree.nodes() {
        let named = [&n.text, &n.content_desc]
            .iter()
            .any(|t| t.trim().to_lowercase() == want);
        if !named || !n.is_visible() {
            continue;
        }
        // An icon's label and its icon are one tappable thing.
        let up = tree.interactive_ancestor(n.id);
        if !found.iter().any(|f| tree.interactive_ancestor(*f) == up) {
            found.push(n.id);
        }
    }
    found
}

/// Goes home and taps the one icon labelled `label`. When there is none (or several), the
/// error says so, after `not_package` (why the word was not launched as a package) and the
/// installed packages whose name holds the word.
pub async fn launch(
    ctx: &Ctx,
    dev: &Device,
    label: &str,
    not_package: ToolError,
) -> Result<Started, ToolError> {
    ctx.sh_ok(dev, &format!("input keyevent {HOME}")).await?;
    let tree = dump_settled(ctx, dev).await?;
    let found = icons(&tree, label);
    let [id] = found.as_slice() else {
        let why = if found.is_empty() {
            format!(
                "no icon on the home screen of {} is labelled {label:?}",
                dev.serial()
            )
        } else {
            format!(
                "{} icons on the home screen of {} are labelled {label:?}",
                found.len(),
                dev.serial()
            )
        };
        let mut e = with_matches(ctx, dev, label, not_package).await;
        e.message = format!("{}; {why}", e.message);
        return Err(e);
    };
    let mut out = ActionOut::new(dev.serial(), "launch by label", "tap");
    press_node(ctx, dev, &tree, *id, GestureKind::Tap, &mut out).await?;
    let now = current_activity(ctx, Some(dev.serial())).await?;
    Ok(Started {
        warning: Some(format!(
            "launched by the icon labelled {label:?} on the home screen{}",
            now.package
                .as_deref()
                .map(|p| format!("; its package is {p} (name it next time)"))
                .unwrap_or_default()
        )),
        package: now.package,
        activity: now.activity,
        total_time_ms: None,
        launch_state: None,
        screen: None,
        screen_error: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A phone's app drawer (MIUI on HyperOS, a public capture): each icon carries its
    /// label as text and content description.
    #[test]
    fn an_icon_is_found_by_its_whole_label() {
        let xml = include_str!(
            "../../../../../../tests/fixtures/uiautomator-public/miui_home_hyperos.xml"
        );
        let tree = crate::uitree::parse(xml).expect("parses");
        assert_eq!(icons(&tree, "Amazon Shopping").len(), 1);
        assert_eq!(icons(&tree, " amazon shopping ").len(), 1);
        // Two apps with one label: which to launch cannot be told.
        assert_eq!(icons(&tree, "Authenticator").len(), 2);
        // A part of a label is not a label.
        assert!(icons(&tree, "Shopping").is_empty());
        assert!(icons(&tree, "no such app").is_empty());
    }
}
