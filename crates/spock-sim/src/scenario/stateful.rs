//! Loading what makes an app stateful: its declared variables and tables, its template
//! screens (checked against them and rendered once from the initial state), and the
//! conditions, statements and log lines of the transitions that start on its screens.
use std::collections::BTreeSet;
use std::ops::Range;
use std::sync::Arc;

use toml::Spanned;

use super::ScenarioError;
use super::expr::{self, AppData, Ctx, Expr, ItemScope, Scope, Stmt, Text, Value};
use super::raw::RawApp;
use super::template::Template;
use crate::device::ui::{UiError, UiTree};

type At<'a> = dyn Fn(Range<usize>, String) -> ScenarioError + 'a;

/// A transition's condition, statements and log lines, as loaded.
pub(super) type Effects = (Option<Expr>, Vec<Stmt>, Vec<Text>);

/// An app's declared variables and tables, checked: integers or strings only, every row with
/// a string `id` (unique) and the fields and types of the first row.
pub(super) fn app_data(a: &RawApp, at: &At) -> Result<AppData, ScenarioError> {
    let value = |v: &toml::Value| match v {
        toml::Value::Integer(i) => Some(Value::Int(*i)),
        toml::Value::String(s) => Some(Value::Str(s.clone())),
        toml::Value::Boolean(b) => Some(Value::Int(i64::from(*b))),
        _ => None,
    };
    let mut out = AppData::default();
    for (name, v) in &a.vars {
        let val = value(v.get_ref()).ok_or_else(|| {
            at(
                v.span(),
                format!("variable `{name}`: an integer or a string"),
            )
        })?;
        out.vars.insert(name.clone(), val);
    }
    for t in &a.tables {
        let name = t.name.get_ref();
        let bad = |m: String| at(t.name.span(), format!("table `{name}`: {m}"));
        if out.vars.contains_key(name) || out.tables.contains_key(name) {
            return Err(bad("the name is taken".into()));
        }
        let Some(first) = t.rows.first() else {
            return Err(bad("it needs at least one row".into()));
        };
        let mut rows = Vec::new();
        let mut keys = BTreeSet::new();
        for (i, r) in t.rows.iter().enumerate() {
            let mut row = expr::Row::new();
            for (k, v) in r {
                let val = value(v).ok_or_else(|| {
                    bad(format!(
                        "row {}: `{k}` is not an integer or a string",
                        i + 1
                    ))
                })?;
                row.insert(k.clone(), val);
            }
            let same_shape = r.len() == first.len()
                && row.iter().all(|(k, v)| {
                    first
                        .get(k)
                        .and_then(value)
                        .is_some_and(|f| std::mem::discriminant(&f) == std::mem::discriminant(v))
                });
            if !same_shape {
                return Err(bad(format!(
                    "row {} has other fields or types than the first",
                    i + 1
                )));
            }
            match row.get("id") {
                Some(Value::Str(id)) if keys.insert(id.clone()) => {}
                Some(Value::Str(id)) => return Err(bad(format!("two rows with id \"{id}\""))),
                _ => return Err(bad(format!("row {} needs a string `id`", i + 1))),
            }
            rows.push(row);
        }
        out.tables.insert(name.clone(), rows);
    }
    Ok(out)
}

/// Why a template screen was refused: at a position in its file, or when it rendered.
pub(super) enum TemplateError {
    At(UiError),
    Render(String),
}

/// A template screen checked against its app's names, and what it shows first.
pub(super) fn template(xml: &str, app: &AppData) -> Result<(UiTree, Arc<Template>), TemplateError> {
    let scope = Scope {
        vars: &app.vars,
        tables: &app.tables,
        item: ItemScope::None,
    };
    let t = Template::parse(xml, &scope).map_err(TemplateError::At)?;
    // Rendered once from the initial state: what it shows first, and a check that it renders
    // at all.
    let cx = Ctx {
        data: app,
        item: None,
        field: &|_| None,
    };
    let shown = t
        .render(&cx)
        .and_then(|r| UiTree::parse(&r.xml).map_err(|e| e.message))
        .map_err(TemplateError::Render)?;
    Ok((shown, Arc::new(t)))
}

/// A transition's `when`, `set` and `logcat`, checked against the app of the screen it starts
/// on (`item` may be any table's row there: the row of the node tapped). A stateless app's log
/// lines are taken as written.
pub(super) fn transition(
    when: Option<&Spanned<String>>,
    set: &[Spanned<String>],
    logcat: &[Spanned<String>],
    app: &AppData,
    at: &At,
) -> Result<Effects, ScenarioError> {
    let scope = Scope {
        vars: &app.vars,
        tables: &app.tables,
        item: ItemScope::Any,
    };
    let when = match when {
        Some(w) => {
            let e = expr::parse_expr(w.get_ref())
                .and_then(|e| scope.check(&e).map(|()| e))
                .map_err(|m| at(w.span(), format!("when: {m}")))?;
            Some(e)
        }
        None => None,
    };
    let mut stmts = Vec::new();
    for st in set {
        let s = expr::parse_stmt(st.get_ref())
            .and_then(|s| scope.check_stmt(&s).map(|()| s))
            .map_err(|m| at(st.span(), format!("set: {m}")))?;
        stmts.push(s);
    }
    let mut lines = Vec::new();
    for l in logcat {
        lines.push(if app.is_empty() {
            Text::literal(l.get_ref())
        } else {
            Text::parse(l.get_ref())
                .and_then(|x| x.check(&scope).map(|()| x))
                .map_err(|m| at(l.span(), format!("logcat: {m}")))?
        });
    }
    Ok((when, stmts, lines))
}
