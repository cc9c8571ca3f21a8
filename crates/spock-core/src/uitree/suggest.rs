//! Helping an agent recover from a selector that matched nothing or too much.
//!
//! "Not found" alone makes agents guess coordinates from screenshots, the flakiest thing they
//! can do. So a miss names what on screen comes closest (edit distance against text,
//! description and ids), and an ambiguous match says how many there are and which selector
//! fields actually tell them apart on this screen.

use serde::Serialize;

use super::select::{Selector, norm};
use super::{NodeId, UiTree};

/// A node as shown in error messages and tool results.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Candidate {
    pub node_id: String,
    pub role: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub text: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub content_description: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub view_id: String,
    pub bounds: [i32; 4],
}

impl Candidate {
    pub fn of(tree: &UiTree, id: NodeId) -> Candidate {
        let node = tree.node(id);
        let b = node.and_then(|n| n.bounds).unwrap_or_default();
        Candidate {
            node_id: id.to_string(),
            role: node.map(|n| n.role().to_string()).unwrap_or_default(),
            text: node.map(|n| n.text.clone()).unwrap_or_default(),
            content_description: node.map(|n| n.content_desc.clone()).unwrap_or_default(),
            view_id: node.map(|n| n.resource_id.clone()).unwrap_or_default(),
            bounds: [b.left, b.top, b.right, b.bottom],
        }
    }

    fn describe(&self) -> String {
        let mut s = format!("{} {}", self.node_id, self.role);
        for (key, v) in [
            ("text", &self.text),
            ("desc", &self.content_description),
            ("id", &self.view_id),
        ] {
            if !v.is_empty() {
                s.push_str(&format!(" {key}={v:?}"));
            }
        }
        let [l, t, r, b] = self.bounds;
        s.push_str(&format!(" [{l},{t}][{r},{b}]"));
        s
    }
}

pub(crate) fn closest_sentence(c: &[Candidate]) -> String {
    if c.is_empty() {
        return String::new();
    }
    let list: Vec<String> = c.iter().map(Candidate::describe).collect();
    format!("; closest on screen: {}", list.join("; "))
}

pub(crate) fn list_sentence(c: &[Candidate]) -> String {
    let list: Vec<String> = c.iter().map(Candidate::describe).collect();
    format!(". Matches: {}", list.join("; "))
}

/// Longest string compared, so a paragraph of text cannot make a lookup quadratic-expensive.
const MAX_COMPARE: usize = 96;

fn levenshtein(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().take(MAX_COMPARE).collect();
    let b: Vec<char> = b.chars().take(MAX_COMPARE).collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

/// Distance scaled to 0..=1 so a long label is not penalised for being long.
fn score(query: &str, label: &str) -> f64 {
    let longest = query
        .chars()
        .count()
        .max(label.chars().count())
        .clamp(1, MAX_COMPARE);
    levenshtein(query, label) as f64 / longest as f64
}

pub(crate) fn closest(tree: &UiTree, sel: &Selector, n: usize) -> Vec<NodeId> {
    let queries: Vec<String> = [
        &sel.test_tag,
        &sel.text,
        &sel.text_contains,
        &sel.content_description,
        &sel.view_id,
    ]
    .into_iter()
    .flatten()
    .map(|q| norm(q).to_lowercase())
    .filter(|q| !q.is_empty())
    .collect();
    if queries.is_empty() {
        return Vec::new();
    }
    let mut scored: Vec<(f64, NodeId)> = tree
        .nodes()
        .iter()
        .filter(|node| node.is_visible())
        .filter_map(|node| {
            let labels = [
                norm(&node.text),
                norm(&node.content_desc),
                node.view_id_name()
                    .or(node.test_tag())
                    .unwrap_or_default()
                    .to_string(),
            ];
            labels
                .iter()
                .filter(|l| !l.is_empty())
                .flat_map(|l| {
                    let l = l.to_lowercase();
                    queries.iter().map(move |q| score(q, &l))
                })
                .min_by(f64::total_cmp)
                .map(|s| (s, node.id))
        })
        .collect();
    scored.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    scored.into_iter().take(n).map(|(_, id)| id).collect()
}

/// Selector fields whose values differ between the matches, fields that tell every match
/// apart first; `index` always works and comes last.
pub(crate) fn narrowing_fields(tree: &UiTree, ids: &[NodeId]) -> Vec<String> {
    let nodes: Vec<_> = ids.iter().filter_map(|&id| tree.node(id)).collect();
    type Key<'a> = (&'static str, Box<dyn Fn(&super::Node) -> String + 'a>);
    let keys: Vec<Key> = vec![
        (
            "testTag",
            Box::new(|n| n.test_tag().unwrap_or_default().to_string()),
        ),
        ("viewId", Box::new(|n| n.resource_id.clone())),
        ("contentDescription", Box::new(|n| n.content_desc.clone())),
        ("text", Box::new(|n| n.text.clone())),
        ("role", Box::new(|n| n.role().to_string())),
        ("className", Box::new(|n| n.class.clone())),
        ("state.checked", Box::new(|n| n.checked.to_string())),
        ("state.selected", Box::new(|n| n.selected.to_string())),
        ("state.enabled", Box::new(|n| n.enabled.to_string())),
        (
            "ancestor",
            Box::new(|n| {
                let anc = tree.node(tree.interactive_ancestor(n.id));
                anc.map(|a| match a.own_label() {
                    Some(l) => l.to_string(),
                    None => tree.absorbed_labels(a),
                })
                .unwrap_or_default()
            }),
        ),
    ];
    let mut full = Vec::new();
    let mut partial = Vec::new();
    for (name, key) in &keys {
        let mut values: Vec<String> = nodes.iter().map(|n| key(n)).collect();
        values.sort();
        let before = values.len();
        values.dedup();
        if values.len() == before && before > 1 {
            full.push(name.to_string());
        } else if values.len() > 1 {
            partial.push(name.to_string());
        }
    }
    full.extend(partial);
    full.push(format!("index (0-{})", ids.len().saturating_sub(1)));
    full
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levenshtein_basics() {
        assert_eq!(levenshtein("kitten", "sitting"), 3);
        assert_eq!(levenshtein("", "abc"), 3);
        assert_eq!(levenshtein("same", "same"), 0);
        // Containment costs exactly the extra characters.
        assert_eq!(levenshtein("login", "login button"), 7);
    }
}
