//! `find` and `awk`, the two everyday programs with a language of their own that can delete
//! or run commands: `find -delete`, `-exec`/`-execdir`/`-ok`/`-okdir`, and awk's `system()`
//! and `print | "sh"`.
//!
//! `find`'s matches are modelled as patterns below each starting point: with no name filter
//! it reaches the starting point and everything under it; with `-name P` it reaches `P` one
//! or two levels down (matched against the known Android tree by [`super::places`]). A
//! negated or or-ed filter counts as no filter.
use super::eval::{Eval, Input, R};
use super::rules::{cannot_tell, delete};
use super::state::{Env, UNKNOWN, Val};

impl Eval {
    pub(super) fn find(&mut self, args: &[String], env: &mut Env, input: &Input) -> R<Val> {
        let mut i = 0;
        while args
            .get(i)
            .is_some_and(|a| matches!(a.as_str(), "-H" | "-L" | "-P"))
        {
            i += 1;
        }
        let mut starts: Vec<String> = Vec::new();
        while let Some(a) = args.get(i) {
            if a.starts_with('-') || a == "(" || a == "!" {
                break;
            }
            starts.push(a.clone());
            i += 1;
        }
        if starts.is_empty() {
            starts.push(".".into());
        }
        // `find DIR *`: a pattern in the current folder can expand to a file named
        // `-delete` or `-exec`, which find reads as its expression.
        const PRIMARIES: &[&str] = &[
            "-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprint0", "-fprintf",
            "-fls",
        ];
        // (The value of a primary, `-name '*'`, is one word.)
        let after_primary = |k: usize| k > 0 && args[k - 1].starts_with('-');
        if let Some(a) = args.iter().enumerate().skip(1).find_map(|(k, a)| {
            (!after_primary(k)
                && !a.contains('/')
                && a.contains(['*', '?', '['])
                && PRIMARIES.iter().any(|p| super::places::glob_match(a, p)))
            .then_some(a)
        }) {
            return Err(super::eval::cannot_read(&format!(
                "`find` given the pattern `{a}`, which can expand to a file named `-delete` or `-exec`,"
            )));
        }
        let expr = &args[i..];
        let negated = expr
            .iter()
            .any(|a| matches!(a.as_str(), "!" | "-not" | "-o" | "-or"));
        let mut names: Vec<String> = Vec::new();
        let mut paths: Vec<String> = Vec::new();
        let mut j = 0;
        while j < expr.len() {
            match expr[j].as_str() {
                "-name" | "-iname" => names.extend(expr.get(j + 1).cloned()),
                "-path" | "-ipath" | "-wholename" | "-iwholename" => {
                    paths.extend(expr.get(j + 1).cloned())
                }
                _ => {}
            }
            j += 1;
        }
        let filtered = !negated && (!names.is_empty() || !paths.is_empty());
        // What a match can be: patterns the delete rules understand.
        let mut items: Vec<String> = Vec::new();
        for s in &starts {
            let s = s.trim_end_matches('/');
            let s = if s.is_empty() { "/" } else { s };
            if !filtered {
                items.push(s.to_string());
                continue;
            }
            for n in &names {
                let base = s.rsplit('/').next().unwrap_or(s);
                if super::places::glob_match(n, base) {
                    items.push(s.to_string());
                }
                items.push(format!("{s}/{n}"));
                items.push(format!("{s}/*/{n}"));
            }
            items.extend(paths.iter().cloned());
        }
        let mut j = 0;
        // What it lists: the patterns above; with no filter, anything below a start.
        let listed: Vec<String> = if filtered {
            items.clone()
        } else {
            items.iter().map(|s| format!("{s}/{UNKNOWN}")).collect()
        };
        // Names made earlier with blanks or newlines in them are printed whole, and split
        // by whatever reads the listing.
        let odd: Vec<String> = env
            .fs
            .odd_names
            .iter()
            .filter(|o| {
                starts.iter().any(|s| {
                    super::places::resolve(s, env)
                        .iter()
                        .any(|r| o.starts_with(&format!("{}/", r.trim_end_matches('/'))))
                })
            })
            .map(|o| format!("{o}\n"))
            .collect();
        let mut out = Val::from_cands(
            listed.iter().map(|l| format!("{l}\n")).chain(odd).collect(),
            Some(std::rc::Rc::from("which files `find` lists")),
        );
        while j < expr.len() {
            match expr[j].as_str() {
                "-delete" => {
                    for it in &items {
                        delete(it, env, self, "find -delete", "find-delete")?;
                    }
                }
                "-exec" | "-execdir" | "-ok" | "-okdir" => {
                    let end = expr[j + 1..]
                        .iter()
                        .position(|a| a == ";" || a == "+")
                        .map_or(expr.len(), |p| j + 1 + p);
                    let cmd = &expr[j + 1..end];
                    if cmd.first().is_some_and(|c| c.contains("{}")) {
                        return Err(super::eval::cannot_read(
                            "`find -exec {}`, which runs the files it finds as programs,",
                        ));
                    }
                    // `-exec rm {}` over every match deletes as much as `rm -r` would.
                    let deleting = cmd.first().is_some_and(|c| {
                        matches!(
                            super::runners::basename(c),
                            "rm" | "unlink" | "shred" | "rmdir"
                        )
                    });
                    for it in &items {
                        // What it finds in a folder filled with unseen entries may be links.
                        for r in super::places::resolve(it, env) {
                            super::known::through_filled(it, &r, env, 0)?;
                        }
                        if deleting && cmd.iter().any(|a| a.contains("{}")) {
                            delete(it, env, self, "find -exec rm", "find-delete")?;
                        }
                        let argv: Vec<String> = cmd.iter().map(|a| a.replace("{}", it)).collect();
                        let mut e = env.clone();
                        self.deeper(|ev| ev.run(argv, &mut e, input))?;
                        env.fs = e.fs;
                    }
                    j = end;
                }
                _ => {}
            }
            j += 1;
        }
        if starts.iter().any(|s| s.contains(UNKNOWN)) {
            out = Val::unknown("what `find` prints");
        }
        Ok(out)
    }

    pub(super) fn awk(&mut self, args: &[String], env: &mut Env, input: &Input) -> R<Val> {
        let mut i = 0;
        let mut program: Option<String> = None;
        while let Some(a) = args.get(i) {
            match a.as_str() {
                "-F" | "-v" => i += 2,
                "-f" => {
                    program = Some(UNKNOWN.to_string());
                    i += 2;
                }
                s if s.starts_with('-') && s.len() > 1 => i += 1,
                s => {
                    program.get_or_insert_with(|| s.to_string());
                    break;
                }
            }
        }
        let Some(program) = program else {
            return Ok(Val::unknown("what `awk` prints"));
        };
        // Output redirection (`print > "FILE"`): a file on the list named in the program.
        if program.contains('>') {
            // The files it can name: its string literals.
            let literals: Vec<String> = program
                .split('"')
                .skip(1)
                .step_by(2)
                .map(str::to_string)
                .collect();
            self.operands_guarded(&literals, env, "awk's `>` writes a file")?;
            // `print > f` with `f` a variable: set by `f=/path` operands, `-v`, or the input.
            if awk_output_not_literal(&program) {
                self.operands_guarded(args, env, "awk's `>` writes a file its variables name")?;
                if !args.iter().any(|a| {
                    a.split_once('=').is_some_and(|(k, _)| {
                        !k.is_empty() && k.chars().all(|c| c == '_' || c.is_ascii_alphanumeric())
                    })
                }) {
                    return Err(super::eval::cannot_read(
                        "awk's `print > NAME` writing to a file named by a value it reads,",
                    ));
                }
            }
        }
        let runs_commands = program.contains("system")
            || program.contains("| \"")
            || program.contains("|\"")
            || program.contains("getline")
            || program.contains(UNKNOWN);
        if !runs_commands {
            return Ok(
                awk_print(&program).map_or_else(|| Val::unknown("what `awk` prints"), Val::known)
            );
        }
        // `system("literal")`: read the literal; anything computed cannot be read.
        let mut rest = program.as_str();
        let mut any = false;
        while let Some(p) = rest.find("system(") {
            rest = &rest[p + 7..];
            let arg = rest.trim_start();
            let literal = arg.strip_prefix('"').and_then(|a| {
                let end = a.find('"')?;
                a[end + 1..]
                    .trim_start()
                    .starts_with(')')
                    .then(|| a[..end].to_string())
            });
            match literal {
                Some(cmd) => {
                    let mut e = env.child();
                    self.script(&cmd.replace("\\\"", "\""), &mut e, None)?;
                    env.fs = e.fs;
                    any = true;
                }
                None => {
                    return Err(cannot_tell(
                        self,
                        "the command awk's `system()` builds deletes something",
                    ));
                }
            }
        }
        if !any
            || program.contains("getline")
            || program.contains("| \"")
            || program.contains("|\"")
        {
            let _ = input;
            return Err(cannot_tell(
                self,
                "the commands awk runs delete, format or overwrite something",
            ));
        }
        Ok(Val::unknown("what `awk` prints"))
    }
}

/// The output of `awk 'BEGIN { print "…" }'` (string literals only).
fn awk_print(program: &str) -> Option<String> {
    let body = program
        .trim()
        .strip_prefix("BEGIN")?
        .trim()
        .strip_prefix('{')?
        .strip_suffix('}')?;
    let mut out = String::new();
    for stmt in body.split(';').map(str::trim).filter(|s| !s.is_empty()) {
        let lit = stmt
            .strip_prefix("print")?
            .trim()
            .strip_prefix('"')?
            .strip_suffix('"')?;
        out.push_str(&super::escape::ansi_c(lit));
        out.push('\n');
    }
    Some(out)
}

/// Whether an awk program redirects `print`/`printf` output to a target that is not a string
/// literal (`print > f`, `print >> $1`).
fn awk_output_not_literal(program: &str) -> bool {
    let c: Vec<char> = program.chars().collect();
    let mut i = 0;
    while i < c.len() {
        if c[i] == '"' {
            i += 1;
            while i < c.len() && c[i] != '"' {
                i += if c[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
            continue;
        }
        let word_start = i == 0 || !(c[i - 1].is_ascii_alphanumeric() || c[i - 1] == '_');
        if word_start
            && program[program.char_indices().nth(i).map_or(0, |(b, _)| b)..].starts_with("print")
        {
            // The statement runs to `;`, `}` or a newline at parenthesis depth 0.
            let mut j = i + 5;
            let mut depth = 0i32;
            while j < c.len() && !(depth == 0 && matches!(c[j], ';' | '}' | '\n')) {
                match c[j] {
                    '"' => {
                        j += 1;
                        while j < c.len() && c[j] != '"' {
                            j += if c[j] == '\\' { 2 } else { 1 };
                        }
                    }
                    '(' => depth += 1,
                    ')' => depth -= 1,
                    '>' if depth == 0 => {
                        let rest: String = c[j + 1..].iter().collect();
                        let t = rest.trim_start_matches('>').trim_start();
                        return !t.starts_with('"');
                    }
                    _ => {}
                }
                j += 1;
            }
            i = j;
            continue;
        }
        i += 1;
    }
    false
}
