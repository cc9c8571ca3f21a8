//! Template screens (`template = true`): a uiautomator dump whose attribute values may hold
//! `{expr}` holes and whose nodes may carry `sim-if` / `sim-each` / `sim-where` / `sim-step`,
//! rendered from the app's state into a plain dump (the `sim-*` attributes never reach it).
//!
//! The output keeps the shape of a real dump: one line, `<node … />` for leaves, the
//! template's attribute order, `index` renumbered among the siblings actually shown, and the
//! bounds of each repeated row moved down by one step per row before it, so that hit-testing,
//! `screencap` and every parser see a consistent screen.
use super::expr::{Ctx, Expr, ItemScope, Scope, Text, parse_expr};
use crate::device::ui::{Bounds, UiError, escape_attr};

/// A parsed template, checked against the names its app declares.
#[derive(Debug, Clone)]
pub struct Template {
    hierarchy: Vec<(String, String)>,
    nodes: Vec<TNode>,
}

#[derive(Debug, Clone)]
struct TNode {
    attrs: Vec<(String, Text)>,
    when: Option<Expr>,
    each: Option<Each>,
    /// The node's literal bounds (what a repeated node's default step is taken from).
    bounds: Option<Bounds>,
    children: Vec<TNode>,
}

#[derive(Debug, Clone)]
struct Each {
    table: String,
    filter: Option<Expr>,
    step: i32,
}

/// A rendered screen: the dump, and for each of its nodes (in document order, as
/// [`crate::device::ui::UiTree`] numbers them) the table row it was repeated for, if any.
#[derive(Debug, Clone)]
pub struct Rendered {
    pub xml: String,
    pub rows: Vec<Option<(String, usize)>>,
}

impl Template {
    /// Parses `xml` and checks every expression in it against `scope` (positions in errors
    /// are the template file's).
    pub fn parse(xml: &str, scope: &Scope) -> Result<Template, UiError> {
        let doc = crate::device::ui::parse_doc(xml)?;
        let root = doc.root_element();
        let at = |offset: usize, message: String| {
            let p = doc.text_pos_at(offset);
            UiError {
                line: p.row,
                column: p.col,
                message,
            }
        };
        if root.tag_name().name() != "hierarchy" {
            return Err(at(
                root.range().start,
                format!(
                    "not a uiautomator dump: root element is <{}>, expected <hierarchy>",
                    root.tag_name().name()
                ),
            ));
        }
        let hierarchy = root
            .attributes()
            .map(|a| (a.name().to_string(), a.value().to_string()))
            .collect();
        let nodes = children(root, scope, &at)?;
        Ok(Template { hierarchy, nodes })
    }

    pub fn render(&self, cx: &Ctx) -> Result<Rendered, String> {
        let mut out = String::from("<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>");
        out.push_str("<hierarchy");
        for (k, v) in &self.hierarchy {
            out.push_str(&format!(" {k}=\"{}\"", escape_attr(v)));
        }
        out.push('>');
        let mut rows = Vec::new();
        emit(&self.nodes, cx, 0, None, &mut out, &mut rows)?;
        out.push_str("</hierarchy>");
        Ok(Rendered { xml: out, rows })
    }
}

type At<'a> = dyn Fn(usize, String) -> UiError + 'a;

fn children(parent: roxmltree::Node, scope: &Scope, at: &At) -> Result<Vec<TNode>, UiError> {
    let mut out = Vec::new();
    for child in parent.children().filter(|c| c.is_element()) {
        if child.tag_name().name() != "node" {
            return Err(at(
                child.range().start,
                format!(
                    "unexpected <{}>: a dump holds <node>s",
                    child.tag_name().name()
                ),
            ));
        }
        out.push(node(child, scope, at)?);
    }
    Ok(out)
}

fn node(n: roxmltree::Node, scope: &Scope, at: &At) -> Result<TNode, UiError> {
    let expr = |a: &roxmltree::Attribute, scope: &Scope| -> Result<Expr, UiError> {
        let pos = a.range_value().start;
        let e = parse_expr(a.value()).map_err(|m| at(pos, format!("{}: {m}", a.name())))?;
        scope
            .check(&e)
            .map_err(|m| at(pos, format!("{}: {m}", a.name())))?;
        Ok(e)
    };
    let attr = |name: &str| n.attributes().find(|a| a.name() == name);
    let each = match attr("sim-each") {
        Some(a) => {
            let table = a.value().trim().to_string();
            if !scope.tables.contains_key(&table) {
                return Err(at(
                    a.range_value().start,
                    format!("sim-each: unknown table `{table}`"),
                ));
            }
            Some(table)
        }
        None => None,
    };
    let inner = match &each {
        Some(t) => scope.with_item(ItemScope::Table(t)),
        None => scope.with_item(scope.item),
    };
    let bounds = attr("bounds").and_then(|a| Bounds::parse(a.value()));
    let mut attrs = Vec::new();
    let (mut when, mut filter, mut step) = (None, None, None);
    for a in n.attributes() {
        let pos = a.range_value().start;
        match a.name() {
            "sim-if" => when = Some(expr(&a, &inner)?),
            "sim-where" => filter = Some(expr(&a, &inner)?),
            "sim-step" => {
                step =
                    Some(a.value().trim().parse::<i32>().map_err(|_| {
                        at(pos, "sim-step: expected a number of pixels".to_string())
                    })?)
            }
            "sim-each" => {}
            other if other.starts_with("sim-") => {
                return Err(at(
                    a.range().start,
                    format!("unknown attribute `{other}` (sim-if, sim-each, sim-where, sim-step)"),
                ));
            }
            name => {
                let t = Text::parse(a.value()).map_err(|m| at(pos, format!("{name}: {m}")))?;
                t.check(&inner)
                    .map_err(|m| at(pos, format!("{name}: {m}")))?;
                attrs.push((name.to_string(), t));
            }
        }
    }
    let each = match each.clone() {
        Some(table) => {
            let step = match (step, bounds) {
                (Some(s), _) => s,
                (None, Some(b)) => b.bottom - b.top,
                (None, None) => {
                    return Err(at(
                        n.range().start,
                        "sim-each: give sim-step, or literal bounds to step by".to_string(),
                    ));
                }
            };
            Some(Each {
                table,
                filter,
                step,
            })
        }
        None if filter.is_some() || step.is_some() => {
            return Err(at(
                n.range().start,
                "sim-where and sim-step go with sim-each".to_string(),
            ));
        }
        None => None,
    };
    Ok(TNode {
        attrs,
        when,
        each,
        bounds,
        children: children(n, &inner, at)?,
    })
}

fn emit(
    nodes: &[TNode],
    cx: &Ctx,
    dy: i32,
    parent: Option<Bounds>,
    out: &mut String,
    rows: &mut Vec<Option<(String, usize)>>,
) -> Result<(), String> {
    let mut index = 0;
    let holds = |e: &Option<Expr>, cx: &Ctx| -> Result<bool, String> {
        Ok(match e {
            Some(e) => e.eval(cx)?.truthy(),
            None => true,
        })
    };
    for n in nodes {
        let Some(each) = &n.each else {
            if holds(&n.when, cx)? {
                emit_node(n, cx, dy, index, out, rows)?;
                index += 1;
            }
            continue;
        };
        let count = cx.data.tables.get(&each.table).map_or(0, Vec::len);
        let mut shown = 0;
        for i in 0..count {
            let icx = cx.with_item(Some((each.table.as_str(), i)));
            if !holds(&each.filter, &icx)? || !holds(&n.when, &icx)? {
                continue;
            }
            let ddy = dy + shown * each.step;
            // A list shows the rows that fit in it; the rest would be scrolled to.
            let fits = match (n.bounds, parent) {
                (Some(b), Some(p)) => b.bottom + ddy <= p.bottom,
                _ => true,
            };
            if !fits {
                break;
            }
            emit_node(n, &icx, ddy, index, out, rows)?;
            index += 1;
            shown += 1;
        }
    }
    Ok(())
}

fn emit_node(
    n: &TNode,
    cx: &Ctx,
    dy: i32,
    index: usize,
    out: &mut String,
    rows: &mut Vec<Option<(String, usize)>>,
) -> Result<(), String> {
    out.push_str("<node");
    let mut own = None;
    for (k, t) in &n.attrs {
        let v = match k.as_str() {
            "index" => index.to_string(),
            "bounds" => {
                let v = t.eval(cx)?;
                match Bounds::parse(&v) {
                    Some(b) => {
                        let b = Bounds {
                            top: b.top + dy,
                            bottom: b.bottom + dy,
                            ..b
                        };
                        own = Some(b);
                        format!("[{},{}][{},{}]", b.left, b.top, b.right, b.bottom)
                    }
                    None => v,
                }
            }
            _ => t.eval(cx)?,
        };
        out.push_str(&format!(" {k}=\"{}\"", escape_attr(&v)));
    }
    rows.push(cx.item.map(|(t, i)| (t.to_string(), i)));
    let mut inner = String::new();
    emit(&n.children, cx, dy, own, &mut inner, rows)?;
    if inner.is_empty() {
        out.push_str(" />");
    } else {
        out.push('>');
        out.push_str(&inner);
        out.push_str("</node>");
    }
    Ok(())
}
