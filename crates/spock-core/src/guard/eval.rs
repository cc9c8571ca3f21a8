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
use super::parse::{Conn, List, Node};
use super::state::{Env, UNKNOWN, Val};

pub(super) const MAX_DEPTH: usize = 24;
const MAX_STEPS: usize = 20_000;
const LOOP_TURNS: usize = 2;
/// At most this many argv combinations are checked for one simple command.
pub(super) const MAX_ALTS: usize = 32;

pub(super) type R<T> = Result<T, Refusal>;

mod simple;

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
    /// Scripts already parsed (loop bodies re-read their `$(…)` on every turn).
    parsed: std::collections::HashMap<String, Rc<List>>,
    /// Variables declared integer anywhere in the command (`typeset -i`, `integer`): what
    /// is assigned to them is arithmetic.
    pub(super) int_vars: Vec<String>,
    /// Packages the command uninstalls or clears (see [`super::wipes`]).
    pub(super) packages: Vec<String>,
    /// A program ran that may read files the command wrote without being told their names
    /// (one the guard does not know, or a writer that reads its instructions from a file):
    /// see [`Eval::files_left`].
    pub(super) ran_unread: bool,
    /// The first place the parser read differently from the shell ([`Node::Malformed`]):
    /// refused when nothing else is.
    pub(super) malformed: Option<String>,
    /// A function name the next lookup skips (`command NAME`, the plain reading).
    pub(super) skip_func: Option<String>,
    /// Whether a `cd` in the pipeline being read may fail and leave the shell where it was
    /// (it is not followed by `&&`, nor by `|| exit`).
    pub(super) cd_may_fail: bool,
    /// Variables `unset` took the export from: a child shell may not see their new value.
    pub(super) unexported: Vec<String>,
    /// Names made readonly: `read` cannot change them.
    pub(super) readonly: Vec<String>,
    /// `trap` bodies, read again with the functions the command ends with.
    pub(super) traps: Vec<String>,
    /// Every program name the command runs, as far as it was read (for [`super::runs_as_code`]).
    pub(super) ran: Vec<String>,
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
            parsed: std::collections::HashMap::new(),
            int_vars: Vec::new(),
            packages: Vec::new(),
            ran_unread: false,
            malformed: None,
            skip_func: None,
            cd_may_fail: false,
            unexported: Vec::new(),
            readonly: Vec::new(),
            traps: Vec::new(),
            ran: Vec::new(),
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

    /// What assigning `v` to `name` sets off: an integer variable evaluates it as arithmetic;
    /// the prompts (`PS1`–`PS4`) and `ENV` are expanded (their substitutions run) by the shell
    /// that reads them (`set -x`, `sh -i`), so they are read now.
    pub(super) fn assigned(&mut self, name: &str, v: &Val, env: &Env) -> R<()> {
        if self.int_vars.iter().any(|n| n == name) {
            self.arith_value(
                v,
                &format!("the value given to the integer `${name}`"),
                env,
                0,
            )?;
        }
        if matches!(
            name,
            "EXINIT" | "VIMINIT" | "LESSOPEN" | "LESSCLOSE" | "LD_PRELOAD" | "LD_AUDIT"
        ) {
            // vi runs `EXINIT` as ex commands, less runs `LESSOPEN`, the linker loads
            // `LD_PRELOAD`: code the guard does not read.
            return Err(cannot_read(&format!(
                "`{name}`, which programs run as commands or load as code,"
            )));
        }
        if matches!(
            name,
            "PS1" | "PS2" | "PS3" | "PS4" | "ENV" | "BASH_ENV" | "PROMPT_COMMAND" | "FPATH"
        ) {
            // The trace prefix `set -x` writes before each command (`PS4='rm -rf '; set
            // -x; : /vendor` piped into `sh`).
            if name == "PS4" {
                return Err(cannot_read(
                    "`PS4`, the prefix of the shell's trace, which can be fed back as commands,",
                ));
            }
            for c in &v.cands {
                if c.contains(UNKNOWN) {
                    return Err(cannot_read(&format!(
                        "`{name}` set to text the guard cannot know (the shell expands it)"
                    )));
                }
                let word = super::lex::lex_arith(c);
                let _ = self.expand_joined(&word, env)?;
                if name.ends_with("ENV") || name == "PROMPT_COMMAND" {
                    let mut e = env.child();
                    if name == "PROMPT_COMMAND" {
                        self.script(c, &mut e, None)?;
                    } else if let Some(body) = super::places::resolve(c, env)
                        .iter()
                        .find_map(|r| env.fs.files.get(r).cloned())
                    {
                        for b in &body.cands {
                            if b.contains(UNKNOWN) {
                                return Err(cannot_read(&format!(
                                    "`{name}` naming a file this command wrote with text the guard cannot know"
                                )));
                            }
                            self.script(b, &mut e, None)?;
                        }
                    }
                }
            }
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
        let list = match self.parsed.get(src) {
            Some(l) => l.clone(),
            None => {
                let l = Rc::new(super::parse::parse(src));
                if self.parsed.len() < 512 {
                    self.parsed.insert(src.to_string(), l.clone());
                }
                l
            }
        };
        self.deeper(|ev| ev.list(&list, env, &input))
    }

    pub(super) fn list(&mut self, l: &List, env: &mut Env, input: &Input) -> R<Val> {
        let mut out = Val::known("");
        // Where the current and-or chain may have stopped early: `a && b` runs `b` in the
        // state after `a`, and the chain ends in any of those states.
        let mut stops: Vec<Env> = Vec::new();
        for (k, (conn, pipe)) in l.0.iter().enumerate() {
            self.cd_may_fail = match l.0.get(k + 1) {
                Some((Conn::And, _)) => false,
                Some((Conn::Or, next)) => !next.first().is_some_and(stops_the_shell),
                _ => true,
            };
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
        // Only the pipeline's own `cd` is judged by what follows it.
        let may_fail = std::mem::replace(&mut self.cd_may_fail, true);
        if cmds.len() == 1 {
            self.cd_may_fail = may_fail;
        }
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
                Ok(simple::record(&writes, out, env))
            }
            Node::Group(l, redirs) => {
                let (input, writes) = self.redirect(redirs, env, input)?;
                let out = self.list(l, env, &input)?;
                Ok(simple::record(&writes, out, env))
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
                // Patterns are expanded (their substitutions run) until one matches.
                for (pats, _) in arms {
                    for p in pats {
                        self.expand_joined(p, env)?;
                    }
                }
                for (_, body) in arms {
                    let mut e = env.clone();
                    out = out.join(&self.list(body, &mut e, input)?);
                    end = end.join(&e);
                }
                *env = end;
                Ok(out)
            }
            Node::Func(name, _) if env.aliases.contains_key(name) => Err(cannot_read(&format!(
                "a function named after the alias `{name}` (busybox defines it under the alias's text)"
            ))),
            Node::Func(name, body) => {
                std::rc::Rc::make_mut(&mut env.funcs).insert(name.clone(), body.clone());
                Ok(Val::known(""))
            }
            Node::TooDeep => Err(Refusal::new(
                "too-deep",
                "cannot tell what this does: it nests commands too deeply to read; write it as plain commands",
            )),
            Node::Unreadable(what) => Err(cannot_read(what)),
            Node::Malformed(what) => {
                self.malformed.get_or_insert_with(|| what.clone());
                Ok(Val::known(""))
            }
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
}

/// The refusal for a construct the guard does not model.
pub(super) fn cannot_read(what: &str) -> Refusal {
    Refusal::new(
        "cannot-read",
        format!(
            "cannot read this: {what} is a form the guard does not follow; split it into plain commands, or run it yourself"
        ),
    )
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

/// `exit` or `return` (after `||`): the shell goes no further when the left side failed.
fn stops_the_shell(n: &Node) -> bool {
    match n {
        Node::Simple { words, .. } => words
            .first()
            .and_then(|w| super::parse::lit(w))
            .is_some_and(|w| matches!(w, "exit" | "return")),
        Node::Group(l, _) => {
            l.0.last()
                .and_then(|(_, p)| p.first())
                .is_some_and(stops_the_shell)
        }
        _ => false,
    }
}
