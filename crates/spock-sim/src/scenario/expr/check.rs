//! Checking an expression's names where it is written, when the scenario loads: the app's
//! variables, its tables and their fields, and which table `item` is a row of.
use std::collections::BTreeMap;

use super::{Expr, Row, RowRef, RowTarget, Stmt, Target, Value};

/// What names an expression may use where it is written: the app's variables and tables, and
/// which table `item` is a row of (`Any`: a transition, where it is the row tapped).
pub struct Scope<'a> {
    pub vars: &'a BTreeMap<String, Value>,
    pub tables: &'a BTreeMap<String, Vec<Row>>,
    pub item: ItemScope<'a>,
}

#[derive(Debug, Clone, Copy)]
pub enum ItemScope<'a> {
    None,
    Table(&'a str),
    Any,
}

impl<'a> Scope<'a> {
    pub fn with_item(&self, item: ItemScope<'a>) -> Scope<'a> {
        Scope {
            vars: self.vars,
            tables: self.tables,
            item,
        }
    }

    fn table(&self, t: &str) -> Result<(), String> {
        if self.tables.contains_key(t) {
            Ok(())
        } else {
            Err(format!("unknown table `{t}`"))
        }
    }

    fn column(&self, row: RowScope, field: &str) -> Result<(), String> {
        let has = |t: &str| {
            self.tables
                .get(t)
                .and_then(|r| r.first())
                .is_some_and(|r| r.contains_key(field))
        };
        let ok = match row {
            RowScope::Table(t) => {
                self.table(t)?;
                has(t)
            }
            RowScope::Item => match self.item {
                ItemScope::None => return Err("`item` is bound to no row here".into()),
                ItemScope::Table(t) => has(t),
                ItemScope::Any => self.tables.keys().any(|t| has(t)),
            },
        };
        if ok {
            Ok(())
        } else {
            Err(format!("no table field `{field}` here"))
        }
    }

    pub fn check(&self, e: &Expr) -> Result<(), String> {
        match e {
            Expr::Lit(_) => Ok(()),
            Expr::Var(n) => {
                if self.vars.contains_key(n) {
                    Ok(())
                } else {
                    Err(format!("unknown variable `{n}`"))
                }
            }
            Expr::Col { row, field } => match row {
                RowRef::Item => self.column(RowScope::Item, field),
                RowRef::Key { table, key } => {
                    self.check(key)?;
                    self.column(RowScope::Table(table), field)
                }
            },
            Expr::Money(e) | Expr::Field(e) | Expr::Not(e) | Expr::Neg(e) => self.check(e),
            Expr::Sum { table, each } => {
                self.table(table)?;
                self.with_item(ItemScope::Table(table)).check(each)
            }
            Expr::Bin(_, a, b) => {
                self.check(a)?;
                self.check(b)
            }
        }
    }

    pub fn check_stmt(&self, s: &Stmt) -> Result<(), String> {
        match &s.target {
            Target::Var(n) => self.check(&Expr::Var(n.clone()))?,
            Target::Col { row, field } => match row {
                RowTarget::Item => self.column(RowScope::Item, field)?,
                RowTarget::Key { table, key } => {
                    self.check(key)?;
                    self.column(RowScope::Table(table), field)?;
                }
                RowTarget::All(table) => {
                    self.column(RowScope::Table(table), field)?;
                    return self.with_item(ItemScope::Table(table)).check(&s.value);
                }
            },
        }
        self.check(&s.value)
    }
}

#[derive(Clone, Copy)]
enum RowScope<'a> {
    Item,
    Table(&'a str),
}
