//! Validators for the names and values tools put on a device command line.
//!
//! Quoting ([`super::shell_quote`]) already makes any value arrive as one argument; these
//! checks add what quoting cannot: a name that starts with `-` would be read as an option by
//! `pm`/`am`, and a package name with `;` or `$(…)` in it is never a typo. Rules follow
//! Android's own: package segments start with a letter and hold letters, digits and `_`.
use super::Refusal;

const MAX_NAME: usize = 255;
const MAX_URI: usize = 8192;

fn refuse(rule: &'static str, what: &str, value: &str, rule_text: &str) -> Refusal {
    let shown: String = value
        .chars()
        .take(80)
        .flat_map(char::escape_debug)
        .collect();
    Refusal::new(
        rule,
        format!("`{shown}` is not a valid {what}: {rule_text}"),
    )
}

/// Dot-separated segments; each starts with a letter and holds letters, digits, `_` and any
/// of `extra`.
fn dotted(s: &str, min_segments: usize, extra: &str) -> bool {
    let segs: Vec<&str> = s.split('.').collect();
    !s.is_empty()
        && s.len() <= MAX_NAME
        && segs.len() >= min_segments
        && segs.iter().all(|seg| {
            seg.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
                && seg
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || extra.contains(c))
        })
}

/// An application id such as `com.example.app` (single segments such as `android` are real
/// packages too).
pub fn package_name(s: &str) -> Result<(), Refusal> {
    if dotted(s, 1, "") {
        return Ok(());
    }
    Err(refuse(
        "package-name",
        "package name",
        s,
        "segments separated by `.`, each starting with a letter and holding only letters, digits and `_`",
    ))
}

/// A permission such as `android.permission.CAMERA`.
pub fn permission_name(s: &str) -> Result<(), Refusal> {
    if dotted(s, 2, "") {
        return Ok(());
    }
    Err(refuse(
        "permission-name",
        "permission name",
        s,
        "at least two `.`-separated segments of letters, digits and `_`, each starting with a letter",
    ))
}

/// A component `pkg/.Cls` or `pkg/com.example.Cls` (inner classes with `$` allowed).
pub fn component(s: &str) -> Result<(), Refusal> {
    let ok = s.split_once('/').is_some_and(|(pkg, cls)| {
        let cls_body = cls.strip_prefix('.').unwrap_or(cls);
        dotted(pkg, 1, "") && dotted(cls_body, 1, "$")
    });
    if ok {
        return Ok(());
    }
    Err(refuse(
        "component",
        "component",
        s,
        "expected `package/.Class` or `package/full.Class`",
    ))
}

/// An intent action such as `android.intent.action.VIEW`.
pub fn intent_action(s: &str) -> Result<(), Refusal> {
    if dotted(s, 1, "") {
        return Ok(());
    }
    Err(refuse(
        "intent-action",
        "intent action",
        s,
        "letters, digits, `_` and `.` only",
    ))
}

/// An intent category such as `android.intent.category.BROWSABLE`.
pub fn intent_category(s: &str) -> Result<(), Refusal> {
    if dotted(s, 1, "") {
        return Ok(());
    }
    Err(refuse(
        "intent-category",
        "intent category",
        s,
        "letters, digits, `_` and `.` only",
    ))
}

/// A URI with a scheme; no whitespace, control characters, quotes or backslashes (a URI
/// needing them must percent-encode them).
pub fn uri(s: &str) -> Result<(), Refusal> {
    let scheme_ok = s.split_once(':').is_some_and(|(scheme, _)| {
        scheme
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic())
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "+.-".contains(c))
    });
    let chars_ok = s
        .chars()
        .all(|c| !c.is_whitespace() && !c.is_control() && !"'\"\\`".contains(c));
    if scheme_ok && chars_ok && s.len() <= MAX_URI {
        return Ok(());
    }
    Err(refuse(
        "uri",
        "URI",
        s,
        "it needs a scheme (`https:`, `myapp:`) and no spaces, control characters, quotes or backslashes (percent-encode them)",
    ))
}

/// An intent extra key: letters, digits, `_`, `.`, `-`, `:`; not starting with `-`.
pub fn intent_extra_key(s: &str) -> Result<(), Refusal> {
    let ok = !s.is_empty()
        && s.len() <= MAX_NAME
        && s.chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "_.-:".contains(c));
    if ok {
        return Ok(());
    }
    Err(refuse(
        "extra-key",
        "intent extra key",
        s,
        "letters, digits, `_`, `.`, `-` and `:` only, not starting with `-`",
    ))
}

/// A typed intent extra value. Strings may hold anything but NUL: they reach `am` as one
/// quoted argument.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(tag = "type", content = "value", rename_all = "lowercase")]
pub enum ExtraValue {
    String(String),
    Int(i32),
    Long(i64),
    Float(f32),
    Bool(bool),
    Uri(String),
}

/// The three `am` arguments for one extra (`--es key value`, `--ei`, `--el`, `--ef`, `--ez`,
/// `--eu`), validated and unquoted: pass each through [`super::shell_quote`].
pub fn intent_extra_args(key: &str, value: &ExtraValue) -> Result<[String; 3], Refusal> {
    intent_extra_key(key)?;
    let (flag, text) = match value {
        ExtraValue::String(s) => {
            if s.contains('\0') {
                return Err(Refusal::new(
                    "extra-value",
                    "an extra value cannot contain NUL",
                ));
            }
            ("--es", s.clone())
        }
        ExtraValue::Int(i) => ("--ei", i.to_string()),
        ExtraValue::Long(l) => ("--el", l.to_string()),
        ExtraValue::Float(f) if f.is_finite() => ("--ef", f.to_string()),
        ExtraValue::Float(_) => {
            return Err(Refusal::new(
                "extra-value",
                "a float extra must be a finite number",
            ));
        }
        ExtraValue::Bool(b) => ("--ez", b.to_string()),
        ExtraValue::Uri(u) => {
            uri(u)?;
            ("--eu", u.clone())
        }
    };
    Ok([flag.to_string(), key.to_string(), text])
}

/// A key for `input keyevent`: a number (0–999), an Android key name with or without
/// `KEYCODE_` (any case), or a name agents use (BACKSPACE, DELETE, UP, PAGEUP, END, ESC, …).
/// An unknown name is refused with the closest Android names.
pub fn keycode(s: &str) -> Result<super::keycodes::Key, Refusal> {
    if let Some(k) = super::keycodes::lookup(s) {
        return Ok(k);
    }
    let near = super::keycodes::closest(s);
    let hint = if near.is_empty() {
        "a number or an Android key name such as `HOME`, `BACK`, `ENTER`, `DEL`, `PAGE_DOWN`"
            .to_string()
    } else {
        format!(
            "not an Android key name; the closest are {}",
            near.join(", ")
        )
    };
    Err(refuse("keycode", "key code", s, &hint))
}
