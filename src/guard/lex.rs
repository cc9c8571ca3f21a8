//! A small POSIX-shell lexer for the catastrophic-command guard.
//!
//! It splits a command line into words and operators the way `sh`/`mksh` would, keeping each
//! word as segments (literal text, `$NAME`, `${NAME:-default}`, `$(…)`/backticks) so that
//! expansion can happen later, command by command, with the variables assigned so far.
//! `shell-words` cannot do this job: it knows quotes but not `;`, `|`, `&&`, `$(…)` or
//! here-strings, and a guard that splits on `;` before honouring quotes is wrong both ways.
//! Anything it does not understand becomes [`Seg::Unknown`], which the guard treats as "could
//! be anything" rather than as empty.
use super::escape::ansi_c;

/// Quoted `{`, `,` and `}` are kept as private-use characters so that brace expansion,
/// which applies to unquoted text only, can tell them apart; [`unmark`] restores them.
const MARKS: [(char, char); 3] = [('{', '\u{F8F0}'), ('}', '\u{F8F1}'), (',', '\u{F8F2}')];

pub(super) fn mark(c: char) -> char {
    MARKS.iter().find(|(p, _)| *p == c).map_or(c, |(_, m)| *m)
}

pub(super) fn unmark(s: &str) -> String {
    s.chars()
        .map(|c| MARKS.iter().find(|(_, m)| *m == c).map_or(c, |(p, _)| *p))
        .collect()
}

/// One piece of a word before expansion.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Seg {
    Lit(String),
    /// `~` at the start of a word: the home directory (`/` for the Android shell user).
    Tilde,
    /// `$NAME`, `${NAME}`, `${NAME:-default}`, `${NAME#pat}`, …
    Param {
        name: String,
        quoted: bool,
        op: ParamOp,
    },
    /// `$(…)` or `` `…` ``: a script whose output becomes text.
    Subst {
        script: String,
        quoted: bool,
    },
    /// An expansion this lexer does not evaluate (`$((…))`, `${X#pat}`, …).
    Unknown {
        quoted: bool,
    },
}

/// What `${NAME…}` does to the value after the name.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum ParamOp {
    None,
    /// `:-`, `-`, `:=`, `=`: the word when the value is empty or unset.
    Default(Vec<Seg>),
    /// `:+`, `+`: the word when the value is set.
    Alt(Vec<Seg>),
    /// `#`, `##`, `%`, `%%`: remove a matching prefix or suffix.
    Trim {
        suffix: bool,
        longest: bool,
        pat: Vec<Seg>,
    },
    /// `${#NAME}`.
    Len,
    /// `${NAME:off}` / `${NAME:off:len}` with literal numbers.
    Slice(i64, Option<i64>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Op {
    /// `;`, `&`, newline: the end of an and-or list.
    Seq,
    /// `&&`.
    And,
    /// `||`.
    Or,
    /// `|` or `|&`.
    Pipe,
    /// `)` (ends a `case` pattern; stray otherwise).
    Close,
    /// `;;` (ends a `case` arm).
    DSemi,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum RedirKind {
    /// `>`, `>|`, `&>`, `<>`: a file written to.
    Out,
    /// `>>`: a file appended to.
    Append,
    /// `<`: a file read from.
    In,
    /// `<<<` here-string, or `<<` here-document (its body is the target).
    Here,
    /// `>&N`, `<&N`: descriptor duplication, no file involved.
    Dup,
}

#[derive(Debug, Clone, PartialEq)]
pub(super) enum Tok {
    Word(Vec<Seg>),
    Op(Op),
    Redir(RedirKind, Vec<Seg>),
    /// `( … )` with its inner script.
    Subshell(String),
}

pub(super) fn lex(src: &str) -> Vec<Tok> {
    let mut lx = Lexer {
        c: src.chars().collect(),
        i: 0,
        toks: Vec::new(),
        heredocs: Vec::new(),
    };
    lx.run();
    lx.toks
}

/// Lexes a fragment (the default of `${X:-…}`) as the inside of one word.
fn lex_fragment(src: &str, quoted: bool) -> Vec<Seg> {
    let mut lx = Lexer {
        c: src.chars().collect(),
        i: 0,
        toks: Vec::new(),
        heredocs: Vec::new(),
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
            '\'' if !quoted => lit.push_str(&lx.until('\'')),
            '"' if !quoted => {}
            _ => lit.push(ch),
        }
    }
    flush(&mut lit, &mut segs);
    segs
}

fn flush(lit: &mut String, segs: &mut Vec<Seg>) {
    if !lit.is_empty() {
        segs.push(Seg::Lit(std::mem::take(lit)));
    }
}

struct Lexer {
    c: Vec<char>,
    i: usize,
    toks: Vec<Tok>,
    /// Here-document delimiters waiting for the next newline, with the index of their token.
    heredocs: Vec<(String, usize)>,
}

impl Lexer {
    fn peek(&self, off: usize) -> Option<char> {
        self.c.get(self.i + off).copied()
    }

    fn run(&mut self) {
        while let Some(ch) = self.peek(0) {
            match ch {
                ' ' | '\t' | '\r' => self.i += 1,
                '\n' => {
                    self.i += 1;
                    self.toks.push(Tok::Op(Op::Seq));
                    self.read_heredocs();
                }
                '#' => {
                    while self.peek(0).is_some_and(|c| c != '\n') {
                        self.i += 1;
                    }
                }
                ';' | '&' | '|' | ')' => self.operator(),
                '(' => {
                    self.i += 1;
                    let inner = self.balanced(')');
                    self.toks.push(Tok::Subshell(inner));
                }
                '<' | '>' => self.redirect(),
                _ => {
                    let w = self.word();
                    self.push_word(w);
                }
            }
        }
    }

    fn push_word(&mut self, w: Vec<Seg>) {
        // A word of digits directly before `<`/`>` is a descriptor number, not an argument.
        if matches!(self.peek(0), Some('<' | '>'))
            && let [Seg::Lit(s)] = w.as_slice()
            && s.chars().all(|c| c.is_ascii_digit())
        {
            return;
        }
        self.toks.push(Tok::Word(w));
    }

    fn operator(&mut self) {
        let ch = self.c[self.i];
        self.i += 1;
        let next = self.peek(0);
        let op = match (ch, next) {
            ('|', Some('|')) => {
                self.i += 1;
                Op::Or
            }
            ('&', Some('&')) => {
                self.i += 1;
                Op::And
            }
            (';', Some(';' | '&')) => {
                // `;;`, and mksh's `;&` fall-through.
                self.i += 1;
                Op::DSemi
            }
            (')', _) => Op::Close,
            ('|', Some('&')) => {
                self.i += 1;
                Op::Pipe
            }
            ('|', _) => Op::Pipe,
            ('&', Some('>')) => {
                self.i += 1;
                if self.peek(0) == Some('>') {
                    self.i += 1;
                }
                let target = self.target();
                self.toks.push(Tok::Redir(RedirKind::Out, target));
                return;
            }
            _ => Op::Seq,
        };
        self.toks.push(Tok::Op(op));
    }

    fn redirect(&mut self) {
        let ch = self.c[self.i];
        self.i += 1;
        let kind = if ch == '>' {
            match self.peek(0) {
                Some('>') => {
                    self.i += 1;
                    RedirKind::Append
                }
                Some('|') => {
                    self.i += 1;
                    RedirKind::Out
                }
                Some('&') => {
                    self.i += 1;
                    let t = self.target();
                    // `>&file` writes to a file in bash; `>&2` duplicates a descriptor.
                    let dup = matches!(t.as_slice(), [Seg::Lit(s)] if s == "-" || s.chars().all(|c| c.is_ascii_digit()));
                    let kind = if dup { RedirKind::Dup } else { RedirKind::Out };
                    self.toks.push(Tok::Redir(kind, t));
                    return;
                }
                _ => RedirKind::Out,
            }
        } else {
            match (self.peek(0), self.peek(1)) {
                (Some('<'), Some('<')) => {
                    self.i += 2;
                    RedirKind::Here
                }
                (Some('<'), _) => {
                    self.i += 1;
                    if self.peek(0) == Some('-') {
                        self.i += 1;
                    }
                    let delim = self.target();
                    let text: String = delim
                        .iter()
                        .map(|s| if let Seg::Lit(l) = s { l.as_str() } else { "" })
                        .collect();
                    self.heredocs.push((text, self.toks.len()));
                    self.toks.push(Tok::Redir(RedirKind::Here, Vec::new()));
                    return;
                }
                (Some('&'), _) => {
                    self.i += 1;
                    let t = self.target();
                    self.toks.push(Tok::Redir(RedirKind::Dup, t));
                    return;
                }
                (Some('>'), _) => {
                    self.i += 1;
                    RedirKind::Out
                }
                _ => RedirKind::In,
            }
        };
        let t = self.target();
        self.toks.push(Tok::Redir(kind, t));
    }

    fn target(&mut self) -> Vec<Seg> {
        while matches!(self.peek(0), Some(' ' | '\t')) {
            self.i += 1;
        }
        self.word()
    }

    /// Reads here-document bodies after a newline; each body becomes its token's target.
    fn read_heredocs(&mut self) {
        for (delim, idx) in std::mem::take(&mut self.heredocs) {
            let mut body = String::new();
            loop {
                if self.i >= self.c.len() {
                    break;
                }
                let start = self.i;
                while self.peek(0).is_some_and(|c| c != '\n') {
                    self.i += 1;
                }
                let line: String = self.c[start..self.i].iter().collect();
                self.i = (self.i + 1).min(self.c.len());
                if line.trim_start_matches('\t') == delim {
                    break;
                }
                body.push_str(&line);
                body.push('\n');
            }
            if let Some(Tok::Redir(_, t)) = self.toks.get_mut(idx) {
                *t = vec![Seg::Lit(body)];
            }
        }
    }

    fn word(&mut self) -> Vec<Seg> {
        let mut segs = Vec::new();
        let mut lit = String::new();
        if self.peek(0) == Some('~')
            && matches!(
                self.peek(1),
                None | Some('/' | ' ' | '\t' | '\n' | ';' | '&' | '|' | ')')
            )
        {
            self.i += 1;
            segs.push(Seg::Tilde);
        }
        while let Some(ch) = self.peek(0) {
            match ch {
                ' ' | '\t' | '\r' | '\n' | ';' | '&' | '|' | '(' | ')' | '<' | '>' => break,
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

    fn double_quoted(&mut self, lit: &mut String, segs: &mut Vec<Seg>) {
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
    fn dollar(&mut self, quoted: bool) -> Seg {
        match self.peek(0) {
            Some('(') if self.peek(1) == Some('(') => {
                self.i += 2;
                self.balanced(')');
                if self.peek(0) == Some(')') {
                    self.i += 1;
                }
                Seg::Unknown { quoted }
            }
            Some('(') => {
                self.i += 1;
                Seg::Subst {
                    script: self.balanced(')'),
                    quoted,
                }
            }
            Some('{') => {
                self.i += 1;
                let inner = self.balanced('}');
                param_braced(&inner, quoted)
            }
            Some('\'') if !quoted => {
                self.i += 1;
                Seg::Lit(ansi_c(&self.until('\'')).chars().map(mark).collect())
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

    fn until(&mut self, end: char) -> String {
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

    fn backtick(&mut self) -> String {
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
    fn balanced(&mut self, close: char) -> String {
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
    if name.is_empty() {
        return Seg::Unknown { quoted };
    }
    if rest.is_empty() {
        return param(name, ParamOp::None);
    }
    for (pfx, alt) in [(":-", false), (":=", false), ("-", false), ("=", false), (":+", true), ("+", true)] {
        if let Some(w) = rest.strip_prefix(pfx) {
            let w = lex_fragment(w, quoted);
            return param(name, if alt { ParamOp::Alt(w) } else { ParamOp::Default(w) });
        }
    }
    for (pfx, suffix, longest) in [("##", false, true), ("#", false, false), ("%%", true, true), ("%", true, false)] {
        if let Some(p) = rest.strip_prefix(pfx) {
            let pat = lex_fragment(p, false);
            return param(name, ParamOp::Trim { suffix, longest, pat });
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
    Seg::Unknown { quoted }
}

fn is_name(s: &str) -> bool {
    s.chars().next().is_some_and(|c| c == '_' || c.is_ascii_alphabetic())
        && s.chars().all(|c| c == '_' || c.is_ascii_alphanumeric())
}
