//! Words: quoting (`'…'`, `"…"`, backslash, `$'…'`), parameter expansions (`$X`, `${X:-…}`,
//! `${X#…}`, `${#X}`, `${X:1:2}`), command substitution (`$(…)`, backticks) and the balanced
//! scanning they need. Split from [`super`] to keep each file readable; the token level
//! (operators, redirections, here-documents) stays there.
use super::ansi_c;
use super::{Lexer, ParamOp, Seg, flush, mark};

/// How deep defaults may nest (`${X:-${Y:-…}}`) before the rest is an expansion this lexer
/// does not read. Each level is a call: 2,000 levels in a 14 KB command overflowed the stack
/// and aborted the server.
const MAX_FRAGMENT_DEPTH: usize = 16;

thread_local! {
    static FRAGMENT_DEPTH: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Lexes a fragment (the default of `${X:-…}`) as the inside of one word.
pub(super) fn lex_fragment(src: &str, quoted: bool) -> Vec<Seg> {
    let depth = FRAGMENT_DEPTH.with(|d| d.get());
    if depth >= MAX_FRAGMENT_DEPTH {
        return vec![Seg::Unknown { quoted }];
    }
    FRAGMENT_DEPTH.with(|d| d.set(depth + 1));
    let segs = lex_fragment_at(src, quoted);
    FRAGMENT_DEPTH.with(|d| d.set(depth));
    segs
}

fn lex_fragment_at(src: &str, quoted: bool) -> Vec<Seg> {
    let mut lx = Lexer {
        c: src.chars().collect(),
        i: 0,
        toks: Vec::new(),
        heredocs: Vec::new(),
        fd: None,
    };
    let mut segs = Vec::new();
    let mut lit = String::new();
    while lx.i < lx.c.len() {
        let ch = lx.c[lx.i];
        lx.i += 1;
        match ch {
            '$' => {
                flush(&mut lit, &mut segs);
                segs.push(lx.dollar(quoted));
            }
            '\\' if lx.i < lx.c.len() => {
                lit.push(lx.c[lx.i]);
                lx.i += 1;
            }
            '`' => {
                flush(&mut lit, &mut segs);
                let script = lx.backtick();
                segs.push(Seg::Subst { script, quoted });
            }
            '\'' if !quoted => lit.push_str(&lx.until('\'')),
            '"' if !quoted => {}
            _ => lit.push(ch),
        }
    }
    flush(&mut lit, &mut segs);
    segs
}

impl Lexer {
    pub(super) fn word(&mut self) -> Vec<Seg> {
        let mut segs = Vec::new();
        let mut lit = String::new();
        if self.peek(0) == Some('~') {
            // `~`, `~+` (PWD), `~-` (OLDPWD), `~user`: up to the first `/` or blank.
            let mut j = self.i + 1;
            while self.c.get(j).is_some_and(|c| {
                !matches!(
                    c,
                    '/' | ' ' | '\t' | '\n' | ';' | '&' | '|' | ')' | '(' | '<' | '>'
                )
            }) {
                j += 1;
            }
            let user: String = self.c[self.i + 1..j].iter().collect();
            let seg = match user.as_str() {
                "" | "root" | "shell" => Some(Seg::Tilde),
                "+" => Some(Seg::Param {
                    name: "PWD".into(),
                    quoted: true,
                    op: ParamOp::None,
                }),
                "-" => Some(Seg::Param {
                    name: "OLDPWD".into(),
                    quoted: true,
                    op: ParamOp::None,
                }),
                u if u.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') => {
                    Some(Seg::Unreadable {
                        text: format!("~{u}"),
                        quoted: true,
                    })
                }
                _ => None,
            };
            if let Some(seg) = seg {
                self.i = j;
                segs.push(seg);
            }
        }
        while let Some(ch) = self.peek(0) {
            match ch {
                ' ' | '\t' | '\n' | ';' | '&' | '|' | '(' | ')' | '<' | '>' => break,
                c if c.is_control() => break,
                '\\' => {
                    self.i += 1;
                    match self.peek(0) {
                        Some('\n') => self.i += 1,
                        Some(c) => {
                            lit.push(mark(c));
                            self.i += 1;
                        }
                        None => {}
                    }
                }
                '\'' => {
                    self.i += 1;
                    lit.extend(self.until('\'').chars().map(mark));
                }
                '"' => {
                    self.i += 1;
                    self.double_quoted(&mut lit, &mut segs);
                }
                '$' => {
                    self.i += 1;
                    flush(&mut lit, &mut segs);
                    segs.push(self.dollar(false));
                }
                '`' => {
                    self.i += 1;
                    flush(&mut lit, &mut segs);
                    let script = self.backtick();
                    segs.push(Seg::Subst {
                        script,
                        quoted: false,
                    });
                }
                // In an assignment, `~` after `=` or `:` is expanded (`P=/x:~/vendor`).
                '~' if segs.is_empty()
                    && (lit.ends_with(':') || lit.ends_with('='))
                    && is_assignment_start(&lit)
                    && matches!(
                        self.peek(1),
                        None | Some('/' | ':' | ' ' | '\t' | '\n' | ';')
                    ) =>
                {
                    self.i += 1;
                    flush(&mut lit, &mut segs);
                    segs.push(Seg::Tilde);
                }
                _ => {
                    lit.push(ch);
                    self.i += 1;
                }
            }
        }
        flush(&mut lit, &mut segs);
        if segs.is_empty() {
            // `''` is an empty word, not nothing.
            segs.push(Seg::Lit(String::new()));
        }
        segs
    }

    pub(super) fn double_quoted(&mut self, lit: &mut String, segs: &mut Vec<Seg>) {
        while let Some(ch) = self.peek(0) {
            self.i += 1;
            match ch {
                '"' => return,
                '\\' => match self.peek(0) {
                    Some(c @ ('$' | '`' | '"' | '\\')) => {
                        lit.push(c);
                        self.i += 1;
                    }
                    Some('\n') => self.i += 1,
                    _ => lit.push('\\'),
                },
                '$' => {
                    flush(lit, segs);
                    segs.push(self.dollar(true));
                }
                '`' => {
                    flush(lit, segs);
                    let script = self.backtick();
                    segs.push(Seg::Subst {
                        script,
                        quoted: true,
                    });
                }
                _ => lit.push(mark(ch)),
            }
        }
        // An empty `""` still makes a word.
        if lit.is_empty() && segs.is_empty() {
            segs.push(Seg::Lit(String::new()));
        }
    }

    /// Called after a `$`.
    pub(super) fn dollar(&mut self, quoted: bool) -> Seg {
        match self.peek(0) {
            Some('(') if self.peek(1) == Some('(') => {
                self.i += 2;
                let expr = self.balanced(')');
                if self.peek(0) != Some(')') {
                    // mksh re-reads `$((cmd) )` as a command substitution of a subshell.
                    return Seg::Unreadable {
                        text: "$((…) )".into(),
                        quoted,
                    };
                }
                self.i += 1;
                Seg::Arith { expr, quoted }
            }
            Some('(') => {
                self.i += 1;
                Seg::Subst {
                    script: self.balanced(')'),
                    quoted,
                }
            }
            Some('{') if self.peek(1) == Some('|') => {
                // mksh's `${|list;}` is worth what the list leaves in REPLY.
                self.i += 1;
                self.balanced('}');
                Seg::Unreadable {
                    text: "${|…;}".into(),
                    quoted,
                }
            }
            Some('{') if matches!(self.peek(1), Some(' ' | '\t' | '\n')) => {
                // mksh's `${ list;}` runs the list in this shell (its assignments and `cd`
                // stay); busybox reads it as a bad substitution.
                self.i += 1;
                self.balanced('}');
                Seg::Unreadable {
                    text: "${ …;}".into(),
                    quoted,
                }
            }
            Some('{') => {
                self.i += 1;
                let inner = self.balanced('}');
                if quoted && inner.contains('\'') {
                    // Inside double quotes, shells disagree on whether `'` quotes here.
                    return Seg::Unreadable {
                        text: format!("\"${{{inner}}}\""),
                        quoted,
                    };
                }
                param_braced(&inner, quoted)
            }
            Some('"') => {
                // mksh's `$"…"`.
                self.i += 1;
                let body = self.until('"');
                Seg::Unreadable {
                    text: format!("$\"{body}\""),
                    quoted,
                }
            }
            Some('\'') if !quoted => {
                self.i += 1;
                // `\'` inside `$'…'` is a quote, not the end.
                let mut s = String::new();
                while let Some(c) = self.peek(0) {
                    self.i += 1;
                    match c {
                        '\'' => break,
                        '\\' => {
                            s.push(c);
                            if let Some(d) = self.peek(0) {
                                s.push(d);
                                self.i += 1;
                            }
                        }
                        _ => s.push(c),
                    }
                }
                Seg::Lit(ansi_c(&s).chars().map(mark).collect())
            }
            Some(c) if c == '_' || c.is_ascii_alphabetic() => {
                let mut name = String::new();
                while let Some(c) = self
                    .peek(0)
                    .filter(|c| *c == '_' || c.is_ascii_alphanumeric())
                {
                    name.push(c);
                    self.i += 1;
                }
                Seg::Param {
                    name,
                    quoted,
                    op: ParamOp::None,
                }
            }
            Some(c) if c.is_ascii_digit() || "@*#?$!-".contains(c) => {
                self.i += 1;
                Seg::Param {
                    name: c.to_string(),
                    quoted,
                    op: ParamOp::None,
                }
            }
            _ => Seg::Lit("$".into()),
        }
    }

    pub(super) fn until(&mut self, end: char) -> String {
        let mut s = String::new();
        while let Some(c) = self.peek(0) {
            self.i += 1;
            if c == end {
                break;
            }
            s.push(c);
        }
        s
    }

    pub(super) fn backtick(&mut self) -> String {
        let mut s = String::new();
        while let Some(c) = self.peek(0) {
            self.i += 1;
            match c {
                '`' => break,
                '\\' if matches!(self.peek(0), Some('`' | '\\' | '$')) => {
                    s.push(self.c[self.i]);
                    self.i += 1;
                }
                _ => s.push(c),
            }
        }
        s
    }

    /// Text up to the matching `close` (consumed), skipping quoted parts; unterminated input
    /// runs to the end.
    pub(super) fn balanced(&mut self, close: char) -> String {
        let open = if close == ')' { '(' } else { '{' };
        let start = self.i;
        let mut depth = 0usize;
        while let Some(c) = self.peek(0) {
            self.i += 1;
            match c {
                '\\' => self.i = (self.i + 1).min(self.c.len()),
                '\'' => {
                    self.until('\'');
                }
                '"' => {
                    while let Some(d) = self.peek(0) {
                        self.i += 1;
                        if d == '\\' {
                            self.i = (self.i + 1).min(self.c.len());
                        } else if d == '"' {
                            break;
                        }
                    }
                }
                c if c == open => depth += 1,
                c if c == close => {
                    if depth == 0 {
                        return self.c[start..self.i - 1].iter().collect();
                    }
                    depth -= 1;
                }
                _ => {}
            }
        }
        self.c[start..].iter().collect()
    }
}

/// Whether `lit` begins like `NAME=`.
fn is_assignment_start(lit: &str) -> bool {
    lit.split_once('=').is_some_and(|(n, _)| is_name(n))
}

fn param_braced(inner: &str, quoted: bool) -> Seg {
    let param = |name: &str, op| Seg::Param {
        name: name.into(),
        quoted,
        op,
    };
    if let Some(n) = inner.strip_prefix('#')
        && !n.is_empty()
        && is_name(n)
    {
        return param(n, ParamOp::Len);
    }
    let name_end = if inner.starts_with(|c: char| c.is_ascii_digit() || "@*#?$!-".contains(c)) {
        1
    } else {
        inner
            .find(|c: char| !(c == '_' || c.is_ascii_alphanumeric()))
            .unwrap_or(inner.len())
    };
    let (name, rest) = inner.split_at(name_end);
    let unreadable = || Seg::Unreadable {
        text: format!("${{{inner}}}"),
        quoted,
    };
    if name.is_empty() {
        return unreadable();
    }
    if rest.is_empty() {
        return param(name, ParamOp::None);
    }
    for (pfx, alt) in [
        (":-", false),
        (":=", false),
        ("-", false),
        ("=", false),
        (":+", true),
        ("+", true),
    ] {
        if let Some(w) = rest.strip_prefix(pfx) {
            let w = lex_fragment(w, quoted);
            return param(
                name,
                if alt {
                    ParamOp::Alt(w)
                } else {
                    ParamOp::Default(w)
                },
            );
        }
    }
    for (pfx, suffix, longest) in [
        ("##", false, true),
        ("#", false, false),
        ("%%", true, true),
        ("%", true, false),
    ] {
        if let Some(p) = rest.strip_prefix(pfx) {
            let pat = lex_fragment(p, false);
            return param(
                name,
                ParamOp::Trim {
                    suffix,
                    longest,
                    pat,
                },
            );
        }
    }
    if let Some(r) = rest.strip_prefix(':') {
        let mut it = r.splitn(2, ':');
        let off = it.next().and_then(|o| o.trim().parse::<i64>().ok());
        let len = it.next().map(|l| l.trim().parse::<i64>().ok());
        match (off, len) {
            (Some(o), None) => return param(name, ParamOp::Slice(o, None)),
            (Some(o), Some(Some(l))) => return param(name, ParamOp::Slice(o, Some(l))),
            _ => {}
        }
    }
    if let Some(r) = rest.strip_prefix('/') {
        let (all, r) = match r.strip_prefix('/') {
            Some(r) => (true, r),
            None => (false, r),
        };
        // The pattern ends at the first unescaped `/` outside quotes and substitutions.
        let split = {
            let c: Vec<char> = r.chars().collect();
            let (mut i, mut depth, mut q) = (0, 0i32, None::<char>);
            let mut at = None;
            while i < c.len() {
                match (c[i], q) {
                    ('\\', _) => i += 1,
                    (x @ ('\'' | '"'), None) => q = Some(x),
                    (x, Some(y)) if x == y => q = None,
                    ('(' | '{', None) => depth += 1,
                    (')' | '}', None) => depth -= 1,
                    ('/', None) if depth == 0 => {
                        at = Some(i);
                        break;
                    }
                    _ => {}
                }
                i += 1;
            }
            at.map(|a| c[..a].iter().collect::<String>().len())
        };
        let (pat, rep) = match split {
            Some(a) => (&r[..a], &r[a + 1..]),
            None => (r, ""),
        };
        return param(
            name,
            ParamOp::Replace {
                all,
                pat: lex_fragment(pat, false),
                rep: lex_fragment(rep, quoted),
            },
        );
    }
    // `${X[0]}`, `${X[@]}`: an array element by a literal index reads a value and runs
    // nothing; any other subscript is arithmetic the guard does not follow.
    if let Some(sub) = rest.strip_prefix('[').and_then(|r| r.strip_suffix(']'))
        && (sub == "@" || sub == "*" || sub.chars().all(|c| c.is_ascii_digit()))
        && !sub.is_empty()
    {
        return Seg::Unknown { quoted };
    }
    unreadable()
}

fn is_name(s: &str) -> bool {
    s.chars()
        .next()
        .is_some_and(|c| c == '_' || c.is_ascii_alphabetic())
        && s.chars().all(|c| c == '_' || c.is_ascii_alphanumeric())
}
