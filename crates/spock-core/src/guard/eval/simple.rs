//! Simple commands in the abstract shell: redirections (here-documents become the input,
//! output targets are checked and then hold what the command printed), `NAME=value`
//! assignments, alias expansion of a literal first word, and expansion into the argvs
//! (one per combination of candidate values, at most [`MAX_ALTS`]) handed to the runners.
use std::rc::Rc;

use super::{Eval, Input, MAX_ALTS, R, concat};
use crate::guard::lex::RedirKind;
use crate::guard::parse::{Redir, Word};
use crate::guard::state::{Env, UNKNOWN, Val};

impl Eval {
    /// Applies input redirections and checks output ones. Returns the new input and where
    /// the output goes.
    pub(super) fn redirect(
        &mut self,
        redirs: &[Redir],
        env: &mut Env,
        input: &Input,
    ) -> R<(Input, Outs)> {
        let mut input = input.clone();
        let mut writes = Outs::default();
        for r in redirs {
            let fd = r.fd.unwrap_or(match r.kind {
                RedirKind::Out | RedirKind::Append | RedirKind::DupOut => 1,
                _ => 0,
            });
            match r.kind {
                RedirKind::Here => {
                    let body = self.expand_joined(&r.target, env)?;
                    // A here-string gets a newline; a here-document body already ends in one.
                    let v = Val::from_cands(
                        body.cands
                            .iter()
                            .map(|b| {
                                if b.ends_with('\n') {
                                    b.clone()
                                } else {
                                    format!("{b}\n")
                                }
                            })
                            .collect(),
                        body.why,
                    );
                    self.open_fd(fd, v, env, &mut input);
                }
                RedirKind::In => {
                    let path = self.expand_joined(&r.target, env)?;
                    let v = crate::guard::places::file_contents(&path, env);
                    self.open_fd(fd, v, env, &mut input);
                }
                RedirKind::DupIn if fd == 0 => {
                    // `<&3`: what descriptor 3 holds, if this command opened it.
                    let from = self.expand_joined(&r.target, env)?;
                    let v = from
                        .single()
                        .and_then(|n| env.fs.files.get(&format!("/proc/self/fd/{n}")).cloned())
                        .unwrap_or_else(|| {
                            Val::unknown(format!(
                                "what descriptor {} holds",
                                from.single().unwrap_or("…")
                            ))
                        });
                    input = Some(v);
                }
                RedirKind::Out | RedirKind::Append | RedirKind::ReadWrite => {
                    let path = self.expand_joined(&r.target, env)?;
                    crate::guard::rules::written(&path, env, self, "a redirection `>`")?;
                    if r.kind == RedirKind::ReadWrite && fd == 0 {
                        // `<>FILE` opens standard input; the file may be written through it.
                        writes.files.push((path, false, true));
                    } else {
                        writes
                            .files
                            .push((path, r.kind == RedirKind::Append, false));
                        writes.set(fd as usize, Dest::File(writes.files.len() - 1));
                    }
                }
                RedirKind::DupOut | RedirKind::DupIn => {
                    let to = self.expand_joined(&r.target, env)?;
                    let d = match to.single() {
                        Some("-") => Dest::Closed,
                        Some(n) => match n.parse::<usize>() {
                            Ok(n) if n < FDS => writes.dest[n],
                            _ => Dest::Unknown,
                        },
                        None => Dest::Unknown,
                    };
                    writes.set(fd as usize, d);
                }
            }
        }
        Ok((input, writes))
    }

    pub(super) fn simple(
        &mut self,
        words: &[Word],
        redirs: &[Redir],
        env: &mut Env,
        input: &Input,
    ) -> R<Val> {
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
        let before = (!redirs.is_empty()).then(|| env.clone());
        let (input, writes) = self.redirect(redirs, env, input)?;
        // `X=v <FILE`: when the redirection fails (no such file or folder), the assignment
        // is not made.
        if let Some(before) = before
            && !words.is_empty()
            && words.iter().all(|w| assignment(w).is_some())
        {
            let out = self.simple_argv(words, env, &input)?;
            for w in words {
                if let Some((name, _)) = assignment(w) {
                    let name = name.trim_end_matches('+');
                    let v = before.get(name).join(&env.get(name));
                    env.set(name, v);
                }
            }
            return Ok(record(&writes, out, env));
        }
        // `exec <<EOF` (no command): the body becomes the shell's own input.
        if let [w] = words
            && crate::guard::parse::lit(w) == Some("exec")
            && input.is_some()
        {
            env.stdin = input;
            return Ok(record(&writes, Val::known(""), env));
        }
        let input = input.or_else(|| env.stdin.clone());
        let out = self.simple_argv(words, env, &input)?;
        Ok(record(&writes, out, env))
    }

    fn simple_argv(&mut self, words: &[Word], env: &mut Env, input: &Input) -> R<Val> {
        let input = input.clone();
        // `NAME=value` words before the command name are assignments.
        let mut rest = words;
        let mut assigned = false;
        let before = env.clone();
        while let Some((w, tail)) = rest.split_first() {
            let Some((name, value)) = assignment(w) else {
                break;
            };
            let mut v = self.expand_joined(&value, env)?;
            // mksh's `NAME+=text` appends; busybox sh runs it as a command named `NAME+=text`.
            let name = match name.strip_suffix('+') {
                Some(n) => {
                    let old = env.get(n);
                    v = super::concat(&old, &v).join(&old);
                    n.to_string()
                }
                None => name,
            };
            self.assigned(&name, &v, env)?;
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
        if let Some(name) = crate::guard::parse::lit(&rest[0])
            && let Some(body) = env.aliases.get(name).cloned()
            && !self.alias_active.iter().any(|a| a == name)
        {
            let mut toks = crate::guard::lex::lex(&body);
            toks.extend(rest[1..].iter().cloned().map(crate::guard::lex::Tok::Word));
            let list = crate::guard::parse::parse_tokens(toks, 0);
            self.alias_active.push(name.to_string());
            let r = self.deeper(|ev| ev.list(&list, env, &input));
            // mksh applies an alias only to lines read after it is defined, and `\\rm`
            // skips it: a known program is read as itself too.
            let plain = if crate::guard::known::is_known(name) {
                let mut e = env.clone();
                self.deeper(|ev| ev.simple_argv(rest, &mut e, &input))
                    .map(|_| ())
            } else {
                Ok(())
            };
            self.alias_active.pop();
            plain?;
            return r;
        }
        // `X=new cmd $X`: the command's words see the old value (the command gets the new
        // one); `IFS=: cmd $P` splits with the old IFS. Both readings are kept.
        let words_env = if assigned {
            before.join(env)
        } else {
            env.clone()
        };
        let mut alts: Vec<Vec<String>> = vec![Vec::new()];
        for w in rest {
            let exp = self.expand(w, &words_env)?;
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
                self.why
                    .push(Rc::from("what a word with too many possible values holds"));
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
        // `X=v cmd`: X stays v after a special builtin (mksh), and goes back for anything
        // else (`command :`, a program): both.
        if assigned {
            for w in &words[..words.len() - rest.len()] {
                if let Some((name, _)) = assignment(w) {
                    let name = name.trim_end_matches('+');
                    let v = before.get(name).join(&env.get(name));
                    env.set(name, v);
                }
            }
        }
        Ok(out.unwrap_or_else(|| Val::known("")))
    }
}

impl Eval {
    /// A descriptor opened for reading: 0 is the command's input; every descriptor is also
    /// reachable as `/proc/self/fd/N` (and `/dev/fd/N`, `/dev/stdin`) for what reads it by name.
    fn open_fd(&mut self, fd: u32, v: Val, env: &mut Env, input: &mut Input) {
        env.fs_mut()
            .files
            .insert(format!("/proc/self/fd/{fd}"), v.clone());
        if fd == 0 {
            *input = Some(v);
        }
    }
}

/// Keeps a command's output in the files it was redirected to; what is left on stdout.
/// Descriptors the guard follows through redirections (0–9).
const FDS: usize = 10;

/// Where a descriptor of a command points after its redirections.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Dest {
    /// Where this command's standard output went before its redirections (the pipe or the
    /// `$( )` that reads it).
    Out,
    /// Where any other descriptor pointed before (the error output, or one not open).
    Inherited,
    /// One of the files the redirections name.
    File(usize),
    Closed,
    /// A descriptor computed on the device.
    Unknown,
}

/// Where a command's output goes after its redirections, applied in order: the files they
/// name (appended; opened on standard input by `<>`) and where each descriptor points.
pub(super) struct Outs {
    files: Vec<(Val, bool, bool)>,
    dest: [Dest; FDS],
}

impl Default for Outs {
    fn default() -> Self {
        let mut dest = [Dest::Inherited; FDS];
        dest[1] = Dest::Out;
        Outs {
            files: Vec::new(),
            dest,
        }
    }
}

impl Outs {
    fn set(&mut self, fd: usize, d: Dest) {
        if fd < FDS {
            self.dest[fd] = d;
        } else {
            // A descriptor above 9: the guard does not follow it.
            self.dest[FDS - 1] = Dest::Unknown;
        }
    }
}

/// Stores what a command printed in the files it was redirected to, and returns what reaches
/// its standard output. The guard models what a command prints on descriptor 1. What goes
/// to the error output (a program's messages, which can repeat the arguments it was given,
/// or text an inner command wrote with `>&2`) or to another descriptor is unknown text: a
/// file or a pipe that receives it holds unknown text. So `2>&1 >/dev/null | sh` pipes
/// unknown text into the shell, and `echo … >&2` prints nothing on this command's output.
pub(super) fn record(writes: &Outs, out: Val, env: &mut Env) -> Val {
    let elsewhere =
        || Val::unknown("what a command writes to its error output or another descriptor");
    let mut fill: Vec<Option<Val>> = vec![None; writes.files.len()];
    let mut result: Option<Val> = None;
    for (fd, d) in writes.dest.iter().enumerate() {
        // Descriptor 0 only writes where `<>` opened it.
        if fd == 0 && !matches!(d, Dest::File(_)) {
            continue;
        }
        let text = if fd == 1 { out.clone() } else { elsewhere() };
        match d {
            // Two descriptors into the output: their texts interleave.
            Dest::Out => result = Some(if result.is_some() { elsewhere() } else { text }),
            Dest::File(i) => {
                fill[*i] = Some(match &fill[*i] {
                    None => text,
                    Some(_) => elsewhere(),
                });
            }
            Dest::Unknown => result = Some(elsewhere()),
            Dest::Inherited | Dest::Closed => {}
        }
    }
    for (i, (_, _, on_input)) in writes.files.iter().enumerate() {
        if *on_input && fill[i].is_none() {
            fill[i] = Some(elsewhere());
        }
    }
    for ((path, append, _), v) in writes.files.iter().zip(fill) {
        let Some(v) = v else { continue };
        for cand in &path.cands {
            for r in crate::guard::places::resolve(cand, env) {
                if r.starts_with("/dev/") {
                    continue;
                }
                let v = match (append, env.fs.files.get(&r)) {
                    (true, Some(old)) => concat(old, &v),
                    _ => v.clone(),
                };
                env.fs_mut().files.insert(r, v);
            }
        }
    }
    result.unwrap_or_else(|| Val::known(""))
}

fn assignment(w: &Word) -> Option<(String, Word)> {
    let Some(crate::guard::lex::Seg::Lit(first)) = w.first() else {
        return None;
    };
    let (name, rest) = first.split_once('=')?;
    let bare = name.strip_suffix('+').unwrap_or(name);
    let valid = bare
        .chars()
        .next()
        .is_some_and(|c| c == '_' || c.is_ascii_alphabetic())
        && bare.chars().all(|c| c == '_' || c.is_ascii_alphanumeric());
    if !valid {
        return None;
    }
    let mut value = vec![crate::guard::lex::Seg::Lit(rest.to_string())];
    value.extend(w[1..].iter().cloned());
    Some((name.to_string(), value))
}
