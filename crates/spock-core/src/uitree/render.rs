//! The tree as agents receive it: a nested JSON structure, or a compact flat list.
//!
//! Raw uiautomator XML spends most of its bytes on `false` flags and layout nesting, which
//! costs an agent context and attention. The full form keeps the structure but drops empty
//! attributes; the compact form keeps only what can be read or acted on, with short keys, and
//! folds a Compose button's child labels into the button (`in`), so the id an agent picks is
//! the one to tap. Both carry the revision, so node ids can be checked for staleness later.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::{Node, NodeId, Role, UiTree};

/// Options of `android_get_ui_tree`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct TreeOptions {
    /// Only nodes that can be tapped, typed into, toggled or scrolled.
    pub interactive_only: bool,
    /// Deepest level shown, counted from the window root.
    pub max_depth: usize,
    /// Most nodes shown; the result says when it was cut.
    pub max_nodes: usize,
    /// Also nodes the device reports as not visible to the user.
    pub include_invisible: bool,
    /// Flat list with short keys: the cheapest form to read.
    pub compact: bool,
    /// Which window of a multi-window dump: `"active"`, `"all"` (default) or its number.
    pub window: Option<WindowFilter>,
}

/// A window number or a name. Its schema is one plain string (`"active"`, `"all"` or digits),
/// not a type array: some clients (Gemini's) reject `["integer","string"]` and `anyOf`. A JSON
/// number is still accepted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WindowFilter {
    Index(u32),
    Named(WindowName),
}

impl JsonSchema for WindowFilter {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "WindowFilter".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "string",
            "pattern": "^(active|all|[0-9]+)$",
            "description": "\"all\" (default), \"active\" (the window holding input focus), or a window number such as \"1\"."
        })
    }
}

impl<'de> Deserialize<'de> for WindowFilter {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Number(u32),
            Text(String),
        }
        let bad = |s: &str| {
            serde::de::Error::custom(format!(
                "window {s:?}: use \"active\", \"all\" or a window number"
            ))
        };
        match Raw::deserialize(d)? {
            Raw::Number(n) => Ok(WindowFilter::Index(n)),
            Raw::Text(s) => match s.as_str() {
                "active" => Ok(WindowFilter::Named(WindowName::Active)),
                "all" => Ok(WindowFilter::Named(WindowName::All)),
                digits if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) => {
                    digits.parse().map(WindowFilter::Index).map_err(|_| bad(&s))
                }
                _ => Err(bad(&s)),
            },
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum WindowName {
    /// The window holding input focus, else the first one.
    Active,
    All,
}

impl Default for TreeOptions {
    fn default() -> Self {
        TreeOptions {
            interactive_only: false,
            max_depth: 30,
            max_nodes: 1000,
            include_invisible: false,
            compact: false,
            window: None,
        }
    }
}

/// Recursion in the full form is bounded by this whatever the caller asks for.
const DEPTH_CAP: usize = 200;
/// Longest folded-in label list in the compact form.
const ABSORBED_CAP: usize = 160;
const COMPACT_LEGEND: &str = "c=click l=long-click e=edit s=scroll k=checkable v=checked S=selected F=focused x=disabled p=password";

impl UiTree {
    /// The window roots a filter selects (empty for a window number the dump does not have).
    pub fn window_roots(&self, filter: Option<WindowFilter>) -> Vec<NodeId> {
        match filter {
            None | Some(WindowFilter::Named(WindowName::All)) => self.roots().to_vec(),
            Some(WindowFilter::Index(i)) => {
                self.roots().get(i as usize).copied().into_iter().collect()
            }
            Some(WindowFilter::Named(WindowName::Active)) => {
                let focused = self.nodes().iter().find(|n| n.focused).map(|n| n.window);
                let w = focused.unwrap_or(0) as usize;
                self.roots().get(w).copied().into_iter().collect()
            }
        }
    }

    pub fn to_json(&self, opts: TreeOptions) -> Value {
        if opts.compact {
            return self.to_compact(opts);
        }
        let mut st = Walk {
            tree: self,
            opts,
            emitted: 0,
            truncated: false,
        };
        let windows: Vec<Value> = self
            .window_roots(opts.window)
            .into_iter()
            .flat_map(|r| st.emit(r))
            .collect();
        let mut out = json!({
            "revision": self.revision(),
            "framework": self.framework(),
            "testTagsExposed": self.test_tags_exposed(),
            "nodeCount": st.emitted,
            "truncated": st.truncated,
            "windows": windows,
        });
        if let (Some(advice), Some(obj)) = (self.test_tag_advice(), out.as_object_mut()) {
            obj.insert("testTagAdvice".into(), advice.into());
        }
        out
    }

    /// The nodes the compact forms show, in dump order, and whether the list was cut.
    fn compact_selection(&self, opts: TreeOptions) -> (Vec<&Node>, bool) {
        let mut list = Vec::new();
        let mut truncated = false;
        let windows: Vec<u32> = self
            .window_roots(opts.window)
            .into_iter()
            .filter_map(|r| self.node(r).map(|n| n.window))
            .collect();
        for node in self.nodes() {
            if !windows.contains(&node.window) {
                continue;
            }
            if !opts.include_invisible && !node.is_visible() {
                continue;
            }
            if node.depth as usize > opts.max_depth.min(DEPTH_CAP) {
                truncated = true;
                continue;
            }
            let acts = node.is_actionable() || node.scrollable;
            let readable = node.own_label().is_some() || !node.hint.trim().is_empty();
            let absorbed = !acts && self.interactive_ancestor(node.id) != node.id;
            let shown = acts || (readable && !absorbed && !opts.interactive_only);
            if !shown {
                continue;
            }
            if list.len() >= opts.max_nodes {
                truncated = true;
                break;
            }
            list.push(node);
        }
        (list, truncated)
    }

    fn to_compact(&self, opts: TreeOptions) -> Value {
        let (nodes, truncated) = self.compact_selection(opts);
        let list: Vec<Value> = nodes.into_iter().map(|n| self.compact_node(n)).collect();
        let mut out = Map::new();
        out.insert("rev".into(), self.revision().into());
        out.insert("fw".into(), self.framework().to_string().into());
        if let Some(advice) = self.test_tag_advice() {
            out.insert("tags".into(), advice.into());
        }
        out.insert("f".into(), COMPACT_LEGEND.into());
        if truncated {
            out.insert("truncated".into(), true.into());
        }
        out.insert("n".into(), Value::Array(list));
        Value::Object(out)
    }

    /// The screen as lines, the form actions send back (`returnScreen`): `rev <revision>`, then
    /// one line per node the compact form shows ([`Self::node_line`]). No bounds: the element
    /// tools find an element by its name or id, and `android_get_ui_tree` has the bounds.
    pub fn to_lines(&self, opts: TreeOptions) -> String {
        let (nodes, truncated) = self.compact_selection(opts);
        let mut s = format!("rev {}", self.revision());
        if truncated {
            s.push_str(" (cut)");
        }
        for n in nodes {
            s.push('\n');
            s.push_str(&self.node_line(n));
        }
        s
    }

    /// One node as a line: `<id> [role] ['label'] [desc='…'] [in='…'] [hint='…'] [#tag] [flags]`.
    /// The first of text, content description and the labels a tap on it stands for is the
    /// bare `'label'`; the others are named. Flags are words (`checked`, `disabled`,
    /// `password`, …), leaving out what the role says (a button clicks, an input edits). A
    /// password field's text is never shown, and a line break in a label is written `\n`, so
    /// an app's text cannot pose as another line.
    pub fn node_line(&self, node: &Node) -> String {
        self.line(node, true)
    }

    /// [`Self::node_line`] without the labels a tap on the node stands for (`in`).
    pub fn node_line_short(&self, node: &Node) -> String {
        self.line(node, false)
    }

    fn line(&self, node: &Node, with_absorbed: bool) -> String {
        let role = node.role();
        let mut parts: Vec<String> = vec![node.id.to_string()];
        if !matches!(role, Role::Text | Role::Container) {
            parts.push(role.as_str().to_string());
        }
        let text = node.text.trim();
        let text = if node.password && !text.is_empty() {
            "«password»"
        } else {
            text
        };
        let absorbed = if with_absorbed && node.is_actionable() {
            self.absorbed_labels(node)
        } else {
            String::new()
        };
        let mut bare = true;
        for (name, v) in [
            ("", text),
            ("desc=", node.content_desc.trim()),
            ("in=", absorbed.as_str()),
        ] {
            if v.is_empty() {
                continue;
            }
            let key = if bare { "" } else { name };
            bare = false;
            parts.push(format!("{key}'{}'", one_line(v)));
        }
        let hint = node.hint.trim();
        if !hint.is_empty() && hint != text {
            parts.push(format!("hint='{}'", one_line(hint)));
        }
        if let Some(tag) = node.view_id_name().or(node.test_tag()) {
            parts.push(format!("#{}", one_line(tag)));
        }
        parts.extend(flag_words(node, role).map(str::to_string));
        parts.join(" ")
    }

    fn compact_node(&self, node: &Node) -> Value {
        let mut m = Map::new();
        m.insert("id".into(), node.id.to_string().into());
        let role = node.role();
        if !matches!(role, Role::Text | Role::Container) {
            m.insert("r".into(), role.as_str().into());
        }
        put(&mut m, "t", node.text.trim());
        put(&mut m, "d", node.content_desc.trim());
        put(&mut m, "h", node.hint.trim());
        put(
            &mut m,
            "g",
            node.view_id_name().or(node.test_tag()).unwrap_or_default(),
        );
        if node.is_actionable() {
            put(&mut m, "in", &self.absorbed_labels(node));
        }
        if let Some(b) = node.bounds {
            m.insert("b".into(), json!([b.left, b.top, b.right, b.bottom]));
        }
        put(&mut m, "f", &compact_flags(node));
        Value::Object(m)
    }

    /// Labels of descendants that a tap on `node` stands for (their nearest tappable ancestor
    /// is `node`), as TalkBack would read the merged element.
    pub fn absorbed_labels(&self, node: &Node) -> String {
        let own = node.own_label().unwrap_or_default();
        let mut seen: Vec<&str> = Vec::new();
        for d in self.descendants(node.id) {
            if d.is_actionable() || self.interactive_ancestor(d.id) != node.id {
                continue;
            }
            for l in [d.content_desc.trim(), d.text.trim()] {
                if !l.is_empty() && l != own && !seen.contains(&l) {
                    seen.push(l);
                }
            }
        }
        let mut s = seen.join(" | ");
        if s.len() > ABSORBED_CAP {
            let cut = (0..=ABSORBED_CAP)
                .rev()
                .find(|&i| s.is_char_boundary(i))
                .unwrap_or(0);
            s.truncate(cut);
            s.push('…');
        }
        s
    }
}

fn put(m: &mut Map<String, Value>, key: &str, v: &str) {
    if !v.is_empty() {
        m.insert(key.into(), v.into());
    }
}

/// A node's flags, each as `(set, compact letter, full-form name, line word)`: the one table
/// the three forms read.
fn node_flags(n: &Node) -> [(bool, char, &'static str, &'static str); 10] {
    [
        (n.clickable, 'c', "clickable", "click"),
        (n.long_clickable, 'l', "longClickable", "long-click"),
        (n.is_editable(), 'e', "editable", "edit"),
        (n.scrollable, 's', "scrollable", "scroll"),
        (n.checkable, 'k', "checkable", "checkable"),
        (n.checked, 'v', "checked", "checked"),
        (n.selected, 'S', "selected", "selected"),
        (n.focused, 'F', "focused", "focused"),
        (!n.enabled, 'x', "disabled", "disabled"),
        (n.password, 'p', "password", "password"),
    ]
}

/// The compact form's flags (legend `COMPACT_LEGEND`): `c` click, `e` edit, `x` disabled, …
pub fn compact_flags(n: &Node) -> String {
    node_flags(n)
        .into_iter()
        .filter(|f| f.0)
        .map(|f| f.1)
        .collect()
}

/// A label on one line: line breaks written `\n`, other control characters as spaces.
fn one_line(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// The line form's flags as words, without those the role already says.
fn flag_words(n: &Node, role: Role) -> impl Iterator<Item = &'static str> {
    let toggle = matches!(role, Role::Checkbox | Role::Switch | Role::Radio);
    let implied = move |letter: char| match letter {
        'c' => toggle || matches!(role, Role::Button | Role::Input),
        'l' | 'e' => role == Role::Input,
        's' => role == Role::List,
        'k' => toggle,
        _ => false,
    };
    node_flags(n)
        .into_iter()
        .filter(move |f| f.0 && !implied(f.1))
        .map(|f| f.3)
}

fn full_flags(n: &Node) -> Vec<&'static str> {
    node_flags(n)
        .into_iter()
        .filter(|f| f.0)
        .map(|f| f.2)
        .collect()
}

struct Walk<'a> {
    tree: &'a UiTree,
    opts: TreeOptions,
    emitted: usize,
    truncated: bool,
}

impl Walk<'_> {
    /// The JSON for `id`'s subtree: one object, or its children lifted into the parent when
    /// the node itself is filtered out (layout under `interactiveOnly`, zero-size wrappers).
    fn emit(&mut self, id: NodeId) -> Vec<Value> {
        let Some(node) = self.tree.node(id) else {
            return Vec::new();
        };
        if !self.opts.include_invisible && !node.visible_to_user {
            return Vec::new();
        }
        if node.depth as usize > self.opts.max_depth.min(DEPTH_CAP) {
            self.truncated = true;
            return Vec::new();
        }
        let shown = (self.opts.include_invisible || node.is_visible())
            && (!self.opts.interactive_only || node.is_actionable() || node.scrollable);
        if !shown {
            return node.children.iter().flat_map(|&c| self.emit(c)).collect();
        }
        if self.emitted >= self.opts.max_nodes {
            self.truncated = true;
            return Vec::new();
        }
        self.emitted += 1;
        let mut m = Map::new();
        m.insert("id".into(), node.id.to_string().into());
        m.insert("class".into(), node.class.clone().into());
        m.insert("role".into(), node.role().as_str().into());
        put(&mut m, "testTag", node.test_tag().unwrap_or_default());
        if node.test_tag().is_none() {
            put(&mut m, "viewId", &node.resource_id);
        }
        put(&mut m, "text", &node.text);
        put(&mut m, "desc", &node.content_desc);
        put(&mut m, "hint", &node.hint);
        if node.is_actionable() && node.own_label().is_none() {
            put(&mut m, "label", &self.tree.absorbed_labels(node));
        }
        if let Some(b) = node.bounds {
            m.insert("bounds".into(), json!([b.left, b.top, b.right, b.bottom]));
        }
        let flags = full_flags(node);
        if !flags.is_empty() {
            m.insert("flags".into(), json!(flags));
        }
        let children: Vec<Value> = node.children.iter().flat_map(|&c| self.emit(c)).collect();
        if !children.is_empty() {
            m.insert("children".into(), Value::Array(children));
        }
        vec![Value::Object(m)]
    }
}
