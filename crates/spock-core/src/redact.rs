//! Redaction of sensitive values before they reach an agent (or, for `everywhere` rules,
//! anyone).
//!
//! Rules are regular expressions with a name and a scope, as JetWhale's network inspector
//! has them: `agent_only` keeps the value visible to the person at the terminal and hides it
//! from the AI agent; `everywhere` hides it from both (the UI, the audit trail). A match is
//! replaced by `«redacted:NAME»`; when the pattern has a capture group named `secret`, only
//! that group is replaced, so `password=hunter2` becomes `password=«redacted:password»` and
//! the reader still sees what was hidden. UI tree nodes marked `"password": true` have their
//! `text` hidden from agents too: the semantics tree carries the same strings the pixels do.
//!
//! The default rules are deliberately narrow (bearer tokens, `password=` values, credentials
//! in URLs, cloud keys, private keys, JWTs) and are tested to change nothing in the real
//! device captures under `tests/fixtures/`.
use std::borrow::Cow;

use regex::Regex;
use serde::{Deserialize, Serialize};
use serde_json::Value;

mod defaults;
mod held;
mod logs;
mod shape;

pub use defaults::default_rules;
pub use logs::LogRef;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Scope {
    /// Hidden from agents, shown to the person.
    #[default]
    AgentOnly,
    /// Hidden from agents and from the person's views and the audit trail.
    Everywhere,
}

/// Who is about to see a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Audience {
    Agent,
    Person,
}

/// A rule as configured (settings file) or built in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RedactionRule {
    pub name: String,
    pub pattern: String,
    #[serde(default)]
    pub scope: Scope,
}

#[derive(Debug, thiserror::Error)]
pub enum RedactError {
    #[error("redaction rule `{name}` has an invalid pattern: {source}")]
    BadPattern {
        name: String,
        #[source]
        source: regex::Error,
    },
    #[error("redaction rule names must be non-empty letters, digits, `-` and `_`, got `{0}`")]
    BadName(String),
    #[error("{0}")]
    HeldFile(String),
}

struct Compiled {
    name: String,
    marker: String,
    re: Regex,
    scope: Scope,
    /// For telling a fragment of a match in an editable field ([`shape`]).
    shape: Option<shape::Shape>,
}

/// Applies redaction rules to text and JSON. Cheap to share behind an `Arc`.
pub struct Redactor {
    rules: Vec<Compiled>,
    /// Text fields that have held a value hidden from agents ([`held`]).
    held: std::sync::Mutex<held::Held>,
    /// Writes of the held-field memory, one at a time and in order.
    held_write: std::sync::Mutex<()>,
}

const MARKER_PREFIX: &str = "«redacted:";

/// Whether `s` (as some audience is shown it) holds something redaction hid.
pub fn holds_hidden(s: &str) -> bool {
    s.contains(MARKER_PREFIX)
}

impl Redactor {
    pub fn new(rules: &[RedactionRule]) -> Result<Self, RedactError> {
        let mut compiled = Vec::with_capacity(rules.len());
        for r in rules {
            let name_ok = !r.name.is_empty()
                && r.name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
            if !name_ok {
                return Err(RedactError::BadName(r.name.clone()));
            }
            let re = Regex::new(&r.pattern).map_err(|source| RedactError::BadPattern {
                name: r.name.clone(),
                source,
            })?;
            compiled.push(Compiled {
                name: r.name.clone(),
                marker: format!("{MARKER_PREFIX}{}»", r.name),
                shape: shape::Shape::new(&r.pattern),
                re,
                scope: r.scope,
            });
        }
        Ok(Self {
            rules: compiled,
            held: Default::default(),
            held_write: Default::default(),
        })
    }

    /// The built-in rules ([`default_rules`]).
    pub fn with_defaults() -> Self {
        Self::new(&default_rules()).unwrap_or_else(|e| {
            // The defaults are constants covered by tests; this is unreachable in practice.
            tracing::error!("built-in redaction rules failed to compile: {e}");
            Self::empty()
        })
    }

    pub fn empty() -> Self {
        Self {
            rules: Vec::new(),
            held: Default::default(),
            held_write: Default::default(),
        }
    }

    /// The defaults followed by `extra` (for example, rules from the settings file).
    pub fn with_defaults_and(extra: &[RedactionRule]) -> Result<Self, RedactError> {
        let mut all = default_rules();
        all.extend_from_slice(extra);
        Self::new(&all)
    }

    pub fn rule_names(&self) -> Vec<&str> {
        self.rules.iter().map(|r| r.name.as_str()).collect()
    }

    fn applies(rule: &Compiled, audience: Audience) -> bool {
        audience == Audience::Agent || rule.scope == Scope::Everywhere
    }

    /// Redacts `s` for `audience`; borrows when nothing matched.
    pub fn redact_str<'a>(&self, s: &'a str, audience: Audience) -> Cow<'a, str> {
        let mut cur: Cow<'a, str> = Cow::Borrowed(s);
        for rule in self.rules.iter().filter(|r| Self::applies(r, audience)) {
            if let Some(next) = replace(rule, &cur) {
                cur = Cow::Owned(next);
            }
        }
        cur
    }

    /// Redacts every string value in `v` (object keys are left alone) and, for agents, the
    /// `text` of UI nodes marked `"password": true`. Returns how many values changed.
    pub fn redact_json(&self, v: &mut Value, audience: Audience) -> usize {
        let mut n = redact_password_nodes(v, audience);
        self.walk(v, audience, &mut n);
        n
    }

    fn walk(&self, v: &mut Value, audience: Audience, n: &mut usize) {
        match v {
            Value::String(s) => {
                if let Cow::Owned(new) = self.redact_str(s, audience) {
                    *s = new;
                    *n += 1;
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|i| self.walk(i, audience, n)),
            Value::Object(map) => map.values_mut().for_each(|i| self.walk(i, audience, n)),
            _ => {}
        }
    }
}

impl Redactor {
    /// Rewrites every node's strings as `audience` is shown them (for agents, a password
    /// field's text becomes `«redacted:password»`), so that selectors, finds, waits and
    /// asserts match the tree that audience sees, never the hidden text. Returns how many
    /// nodes changed.
    pub fn redact_tree(&self, tree: &mut crate::uitree::UiTree, audience: Audience) -> usize {
        let mut n = 0;
        let mut held = self.held.lock().unwrap_or_else(|p| p.into_inner());
        for node in tree.nodes_mut() {
            let mut changed = false;
            // Keyed on the field as the device reports it (its id is what a rule may hide).
            let key = (audience == Audience::Agent && node.is_editable()).then(|| {
                let key = held.key(node);
                if let Some(marker) = self.field_marker(node) {
                    held.remember(key.clone(), marker);
                }
                key
            });
            for s in [
                &mut node.text,
                &mut node.content_desc,
                &mut node.hint,
                &mut node.resource_id,
            ] {
                if let Cow::Owned(new) = self.redact_str(s, audience) {
                    *s = new;
                    changed = true;
                }
            }
            // The whole text, not only the part a rule still matches: a character inserted
            // into the value shifts its end out of the match, and would show it.
            if let Some(key) = key
                && let Some(marker) = held.marker(&key)
                && !node.text.is_empty()
                && node.text != *marker
            {
                node.text = marker.clone();
                changed = true;
            }
            if audience == Audience::Agent
                && node.password
                && !node.text.is_empty()
                && !node.text.starts_with(MARKER_PREFIX)
            {
                node.text = format!("{MARKER_PREFIX}password»");
                changed = true;
            }
            n += usize::from(changed);
        }
        if n > 0 {
            tree.rehash_shown();
        }
        n
    }

    /// Whether any rule hides anything from `audience` at all.
    pub fn has_rules_for(&self, audience: Audience) -> bool {
        self.rules.iter().any(|r| Self::applies(r, audience))
    }

    /// The names of the `everywhere` rules that would hide part of some string in `v` from
    /// the person (each name once, in rule order). Empty when the person sees `v` whole.
    pub fn hides_from_person(&self, v: &Value) -> Vec<&str> {
        let all = strings_in(v);
        self.rules
            .iter()
            .filter(|r| Self::applies(r, Audience::Person))
            .filter(|r| all.iter().any(|s| replace(r, s).is_some()))
            .map(|r| r.name.as_str())
            .collect()
    }
}

impl Redactor {
    /// The parts of `s` that [`Self::redact_str`] hides from `audience`, each with the marker
    /// shown in its place, in rule order: what a message quoting `s` (escaped, quoted, cut
    /// short) must hide too ([`crate::mcp::scrub`]). A part that spans an earlier rule's
    /// marker is left out (it is not in any message as such).
    pub fn hidden_parts(&self, s: &str, audience: Audience) -> Vec<(String, String)> {
        let mut parts = Vec::new();
        let mut cur = s.to_string();
        for rule in self.rules.iter().filter(|r| Self::applies(r, audience)) {
            let mut last = 0;
            for span in secrets(rule, &cur) {
                if span.start() < last {
                    continue;
                }
                last = span.end();
                if !span.as_str().contains(MARKER_PREFIX) {
                    parts.push((span.as_str().to_string(), rule.marker.clone()));
                }
            }
            if let Some(next) = replace(rule, &cur) {
                cur = next;
            }
        }
        parts
    }
}

/// The held-field memory ([`held`]): fed by every tree the server reads, kept across restarts.
impl Redactor {
    /// Keeps the held-field memory in `path` (a private file), starting from what it holds.
    /// Markers of rules no longer configured are forgotten. An unreadable file is an error
    /// (starting afresh would show again what it hides); a missing one is an empty memory.
    pub fn keep_held_in(&mut self, path: &std::path::Path) -> Result<(), RedactError> {
        let names: Vec<String> = self.rules.iter().map(|r| r.marker.clone()).collect();
        let known = |marker: &str| {
            marker
                .split(' ')
                .all(|m| names.iter().any(|n| n == m) || m == "«redacted:password»")
        };
        let held = held::Held::load(path, known).map_err(RedactError::HeldFile)?;
        *self.held.get_mut().unwrap_or_else(|p| p.into_inner()) = held;
        Ok(())
    }

    /// Learns from `tree` (as the device reported it) which editable fields hold something
    /// hidden from agents, whoever the tree is for. Returns whether the memory has changes
    /// to write ([`Redactor::save_held`]).
    pub fn observe(&self, tree: &crate::uitree::UiTree) -> bool {
        let mut held = self.held.lock().unwrap_or_else(|p| p.into_inner());
        for node in tree.nodes().iter().filter(|n| n.is_editable()) {
            if let Some(marker) = self.field_marker(node) {
                let key = held.key(node);
                held.remember(key, marker);
            }
        }
        held.unsaved()
    }

    /// Writes the held-field memory when it changed (blocking: call it off the runtime).
    pub fn save_held(&self) -> std::io::Result<()> {
        let _one = self.held_write.lock().unwrap_or_else(|p| p.into_inner());
        let Some((path, bytes)) = self
            .held
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take_unsaved()
        else {
            return Ok(());
        };
        let written = crate::config::private::write_atomic(&path, &bytes);
        if written.is_err() {
            self.held
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .unwritten();
        }
        written
    }

    /// Whether an agent is shown `node` (an editable field) as a marker in place of its text:
    /// it held a hidden value, or holds what looks like a fragment of one. For screenshots,
    /// whose pixels must hide what the tree does.
    pub fn hides_field(&self, node: &crate::uitree::Node) -> bool {
        if !node.is_editable() || node.text.is_empty() || node.password {
            return false;
        }
        let held = self.held.lock().unwrap_or_else(|p| p.into_inner());
        held.marker(&held.key(node)).is_some() || self.field_marker(node).is_some()
    }

    /// The marker an editable field's own text earns from agents: what the rules hide in it,
    /// else the marker of a rule whose shape says the text is a fragment of one of its values
    /// (a key shortened, lengthened or cut by an edit: see [`shape`]). Never for a password
    /// field (its text is bullets, hidden anyway).
    fn field_marker(&self, node: &crate::uitree::Node) -> Option<String> {
        if node.text.is_empty() || node.password {
            return None;
        }
        let shown = self.redact_str(&node.text, Audience::Agent);
        let markers: Vec<&str> = shown
            .match_indices(MARKER_PREFIX)
            .filter_map(|(i, _)| {
                shown[i..]
                    .find('»')
                    .map(|j| &shown[i..i + j + '»'.len_utf8()])
            })
            .collect();
        if !markers.is_empty() {
            return Some(markers.join(" "));
        }
        // The rule the text comes closest to.
        self.rules
            .iter()
            .filter(|r| Self::applies(r, Audience::Agent))
            .filter_map(|r| Some((r.shape.as_ref()?.fragment(&node.text)?, r)))
            .min_by_key(|(score, _)| *score)
            .map(|(_, r)| r.marker.clone())
    }
}

/// Every string in `v`, however deep, in document order.
pub(crate) fn strings_in(v: &Value) -> Vec<&str> {
    fn walk<'v>(v: &'v Value, out: &mut Vec<&'v str>) {
        match v {
            Value::String(s) => out.push(s),
            Value::Array(items) => items.iter().for_each(|i| walk(i, out)),
            Value::Object(map) => map.values().for_each(|i| walk(i, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(v, &mut out);
    out
}

/// A value no credential is: `true`, `false`, `null` or nothing, quoted or not (uiautomator
/// writes `password="false"` on every node; `"password": null` in JSON).
fn trivial(secret: &str) -> bool {
    let v = secret.trim_matches(|c| c == '"' || c == '\'' || c == '\\');
    v.is_empty()
        || ["true", "false", "null"]
            .iter()
            .any(|w| v.eq_ignore_ascii_case(w))
}

/// What one rule hides in `s`: each match's `secret` group (or the whole match), leaving out
/// empty and trivial values and markers already there.
fn secrets<'s>(rule: &'s Compiled, s: &'s str) -> impl Iterator<Item = regex::Match<'s>> + 's {
    rule.re.captures_iter(s).filter_map(|caps| {
        let span = caps.name("secret").or_else(|| caps.get(0))?;
        let v = span.as_str();
        (!v.is_empty() && !v.starts_with(MARKER_PREFIX) && !trivial(v)).then_some(span)
    })
}

/// Replaces every match of one rule; `None` when nothing matched.
fn replace(rule: &Compiled, s: &str) -> Option<String> {
    let mut out = String::new();
    let mut last = 0;
    let mut replaced = false;
    for span in secrets(rule, s) {
        if span.start() < last {
            continue;
        }
        out.push_str(&s[last..span.start()]);
        out.push_str(&rule.marker);
        last = span.end();
        replaced = true;
    }
    if !replaced {
        return None;
    }
    out.push_str(&s[last..]);
    Some(out)
}

/// For agents, replaces the `text` of every object marked `"password": true` (or `"true"`,
/// as uiautomator writes it) with `«redacted:password»`. People see the node unchanged.
/// Returns how many nodes changed.
pub fn redact_password_nodes(v: &mut Value, audience: Audience) -> usize {
    if audience == Audience::Person {
        return 0;
    }
    let mut n = 0;
    match v {
        Value::Object(map) => {
            let is_password = matches!(map.get("password"), Some(Value::Bool(true)))
                || map.get("password").and_then(Value::as_str) == Some("true");
            if is_password
                && let Some(Value::String(text)) = map.get_mut("text")
                && !text.is_empty()
                && !text.starts_with(MARKER_PREFIX)
            {
                *text = format!("{MARKER_PREFIX}password»");
                n += 1;
            }
            for child in map.values_mut() {
                n += redact_password_nodes(child, audience);
            }
        }
        Value::Array(items) => {
            for child in items {
                n += redact_password_nodes(child, audience);
            }
        }
        _ => {}
    }
    n
}

#[cfg(test)]
mod tests;
