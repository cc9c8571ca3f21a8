//! Everything that runs its arguments or its input as a command, followed recursively: shells
//! (`sh -c`, `sh` reading a pipe or a here-document), `eval`, `.`/`source`, `su`, `trap`,
//! aliases, functions, scripts written earlier in the same command, the prefix commands
//! (`exec`, `command`, `builtin`, `time`, `nohup`, `nice`, `env` incl. `-S`, `timeout`,
//! `watch`, `flock`, `logwrapper`, `run-as`, `busybox`/`toybox`, …), `xargs` (incl. `-a`),
//! `find -exec/-execdir/-ok/-delete`, awk's `system()` and `adb shell`.
//!
//! A shell fed text the guard cannot compute (a pipe from an unknown program, `sh -c "$X"`
//! with `X` unknown) is refused as "cannot tell"; a script file that existed before the
//! command ran is not read here and goes to the person like any other command.
use super::eval::{Eval, Input, R, cannot_read};
use super::rules::{cannot_tell, shown};
use super::state::{Env, Params, UNKNOWN, Val};

mod children;

pub(super) fn basename(a: &str) -> &str {
    a.rsplit('/').next().unwrap_or(a)
}

/// Options of a prefix command that take a separate value, and how many plain words it
/// takes before the wrapped command.
fn prefix_spec(name: &str) -> Option<(&'static [&'static str], usize)> {
    Some(match name {
        "exec" => (&["-a"], 0),
        "time" => (&["-o", "-f", "--output", "--format"], 0),
        "builtin" | "nohup" | "setsid" | "logwrapper" | "unshare" | "caffeinate" | "fakeroot"
        | "nohup.sh" => (&[], 0),
        "nice" => (&["-n", "--adjustment"], 0),
        "ionice" => (&["-c", "-n", "-p", "--class", "--classdata"], 0),
        "stdbuf" => (&["-i", "-o", "-e"], 0),
        "timeout" => (&["-s", "-k", "--signal", "--kill-after"], 1),
        "chroot" | "runcon" => (&["--userspec", "--groups"], 1),
        "taskset" | "chrt" => (&[], 1),
        "nsenter" => (
            &[
                "-t", "--target", "-S", "-G", "--setuid", "--setgid", "-w", "--wd",
            ],
            0,
        ),
        "setpriv" => (
            &[
                "--reuid",
                "--regid",
                "--groups",
                "--inh-caps",
                "--ambient-caps",
                "--bounding-set",
                "--securebits",
                "--selinux-label",
                "--pdeathsig",
            ],
            0,
        ),
        "strace" | "ltrace" => (
            &["-o", "-e", "-p", "-s", "-a", "-E", "-u", "-P", "-O", "-S"],
            0,
        ),
        "flock" => (&["-w", "-E", "--timeout", "--conflict-exit-code"], 1),
        "busybox" | "toybox" | "toolbox" => (&[], 0),
        _ => return None,
    })
}

fn skip_opts(args: &[String], takes_value: &[&str]) -> usize {
    let mut i = 0;
    while let Some(a) = args.get(i) {
        if a == "--" {
            return i + 1;
        }
        if takes_value.contains(&a.as_str()) {
            i += 2;
        } else if a.starts_with('-') && a.len() > 1 {
            i += 1;
        } else {
            break;
        }
    }
    i.min(args.len())
}

/// The program a path in a system `bin` folder names (`/system/bin/pm` is `pm`).
fn system_program(path: &str) -> Option<String> {
    let c = super::places::canonical(path);
    let (dir, base) = c.rsplit_once('/')?;
    let system_bin = matches!(
        dir,
        "/system/bin"
            | "/system/xbin"
            | "/bin"
            | "/xbin"
            | "/vendor/bin"
            | "/product/bin"
            | "/system_ext/bin"
            | "/odm/bin"
            | "/sbin"
    ) || (dir.starts_with("/apex/") && dir.ends_with("/bin"));
    system_bin.then(|| base.to_string())
}

impl Eval {
    /// Runs one expanded argv and returns its standard output.
    pub(super) fn run(&mut self, argv: Vec<String>, env: &mut Env, input: &Input) -> R<Val> {
        self.step(argv.len() + 1)?;
        let Some(first) = argv.first().cloned() else {
            return Ok(Val::known(""));
        };
        if self.ran.len() < 10_000 {
            self.ran.push(first.clone());
        }
        let args = &argv[1..];
        if first.contains(['*', '?', '[']) && first.len() > 1 && first != "[[" {
            // The shell runs whatever the pattern matches (`/bin/c[m]d` is `cmd`).
            return Err(cannot_read(&format!(
                "`{}`, a pattern as the program's name,",
                shown(&first)
            )));
        }
        if first.contains(UNKNOWN) {
            return Err(cannot_tell(
                self,
                &format!(
                    "the command `{}` deletes, formats or overwrites something",
                    shown(&first)
                ),
            ));
        }
        // A script written earlier in this command, run by its path.
        if first.contains('/')
            && !env.fs.files.is_empty()
            && let Some(body) = self.written_script(&first, env)
        {
            return self.child_shell(&body, &first, args, env, input);
        }
        // A script written earlier in this command into a directory on `PATH`.
        if !first.contains('/')
            && env
                .fs
                .files
                .keys()
                .any(|k| k.rsplit('/').next() == Some(first.as_str()))
            && !env.funcs.contains_key(&first)
        {
            let path = env.get("PATH");
            let dirs: Vec<String> = path
                .cands
                .iter()
                .flat_map(|p| p.split(':').map(str::to_string).collect::<Vec<_>>())
                .filter(|d| !d.is_empty() && !d.contains(UNKNOWN))
                .collect();
            for d in dirs {
                let full = format!("{}/{first}", d.trim_end_matches('/'));
                if let Some(body) = self.written_script(&full, env) {
                    return self.child_shell(&body, &full, args, env, input);
                }
            }
        }
        // Special builtins are found before functions (`eval() { :; }; eval '…'` runs the
        // builtin in mksh).
        let skip_func = self.skip_func.take().is_some_and(|s| s == first);
        if let Some(body) = env
            .funcs
            .get(&first)
            .filter(|_| !is_special_builtin(&first) && !skip_func)
            .cloned()
        {
            let out = self.deeper(|ev| {
                let saved = std::mem::replace(
                    &mut env.params,
                    Params::Known(args.iter().map(|a| Val::known(a.as_str())).collect()),
                );
                let out = ev.node(&body, env, input);
                env.params = saved;
                out
            })?;
            // `command NAME` skips the function, and a function defined on a line the
            // shell reads later is not there yet: a known program is read as itself too.
            if super::known::is_known(&first) {
                let mut e = env.clone();
                self.skip_func = Some(first.clone());
                let plain = self.deeper(|ev| ev.run(argv.clone(), &mut e, input));
                self.skip_func = None;
                plain?;
            }
            return Ok(out);
        }
        let name = self.program_name(&first, env);
        if name == "exec"
            && let Some(p) = args.iter().position(|a| a == "-a")
            && let Some(argv0) = args.get(p + 1).filter(|a| !a.contains(UNKNOWN))
        {
            // `exec -a NAME prog …`: a multiplexer (`toybox`, `busybox`) runs the applet
            // named by argv[0].
            // Android's `/system/bin/ls`, `/system/bin/true`, … are links to toybox, so any
            // program may be one: read it both as the applet argv[0] names and as itself.
            let rest = &args[(p + 2).min(args.len())..];
            if let Some(prog) = rest.first() {
                let mut argv = vec![argv0.clone()];
                argv.extend(rest[1..].iter().cloned());
                if matches!(basename(prog), "toybox" | "busybox" | "toolbox") {
                    return self.run(argv, env, input);
                }
                let mut e = env.clone();
                self.run(argv, &mut e, input)?;
            }
        } else if name == "exec" && args.iter().any(|a| a == "-a") {
            return Err(cannot_tell(self, "which program `exec -a` names"));
        }
        if let Some((takes, positionals)) = prefix_spec(&name) {
            if matches!(name.as_str(), "busybox" | "toybox" | "toolbox") && args.is_empty() {
                return Ok(Val::known(""));
            }
            // busybox's `svc` is daemontools' (it writes control bytes), not Android's.
            if name == "busybox" && args.first().is_some_and(|a| a == "svc") {
                return Err(cannot_read(
                    "`busybox svc`, daemontools' service control (not Android's `svc`),",
                ));
            }
            let i = skip_opts(args, takes) + positionals;
            // `nsenter -w DIR` (`-wDIR`, `--wd=DIR`) runs the command in DIR.
            if name == "nsenter" {
                for (n, a) in args[..i.min(args.len())].iter().enumerate() {
                    let dir = match a.as_str() {
                        "-w" | "--wd" => args.get(n + 1).cloned(),
                        _ => a
                            .strip_prefix("--wd=")
                            .or_else(|| a.strip_prefix("-w"))
                            .filter(|d| !d.is_empty())
                            .map(str::to_string),
                    };
                    if let Some(d) = dir {
                        let mut e = env.clone();
                        let cwd = e.cwd.cands.first().cloned().unwrap_or_else(|| "/".into());
                        e.cwd = Val::known(super::places::join_path(&cwd, &d));
                        return self.run(args[i.min(args.len())..].to_vec(), &mut e, input);
                    }
                }
            }
            // `time -o FILE`, `strace -o FILE` write their report over FILE.
            if matches!(name.as_str(), "time" | "strace" | "ltrace") {
                for (n, a) in args[..i.min(args.len())].iter().enumerate() {
                    let file = match a.as_str() {
                        "-o" | "--output" => args.get(n + 1).cloned(),
                        _ => a
                            .strip_prefix("--output=")
                            .or_else(|| a.strip_prefix("-o"))
                            .filter(|v| !v.is_empty())
                            .map(str::to_string),
                    };
                    if let Some(f) = file {
                        super::rules::written(&Val::known(f), env, self, &format!("`{name} -o`"))?;
                    }
                }
            }
            if name == "flock" && args.get(i).is_some_and(|a| a == "-c") {
                let script = args.get(i + 1).cloned().unwrap_or_default();
                return self.child_shell(&script, "sh", &[], env, input);
            }
            // With no command these run a shell, which reads its input.
            if matches!(
                name.as_str(),
                "chroot" | "unshare" | "nsenter" | "setpriv" | "runcon"
            ) && i >= args.len()
            {
                return self.shell(&[], env, input);
            }
            return self.run(args[i.min(args.len())..].to_vec(), env, input);
        }
        match name.as_str() {
            "sh" | "bash" | "mksh" | "ash" | "dash" | "zsh" | "ksh" | "hush" | "msh" | "lksh" => {
                self.shell(args, env, input)
            }
            "su" | "sudo" | "doas" => self.su(args, env, input),
            "command" => {
                if args
                    .iter()
                    .take_while(|a| a.starts_with('-'))
                    .any(|a| a.contains(['v', 'V']))
                {
                    return Ok(which(args.last().map(String::as_str).unwrap_or("")));
                }
                let i = skip_opts(args, &[]);
                // `command NAME` runs the builtin or program, never a function.
                self.skip_func = args.get(i).cloned();
                let out = self.run(args[i..].to_vec(), env, input);
                self.skip_func = None;
                out
            }
            "which" | "type" | "whence" => Ok(which(args.last().map(String::as_str).unwrap_or(""))),
            "env" => self.env_cmd(args, env, input),
            "watch" => {
                let i = skip_opts(args, &["-n", "--interval", "-d", "--differences"]);
                let exec = args[..i].iter().any(|a| a == "-x" || a == "--exec");
                if exec {
                    return self.run(args[i..].to_vec(), env, input);
                }
                let script = args[i..].join(" ");
                self.child_shell(&script, "sh", &[], env, input)
            }
            "run-as" => {
                let i = skip_opts(args, &["--user"]);
                if let Some(pkg) = args.get(i).filter(|p| !p.contains(UNKNOWN)) {
                    env.cwd = Val::known(format!("/data/data/{pkg}"));
                } else {
                    env.cwd = Val::unknown("which app directory `run-as` starts in");
                }
                let rest = args[(i + 1).min(args.len())..].to_vec();
                if rest.is_empty() {
                    return self.shell(&[], env, input);
                }
                self.run(rest, env, input)
            }
            "eval" => {
                let script = args.join(" ");
                if script.contains(UNKNOWN) {
                    return Err(cannot_tell(
                        self,
                        "what `eval` runs deletes, formats or overwrites something",
                    ));
                }
                self.script(&script, env, input.clone())
            }
            "." | "source" => {
                let Some(f) = args.first() else {
                    return Ok(Val::known(""));
                };
                match self.written_script(f, env) {
                    Some(body) => self.script(&body, env, input.clone()),
                    None => Ok(Val::unknown(format!("what `{f}` prints"))),
                }
            }
            "trap" => {
                let i = skip_opts(args, &[]);
                if let Some(body) = args.get(i).filter(|b| *b != "-") {
                    if body.contains(UNKNOWN) {
                        return Err(cannot_tell(self, "what `trap` runs deletes something"));
                    }
                    let mut e = env.clone();
                    self.script(body, &mut e, None)?;
                    // It runs later (at exit, on a signal), when functions defined after
                    // this line exist: read again at the end.
                    if self.traps.len() < 16 {
                        self.traps.push(body.clone());
                    }
                }
                Ok(Val::known(""))
            }
            "adb" => self.adb(args, env, input),
            "xargs" => self.xargs(args, env, input),
            "find" => self.find(args, env, input),
            "awk" | "gawk" | "nawk" | "mawk" => self.awk(args, env, input),
            _ => self.builtin_or_program(&name, args, env, input),
        }
    }

    /// The program a command word runs: its base name, or the shell when it is the shell's
    /// own executable (`/proc/self/exe`), or what a link or copy made earlier in the command
    /// points at.
    fn program_name(&self, first: &str, env: &Env) -> String {
        if !first.contains('/') {
            return first.to_string();
        }
        for r in super::places::resolve(first, env) {
            let c: Vec<&str> = r.split('/').filter(|c| !c.is_empty()).collect();
            if matches!(
                c.as_slice(),
                ["proc", _, "exe"] | ["proc", _, "task", _, "exe"]
            ) {
                return "sh".into();
            }
            let b = basename(&r);
            if b != basename(first) && super::known::is_known(b) {
                return b.to_string();
            }
        }
        basename(first).to_string()
    }

    fn written_script(&self, path: &str, env: &Env) -> Option<String> {
        super::places::resolve(path, env).iter().find_map(|r| {
            env.fs.files.get(r).map(|v| match v.single() {
                Some(s) => s.to_string(),
                None => UNKNOWN.to_string(),
            })
        })
    }

    /// Runs `script` in a child shell with `$0` and positional parameters.
    pub(super) fn child_shell(
        &mut self,
        script: &str,
        zero: &str,
        args: &[String],
        env: &mut Env,
        input: &Input,
    ) -> R<Val> {
        if script.contains(UNKNOWN) {
            return Err(cannot_tell(
                self,
                &format!("the script `{zero}` runs deletes, formats or overwrites something"),
            ));
        }
        let mut child = env.child();
        for n in &self.unexported {
            let v = child.get(n).join(&Val::known(""));
            child.set(n, v);
        }
        child.set("0", Val::known(zero));
        child.params = Params::Known(args.iter().map(|a| Val::known(a.as_str())).collect());
        let out = self.script(script, &mut child, input.clone())?;
        env.fs = child.fs;
        Ok(out)
    }

    /// `sh [options] [-c script [name [args]] | file [args]]`, or commands on standard input.
    pub(super) fn shell(&mut self, args: &[String], env: &mut Env, input: &Input) -> R<Val> {
        let mut i = 0;
        let mut dash_c = false;
        let mut dash_s = false;
        while let Some(a) = args.get(i) {
            if a == "--" || a == "-" {
                // `sh -`: the script is standard input.
                dash_s |= a == "-";
                i += 1;
                break;
            }
            if !(a.starts_with('-') || a.starts_with('+')) || a.len() < 2 {
                break;
            }
            if a.contains(UNKNOWN) {
                return Err(cannot_tell(self, "which options the shell is given"));
            }
            let login = a == "--login"
                || (!a.starts_with("--") && a[1..].contains(['l', 'i']))
                || (matches!(a.as_str(), "-o" | "+o")
                    && args
                        .get(i + 1)
                        .is_some_and(|o| matches!(o.as_str(), "login" | "interactive")));
            if login {
                // A login or interactive shell reads startup files and history first.
                return Err(cannot_read(&format!(
                    "a login or interactive shell (`{}`), which runs startup files the guard does not see",
                    a
                )));
            }
            dash_c |= a[1..].contains('c') && !a.starts_with("--");
            dash_s |= a.starts_with('-') && a[1..].contains('s');
            if a == "-o" || a == "+o" {
                i += 1;
            }
            i += 1;
        }
        if dash_c {
            let Some(script) = args.get(i) else {
                return Ok(Val::known(""));
            };
            let zero = args.get(i + 1).cloned().unwrap_or_else(|| "sh".into());
            let rest = args.get(i + 2..).unwrap_or(&[]).to_vec();
            return self.child_shell(script, &zero, &rest, env, input);
        }
        if let Some(file) = args.get(i).filter(|_| !dash_s) {
            // The shell reading its own standard input by name.
            if super::places::resolve(file, env)
                .iter()
                .any(|r| r == "/proc/self/fd/0")
                && !env.fs.files.contains_key("/proc/self/fd/0")
            {
                return self.shell(&[], env, input);
            }
            // `sh file`: read it only when this command wrote it.
            return match self.written_script(file, env) {
                Some(body) => self.child_shell(&body, file, &args[i + 1..], env, &None),
                None if file.contains(UNKNOWN) => Err(cannot_tell(
                    self,
                    &format!("the script `{}` deletes something", shown(file)),
                )),
                None if env.fs.unread_writes.is_some() => Err(cannot_read(&format!(
                    "the script `{file}`, which {} may have written earlier in this command,",
                    env.fs.unread_writes.as_deref().unwrap_or("a program")
                ))),
                // Android's `am`, `pm`, `cmd`, … in a system `bin` folder: `sh /system/bin/pm
                // ARGS` is `pm ARGS` (they are shell scripts, or run as such).
                None if system_program(file).is_some() => {
                    let mut argv = vec![system_program(file).unwrap_or_default()];
                    argv.extend(args[i + 1..].iter().cloned());
                    self.run(argv, env, input)
                }
                None => Ok(Val::unknown(format!("what `sh {file}` prints"))),
            };
        }
        let Some(text) = input else {
            return Ok(Val::known(""));
        };
        if text.is_unknown() {
            let why = text
                .why
                .clone()
                .unwrap_or_else(|| "what the shell reads".into());
            self.why.insert(0, why);
            return Err(cannot_tell(
                self,
                "the commands piped into the shell delete, format or overwrite something",
            ));
        }
        let mut out: Option<Val> = None;
        for cand in text.cands.clone() {
            let o = self.child_shell(&cand, "sh", &[], env, &None)?;
            out = Some(out.map_or(o.clone(), |a| a.join(&o)));
        }
        Ok(out.unwrap_or_else(|| Val::known("")))
    }
}

/// mksh's special builtins: a function of the same name does not replace them.
fn is_special_builtin(name: &str) -> bool {
    matches!(
        name,
        "." | ":"
            | "break"
            | "builtin"
            | "continue"
            | "eval"
            | "exec"
            | "exit"
            | "export"
            | "readonly"
            | "return"
            | "set"
            | "shift"
            | "source"
            | "times"
            | "trap"
            | "typeset"
            | "unset"
    )
}

fn which(name: &str) -> Val {
    if name.contains('/') {
        Val::known(format!("{name}\n"))
    } else {
        Val::known(format!("/system/bin/{name}\n"))
    }
}
