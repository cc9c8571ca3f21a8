//! Selector, query and tap-target resolution proven on the real captures.

use serde_json::json;

use crate::uitree::fixtures::fixture;
use crate::uitree::{MatchTier, Node, NodeId, SelectError, Selector, UiTree, parse};

fn tree(name: &str) -> UiTree {
    parse(&fixture(name)).expect("fixture parses")
}

fn sel(v: serde_json::Value) -> Selector {
    serde_json::from_value(v).expect("selector deserializes")
}

fn find(t: &UiTree, v: serde_json::Value) -> Vec<NodeId> {
    t.find(&sel(v)).expect("find")
}

fn node(t: &UiTree, id: NodeId) -> &Node {
    t.node(id).expect("node exists")
}

fn one(t: &UiTree, v: serde_json::Value) -> &Node {
    let ids = find(t, v.clone());
    assert_eq!(ids.len(), 1, "{v}: {ids:?}");
    node(t, ids[0])
}

#[test]
fn compose_text_child_taps_its_clickable_parent() {
    // Music home bottom bar: the "Library" text is a child of the clickable tab.
    let t = tree("compose-music-home.xml");
    let ids = t.resolve_query("Library");
    assert_eq!(ids.len(), 1);
    let label = node(&t, ids[0]);
    assert_eq!(label.class, "android.widget.TextView");
    assert!(!label.clickable);
    let tap = node(&t, t.interactive_ancestor(label.id));
    assert_ne!(tap.id, label.id);
    assert!(tap.clickable);
    assert_eq!(tap.class, "android.view.View");
    let b = tap.bounds.expect("bounds");
    assert_eq!((b.left, b.top, b.right, b.bottom), (548, 2179, 714, 2349));
    assert_eq!(b.center(), (631, 2264));

    // Reader drawer: "Open PDF" resolves by content description on the icon child.
    let t = tree("compose-reader-library.xml");
    let (tier, ids) = t.resolve_query_tier("Open PDF").expect("found");
    assert_eq!(tier, MatchTier::ContentDescription);
    let tap = node(&t, t.interactive_ancestor(ids[0]));
    assert!(tap.clickable && tap.focusable);
    assert_eq!(tap.bounds.map(|b| b.center()), Some((614, 556)));
    // An already-clickable node is its own tap target.
    assert_eq!(t.interactive_ancestor(tap.id), tap.id);
    // The text field's placeholder child resolves to the field.
    let hint = t.resolve_query("Novel URL");
    assert!(node(&t, t.interactive_ancestor(hint[0])).is_editable());
}

#[test]
fn query_resolution_order() {
    let t = tree("compose-reader-library.xml");
    let tier = |q: &str| t.resolve_query_tier(q).map(|(tier, _)| tier);
    // "Add" is both a description (icon) and a text: description wins.
    assert_eq!(tier("Add"), Some(MatchTier::ContentDescription));
    assert_eq!(tier("Library"), Some(MatchTier::Text));
    assert_eq!(
        tier("open pdf"),
        Some(MatchTier::ContentDescriptionIgnoreCase)
    );
    assert_eq!(tier("library"), Some(MatchTier::TextIgnoreCase));
    assert_eq!(
        tier("navigation"),
        Some(MatchTier::ContentDescriptionContains)
    );
    assert_eq!(tier("Chapter"), Some(MatchTier::TextContains));
    assert_eq!(tier("no such thing"), None);
    assert!(t.resolve_query("  ").is_empty());

    let t = tree("rn-openweather-bare-ids.xml");
    let (tier, ids) = t.resolve_query_tier("daily").expect("testID");
    assert_eq!(tier, MatchTier::TestTag);
    assert_eq!(node(&t, ids[0]).resource_id, "daily");
    // The real text ends in a no-break space; agents type plain text.
    assert_eq!(t.resolve_query("Wind: 16.1mph ENE").len(), 1);
}

#[test]
fn selector_by_each_field() {
    let t = tree("views-system-anr-dialog.xml");
    let wait = one(&t, json!({"text": "Wait"}));
    assert_eq!(wait.resource_id, "android:id/aerr_wait");
    let by_id = one(
        &t,
        json!({"nodeId": wait.id.to_string(), "revision": t.revision()}),
    );
    assert_eq!(by_id.id, wait.id);
    assert_eq!(one(&t, json!({"viewId": "aerr_wait"})).id, wait.id);
    assert_eq!(
        one(&t, json!({"viewId": "android:id/aerr_wait"})).id,
        wait.id
    );
    assert!(
        one(&t, json!({"textContains": "ISN'T RESPOND"}))
            .text
            .starts_with("Process")
    );
    assert_eq!(
        find(&t, json!({"className": "android.widget.Button"})).len(),
        2
    );
    assert_eq!(find(&t, json!({"className": "Button"})).len(), 2);
    assert_eq!(find(&t, json!({"role": "button"})).len(), 2);
    assert_eq!(find(&t, json!({"text": "wait"})).len(), 0, "text is exact");

    let t = tree("views-aena-welcome-recyclerview.xml");
    assert_eq!(
        one(&t, json!({"contentDescription": "Next page"})).text,
        "NEXT"
    );

    let t = tree("rn-openweather-bare-ids.xml");
    let tagged = one(&t, json!({"testTag": "precipitation-summary"}));
    assert_eq!(tagged.class, "android.view.ViewGroup");

    let t = tree("views-gms-webview-dialog.xml");
    let both = find(
        &t,
        json!({"packageName": "com.google.android.gms", "role": "button"}),
    );
    assert_eq!(both.len(), 2);
    assert_eq!(
        find(&t, json!({"packageName": "com.other", "role": "button"})).len(),
        0
    );

    let t = tree("rn-wdio-login-edittext.xml");
    assert_eq!(find(&t, json!({"role": "input"})).len(), 2);
    assert!(one(&t, json!({"role": "textfield", "index": 1})).password);

    // Compose theme/language chips: six are checked on this capture.
    let t = tree("compose-music-settings.xml");
    let checked = find(&t, json!({"role": "checkbox", "state": {"checked": true}}));
    assert_eq!(checked.len(), 6);
    assert!(checked.iter().all(|&id| node(&t, id).checked));
    let unchecked = find(
        &t,
        json!({"role": "checkbox", "state": {"checked": false, "clickable": true}}),
    );
    assert_eq!(unchecked.len(), 11);

    // Two "Arijit Singh" subtitles; ancestor + descendant pick the one on the Bhediya card.
    let t = tree("compose-music-home.xml");
    let s = one(
        &t,
        json!({"text": "Arijit Singh",
               "ancestor": {"role": "button",
                            "descendant": {"contentDescription": "Apna Bana Le (From \"Bhediya\")"}}}),
    );
    assert_eq!(s.bounds.map(|b| b.top), Some(1800));
    assert_eq!(s.bounds.map(|b| b.left), Some(783));

    // Compose: "the Add button" matches the label whose clickable parent is the button.
    let t = tree("compose-reader-library.xml");
    let add = one(&t, json!({"text": "Add", "role": "button"}));
    let tap = node(&t, t.interactive_ancestor(add.id));
    assert!(
        tap.clickable && !tap.enabled,
        "the real Add button is disabled"
    );
    let pdf = one(
        &t,
        json!({"role": "button", "descendant": {"text": "Open PDF"}}),
    );
    assert!(pdf.clickable);
}

#[test]
fn stale_revision_and_bad_node_ids_are_errors() {
    let old = tree("views-system-anr-dialog.xml");
    let new = tree("views-gms-webview-dialog.xml");
    let s = sel(json!({"nodeId": "n10", "revision": old.revision()}));
    let err = new.find(&s).expect_err("stale");
    assert!(matches!(err, SelectError::StaleRevision { .. }));
    let msg = err.to_string();
    assert!(msg.contains(old.revision()) && msg.contains(new.revision()));
    assert!(msg.contains("re-read the UI tree"));

    let err = old
        .find(&sel(json!({"nodeId": "n99999"})))
        .expect_err("no node");
    assert_eq!(err, SelectError::NoSuchNode("n99999".into()));
    let err = old
        .find(&sel(json!({"nodeId": "banana"})))
        .expect_err("garbage");
    assert!(matches!(err, SelectError::NoSuchNode(_)));
    assert_eq!(old.find(&sel(json!({"index": 0}))), Err(SelectError::Empty));
    let err = old
        .find(&sel(json!({"role": "button", "index": 5})))
        .expect_err("range");
    assert_eq!(err, SelectError::IndexOutOfRange { index: 5, count: 2 });
}

#[test]
fn off_screen_nodes_are_found_only_by_id() {
    // The aena capture's navigation bar background has bounds [0,0][0,0].
    let t = tree("views-aena-welcome-recyclerview.xml");
    assert!(find(&t, json!({"viewId": "navigationBarBackground"})).is_empty());
    let id = t
        .nodes()
        .iter()
        .find(|n| n.resource_id == "android:id/navigationBarBackground")
        .expect("present in dump")
        .id;
    assert_eq!(find(&t, json!({"nodeId": id.to_string()})), vec![id]);
}

#[test]
fn closest_names_what_is_on_screen_when_nothing_matches() {
    let t = tree("rn-wdio-login-edittext.xml");
    let s = sel(json!({"text": "Sign in"}));
    assert!(t.find(&s).expect("find").is_empty());
    let near = t.closest(&s, 3);
    assert_eq!(node(&t, near[0]).text, "Sign up");
    let err = t.resolve(&s).expect_err("not found");
    let SelectError::NotFound { closest } = &err else {
        panic!("{err:?}");
    };
    assert_eq!(closest.len(), 5);
    assert!(err.to_string().contains("\"Sign up\""), "{err}");

    let t = tree("compose-music-player.xml");
    let near = t.closest(&sel(json!({"contentDescription": "Settings"})), 2);
    let descs: Vec<&str> = near
        .iter()
        .map(|&id| node(&t, id).content_desc.as_str())
        .collect();
    assert_eq!(descs, ["App Settings", "V4A Settings"]);
    // A selector with no strings in it has nothing to be close to.
    assert!(t.closest(&sel(json!({"role": "switch"})), 3).is_empty());
}

#[test]
fn ambiguity_says_how_many_and_what_narrows_it() {
    let t = tree("compose-music-home.xml");
    let s = sel(json!({"text": "Arijit Singh"}));
    let err = t.resolve(&s).expect_err("two subtitles");
    let SelectError::Ambiguous {
        count,
        candidates,
        narrow_by,
    } = &err
    else {
        panic!("{err:?}");
    };
    assert_eq!(*count, 2);
    assert_eq!(candidates.len(), 2);
    // Same text, class and role; only the card they sit on tells them apart.
    assert!(narrow_by.contains(&"ancestor".to_string()), "{narrow_by:?}");
    assert!(!narrow_by.contains(&"text".to_string()));
    assert_eq!(narrow_by.last().map(String::as_str), Some("index (0-1)"));
    assert!(err.to_string().starts_with("2 elements match"));
    let second = t
        .resolve(&sel(json!({"text": "Arijit Singh", "index": 1})))
        .expect("index picks");
    assert_eq!(node(&t, second).bounds.map(|b| b.left), Some(783));
}

#[test]
fn selector_json_is_strict_camel_case_with_a_schema() {
    let err = serde_json::from_value::<Selector>(json!({"content_description": "x"}));
    assert!(err.is_err(), "snake_case is an unknown field");
    let err = serde_json::from_value::<Selector>(json!({"text": "x", "bogus": 1}));
    assert!(err.is_err());
    let err = serde_json::from_value::<Selector>(json!({"state": {"pressed": true}}));
    assert!(err.is_err());
    let schema = serde_json::to_string(&schemars::schema_for!(Selector)).expect("schema");
    for field in [
        "nodeId",
        "testTag",
        "contentDescription",
        "viewId",
        "className",
        "ancestor",
    ] {
        assert!(schema.contains(field), "{field} in schema");
    }
}
