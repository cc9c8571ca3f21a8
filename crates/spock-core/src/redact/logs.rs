//! Redaction of text that arrives one line at a time: a log message of several lines is
//! printed by logcat as one entry per line (each with the same pid, tid, tag and time), so a
//! rule that needs two lines (a PEM private key: BEGIN … END) never sees them in one string.
//!
//! [`Redactor::redact_log`] joins each message group (same pid, tid, tag and timestamp) with
//! `\n`, redacts it whole and gives every line back as shown, so a line inside a match shows
//! the rule's marker. It runs on every line fetched, before any filter, so `lines`, `since`,
//! `contains` and `tag` choose among lines already redacted: none can return a key's body
//! lines alone.
//!
//! A private key logged over more than one timestamp (one `Log.d` per line that crosses a
//! millisecond), or whose BEGIN line is outside the lines fetched, is not one group: while
//! the `private-key` rule applies, a BEGIN line left whole hides the lines of its thread and
//! tag after it up to its END, and base64 body lines (60-76 characters of mixed case and
//! digits, the shape of a PEM line) are hidden wherever they are, with the short last line
//! and END line that follow them.
use std::borrow::Cow;
use std::collections::HashMap;

use super::{Audience, Compiled, MARKER_PREFIX, Redactor};

/// One log entry as the redactor needs it.
#[derive(Debug, Clone, Copy)]
pub struct LogRef<'a> {
    pub pid: u32,
    pub tid: u32,
    pub tag: &'a str,
    /// The whole timestamp (`MM-DD HH:MM:SS.mmm`).
    pub time: &'a str,
    pub message: &'a str,
}

impl<'a> From<&'a crate::device::parse::logcat::LogLine> for LogRef<'a> {
    fn from(l: &'a crate::device::parse::logcat::LogLine) -> Self {
        LogRef {
            pid: l.pid,
            tid: l.tid,
            tag: &l.tag,
            time: &l.time,
            message: &l.message,
        }
    }
}

impl Redactor {
    /// Redacts `lines` as one text joined with `\n`, so a rule may match across lines, and
    /// gives each line back as `audience` is shown it.
    pub fn redact_lines<'a>(&self, lines: &[&'a str], audience: Audience) -> Vec<Cow<'a, str>> {
        let mut cur: Vec<Cow<'a, str>> = lines.iter().map(|l| Cow::Borrowed(*l)).collect();
        for rule in self.rules.iter().filter(|r| Self::applies(r, audience)) {
            let joined = cur.join("\n");
            let found = spans(rule, &joined);
            if found.is_empty() {
                continue;
            }
            let mut start = 0;
            for line in cur.iter_mut() {
                let end = start + line.len();
                let mine: Vec<(usize, usize)> = found
                    .iter()
                    .filter_map(|&(s, e)| {
                        let (a, b) = (s.max(start), e.min(end));
                        (a < b).then(|| (a - start, b - start))
                    })
                    .collect();
                if !mine.is_empty() {
                    let mut out = String::with_capacity(line.len());
                    let mut last = 0;
                    for (a, b) in mine {
                        out.push_str(&line[last..a]);
                        out.push_str(&rule.marker);
                        last = b;
                    }
                    out.push_str(&line[last..]);
                    *line = Cow::Owned(out);
                }
                start = end + 1;
            }
        }
        cur
    }

    /// Each entry's message as `audience` is shown it, redacted with its message group (see
    /// the module doc). Entries are in log order.
    pub fn redact_log<'a>(&self, entries: &[LogRef<'a>], audience: Audience) -> Vec<Cow<'a, str>> {
        // Every line of every entry (a message may hold `\n` itself).
        let mut shown: Vec<Vec<Cow<'a, str>>> = entries
            .iter()
            .map(|e| e.message.split('\n').map(Cow::Borrowed).collect())
            .collect();
        let mut groups: HashMap<(u32, u32, &str, &str), Vec<usize>> = HashMap::new();
        for (i, e) in entries.iter().enumerate() {
            groups
                .entry((e.pid, e.tid, e.tag, e.time))
                .or_default()
                .push(i);
        }
        for members in groups.values() {
            let lines: Vec<&'a str> = members
                .iter()
                .flat_map(|&i| entries[i].message.split('\n'))
                .collect();
            let mut out = self.redact_lines(&lines, audience).into_iter();
            for &i in members {
                for slot in shown[i].iter_mut() {
                    if let Some(l) = out.next() {
                        *slot = l;
                    }
                }
            }
        }
        if let Some(rule) = self
            .rules
            .iter()
            .find(|r| r.name == "private-key" && Self::applies(r, audience))
        {
            hide_key_runs(entries, &mut shown, &rule.marker);
        }
        shown
            .into_iter()
            .zip(entries)
            .map(|(lines, e)| {
                if lines.iter().all(|l| matches!(l, Cow::Borrowed(_))) {
                    Cow::Borrowed(e.message)
                } else {
                    Cow::Owned(lines.join("\n"))
                }
            })
            .collect()
    }
}

/// The spans one rule hides in `s`, as [`super::replace`] chooses them.
fn spans(rule: &Compiled, s: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut last = 0;
    for caps in rule.re.captures_iter(s) {
        let Some(span) = caps.name("secret").or_else(|| caps.get(0)) else {
            continue;
        };
        if span.as_str().is_empty()
            || span.as_str().starts_with(MARKER_PREFIX)
            || span.start() < last
        {
            continue;
        }
        out.push((span.start(), span.end()));
        last = span.end();
    }
    out
}

fn is_begin(l: &str) -> bool {
    l.contains("-----BEGIN ") && l.contains("PRIVATE KEY-----")
}

fn is_end(l: &str) -> bool {
    l.contains("-----END ") && l.contains("PRIVATE KEY-----")
}

fn base64(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'+' || b == b'/')
}

/// A whole PEM body line: 64 base64 characters (60-76 as other encoders wrap), with upper
/// case, lower case and a digit, as random key bytes always have.
fn full_body(l: &str) -> bool {
    let t = l.trim();
    (60..=76).contains(&t.len())
        && base64(t)
        && t.bytes().any(|b| b.is_ascii_uppercase())
        && t.bytes().any(|b| b.is_ascii_lowercase())
        && t.bytes().any(|b| b.is_ascii_digit())
}

/// The last body line: shorter, maybe `=`-padded.
fn short_body(l: &str) -> bool {
    let t = l.trim();
    let core = t.trim_end_matches('=');
    t.len() <= 76 && t.len() - core.len() <= 2 && base64(core)
}

/// A thread and tag's lines, in log order, as (entry, line of the entry).
type Streams<'a> = HashMap<(u32, u32, &'a str), Vec<(usize, usize)>>;

/// Walks each thread and tag's lines in order and hides what a private key left whole.
fn hide_key_runs<'a>(entries: &[LogRef<'a>], shown: &mut [Vec<Cow<'a, str>>], marker: &str) {
    let mut streams: Streams<'_> = HashMap::new();
    for (i, e) in entries.iter().enumerate() {
        let s = streams.entry((e.pid, e.tid, e.tag)).or_default();
        s.extend((0..shown[i].len()).map(|j| (i, j)));
    }
    for lines in streams.values() {
        let mut hide = vec![false; lines.len()];
        let text = |k: usize| -> &str {
            let (i, j) = lines[k];
            &shown[i][j]
        };
        // (inside a block, its BEGIN was seen, its short last line was seen)
        let mut block: Option<(bool, bool)> = None;
        let mut k = 0;
        while k < lines.len() {
            let l = text(k);
            match block {
                Some((begun, tail)) => {
                    if is_end(l) {
                        hide[k] = true;
                        block = None;
                    } else if !tail && full_body(l) {
                        hide[k] = true;
                    } else if !tail && short_body(l) {
                        hide[k] = true;
                        block = Some((begun, true));
                    } else if begun
                        && !tail
                        && (l.trim().is_empty()
                            || l.starts_with("Proc-Type:")
                            || l.starts_with("DEK-Info:"))
                    {
                        hide[k] = true;
                    } else {
                        // Not the key's: read it again outside the block.
                        block = None;
                        continue;
                    }
                }
                None => {
                    if is_begin(l) {
                        hide[k] = true;
                        block = Some((true, false));
                    } else if full_body(l) {
                        hide[k] = true;
                        block = Some((false, false));
                    } else if short_body(l) && k + 1 < lines.len() && is_end(text(k + 1)) {
                        hide[k] = true;
                        block = Some((false, true));
                    }
                }
            }
            k += 1;
        }
        for (k, &(i, j)) in lines.iter().enumerate() {
            if hide[k] && shown[i][j] != marker {
                shown[i][j] = Cow::Owned(marker.to_string());
            }
        }
    }
}

#[cfg(test)]
mod tests;
