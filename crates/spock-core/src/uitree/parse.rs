//! `uiautomator` XML → [`UiTree`].
//!
//! Real dumps are messier than the format suggests: `uiautomator dump /dev/tty` appends
//! `UI hierchary dumped to: /dev/tty` (sic), shells prepend warnings, newer Android versions add
//! `drawing-order`, `hint`, `display-id`, `visible-to-user`, older ones lack `selected` or
//! `long-clickable`, and multi-window captures hold several `<hierarchy>` roots. All of that is
//! accepted; only XML that is genuinely broken is an error, with the line and column where it
//! breaks in the text as received.

use sha2::{Digest, Sha256};

use super::{Node, NodeId, Rect, UiTree, UiTreeError, framework};

/// Wraps the document so several `<hierarchy>` roots form one well-formed document.
const WRAP_OPEN: &str = "<spock-dump>";
const WRAP_CLOSE: &str = "</spock-dump>";

/// Parses a `uiautomator dump` (or `dumpWindowHierarchy`) output.
pub fn parse(xml: &str) -> Result<UiTree, UiTreeError> {
    let prepared = prepare(xml)?;
    let doc = roxmltree::Document::parse(&prepared).map_err(|e| {
        let pos = e.pos();
        // The wrapper sits on line 1 only, and every other character was kept or swapped for
        // exactly one space, so rows and columns map straight back to the caller's text.
        let column = if pos.row == 1 {
            pos.col
                .saturating_sub(WRAP_OPEN.chars().count() as u32)
                .max(1)
        } else {
            pos.col
        };
        // roxmltree's message embeds the position in the wrapped text; say ours instead.
        let message = e
            .to_string()
            .replace(&pos.to_string(), &format!("{}:{column}", pos.row));
        UiTreeError::Malformed {
            line: pos.row,
            column,
            message,
        }
    })?;

    let mut nodes: Vec<Node> = Vec::new();
    let mut roots = Vec::new();
    // Explicit stack instead of recursion: a hostile or buggy dump can nest arbitrarily deep.
    let mut stack: Vec<(roxmltree::Node, Option<NodeId>, u32)> = doc
        .root_element()
        .children()
        .filter(|c| c.is_element())
        .map(|c| (c, None, 0))
        .collect();
    stack.reverse();
    let mut window = 0u32;
    while let Some((el, parent, depth)) = stack.pop() {
        let is_node = el.has_tag_name("node");
        let (this_parent, child_depth) = if is_node {
            let id = NodeId(nodes.len() as u32);
            if parent.is_none() {
                window = roots.len() as u32;
                roots.push(id);
            }
            nodes.push(node_from(el, id, parent, depth, window));
            if let Some(p) = parent.and_then(|p| nodes.get_mut(p.index())) {
                p.children.push(id);
            }
            (Some(id), depth + 1)
        } else {
            // `<hierarchy>`, `<window>`, `<display>` and the like: transparent.
            (parent, depth)
        };
        let mut kids: Vec<_> = el
            .children()
            .filter(|c| c.is_element())
            .map(|c| (c, this_parent, child_depth))
            .collect();
        kids.reverse();
        stack.extend(kids);
    }

    framework::mark_compose(&mut nodes);
    let framework = framework::detect(&nodes);
    let digest = Sha256::digest(xml.as_bytes());
    let revision: String = digest.iter().take(6).map(|b| format!("{b:02x}")).collect();
    Ok(UiTree {
        nodes,
        roots,
        revision,
        framework,
        raw_len: xml.len(),
    })
}

/// Blanks everything that is not the XML (leading shell noise, the trailing "dumped to" line,
/// every `<?xml …?>` declaration) and wraps the rest in one root element. Blanking replaces
/// each character by one space and keeps newlines, so error positions stay true.
fn prepare(xml: &str) -> Result<String, UiTreeError> {
    let start = ["<?xml", "<hierarchy", "<node"]
        .iter()
        .filter_map(|m| xml.find(m))
        .min()
        .or_else(|| xml.find('<'));
    let end = xml.rfind('>').map(|e| e + 1);
    let (Some(start), Some(end)) = (start, end) else {
        return Err(UiTreeError::NotXml {
            snippet: xml.trim().chars().take(200).collect(),
        });
    };
    if end <= start {
        return Err(UiTreeError::NotXml {
            snippet: xml.trim().chars().take(200).collect(),
        });
    }
    let mut blank_ranges: Vec<(usize, usize)> = vec![(0, start), (end, xml.len())];
    let mut from = start;
    while let Some(rel) = xml.get(from..end).and_then(|s| s.find("<?xml")) {
        let decl_start = from + rel;
        let decl_end = xml
            .get(decl_start..end)
            .and_then(|s| s.find("?>"))
            .map_or(end, |e| decl_start + e + 2);
        blank_ranges.push((decl_start, decl_end));
        from = decl_end;
    }

    let mut out = String::with_capacity(xml.len() + WRAP_OPEN.len() + WRAP_CLOSE.len());
    out.push_str(WRAP_OPEN);
    for (i, ch) in xml.char_indices() {
        let blank = blank_ranges.iter().any(|&(a, b)| i >= a && i < b);
        if blank && ch != '\n' {
            out.push(' ');
        } else {
            out.push(ch);
        }
    }
    out.push_str(WRAP_CLOSE);
    Ok(out)
}

fn node_from(
    el: roxmltree::Node,
    id: NodeId,
    parent: Option<NodeId>,
    depth: u32,
    window: u32,
) -> Node {
    let s = |name: &str| el.attribute(name).unwrap_or_default().to_string();
    let flag = |name: &str, default: bool| match el.attribute(name) {
        Some(v) => v.trim().eq_ignore_ascii_case("true"),
        None => default,
    };
    let num = |name: &str| el.attribute(name).and_then(|v| v.trim().parse().ok());
    Node {
        id,
        parent,
        children: Vec::new(),
        depth,
        window,
        index: num("index").unwrap_or(0),
        class: s("class"),
        package: s("package"),
        text: s("text"),
        resource_id: s("resource-id"),
        content_desc: s("content-desc"),
        hint: s("hint"),
        bounds: el.attribute("bounds").and_then(Rect::parse),
        checkable: flag("checkable", false),
        checked: flag("checked", false),
        clickable: flag("clickable", false),
        long_clickable: flag("long-clickable", false),
        enabled: flag("enabled", true),
        focusable: flag("focusable", false),
        focused: flag("focused", false),
        scrollable: flag("scrollable", false),
        selected: flag("selected", false),
        password: flag("password", false),
        visible_to_user: flag("visible-to-user", true),
        display_id: num("display-id"),
        drawing_order: num("drawing-order"),
        in_compose: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::uitree::fixtures::{all_fixtures, fixture};

    #[test]
    fn every_fixture_parses_with_nodes_and_bounds() {
        for (name, xml) in all_fixtures() {
            let tree = parse(&xml).unwrap_or_else(|e| panic!("{name}: {e}"));
            let expected = xml.matches("<node ").count();
            assert_eq!(tree.len(), expected, "{name}: node count");
            assert_eq!(tree.roots().len(), 1, "{name}: one window");
            assert!(
                tree.nodes().iter().all(|n| n.bounds.is_some()),
                "{name}: every node has bounds"
            );
        }
    }

    #[test]
    fn attributes_and_entities_are_decoded() {
        let tree = parse(&fixture("rn-wdio-login-edittext.xml")).expect("parses");
        let pw = tree
            .nodes()
            .iter()
            .find(|n| n.content_desc == "input-password")
            .expect("password field");
        assert!(pw.password && pw.clickable && pw.long_clickable && pw.is_editable());
        assert_eq!(pw.resource_id, "RNE__Input__text-input");
        assert_eq!(pw.drawing_order, Some(2));
        // `&#983536;` is U+F01F0, an icon-font glyph outside the BMP.
        assert!(tree.nodes().iter().any(|n| n.text == "\u{F01F0}"));

        let tree = parse(&fixture("rn-openweather-bare-ids.xml")).expect("parses");
        assert!(
            tree.nodes()
                .iter()
                .any(|n| n.text == "Wind: 16.1mph ENE\u{a0}")
        );
        let tree = parse(&fixture("views-settings-homepage.xml")).expect("parses");
        assert!(tree.nodes().iter().any(|n| n.text == "Network & internet"));
    }

    #[test]
    fn structure_parent_children_and_index_path() {
        let tree = parse(&fixture("views-system-anr-dialog.xml")).expect("parses");
        let wait = tree
            .nodes()
            .iter()
            .find(|n| n.resource_id == "android:id/aerr_wait")
            .expect("Wait button");
        assert_eq!(
            wait.bounds,
            Some(Rect {
                left: 70,
                top: 1347,
                right: 1010,
                bottom: 1473
            })
        );
        assert_eq!(wait.bounds.map(|b| b.center()), Some((540, 1410)));
        assert_eq!(tree.index_path(wait.id), "0/0/0/0/1/0/0/1");
        let parent = wait.parent.and_then(|p| tree.node(p)).expect("parent");
        assert_eq!(parent.children.len(), 2);
        assert_eq!(tree.descendants(parent.id).count(), 2);
        assert_eq!(wait.id.to_string(), format!("n{}", wait.id.0));
        assert_eq!(NodeId::parse(&wait.id.to_string()), Some(wait.id));
    }

    #[test]
    fn junk_lines_and_several_roots_are_tolerated() {
        let xml = fixture("views-system-anr-dialog.xml");
        let noisy =
            format!("WARNING: linker: unused DT entry\n{xml}\nUI hierchary dumped to: /dev/tty\n");
        let tree = parse(&noisy).expect("noisy dump parses");
        assert_eq!(tree.len(), parse(&xml).expect("clean").len());

        let two = format!("{xml}\n{}", fixture("views-gms-webview-dialog.xml"));
        let tree = parse(&two).expect("two hierarchies parse");
        assert_eq!(tree.roots().len(), 2);
        let second = tree.roots()[1];
        assert_eq!(tree.node(second).map(|n| n.window), Some(1));
        assert_eq!(
            tree.node(second).map(|n| n.package.as_str()),
            Some("com.google.android.gms")
        );
    }

    #[test]
    fn missing_attributes_take_android_defaults() {
        // Oldest dump shape: no long-clickable/selected/password/visible-to-user.
        let xml = r#"<?xml version="1.0"?><hierarchy rotation="0"><node index="0" text="OK"
            class="android.widget.Button" package="p" bounds="[0,0][10,10]"/></hierarchy>"#;
        let tree = parse(xml).expect("parses");
        let n = &tree.nodes()[0];
        assert!(n.enabled && n.visible_to_user && !n.clickable && !n.selected);
        assert_eq!(n.content_desc, "");
    }

    #[test]
    fn malformed_xml_reports_position_in_callers_text() {
        let at = |xml: &str| match parse(xml) {
            Err(UiTreeError::Malformed {
                line,
                column,
                message,
            }) => (line, column, message),
            other => panic!("expected a position, got {other:?}"),
        };
        // Junk line first; the attribute quote is never closed, so `<` at 3:27 is the error.
        let (line, column, _) = at("junk\n<hierarchy>\n  <node index=\"0\" text=\"a></hierarchy>");
        assert_eq!((line, column), (3, 27));
        // Line 1 carries the hidden wrapper; the column is still the caller's.
        let (line, column, message) = at("<hierarchy><node></hierarchy>");
        assert_eq!((line, column), (1, 18));
        assert!(message.contains("1:18"), "{message}");
        let (line, column, _) =
            at("<?xml version='1.0' ?><hierarchy>\n<node index=\"0\">\n  </nodes>\n</hierarchy>");
        assert_eq!((line, column), (3, 3));
        // Columns count characters, not bytes.
        let (line, column, _) =
            at("x\u{e9}\u{e9} <hierarchy><node text=\"\u{e9}\u{e9}\" <</hierarchy>");
        assert_eq!((line, column), (1, 32));
        let err = parse("<hierarchy><node a=\"1\" a=\"2\"/></hierarchy>").expect_err("dup attr");
        assert!(
            err.to_string()
                .contains("line 1, column 24: attribute 'a' at 1:24"),
            "{err}"
        );

        let err = parse("ERROR: null root node returned by UiTestAutomationBridge.")
            .expect_err("not xml");
        assert!(
            matches!(err, UiTreeError::NotXml { ref snippet } if snippet.starts_with("ERROR: null root"))
        );
    }

    #[test]
    fn revision_changes_with_the_dump() {
        let a = parse(&fixture("views-system-anr-dialog.xml")).expect("a");
        let a2 = parse(&fixture("views-system-anr-dialog.xml")).expect("a2");
        let b = parse(&fixture("views-gms-webview-dialog.xml")).expect("b");
        assert_eq!(a.revision(), a2.revision());
        assert_ne!(a.revision(), b.revision());
        assert_eq!(a.revision().len(), 12);
    }
}
