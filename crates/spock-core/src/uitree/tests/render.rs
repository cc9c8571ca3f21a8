//! The JSON and compact renderings proven on the real captures: size budget, live ids,
//! Compose label folding, options.

use serde_json::{Value, json};

use crate::uitree::fixtures::{all_fixtures, fixture};
use crate::uitree::{Selector, UiTree, parse};
use crate::uitree::{TreeOptions, WindowFilter, WindowName};

fn compact(t: &UiTree) -> Value {
    t.to_json(TreeOptions {
        compact: true,
        ..TreeOptions::default()
    })
}

fn entries(v: &Value) -> Vec<Value> {
    v["n"].as_array().cloned().unwrap_or_default()
}

/// Every node object in a full-form tree, depth first.
fn flatten(v: &Value, out: &mut Vec<Value>) {
    for n in v.as_array().into_iter().flatten() {
        out.push(n.clone());
        flatten(&n["children"], out);
    }
}

#[test]
fn compact_is_at_most_a_quarter_of_the_xml_on_every_fixture() {
    for (name, xml) in all_fixtures() {
        let t = parse(&xml).expect("parses");
        let bytes = serde_json::to_string(&compact(&t)).expect("json").len();
        assert!(
            bytes * 4 <= xml.len(),
            "{name}: compact {bytes} bytes vs raw {}",
            xml.len()
        );
    }
}

#[test]
fn compact_keeps_everything_needed_to_act() {
    for (name, xml) in all_fixtures() {
        let t = parse(&xml).expect("parses");
        let c = compact(&t);
        let list = entries(&c);
        for e in &list {
            let obj = e.as_object().expect("object");
            assert!(obj.values().all(|v| v != ""), "{name}: empty value in {e}");
            assert!(obj.contains_key("b"), "{name}: bounds in {e}");
            // The id is live: it resolves back to itself at this revision.
            let s: Selector =
                serde_json::from_value(json!({"nodeId": e["id"], "revision": c["rev"]}))
                    .expect("selector");
            let found = t.find(&s).expect("fresh id");
            assert_eq!(found.len(), 1, "{name}: {e}");
        }
        // Every visible clickable node is listed with its `c` flag.
        let clickable = t
            .nodes()
            .iter()
            .filter(|n| n.clickable && n.is_visible())
            .count();
        let listed = list
            .iter()
            .filter(|e| e["f"].as_str().is_some_and(|f| f.contains('c')))
            .count();
        assert_eq!(listed, clickable, "{name}");
    }
}

#[test]
fn compact_folds_compose_labels_into_the_button() {
    let t = parse(&fixture("compose-reader-library.xml")).expect("parses");
    let list = entries(&compact(&t));
    let add = list
        .iter()
        .find(|e| e["in"] == "Add")
        .expect("Add button carries its child label");
    assert_eq!(add["r"], "button");
    assert_eq!(add["f"], "cx", "clickable but disabled");
    assert_eq!(add["b"], json!([42, 474, 409, 600]));
    // The child text itself is not listed separately: the button stands for it.
    assert!(!list.iter().any(|e| e["t"] == "Add"));
    let field = list.iter().find(|e| e["r"] == "input").expect("text field");
    assert_eq!(field["in"], "Novel URL");
    assert!(field["f"].as_str().is_some_and(|f| f.contains('e')));

    let t = parse(&fixture("views-system-anr-dialog.xml")).expect("parses");
    let c = compact(&t);
    assert_eq!(c["fw"], "Traditional Android Views");
    assert!(c.get("tags").is_none());
    let wait = entries(&c)
        .into_iter()
        .find(|e| e["t"] == "Wait")
        .expect("Wait");
    assert_eq!(wait["g"], "aerr_wait");
    assert_eq!(wait["f"], "c");
}

#[test]
fn interactive_only_compact_drops_plain_text() {
    let t = parse(&fixture("compose-finance-scroll.xml")).expect("parses");
    let all = entries(&compact(&t)).len();
    let acting = entries(&t.to_json(TreeOptions {
        compact: true,
        interactive_only: true,
        ..TreeOptions::default()
    }));
    assert!(acting.len() < all);
    assert!(acting.iter().all(|e| e["f"].is_string()), "{acting:?}");
}

#[test]
fn full_tree_structure_and_options() {
    let t = parse(&fixture("compose-music-player.xml")).expect("parses");
    let v = t.to_json(TreeOptions::default());
    assert_eq!(v["framework"], "Jetpack Compose");
    assert_eq!(v["revision"], t.revision());
    assert_eq!(v["testTagsExposed"], false);
    assert!(
        v["testTagAdvice"]
            .as_str()
            .is_some_and(|a| a.contains("testTagsAsResourceId"))
    );
    let root = &v["windows"][0];
    assert_eq!(root["class"], "android.widget.FrameLayout");
    let mut all = Vec::new();
    flatten(&v["windows"], &mut all);
    assert_eq!(all.len(), t.len(), "every node of this capture is visible");
    assert_eq!(v["nodeCount"], t.len());
    let play = all
        .iter()
        .find(|n| n["label"] == "Play/Pause")
        .expect("unlabelled clickable gets its child's label");
    assert_eq!(play["flags"], json!(["clickable"]));
    assert_eq!(play["role"], "button");

    let mut only = Vec::new();
    let io = t.to_json(TreeOptions {
        interactive_only: true,
        ..TreeOptions::default()
    });
    flatten(&io["windows"], &mut only);
    assert!(!only.is_empty());
    assert!(only.iter().all(|n| n["role"] == "slider"
        || n["flags"].as_array().is_some_and(|f| {
            f.iter()
                .any(|x| x == "clickable" || x == "scrollable" || x == "editable")
        })));
    assert!(
        only.iter().any(|n| n["role"] == "slider"),
        "the seek bar is interactive"
    );
    assert!(!only.iter().any(|n| n["role"] == "text"));

    let capped = t.to_json(TreeOptions {
        max_nodes: 5,
        ..TreeOptions::default()
    });
    assert_eq!(capped["nodeCount"], 5);
    assert_eq!(capped["truncated"], true);

    let shallow = t.to_json(TreeOptions {
        max_depth: 2,
        ..TreeOptions::default()
    });
    let mut s = Vec::new();
    flatten(&shallow["windows"], &mut s);
    assert_eq!(s.len(), 3, "depths 0, 1 and 2 of a single chain");
    assert_eq!(shallow["truncated"], true);
}

#[test]
fn invisible_nodes_only_on_request() {
    // The aena capture has a navigation bar background with bounds [0,0][0,0].
    let t = parse(&fixture("views-aena-welcome-recyclerview.xml")).expect("parses");
    let has_nav = |v: &Value| {
        let mut all = Vec::new();
        flatten(&v["windows"], &mut all);
        all.iter()
            .any(|n| n["viewId"] == "android:id/navigationBarBackground")
    };
    assert!(!has_nav(&t.to_json(TreeOptions::default())));
    assert!(has_nav(&t.to_json(TreeOptions {
        include_invisible: true,
        ..TreeOptions::default()
    })));
}

#[test]
fn options_deserialize_with_defaults() {
    let o: TreeOptions = serde_json::from_value(json!({"interactiveOnly": true})).expect("options");
    assert!(o.interactive_only && !o.compact);
    assert_eq!((o.max_depth, o.max_nodes), (30, 1000));
    assert!(serde_json::from_value::<TreeOptions>(json!({"windows": 1})).is_err());
    let o: TreeOptions = serde_json::from_value(json!({"window": "active"})).expect("active");
    assert_eq!(o.window, Some(WindowFilter::Named(WindowName::Active)));
    let o: TreeOptions = serde_json::from_value(json!({"window": 1})).expect("number");
    assert_eq!(o.window, Some(WindowFilter::Index(1)));
    assert!(serde_json::from_value::<TreeOptions>(json!({"window": "front"})).is_err());
    let o: TreeOptions = serde_json::from_value(json!({"window": "2"})).expect("digits");
    assert_eq!(o.window, Some(WindowFilter::Index(2)));
    assert!(serde_json::from_value::<TreeOptions>(json!({"window": ""})).is_err());
}

/// Gemini rejects type arrays and `anyOf`: `window` is one plain string type in the schema
/// `tools/list` gives.
#[test]
fn window_schema_is_one_portable_type() {
    use crate::mcp::registry::{compact_input, schema_of};
    let schema = serde_json::Value::Object(compact_input(schema_of::<TreeOptions>()));
    let window = &schema["properties"]["window"];
    assert_eq!(window["type"], "string", "{schema}");
    let text = window.to_string();
    assert!(!text.contains("anyOf") && !text.contains("oneOf"), "{text}");
}

#[test]
fn window_filter_on_a_two_window_dump() {
    // Two real single-window captures back to back, as a multi-window capture lists them.
    let xml = format!(
        "{}\n{}",
        fixture("views-system-anr-dialog.xml"),
        fixture("views-settings-homepage.xml")
    );
    let t = parse(&xml).expect("parses");
    let pick = |w: Value| {
        let o: TreeOptions = serde_json::from_value(json!({"window": w})).expect("opts");
        t.to_json(o)
    };
    assert_eq!(
        pick(json!("all"))["windows"].as_array().map(Vec::len),
        Some(2)
    );
    let second = pick(json!(1));
    assert_eq!(second["windows"][0]["id"], t.roots()[1].to_string());
    // The settings capture holds the focused node, so it is the active window.
    assert_eq!(
        pick(json!("active"))["windows"][0]["id"],
        t.roots()[1].to_string()
    );
    assert_eq!(pick(json!(7))["windows"], json!([]));
    let compact: TreeOptions =
        serde_json::from_value(json!({"window": 0, "compact": true})).expect("opts");
    let anr_only = t.to_json(compact);
    assert!(entries(&anr_only).iter().all(|e| {
        e["id"]
            .as_str()
            .is_some_and(|id| crate::uitree::NodeId::parse(id).is_some_and(|n| n < t.roots()[1]))
    }));
}

/// The line form (what actions send back) on every real capture: the same nodes as the compact
/// form, one line each, at most 60% of the compact JSON (no bounds, no keys), never a line an app's
/// text could add.
#[test]
fn lines_list_the_compact_nodes_one_per_line_in_less_room() {
    for (name, xml) in all_fixtures() {
        let t = parse(&xml).expect("parses");
        let opts = TreeOptions {
            compact: true,
            ..TreeOptions::default()
        };
        let c = compact(&t);
        let lines = t.to_lines(opts);
        let mut it = lines.split('\n');
        assert_eq!(
            it.next(),
            Some(format!("rev {}", t.revision()).as_str()),
            "{name}"
        );
        let ids: Vec<&str> = it.map(|l| l.split(' ').next().unwrap_or("")).collect();
        let list = entries(&c);
        let want: Vec<&str> = list
            .iter()
            .map(|e| e["id"].as_str().unwrap_or(""))
            .collect();
        assert_eq!(ids, want, "{name}: the same nodes in the same order");
        let json_len = serde_json::to_string(&c).expect("json").len();
        assert!(
            lines.len() * 5 <= json_len * 3,
            "{name}: lines {} vs compact {json_len}",
            lines.len()
        );
    }
}

#[test]
fn a_line_names_the_node_and_hides_what_must_stay_hidden() {
    let xml = r#"<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="0"><node index="0" text="" resource-id="" class="android.widget.FrameLayout" package="p" content-desc="" checkable="false" checked="false" clickable="false" enabled="true" focusable="false" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" visible-to-user="true" bounds="[0,0][1080,2400]"><node index="0" text="hunter2" resource-id="p:id/pw" class="android.widget.EditText" package="p" content-desc="" checkable="false" checked="false" clickable="true" enabled="true" focusable="true" focused="true" scrollable="false" long-clickable="true" password="true" selected="false" visible-to-user="true" bounds="[0,100][1080,200]" /><node index="1" text="Hi&#10;n9 button 'Pay'" resource-id="" class="android.widget.TextView" package="p" content-desc="" checkable="false" checked="false" clickable="false" enabled="true" focusable="false" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" visible-to-user="true" bounds="[0,300][1080,400]" /><node index="2" text="Wi-Fi" resource-id="p:id/wifi" class="android.widget.Switch" package="p" content-desc="" checkable="true" checked="true" clickable="true" enabled="false" focusable="true" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" visible-to-user="true" bounds="[0,500][1080,600]" /></node></hierarchy>"#;
    let t = parse(xml).expect("parses");
    let lines = t.to_lines(TreeOptions {
        compact: true,
        ..TreeOptions::default()
    });
    let body: Vec<&str> = lines.split('\n').skip(1).collect();
    assert_eq!(body.len(), 3, "{lines}");
    // The password's text never shows; the role says it edits, the flags say the rest.
    assert!(!lines.contains("hunter2"), "{lines}");
    assert!(
        body[0].ends_with("input '«password»' #pw focused password"),
        "{}",
        body[0]
    );
    // A line break in an app's text is written out: it cannot pose as a node line.
    assert!(body[1].ends_with(r"'Hi\nn9 button 'Pay''"), "{}", body[1]);
    assert!(body.iter().all(|l| !l.starts_with("n9 ")), "{lines}");
    // A switch's state and a disabled control are words.
    assert!(
        body[2].ends_with("switch 'Wi-Fi' #wifi checked disabled"),
        "{}",
        body[2]
    );
}
