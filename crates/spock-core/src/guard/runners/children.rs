//! The commands that start another context for the command they run: `su` (user, `-c`,
//! or commands on its input), `env` (assignments, `-u`, `-C`, `-S` split strings) and
//! `adb shell` (a fresh device shell that parses the joined arguments again).
use crate::guard::eval::{Eval, Input, R};
use crate::guard::state::{Env, Val};

impl Eval {
    pub(super) fn su(&mut self, args: &[String], env: &mut Env, input: &Input) -> R<Val> {
        let mut i = 0;
        let mut who_seen = false;
        while let Some(a) = args.get(i) {
            match a.as_str() {
                "-c" | "--command" => {
                    let script = args[i + 1..].join(" ");
                    return self.child_shell(&script, "su", &[], env, input);
                }
                s if s.starts_with("--command=") => {
                    let script = s.trim_start_matches("--command=").to_string();
                    return self.child_shell(&script, "su", &[], env, input);
                }
                // Options taking a value (Magisk su, sudo).
                "-s" | "--shell" | "-u" | "-g" | "-G" | "--context" | "-Z" | "-t" | "-C" => i += 2,
                s if s.starts_with('-') => i += 1,
                _ if !who_seen && is_user(a) => {
                    who_seen = true;
                    i += 1;
                }
                _ => return self.run(args[i..].to_vec(), &mut env.child(), input),
            }
        }
        // `su` alone reads commands from its standard input.
        self.shell(&[], env, input)
    }

    pub(super) fn env_cmd(&mut self, args: &[String], env: &mut Env, input: &Input) -> R<Val> {
        let mut i = 0;
        let mut e = env.clone();
        while let Some(a) = args.get(i) {
            match a.as_str() {
                "-u" | "--unset" => {
                    if let Some(n) = args.get(i + 1) {
                        e.set(n, Val::unknown(format!("what `${n}` holds after `env -u`")));
                    }
                    i += 2;
                }
                "-C" | "--chdir" => {
                    if let Some(d) = args.get(i + 1) {
                        e.cwd = Val::known(crate::guard::places::join_path("/", d));
                    }
                    i += 2;
                }
                "-S" | "--split-string" => {
                    let s = args.get(i + 1).cloned().unwrap_or_default();
                    let rest = crate::guard::shell_join(&args[(i + 2).min(args.len())..]);
                    return self.child_shell(&format!("{s} {rest}"), "env", &[], &mut e, input);
                }
                s if s.starts_with("-S") && s.len() > 2 => {
                    let rest = crate::guard::shell_join(&args[i + 1..]);
                    return self.child_shell(
                        &format!("{} {rest}", &s[2..]),
                        "env",
                        &[],
                        &mut e,
                        input,
                    );
                }
                s if s.starts_with('-') => i += 1,
                s if s.contains('=') => {
                    if let Some((k, v)) = s.split_once('=') {
                        e.set(k, Val::known(v));
                    }
                    i += 1;
                }
                _ => break,
            }
        }
        if i >= args.len() {
            return Ok(Val::unknown("what `env` prints"));
        }
        let out = self.run(args[i..].to_vec(), &mut e, input)?;
        env.fs = e.fs;
        Ok(out)
    }

    pub(super) fn adb(&mut self, args: &[String], env: &mut Env, input: &Input) -> R<Val> {
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
                    if rest.is_empty() {
                        return self.shell(&[], env, input);
                    }
                    let mut dev = Env::android();
                    return self.script(&script, &mut dev, input.clone());
                }
                _ => return self.run(args[i..].to_vec(), env, input),
            }
        }
        Ok(Val::known(""))
    }
}

fn is_user(a: &str) -> bool {
    a.chars().all(|c| c.is_ascii_digit() || c == ',')
        || matches!(a, "root" | "shell" | "system" | "-")
}
