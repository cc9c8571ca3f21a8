//! The shell grammar the guard reads: tokens from [`super::lex`] become lists, and-or chains,
//! pipelines and the compound commands of mksh (`if`, `while`/`until`, `for`/`select`, `case`,
//! `{ … }`, `( … )`, functions), so that the evaluator can follow control flow instead of
//! guessing from a flat token stream.
//!
//! Why our own grammar and not a crate (looked up on crates.io with `cargo info`):
//! `yash-syntax` (0.25) is GPL-3.0, which this MIT crate cannot take, and its parser is async.
//! `conch-parser` has stayed at 0.1.1, its last release, for years. `brush-parser` (0.4, MIT,
//! maintained) is the serious candidate, but it parses bash rather than mksh, adds the `peg`
//! proc-macro to every clean build on this project's two cores (its compile time was not
//! measured here), and rejects a whole script on the first syntax error. The guard needs the
//! opposite: it re-parses text computed at run time (`sh -c "$(…)"`, aliases, `eval`), must
//! read a broken or half-hostile line conservatively rather than give up, and keeps words as
//! unexpanded segments ([`super::lex::Seg`]) so expansion can happen with the values known at
//! that point. So the parser is lenient: a missing `fi`/`done`/`esac` ends at the end of
//! input, a stray keyword is a command, and anything nested deeper than [`MAX_NEST`] becomes
//! [`Node::TooDeep`], which the evaluator refuses.
use std::rc::Rc;

use super::lex::{Op, RedirKind, Seg, Tok, lex};

/// Deepest nesting of compound commands and `( … )` the parser follows.
pub(super) const MAX_NEST: usize = 48;

pub(super) type Word = Vec<Seg>;

#[derive(Debug, Clone)]
pub(super) struct Redir {
    pub(super) kind: RedirKind,
    pub(super) target: Word,
    /// The descriptor (`3<<EOF`); `None`: the default (0 for input, 1 for output).
    pub(super) fd: Option<u32>,
}

#[derive(Debug, Clone)]
pub(super) enum Node {
    Simple {
        words: Vec<Word>,
        redirs: Vec<Redir>,
    },
    Subshell(List, Vec<Redir>),
    Group(List, Vec<Redir>),
    /// `if c1; then b1; elif c2; then b2; else e; fi`.
    If {
        arms: Vec<(List, List)>,
        otherwise: Option<List>,
    },
    /// `while`/`until`: the condition and the body.
    Loop(List, List),
    /// `for NAME [in WORDS]; do …; done` (`None`: the positional parameters).
    For {
        var: String,
        items: Option<Vec<Word>>,
        body: List,
    },
    Case {
        word: Word,
        arms: Vec<(Vec<Word>, List)>,
    },
    Func(String, Rc<Node>),
    TooDeep,
    /// Something the lexer could not read ([`Tok::Unreadable`]).
    Unreadable(String),
    /// Tokens the shell would not read as this parser did (a missing `fi`, a stray `)`):
    /// the command is refused unless something in it is refused by name first.
    Malformed(String),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Conn {
    Seq,
    And,
    Or,
}

/// A list of pipelines; each carries how it joins the one before it.
#[derive(Debug, Clone, Default)]
pub(super) struct List(pub(super) Vec<(Conn, Vec<Node>)>);

impl Node {
    /// A compound command with the redirections after it (`done <<EOF`, `fi > FILE`): a
    /// group, so its body reads and writes through them.
    fn redirected(self, p: &mut Parser) -> Node {
        let r = p.redirs();
        if r.is_empty() {
            self
        } else {
            Node::Group(List(vec![(Conn::Seq, vec![self])]), r)
        }
    }
}

pub(super) fn parse(src: &str) -> List {
    parse_tokens(lex(src), 0)
}

pub(super) fn parse_tokens(toks: Vec<Tok>, nest: usize) -> List {
    let mut p = Parser {
        toks,
        i: 0,
        nest,
        errors: Vec::new(),
    };
    let mut out = List::default();
    loop {
        let l = p.list(&[]);
        out.0.extend(l.0);
        if p.i >= p.toks.len() {
            break;
        }
        // A stray terminator (`fi`, `done`, `)`, `;;`) at the top: the shell stops there
        // with a syntax error, after running what came before.
        p.error(format!("a stray `{}`", shown_tok(&p.toks[p.i])));
        p.i += 1;
    }
    // What the shell reads differently from this parser (a missing `fi`, a `case` arm
    // without its `)`): refused as a form the guard cannot read.
    if let Some(e) = p.errors.first() {
        out.0.insert(
            0,
            (
                Conn::Seq,
                vec![Node::Malformed(format!("a command with {e}"))],
            ),
        );
    }
    out
}

fn shown_tok(t: &Tok) -> String {
    match t {
        Tok::Word(w) => lit(w).unwrap_or("…").to_string(),
        Tok::Op(Op::Close) => ")".into(),
        Tok::Op(Op::DSemi) => ";;".into(),
        Tok::Op(_) => "operator".into(),
        Tok::Subshell(_) => "( )".into(),
        Tok::Redir(..) => "redirection".into(),
        Tok::Unreadable(w) => w.clone(),
    }
}

struct Parser {
    toks: Vec<Tok>,
    i: usize,
    nest: usize,
    /// Where the tokens are not a command the shell would read the same way.
    errors: Vec<String>,
}

fn is_kw(t: Option<&Tok>, kws: &[&str]) -> bool {
    matches!(t, Some(Tok::Word(w)) if matches!(w.as_slice(), [Seg::Lit(s)] if kws.contains(&s.as_str())))
}

pub(super) fn lit(w: &Word) -> Option<&str> {
    match w.as_slice() {
        [Seg::Lit(s)] => Some(s),
        _ => None,
    }
}

impl Parser {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.i)
    }

    fn skip_seps(&mut self) {
        while matches!(self.peek(), Some(Tok::Op(Op::Seq))) {
            self.i += 1;
        }
    }

    /// Expects keyword `kw` next (after separators); consumes it when present.
    fn keyword(&mut self, kw: &str) {
        self.skip_seps();
        if is_kw(self.peek(), &[kw]) {
            self.i += 1;
        } else {
            self.error(format!("a missing `{kw}`"));
        }
    }

    fn error(&mut self, e: String) {
        self.errors.push(e);
    }

    /// Pipelines until one of `stop` in command position, `)`, `;;` or the end.
    fn list(&mut self, stop: &[&str]) -> List {
        let mut out = List::default();
        let mut conn = Conn::Seq;
        loop {
            self.skip_seps();
            match self.peek() {
                None | Some(Tok::Op(Op::Close | Op::DSemi)) => return out,
                t if is_kw(t, stop) => return out,
                _ => {}
            }
            let start = self.i;
            let pipe = self.pipeline(stop);
            if !pipe.is_empty() {
                out.0.push((conn, pipe));
            }
            conn = match self.peek() {
                Some(Tok::Op(Op::And)) => Conn::And,
                Some(Tok::Op(Op::Or)) => Conn::Or,
                _ => Conn::Seq,
            };
            if matches!(self.peek(), Some(Tok::Op(Op::And | Op::Or | Op::Pipe))) {
                self.i += 1;
            }
            if self.i == start {
                return out;
            }
        }
    }

    fn pipeline(&mut self, stop: &[&str]) -> Vec<Node> {
        let mut cmds = Vec::new();
        loop {
            if is_kw(self.peek(), &["!"]) {
                self.i += 1;
            }
            match self.peek() {
                None | Some(Tok::Op(_)) => break,
                t if is_kw(t, stop) && !cmds.is_empty() => break,
                _ => {}
            }
            cmds.push(self.command(stop));
            if matches!(self.peek(), Some(Tok::Op(Op::Pipe))) {
                self.i += 1;
                continue;
            }
            break;
        }
        cmds
    }

    fn nested(&mut self, f: impl FnOnce(&mut Self) -> Node) -> Node {
        if self.nest >= MAX_NEST {
            self.i = self.toks.len();
            return Node::TooDeep;
        }
        self.nest += 1;
        let n = f(self);
        self.nest -= 1;
        n
    }

    fn command(&mut self, stop: &[&str]) -> Node {
        let kw = match self.peek() {
            Some(Tok::Word(w)) => lit(w).map(str::to_string),
            Some(Tok::Subshell(s)) => {
                let s = s.clone();
                self.i += 1;
                let nest = self.nest + 1;
                let inner = if nest > MAX_NEST {
                    return Node::TooDeep;
                } else {
                    parse_tokens(lex(&s), nest)
                };
                let redirs = self.redirs();
                return Node::Subshell(inner, redirs);
            }
            _ => None,
        };
        match kw.as_deref() {
            Some("if") => self.nested(|p| p.if_clause()).redirected(self),
            Some("while" | "until") => self
                .nested(|p| {
                    p.i += 1;
                    let cond = p.list(&["do"]);
                    p.keyword("do");
                    let body = p.list(&["done"]);
                    p.keyword("done");
                    Node::Loop(cond, body)
                })
                .redirected(self),
            Some("for" | "select") => self.nested(|p| p.for_clause()).redirected(self),
            Some("case") => self.nested(|p| p.case_clause()).redirected(self),
            Some("{") => self.nested(|p| {
                p.i += 1;
                let body = p.list(&["}"]);
                p.keyword("}");
                let r = p.redirs();
                Node::Group(body, r)
            }),
            Some("function") => {
                self.i += 1;
                let name = match self.peek() {
                    Some(Tok::Word(w)) => lit(w).unwrap_or("").to_string(),
                    _ => String::new(),
                };
                self.i += 1;
                if matches!(self.peek(), Some(Tok::Subshell(s)) if s.trim().is_empty()) {
                    self.i += 1;
                }
                self.func_body(name, stop)
            }
            _ => self.simple(stop),
        }
    }

    fn func_body(&mut self, name: String, stop: &[&str]) -> Node {
        self.skip_seps();
        let body = self.nested(|p| p.command(stop));
        Node::Func(name, Rc::new(body))
    }

    fn redirs(&mut self) -> Vec<Redir> {
        let mut out = Vec::new();
        while let Some(Tok::Redir(kind, target, fd)) = self.peek() {
            out.push(Redir {
                kind: *kind,
                target: target.clone(),
                fd: *fd,
            });
            self.i += 1;
        }
        out
    }

    fn simple(&mut self, stop: &[&str]) -> Node {
        let mut words: Vec<Word> = Vec::new();
        let mut redirs = Vec::new();
        loop {
            match self.peek() {
                Some(Tok::Word(w)) => {
                    words.push(w.clone());
                    self.i += 1;
                }
                Some(Tok::Redir(kind, target, fd)) => {
                    redirs.push(Redir {
                        kind: *kind,
                        target: target.clone(),
                        fd: *fd,
                    });
                    self.i += 1;
                }
                Some(Tok::Unreadable(what)) if words.is_empty() && redirs.is_empty() => {
                    let what = what.clone();
                    self.i += 1;
                    return Node::Unreadable(what);
                }
                // `name() body`: a function definition.
                Some(Tok::Subshell(s)) if s.trim().is_empty() && words.len() == 1 => {
                    self.i += 1;
                    let name = lit(&words[0]).unwrap_or("").to_string();
                    return self.func_body(name, stop);
                }
                _ => break,
            }
        }
        Node::Simple { words, redirs }
    }

    fn if_clause(&mut self) -> Node {
        self.i += 1;
        let mut arms = Vec::new();
        let mut otherwise = None;
        loop {
            let cond = self.list(&["then"]);
            self.keyword("then");
            let body = self.list(&["elif", "else", "fi"]);
            arms.push((cond, body));
            self.skip_seps();
            if is_kw(self.peek(), &["elif"]) {
                self.i += 1;
                continue;
            }
            if is_kw(self.peek(), &["else"]) {
                self.i += 1;
                otherwise = Some(self.list(&["fi"]));
            }
            self.keyword("fi");
            return Node::If { arms, otherwise };
        }
    }

    fn for_clause(&mut self) -> Node {
        self.i += 1;
        let var = match self.peek() {
            Some(Tok::Word(w)) => lit(w).unwrap_or("").to_string(),
            _ => String::new(),
        };
        self.i += 1;
        self.skip_seps();
        let mut items = None;
        if is_kw(self.peek(), &["in"]) {
            self.i += 1;
            let mut ws = Vec::new();
            while let Some(Tok::Word(w)) = self.peek() {
                ws.push(w.clone());
                self.i += 1;
            }
            items = Some(ws);
        }
        self.keyword("do");
        let body = self.list(&["done"]);
        self.keyword("done");
        Node::For { var, items, body }
    }

    fn case_clause(&mut self) -> Node {
        self.i += 1;
        let word = match self.peek() {
            Some(Tok::Word(w)) => w.clone(),
            _ => Vec::new(),
        };
        self.i += 1;
        self.keyword("in");
        let mut arms = Vec::new();
        loop {
            self.skip_seps();
            match self.peek() {
                None => break,
                t if is_kw(t, &["esac"]) => {
                    self.i += 1;
                    break;
                }
                _ => {}
            }
            let start = self.i;
            let mut pats = Vec::new();
            if let Some(Tok::Subshell(inner)) = self.peek() {
                // `(PAT|PAT) body`: the lexer read the optional opening parenthesis and the
                // patterns as one group.
                let inner = inner.clone();
                self.i += 1;
                for t in lex(&inner) {
                    match t {
                        Tok::Word(w) => pats.push(w),
                        Tok::Op(Op::Pipe) => {}
                        _ => self.error("a `case` pattern the guard cannot read".into()),
                    }
                }
            } else {
                while let Some(t) = self.peek() {
                    match t {
                        Tok::Word(w) => pats.push(w.clone()),
                        Tok::Op(Op::Pipe) => {}
                        Tok::Op(_) => break,
                        _ => self.error("a `case` pattern the guard cannot read".into()),
                    }
                    self.i += 1;
                }
                if matches!(self.peek(), Some(Tok::Op(Op::Close))) {
                    self.i += 1;
                } else {
                    self.error("a `case` arm without its `)`".into());
                }
            }
            let body = self.list(&["esac"]);
            if matches!(self.peek(), Some(Tok::Op(Op::DSemi))) {
                self.i += 1;
            }
            arms.push((pats, body));
            if self.i == start {
                self.i += 1;
            }
        }
        Node::Case { word, arms }
    }
}
