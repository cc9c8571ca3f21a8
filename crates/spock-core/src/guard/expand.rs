//! Word expansion in the abstract shell: parameters (with `:-`, `:+`, `#`, `%`, `:off:len`,
//! `${#X}`), `$@`/`$*`, `~`, command substitution and field splitting on the current `IFS`.
//!
//! A word expands to a few alternatives (one per combination of candidate values), each a
//! list of fields. Unknown text stays in a field as [`UNKNOWN`]; unquoted, it is kept as one
//! field rather than guessed apart, and the reason it is unknown is noted on the evaluator
//! for the refusal message.
use std::rc::Rc;

use super::eval::{Eval, MAX_ALTS, R};
use super::lex::{ParamOp, Seg};
use super::parse::Word;
use super::places::{glob_match, pattern_exact};
use super::state::{Env, Params, UNKNOWN, UNKNOWN_S, Val};

/// Separates the fields of a quoted `"$@"` inside one candidate.
const FIELD_BREAK: char = '\u{1}';

#[derive(Clone)]
struct Part {
    fields: Vec<String>,
    cur: String,
    have: bool,
}

impl Eval {
    pub(super) fn expand(&mut self, w: &Word, env: &Env) -> R<Vec<Vec<String>>> {
        self.expand_with(w, env, true)
    }

    fn expand_with(&mut self, w: &Word, env: &Env, brace: bool) -> R<Vec<Vec<String>>> {
        let ifs: std::borrow::Cow<str> = match env.vars.get("IFS") {
            None => " \t\n".into(),
            Some(v) => v.single().unwrap_or(" \t\n").to_string().into(),
        };
        let mut parts = vec![Part {
            fields: Vec::new(),
            cur: String::new(),
            have: false,
        }];
        for seg in w {
            let (mut vals, quoted) = self.seg(seg, env)?;
            let keep_braces = quoted && !matches!(seg, Seg::Lit(_));
            if parts.len() * vals.len() > MAX_ALTS {
                self.why
                    .push(Rc::from("what a word with too many possible values holds"));
                vals = vec![UNKNOWN_S.to_string()];
            }
            let mut next = Vec::with_capacity(parts.len() * vals.len());
            for p in &parts {
                for v in &vals {
                    let mut p = p.clone();
                    if p.cur.len() + v.len() > super::state::MAX_VALUE {
                        self.why
                            .push(Rc::from("what a value too long to follow holds"));
                        push(&mut p, UNKNOWN_S, quoted, keep_braces, &ifs);
                    } else {
                        push(&mut p, v, quoted, keep_braces, &ifs);
                    }
                    next.push(p);
                }
            }
            parts = next;
        }
        Ok(parts
            .into_iter()
            .map(|mut p| {
                if p.have {
                    p.fields.push(p.cur);
                }
                // mksh expands unquoted `{a,b}` into words.
                p.fields
                    .into_iter()
                    .flat_map(|f| if brace { braces(&f, 0) } else { vec![f] })
                    .map(|f| super::lex::unmark(&f))
                    .collect()
            })
            .collect())
    }

    /// Expands a word without field splitting (assignments, redirection targets, here-docs).
    pub(super) fn expand_joined(&mut self, w: &Word, env: &Env) -> R<Val> {
        let quoted: Word = w
            .iter()
            .map(|s| match s.clone() {
                Seg::Param { name, op, .. } => Seg::Param {
                    name,
                    quoted: true,
                    op,
                },
                Seg::Subst { script, .. } => Seg::Subst {
                    script,
                    quoted: true,
                },
                Seg::Unknown { .. } => Seg::Unknown { quoted: true },
                Seg::Arith { expr, .. } => Seg::Arith { expr, quoted: true },
                Seg::Unreadable { text, .. } => Seg::Unreadable { text, quoted: true },
                other => other,
            })
            .collect();
        let alts = self.expand_with(&quoted, env, false)?;
        let why = self.why.first().cloned();
        Ok(Val::from_cands(
            alts.into_iter().map(|f| f.join(" ")).collect(),
            why,
        ))
    }

    /// The value of one segment, as one joined value.
    pub(super) fn seg_value(&mut self, seg: &Seg, env: &Env) -> R<Val> {
        let (cands, _) = self.seg(seg, env)?;
        let why = self.why.first().cloned();
        Ok(Val::from_cands(cands, why))
    }

    /// The candidate values of one segment and whether it is quoted.
    fn seg(&mut self, seg: &Seg, env: &Env) -> R<(Vec<String>, bool)> {
        let (v, quoted) = match seg {
            Seg::Lit(s) => return Ok((vec![s.clone()], true)),
            Seg::Tilde => (env.get("HOME"), true),
            Seg::Param { name, quoted, op } => (self.param(name, op, *quoted, env)?, *quoted),
            Seg::Subst { script, quoted } => {
                let mut sub = env.clone();
                let traps = self.traps.len();
                let mut out = self.script(script, &mut sub, None)?;
                // A trap set inside `$( )` runs when it ends: its output is captured too.
                for body in self.traps.split_off(traps.min(self.traps.len())) {
                    let t = self.script(&body, &mut sub, None)?;
                    out = super::eval::concat(&out, &t).join(&out);
                }
                let trimmed: Vec<String> = out
                    .cands
                    .iter()
                    .map(|c| c.trim_end_matches('\n').to_string())
                    .collect();
                (Val::from_cands(trimmed, out.why), *quoted)
            }
            Seg::Unknown { quoted } => (
                Val::unknown("what an array element holds (arrays are not followed)"),
                *quoted,
            ),
            Seg::Arith { expr, quoted } => (self.arith(expr, env)?, *quoted),
            Seg::Unreadable { text, .. } => {
                return Err(super::eval::cannot_read(&format!("`{text}`")));
            }
        };
        if v.is_unknown()
            && let Some(w) = &v.why
            && !self.why.contains(w)
        {
            self.why.push(w.clone());
        }
        Ok((v.cands, quoted))
    }

    fn param(&mut self, name: &str, op: &ParamOp, quoted: bool, env: &Env) -> R<Val> {
        let v = match name {
            "@" | "*" => match &env.params {
                Params::Known(ps) => {
                    let sep = if name == "@" && quoted {
                        FIELD_BREAK.to_string()
                    } else if quoted {
                        // `"$*"` joins with the first character of `IFS` (none when empty).
                        match env.vars.get("IFS").map(|v| v.single()) {
                            None => " ".to_string(),
                            Some(Some(ifs)) => {
                                ifs.chars().next().map(String::from).unwrap_or_default()
                            }
                            Some(None) => UNKNOWN_S.to_string(),
                        }
                    } else {
                        " ".to_string()
                    };
                    let mut acc = Val::known("");
                    for (i, p) in ps.iter().enumerate() {
                        let pre = if i == 0 { String::new() } else { sep.clone() };
                        acc = super::eval::concat(&acc, &super::eval::concat(&Val::known(pre), p));
                    }
                    acc
                }
                Params::Unknown(w) => Val::unknown(format!("`${name}` {w}")),
            },
            _ => env.get(name),
        };
        let set = env.is_set(name) || name.parse::<usize>().is_ok();
        Ok(match op {
            ParamOp::None => v,
            ParamOp::Default(w) | ParamOp::Alt(w) => {
                let word = self.expand_joined(w, env)?;
                let alt = matches!(op, ParamOp::Alt(_));
                let mut out: Option<Val> = None;
                for c in &v.cands {
                    let r = match (c.contains(UNKNOWN) || !set, c.is_empty(), alt) {
                        // Unknown: either could happen.
                        (true, _, _) => Val::known(c.clone()).join(&word),
                        (false, true, false) | (false, false, true) => word.clone(),
                        (false, false, false) => Val::known(c.clone()),
                        (false, true, true) => Val::known(""),
                    };
                    out = Some(out.map_or(r.clone(), |o| o.join(&r)));
                }
                let mut out = out.unwrap_or(word);
                out.why = out.why.or(v.why);
                out
            }
            // `sh -c` is not in UTF-8 mode: lengths, slices and `?` count bytes there and
            // characters elsewhere. Text beyond ASCII is not followed through them.
            ParamOp::Len | ParamOp::Slice(..) | ParamOp::Trim { .. }
                if v.cands.iter().any(|c| !c.is_ascii()) =>
            {
                Val::unknown(
                    "what a length, slice or pattern over text beyond ASCII gives (bytes or characters)",
                )
            }
            ParamOp::Len => map(&v, |c| Some(c.chars().count().to_string())),
            ParamOp::Slice(off, len) => map(&v, |c| {
                let chars: Vec<char> = c.chars().collect();
                let n = chars.len() as i64;
                let start = if *off < 0 {
                    (n + off).max(0)
                } else {
                    (*off).min(n)
                };
                let end = match len {
                    None => n,
                    Some(l) if *l < 0 => (n + l).max(start),
                    Some(l) => (start + l).min(n),
                };
                Some(chars[start as usize..end as usize].iter().collect())
            }),
            ParamOp::Replace { all, pat, rep } => {
                let p = self.expand_joined(pat, env)?;
                let r = self.expand_joined(rep, env)?;
                match (p.single(), r.single()) {
                    (Some(p), Some(r)) if !p.contains(['*', '?', '[']) && !p.is_empty() => {
                        let (p, r) = (p.to_string(), r.to_string());
                        map(&v, |c| {
                            Some(if *all {
                                c.replace(&p, &r)
                            } else {
                                c.replacen(&p, &r, 1)
                            })
                        })
                    }
                    _ => Val::unknown("what a `${X/pattern/replacement}` gives"),
                }
            }
            ParamOp::Trim {
                suffix,
                longest,
                pat,
            } => {
                let p = self.expand_joined(pat, env)?;
                let Some(p) = p.single().map(str::to_string) else {
                    return Ok(Val::unknown("what a `${X#…}` pattern holds"));
                };
                if p.contains('\\') || !pattern_exact(&p) {
                    return Ok(Val::unknown(
                        "what a `${X#…}` pattern with a backslash or a bracket class gives",
                    ));
                }
                // A pattern that matched nothing stays as text (`/data/misc/*.lck`), and a
                // trim can cut at its `*`: read both.
                let cut = map(&v, |c| {
                    c.find(['*', '?', '['])
                        .map(|i| c[..i].to_string())
                        .or_else(|| Some(trim(c, &p, *suffix, *longest)))
                });
                map(&v, |c| Some(trim(c, &p, *suffix, *longest))).join(&cut)
            }
        })
    }
}

/// Applies `f` to every known candidate; a candidate with unknown text stays unknown.
fn map(v: &Val, f: impl Fn(&str) -> Option<String>) -> Val {
    let mut out: Option<Val> = None;
    for c in &v.cands {
        let r = match (c.contains(UNKNOWN), f(c)) {
            (false, Some(s)) => Val::known(s),
            _ => Val::unknown("what a value computed from an unknown one holds"),
        };
        out = Some(out.map_or(r.clone(), |o| o.join(&r)));
    }
    let mut out = out.unwrap_or_else(|| Val::known(""));
    out.why = out.why.or_else(|| v.why.clone());
    out
}

/// Brace expansion: `a{b,c}d` is `abd acd`; nested and repeated braces, at most 64 words.
fn braces(w: &str, depth: usize) -> Vec<String> {
    let c: Vec<char> = w.chars().collect();
    let Some(open) = c.iter().position(|x| *x == '{') else {
        return vec![w.to_string()];
    };
    let mut level = 0;
    let mut commas = Vec::new();
    let mut close = None;
    for (i, ch) in c.iter().enumerate().skip(open) {
        match ch {
            '{' => level += 1,
            '}' => {
                level -= 1;
                if level == 0 {
                    close = Some(i);
                    break;
                }
            }
            ',' if level == 1 => commas.push(i),
            _ => {}
        }
    }
    let (Some(close), false) = (close, commas.is_empty() || depth > 8) else {
        // No expansion here; look for one later in the word.
        let head: String = c[..=open].iter().collect();
        let tail: String = c[open + 1..].iter().collect();
        return braces(&tail, depth + 1)
            .into_iter()
            .map(|t| format!("{head}{t}"))
            .take(64)
            .collect();
    };
    let pre: String = c[..open].iter().collect();
    let post: String = c[close + 1..].iter().collect();
    let mut bounds = vec![open];
    bounds.extend(&commas);
    bounds.push(close);
    let mut out = Vec::new();
    for pair in bounds.windows(2) {
        let alt: String = c[pair[0] + 1..pair[1]].iter().collect();
        for w in braces(&format!("{pre}{alt}{post}"), depth + 1) {
            if out.len() < 64 {
                out.push(w);
            }
        }
    }
    out
}

fn trim(s: &str, pat: &str, suffix: bool, longest: bool) -> String {
    let idx: Vec<usize> = s
        .char_indices()
        .map(|(i, _)| i)
        .chain(std::iter::once(s.len()))
        .collect();
    let order: Vec<usize> = if longest == suffix {
        idx.clone()
    } else {
        idx.iter().rev().copied().collect()
    };
    for i in order {
        let (cut, keep) = if suffix {
            (&s[i..], &s[..i])
        } else {
            (&s[..i], &s[i..])
        };
        if glob_match(pat, cut) {
            return keep.to_string();
        }
    }
    s.to_string()
}

fn push(p: &mut Part, v: &str, quoted: bool, keep_braces: bool, ifs: &str) {
    for c in v.chars() {
        if c == FIELD_BREAK || (!quoted && ifs.contains(c)) {
            if p.have || c == FIELD_BREAK {
                p.fields.push(std::mem::take(&mut p.cur));
            }
            p.have = false;
        } else {
            // A quoted value takes no part in brace expansion (`"$X"` with X=`{ a,b; }`).
            p.cur.push(if keep_braces && matches!(c, '{' | '}' | ',') {
                super::lex::mark(c)
            } else {
                c
            });
            p.have = true;
        }
    }
    if quoted {
        p.have = true;
    }
}
