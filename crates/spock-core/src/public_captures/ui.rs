//! The UI dumps: parsed node for node (checked against [`super::scan`], a reading that shares
//! nothing with the parser), rendered as the agent reads them, looked up as the tools look up an
//! element, and cut when the answer is capped.
use std::collections::HashMap;

use serde_json::Value;

use crate::mcp::tools::acted::screen_lines;
use crate::mcp::tools::ui::{ElementRef, tree_out};
use crate::redact::{Audience, Redactor};
use crate::uitree::{self, FindingKind, Node, NodeId, Selector, TreeOptions, UiTree};

use super::{UI_COUNT, UI_DIR, captures, device_text, rel, scan};

/// Every dump, as `(file name, text as the device would hand it over)`.
fn dumps() -> Vec<(String, String)> {
    let all: Vec<_> = captures(UI_DIR)
        .into_iter()
        .map(|p| (rel(UI_DIR, &p), device_text(&p)))
        .collect();
    assert!(all.len() >= UI_COUNT, "dumps lost: {}", all.len());
    assert!(all.iter().all(|(n, _)| n.ends_with(".xml")), "not a dump");
    all
}

fn parse(name: &str, xml: &str) -> UiTree {
    uitree::parse(xml).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The tree as the agent is shown it (`ui::dump`: every string redacted for the agent first).
fn shown(r: &Redactor, tree: &UiTree) -> UiTree {
    let mut t = tree.clone();
    r.redact_tree(&mut t, Audience::Agent);
    t
}

fn compact() -> TreeOptions {
    TreeOptions {
        compact: true,
        ..TreeOptions::default()
    }
}

/// `android_get_ui_tree` with `compact: true`, as JSON.
fn compact_answer(tree: &UiTree, opts: TreeOptions) -> Value {
    serde_json::to_value(tree_out("public", tree, opts)).expect("json")
}

fn entries(answer: &Value) -> Vec<Value> {
    answer["tree"]["n"].as_array().cloned().unwrap_or_default()
}

/// `n12` → 12.
fn id_of(entry: &Value) -> NodeId {
    NodeId::parse(entry["id"].as_str().expect("id")).expect("n<index>")
}

/// The labels a node carries, trimmed, with the compact key each is shown under.
fn labels(n: &Node) -> Vec<(&'static str, &str)> {
    [("t", n.text.trim()), ("d", n.content_desc.trim())]
        .into_iter()
        .filter(|(_, l)| !l.is_empty())
        .collect()
}

#[test]
fn every_public_dump_parses_node_for_node() {
    let (mut nodes, mut texts, mut descs, mut naf) = (0, 0, 0, 0);
    for (name, xml) in dumps() {
        let tree = parse(&name, &xml);
        let els = scan::node_elements(&xml);
        // The parser keeps every `<node>` (other elements are transparent) and invents none.
        assert_eq!(tree.len(), els.len(), "{name}: nodes");
        assert!(!els.is_empty(), "{name}");
        for (n, e) in tree.nodes().iter().zip(&els) {
            let at = format!("{name} {}", n.id);
            assert_eq!(n.text, e.str("text"), "{at}");
            assert_eq!(n.content_desc, e.str("content-desc"), "{at}");
            assert_eq!(n.resource_id, e.str("resource-id"), "{at}");
            assert_eq!(n.class, e.str("class"), "{at}");
            assert_eq!(n.package, e.str("package"), "{at}");
            assert_eq!(n.hint, e.str("hint"), "{at}");
            assert_eq!(
                n.bounds.map(|b| [b.left, b.top, b.right, b.bottom]),
                e.bounds(),
                "{at}"
            );
            let flags = [
                (n.password, e.flag("password", false)),
                (n.clickable, e.flag("clickable", false)),
                (n.long_clickable, e.flag("long-clickable", false)),
                (n.checkable, e.flag("checkable", false)),
                (n.checked, e.flag("checked", false)),
                (n.enabled, e.flag("enabled", true)),
                (n.focusable, e.flag("focusable", false)),
                (n.focused, e.flag("focused", false)),
                (n.scrollable, e.flag("scrollable", false)),
                (n.selected, e.flag("selected", false)),
                (n.visible_to_user, e.flag("visible-to-user", true)),
            ];
            for (i, (have, want)) in flags.into_iter().enumerate() {
                assert_eq!(have, want, "{at}: flag #{i}");
            }
            texts += usize::from(!e.str("text").is_empty());
            descs += usize::from(!e.str("content-desc").is_empty());
            if e.flag("NAF", false) {
                naf += 1;
                naf_is_kept(&name, &tree, n);
            }
        }
        nodes += tree.len();
    }
    // What the public dumps hold between them (so a capture that lost its nodes fails).
    assert!(
        nodes >= 778 && texts >= 200 && descs >= 50,
        "{nodes} {texts} {descs}"
    );
    assert!(naf >= 27, "{naf} NAF nodes");
}

/// uiautomator writes `NAF="true"` (Not Accessibility Friendly: `AccessibilityNodeInfoDumper`
/// `nafCheck`) on an enabled clickable node with no text or description in itself or below it.
/// The product has no NAF field; the fact survives as the audit's unlabelled-interactive
/// finding, which says the same of a visible node.
fn naf_is_kept(name: &str, tree: &UiTree, n: &Node) {
    let at = format!("{name} {}", n.id);
    assert!(
        n.clickable && n.enabled,
        "{at}: NAF is clickable and enabled"
    );
    let unlabelled = |x: &Node| x.text.trim().is_empty() && x.content_desc.trim().is_empty();
    assert!(
        unlabelled(n) && tree.descendants(n.id).all(unlabelled),
        "{at}: NAF yet labelled"
    );
    if n.is_visible() && n.hint.trim().is_empty() && n.role() != uitree::Role::Web {
        let found = uitree::audit(tree, 0)
            .into_iter()
            .any(|f| f.kind == FindingKind::UnlabelledInteractive && f.nodes == [n.id]);
        assert!(
            found,
            "{at}: NAF but the audit does not say it is unlabelled"
        );
    }
}

/// What the agent reads (`android_get_ui_tree`, compact) names every visible label: on the
/// node's own entry, or folded into the `in` of the node a tap on it goes to.
#[test]
fn the_compact_answer_names_every_visible_label() {
    let (mut named, mut folded, mut cut, mut hidden) = (0, 0, 0, 0);
    for (name, xml) in dumps() {
        let tree = shown(&Redactor::with_defaults(), &parse(&name, &xml));
        let answer = compact_answer(&tree, compact());
        let list = entries(&answer);
        let readable = |n: &Node| n.own_label().is_some() || n.is_actionable();
        let any = tree.nodes().iter().any(|n| n.is_visible() && readable(n));
        assert_eq!(!list.is_empty(), any, "{name}");
        assert_eq!(
            answer["tree"].get("truncated"),
            None,
            "{name}: cut by default"
        );
        let by_id: HashMap<NodeId, &Value> = list.iter().map(|e| (id_of(e), e)).collect();
        for n in tree.nodes() {
            let ls = labels(n);
            if ls.is_empty() {
                continue;
            }
            if !n.is_visible() {
                // Off screen or of no area: the compact form leaves it out unless
                // `includeInvisible` is asked for.
                hidden += 1;
                continue;
            }
            for (key, label) in ls {
                let at = format!("{name} {} {label:?}", n.id);
                if let Some(e) = by_id.get(&n.id) {
                    assert_eq!(e[key].as_str(), Some(label), "{at}");
                    named += 1;
                    continue;
                }
                let a = tree.interactive_ancestor(n.id);
                assert_ne!(a, n.id, "{at}: neither listed nor folded into a parent");
                let e = by_id
                    .get(&a)
                    .unwrap_or_else(|| panic!("{at}: folded into {a}, which is not listed"));
                let own = tree.node(a).and_then(|p| p.own_label()).unwrap_or_default();
                let within = e["in"].as_str().unwrap_or_default();
                if label == own || within.split(" | ").any(|l| l == label) {
                    folded += 1;
                } else if within.ends_with('…') {
                    // The folded list is capped (160 bytes, said with `…`): the label is on
                    // the tree, the selector finds it.
                    cut += 1;
                } else {
                    panic!("{at}: not in {a}'s `in` {within:?}");
                }
            }
        }
    }
    assert!(
        named >= 200 && folded >= 100,
        "{named} named, {folded} folded"
    );
    // Counted, not hidden: the labels the folded-list cap leaves out of the answer (4 of the
    // 323 on the public dumps, all on futu_trader.xml's rows), at most 1 in 20; no labelled
    // node of these dumps is off screen or of no area.
    assert!(
        cut * 20 <= named + folded,
        "{cut} labels past the folded-list cap"
    );
    assert!(
        hidden * 10 <= named + folded,
        "{hidden} labelled nodes not shown"
    );
}

/// No public dump has a password field (every `password="false"`), so in each dump every
/// labelled text node whose text appears nowhere else in the answer is made one in turn, on
/// the parsed tree: neither the compact answer nor the screen lines an action sends back may
/// show its text.
#[test]
fn a_password_fields_text_is_never_in_the_answer() {
    let mut tried = 0;
    for (name, xml) in dumps() {
        let raw = parse(&name, &xml);
        assert!(raw.nodes().iter().all(|n| !n.password), "{name} has one");
        let redactor = Redactor::with_defaults();
        let render = |t: &UiTree| {
            let s = shown(&redactor, t);
            format!("{}\n{}", compact_answer(&s, compact()), screen_lines(&s))
        };
        let mut in_dump = 0;
        for n in raw.nodes() {
            let text = n.text.trim();
            // Said the same way in JSON and in a line: no quote, backslash or control.
            let plain = text
                .chars()
                .all(|c| !c.is_control() && c != '"' && c != '\\');
            if !n.is_visible() || text.chars().count() < 3 || !plain {
                continue;
            }
            let mut without = raw.clone();
            without.nodes_mut()[n.id.index()].text.clear();
            if render(&without).contains(text) || !render(&raw).contains(text) {
                continue; // also said elsewhere on the screen, or never shown
            }
            let mut secret = raw.clone();
            secret.nodes_mut()[n.id.index()].password = true;
            let out = render(&secret);
            assert!(!out.contains(text), "{name} {}: {text:?} shown", n.id);
            in_dump += 1;
        }
        tried += in_dump;
    }
    assert!(tried >= 80, "{tried}");
}

/// The rank of the tiers `resolve_query` tries in order.
fn tier_rank(t: uitree::MatchTier) -> u8 {
    use uitree::MatchTier::*;
    match t {
        TestTag => 0,
        ContentDescription => 1,
        Text => 2,
        ContentDescriptionIgnoreCase => 3,
        TextIgnoreCase => 4,
        ContentDescriptionContains => 5,
        TextContains => 6,
    }
}

/// Looks `label` up as the element tools do (a plain `element` string) and by a selector on
/// the field it came from; both must reach `n`, unless the plain string is answered by an
/// earlier tier (a testTag or description equal to another node's text).
fn assert_found(name: &str, tree: &UiTree, n: &Node, key: &str, label: &str) {
    let at = format!("{name} {} {label:?}", n.id);
    let q = uitree::select::norm(label);
    let own_rank = if n.test_tag() == Some(q.as_str()) {
        0
    } else if uitree::select::norm(&n.content_desc) == q {
        1
    } else {
        2
    };
    let by_element = ElementRef {
        element: Some(label.to_string()),
        selector: None,
    };
    let ids = by_element
        .find_all(tree)
        .unwrap_or_else(|e| panic!("{at}: {e:?}"));
    let (tier, tier_ids) = tree.resolve_query_tier(label).expect("some tier");
    assert_eq!(ids, tier_ids, "{at}");
    assert!(tier_rank(tier) <= own_rank, "{at}: {tier:?}");
    if tier_rank(tier) == own_rank {
        assert!(ids.contains(&n.id), "{at}: {ids:?}");
    }
    let mut sel = Selector::default();
    if key == "t" {
        sel.text = Some(label.to_string());
    } else {
        sel.content_description = Some(label.to_string());
    }
    let by_selector = ElementRef {
        element: None,
        selector: Some(sel),
    };
    let found = by_selector.find_all(tree).expect("selector");
    assert!(found.contains(&n.id), "{at}: selector found {found:?}");
}

#[test]
fn every_visible_label_is_found_by_the_element_lookup() {
    let mut found = 0;
    for (name, xml) in dumps() {
        let tree = shown(&Redactor::with_defaults(), &parse(&name, &xml));
        for n in tree.nodes().iter().filter(|n| n.is_visible()) {
            for (key, label) in labels(n) {
                assert_found(&name, &tree, n, key, label);
                found += 1;
            }
        }
    }
    assert!(found >= 250, "{found}");
}

/// A large public dump under a lowered cap (`maxNodes`, the option that bounds the answer): the
/// cut is said in every form, and a node past the cut is still found by the lookup.
#[test]
fn a_capped_answer_says_it_was_cut_and_cut_nodes_are_still_found() {
    let (name, xml) = dumps()
        .into_iter()
        .max_by_key(|(_, x)| x.len())
        .expect("dumps");
    assert_eq!(name, "futu_trader.xml");
    let tree = shown(&Redactor::with_defaults(), &parse(&name, &xml));
    let all = entries(&compact_answer(&tree, compact()));
    assert!(all.len() > 50, "{}", all.len());
    let cap = all.len() / 4;
    let capped = TreeOptions {
        max_nodes: cap,
        ..compact()
    };
    let answer = compact_answer(&tree, capped);
    assert_eq!(answer["tree"]["truncated"], Value::Bool(true));
    let kept = entries(&answer);
    assert_eq!(kept, all[..cap].to_vec(), "the first {cap}, unchanged");
    let lines = tree.to_lines(capped);
    assert!(
        lines.starts_with(&format!("rev {} (cut)\n", tree.revision())),
        "{lines:.80}"
    );
    assert_eq!(lines.lines().count(), cap + 1);
    let full = tree.to_json(TreeOptions {
        max_nodes: cap,
        ..TreeOptions::default()
    });
    assert_eq!(
        (full["truncated"].clone(), full["nodeCount"].clone()),
        (Value::Bool(true), cap.into())
    );

    let mut past = 0;
    for e in &all[cap..] {
        let n = tree.node(id_of(e)).expect("node");
        // Its own labels and those folded into its `in`.
        let folded = tree
            .descendants(n.id)
            .filter(|d| !d.is_actionable() && tree.interactive_ancestor(d.id) == n.id);
        for x in std::iter::once(n).chain(folded) {
            for (key, label) in labels(x) {
                if x.is_visible() {
                    assert_found(&name, &tree, x, key, label);
                    past += 1;
                }
            }
        }
        // Its id, read from an uncapped answer of the same revision, still resolves.
        let sel = Selector {
            node_id: Some(n.id.to_string()),
            revision: Some(tree.revision().to_string()),
            ..Selector::default()
        };
        assert_eq!(tree.resolve(&sel), Ok(n.id));
    }
    assert!(past >= 30, "{past} labels past the cut");
}
