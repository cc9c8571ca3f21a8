//! The shell builtins that change what the abstract shell knows (`cd` incl. `-`, `-P` and
//! `CDPATH`; `export`/`local`/`readonly`/`typeset`; `unset`; `set --`; `shift`; `read`;
//! `alias`/`unalias`; `getopts`), the programs that take other commands as arguments in their
//! own syntax (`xargs`, `find`, `awk`), and the hand-off of every other argv to the verb rules
//! ([`super::rules`], [`super::wipes`]) and the output model ([`super::output`]).
use std::rc::Rc;

use super::eval::{Eval, Input, R, cannot_read};
use super::places::{file_contents, join_path, resolve};
use super::state::{Env, Params, UNKNOWN, UNKNOWN_S, Val};

impl Eval {
    pub(super) fn builtin_or_program(
        &mut self,
        name: &str,
        args: &[String],
        env: &mut Env,
        input: &Input,
    ) -> R<Val> {
        let empty = Ok(Val::known(""));
        match name {
            "cd" | "chdir" => {
                if args.iter().filter(|a| !a.starts_with('-')).count() >= 2 {
                    return Err(cannot_read(
                        "mksh's `cd OLD NEW`, which swaps text in the working directory",
                    ));
                }
                self.cd(args, env);
                return empty;
            }
            "pwd" => {
                return Ok(Val::from_cands(
                    env.cwd.cands.iter().map(|c| format!("{c}\n")).collect(),
                    env.cwd.why.clone(),
                ));
            }
            "export" | "readonly" | "local" | "typeset" | "declare" | "integer" => {
                if name == "readonly" || args.iter().any(|a| a.starts_with('-') && a.contains('r'))
                {
                    for a in args.iter().filter(|a| !a.starts_with(['-', '+'])) {
                        let k = a.split_once('=').map_or(a.as_str(), |(k, _)| k).to_string();
                        if !self.readonly.contains(&k) {
                            self.readonly.push(k);
                        }
                    }
                }
                if name == "export" {
                    self.unexported.retain(|n| {
                        !args
                            .iter()
                            .any(|a| a.split_once('=').map_or(a.as_str(), |(k, _)| k) == n)
                    });
                }
                // busybox sh has no `typeset`, `declare` or `integer`: the old value may stay.
                let may_not_run = matches!(name, "typeset" | "declare" | "integer");
                let int = name == "integer"
                    || args
                        .iter()
                        .any(|a| a.starts_with('-') && a.contains('i') || a.starts_with("+i"));
                for a in args.iter().filter(|a| !a.starts_with(['-', '+'])) {
                    let (k, v) = a.split_once('=').unwrap_or((a.as_str(), ""));
                    if int && !self.int_vars.iter().any(|n| n == k) {
                        self.int_vars.push(k.to_string());
                    }
                    if !a.contains('=') {
                        // mksh's `local T` starts T unset; busybox keeps the value.
                        if matches!(name, "local" | "typeset" | "declare") {
                            let v = env.get(k).join(&Val::known(""));
                            env.set(k, v);
                        }
                        continue;
                    }
                    let v = if v.contains(UNKNOWN) {
                        Val::unknown(format!("what `${k}` holds"))
                    } else {
                        Val::known(v)
                    };
                    self.assigned(k, &v, env)?;
                    let v = if may_not_run { env.get(k).join(&v) } else { v };
                    env.set(k, v);
                }
                return empty;
            }
            "let" => {
                self.arith_args(args, env)?;
                return Ok(Val::known(""));
            }
            "[[" | "[" | "test" => {
                // Numeric comparisons evaluate both sides as arithmetic in mksh.
                for (i, a) in args.iter().enumerate() {
                    if matches!(a.as_str(), "-eq" | "-ne" | "-lt" | "-le" | "-gt" | "-ge") {
                        let sides: Vec<String> = [i.checked_sub(1), Some(i + 1)]
                            .into_iter()
                            .flatten()
                            .filter_map(|j| args.get(j).cloned())
                            .collect();
                        self.arith_args(&sides, env)?;
                    }
                }
            }
            "unset" => {
                let funcs = args.iter().any(|a| a == "-f");
                for a in args.iter().filter(|a| !a.starts_with('-')) {
                    if funcs {
                        Rc::make_mut(&mut env.funcs).remove(a);
                    } else {
                        env.set(a, Val::unknown(format!("what `${a}` holds after `unset`")));
                        // `unset` also drops the export: a later plain assignment stays in
                        // this shell, and a child shell may not see it.
                        if !self.unexported.contains(a) {
                            self.unexported.push(a.clone());
                        }
                    }
                }
                return empty;
            }
            "set" => {
                let i = args
                    .iter()
                    .position(|a| a == "--")
                    .map(|i| i + 1)
                    .or_else(|| {
                        (!args.is_empty() && !args[0].starts_with(['-', '+'])).then_some(0)
                    });
                if let Some(i) = i {
                    // mksh's `set -s` sorts them.
                    let sorts = args[..i]
                        .iter()
                        .any(|a| a.starts_with('-') && !a.starts_with("--") && a.contains('s'));
                    env.params = if sorts {
                        Params::Unknown(Rc::from("after `set -s`, which sorts them"))
                    } else if args[i..].iter().any(|a| a.contains(UNKNOWN)) {
                        Params::Unknown(Rc::from(
                            "after `set --` with a value the guard cannot know",
                        ))
                    } else {
                        Params::Known(args[i..].iter().map(|a| Val::known(a.as_str())).collect())
                    };
                }
                return empty;
            }
            "shift" => {
                // mksh evaluates the count as arithmetic (`shift "$X"` with `X='a[$(…)]'`).
                self.arith_args(&args[..args.len().min(1)], env)?;
                let n = args.first().map_or(Some(1), |a| a.parse::<usize>().ok());
                env.params = match (&env.params, n) {
                    (Params::Known(p), Some(n)) => {
                        Params::Known(p.iter().skip(n).cloned().collect())
                    }
                    _ => Params::Unknown(Rc::from("after `shift`")),
                };
                return empty;
            }
            "read" => {
                self.read(args, env, input);
                return empty;
            }
            "getopts" => {
                // It sets or unsets OPTARG and moves OPTIND.
                for n in ["OPTARG", "OPTIND"] {
                    env.set(
                        n,
                        Val::unknown(format!("what `${n}` holds after `getopts`")),
                    );
                }
                if let Some(v) = args.get(1) {
                    env.set(
                        v,
                        Val::unknown(format!("what `${v}` holds after `getopts`")),
                    );
                }
                return empty;
            }
            "alias" => {
                for a in args {
                    if let Some((k, body)) = a.split_once('=') {
                        if !whole_command(body) {
                            return Err(cannot_read(&format!(
                                "the alias `{k}`, whose text is not a whole command (an open quote or compound goes on into the lines after it),"
                            )));
                        }
                        // The body is read now too: an alias exists to be run.
                        self.script(body, &mut env.clone(), None)?;
                        Rc::make_mut(&mut env.aliases).insert(k.to_string(), body.to_string());
                    }
                }
                return empty;
            }
            "unalias" => {
                for a in args {
                    Rc::make_mut(&mut env.aliases).remove(a);
                }
                return empty;
            }
            _ => {}
        }
        super::wipes::check(name, args, self)?;
        super::rules::check(name, args, env, self)?;
        self.unmodelled(name, args, env, input)?;
        let stdin = input.clone().unwrap_or_else(|| Val::known(""));
        let mut out: Option<Val> = None;
        for cand in &stdin.cands {
            let o = match (
                cand.contains(UNKNOWN),
                super::output::output_of(name, args, cand, env),
            ) {
                (false, Some(s)) => Val::from_cands(s, None),
                _ if name == "cat" && args.iter().any(|a| !a.starts_with('-')) => {
                    let f = args
                        .iter()
                        .find(|a| !a.starts_with('-'))
                        .cloned()
                        .unwrap_or_default();
                    file_contents(&Val::known(f), env)
                }
                _ => {
                    let mut v = Val::unknown(format!("what `{name} …` prints"));
                    if cand.contains(UNKNOWN) {
                        v.why = stdin.why.clone().or(v.why);
                    }
                    v
                }
            };
            out = Some(out.map_or(o.clone(), |a| a.join(&o)));
        }
        // `tee FILE` keeps its input in FILE.
        if name == "tee" {
            for f in args.iter().filter(|a| !a.starts_with('-')) {
                for r in resolve(f, env) {
                    env.fs_mut().files.insert(r, stdin.clone());
                }
            }
        }
        Ok(out.unwrap_or_else(|| Val::known("")))
    }

    fn cd(&mut self, args: &[String], env: &mut Env) {
        let args: Vec<&String> = args
            .iter()
            .filter(|a| !matches!(a.as_str(), "-P" | "-L" | "-e" | "-@"))
            .collect();
        let old = env.cwd.clone();
        let new = match args.first().map(|s| s.as_str()) {
            None => env.get("HOME"),
            Some("-") => env.get("OLDPWD"),
            Some(d) if d.contains(UNKNOWN) => {
                let why = self
                    .why
                    .first()
                    .cloned()
                    .unwrap_or_else(|| Rc::from("where `cd` goes"));
                Val {
                    cands: vec![UNKNOWN_S.into()],
                    why: Some(why),
                }
            }
            Some(d) => {
                let mut cands = Vec::new();
                // `cd name` searches CDPATH first (not for `/…`, `./…`, `../…`).
                if !d.starts_with('/')
                    && !d.starts_with("./")
                    && !d.starts_with("../")
                    && d != "."
                    && d != ".."
                    && let Some(cdpath) = env.vars.get("CDPATH").cloned()
                {
                    for c in &cdpath.cands {
                        if c.contains(UNKNOWN) {
                            cands.push(UNKNOWN_S.to_string());
                            continue;
                        }
                        for dir in c.split(':').filter(|s| !s.is_empty()) {
                            cands.push(join_path(dir, d));
                        }
                    }
                }
                for base in &env.cwd.cands {
                    if base.contains(UNKNOWN) {
                        cands.push(UNKNOWN_S.to_string());
                    } else {
                        // `cd -P` through a link made earlier lands where the link points.
                        cands.extend(resolve(&join_path(base, d), env));
                    }
                }
                Val::from_cands(cands, Some(Rc::from("which directory `cd` leads to")))
            }
        };
        // A `cd` that fails (the folder is missing) leaves the shell where it was; only
        // `cd DIR && …` is sure to go on in DIR.
        let sure = new
            .cands
            .iter()
            .all(|c| !c.contains(UNKNOWN) && super::places::always_there(c));
        env.cwd = if self.cd_may_fail && !sure && args.first().is_some_and(|d| *d != "-") {
            old.join(&new)
        } else {
            new
        };
        env.set("OLDPWD", old);
    }

    fn read(&mut self, args: &[String], env: &mut Env, input: &Input) {
        let mut names = Vec::new();
        let mut i = 0;
        while let Some(a) = args.get(i) {
            if matches!(
                a.as_str(),
                "-p" | "-d" | "-n" | "-N" | "-t" | "-u" | "-a" | "-A"
            ) {
                i += 2;
                continue;
            }
            if !a.starts_with('-') {
                names.push(a.clone());
            }
            i += 1;
        }
        if names.is_empty() {
            names.push("REPLY".into());
        }
        // Only `-r` (and `-s`) are modelled: `-N6`, `-n`, `-d`, `-u`, `-t`, `-a` change what is
        // read, so the names then hold unknown text.
        let exact = args
            .iter()
            .filter(|a| a.starts_with('-') && a.len() > 1)
            .all(|a| a[1..].chars().all(|c| matches!(c, 'r' | 's')));
        let unread = None;
        let input = if exact { input } else { &unread };
        let ifs = env.get("IFS").single().unwrap_or(" \t\n").to_string();
        // Without `-r`, a backslash escapes the next character and joins lines.
        let raw = args
            .iter()
            .any(|a| a.starts_with('-') && a.len() > 1 && a[1..].contains('r'));
        let unescaped;
        let input = match input {
            Some(text) if !raw && !text.is_unknown() => {
                unescaped = Some(Val::from_cands(
                    text.cands.iter().map(|t| read_unescape(t, &ifs)).collect(),
                    text.why.clone(),
                ));
                &unescaped
            }
            _ => input,
        };
        for (n, name) in names.iter().enumerate() {
            let v = match input {
                Some(text) if !text.is_unknown() => {
                    let mut cands = Vec::new();
                    for t in &text.cands {
                        for line in t.lines().take(16) {
                            let fields: Vec<&str> = line
                                .split(|c| ifs.contains(c))
                                .filter(|f| !f.is_empty())
                                .collect();
                            let v = if n + 1 == names.len() {
                                fields.get(n..).map(|f| f.join(" ")).unwrap_or_default()
                            } else {
                                fields.get(n).map(|f| f.to_string()).unwrap_or_default()
                            };
                            cands.push(unescape_separators(&v));
                        }
                    }
                    Val::from_cands(cands, None)
                }
                _ => Val::unknown(format!("what `${name}` holds after `read`")),
            };
            // `read` may fail (a readonly name, the end of input) and leave the old value.
            // `read` into a readonly name fails, and the shell goes on with the old value.
            if self.readonly.contains(name) {
                continue;
            }
            // `read -u N` reads descriptor N; mksh's `read -p` the co-process (and fails
            // without one, keeping the old value; busybox's `-p` is a prompt).
            let v = if args.iter().any(|a| a.starts_with("-u")) {
                Val::unknown(format!("what `${name}` holds after `read -u`"))
            } else if args.iter().any(|a| a == "-p") {
                v.join(&env.get(name))
            } else {
                v
            };
            env.set(name, v);
        }
    }

    pub(super) fn xargs(&mut self, args: &[String], env: &mut Env, input: &Input) -> R<Val> {
        let mut i = 0;
        let mut replace: Option<String> = None;
        let mut data = input.clone().unwrap_or_else(|| Val::known(""));
        let mut null = false;
        let mut per: Option<usize> = None;
        while let Some(a) = args.get(i) {
            match a.as_str() {
                "-0" | "--null" => {
                    null = true;
                    i += 1;
                }
                "-I" | "-i" => {
                    replace = Some(args.get(i + 1).cloned().unwrap_or_else(|| "{}".into()));
                    i += 2;
                }
                "-a" | "--arg-file" => {
                    data = file_contents(
                        &Val::known(args.get(i + 1).cloned().unwrap_or_default()),
                        env,
                    );
                    i += 2;
                }
                "-n" | "-L" => {
                    per = args.get(i + 1).and_then(|n| n.parse().ok());
                    i += 2;
                }
                "-P" | "-s" | "-d" | "-E" | "-l" => i += 2,
                s if (s.starts_with("-n") || s.starts_with("-L")) && s.len() > 2 => {
                    per = s[2..].parse().ok();
                    i += 1;
                }
                s if s.starts_with("-I") && s.len() > 2 => {
                    replace = Some(s[2..].to_string());
                    i += 1;
                }
                s if s.starts_with('-') => i += 1,
                _ => break,
            }
        }
        let mut cmd: Vec<String> = args[i.min(args.len())..].to_vec();
        if cmd.is_empty() {
            cmd.push("echo".into());
        }
        if data.is_unknown() {
            self.why.insert(
                0,
                data.why
                    .clone()
                    .unwrap_or_else(|| Rc::from("what `xargs` reads")),
            );
        }
        let mut items: Vec<String> = Vec::new();
        for c in &data.cands {
            if c.contains(UNKNOWN) {
                items.push(UNKNOWN_S.into());
            } else if null {
                items.extend(
                    c.split('\u{0}')
                        .filter(|i| !i.is_empty())
                        .map(str::to_string),
                );
            } else {
                items.extend(xargs_items(c));
            }
        }
        items.truncate(64);
        let mut out = Val::known("");
        match replace {
            // The program itself comes from the input.
            Some(r) if cmd[0].contains(&r) => {
                return Err(cannot_read(
                    "`xargs -I` with the program taken from its input",
                ));
            }
            Some(r) => {
                for item in &items {
                    let argv = cmd.iter().map(|a| a.replace(&r, item)).collect();
                    out = out.join(&self.run(argv, &mut env.clone(), &None)?);
                }
            }
            // `-n N`: one run per N items, each its own command.
            None if per.is_some_and(|n| n > 0) && !items.is_empty() => {
                for chunk in items.chunks(per.unwrap_or(1)) {
                    let mut argv = cmd.clone();
                    argv.extend(chunk.iter().cloned());
                    out = out.join(&self.run(argv, &mut env.clone(), &None)?);
                }
            }
            None => {
                cmd.extend(items);
                out = self.run(cmd, &mut env.clone(), &None)?;
            }
        }
        Ok(out)
    }
}

/// Splits `xargs` input the way xargs does: blanks separate, quotes and backslashes group.
fn xargs_items(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut have = false;
    let mut it = s.chars();
    while let Some(c) = it.next() {
        match c {
            '\'' | '"' => {
                have = true;
                for d in it.by_ref() {
                    if d == c {
                        break;
                    }
                    cur.push(d);
                }
            }
            '\\' => {
                have = true;
                cur.extend(it.next());
            }
            c if c.is_whitespace() => {
                if have {
                    out.push(std::mem::take(&mut cur));
                    have = false;
                }
            }
            c => {
                have = true;
                cur.push(c);
            }
        }
    }
    if have {
        out.push(cur);
    }
    out
}

/// What `read` without `-r` makes of a line: `\\x` is `x`, a backslash-newline joins lines.
/// `read` without `-r`: a backslash escapes the next character (an escaped separator does
/// not split: it is kept as [`escaped`] until the fields are cut) and joins lines.
fn read_unescape(t: &str, ifs: &str) -> String {
    let mut out = String::new();
    let mut c = t.chars();
    while let Some(ch) = c.next() {
        if ch != '\\' {
            out.push(ch);
            continue;
        }
        match c.next() {
            Some('\n') | None => {}
            Some(n) if ifs.contains(n) => out.push(escaped(n)),
            Some(n) => out.push(n),
        }
    }
    out
}

/// An escaped separator, out of the way of field splitting (a private-use character).
fn escaped(c: char) -> char {
    char::from_u32(0xF0000 + c as u32).unwrap_or(c)
}

/// The separators [`escaped`] set aside, back as themselves.
fn unescape_separators(s: &str) -> String {
    s.chars()
        .map(|c| match c as u32 {
            v @ 0xF0000..=0xF00FF => char::from_u32(v - 0xF0000).unwrap_or(c),
            _ => c,
        })
        .collect()
}

/// Whether an alias's text is a whole command: quotes closed, no compound left open, no
/// operator waiting for more.
fn whole_command(body: &str) -> bool {
    // The text outside quotes, quoted parts kept as `x` (so words and brackets are counted
    // only where the shell reads them).
    let mut bare = String::new();
    let mut quote: Option<char> = None;
    let mut c = body.chars();
    while let Some(ch) = c.next() {
        match (quote, ch) {
            (Some(q), x) if q == x => quote = None,
            (Some('\''), _) => bare.push('x'),
            // A backslash escapes the next character; one at the end continues the line.
            (_, '\\') if c.next().is_none() => return false,
            (_, '\\') | (Some(_), _) => bare.push('x'),
            (None, '\'' | '"' | '`') => quote = Some(ch),
            _ => bare.push(ch),
        }
    }
    if quote.is_some() {
        return false;
    }
    // `$(`, `${`, `(` left open go on into the next line.
    if bare.matches(['(', '{']).count() != bare.matches([')', '}']).count() {
        return false;
    }
    let t = bare.trim_end();
    // `a &&`, `a ||`, `a |` wait for more; `a &` is whole.
    if t.ends_with("&&") || t.ends_with('|') {
        return false;
    }
    let words: Vec<&str> = bare
        .split(|c: char| c.is_whitespace() || c == ';')
        .filter(|w| !w.is_empty())
        .collect();
    let n = |set: &[&str]| words.iter().filter(|w| set.contains(w)).count();
    // Every compound the alias opens, it closes.
    n(&["for", "while", "until", "select"]) == n(&["done"])
        && n(&["if"]) == n(&["fi"])
        && n(&["case"]) == n(&["esac"])
        && n(&["{"]) == n(&["}"])
}
