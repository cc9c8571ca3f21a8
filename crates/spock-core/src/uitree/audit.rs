//! Accessibility audit of one screen: unlabelled interactive elements, touch targets below
//! 48dp, ambiguous duplicate labels and unlabelled images.
//!
//! Every finding carries a code-level fix in the framework of the node it is about: on a
//! Compose node `android:contentDescription` does not exist, so the fix is
//! `Modifier.semantics { … }`; on a View it is the XML attribute. A hybrid screen gets both
//! kinds, each where it applies.

use serde::Serialize;

use super::{Framework, Node, NodeId, Role, UiTree};

/// Android's minimum touch target (Material and the accessibility scanner agree).
pub const MIN_TOUCH_DP: f64 = 48.0;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FindingKind {
    UnlabelledInteractive,
    SmallTouchTarget,
    DuplicateLabel,
    UnlabelledImage,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Finding {
    pub kind: FindingKind,
    /// The node(s) concerned; several for a duplicate label.
    #[serde(serialize_with = "ser_ids")]
    pub nodes: Vec<NodeId>,
    pub framework: Framework,
    pub message: String,
    pub fix: String,
}

fn ser_ids<S: serde::Serializer>(ids: &[NodeId], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(ids.iter().map(|i| i.to_string()))
}

/// Audits `tree`; `density_dpi` (from `wm density`) converts pixels to dp as px * 160 / dpi.
pub fn audit(tree: &UiTree, density_dpi: u32) -> Vec<Finding> {
    let mut out = Vec::new();
    let visible: Vec<&Node> = tree.nodes().iter().filter(|n| n.is_visible()).collect();
    let tappable = |n: &Node| n.clickable || n.long_clickable || n.checkable || n.is_editable();

    for n in visible.iter().filter(|n| tappable(n)) {
        if n.role() != Role::Web && !has_label_in_subtree(tree, n) {
            out.push(unlabelled(n));
        }
    }
    if density_dpi > 0 {
        for n in visible.iter().filter(|n| tappable(n)) {
            if let Some(f) = small_target(n, density_dpi) {
                out.push(f);
            }
        }
    }
    out.extend(duplicates(tree, &visible));
    for n in &visible {
        let image = n.role() == Role::Image || n.short_class().contains("ImageView");
        if image && !tappable(n) && n.content_desc.trim().is_empty() {
            // An icon inside a labelled row or button is decoration: the row is read instead.
            let covered = tree.interactive_ancestor(n.id) != n.id
                && tree
                    .node(tree.interactive_ancestor(n.id))
                    .is_some_and(|a| has_label_in_subtree(tree, a));
            if !covered {
                out.push(unlabelled_image(n));
            }
        }
    }
    out
}

fn framework_of(n: &Node) -> Framework {
    if n.in_compose {
        Framework::Compose
    } else {
        Framework::Views
    }
}

fn has_label_in_subtree(tree: &UiTree, n: &Node) -> bool {
    let labelled = |x: &Node| x.own_label().is_some() || !x.hint.trim().is_empty();
    labelled(n) || tree.descendants(n.id).any(labelled)
}

fn describe(n: &Node) -> String {
    let b = n.bounds.unwrap_or_default();
    format!("{} {} at {}", n.id, n.short_class(), b)
}

fn unlabelled(n: &Node) -> Finding {
    let fw = framework_of(n);
    let fix = match (fw, n.is_editable()) {
        (Framework::Views, true) => {
            "Give the field a label: android:hint=\"…\" on the EditText (or a TextView with android:labelFor pointing at it).".to_string()
        }
        (Framework::Views, false) => {
            "Add android:contentDescription=\"…\" describing the action (or setContentDescription(…) in code).".to_string()
        }
        (_, true) => {
            "Give the TextField a label = { Text(\"…\") }, or Modifier.semantics { contentDescription = \"…\" }.".to_string()
        }
        (_, false) => {
            "Add Modifier.semantics { contentDescription = \"…\" } to the clickable (for an Icon, pass contentDescription = \"…\" to it).".to_string()
        }
    };
    Finding {
        kind: FindingKind::UnlabelledInteractive,
        nodes: vec![n.id],
        framework: fw,
        message: format!(
            "{} is interactive but has no text, content description or hint: a screen reader announces it only as \"{}\"",
            describe(n),
            n.role()
        ),
        fix,
    }
}

fn small_target(n: &Node, dpi: u32) -> Option<Finding> {
    let b = n.bounds?;
    let to_dp = |px: i32| f64::from(px) * 160.0 / f64::from(dpi);
    let (w, h) = (to_dp(b.width()), to_dp(b.height()));
    if w >= MIN_TOUCH_DP && h >= MIN_TOUCH_DP {
        return None;
    }
    let fw = framework_of(n);
    let fix = match fw {
        Framework::Views => {
            "Set android:minWidth=\"48dp\" and android:minHeight=\"48dp\" (or enlarge padding / use TouchDelegate).".to_string()
        }
        _ => "Add Modifier.sizeIn(minWidth = 48.dp, minHeight = 48.dp) (or Modifier.minimumInteractiveComponentSize()).".to_string(),
    };
    Some(Finding {
        kind: FindingKind::SmallTouchTarget,
        nodes: vec![n.id],
        framework: fw,
        message: format!(
            "{} is {:.0}x{:.0}dp at {dpi}dpi, below the {MIN_TOUCH_DP:.0}x{MIN_TOUCH_DP:.0}dp minimum",
            describe(n),
            w,
            h
        ),
        fix,
    })
}

/// Interactive elements that read the same: a screen reader user cannot tell them apart.
fn duplicates(tree: &UiTree, visible: &[&Node]) -> Vec<Finding> {
    let mut groups: Vec<(String, Vec<&Node>)> = Vec::new();
    for n in visible.iter().filter(|n| n.clickable || n.long_clickable) {
        let label = match n.own_label() {
            Some(l) => l.to_string(),
            None => tree.absorbed_labels(n),
        };
        let key = label.trim().to_lowercase();
        if key.is_empty() {
            continue;
        }
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, g)) => g.push(n),
            None => groups.push((key, vec![n])),
        }
    }
    groups
        .into_iter()
        .filter(|(_, g)| g.len() > 1)
        .map(|(label, g)| {
            let fw = if g.iter().all(|n| n.in_compose) {
                Framework::Compose
            } else if g.iter().any(|n| n.in_compose) {
                Framework::Mixed
            } else {
                Framework::Views
            };
            let fix = match fw {
                Framework::Views => format!(
                    "Give each a distinct android:contentDescription that says what it acts on (e.g. \"{label} – <item>\")."
                ),
                Framework::Compose => format!(
                    "Give each a distinct Modifier.semantics {{ contentDescription = \"{label} – <item>\" }}."
                ),
                Framework::Mixed => format!(
                    "Give each a distinct label: Modifier.semantics {{ contentDescription = \"{label} – <item>\" }} on Compose nodes, android:contentDescription on Views."
                ),
            };
            Finding {
                kind: FindingKind::DuplicateLabel,
                nodes: g.iter().map(|n| n.id).collect(),
                framework: fw,
                message: format!(
                    "{} interactive elements are all labelled \"{label}\": {}",
                    g.len(),
                    g.iter().map(|n| describe(n)).collect::<Vec<_>>().join(", ")
                ),
                fix,
            }
        })
        .collect()
}

fn unlabelled_image(n: &Node) -> Finding {
    let fw = framework_of(n);
    let fix = match fw {
        Framework::Views => "Add android:contentDescription=\"…\", or android:importantForAccessibility=\"no\" if it is decorative.".to_string(),
        _ => "Pass contentDescription = \"…\" to the Image/Icon, or contentDescription = null if it is decorative.".to_string(),
    };
    Finding {
        kind: FindingKind::UnlabelledImage,
        nodes: vec![n.id],
        framework: fw,
        message: format!("{} is an image with no content description", describe(n)),
        fix,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::uitree::fixtures::{all_fixtures, fixture};
    use crate::uitree::parse;

    fn of_kind(f: &[Finding], kind: FindingKind) -> Vec<&Finding> {
        f.iter().filter(|x| x.kind == kind).collect()
    }

    fn bounds_of(tree: &UiTree, f: &Finding) -> String {
        tree.node(f.nodes[0])
            .and_then(|n| n.bounds)
            .map(|b| b.to_string())
            .unwrap_or_default()
    }

    #[test]
    fn compose_unlabelled_switches_get_a_compose_fix() {
        // Music settings: the "Dynamic Color" and "Show Visualizer" toggles are clickable,
        // checkable Views with no label of their own and no labelled child.
        let tree = parse(&fixture("compose-music-settings.xml")).expect("parses");
        let found = audit(&tree, 340);
        let unlabelled = of_kind(&found, FindingKind::UnlabelledInteractive);
        let at: Vec<String> = unlabelled.iter().map(|f| bounds_of(&tree, f)).collect();
        assert_eq!(at, ["[901,608][1012,710]", "[901,1862][1012,1964]"]);
        for f in unlabelled {
            assert_eq!(f.framework, Framework::Compose);
            assert!(
                f.fix.contains("Modifier.semantics { contentDescription = "),
                "{}",
                f.fix
            );
            assert!(!f.fix.contains("android:"));
        }
    }

    #[test]
    fn views_findings_get_view_fixes() {
        let tree = parse(&fixture("views-aena-welcome-recyclerview.xml")).expect("parses");
        let found = audit(&tree, 420);
        // The ViewPager's three clickable page dots carry no label.
        let unlabelled = of_kind(&found, FindingKind::UnlabelledInteractive);
        assert_eq!(unlabelled.len(), 3);
        assert!(
            unlabelled.iter().all(|f| f.framework == Framework::Views
                && f.fix.contains("android:contentDescription="))
        );
        // They are 56px wide: 21dp at 420dpi.
        let small = of_kind(&found, FindingKind::SmallTouchTarget);
        let dot = small
            .iter()
            .find(|f| f.nodes == unlabelled[0].nodes)
            .expect("dot is also too small");
        assert!(dot.message.contains("21x54dp"), "{}", dot.message);
        assert!(dot.fix.contains("android:minWidth=\"48dp\""));
        // The onboarding animation is an ImageView without a description.
        let images = of_kind(&found, FindingKind::UnlabelledImage);
        assert_eq!(images.len(), 1);
        assert_eq!(bounds_of(&tree, images[0]), "[0,180][1080,898]");
        assert!(images[0].fix.contains("importantForAccessibility"));
    }

    #[test]
    fn touch_targets_depend_on_density() {
        // The player's icon buttons are 102px: exactly 48dp at 340dpi, 39dp at 420dpi.
        let tree = parse(&fixture("compose-music-player.xml")).expect("parses");
        assert!(of_kind(&audit(&tree, 340), FindingKind::SmallTouchTarget).is_empty());
        let small = audit(&tree, 420);
        let small = of_kind(&small, FindingKind::SmallTouchTarget);
        assert!(small.len() >= 10);
        assert!(small.iter().all(|f| {
            f.framework == Framework::Compose
                && f.fix
                    .contains("Modifier.sizeIn(minWidth = 48.dp, minHeight = 48.dp)")
        }));
        // Unknown density: no guess.
        assert!(of_kind(&audit(&tree, 0), FindingKind::SmallTouchTarget).is_empty());
    }

    #[test]
    fn decorative_icons_in_labelled_rows_and_webviews_are_not_flagged() {
        let tree = parse(&fixture("views-settings-homepage.xml")).expect("parses");
        assert!(of_kind(&audit(&tree, 420), FindingKind::UnlabelledImage).is_empty());
        let tree = parse(&fixture("views-gms-webview-dialog.xml")).expect("parses");
        assert_eq!(audit(&tree, 420), Vec::new());
    }

    #[test]
    fn duplicate_labels_per_framework() {
        // No capture has two controls with one label, so two real ones are made to collide:
        // the player's "Block Track" icon is relabelled "Like Track".
        let xml = fixture("compose-music-player.xml").replacen(
            "content-desc=\"Block Track\"",
            "content-desc=\"Like Track\"",
            1,
        );
        let tree = parse(&xml).expect("parses");
        let found = audit(&tree, 340);
        let dup = of_kind(&found, FindingKind::DuplicateLabel);
        assert_eq!(dup.len(), 1);
        assert_eq!(dup[0].nodes.len(), 2);
        assert_eq!(dup[0].framework, Framework::Compose);
        assert!(
            dup[0]
                .fix
                .contains("Modifier.semantics { contentDescription")
        );

        let xml = fixture("views-system-anr-dialog.xml").replacen(
            "text=\"Wait\"",
            "text=\"Close app\"",
            1,
        );
        let found = audit(&parse(&xml).expect("parses"), 420);
        let dup = of_kind(&found, FindingKind::DuplicateLabel);
        assert_eq!(dup.len(), 1);
        assert_eq!(dup[0].framework, Framework::Views);
        assert!(dup[0].fix.contains("android:contentDescription"));
    }

    #[test]
    fn hybrid_screen_gets_each_nodes_own_fix() {
        // Real Compose capture with a label-less Views ImageButton grafted into its decor.
        let xml = fixture("compose-music-settings.xml");
        let button = r#"<node index="1" text="" resource-id="com.deepeye.musicpro.debug:id/cast" class="android.widget.ImageButton" package="com.deepeye.musicpro.debug" content-desc="" checkable="false" checked="false" clickable="true" enabled="true" focusable="true" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[900,100][1040,240]" />"#;
        let at = xml.rfind("</node></hierarchy>").expect("root close");
        let tree = parse(&format!("{}{}{}", &xml[..at], button, &xml[at..])).expect("parses");
        assert_eq!(tree.framework(), Framework::Mixed);
        let found = audit(&tree, 340);
        let unlabelled = of_kind(&found, FindingKind::UnlabelledInteractive);
        assert_eq!(unlabelled.len(), 3);
        let views: Vec<_> = unlabelled
            .iter()
            .filter(|f| f.framework == Framework::Views)
            .collect();
        assert_eq!(views.len(), 1);
        assert!(views[0].fix.contains("android:contentDescription"));
        assert_eq!(
            unlabelled
                .iter()
                .filter(|f| f.fix.contains("Modifier.semantics"))
                .count(),
            2
        );
    }

    #[test]
    fn every_fixture_audits_and_serializes() {
        for (name, xml) in all_fixtures() {
            let tree = parse(&xml).expect("parses");
            for f in audit(&tree, 420) {
                let v = serde_json::to_value(&f).expect("json");
                assert!(
                    v["nodes"][0].as_str().is_some_and(|s| s.starts_with('n')),
                    "{name}"
                );
                assert!(v["kind"].is_string() && !f.fix.is_empty() && !f.message.is_empty());
                let compose_fix = f.fix.contains("Modifier.");
                assert_eq!(
                    compose_fix,
                    f.framework != Framework::Views,
                    "{name}: {}",
                    f.fix
                );
            }
        }
    }
}
