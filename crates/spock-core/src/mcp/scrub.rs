//! What a call hides in its arguments, hidden in every message of that call too.
//!
//! A typed password is «password» in the record's `arguments`, and a value a redaction rule
//! matches in an argument is its marker there; but the error a tool returns may quote the
//! command it ran (`shell \`input text 'hunter2%sit'\''s'\` … timed out`), and a device's
//! stderr may echo it. Such a message quotes the value escaped, quoted or cut short, where no
//! rule matches it any more. A [`Scrub`] holds each hidden value of one call in every form a
//! message can carry it (as given, JSON- and Debug-escaped, shell-quoted, as `input text`
//! writes it, and the typing command line whole) with the marker it is shown as, and replaces
//! them in the error's message and details before the error reaches anyone: the pipeline
//! applies the person's [`Scrub`] (typed text, `everywhere` rules) to the error itself, so the
//! audit trail, the control centre and a batch run's step log get it hidden; the answer to an
//! agent applies the agent's (every rule) on top.
use std::borrow::Cow;

use serde_json::Value;

use super::result::ToolError;
use super::typed_text::{PASSWORD_PLACEHOLDER, TypedText};
use crate::guard::{input_text_escape, shell_quote, typing_commands};
use crate::redact::{Audience, Redactor};

/// Shorter values are not looked for as such (only in their command forms): one or two
/// characters turn up in any message by chance (`exit 1`), and say little.
const MIN_RAW: usize = 3;

/// A value cut short before `…` (the device layer shortens command lines) is hidden from this
/// many characters of it on.
const MIN_PREFIX: usize = 4;

/// The forms of one call's hidden values, each with what it is shown as; longest first.
#[derive(Debug, Clone, Default)]
pub struct Scrub {
    forms: Vec<(String, String)>,
}

impl Scrub {
    /// What the call with `args` hides from `audience`: its typed texts not known to go into
    /// a plain field (from everyone), and every part of an argument a redaction rule hides
    /// from `audience`.
    pub fn of_call(
        redactor: &Redactor,
        args: &Value,
        typed: &TypedText,
        audience: Audience,
    ) -> Scrub {
        let mut s = Scrub::default();
        for text in typed.withheld_texts(args) {
            s.typed(text);
        }
        for v in crate::redact::strings_in(args) {
            for (part, marker) in redactor.hidden_parts(v, audience) {
                s.value(&part, &marker);
            }
        }
        s.forms
            .sort_by(|a, b| b.0.len().cmp(&a.0.len()).then_with(|| a.0.cmp(&b.0)));
        s.forms.dedup_by(|a, b| a.0 == b.0);
        s
    }

    pub fn is_empty(&self) -> bool {
        self.forms.is_empty()
    }

    /// A typed text: its forms, and the command lines that type it (whole, and each ASCII run
    /// `input text` types between accented letters), shown as `input text «password»`.
    fn typed(&mut self, text: &str) {
        let command = format!("input text {PASSWORD_PLACEHOLDER}");
        if let Ok(line) = typing_commands(text) {
            self.forms.push((line, command.clone()));
        }
        for run in text
            .split(|c: char| !c.is_ascii())
            .filter(|r| !r.is_empty())
        {
            if let Ok(word) = input_text_escape(run) {
                self.forms
                    .push((format!("input text {word}"), command.clone()));
            }
        }
        self.value(text, PASSWORD_PLACEHOLDER);
    }

    /// A hidden value as a message may quote it.
    fn value(&mut self, v: &str, marker: &str) {
        if v.chars().count() < MIN_RAW {
            return;
        }
        let json = serde_json::to_string(v).unwrap_or_default();
        let debug = format!("{v:?}");
        let spaced = v.replace(' ', "%s");
        for form in [
            v.to_string(),
            inner(&json).to_string(),
            inner(&debug).to_string(),
            shell_quote(v),
            shell_quote(&spaced),
            spaced,
        ] {
            if !form.is_empty() {
                self.forms.push((form, marker.to_string()));
            }
        }
    }

    /// `s` with every form replaced by its marker, in one pass (a replacement is never looked
    /// into again), markers already in `s` passed over whole; a form cut short by `…` too.
    pub fn text<'a>(&self, s: &'a str) -> Cow<'a, str> {
        if self.forms.is_empty() {
            return Cow::Borrowed(s);
        }
        let mut out = String::with_capacity(s.len());
        let mut changed = false;
        let mut i = 0;
        'scan: while i < s.len() {
            let rest = &s[i..];
            if let Some(n) = marker_at(rest) {
                out.push_str(&rest[..n]);
                i += n;
                continue;
            }
            for (form, marker) in &self.forms {
                if rest.starts_with(form.as_str()) {
                    out.push_str(marker);
                    i += form.len();
                    changed = true;
                    continue 'scan;
                }
                if let Some(n) = cut_short(rest, form) {
                    out.push_str(marker);
                    i += n;
                    changed = true;
                    continue 'scan;
                }
            }
            let c = rest.chars().next().unwrap_or_default();
            out.push(c);
            i += c.len_utf8().max(1);
        }
        if changed {
            Cow::Owned(out)
        } else {
            Cow::Borrowed(s)
        }
    }

    /// Every string in `v` (object keys left alone), as [`Self::text`].
    pub fn json(&self, v: &mut Value) {
        match v {
            Value::String(s) => {
                if let Cow::Owned(new) = self.text(s) {
                    *s = new;
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|i| self.json(i)),
            Value::Object(map) => map.values_mut().for_each(|i| self.json(i)),
            _ => {}
        }
    }

    /// The error's message and details, as [`Self::text`].
    pub fn error(&self, e: &mut ToolError) {
        if let Cow::Owned(m) = self.text(&e.message) {
            e.message = m;
        }
        if let Some(d) = &mut e.details {
            self.json(d);
        }
    }
}

/// The length of a marker `rest` starts with («password», «redacted:NAME»).
fn marker_at(rest: &str) -> Option<usize> {
    if rest.starts_with(PASSWORD_PLACEHOLDER) {
        return Some(PASSWORD_PLACEHOLDER.len());
    }
    let name = rest.strip_prefix("«redacted:")?;
    let end = name.find('»')?;
    name[..end]
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        .then(|| rest.len() - name.len() + end + '»'.len_utf8())
}

/// The length of the start of `form` that `rest` begins with when `…` follows it (a command
/// line shortened for a message), at least [`MIN_PREFIX`] characters of it.
fn cut_short(rest: &str, form: &str) -> Option<usize> {
    let common: usize = rest
        .chars()
        .zip(form.chars())
        .take_while(|(a, b)| a == b)
        .map(|(a, _)| a.len_utf8())
        .sum();
    (common < form.len()
        && rest[common..].starts_with('…')
        && rest[..common].chars().count() >= MIN_PREFIX)
        .then_some(common)
}

/// A quoted string without its quotes.
fn inner(quoted: &str) -> &str {
    quoted
        .get(1..quoted.len().saturating_sub(1))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests;
