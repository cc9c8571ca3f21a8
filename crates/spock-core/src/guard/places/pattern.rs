//! Matching a path that holds a glob or unknown text against the protected places: a
//! pattern component is tried against the names the Android tree is known to have at that
//! level ([`super::children`]) and, where the children are unknown, against a sample name it
//! matches. Also the shell pattern matcher the guard uses everywhere (`*`, `?`, `[…]`).
use super::{canonical, children, protected};
use crate::guard::state::UNKNOWN;

/// The protected place a recursive delete of `p` (canonical; may hold globs or unknown text)
/// could reach, if any.
pub(in crate::guard) fn protected_match(p: &str) -> Option<String> {
    let comps: Vec<&str> = p.split('/').filter(|c| !c.is_empty()).collect();
    let Some(g) = comps.iter().position(|c| is_pattern(c)) else {
        return protected(p).then(|| p.to_string());
    };
    let parent = format!("/{}", comps[..g].join("/"));
    let pat = comps[g];
    // Unknown text may be empty or hold slashes: the parent itself, or anything below it.
    if pat.contains(UNKNOWN) && (protected(&parent) || pat == UNKNOWN.to_string()) {
        return Some(parent);
    }
    let matches_all = pat.trim_matches(|c| c == '*' || c == UNKNOWN).is_empty()
        || matches!(pat, ".*" | "*.*" | "?*" | "*?" | "[!.]*" | ".[!.]*");
    if matches_all && g + 1 == comps.len() && contents_protected(&parent) {
        return Some(format!("everything in {parent}"));
    }
    let known = children(&canonical(&parent));
    for name in known {
        if glob_match(pat, name) {
            let mut cand = format!("{}/{name}", parent.trim_end_matches('/'));
            for rest in &comps[g + 1..] {
                cand.push('/');
                cand.push_str(rest);
            }
            if let Some(hit) = protected_match(&canonical(&cand)) {
                return Some(hit);
            }
        }
    }
    // A pattern below a directory whose children the guard does not know: try a name it
    // matches (`/data/data/com.*` is some app's private data).
    if known.is_empty() {
        let sample: String = pat
            .chars()
            .map(|c| {
                if matches!(c, '*' | '?' | '[' | ']') || c == UNKNOWN {
                    'x'
                } else {
                    c
                }
            })
            .collect();
        let mut cand = format!("{}/{sample}", parent.trim_end_matches('/'));
        if g + 1 == comps.len() {
            if protected(&cand) {
                return Some(format!("{parent}/{pat}"));
            }
        } else {
            for rest in &comps[g + 1..] {
                cand.push('/');
                cand.push_str(rest);
            }
            if let Some(hit) = protected_match(&cand) {
                return Some(hit);
            }
        }
    }
    (known.is_empty() && matches_all && g + 1 == comps.len() && contents_protected(&parent))
        .then_some(parent)
}

/// Whether emptying `p` is as bad as deleting it. `Download` is the one user folder people
/// clear out wholesale; the folder itself stays protected.
fn contents_protected(p: &str) -> bool {
    protected(p) && !p.ends_with("/emulated/0/Download") && !p.contains("/Download/")
}

fn is_pattern(c: &str) -> bool {
    c.contains(['*', '?', '[', UNKNOWN])
}

/// Shell pattern match; [`UNKNOWN`] in the pattern matches anything, like `*`.
pub(in crate::guard) fn glob_match(pat: &str, s: &str) -> bool {
    let p: Vec<char> = pat.chars().collect();
    let s: Vec<char> = s.chars().collect();
    let (mut pi, mut si) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    let mut steps = 0usize;
    while si < s.len() {
        steps += 1;
        if steps > 100_000 {
            return true;
        }
        if pi < p.len() && (p[pi] == '*' || p[pi] == UNKNOWN) {
            star = Some((pi, si));
            pi += 1;
            continue;
        }
        if pi < p.len()
            && let Some(len) = class_match(&p[pi..], s[si])
        {
            pi += len;
            si += 1;
            continue;
        }
        match star {
            Some((sp, ss)) => {
                pi = sp + 1;
                si = ss + 1;
                star = Some((sp, ss + 1));
            }
            None => return false,
        }
    }
    p[pi..].iter().all(|c| *c == '*' || *c == UNKNOWN)
}

/// Whether [`glob_match`] reads `pat` exactly: false when a bracket set holds a member it
/// reads as "any character" (a class, an equivalence class, a collating element, an
/// escape, a leading `^`). Where a match computes a value (`${X#…}`) rather than a reach,
/// such a pattern leaves the value unknown.
pub(in crate::guard) fn pattern_exact(pat: &str) -> bool {
    let p: Vec<char> = pat.chars().collect();
    (0..p.len())
        .filter(|i| p[*i] == '[')
        .all(|i| bracket(&p[i..]).is_none_or(|(_, set)| !set.any && !set.caret))
}

/// Matches one pattern element at the start of `p` against `c`; returns its length.
///
/// A bracket set is read as POSIX and both shells read it: `!` (and, for busybox's
/// fnmatch, `^`) negates, a `]` first in the set is a member, and a set with no closing
/// `]` is a plain `[`. Members the guard does not model exactly (classes `[:alpha:]`,
/// equivalence classes `[=v=]`, collating elements `[.o.]`, escapes) make the set match
/// any one character: reading more places than the shell reaches only refuses more.
fn class_match(p: &[char], c: char) -> Option<usize> {
    match p[0] {
        '?' => Some(1),
        '[' => match bracket(p) {
            None => (c == '[').then_some(1),
            Some((len, set)) => set.matches(c).then_some(len),
        },
        x if x == c => Some(1),
        _ => None,
    }
}

/// A parsed bracket set: its members, whether it is negated, and whether it holds a
/// member read as "any character".
struct Set {
    neg: bool,
    caret: bool,
    any: bool,
    items: Vec<(char, char)>,
}

impl Set {
    fn matches(&self, c: char) -> bool {
        if self.any {
            return true;
        }
        // `[^…]`: busybox negates, mksh reads `^` as a member; one reading or the other
        // matches every character.
        if self.caret {
            return true;
        }
        let hit = self.items.iter().any(|(lo, hi)| *lo <= c && c <= *hi);
        hit != self.neg
    }
}

/// Parses the bracket set at the start of `p` (`p[0] == '['`): its length and the set, or
/// `None` when it has no closing `]`.
fn bracket(p: &[char]) -> Option<(usize, Set)> {
    let mut i = 1;
    let mut set = Set {
        neg: false,
        caret: false,
        any: false,
        items: Vec::new(),
    };
    match p.get(i) {
        Some('!') => {
            set.neg = true;
            i += 1;
        }
        Some('^') => {
            set.caret = true;
            i += 1;
        }
        _ => {}
    }
    let first = i;
    loop {
        let c = *p.get(i)?;
        if c == ']' && i > first {
            return Some((i + 1, set));
        }
        if c == '[' && matches!(p.get(i + 1), Some(':' | '=' | '.')) {
            let kind = p[i + 1];
            let close = p[i + 2..]
                .windows(2)
                .position(|w| w[0] == kind && w[1] == ']')?;
            set.any = true;
            i += close + 4;
            continue;
        }
        let lo = if c == '\\' {
            i += 1;
            set.any = true;
            *p.get(i)?
        } else {
            c
        };
        if p.get(i + 1) == Some(&'-') && p.get(i + 2).is_some_and(|x| *x != ']') {
            set.items.push((lo, p[i + 2]));
            i += 3;
        } else {
            set.items.push((lo, lo));
            i += 1;
        }
    }
}
