//! The evaluator behind [`catastrophic`]: walks a command line the way the device's shell
//! would, command by command, and hands each final argv to [`super::rules`].
//!
//! It tracks what a static reader can know: variables assigned earlier in the line (seeded
//! with the Android shell's own environment), the working directory (`/` for `adb shell`),
//! and the output of commands whose output is computable (`echo`, `printf`, `base64 -d`,
//! `xxd -r -p`, `rev`, `cat` of a known stdin), so `echo cm0gLXJmIC8= | base64 -d | sh` is read
//! as `rm -rf /`. It recurses into `sh -c`, `su -c`, `su 0 …`, `eval`, `$(…)`, backticks,
//! subshells, aliases, traps, `xargs`, `adb shell` and busybox/toybox multiplexers. What it
//! cannot know is carried as an "unknown" marker ([`UNKNOWN`]) that the rules treat as a glob.
use std::collections::HashMap;

use super::Refusal;
use super::lex::{Op, RedirKind, Seg, Tok, lex};
use super::output::output_of;
use super::rules;

/// Stands for text the guard cannot know (an unset variable, a command's unknowable output).
/// NUL cannot occur in a real shell argument, so it never collides with real text.
pub(super) const UNKNOWN: char = '\0';

const MAX_DEPTH: usize = 16;
const MAX_STEPS: usize = 200_000;
const MAX_LEN: usize = 256 * 1024;

/// Refuses a command for `android_run_adb_command` if it is on the catastrophic list
/// (recursive delete of `/` or a top-level system or storage root, factory reset, `mkfs`,
/// raw writes to block devices, `fastboot erase`/`format`), however it is disguised.
/// `None` means "not on the list", not "safe": the call still needs the person's approval.
pub fn catastrophic(command: &str) -> Option<Refusal> {
    if command.len() > MAX_LEN {
        return Some(Refusal::new(
            "too-long",
            format!(
                "the command is over {} KiB, too long to check",
                MAX_LEN / 1024
            ),
        ));
    }
    let mut ev = Eval {
        depth: 0,
        steps: 0,
        reboots_to_recovery: false,
        mentions_wipe: false,
    };
    let mut env = Env::android();
    match ev.script(command, &mut env, None) {
        Err(r) => Some(r),
        Ok(_) if ev.reboots_to_recovery && ev.mentions_wipe => Some(Refusal::new(
            "reboot-wipe",
            "the command reboots to recovery or the bootloader and asks for a wipe: that is a factory reset",
        )),
        Ok(_) => None,
    }
}

/// What the evaluator knows about the shell's state. `None` values are unknown.
#[derive(Clone)]
pub(super) struct Env {
    vars: HashMap<String, Option<String>>,
    pub(super) cwd: Option<String>,
}

impl Env {
    fn android() -> Self {
        // The environment `adb shell` starts with on Android; HOME is `/` for the shell user.
        let vars = [
            ("HOME", "/"),
            ("ANDROID_ROOT", "/system"),
            ("ANDROID_DATA", "/data"),
            ("ANDROID_STORAGE", "/storage"),
            ("EXTERNAL_STORAGE", "/sdcard"),
            ("ANDROID_ART_ROOT", "/apex/com.android.art"),
            ("TMPDIR", "/data/local/tmp"),
            ("IFS", " \t\n"),
            ("PWD", "/"),
            ("0", "sh"),
            ("#", "0"),
            ("?", "0"),
        ];
        let mut vars: HashMap<String, Option<String>> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), Some(v.to_string())))
            .collect();
        // Positional parameters are empty at the top level.
        for p in ["1", "2", "3", "4", "5", "6", "7", "8", "9", "@", "*"] {
            vars.insert(p.into(), Some(String::new()));
        }
        Self {
            vars,
            cwd: Some("/".into()),
        }
    }

    fn get(&self, name: &str) -> Option<Option<&str>> {
        self.vars.get(name).map(|v| v.as_deref())
    }

    pub(super) fn set(&mut self, name: &str, value: Option<String>) {
        self.vars.insert(name.to_string(), value);
    }
}

/// One simple command before expansion.
#[derive(Default)]
struct Cmd {
    words: Vec<Vec<Seg>>,
    redirs: Vec<(RedirKind, Vec<Seg>)>,
    subshell: Option<String>,
}

pub(super) struct Eval {
    depth: usize,
    steps: usize,
    pub(super) reboots_to_recovery: bool,
    pub(super) mentions_wipe: bool,
}

impl Eval {
    fn step(&mut self, n: usize) -> Result<(), Refusal> {
        self.steps += n;
        if self.steps > MAX_STEPS {
            return Err(Refusal::new(
                "too-complex",
                "the command is too complex to check",
            ));
        }
        Ok(())
    }

    /// Runs a script; returns its standard output when that is computable.
    pub(super) fn script(
        &mut self,
        src: &str,
        env: &mut Env,
        stdin: Option<String>,
    ) -> Result<Option<String>, Refusal> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(Refusal::new(
                "too-deep",
                "the command nests shells too deeply to check",
            ));
        }
        self.step(src.len() / 16 + 1)?;
        let toks = lex(src);
        let mut out = Some(String::new());
        let mut pipeline: Vec<Cmd> = Vec::new();
        let mut cur = Cmd::default();
        let mut first = true;
        for tok in toks.into_iter().chain(std::iter::once(Tok::Op(Op::End))) {
            match tok {
                Tok::Word(w) => cur.words.push(w),
                Tok::Redir(k, t) => cur.redirs.push((k, t)),
                Tok::Subshell(s) => cur.subshell = Some(s),
                Tok::Op(op) => {
                    pipeline.push(std::mem::take(&mut cur));
                    if op == Op::End {
                        let input = if first { stdin.clone() } else { None };
                        first = false;
                        let o = self.pipeline(std::mem::take(&mut pipeline), env, input)?;
                        out = join(out, o);
                    }
                }
            }
        }
        self.depth -= 1;
        Ok(out)
    }

    fn pipeline(
        &mut self,
        cmds: Vec<Cmd>,
        env: &mut Env,
        stdin: Option<String>,
    ) -> Result<Option<String>, Refusal> {
        let mut input = stdin;
        for cmd in cmds {
            input = self.command(cmd, env, input)?;
        }
        Ok(input)
    }

    fn command(
        &mut self,
        cmd: Cmd,
        env: &mut Env,
        mut stdin: Option<String>,
    ) -> Result<Option<String>, Refusal> {
        let mut writes = Vec::new();
        for (kind, target) in &cmd.redirs {
            match kind {
                RedirKind::Here => stdin = Some(self.expand_joined(target, env)? + "\n"),
                RedirKind::Out => writes.push(self.expand_joined(target, env)?),
                RedirKind::In => stdin = None,
                RedirKind::Dup => {}
            }
        }
        for w in &writes {
            rules::written_path(w, env.cwd.as_deref())?;
        }
        let mut words = &cmd.words[..];
        if let Some(inner) = &cmd.subshell {
            let mut sub = env.clone();
            let out = self.script(inner, &mut sub, stdin.clone())?;
            if words.len() <= 1 {
                return Ok(out);
            }
            // `name() { body; }`: the body is checked as if it ran, since a later call may.
            words = &words[1..];
        }
        let mut argv = Vec::new();
        for w in words {
            // `NAME=value` before the command name: an assignment, expanded without splitting.
            if argv.is_empty()
                && let Some((name, value)) = assignment(w)
            {
                let v = self.expand_joined(&value, env)?;
                env.set(&name, known(v));
                continue;
            }
            argv.extend(self.expand(w, env)?);
        }
        self.step(argv.len() + 1)?;
        if argv.iter().any(|a| a.to_ascii_lowercase().contains("wipe")) {
            self.mentions_wipe = true;
        }
        let out = self.argv(argv, env, stdin)?;
        if !writes.is_empty() {
            return Ok(Some(String::new()));
        }
        Ok(out)
    }

    /// Dispatches one expanded argv; recursion into nested shells happens here, the argv
    /// patterns live in [`rules::check`].
    pub(super) fn argv(
        &mut self,
        argv: Vec<String>,
        env: &mut Env,
        stdin: Option<String>,
    ) -> Result<Option<String>, Refusal> {
        let argv = rules::strip_prefixes(argv, env);
        let Some(name) = argv.first().map(|a| basename(a).to_string()) else {
            return Ok(Some(String::new()));
        };
        let args = &argv[1..];
        match name.as_str() {
            "sh" | "bash" | "mksh" | "ash" | "dash" | "zsh" | "ksh" => {
                return self.shell(args, env, stdin);
            }
            "su" | "sudo" | "doas" => return self.su(args, env, stdin),
            "eval" => {
                let mut sub = env.clone();
                return self.script(&args.join(" "), &mut sub, stdin);
            }
            "alias" => {
                for a in args {
                    if let Some((_, body)) = a.split_once('=') {
                        self.script(body, &mut env.clone(), None)?;
                    }
                }
            }
            "trap" => {
                if let Some(body) = args.first() {
                    self.script(body, &mut env.clone(), None)?;
                }
            }
            "adb" => return self.adb(args, env, stdin),
            "xargs" => return self.xargs(args, env, stdin),
            "cd" => {
                env.cwd = match args.first() {
                    None => Some("/".into()),
                    Some(d) if d.contains(UNKNOWN) => None,
                    Some(d) => env.cwd.as_deref().map(|c| rules::join_path(c, d)),
                };
                return Ok(Some(String::new()));
            }
            "export" | "readonly" | "local" | "typeset" => {
                for a in args {
                    if let Some((k, v)) = a.split_once('=') {
                        env.set(k, known(v.to_string()));
                    }
                }
                return Ok(Some(String::new()));
            }
            "for" => {
                // `for X in …`: X takes values the guard will not enumerate.
                if let Some(var) = args.first() {
                    env.set(var, None);
                }
                return Ok(Some(String::new()));
            }
            "read" => {
                for v in args.iter().filter(|a| !a.starts_with('-')) {
                    env.set(v, None);
                }
                return Ok(Some(String::new()));
            }
            _ => {}
        }
        rules::check(&name, &argv, env, self)?;
        Ok(output_of(&name, args, stdin))
    }

    fn shell(
        &mut self,
        args: &[String],
        env: &mut Env,
        stdin: Option<String>,
    ) -> Result<Option<String>, Refusal> {
        let mut i = 0;
        let mut dash_c = false;
        while let Some(a) = args.get(i) {
            if a == "--" {
                i += 1;
                break;
            }
            if !(a.starts_with('-') || a.starts_with('+')) || a.len() < 2 {
                break;
            }
            if a[1..].contains('c') {
                dash_c = true;
            }
            if a == "-o" || a == "+o" {
                i += 1;
            }
            i += 1;
        }
        let mut sub = env.clone();
        if dash_c {
            return match args.get(i) {
                Some(script) => self.script(script, &mut sub, stdin),
                None => Ok(None),
            };
        }
        match (args.get(i), stdin) {
            // A script file on the device: not readable from here.
            (Some(_), _) => Ok(None),
            (None, Some(input)) => self.script(&input, &mut sub, None),
            (None, None) => Ok(None),
        }
    }

    fn su(
        &mut self,
        args: &[String],
        env: &mut Env,
        stdin: Option<String>,
    ) -> Result<Option<String>, Refusal> {
        let mut i = 0;
        let mut who_seen = false;
        while let Some(a) = args.get(i) {
            match a.as_str() {
                "-c" | "--command" => {
                    let script = args[i + 1..].join(" ");
                    return self.script(&script, &mut env.clone(), stdin);
                }
                s if s.starts_with("--command=") => {
                    let script = s.trim_start_matches("--command=").to_string();
                    return self.script(&script, &mut env.clone(), stdin);
                }
                // Options taking a value (Magisk su, sudo).
                "-s" | "--shell" | "-u" | "-g" | "-G" | "--context" | "-Z" | "-t" => i += 2,
                s if s.starts_with('-') => i += 1,
                _ if !who_seen && is_user(a) && args.len() > i => {
                    who_seen = true;
                    i += 1;
                }
                _ => return self.argv(args[i..].to_vec(), &mut env.clone(), stdin),
            }
        }
        // `su` alone reads commands from its standard input.
        match stdin {
            Some(input) => self.script(&input, &mut env.clone(), None),
            None => Ok(None),
        }
    }

    fn adb(
        &mut self,
        args: &[String],
        env: &mut Env,
        stdin: Option<String>,
    ) -> Result<Option<String>, Refusal> {
        let mut i = 0;
        while let Some(a) = args.get(i) {
            match a.as_str() {
                "-s" | "-t" | "-H" | "-P" | "-L" => i += 2,
                s if s.starts_with('-') => i += 1,
                "shell" | "exec-out" => {
                    let rest: Vec<&String> = args[i + 1..]
                        .iter()
                        .skip_while(|a| a.starts_with('-'))
                        .collect();
                    // adb joins its arguments with spaces and the device's shell parses them.
                    let script = rest
                        .iter()
                        .map(|s| s.as_str())
                        .collect::<Vec<_>>()
                        .join(" ");
                    return self.script(&script, &mut Env::android(), stdin);
                }
                _ => return self.argv(args[i..].to_vec(), env, stdin),
            }
        }
        Ok(None)
    }

    fn xargs(
        &mut self,
        args: &[String],
        env: &mut Env,
        stdin: Option<String>,
    ) -> Result<Option<String>, Refusal> {
        let mut i = 0;
        let mut replace: Option<String> = None;
        while let Some(a) = args.get(i) {
            match a.as_str() {
                "-I" | "-i" => {
                    replace = Some(args.get(i + 1).cloned().unwrap_or_else(|| "{}".into()));
                    i += 2;
                }
                "-n" | "-L" | "-P" | "-s" | "-d" | "-E" | "-a" => i += 2,
                s if s.starts_with('-') => i += 1,
                _ => break,
            }
        }
        let items: Vec<String> = match &stdin {
            Some(s) => s.split_whitespace().map(str::to_string).collect(),
            None => vec![UNKNOWN.to_string()],
        };
        let mut cmd: Vec<String> = args[i.min(args.len())..].to_vec();
        if cmd.is_empty() {
            cmd.push("echo".into());
        }
        match replace {
            Some(r) => {
                for item in &items {
                    let argv = cmd.iter().map(|a| a.replace(&r, item)).collect();
                    self.argv(argv, &mut env.clone(), None)?;
                }
            }
            None => {
                cmd.extend(items);
                self.argv(cmd, &mut env.clone(), None)?;
            }
        }
        Ok(None)
    }

    /// Expands a word with field splitting, as an unquoted argument would be.
    fn expand(&mut self, w: &[Seg], env: &Env) -> Result<Vec<String>, Refusal> {
        let mut fields = Vec::new();
        let mut cur = String::new();
        let mut have = false;
        let ifs: String = env.get("IFS").flatten().unwrap_or(" \t\n").to_string();
        for seg in w {
            let (value, quoted) = match seg {
                Seg::Lit(s) => {
                    cur.push_str(s);
                    have = true;
                    continue;
                }
                Seg::Tilde => (env.get("HOME").flatten().map(str::to_string), true),
                Seg::Param {
                    name,
                    quoted,
                    default,
                } => {
                    let v = match (env.get(name), default) {
                        (Some(Some(v)), _) if !v.is_empty() => Some(v.to_string()),
                        (_, Some(d)) => Some(self.expand_joined(d, env)?),
                        (Some(v), None) => v.map(str::to_string),
                        // Unset here may still be set in the device's environment.
                        (None, None) => None,
                    };
                    (v, *quoted)
                }
                Seg::Subst { script, quoted } => {
                    let out = self.script(script, &mut env.clone(), None)?;
                    (out.map(|o| o.trim_end_matches('\n').to_string()), *quoted)
                }
                Seg::Unknown { quoted } => (None, *quoted),
            };
            let value = value.unwrap_or_else(|| UNKNOWN.to_string());
            if quoted {
                cur.push_str(&value);
                have = true;
                continue;
            }
            for c in value.chars() {
                if ifs.contains(c) {
                    if have {
                        fields.push(std::mem::take(&mut cur));
                        have = false;
                    }
                } else {
                    cur.push(c);
                    have = true;
                }
            }
        }
        if have {
            fields.push(cur);
        }
        Ok(fields)
    }

    fn expand_joined(&mut self, w: &[Seg], env: &Env) -> Result<String, Refusal> {
        let quoted: Vec<Seg> = w
            .iter()
            .map(|s| match s.clone() {
                Seg::Param { name, default, .. } => Seg::Param {
                    name,
                    quoted: true,
                    default,
                },
                Seg::Subst { script, .. } => Seg::Subst {
                    script,
                    quoted: true,
                },
                Seg::Unknown { .. } => Seg::Unknown { quoted: true },
                other => other,
            })
            .collect();
        Ok(self.expand(&quoted, env)?.join(" "))
    }
}

fn join(a: Option<String>, b: Option<String>) -> Option<String> {
    let mut a = a?;
    a.push_str(&b?);
    Some(a)
}

fn known(v: String) -> Option<String> {
    if v.contains(UNKNOWN) { None } else { Some(v) }
}

fn is_user(a: &str) -> bool {
    a.chars().all(|c| c.is_ascii_digit() || c == ',')
        || matches!(a, "root" | "shell" | "system" | "-")
}

pub(super) fn basename(a: &str) -> &str {
    a.rsplit('/').next().unwrap_or(a)
}

fn assignment(w: &[Seg]) -> Option<(String, Vec<Seg>)> {
    let Some(Seg::Lit(first)) = w.first() else {
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
    let mut value = vec![Seg::Lit(rest.to_string())];
    value.extend(w[1..].iter().cloned());
    Some((name.to_string(), value))
}
