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
    /// An expansion whose value the guard does not compute but which runs nothing
    /// (`${X[0]}`): its value is unknown text.
    Unknown {
        quoted: bool,
    },
    /// `$((…))`: arithmetic, read by [`super::arith`] (which refuses what it cannot prove inert).
    Arith {
        expr: String,
        quoted: bool,
    },
    /// A form the guard does not model (`${!X}`, `${X@Q}`, a subscript that is not a number):
    /// expanding it refuses the command, naming `text`.
    Unreadable {
        text: String,
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
    /// `${NAME/pat/rep}`, `${NAME//pat/rep}` (mksh).
    Replace {
        all: bool,
        pat: Vec<Seg>,
        rep: Vec<Seg>,
    },
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
    /// `>`, `>|`, `&>`: a file written to.
    Out,
    /// `<>`: a file opened to read and write (descriptor 0 unless one is named).
    ReadWrite,
    /// `>>`: a file appended to.
    Append,
    /// `<`: a file read from.
    In,
    /// `<<<` here-string, or `<<` here-document (its body is the target).
    Here,
    /// `>&N`, `>&-`: an output descriptor duplicated or closed, no file involved.
    DupOut,
    /// `<&N`, `<&-`: an input descriptor duplicated or closed.
    DupIn,
}

#[derive(Debug, Clone, PartialEq)]
pub(super) enum Tok {
    Word(Vec<Seg>),
    Op(Op),
    /// A redirection, its target and the descriptor written before it (`3<<EOF`).
    Redir(RedirKind, Vec<Seg>, Option<u32>),
    /// `( … )` with its inner script.
    Subshell(String),
    /// Something the guard does not read (a control character, a co-process): the command
    /// is refused, naming it.
    Unreadable(String),
}

pub(super) fn lex(src: &str) -> Vec<Tok> {
    let mut lx = Lexer {
        c: src.chars().collect(),
        i: 0,
        toks: Vec::new(),
        heredocs: Vec::new(),
        fd: None,
    };
    lx.run();
    lx.toks
}

/// The inside of `$((…))` as segments: substitutions and parameters are found as in a
/// double-quoted word; everything else stays literal arithmetic text.
pub(super) fn lex_arith(expr: &str) -> Vec<Seg> {
    word::lex_fragment(expr, true)
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
    /// Here-document delimiters waiting for the next newline, with the index of their token
    /// and whether the delimiter was quoted (an unquoted one expands its body).
    heredocs: Vec<(String, usize, bool)>,
    /// The descriptor number just read before a `<`/`>`.
    fd: Option<u32>,
}

impl Lexer {
    fn peek(&self, off: usize) -> Option<char> {
        self.c.get(self.i + off).copied()
    }

    fn run(&mut self) {
        while let Some(ch) = self.peek(0) {
            match ch {
                ' ' | '\t' => self.i += 1,
                c if c.is_control() && c != '\n' => {
                    // mksh does not read CR (or any other control character) as a blank.
                    self.i += 1;
                    self.toks.push(Tok::Unreadable(format!(
                        "a control character (U+{:04X}) outside quotes",
                        c as u32
                    )));
                }
                '\n' => {
                    self.i += 1;
                    // After `|`, `&&`, `||` the command goes on past the newline (and past
                    // any here-document bodies that follow it).
                    if !matches!(self.toks.last(), Some(Tok::Op(Op::Pipe | Op::And | Op::Or))) {
                        self.toks.push(Tok::Op(Op::Seq));
                    }
                    self.read_heredocs();
                }
                '#' => {
                    while self.peek(0).is_some_and(|c| c != '\n') {
                        self.i += 1;
                    }
                }
                ';' | '&' | '|' | ')' => self.operator(),
                '(' if self.peek(1) == Some('(') => {
                    // `(( expr ))`: an arithmetic command, read as `: $(( expr ))`.
                    self.i += 2;
                    let expr = self.balanced(')');
                    if self.peek(0) != Some(')') {
                        // mksh reads `((cmd) )` as nested subshells when no `))` closes it.
                        self.toks.push(Tok::Unreadable(
                            "a `((` that does not close with `))` (arithmetic or nested subshells)"
                                .into(),
                        ));
                        continue;
                    }
                    self.i += 1;
                    self.toks.push(Tok::Word(vec![Seg::Lit(":".into())]));
                    self.toks.push(Tok::Word(vec![Seg::Arith {
                        expr: expr.clone(),
                        quoted: true,
                    }]));
                    // busybox sh has no `((`: it runs `( (expr) )`. Read that too.
                    self.toks.push(Tok::Op(Op::Seq));
                    self.toks.push(Tok::Subshell(format!("({expr})")));
                }
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
            && !s.is_empty()
            && s.chars().all(|c| c.is_ascii_digit())
        {
            self.fd = s.parse().ok();
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
                // mksh: a co-process, fed later by `print -p` and read by `read -p`.
                self.i += 1;
                self.toks.push(Tok::Unreadable(
                    "a co-process `|&` (what `print -p` feeds it is not followed)".into(),
                ));
                return;
            }
            ('|', _) => Op::Pipe,
            ('&', Some('>')) => {
                self.i += 1;
                if self.peek(0) == Some('>') {
                    self.i += 1;
                }
                let target = self.target();
                self.toks.push(Tok::Redir(RedirKind::Out, target, None));
                // `&>FILE` is `>FILE 2>&1`.
                self.toks.push(Tok::Redir(
                    RedirKind::DupOut,
                    vec![Seg::Lit("1".into())],
                    Some(2),
                ));
                return;
            }
            _ => Op::Seq,
        };
        self.toks.push(Tok::Op(op));
    }

    fn redirect(&mut self) {
        let fd = self.fd.take();
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
                    if dup {
                        self.toks.push(Tok::Redir(RedirKind::DupOut, t, fd));
                    } else {
                        // `>&FILE` is `>FILE 2>&1`.
                        self.toks.push(Tok::Redir(RedirKind::Out, t, fd));
                        self.toks.push(Tok::Redir(
                            RedirKind::DupOut,
                            vec![Seg::Lit("1".into())],
                            Some(2),
                        ));
                    }
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
                    let glued_to_assignment = self.i >= 2 && self.c[self.i - 2] == '=';
                    self.i += 1;
                    if self.peek(0) == Some('-') {
                        self.i += 1;
                    }
                    while matches!(self.peek(0), Some(' ' | '\t')) {
                        self.i += 1;
                    }
                    let start = self.i;
                    if glued_to_assignment {
                        // mksh's `NAME=<<EOF` assigns the body to NAME.
                        self.toks.push(Tok::Unreadable(
                            "`NAME=<<`, mksh's here-document assignment".into(),
                        ));
                    }
                    let delim = self.target();
                    let quoted = self.c[start..self.i]
                        .iter()
                        .any(|c| matches!(c, '\'' | '"' | '\\'));
                    let text: String = delim
                        .iter()
                        .map(|s| if let Seg::Lit(l) = s { l.as_str() } else { "" })
                        .collect();
                    if text.is_empty() || text.contains(['\n', ';', '&', '|']) {
                        // mksh ends a here-document with no marker at the next `<<` line.
                        self.toks.push(Tok::Unreadable(
                            "a here-document without a plain delimiter".into(),
                        ));
                    }
                    self.heredocs
                        .push((super::lex::unmark(&text), self.toks.len(), quoted));
                    self.toks.push(Tok::Redir(RedirKind::Here, Vec::new(), fd));
                    return;
                }
                (Some('&'), _) => {
                    self.i += 1;
                    let t = self.target();
                    self.toks.push(Tok::Redir(RedirKind::DupIn, t, fd));
                    return;
                }
                (Some('>'), _) => {
                    self.i += 1;
                    RedirKind::ReadWrite
                }
                _ => RedirKind::In,
            }
        };
        let t = self.target();
        self.toks.push(Tok::Redir(kind, t, fd));
    }

    fn target(&mut self) -> Vec<Seg> {
        while matches!(self.peek(0), Some(' ' | '\t')) {
            self.i += 1;
        }
        self.word()
    }

    /// Reads here-document bodies after a newline; each body becomes its token's target.
    fn read_heredocs(&mut self) {
        for (delim, idx, quoted) in std::mem::take(&mut self.heredocs) {
            let mut body = String::new();
            loop {
                if self.i >= self.c.len() {
                    break;
                }
                let mut line = String::new();
                loop {
                    let start = self.i;
                    while self.peek(0).is_some_and(|c| c != '\n') {
                        self.i += 1;
                    }
                    line.extend(&self.c[start..self.i]);
                    self.i = (self.i + 1).min(self.c.len());
                    // In an unquoted here-document a backslash-newline joins lines, also
                    // for the delimiter (`EO\` + `F` is `EOF`).
                    let trailing = line.chars().rev().take_while(|c| *c == '\\').count();
                    if quoted || trailing % 2 == 0 || self.i >= self.c.len() {
                        break;
                    }
                    line.pop();
                }
                if line.trim_start_matches('\t') == delim {
                    break;
                }
                body.push_str(&line);
                body.push('\n');
            }
            if let Some(Tok::Redir(_, t, _)) = self.toks.get_mut(idx) {
                // An unquoted delimiter: the body is expanded like a double-quoted word.
                *t = if quoted {
                    vec![Seg::Lit(body)]
                } else {
                    word::lex_fragment(&body, true)
                };
            }
        }
    }
}
