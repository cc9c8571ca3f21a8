//! Command-line parsing as `/system/bin/sh` (mksh) does it for what tools send: shell words
//! with single/double quotes and backslashes (adb quotes every argument: `screencap '-p'`),
//! `;`, `&&`, `||`, `|`, a trailing `&`, and `>`, `>>`, `2>`, `2>&1` redirections.
//! No variables, globbing or subshells: tools that drive a device do not need them.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sep {
    /// First command, or after `;`.
    Seq,
    And,
    Or,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Simple {
    pub args: Vec<String>,
    /// `> file` (false) or `>> file` (true).
    pub stdout_to: Option<(String, bool)>,
    pub stderr_to: Option<String>,
    pub stderr_to_stdout: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Pipeline {
    pub cmds: Vec<Simple>,
    pub background: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Tok {
    Word(String),
    Op(&'static str),
}

fn lex(line: &str) -> Result<Vec<Tok>, String> {
    let mut toks = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut quoted = false;
    let mut it = line.chars().peekable();
    let flush = |toks: &mut Vec<Tok>, cur: &mut String, in_word: &mut bool| {
        if *in_word {
            toks.push(Tok::Word(std::mem::take(cur)));
            *in_word = false;
        }
    };
    while let Some(c) = it.next() {
        match c {
            ' ' | '\t' | '\n' => {
                flush(&mut toks, &mut cur, &mut in_word);
                quoted = false;
            }
            '#' if !in_word => break,
            '\'' => {
                in_word = true;
                quoted = true;
                loop {
                    match it.next() {
                        Some('\'') => break,
                        Some(ch) => cur.push(ch),
                        None => return Err("unterminated string".into()),
                    }
                }
            }
            '"' => {
                in_word = true;
                quoted = true;
                loop {
                    match it.next() {
                        Some('"') => break,
                        Some('\\') => match it.next() {
                            Some(ch @ ('"' | '\\' | '$' | '`')) => cur.push(ch),
                            Some('\n') => {}
                            Some(ch) => {
                                cur.push('\\');
                                cur.push(ch);
                            }
                            None => return Err("unterminated string".into()),
                        },
                        Some(ch) => cur.push(ch),
                        None => return Err("unterminated string".into()),
                    }
                }
            }
            '\\' => {
                in_word = true;
                match it.next() {
                    Some('\n') | None => {}
                    Some(ch) => cur.push(ch),
                }
            }
            ';' => {
                flush(&mut toks, &mut cur, &mut in_word);
                toks.push(Tok::Op(";"));
            }
            '&' => {
                flush(&mut toks, &mut cur, &mut in_word);
                if it.peek() == Some(&'&') {
                    it.next();
                    toks.push(Tok::Op("&&"));
                } else {
                    toks.push(Tok::Op("&"));
                }
            }
            '|' => {
                flush(&mut toks, &mut cur, &mut in_word);
                if it.peek() == Some(&'|') {
                    it.next();
                    toks.push(Tok::Op("||"));
                } else {
                    toks.push(Tok::Op("|"));
                }
            }
            '>' => {
                let fd2 = in_word && !quoted && cur == "2";
                if fd2 {
                    cur.clear();
                    in_word = false;
                } else {
                    flush(&mut toks, &mut cur, &mut in_word);
                }
                if fd2 && it.peek() == Some(&'&') {
                    it.next();
                    if it.next() != Some('1') {
                        return Err("bad redirection".into());
                    }
                    toks.push(Tok::Op("2>&1"));
                } else if fd2 {
                    toks.push(Tok::Op("2>"));
                } else if it.peek() == Some(&'>') {
                    it.next();
                    toks.push(Tok::Op(">>"));
                } else {
                    toks.push(Tok::Op(">"));
                }
            }
            c => {
                in_word = true;
                cur.push(c);
            }
        }
    }
    flush(&mut toks, &mut cur, &mut in_word);
    Ok(toks)
}

/// Parses a command line into `(separator, pipeline)` pairs. Errors are sh's message text.
pub fn parse(line: &str) -> Result<Vec<(Sep, Pipeline)>, String> {
    let toks = lex(line)?;
    let mut out: Vec<(Sep, Pipeline)> = Vec::new();
    let mut sep = Sep::Seq;
    let mut pipe = Pipeline::default();
    let mut cmd = Simple::default();
    let mut it = toks.into_iter().peekable();
    let unexpected = |t: &str| format!("syntax error: unexpected '{t}'");
    while let Some(t) = it.next() {
        match t {
            Tok::Word(w) => cmd.args.push(w),
            Tok::Op(op @ (">" | ">>" | "2>")) => match it.next() {
                Some(Tok::Word(f)) => match op {
                    "2>" => cmd.stderr_to = Some(f),
                    _ => cmd.stdout_to = Some((f, op == ">>")),
                },
                _ => return Err(unexpected("newline")),
            },
            Tok::Op("2>&1") => cmd.stderr_to_stdout = true,
            Tok::Op("|") => {
                if cmd.args.is_empty() {
                    return Err(unexpected("|"));
                }
                pipe.cmds.push(std::mem::take(&mut cmd));
            }
            Tok::Op(op) => {
                if cmd.args.is_empty() {
                    return Err(unexpected(op));
                }
                pipe.cmds.push(std::mem::take(&mut cmd));
                pipe.background = op == "&";
                out.push((sep, std::mem::take(&mut pipe)));
                sep = match op {
                    "&&" => Sep::And,
                    "||" => Sep::Or,
                    _ => Sep::Seq,
                };
            }
        }
    }
    if !cmd.args.is_empty() {
        pipe.cmds.push(cmd);
    } else if !pipe.cmds.is_empty() || sep != Sep::Seq {
        return Err(unexpected("newline"));
    }
    if !pipe.cmds.is_empty() {
        out.push((sep, pipe));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<Vec<String>> {
        parse(line)
            .unwrap()
            .into_iter()
            .flat_map(|(_, p)| p.cmds.into_iter().map(|c| c.args))
            .collect()
    }

    #[test]
    fn adb_quoting_and_operators() {
        assert_eq!(words("screencap '-p'"), vec![vec!["screencap", "-p"]]);
        assert_eq!(
            words(r#"input text "a b\"c" ; echo it\'s"#),
            vec![vec!["input", "text", "a b\"c"], vec!["echo", "it's"]]
        );
        let p = parse("ps -A | grep shop && echo ok || echo no").unwrap();
        assert_eq!(p.len(), 3);
        assert_eq!(p[0].1.cmds.len(), 2);
        assert_eq!((p[1].0, p[2].0), (Sep::And, Sep::Or));
    }

    #[test]
    fn redirections_and_background() {
        let p = parse("screencap -p > /sdcard/a.png 2>/dev/null").unwrap();
        let c = &p[0].1.cmds[0];
        assert_eq!(c.stdout_to, Some(("/sdcard/a.png".into(), false)));
        assert_eq!(c.stderr_to.as_deref(), Some("/dev/null"));
        let p = parse("screenrecord /sdcard/v.mp4 &").unwrap();
        assert!(p[0].1.background);
        assert!(parse("echo 'open").is_err());
        assert!(parse("| x").is_err());
        assert_eq!(parse("").unwrap(), vec![]);
    }
}
