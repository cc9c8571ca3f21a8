//! The abstract shell's walk over the grammar: lists, and-or chains, pipelines, `if`, loops,
//! `case`, subshells, groups and function definitions, carrying [`Env`] through each.
//!
//! Nothing is decided by a condition: every branch is read and the states after them are
//! joined, so a value that differs between branches is a set of candidates. Loops run their
//! body until the state stops changing, at most [`LOOP_TURNS`] times; whatever still changes
//! then becomes unknown and the body is read once more with it. Each simple command is
//! expanded into one or more argvs (one per combination of candidates) and handed to
//! [`super::runners`]. Depth and work are bounded ([`MAX_DEPTH`], [`MAX_STEPS`]); past them the
//! command is refused as one the guard cannot read.
use std::rc::Rc;

use super::Refusal;
use super::lex::RedirKind;
use super::parse::{Conn, List, Node, Redir, Word};
use super::state::{Env, UNKNOWN, Val};

pub(super) const MAX_DEPTH: usize = 24;
const MAX_STEPS: usize = 100_000;
const LOOP_TURNS: usize = 4;
/// At most this many argv combinations are checked for one simple command.
pub(super) const MAX_ALTS: usize = 32;

pub(super) type R<T> = Result<T, Refusal>;

/// A command's standard input: `None` when nothing is piped in (`adb shell` gives EOF).
pub(super) type Input = Option<Val>;

pub(super) struct Eval {
    pub(super) depth: usize,
    steps: usize,
    /// Why values in the current simple command are unknown, for the refusal message.
    pub(super) why: Vec<Rc<str>>,
    pub(super) reboots_to_recovery: bool,
    pub(super) mentions_wipe: bool,
    /// Aliases being expanded (an alias is not expanded inside itself).
    pub(super) alias_active: Vec<String>,
}

impl Eval {
    pub(super) fn new() -> Self {
        Self {
            depth: 0,
            steps: 0,
            why: Vec::new(),
            reboots_to_recovery: false,
            mentions_wipe: false,
            alias_active: Vec::new(),
        }
    }

    pub(super) fn step(&mut self, n: usize) -> R<()> {
        self.steps += n;
        if self.steps > MAX_STEPS {
            return Err(Refusal::new(
                "cannot-tell",
                "cannot tell what this does: the command is too complex to read; write it as plain commands",
            ));
        }
        Ok(())
    }

    /// Runs `f` one level deeper (a child shell, `eval`, a function call, `$(…)`).
    pub(super) fn deeper<T>(&mut self, f: impl FnOnce(&mut Self) -> R<T>) -> R<T> {
        if self.depth >= MAX_DEPTH {
            return Err(Refusal::new(
                "too-deep",
                "cannot tell what this does: it nests shells, `eval`s or functions too deeply to read; write it as plain commands",
            ));
        }
        self.depth += 1;
        let r = f(self);
        self.depth -= 1;
        r
    }

    /// Parses and runs a script text; returns its standard output.
    pub(super) fn script(&mut self, src: &str, env: &mut Env, input: Input) -> R<Val> {
        self.step(src.len() / 32 + 1)?;
        let list = super::parse::parse(src);
        self.deeper(|ev| ev.list(&list, env, &input))
    }

    pub(super) fn list(&mut self, l: &List, env: &mut Env, input: &Input) -> R<Val> {
        let mut out = Val::known("");
        // Where the current and-or chain may have stopped early: `a && b` runs `b` in the
        // state after `a`, and the chain ends in any of those states.
        let mut stops: Vec<Env> = Vec::new();
        for (conn, pipe) in &l.0 {
            let o = if *conn == Conn::Seq {
                for s in stops.drain(..) {
                    *env = env.join(&s);
                }
                self.pipeline(pipe, env, input)?
            } else {
                stops.push(env.clone());
                self.pipeline(pipe, env, input)?.join(&Val::known(""))
            };
            out = concat(&out, &o);
        }
        for s in stops {
            *env = env.join(&s);
        }
        Ok(out)
    }

    fn pipeline(&mut self, cmds: &[Node], env: &mut Env, input: &Input) -> R<Val> {
        let mut data = input.clone();
        let last = cmds.len().saturating_sub(1);
        for (i, node) in cmds.iter().enumerate() {
            if i == last {
                // mksh runs the last command of a pipeline in the current shell; others in
                // subshells. Joining covers both readings.
                let before = env.clone();
                let out = self.node(node, env, &data)?;
                if cmds.len() > 1 {
                    *env = before.join(env);
                }
                return Ok(out);
            }
            let mut sub = env.clone();
            let out = self.node(node, &mut sub, &data)?;
            env.fs = sub.fs;
            data = Some(out);
        }
        Ok(Val::known(""))
    }

    pub(super) fn node(&mut self, node: &Node, env: &mut Env, input: &Input) -> R<Val> {
        self.step(1)?;
        match node {
            Node::Simple { words, redirs } => self.simple(words, redirs, env, input),
            Node::Subshell(l, redirs) => {
                let (input, writes) = self.redirect(redirs, env, input)?;
                let mut sub = env.clone();
                let out = self.list(l, &mut sub, &input)?;
                env.fs = sub.fs;
                Ok(record(&writes, out, env))
            }
            Node::Group(l, redirs) => {
                let (input, writes) = self.redirect(redirs, env, input)?;
                let out = self.list(l, env, &input)?;
                Ok(record(&writes, out, env))
            }
            Node::If { arms, otherwise } => {
                let mut ends = Vec::new();
                let mut out = Val::known("");
                for (cond, body) in arms {
                    self.list(cond, env, input)?;
                    let mut taken = env.clone();
                    out = out.join(&self.list(body, &mut taken, input)?);
                    ends.push(taken);
                }
                if let Some(e) = otherwise {
                    out = out.join(&self.list(e, env, input)?);
                }
                for e in ends {
                    *env = env.join(&e);
                }
                Ok(out)
            }
            Node::Loop(cond, body) => self.fixed_point(env, |ev, e| {
                ev.list(cond, e, input)?;
                ev.list(body, e, input)
            }),
            Node::For { var, items, body } => {
                let value = match items {
                    None => Val::known("").join(&env.get("1")).join(&env.get("@")),
                    Some(ws) => {
                        let mut v: Option<Val> = None;
                        for w in ws {
                            for alt in self.expand(w, env)? {
                                for f in alt {
                                    let f = Val::known(f);
                                    v = Some(v.map_or(f.clone(), |v| v.join(&f)));
                                }
                            }
                        }
                        v.unwrap_or_else(|| Val::known(""))
                    }
                };
                let why = self.why.first().cloned();
                let value = Val {
                    why: value.why.or(why),
                    ..value
                };
                self.fixed_point(env, |ev, e| {
                    e.set(var, value.clone());
                    ev.list(body, e, input)
                })
            }
            Node::Case { word, arms } => {
                self.expand(word, env)?;
                let mut end = env.clone();
                let mut out = Val::known("");
                for (_, body) in arms {
                    let mut e = env.clone();
                    out = out.join(&self.list(body, &mut e, input)?);
                    end = end.join(&e);
                }
                *env = end;
                Ok(out)
            }
            Node::Func(name, body) => {
                env.funcs.insert(name.clone(), body.clone());
                Ok(Val::known(""))
            }
            Node::TooDeep => Err(Refusal::new(
                "too-deep",
                "cannot tell what this does: it nests commands too deeply to read; write it as plain commands",
            )),
        }
    }

    /// Runs a loop body until the state settles, widening what does not.
    fn fixed_point(
        &mut self,
        env: &mut Env,
        mut turn: impl FnMut(&mut Self, &mut Env) -> R<Val>,
    ) -> R<Val> {
        let mut cur = env.clone();
        let mut out = Val::known("");
        for n in 0..=LOOP_TURNS {
            let mut next = cur.clone();
            out = out.join(&turn(self, &mut next)?);
            let joined = cur.join(&next);
            if joined.same(&cur) {
                break;
            }
            if n == LOOP_TURNS {
                let mut wide = joined;
                wide.widen(&cur);
                let mut again = wide.clone();
                turn(self, &mut again)?;
                cur = wide.join(&again);
                cur.widen(&wide);
                break;
            }
            cur = joined;
        }
        *env = cur;
        Ok(out)
    }

    /// Applies input redirections and checks output ones. Returns the new input and the
    /// files the output goes to (`true`: appended).
    pub(super) fn redirect(
        &mut self,
        redirs: &[Redir],
        env: &mut Env,
        input: &Input,
    ) -> R<(Input, Vec<(Val, bool)>)> {
        let mut input = input.clone();
        let mut writes = Vec::new();
        for r in redirs {
            match r.kind {
                RedirKind::Here => {
                    let body = self.expand_joined(&r.target, env)?;
                    input = Some(Val::from_cands(
                        body.cands.iter().map(|b| format!("{b}\n")).collect(),
                        body.why,
                    ));
                }
                RedirKind::In => {
                    let path = self.expand_joined(&r.target, env)?;
                    input = Some(super::places::file_contents(&path, env));
                }
                RedirKind::Out | RedirKind::Append => {
                    let path = self.expand_joined(&r.target, env)?;
                    super::rules::written(&path, env, self, "a redirection `>`")?;
                    writes.push((path, r.kind == RedirKind::Append));
                }
                RedirKind::Dup => {}
            }
        }
        Ok((input, writes))
    }

    fn simple(&mut self, words: &[Word], redirs: &[Redir], env: &mut Env, input: &Input) -> R<Val> {
        let saved = std::mem::take(&mut self.why);
        let r = self.simple_inner(words, redirs, env, input);
        self.why = saved;
        r
    }

    fn simple_inner(
        &mut self,
        words: &[Word],
        redirs: &[Redir],
        env: &mut Env,
        input: &Input,
    ) -> R<Val> {
        let (input, writes) = self.redirect(redirs, env, input)?;
        let out = self.simple_argv(words, env, &input)?;
        Ok(record(&writes, out, env))
    }

    fn simple_argv(&mut self, words: &[Word], env: &mut Env, input: &Input) -> R<Val> {
        let input = input.clone();
        // `NAME=value` words before the command name are assignments.
        let mut rest = words;
        let mut assigned = false;
        while let Some((w, tail)) = rest.split_first() {
            let Some((name, value)) = assignment(w) else {
                break;
            };
            let v = self.expand_joined(&value, env)?;
            env.set(&name, v);
            assigned = true;
            rest = tail;
        }
        if rest.is_empty() {
            if assigned {
                return Ok(Val::known(""));
            }
            return Ok(input.unwrap_or_else(|| Val::known("")));
        }
        // Aliases apply to a literal first word.
        if let Some(name) = super::parse::lit(&rest[0])
            && let Some(body) = env.aliases.get(name).cloned()
            && !self.alias_active.iter().any(|a| a == name)
        {
            let mut toks = super::lex::lex(&body);
            toks.extend(rest[1..].iter().cloned().map(super::lex::Tok::Word));
            let list = super::parse::parse_tokens(toks, 0);
            self.alias_active.push(name.to_string());
            let r = self.deeper(|ev| ev.list(&list, env, &input));
            self.alias_active.pop();
            return r;
        }
        let mut alts: Vec<Vec<String>> = vec![Vec::new()];
        for w in rest {
            let exp = self.expand(w, env)?;
            let mut next = Vec::new();
            for a in &alts {
                for e in &exp {
                    let mut v = a.clone();
                    v.extend(e.iter().cloned());
                    next.push(v);
                }
            }
            if next.len() > MAX_ALTS {
                // Too many combinations: this word could be anything.
                self.why.push(Rc::from("what a word with too many possible values holds"));
                next = alts
                    .iter()
                    .map(|a| {
                        let mut v = a.clone();
                        v.push(UNKNOWN.to_string());
                        v
                    })
                    .collect();
            }
            alts = next;
        }
        self.step(alts.len())?;
        let mut out: Option<Val> = None;
        let n = alts.len();
        for argv in alts {
            // Each alternative runs from the same state; the results are joined.
            let o = if n == 1 {
                self.run(argv, env, &input)?
            } else {
                let mut e = env.clone();
                let o = self.run(argv, &mut e, &input)?;
                *env = env.join(&e);
                o
            };
            out = Some(out.map_or(o.clone(), |a| a.join(&o)));
        }
        Ok(out.unwrap_or_else(|| Val::known("")))
    }
}

/// Keeps a command's output in the files it was redirected to; what is left on stdout.
fn record(writes: &[(Val, bool)], out: Val, env: &mut Env) -> Val {
    if writes.is_empty() {
        return out;
    }
    for (path, append) in writes {
        for cand in &path.cands {
            for r in super::places::resolve(cand, env) {
                let v = match (append, env.fs.files.get(&r)) {
                    (true, Some(old)) => concat(old, &out),
                    _ => out.clone(),
                };
                env.fs.files.insert(r, v);
            }
        }
    }
    Val::known("")
}

/// The output of `a` followed by `b`.
pub(super) fn concat(a: &Val, b: &Val) -> Val {
    let mut cands = Vec::new();
    for x in &a.cands {
        for y in &b.cands {
            if x.len() + y.len() > super::state::MAX_VALUE {
                return Val::unknown("what a value too long to follow holds");
            }
            cands.push(format!("{x}{y}"));
        }
    }
    Val::from_cands(cands, a.why.clone().or_else(|| b.why.clone()))
}

fn assignment(w: &Word) -> Option<(String, Word)> {
    let Some(super::lex::Seg::Lit(first)) = w.first() else {
        return None;
    };
    let (name, rest) = first.split_once('=')?;
    let valid = name
        .chars()
        .next()
        .is_some_and(|c| c == '_' || c.is_ascii_alphabetic())
        && name.chars().all(|c| c == '_' || c.is_ascii_alphanumeric());
    if !valid {
        return None;
    }
    let mut value = vec![super::lex::Seg::Lit(rest.to_string())];
    value.extend(w[1..].iter().cloned());
    Some((name.to_string(), value))
}
