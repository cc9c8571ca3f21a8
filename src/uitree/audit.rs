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
