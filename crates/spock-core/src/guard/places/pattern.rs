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

/// Matches one pattern element at the start of `p` against `c`; returns its length.
fn class_match(p: &[char], c: char) -> Option<usize> {
    match p[0] {
        '?' => Some(1),
        // A POSIX class (`[[:upper:]]`) is read as any one character.
        '[' if p.get(1) == Some(&'[') && p.get(2) == Some(&':') => {
            let end = p.windows(3).position(|w| w == [':', ']', ']'])?;
            Some(end + 3)
        }
        '[' => {
            let close = p.iter().skip(2).position(|x| *x == ']').map(|i| i + 2)?;
            let body = &p[1..close];
            let (neg, body) = match body.first() {
                Some('!' | '^') => (true, &body[1..]),
                _ => (false, body),
            };
            let mut hit = false;
            let mut i = 0;
            while i < body.len() {
                if i + 2 < body.len() && body[i + 1] == '-' {
                    hit |= body[i] <= c && c <= body[i + 2];
                    i += 3;
                } else {
                    hit |= body[i] == c;
                    i += 1;
                }
            }
            (hit != neg).then_some(close + 1)
        }
        x if x == c => Some(1),
        _ => None,
    }
}
