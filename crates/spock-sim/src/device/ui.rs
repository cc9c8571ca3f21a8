//! One screen's UI tree as the device holds it: the uiautomator XML text plus a flat index of
//! its nodes (bounds, flags, where each editable attribute sits in the text).
//!
//! The XML text is the source of truth so that `uiautomator dump` serves a scenario's file
//! byte for byte; edits (typed text, focus) splice the attribute values in place and re-index,
//! so nothing else in the file moves.
use std::ops::Range;

/// A node's bounds `[left,top][right,bottom]` in screen pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Bounds {
    pub left: i32,
    pub top: i32,
    pub right: i32,
    pub bottom: i32,
}

impl Bounds {
    pub fn parse(s: &str) -> Option<Bounds> {
        // "[0,0][1080,2400]"
        let s = s.strip_prefix('[')?.strip_suffix(']')?;
        let (a, b) = s.split_once("][")?;
        let (l, t) = a.split_once(',')?;
        let (r, bt) = b.split_once(',')?;
        Some(Bounds {
            left: l.trim().parse().ok()?,
            top: t.trim().parse().ok()?,
            right: r.trim().parse().ok()?,
            bottom: bt.trim().parse().ok()?,
        })
    }

    pub fn contains(&self, x: i32, y: i32) -> bool {
        x >= self.left && x < self.right && y >= self.top && y < self.bottom
    }

    pub fn center(&self) -> (i32, i32) {
        ((self.left + self.right) / 2, (self.top + self.bottom) / 2)
    }

    pub fn is_empty(&self) -> bool {
        self.right <= self.left || self.bottom <= self.top
    }
}

/// One `<node>` of a dump, flattened in document order.
#[derive(Debug, Clone, Default)]
pub struct UiNode {
    pub text: String,
    pub resource_id: String,
    pub class: String,
    pub package: String,
    pub content_desc: String,
    pub clickable: bool,
    pub long_clickable: bool,
    pub scrollable: bool,
    pub focusable: bool,
    pub focused: bool,
    pub password: bool,
    pub bounds: Bounds,
    pub depth: usize,
    pub parent: Option<usize>,
    text_range: Option<Range<usize>>,
    focused_range: Option<Range<usize>>,
}

impl UiNode {
    /// Text fields: classic EditText and Compose text fields (which uiautomator reports as
    /// `android.widget.EditText` too).
    pub fn is_editable(&self) -> bool {
        self.class.ends_with("EditText") || self.class.ends_with("AutoCompleteTextView")
    }
}

/// Why a dump is refused, with a 1-based position in the XML text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{line}:{column}: {message}")]
pub struct UiError {
    pub line: u32,
    pub column: u32,
    pub message: String,
}

#[derive(Debug, Clone)]
pub struct UiTree {
    xml: String,
    nodes: Vec<UiNode>,
}

/// `xml` as a document, or where it is malformed.
pub(crate) fn parse_doc(xml: &str) -> Result<roxmltree::Document<'_>, UiError> {
    roxmltree::Document::parse(xml).map_err(|e| {
        let pos = e.pos();
        UiError {
            line: pos.row,
            column: pos.col,
            message: format!("malformed XML: {e}"),
        }
    })
}

impl UiTree {
    pub fn parse(xml: &str) -> Result<UiTree, UiError> {
        let doc = parse_doc(xml)?;
        let root = doc.root_element();
        if root.tag_name().name() != "hierarchy" {
            let pos = doc.text_pos_at(root.range().start);
            return Err(UiError {
                line: pos.row,
                column: pos.col,
                message: format!(
                    "not a uiautomator dump: root element is <{}>, expected <hierarchy>",
                    root.tag_name().name()
                ),
            });
        }
        let mut nodes = Vec::new();
        collect(root, None, 0, &mut nodes);
        Ok(UiTree {
            xml: xml.to_string(),
            nodes,
        })
    }

    /// A screen with no nodes (a dump of an empty window).
    pub fn empty() -> UiTree {
        UiTree {
            xml: "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\" />".into(),
            nodes: Vec::new(),
        }
    }

    pub fn xml(&self) -> &str {
        &self.xml
    }

    pub fn nodes(&self) -> &[UiNode] {
        &self.nodes
    }

    pub fn node(&self, idx: usize) -> Option<&UiNode> {
        self.nodes.get(idx)
    }

    /// The deepest node whose bounds contain the point (later siblings win, as they draw on top).
    pub fn deepest_at(&self, x: i32, y: i32) -> Option<usize> {
        let mut best: Option<usize> = None;
        for (i, n) in self.nodes.iter().enumerate() {
            if n.bounds.contains(x, y) {
                match best {
                    Some(b) if self.nodes[b].depth > n.depth => {}
                    _ => best = Some(i),
                }
            }
        }
        best
    }

    /// Walks up from `idx` (inclusive) to the first node satisfying `pred`.
    pub fn ancestor_where(&self, idx: usize, pred: impl Fn(&UiNode) -> bool) -> Option<usize> {
        let mut cur = Some(idx);
        while let Some(i) = cur {
            let n = self.nodes.get(i)?;
            if pred(n) {
                return Some(i);
            }
            cur = n.parent;
        }
        None
    }

    /// Whether `idx` is `anc` or lies under it.
    pub fn is_within(&self, idx: usize, anc: usize) -> bool {
        let mut cur = Some(idx);
        while let Some(i) = cur {
            if i == anc {
                return true;
            }
            cur = self.nodes.get(i).and_then(|n| n.parent);
        }
        false
    }

    pub fn focused_editable(&self) -> Option<usize> {
        self.nodes.iter().position(|n| n.focused && n.is_editable())
    }

    /// Sets `focused` on `idx` and clears it elsewhere; other attributes keep their bytes.
    pub fn set_focus(&mut self, idx: usize) {
        let mut edits: Vec<(Range<usize>, String)> = Vec::new();
        for (i, n) in self.nodes.iter().enumerate() {
            let want = i == idx;
            if n.focused != want
                && let Some(r) = &n.focused_range
            {
                edits.push((r.clone(), want.to_string()));
            }
        }
        self.apply(edits);
    }

    /// Replaces the `text` attribute of node `idx`.
    pub fn set_text(&mut self, idx: usize, text: &str) {
        let Some(r) = self.nodes.get(idx).and_then(|n| n.text_range.clone()) else {
            return;
        };
        self.apply(vec![(r, escape_attr(text))]);
    }

    fn apply(&mut self, mut edits: Vec<(Range<usize>, String)>) {
        if edits.is_empty() {
            return;
        }
        // Later ranges first, so earlier offsets stay valid.
        edits.sort_by_key(|e| std::cmp::Reverse(e.0.start));
        let mut xml = self.xml.clone();
        for (r, v) in edits {
            if r.end <= xml.len() && xml.is_char_boundary(r.start) && xml.is_char_boundary(r.end) {
                xml.replace_range(r, &v);
            }
        }
        // The splice only changed attribute values we escaped, so this parse cannot fail; if it
        // somehow did, keep the previous tree rather than lose the screen.
        if let Ok(t) = UiTree::parse(&xml) {
            *self = t;
        }
    }
}

fn collect(node: roxmltree::Node, parent: Option<usize>, depth: usize, out: &mut Vec<UiNode>) {
    for child in node.children().filter(|c| c.is_element()) {
        if child.tag_name().name() != "node" {
            collect(child, parent, depth, out);
            continue;
        }
        let attr = |k: &str| child.attribute(k).unwrap_or("").to_string();
        let flag = |k: &str| child.attribute(k) == Some("true");
        let range_of = |k: &str| {
            child
                .attributes()
                .find(|a| a.name() == k)
                .map(|a| a.range_value())
        };
        let idx = out.len();
        out.push(UiNode {
            text: attr("text"),
            resource_id: attr("resource-id"),
            class: attr("class"),
            package: attr("package"),
            content_desc: attr("content-desc"),
            clickable: flag("clickable"),
            long_clickable: flag("long-clickable"),
            scrollable: flag("scrollable"),
            focusable: flag("focusable"),
            focused: flag("focused"),
            password: flag("password"),
            bounds: child
                .attribute("bounds")
                .and_then(Bounds::parse)
                .unwrap_or_default(),
            depth,
            parent,
            text_range: range_of("text"),
            focused_range: range_of("focused"),
        });
        collect(child, Some(idx), depth + 1, out);
    }
}

/// Escapes an attribute value the way uiautomator's XmlSerializer does.
pub fn escape_attr(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const XML: &str = "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\"><node index=\"0\" text=\"\" resource-id=\"\" class=\"android.widget.FrameLayout\" package=\"p\" content-desc=\"\" clickable=\"false\" focused=\"false\" bounds=\"[0,0][100,100]\"><node index=\"0\" text=\"\" resource-id=\"email\" class=\"android.widget.EditText\" package=\"p\" content-desc=\"\" clickable=\"true\" focused=\"false\" bounds=\"[0,0][100,50]\"/><node index=\"1\" text=\"Go\" resource-id=\"\" class=\"android.widget.TextView\" package=\"p\" content-desc=\"\" clickable=\"false\" focused=\"false\" bounds=\"[0,50][100,100]\"/></node></hierarchy>";

    #[test]
    fn hit_test_finds_deepest_and_edits_keep_other_bytes() {
        let mut t = UiTree::parse(XML).unwrap();
        assert_eq!(t.deepest_at(10, 60), Some(2));
        assert_eq!(t.ancestor_where(2, |n| n.clickable), None);
        assert_eq!(t.deepest_at(10, 10), Some(1));
        t.set_focus(1);
        t.set_text(1, "a&b");
        assert!(t.xml().contains("text=\"a&amp;b\" resource-id=\"email\""));
        assert_eq!(t.focused_editable(), Some(1));
        assert_eq!(t.node(1).unwrap().text, "a&b");
        assert_eq!(t.xml().len(), XML.len() + "a&amp;b".len() - 1);
    }

    #[test]
    fn refuses_non_hierarchy_root_with_position() {
        let e = UiTree::parse("<a>\n<b></a>").unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.message.contains("malformed XML"));
    }
}
