//! Command-line parsing as `/system/bin/sh` (mksh) does it for what tools send: shell words
//! with single/double quotes and backslashes (adb quotes every argument: `screencap '-p'`),
//! `;`, `&&`, `||`, `|`, a trailing `&`, and output redirections: `[n]>file`, `[n]>>file`,
//! `[n]>&m` for n, m in 1 and 2 (`>&2`, `2>&1`, `2>/dev/null`), applied left to right as mksh
//! does (`> f 2>&1` sends both to f; `2>&1 > f` only stdout).
//! No variables, globbing or subshells: tools that drive a device do not need them.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sep {
    /// First command, or after `;`.
    Seq,
    And,
    Or,
}

/// Where a redirection points file descriptor `fd` (1 or 2).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Redir {
    /// `n> file` (false) or `n>> file` (true).
    File { fd: u8, path: String, append: bool },
    /// `n>&m`: `n` goes wherever `m` goes now.
    Dup { fd: u8, to: u8 },
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Simple {
    pub args: Vec<String>,
    /// In the order written.
    pub redirs: Vec<Redir>,
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
    /// `[n]>`, `[n]>>` (a file follows) or `[n]>&m`.
    Redir {
        fd: u8,
        append: bool,
        dup: Option<u8>,
    },
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
                // A lone unquoted digit just before `>` is the descriptor (`2>`), as in sh.
                let fd = match (in_word && !quoted, cur.as_str()) {
                    (true, "1") => Some(1),
                    (true, "2") => Some(2),
                    _ => None,
                };
                if fd.is_some() {
                    cur.clear();
                    in_word = false;
                } else {
                    flush(&mut toks, &mut cur, &mut in_word);
                }
                let fd = fd.unwrap_or(1);
                if it.peek() == Some(&'&') {
                    it.next();
                    let to = match it.next() {
                        Some('1') => 1,
                        Some('2') => 2,
                        _ => return Err("bad redirection".into()),
                    };
                    toks.push(Tok::Redir {
                        fd,
                        append: false,
                        dup: Some(to),
                    });
                } else {
                    let append = it.peek() == Some(&'>');
                    if append {
                        it.next();
                    }
                    toks.push(Tok::Redir {
                        fd,
                        append,
                        dup: None,
                    });
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
            Tok::Redir {
                fd, dup: Some(to), ..
            } => cmd.redirs.push(Redir::Dup { fd, to }),
            Tok::Redir { fd, append, .. } => match it.next() {
                Some(Tok::Word(path)) => cmd.redirs.push(Redir::File { fd, path, append }),
                _ => return Err(unexpected("newline")),
            },
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
        let file = |fd, path: &str, append| Redir::File {
            fd,
            path: path.into(),
            append,
        };
        assert_eq!(
            c.redirs,
            vec![file(1, "/sdcard/a.png", false), file(2, "/dev/null", false)]
        );
        let c = &parse("echo x >&2").unwrap()[0].1.cmds[0];
        assert_eq!(c.args, vec!["echo", "x"]);
        assert_eq!(c.redirs, vec![Redir::Dup { fd: 1, to: 2 }]);
        let c = &parse("ls /x 2>&1 >>/sdcard/l").unwrap()[0].1.cmds[0];
        assert_eq!(
            c.redirs,
            vec![Redir::Dup { fd: 2, to: 1 }, file(1, "/sdcard/l", true)]
        );
        // A quoted or longer word before `>` is an argument, not a descriptor.
        let c = &parse("echo '2'>f 12>g").unwrap()[0].1.cmds[0];
        assert_eq!(c.args, vec!["echo", "2", "12"]);
        assert!(parse("echo >&3").is_err());
        let p = parse("screenrecord /sdcard/v.mp4 &").unwrap();
        assert!(p[0].1.background);
        assert!(parse("echo 'open").is_err());
        assert!(parse("| x").is_err());
        assert_eq!(parse("").unwrap(), vec![]);
    }
}
