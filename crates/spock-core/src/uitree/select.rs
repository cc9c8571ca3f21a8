//! Finding elements by meaning: selectors, plain queries, and the tappable ancestor.
//!
//! Element-addressed tools (tap, long press, scroll to, type into, assert) resolve elements
//! here and derive the tap point from the matched node's own bounds; a coordinate guessed from a
//! screenshot breaks on any other screen. Plain queries resolve testTag → content description →
//! text, exact matches before case-insensitive ones before substrings. A selector that carries a
//! `revision` from an older dump is refused, so a node id never silently lands on a different
//! element after the screen changed.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::suggest::{self, Candidate};
use super::{Node, NodeId, Role, UiTree};

/// Which element(s) an agent means. All given fields must hold; `index` then picks one match
/// (0-based, document order) when several remain.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Selector {
    /// A node id (`n12`) from `android_get_ui_tree`; valid only for the revision it came with.
    pub node_id: Option<String>,
    /// The tree revision the node id (or the whole selector) was read from.
    pub revision: Option<String>,
    /// Compose `testTag` exposed via `testTagsAsResourceId`, or React Native `testID`.
    pub test_tag: Option<String>,
    /// Exact text (surrounding whitespace ignored).
    pub text: Option<String>,
    /// Case-insensitive substring of the text.
    pub text_contains: Option<String>,
    /// Exact content description (surrounding whitespace ignored).
    pub content_description: Option<String>,
    /// Resource id, full (`com.app:id/login`) or short (`login`).
    pub view_id: Option<String>,
    /// Class, full (`android.widget.Button`) or short (`Button`).
    pub class_name: Option<String>,
    pub role: Option<Role>,
    pub package_name: Option<String>,
    /// Which of the matches to take, 0-based in screen document order.
    pub index: Option<usize>,
    pub state: Option<StateFilter>,
    /// Some ancestor must match this selector.
    pub ancestor: Option<Box<Selector>>,
    /// Some descendant must match this selector.
    pub descendant: Option<Box<Selector>>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct StateFilter {
    pub clickable: Option<bool>,
    pub enabled: Option<bool>,
    pub checked: Option<bool>,
    pub selected: Option<bool>,
    pub focused: Option<bool>,
    pub scrollable: Option<bool>,
}

/// Which rule of [`UiTree::resolve_query`] produced the match.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum MatchTier {
    TestTag,
    ContentDescription,
    Text,
    ContentDescriptionIgnoreCase,
    TextIgnoreCase,
    ContentDescriptionContains,
    TextContains,
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SelectError {
    #[error(
        "stale selector: it was read from UI tree revision {given}, the screen is now revision \
         {current}; re-read the UI tree and use the new node ids"
    )]
    StaleRevision { given: String, current: String },
    #[error("no node {0} in this UI tree; re-read the UI tree to get current node ids")]
    NoSuchNode(String),
    #[error(
        "the selector names no criteria; give a testTag, text, contentDescription, viewId, role or nodeId"
    )]
    Empty,
    #[error("no element matches{}", suggest::closest_sentence(.closest))]
    NotFound { closest: Vec<Candidate> },
    #[error("index {index} is out of range: {count} elements match")]
    IndexOutOfRange { index: usize, count: usize },
    #[error("{count} elements match; narrow it with {}{}", .narrow_by.join(", "), suggest::list_sentence(.candidates))]
    Ambiguous {
        count: usize,
        candidates: Vec<Candidate>,
        narrow_by: Vec<String>,
    },
}

impl Selector {
    fn has_criteria(&self) -> bool {
        self.node_id.is_some()
            || self.test_tag.is_some()
            || self.text.is_some()
            || self.text_contains.is_some()
            || self.content_description.is_some()
            || self.view_id.is_some()
            || self.class_name.is_some()
            || self.role.is_some()
            || self.package_name.is_some()
            || self.state.is_some()
            || self.ancestor.is_some()
            || self.descendant.is_some()
    }

    fn names_a_label(&self) -> bool {
        self.text.is_some() || self.text_contains.is_some() || self.content_description.is_some()
    }

    /// A selector for a plain query string, for callers that only have the agent's words.
    pub fn query(q: &str) -> Selector {
        Selector {
            text: Some(q.to_string()),
            ..Selector::default()
        }
    }
}

/// NBSP and friends are common in real dumps (`Wind: 16.1mph ENE\u{a0}`); agents type spaces.
pub(crate) fn norm(s: &str) -> String {
    s.replace(['\u{a0}', '\u{202f}'], " ").trim().to_string()
}

impl UiTree {
    /// Every visible node the selector matches, in document order (one node when `index` is
    /// given). An empty list is not an error; a stale revision is.
    pub fn find(&self, sel: &Selector) -> Result<Vec<NodeId>, SelectError> {
        if let Some(given) = &sel.revision
            && given.trim() != self.revision()
        {
            return Err(SelectError::StaleRevision {
                given: given.clone(),
                current: self.revision().to_string(),
            });
        }
        if !sel.has_criteria() {
            return Err(SelectError::Empty);
        }
        let pinned = match &sel.node_id {
            Some(raw) => {
                let id = NodeId::parse(raw)
                    .filter(|id| id.index() < self.len())
                    .ok_or_else(|| SelectError::NoSuchNode(raw.clone()))?;
                Some(id)
            }
            None => None,
        };
        let matches: Vec<NodeId> = self
            .nodes()
            .iter()
            // A node named by id is taken even if off screen: the agent asked for exactly it.
            .filter(|n| pinned.map_or(n.is_visible(), |p| p == n.id))
            .filter(|n| self.matches(n, sel))
            .map(|n| n.id)
            .collect();
        match sel.index {
            Some(i) if i >= matches.len() && !matches.is_empty() => {
                Err(SelectError::IndexOutOfRange {
                    index: i,
                    count: matches.len(),
                })
            }
            Some(i) => Ok(matches.get(i).copied().into_iter().collect()),
            None => Ok(matches),
        }
    }

    /// Exactly one element, or an error an agent can act on: what comes closest when nothing
    /// matches, how many and which fields would narrow it when several do.
    pub fn resolve(&self, sel: &Selector) -> Result<NodeId, SelectError> {
        let found = self.find(sel)?;
        match found.as_slice() {
            [one] => Ok(*one),
            [] => Err(SelectError::NotFound {
                closest: self
                    .closest(sel, 5)
                    .into_iter()
                    .map(|id| Candidate::of(self, id))
                    .collect(),
            }),
            many => Err(SelectError::Ambiguous {
                count: many.len(),
                candidates: many
                    .iter()
                    .take(8)
                    .map(|&id| Candidate::of(self, id))
                    .collect(),
                narrow_by: suggest::narrowing_fields(self, many),
            }),
        }
    }

    /// Matches for a plain string, by the first rule that yields anything: testTag, then
    /// content description, then text; exact, then ignoring case, then as a substring.
    pub fn resolve_query(&self, q: &str) -> Vec<NodeId> {
        self.resolve_query_tier(q)
            .map(|(_, ids)| ids)
            .unwrap_or_default()
    }

    pub fn resolve_query_tier(&self, q: &str) -> Option<(MatchTier, Vec<NodeId>)> {
        let q = norm(q);
        if q.is_empty() {
            return None;
        }
        let ql = q.to_lowercase();
        type Rule<'a> = Box<dyn Fn(&Node) -> bool + 'a>;
        let rules: [(MatchTier, Rule); 7] = [
            (
                MatchTier::TestTag,
                Box::new(|n: &Node| n.test_tag() == Some(q.as_str())),
            ),
            (
                MatchTier::ContentDescription,
                Box::new(|n: &Node| norm(&n.content_desc) == q),
            ),
            (MatchTier::Text, Box::new(|n: &Node| norm(&n.text) == q)),
            (
                MatchTier::ContentDescriptionIgnoreCase,
                Box::new(|n: &Node| norm(&n.content_desc).to_lowercase() == ql),
            ),
            (
                MatchTier::TextIgnoreCase,
                Box::new(|n: &Node| norm(&n.text).to_lowercase() == ql),
            ),
            (
                MatchTier::ContentDescriptionContains,
                Box::new(|n: &Node| norm(&n.content_desc).to_lowercase().contains(&ql)),
            ),
            (
                MatchTier::TextContains,
                Box::new(|n: &Node| norm(&n.text).to_lowercase().contains(&ql)),
            ),
        ];
        rules.into_iter().find_map(|(tier, rule)| {
            let ids: Vec<NodeId> = self
                .nodes()
                .iter()
                .filter(|n| n.is_visible() && rule(n))
                .map(|n| n.id)
                .collect();
            (!ids.is_empty()).then_some((tier, ids))
        })
    }

    /// The node a tap should go to. Compose usually puts the text on a child and the click
    /// handler on its parent, so the node that matched "Continue" is often not the tappable
    /// one: walk up to the nearest clickable, long-clickable or focusable text field.
    pub fn interactive_ancestor(&self, id: NodeId) -> NodeId {
        let tappable =
            |n: &Node| n.clickable || n.long_clickable || (n.focusable && n.is_editable());
        match self.node(id) {
            Some(n) if tappable(n) => id,
            Some(_) => self
                .ancestors(id)
                .find(|a| tappable(a))
                .map_or(id, |a| a.id),
            None => id,
        }
    }

    /// What on screen comes closest to a selector that matched nothing, best first.
    pub fn closest(&self, sel: &Selector, n: usize) -> Vec<NodeId> {
        suggest::closest(self, sel, n)
    }

    fn matches(&self, node: &Node, sel: &Selector) -> bool {
        let eq =
            |want: &Option<String>, have: &str| want.as_ref().is_none_or(|w| norm(w) == norm(have));
        let role_ok = |role: Role| {
            // "the Sign in button" on Compose: the text is on a child of the clickable node.
            let via_parent = sel.names_a_label()
                && !node.is_actionable()
                && self
                    .node(self.interactive_ancestor(node.id))
                    .is_some_and(|a| a.id != node.id && a.role() == role);
            node.role() == role || via_parent
        };
        let state_ok = |st: &StateFilter| {
            let ok = |want: Option<bool>, have: bool| want.is_none_or(|w| w == have);
            ok(st.clickable, node.clickable)
                && ok(st.enabled, node.enabled)
                && ok(st.checked, node.checked)
                && ok(st.selected, node.selected)
                && ok(st.focused, node.focused)
                && ok(st.scrollable, node.scrollable)
        };
        sel.test_tag
            .as_ref()
            .is_none_or(|t| node.test_tag() == Some(t.trim()))
            && eq(&sel.text, &node.text)
            && eq(&sel.content_description, &node.content_desc)
            && sel.text_contains.as_ref().is_none_or(|part| {
                norm(&node.text)
                    .to_lowercase()
                    .contains(&norm(part).to_lowercase())
            })
            && sel.view_id.as_ref().is_none_or(|v| {
                let v = v.trim();
                node.resource_id == v || node.view_id_name() == Some(v)
            })
            && sel.class_name.as_ref().is_none_or(|c| {
                let c = c.trim();
                node.class == c || node.short_class() == c
            })
            && eq(&sel.package_name, &node.package)
            && sel.role.is_none_or(role_ok)
            && sel.state.as_ref().is_none_or(state_ok)
            && sel
                .ancestor
                .as_ref()
                .is_none_or(|a| self.ancestors(node.id).any(|anc| self.matches(anc, a)))
            && sel
                .descendant
                .as_ref()
                .is_none_or(|d| self.descendants(node.id).any(|x| self.matches(x, d)))
    }
}
