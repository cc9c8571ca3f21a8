//! Which UI toolkit drew the screen, and whether Compose test tags are visible.
//!
//! The only reliable Compose signal in a uiautomator dump is the host view
//! (`androidx.compose.ui.platform.ComposeView` / `AndroidComposeView`): below it, Compose
//! semantics are reported with ordinary View class names (`android.view.View`,
//! `android.widget.TextView`, `android.widget.Button`), indistinguishable by class alone.
//! Every Compose app still has a `FrameLayout`/`LinearLayout` decor around the host, so layout
//! containers are ignored when looking for View *content*; otherwise every pure-Compose screen
//! would read as hybrid.

use std::fmt;

use serde::{Serialize, Serializer};

use super::role::is_layout_container;
use super::{Node, UiTree};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Framework {
    Views,
    Compose,
    Mixed,
}

impl fmt::Display for Framework {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Framework::Views => "Traditional Android Views",
            Framework::Compose => "Jetpack Compose",
            Framework::Mixed => "Mixed Views and Jetpack Compose",
        })
    }
}

impl Serialize for Framework {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

pub(crate) fn is_compose_host(class: &str) -> bool {
    class.starts_with("androidx.compose.") && class.ends_with("ComposeView")
}

/// Sets `in_compose` on every host and everything below it. Relies on pre-order storage:
/// a parent is always marked before its children are visited.
pub(crate) fn mark_compose(nodes: &mut [Node]) {
    for i in 0..nodes.len() {
        let inherited = nodes
            .get(i)
            .and_then(|n| n.parent)
            .and_then(|p| nodes.get(p.index()))
            .is_some_and(|p| p.in_compose);
        if let Some(n) = nodes.get_mut(i) {
            n.in_compose = inherited || is_compose_host(&n.class);
        }
    }
}

/// Decor views every app window has; not the app's content.
fn is_decor(node: &Node) -> bool {
    matches!(
        node.resource_id.as_str(),
        "android:id/statusBarBackground" | "android:id/navigationBarBackground"
    )
}

/// A View the app put on screen for the user, rather than layout scaffolding.
fn is_view_content(node: &Node) -> bool {
    if node.in_compose || is_decor(node) {
        return false;
    }
    !is_layout_container(&node.class) || node.own_label().is_some() || node.is_actionable()
}

pub(crate) fn detect(nodes: &[Node]) -> Framework {
    let hosts: Vec<&str> = nodes
        .iter()
        .filter(|n| is_compose_host(&n.class))
        .map(|n| n.package.as_str())
        .collect();
    if hosts.is_empty() {
        return Framework::Views;
    }
    // Only the Compose app's own windows count: a system overlay captured alongside (status
    // bar, IME) does not make a Compose screen hybrid.
    let mixed = nodes
        .iter()
        .any(|n| hosts.contains(&n.package.as_str()) && is_view_content(n));
    if mixed {
        Framework::Mixed
    } else {
        Framework::Compose
    }
}

/// Compose test tags reach uiautomator only as bare resource-ids, and only when the app opted in
/// with `testTagsAsResourceId`. React Native `testID`s arrive the same way.
pub(crate) fn test_tags_exposed(tree: &UiTree) -> bool {
    tree.nodes().iter().any(|n| n.test_tag().is_some())
}

/// What `android_get_ui_tree` tells an agent when a Compose screen shows no test tags.
pub(crate) fn test_tag_advice(tree: &UiTree) -> Option<String> {
    if tree.framework() == Framework::Views {
        return None;
    }
    let compose_tags = tree
        .nodes()
        .iter()
        .any(|n| n.in_compose && n.test_tag().is_some());
    // An app's own View ids inside its Compose part (a ComposeView in a View layout, ids the
    // app gave): selecting by id already works there, so the advice would be noise.
    let app_ids_in_compose = tree.nodes().iter().any(|n| {
        n.in_compose
            && n.resource_id
                .split_once(":id/")
                .is_some_and(|(pkg, _)| pkg != "android" && pkg == n.package)
    });
    if compose_tags || app_ids_in_compose {
        return None;
    }
    Some(
        "Compose test tags are not exposed on this screen: Modifier.testTag is only visible over \
         ADB when the app sets Modifier.semantics { testTagsAsResourceId = true } (Compose UI \
         1.2+). Match on text or content description instead."
            .to_string(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::uitree::fixtures::all_fixtures;
    use crate::uitree::parse;

    /// Worked out from each file and SOURCES.md: the compose-* captures have a `ComposeView`
    /// host under the decor and nothing but decor outside it; the views-* and React Native
    /// captures have no Compose host at all.
    fn expected(name: &str) -> Framework {
        match name {
            "compose-finance-scroll.xml"
            | "compose-music-home.xml"
            | "compose-music-library.xml"
            | "compose-music-player.xml"
            | "compose-music-search.xml"
            | "compose-music-settings.xml"
            | "compose-reader-library.xml" => Framework::Compose,
            "rn-openweather-bare-ids.xml"
            | "rn-wdio-login-edittext.xml"
            | "views-aena-welcome-recyclerview.xml"
            | "views-gms-webview-dialog.xml"
            | "views-settings-homepage.xml"
            | "views-system-anr-dialog.xml" => Framework::Views,
            other => panic!("new fixture {other}: add its framework here"),
        }
    }

    #[test]
    fn framework_of_every_fixture() {
        for (name, xml) in all_fixtures() {
            let tree = parse(&xml).expect("parses");
            assert_eq!(tree.framework(), expected(&name), "{name}");
        }
    }

    #[test]
    fn display_strings_are_the_documented_ones() {
        assert_eq!(Framework::Views.to_string(), "Traditional Android Views");
        assert_eq!(Framework::Compose.to_string(), "Jetpack Compose");
        assert_eq!(
            Framework::Mixed.to_string(),
            "Mixed Views and Jetpack Compose"
        );
        assert_eq!(
            serde_json::to_value(Framework::Compose).expect("json"),
            serde_json::json!("Jetpack Compose")
        );
    }

    #[test]
    fn view_content_beside_a_compose_host_is_mixed() {
        // The real compose-reader capture with one real Views button from the ANR capture
        // grafted into its decor LinearLayout (same package): a hybrid screen.
        let xml = crate::uitree::fixtures::fixture("compose-reader-library.xml");
        let button = r#"<node index="1" text="Wait" resource-id="android:id/aerr_wait" class="android.widget.Button" package="io.aatricks.novelscraper" content-desc="" checkable="false" checked="false" clickable="true" enabled="true" focusable="true" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[70,1347][1010,1473]" />"#;
        let marker = "</node></hierarchy>";
        let at = xml.rfind(marker).expect("root close");
        let hybrid = format!("{}{}{}", &xml[..at], button, &xml[at..]);
        let tree = parse(&hybrid).expect("parses");
        assert_eq!(tree.framework(), Framework::Mixed);
    }

    #[test]
    fn compose_nodes_are_marked_and_decor_is_not() {
        for (name, xml) in all_fixtures() {
            let tree = parse(&xml).expect("parses");
            let root = &tree.nodes()[0];
            assert!(!root.in_compose, "{name}: decor FrameLayout is a View");
            let compose = tree.nodes().iter().filter(|n| n.in_compose).count();
            assert_eq!(compose > 0, name.starts_with("compose-"), "{name}");
        }
    }

    #[test]
    fn test_tag_exposure_and_advice() {
        for (name, xml) in all_fixtures() {
            let tree = parse(&xml).expect("parses");
            if name.starts_with("compose-") {
                // None of the real Compose captures opted in to testTagsAsResourceId.
                assert!(!tree.test_tags_exposed(), "{name}");
                let advice = tree.test_tag_advice().expect("advice on Compose");
                assert!(advice.contains("testTagsAsResourceId"));
                assert!(advice.contains("text or content description"));
            } else {
                assert_eq!(tree.test_tag_advice(), None, "{name}");
            }
        }
        // React Native testIDs arrive as bare resource-ids, like exposed test tags.
        let rn = crate::uitree::fixtures::fixture("rn-openweather-bare-ids.xml");
        assert!(parse(&rn).expect("parses").test_tags_exposed());
    }

    #[test]
    fn exposed_compose_test_tag_silences_the_advice() {
        // Compose with testTagsAsResourceId writes the tag verbatim as resource-id (no
        // `package:id/` prefix); no public capture exists (see SOURCES.md), so one real
        // Compose capture gets a tag on its "Add" button in that exact form.
        let xml = crate::uitree::fixtures::fixture("compose-reader-library.xml");
        let tagged = xml.replacen(
            r#"resource-id="" class="android.view.View" package="io.aatricks.novelscraper" content-desc="Add""#,
            r#"resource-id="add_button" class="android.view.View" package="io.aatricks.novelscraper" content-desc="Add""#,
            1,
        );
        assert_ne!(tagged, xml, "graft point found");
        let tree = parse(&tagged).expect("parses");
        assert!(tree.test_tags_exposed());
        assert_eq!(tree.test_tag_advice(), None);
        assert_eq!(tree.framework(), Framework::Compose);
    }
}
