//! Arithmetic, which mksh evaluates in `$((…))`, `((…))`, `let`, `typeset -i`/`integer`
//! assignments, array subscripts and the numeric tests of `[[`/`test`. Evaluating a name
//! evaluates the text it holds as arithmetic again, and a subscript `a[…]` runs whatever
//! substitution the text holds, so `x='a[$(rm …)]'; : $((x))` runs `rm`.
//!
//! The guard does not compute the number; it proves the expression inert or refuses it: an
//! expression may hold numbers, operators, and names whose values are numbers or inert
//! expressions themselves (to a small depth). Anything else (a subscript, a quote, a `$`
//! that survived expansion, a name whose value the guard does not know) is refused as a form
//! the guard cannot read. The result is a number the guard does not know ([`numeric`]).
use std::rc::Rc;

use super::eval::{Eval, R, cannot_read};
use super::lex::Seg;
use super::state::{Env, UNKNOWN, UNKNOWN_S, Val};

/// Why a value is unknown when all that is unknown is which number it is.
pub(super) const NUMERIC_WHY: &str = "which number an arithmetic expression gives";

const MAX_DEPTH: usize = 8;

/// An unknown number.
pub(super) fn numeric() -> Val {
    Val::unknown(NUMERIC_WHY)
}

/// Whether every candidate of `v` is a number (known, or an unknown number).
pub(super) fn is_numeric(v: &Val) -> bool {
    v.cands.iter().all(|c| {
        let t = c.trim();
        (!t.is_empty()
            && t.trim_start_matches(['-', '+'])
                .chars()
                .all(|d| d.is_ascii_digit()))
            || (c == UNKNOWN_S && v.why.as_deref() == Some(NUMERIC_WHY))
    })
}

impl Eval {
    /// `$((expr))`: runs the substitutions inside (they run in mksh too), then proves the
    /// text inert.
    pub(super) fn arith(&mut self, expr: &str, env: &Env) -> R<Val> {
        let segs = super::lex::lex_arith(expr);
        for seg in &segs {
            match seg {
                Seg::Lit(l) => self.arith_text(l, env, 0)?,
                _ => {
                    let v = self.seg_value(seg, env)?;
                    self.arith_value(&v, "a value expanded inside `$((…))`", env, 0)?;
                }
            }
        }
        Ok(numeric())
    }

    /// A value that becomes arithmetic text.
    pub(super) fn arith_value(&mut self, v: &Val, what: &str, env: &Env, depth: usize) -> R<()> {
        if is_numeric(v) {
            return Ok(());
        }
        for c in &v.cands {
            if c.contains(UNKNOWN) {
                return Err(cannot_read(&format!(
                    "arithmetic over {what}, whose text the guard does not know ({})",
                    v.why.as_deref().unwrap_or("computed on the device")
                )));
            }
            self.arith_text(c, env, depth + 1)?;
        }
        Ok(())
    }

    /// Proves arithmetic source text inert.
    pub(super) fn arith_text(&mut self, text: &str, env: &Env, depth: usize) -> R<()> {
        if depth > MAX_DEPTH {
            return Err(cannot_read(
                "arithmetic that names variables holding arithmetic, nested too deeply,",
            ));
        }
        self.step(1)?;
        let c: Vec<char> = text.chars().collect();
        let mut i = 0;
        let mut parens = 0usize;
        while i < c.len() {
            if c[i] == '(' {
                parens += 1;
                if parens > 64 {
                    return Err(cannot_read(
                        "arithmetic nested more than 64 parentheses deep",
                    ));
                }
            }
            let ch = c[i];
            if ch.is_ascii_digit() {
                // Numbers, incl. `0x1F` and mksh's `16#ff`.
                while i < c.len() && (c[i].is_ascii_alphanumeric() || c[i] == '#') {
                    i += 1;
                }
                continue;
            }
            if ch == '_' || ch.is_ascii_alphabetic() {
                let start = i;
                while i < c.len() && (c[i] == '_' || c[i].is_ascii_alphanumeric()) {
                    i += 1;
                }
                let name: String = c[start..i].iter().collect();
                if c.get(i) == Some(&'[') {
                    return Err(cannot_read(&format!(
                        "the array subscript `{name}[…]` in arithmetic (it runs what it holds)"
                    )));
                }
                if env.is_set(&name) {
                    let v = env.get(&name);
                    self.arith_value(&v, &format!("`${name}`"), env, depth)?;
                }
                continue;
            }
            if ch.is_whitespace() || "+-*/%<>=!&|^~?:,()".contains(ch) {
                i += 1;
                continue;
            }
            let shown: String = if ch == UNKNOWN {
                "text the guard does not know".into()
            } else {
                format!("`{ch}`")
            };
            return Err(cannot_read(&format!("{shown} in arithmetic")));
        }
        Ok(())
    }

    /// `let EXPR…`, and values assigned to integer variables.
    pub(super) fn arith_args(&mut self, args: &[String], env: &Env) -> R<()> {
        for a in args {
            // Unknown only in which number a counter holds: the rest must still be inert.
            if a.contains(UNKNOWN)
                && !self.why.is_empty()
                && self.why.iter().all(|w| &**w == NUMERIC_WHY)
            {
                self.arith_text(&a.replace(UNKNOWN, "0"), env, 0)?;
                continue;
            }
            if a.contains(UNKNOWN) {
                let why = self
                    .why
                    .first()
                    .cloned()
                    .unwrap_or_else(|| Rc::from("computed on the device"));
                return Err(cannot_read(&format!(
                    "arithmetic over text the guard does not know ({why})"
                )));
            }
            self.arith_text(a, env, 0)?;
        }
        Ok(())
    }
}
