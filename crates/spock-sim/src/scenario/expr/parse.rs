//! Parsing the expression language (`sum(products, item.qty) == 0`), `set` statements
//! (`products[product].qty += 1`) and texts with `{expr}` holes.
use super::{Assign, BinOp, Ctx, Expr, RowRef, RowTarget, Scope, Stmt, Target, Value};

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Int(i64),
    Str(String),
    Ident(String),
    Punct(&'static str),
}

const PUNCT: &[&str] = &[
    "==", "!=", "<=", ">=", "&&", "||", "+=", "-=", "(", ")", "[", "]", ".", ",", "*", "+", "-",
    "!", "<", ">", "=",
];

fn lex(s: &str) -> Result<Vec<Tok>, String> {
    let mut out = Vec::new();
    let mut it = s.char_indices().peekable();
    while let Some(&(i, c)) = it.peek() {
        if c.is_whitespace() {
            it.next();
        } else if c.is_ascii_digit() {
            let mut n = String::new();
            while let Some(&(_, d)) = it.peek().filter(|(_, d)| d.is_ascii_digit()) {
                n.push(d);
                it.next();
            }
            out.push(Tok::Int(
                n.parse().map_err(|_| format!("number {n} is too large"))?,
            ));
        } else if c == '"' || c == '\'' {
            it.next();
            let mut v = String::new();
            loop {
                match it.next() {
                    Some((_, q)) if q == c => break,
                    Some((_, '\\')) => match it.next() {
                        Some((_, e)) => v.push(e),
                        None => return Err("unterminated string".into()),
                    },
                    Some((_, ch)) => v.push(ch),
                    None => return Err("unterminated string".into()),
                }
            }
            out.push(Tok::Str(v));
        } else if c.is_alphabetic() || c == '_' {
            let mut n = String::new();
            while let Some(&(_, d)) = it.peek().filter(|(_, d)| d.is_alphanumeric() || *d == '_') {
                n.push(d);
                it.next();
            }
            out.push(Tok::Ident(n));
        } else {
            let rest = &s[i..];
            let p = PUNCT
                .iter()
                .find(|p| rest.starts_with(**p))
                .ok_or_else(|| format!("unexpected `{c}`"))?;
            for _ in 0..p.len() {
                it.next();
            }
            out.push(Tok::Punct(p));
        }
    }
    Ok(out)
}

struct Parser {
    toks: Vec<Tok>,
    at: usize,
}

impl Parser {
    fn new(s: &str) -> Result<Parser, String> {
        Ok(Parser {
            toks: lex(s)?,
            at: 0,
        })
    }

    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.at)
    }

    fn eat(&mut self, p: &str) -> bool {
        if matches!(self.peek(), Some(Tok::Punct(q)) if *q == p) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, p: &str) -> Result<(), String> {
        if self.eat(p) {
            Ok(())
        } else {
            Err(format!("expected `{p}`{}", self.found()))
        }
    }

    fn found(&self) -> String {
        match self.peek() {
            None => " at the end".into(),
            Some(Tok::Int(i)) => format!(", found {i}"),
            Some(Tok::Str(s)) => format!(", found \"{s}\""),
            Some(Tok::Ident(s)) => format!(", found `{s}`"),
            Some(Tok::Punct(p)) => format!(", found `{p}`"),
        }
    }

    fn ident(&mut self) -> Result<String, String> {
        match self.peek().cloned() {
            Some(Tok::Ident(n)) => {
                self.at += 1;
                Ok(n)
            }
            _ => Err(format!("expected a name{}", self.found())),
        }
    }

    fn done(&self) -> Result<(), String> {
        match self.peek() {
            None => Ok(()),
            Some(_) => Err(format!("unexpected text{}", self.found())),
        }
    }

    fn expr(&mut self) -> Result<Expr, String> {
        self.binary(0)
    }

    fn binary(&mut self, level: usize) -> Result<Expr, String> {
        const LEVELS: &[&[(&str, BinOp)]] = &[
            &[("||", BinOp::Or)],
            &[("&&", BinOp::And)],
            &[
                ("==", BinOp::Eq),
                ("!=", BinOp::Ne),
                ("<=", BinOp::Le),
                (">=", BinOp::Ge),
                ("<", BinOp::Lt),
                (">", BinOp::Gt),
            ],
            &[("+", BinOp::Add), ("-", BinOp::Sub)],
            &[("*", BinOp::Mul)],
        ];
        let Some(ops) = LEVELS.get(level) else {
            return self.unary();
        };
        let mut lhs = self.binary(level + 1)?;
        'more: loop {
            for (p, op) in *ops {
                if self.eat(p) {
                    let rhs = self.binary(level + 1)?;
                    lhs = Expr::Bin(*op, Box::new(lhs), Box::new(rhs));
                    continue 'more;
                }
            }
            return Ok(lhs);
        }
    }

    fn unary(&mut self) -> Result<Expr, String> {
        if self.eat("!") {
            return Ok(Expr::Not(Box::new(self.unary()?)));
        }
        if self.eat("-") {
            return Ok(Expr::Neg(Box::new(self.unary()?)));
        }
        self.atom()
    }

    fn atom(&mut self) -> Result<Expr, String> {
        match self.peek().cloned() {
            Some(Tok::Int(i)) => {
                self.at += 1;
                Ok(Expr::Lit(Value::Int(i)))
            }
            Some(Tok::Str(s)) => {
                self.at += 1;
                Ok(Expr::Lit(Value::Str(s)))
            }
            Some(Tok::Punct("(")) => {
                self.at += 1;
                let e = self.expr()?;
                self.expect(")")?;
                Ok(e)
            }
            Some(Tok::Ident(name)) => {
                self.at += 1;
                if self.eat("(") {
                    return self.call(&name);
                }
                if name == "item" {
                    self.expect(".")?;
                    let field = self.ident()?;
                    return Ok(Expr::Col {
                        row: RowRef::Item,
                        field,
                    });
                }
                if self.eat("[") {
                    let key = self.expr()?;
                    self.expect("]")?;
                    self.expect(".")?;
                    let field = self.ident()?;
                    return Ok(Expr::Col {
                        row: RowRef::Key {
                            table: name,
                            key: Box::new(key),
                        },
                        field,
                    });
                }
                Ok(Expr::Var(name))
            }
            _ => Err(format!("expected a value{}", self.found())),
        }
    }

    fn call(&mut self, name: &str) -> Result<Expr, String> {
        let e = match name {
            "money" => Expr::Money(Box::new(self.expr()?)),
            "field" => Expr::Field(Box::new(self.expr()?)),
            "sum" => {
                let table = self.ident()?;
                self.expect(",")?;
                Expr::Sum {
                    table,
                    each: Box::new(self.expr()?),
                }
            }
            _ => return Err(format!("unknown function `{name}` (money, field, sum)")),
        };
        self.expect(")")?;
        Ok(e)
    }

    fn stmt(&mut self) -> Result<Stmt, String> {
        let name = self.ident()?;
        let target = if name == "item" {
            self.expect(".")?;
            Target::Col {
                row: RowTarget::Item,
                field: self.ident()?,
            }
        } else if self.eat("[") {
            let row = if self.eat("*") {
                RowTarget::All(name)
            } else {
                RowTarget::Key {
                    table: name,
                    key: self.expr()?,
                }
            };
            self.expect("]")?;
            self.expect(".")?;
            Target::Col {
                row,
                field: self.ident()?,
            }
        } else {
            Target::Var(name)
        };
        let op = if self.eat("=") {
            Assign::Set
        } else if self.eat("+=") {
            Assign::Add
        } else if self.eat("-=") {
            Assign::Sub
        } else {
            return Err(format!("expected `=`, `+=` or `-=`{}", self.found()));
        };
        let value = self.expr()?;
        self.done()?;
        Ok(Stmt { target, op, value })
    }
}

/// Parses an expression (`sum(products, item.qty) == 0`).
pub fn parse_expr(s: &str) -> Result<Expr, String> {
    let mut p = Parser::new(s)?;
    let e = p.expr()?;
    p.done()?;
    Ok(e)
}

/// Parses a statement (`products[product].qty += 1`).
pub fn parse_stmt(s: &str) -> Result<Stmt, String> {
    Parser::new(s)?.stmt()
}

/// A string with `{expr}` holes (`{{` and `}}` are literal braces).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Text(Vec<Seg>);

#[derive(Debug, Clone, PartialEq, Eq)]
enum Seg {
    Lit(String),
    Hole(Expr),
}

impl Text {
    pub fn literal(s: &str) -> Text {
        Text(vec![Seg::Lit(s.to_string())])
    }

    pub fn parse(s: &str) -> Result<Text, String> {
        let mut segs = Vec::new();
        let mut lit = String::new();
        let mut chars = s.char_indices().peekable();
        while let Some((i, c)) = chars.next() {
            match c {
                '{' if chars.peek().is_some_and(|(_, n)| *n == '{') => {
                    chars.next();
                    lit.push('{');
                }
                '}' if chars.peek().is_some_and(|(_, n)| *n == '}') => {
                    chars.next();
                    lit.push('}');
                }
                '}' => return Err("a `}` with no `{` (write `}}` for a brace)".into()),
                '{' => {
                    // The hole ends at the first `}` outside a string literal.
                    let mut quote = None;
                    let mut end = None;
                    for (j, d) in chars.by_ref() {
                        match (quote, d) {
                            (Some(q), d) if d == q => quote = None,
                            (Some(_), _) => {}
                            (None, '"' | '\'') => quote = Some(d),
                            (None, '}') => {
                                end = Some(j);
                                break;
                            }
                            _ => {}
                        }
                    }
                    let end = end.ok_or("a `{` with no `}` (write `{{` for a brace)")?;
                    let src = &s[i + 1..end];
                    let e = parse_expr(src).map_err(|m| format!("in {{{src}}}: {m}"))?;
                    if !lit.is_empty() {
                        segs.push(Seg::Lit(std::mem::take(&mut lit)));
                    }
                    segs.push(Seg::Hole(e));
                }
                c => lit.push(c),
            }
        }
        if !lit.is_empty() || segs.is_empty() {
            segs.push(Seg::Lit(lit));
        }
        Ok(Text(segs))
    }

    pub fn eval(&self, cx: &Ctx) -> Result<String, String> {
        let mut out = String::new();
        for s in &self.0 {
            match s {
                Seg::Lit(l) => out.push_str(l),
                Seg::Hole(e) => out.push_str(&e.eval(cx)?.to_string()),
            }
        }
        Ok(out)
    }

    pub fn check(&self, scope: &Scope) -> Result<(), String> {
        for s in &self.0 {
            if let Seg::Hole(e) = s {
                scope.check(e)?;
            }
        }
        Ok(())
    }

    /// The text as written, when it has no holes.
    pub fn as_literal(&self) -> Option<&str> {
        match self.0.as_slice() {
            [Seg::Lit(l)] => Some(l),
            _ => None,
        }
    }
}
