//! An own tool's command template: literal shell text and `{param}` placeholders (`{{` and
//! `}}` for literal braces). A placeholder must stand where the shell reads an unquoted word
//! (glued to other text is fine: `--mode={mode}`), never inside the template's own quotes,
//! after a backslash, or inside `$(…)`, `$((…))`, `${…}` or backquotes, where the
//! single-quoted value would not be one inert word. `${NAME}` is the shell's own expansion.
use std::collections::BTreeMap;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    Text(String),
    Param(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template {
    pub pieces: Vec<Piece>,
}

/// The longest template.
const MAX_TEMPLATE: usize = 8192;

impl Template {
    pub fn parse(text: &str) -> Result<Template, String> {
        if text.trim().is_empty() {
            return Err("the command is empty".into());
        }
        if text.len() > MAX_TEMPLATE {
            return Err(format!("longer than {MAX_TEMPLATE} bytes"));
        }
        if text.contains('\0') {
            return Err("contains a NUL character".into());
        }
        let mut pieces = Vec::new();
        let mut cur = String::new();
        // The shell's quoting state over the literal text: a placeholder counts only outside.
        let (mut single, mut double, mut escaped) = (false, false, false);
        // Open command substitutions (`$(`, `$((`) and backquotes: a value inside one is read
        // again by the shell (its output split into words, arithmetic evaluated).
        let (mut subst, mut backq) = (0usize, false);
        // Open parameter expansions (`${VAR:-…}`): their result is split into words again.
        let mut braces = 0usize;
        let mut chars = text.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '{' if chars.peek() == Some(&'{') => {
                    chars.next();
                    cur.push('{');
                    escaped = false;
                }
                '}' if chars.peek() == Some(&'}') => {
                    chars.next();
                    cur.push('}');
                    escaped = false;
                }
                '{' if cur.ends_with('$') && !single => {
                    braces += 1;
                    cur.push('{');
                    escaped = false;
                }
                '}' if braces > 0 && !single => {
                    braces -= 1;
                    cur.push('}');
                    escaped = false;
                }
                '{' => {
                    let mut name = String::new();
                    loop {
                        match chars.next() {
                            Some('}') => break,
                            Some(c) if c.is_ascii_alphanumeric() || c == '_' => name.push(c),
                            _ => {
                                return Err(format!(
                                    "`{{{name}` is not a placeholder (`{{name}}`; `{{{{` for a brace)"
                                ));
                            }
                        }
                    }
                    if name.is_empty() {
                        return Err("`{}` names no parameter".into());
                    }
                    if single || double {
                        return Err(format!(
                            "`{{{name}}}` is inside quotes: a value there would not be one word \
                             (placeholders are quoted for you; write it bare)"
                        ));
                    }
                    if escaped {
                        return Err(format!("`{{{name}}}` follows a backslash"));
                    }
                    if subst > 0 || backq || braces > 0 {
                        return Err(format!(
                            "`{{{name}}}` is inside `$(…)`, `$((…))`, `${{…}}` or backquotes: the \
                             shell reads a value there again (splits it into words, evaluates it)"
                        ));
                    }
                    if !cur.is_empty() {
                        pieces.push(Piece::Text(std::mem::take(&mut cur)));
                    }
                    pieces.push(Piece::Param(name));
                }
                '}' => return Err("a lone `}` (write `}}` for a brace)".into()),
                _ => {
                    if escaped {
                        escaped = false;
                    } else if single {
                        single = c != '\'';
                    } else if c == '\\' {
                        escaped = true;
                    } else if c == '\'' && !double {
                        single = true;
                    } else if c == '"' {
                        double = !double;
                    } else if c == '(' && cur.ends_with('$') {
                        subst += 1;
                    } else if c == ')' && subst > 0 {
                        subst -= 1;
                    } else if c == '`' {
                        backq = !backq;
                    }
                    cur.push(c);
                }
            }
        }
        if single || double {
            return Err("a quote is not closed".into());
        }
        if !cur.is_empty() {
            pieces.push(Piece::Text(cur));
        }
        Ok(Template { pieces })
    }

    pub fn placeholders(&self) -> impl Iterator<Item = &str> {
        self.pieces.iter().filter_map(|p| match p {
            Piece::Param(n) => Some(n.as_str()),
            Piece::Text(_) => None,
        })
    }

    /// The command with every placeholder a plain word: what the guard reads at load.
    pub fn sample(&self) -> String {
        self.pieces
            .iter()
            .map(|p| match p {
                Piece::Text(t) => t.clone(),
                Piece::Param(_) => "x".to_string(),
            })
            .collect()
    }

    /// The command with `name` as `value` (quoted, as a call's would be) and every other
    /// placeholder a plain word.
    pub fn probe(&self, name: &str, value: &str) -> String {
        self.pieces
            .iter()
            .map(|p| match p {
                Piece::Text(t) => t.clone(),
                Piece::Param(n) if n == name => crate::guard::shell_quote(value),
                Piece::Param(_) => "x".to_string(),
            })
            .collect()
    }

    /// The command with each placeholder replaced by its word, single-quoted.
    pub fn expand(&self, words: &BTreeMap<&str, String>) -> String {
        self.pieces
            .iter()
            .map(|p| match p {
                Piece::Text(t) => t.clone(),
                Piece::Param(n) => {
                    crate::guard::shell_quote(words.get(n.as_str()).map_or("", |w| w))
                }
            })
            .collect()
    }

    /// The template as written (placeholders in braces).
    pub fn text(&self) -> String {
        self.pieces
            .iter()
            .map(|p| match p {
                Piece::Text(t) => t.replace('{', "{{").replace('}', "}}"),
                Piece::Param(n) => format!("{{{n}}}"),
            })
            .collect()
    }
}
