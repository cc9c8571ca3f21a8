//! The UI semantics tree: `uiautomator` XML turned into a typed, flat tree that tools can
//! query, render for agents and audit.
//!
//! Compose publishes no View hierarchy, only semantics into the accessibility tree, and that
//! tree is what `uiautomator` dumps. Modelling the dump (not Views, not Compose internals)
//! therefore covers Views, Compose and hybrid screens with one implementation and pins no
//! Compose version. Everything here is pure: no I/O, no device access, no panics on device
//! output.
//!
//! - [`parse`] builds a [`UiTree`]: an arena of [`Node`]s, a `revision` hash so node ids from an
//!   older dump are detectably stale, and the detected [`Framework`].
//! - [`select`] resolves [`Selector`]s and plain queries (testTag → content description →
//!   text), finds the tappable ancestor, and explains misses and ambiguity.
//! - [`render`] produces the JSON tree and the compact agent form.
//! - [`audit`] reports accessibility problems with a fix in the node's own framework.

pub mod audit;
mod framework;
mod parse;
pub mod render;
mod role;
pub mod select;
mod suggest;

#[cfg(test)]
mod fixtures;
#[cfg(test)]
mod tests;

use std::fmt;

pub use audit::{Finding, FindingKind, audit};
pub use framework::Framework;
pub use parse::parse;
pub use render::{TreeOptions, WindowFilter, WindowName};
pub use role::Role;
pub use select::{MatchTier, SelectError, Selector, StateFilter};
pub use suggest::Candidate;

/// Why a dump could not be turned into a tree. Positions are 1-based and refer to the text
/// exactly as it was handed to [`parse`], junk lines included.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UiTreeError {
    #[error("the UI dump contains no XML (uiautomator said: {snippet:?})")]
    NotXml { snippet: String },
    #[error("malformed UI dump XML at line {line}, column {column}: {message}")]
    Malformed {
        line: u32,
        column: u32,
        message: String,
    },
}

/// Index of a node in [`UiTree::nodes`]; shown to agents as `n<index>`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub u32);

impl NodeId {
    pub fn index(self) -> usize {
        self.0 as usize
    }

    /// Reads the `n<index>` form agents get back from us.
    pub fn parse(s: &str) -> Option<NodeId> {
        s.trim().strip_prefix('n')?.parse().ok().map(NodeId)
    }
}

impl fmt::Display for NodeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "n{}", self.0)
    }
}

/// Screen rectangle in pixels, as uiautomator writes `[left,top][right,bottom]`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Rect {
    pub left: i32,
    pub top: i32,
    pub right: i32,
    pub bottom: i32,
}

impl Rect {
    pub fn width(&self) -> i32 {
        self.right.saturating_sub(self.left)
    }

    pub fn height(&self) -> i32 {
        self.bottom.saturating_sub(self.top)
    }

    pub fn is_empty(&self) -> bool {
        self.width() <= 0 || self.height() <= 0
    }

    /// The tap point tools derive from a node's own bounds.
    pub fn center(&self) -> (i32, i32) {
        (self.left + self.width() / 2, self.top + self.height() / 2)
    }

    /// Parses `[l,t][r,b]`; `None` for anything else, so a garbled attribute costs one node
    /// its bounds rather than the whole dump.
    pub fn parse(s: &str) -> Option<Rect> {
        let s = s.trim().strip_prefix('[')?.strip_suffix(']')?;
        let (a, b) = s.split_once("][")?;
        let (left, top) = a.split_once(',')?;
        let (right, bottom) = b.split_once(',')?;
        Some(Rect {
            left: left.trim().parse().ok()?,
            top: top.trim().parse().ok()?,
            right: right.trim().parse().ok()?,
            bottom: bottom.trim().parse().ok()?,
        })
    }
}

impl fmt::Display for Rect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "[{},{}][{},{}]",
            self.left, self.top, self.right, self.bottom
        )
    }
}

/// One accessibility node. Attributes missing from older dumps take Android's defaults
/// (`enabled` and `visible-to-user` true, every other flag false, strings empty).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Node {
    pub id: NodeId,
    pub parent: Option<NodeId>,
    pub children: Vec<NodeId>,
    pub depth: u32,
    /// Which top-level root (window) of the dump this node belongs to.
    pub window: u32,
    /// The `index` attribute: position among its siblings as the device numbered them.
    pub index: u32,
    pub class: String,
    pub package: String,
    pub text: String,
    pub resource_id: String,
    pub content_desc: String,
    pub hint: String,
    /// `None` when the dump had no parsable bounds.
    pub bounds: Option<Rect>,
    pub checkable: bool,
    pub checked: bool,
    pub clickable: bool,
    pub long_clickable: bool,
    pub enabled: bool,
    pub focusable: bool,
    pub focused: bool,
    pub scrollable: bool,
    pub selected: bool,
    pub password: bool,
    pub visible_to_user: bool,
    pub display_id: Option<u32>,
    pub drawing_order: Option<u32>,
    /// Inside (or itself) a Compose host: its semantics come from Compose, so fixes must be
    /// Compose code.
    pub in_compose: bool,
}

impl Node {
    /// uiautomator has no `editable` attribute; text fields (Views and Compose alike) report
    /// an EditText-like class.
    pub fn is_editable(&self) -> bool {
        role::is_edit_class(&self.class)
    }

    /// Can a tap or long press on this node do something.
    pub fn is_actionable(&self) -> bool {
        self.clickable
            || self.long_clickable
            || self.checkable
            || self.is_editable()
            // A SeekBar/Slider is only `focusable`, yet it is adjusted by touch.
            || (self.focusable && self.role() == Role::Slider)
    }

    /// Shown on screen with an area: what `find` is allowed to return.
    pub fn is_visible(&self) -> bool {
        self.visible_to_user && self.bounds.is_some_and(|b| !b.is_empty())
    }

    /// A Compose `testTag` (exposed through `testTagsAsResourceId`) or React Native `testID`:
    /// a resource-id without the `package:id/` prefix that Android resources always carry.
    pub fn test_tag(&self) -> Option<&str> {
        let id = self.resource_id.as_str();
        (!id.is_empty() && !id.contains(":id/")).then_some(id)
    }

    /// The short View id (`title` for `android:id/title`), when there is one.
    pub fn view_id_name(&self) -> Option<&str> {
        self.resource_id.split_once(":id/").map(|(_, name)| name)
    }

    /// The node's own label: content description first, as TalkBack reads it.
    pub fn own_label(&self) -> Option<&str> {
        [&self.content_desc, &self.text]
            .into_iter()
            .map(|s| s.trim())
            .find(|s| !s.is_empty())
    }

    pub fn role(&self) -> Role {
        Role::of(self)
    }

    pub fn short_class(&self) -> &str {
        self.class.rsplit('.').next().unwrap_or(&self.class)
    }
}

/// A parsed dump. Nodes are in document order, so a parent always precedes its children.
#[derive(Debug, Clone)]
pub struct UiTree {
    nodes: Vec<Node>,
    roots: Vec<NodeId>,
    revision: String,
    framework: Framework,
    raw_len: usize,
}

impl UiTree {
    /// Whether the focused text field is a password field: `Some(true)` when a focused node is
    /// one, `Some(false)` when a focused editable node is none, `None` with no focused field.
    pub fn focused_field_is_password(&self) -> Option<bool> {
        let focused: Vec<_> = self.nodes().iter().filter(|n| n.focused).collect();
        if focused.iter().any(|n| n.password) {
            return Some(true);
        }
        focused.iter().any(|n| n.is_editable()).then_some(false)
    }

    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    /// The nodes for rewriting their strings in place (redaction); ids, structure and
    /// bounds stay as they are.
    pub fn nodes_mut(&mut self) -> &mut [Node] {
        &mut self.nodes
    }

    pub fn node(&self, id: NodeId) -> Option<&Node> {
        self.nodes.get(id.index())
    }

    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// Top-level nodes, one per window the dump contained.
    pub fn roots(&self) -> &[NodeId] {
        &self.roots
    }

    /// Hash of the dump's text; a selector carrying another revision refers to a screen that
    /// may have changed since. Once redaction has rewritten a string, the hash of the tree as
    /// rewritten ([`Self::rehash_shown`]).
    pub fn revision(&self) -> &str {
        &self.revision
    }

    /// After redaction rewrote some of its strings: the revision becomes a hash of the tree as
    /// it is now, so it says nothing about what was hidden. A hash of the raw dump let an
    /// agent test guesses offline (rebuild the dump with a guess in place of the marker and
    /// compare), or by equality (type a guess into a field, see whether the screen is the
    /// original again). Equal trees as shown still get equal revisions, so a node id stays
    /// valid while the screen as shown stays the same.
    pub fn rehash_shown(&mut self) {
        use sha2::{Digest, Sha256};
        let mut h = Sha256::new();
        h.update(b"shown\0");
        for n in &self.nodes {
            h.update(format!("{n:?}\0").as_bytes());
        }
        self.revision = h
            .finalize()
            .iter()
            .take(6)
            .map(|b| format!("{b:02x}"))
            .collect();
    }

    pub fn framework(&self) -> Framework {
        self.framework
    }

    /// Bytes of the XML this tree was parsed from (the compact form is measured against it).
    pub fn raw_len(&self) -> usize {
        self.raw_len
    }

    /// Ancestors from the parent up to the root.
    pub fn ancestors(&self, id: NodeId) -> impl Iterator<Item = &Node> + '_ {
        let mut next = self.node(id).and_then(|n| n.parent);
        std::iter::from_fn(move || {
            let node = self.node(next?)?;
            next = node.parent;
            Some(node)
        })
    }

    /// Every node below `id`, in document order (nodes are stored in pre-order, so a subtree is
    /// the contiguous run of deeper nodes that follows it).
    pub fn descendants(&self, id: NodeId) -> impl Iterator<Item = &Node> + '_ {
        let depth = self.node(id).map_or(u32::MAX, |n| n.depth);
        self.nodes
            .get(id.index() + 1..)
            .unwrap_or(&[])
            .iter()
            .take_while(move |n| n.depth > depth)
    }

    /// The `index` attributes from the window root down to this node, e.g. `0/0/2/1`: the
    /// address Appium-style tools print.
    pub fn index_path(&self, id: NodeId) -> String {
        let Some(node) = self.node(id) else {
            return String::new();
        };
        let mut parts: Vec<String> = self.ancestors(id).map(|n| n.index.to_string()).collect();
        parts.reverse();
        parts.push(node.index.to_string());
        parts.join("/")
    }

    pub fn test_tags_exposed(&self) -> bool {
        framework::test_tags_exposed(self)
    }

    pub fn test_tag_advice(&self) -> Option<String> {
        framework::test_tag_advice(self)
    }
}
