//! The scenario's small expression language: what a stateful app's transitions test (`when`)
//! and change (`set`), and what its template screens show (`{…}` in attribute values).
//!
//! Values are integers and strings. An app's state is its variables and its tables (rows of
//! named fields, each with a string `id`); expressions read them, `set` statements write them.
//! Names are checked when the scenario loads ([`Scope`]), so a misspelt variable is refused at
//! start with its position, not discovered by a test that taps the wrong button.
use std::collections::BTreeMap;

mod check;
mod parse;

pub use check::{ItemScope, Scope};
pub use parse::{Text, parse_expr, parse_stmt};

/// An integer or a string. Conditions are integers (0 is false); a string is true when not
/// empty.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    Int(i64),
    Str(String),
}

impl Value {
    pub fn truthy(&self) -> bool {
        match self {
            Value::Int(i) => *i != 0,
            Value::Str(s) => !s.is_empty(),
        }
    }

    /// The value of the same type that a missing row's field has: `0` or `""`.
    fn zero_like(&self) -> Value {
        match self {
            Value::Int(_) => Value::Int(0),
            Value::Str(_) => Value::Str(String::new()),
        }
    }

    /// `v` converted to this value's type (a variable keeps the type it was declared with).
    fn coerce(&self, v: Value) -> Result<Value, String> {
        match (self, v) {
            (Value::Int(_), Value::Int(i)) => Ok(Value::Int(i)),
            (Value::Int(_), Value::Str(s)) => s
                .trim()
                .parse()
                .map(Value::Int)
                .map_err(|_| format!("\"{s}\" is not an integer")),
            (Value::Str(_), v) => Ok(Value::Str(v.to_string())),
        }
    }
}

impl std::fmt::Display for Value {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Value::Int(i) => write!(f, "{i}"),
            Value::Str(s) => f.write_str(s),
        }
    }
}

/// One row of a table: field name → value (`id` always a string).
pub type Row = BTreeMap<String, Value>;

/// An app's state: its variables and tables, as declared in the scenario and changed since.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct AppData {
    pub vars: BTreeMap<String, Value>,
    pub tables: BTreeMap<String, Vec<Row>>,
}

impl AppData {
    pub fn is_empty(&self) -> bool {
        self.vars.is_empty() && self.tables.is_empty()
    }

    fn row_index(&self, table: &str, key: &Value) -> Option<usize> {
        let key = key.to_string();
        self.tables
            .get(table)?
            .iter()
            .position(|r| r.get("id").is_some_and(|id| id.to_string() == key))
    }

    /// Sets variable `name` (converted to its declared type).
    pub fn set_var(&mut self, name: &str, v: Value) -> Result<(), String> {
        let Some(old) = self.vars.get(name) else {
            return Err(format!("unknown variable `{name}`"));
        };
        let v = old.coerce(v)?;
        self.vars.insert(name.to_string(), v);
        Ok(())
    }
}

/// A row bound to `item`: inside `sum(table, …)`, inside a repeated template node, and in a
/// transition fired from a tap on a node rendered from that row.
pub type Item<'a> = Option<(&'a str, usize)>;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RowRef {
    /// `item`
    Item,
    /// `table[key]`: the row whose `id` is the key.
    Key { table: String, key: Box<Expr> },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    And,
    Or,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expr {
    Lit(Value),
    Var(String),
    Col {
        row: RowRef,
        field: String,
    },
    /// `money(cents)`: `$1,234.50`.
    Money(Box<Expr>),
    /// `field("id")`: what the text field with that resource id on the screen holds (a
    /// password field's real text, not the bullets the dump shows).
    Field(Box<Expr>),
    /// `sum(table, expr)`: `expr` over every row, with `item` bound to it.
    Sum {
        table: String,
        each: Box<Expr>,
    },
    Not(Box<Expr>),
    Neg(Box<Expr>),
    Bin(BinOp, Box<Expr>, Box<Expr>),
}

/// Where a `set` statement writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    Var(String),
    Col { row: RowTarget, field: String },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RowTarget {
    Item,
    Key {
        table: String,
        key: Expr,
    },
    /// `table[*]`: every row (the value is evaluated once per row, with `item` bound to it).
    All(String),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Assign {
    Set,
    Add,
    Sub,
}

/// `target = expr`, `target += expr`, `target -= expr`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stmt {
    pub target: Target,
    pub op: Assign,
    pub value: Expr,
}

/// What an expression reads besides the app's state.
pub struct Ctx<'a> {
    pub data: &'a AppData,
    pub item: Item<'a>,
    /// The text field with this resource id on the screen, if any.
    pub field: &'a dyn Fn(&str) -> Option<String>,
}

impl Ctx<'_> {
    pub fn with_item<'b>(&'b self, item: Item<'b>) -> Ctx<'b> {
        Ctx {
            data: self.data,
            item,
            field: self.field,
        }
    }
}

/// `$1,234.50` for 123450 cents (a minus sign before the dollar for a negative amount).
pub fn money(cents: i64) -> String {
    let sign = if cents < 0 { "-" } else { "" };
    let c = cents.unsigned_abs();
    let dollars = (c / 100).to_string();
    let mut grouped = String::new();
    for (i, ch) in dollars.chars().enumerate() {
        if i > 0 && (dollars.len() - i).is_multiple_of(3) {
            grouped.push(',');
        }
        grouped.push(ch);
    }
    format!("{sign}${grouped}.{:02}", c % 100)
}

impl Expr {
    pub fn eval(&self, cx: &Ctx) -> Result<Value, String> {
        Ok(match self {
            Expr::Lit(v) => v.clone(),
            Expr::Var(n) => cx
                .data
                .vars
                .get(n)
                .cloned()
                .ok_or_else(|| format!("unknown variable `{n}`"))?,
            Expr::Col { row, field } => {
                let (table, idx) = match row {
                    RowRef::Item => {
                        let (t, i) = cx.item.ok_or("`item` is bound to no row here")?;
                        (t.to_string(), Some(i))
                    }
                    RowRef::Key { table, key } => {
                        let key = key.eval(cx)?;
                        (table.clone(), cx.data.row_index(table, &key))
                    }
                };
                let rows = cx
                    .data
                    .tables
                    .get(&table)
                    .ok_or_else(|| format!("unknown table `{table}`"))?;
                let known = rows
                    .first()
                    .and_then(|r| r.get(field))
                    .ok_or_else(|| format!("table `{table}` has no field `{field}`"))?;
                match idx.and_then(|i| rows.get(i)).and_then(|r| r.get(field)) {
                    Some(v) => v.clone(),
                    // No such row: the field's zero value, so a screen can say "not found".
                    None => known.zero_like(),
                }
            }
            Expr::Money(e) => match e.eval(cx)? {
                Value::Int(c) => Value::Str(money(c)),
                Value::Str(s) => return Err(format!("money() of a string (\"{s}\")")),
            },
            Expr::Field(e) => {
                let id = e.eval(cx)?.to_string();
                Value::Str((cx.field)(&id).unwrap_or_default())
            }
            Expr::Sum { table, each } => {
                let n = cx
                    .data
                    .tables
                    .get(table)
                    .ok_or_else(|| format!("unknown table `{table}`"))?
                    .len();
                let mut total = 0i64;
                for i in 0..n {
                    match each.eval(&cx.with_item(Some((table, i))))? {
                        Value::Int(v) => total = total.saturating_add(v),
                        Value::Str(s) => return Err(format!("sum() of a string (\"{s}\")")),
                    }
                }
                Value::Int(total)
            }
            Expr::Not(e) => Value::Int(i64::from(!e.eval(cx)?.truthy())),
            Expr::Neg(e) => Value::Int(int(e.eval(cx)?, "-")?.saturating_neg()),
            Expr::Bin(BinOp::And, a, b) => {
                Value::Int(i64::from(a.eval(cx)?.truthy() && b.eval(cx)?.truthy()))
            }
            Expr::Bin(BinOp::Or, a, b) => {
                Value::Int(i64::from(a.eval(cx)?.truthy() || b.eval(cx)?.truthy()))
            }
            Expr::Bin(op, a, b) => binary(*op, a.eval(cx)?, b.eval(cx)?)?,
        })
    }
}

fn int(v: Value, op: &str) -> Result<i64, String> {
    match v {
        Value::Int(i) => Ok(i),
        Value::Str(s) => Err(format!("`{op}` needs integers, got \"{s}\"")),
    }
}

fn binary(op: BinOp, a: Value, b: Value) -> Result<Value, String> {
    use std::cmp::Ordering;
    let ord = |a: &Value, b: &Value| match (a, b) {
        (Value::Int(x), Value::Int(y)) => x.cmp(y),
        _ => a.to_string().cmp(&b.to_string()),
    };
    let flag = |b: bool| Value::Int(i64::from(b));
    Ok(match op {
        BinOp::Add => match (a, b) {
            (Value::Int(x), Value::Int(y)) => Value::Int(x.saturating_add(y)),
            (a, b) => Value::Str(format!("{a}{b}")),
        },
        BinOp::Sub => Value::Int(int(a, "-")?.saturating_sub(int(b, "-")?)),
        BinOp::Mul => Value::Int(int(a, "*")?.saturating_mul(int(b, "*")?)),
        BinOp::Eq => flag(ord(&a, &b) == Ordering::Equal),
        BinOp::Ne => flag(ord(&a, &b) != Ordering::Equal),
        BinOp::Lt => flag(ord(&a, &b) == Ordering::Less),
        BinOp::Le => flag(ord(&a, &b) != Ordering::Greater),
        BinOp::Gt => flag(ord(&a, &b) == Ordering::Greater),
        BinOp::Ge => flag(ord(&a, &b) != Ordering::Less),
        BinOp::And | BinOp::Or => unreachable!("short-circuited in eval"),
    })
}

impl Stmt {
    /// Runs the statement on `data`; on an error `data` may be half changed (callers run a
    /// transition's statements on a copy).
    pub fn exec(
        &self,
        data: &mut AppData,
        item: Item,
        field: &dyn Fn(&str) -> Option<String>,
    ) -> Result<(), String> {
        let rows: Vec<(Option<(String, usize)>, Value)> = {
            let cx = Ctx {
                data: &*data,
                item,
                field,
            };
            match &self.target {
                Target::Var(_) => vec![(None, self.value.eval(&cx)?)],
                Target::Col { row, .. } => match row {
                    RowTarget::Item => {
                        let (t, i) = item.ok_or("`item` is bound to no row here")?;
                        vec![(Some((t.to_string(), i)), self.value.eval(&cx)?)]
                    }
                    RowTarget::Key { table, key } => {
                        let key = key.eval(&cx)?;
                        let i = data
                            .row_index(table, &key)
                            .ok_or_else(|| format!("table `{table}` has no row \"{key}\""))?;
                        vec![(Some((table.clone(), i)), self.value.eval(&cx)?)]
                    }
                    RowTarget::All(table) => {
                        let n = data.tables.get(table).map_or(0, Vec::len);
                        let mut out = Vec::with_capacity(n);
                        for i in 0..n {
                            let v = self.value.eval(&cx.with_item(Some((table, i))))?;
                            out.push((Some((table.clone(), i)), v));
                        }
                        out
                    }
                },
            }
        };
        for (at, v) in rows {
            let slot = match (&self.target, at) {
                (Target::Var(n), _) => data
                    .vars
                    .get_mut(n)
                    .ok_or_else(|| format!("unknown variable `{n}`"))?,
                (Target::Col { field, .. }, Some((t, i))) => data
                    .tables
                    .get_mut(&t)
                    .and_then(|rows| rows.get_mut(i))
                    .and_then(|r| r.get_mut(field))
                    .ok_or_else(|| format!("table `{t}` has no field `{field}`"))?,
                (Target::Col { .. }, None) => return Err("no row to set".into()),
            };
            let new = match self.op {
                Assign::Set => v,
                Assign::Add => binary(BinOp::Add, slot.clone(), v)?,
                Assign::Sub => binary(BinOp::Sub, slot.clone(), v)?,
            };
            *slot = slot.coerce(new)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
