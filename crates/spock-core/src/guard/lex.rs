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

mod word;

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
}
