//! Scenario files: the TOML that says what a virtual device has installed, which screens each
//! app shows and how gestures move between them (format in `shared/spec/virtual-device.md`).
//!
//! Loading is strict and happens once, at start: a scenario that names a missing file, an
//! unknown screen or a malformed dump is refused with `file:line:column: what`, because a
//! virtual device that silently drops half its screens makes every test built on it lie.
//!
//! # Stateful apps (an extension of the format)
//!
//! Static screens and tap → screen transitions cannot make a cart that holds what was added.
//! An app may therefore keep state, which transitions test and change and template screens
//! show. Everything below is optional; a scenario without it behaves as before.
//!
//! ```toml
//! [[app]]
//! package = "com.example.shop"
//! vars = { product = "42", order = 1041, login_error = "" }   # integers or strings
//!
//! [[app.table]]                       # rows with a string `id` and the same fields
//! name = "products"
//! rows = [
//!   { id = "42", name = "Espresso Machine", price = 24900, qty = 0 },
//!   { id = "7", name = "Travel Mug", price = 1900, qty = 0 },
//! ]
//!
//! [[screen]]
//! id = "product"
//! template = true                     # its dump holds {…} holes and sim-* attributes
//! deep_link = "shop://product/"
//! deep_link_var = "product"           # `shop://product/7` sets `product = "7"`
//!
//! [[transition]]
//! from = "login"
//! tap = { resource_id = "sign_in" }
//! when = 'field("login_password") != "hunter2"'   # fires only if it holds; else the next one
//! set = ['login_error = "Wrong email or password"']   # no `to`: stay, screen re-rendered
//!
//! [[transition]]
//! from = "product"
//! tap = { text = "Add to cart" }
//! set = ["products[product].qty += 1"]
//! to = "product_added"
//! logcat = ["I ShopApp: added to cart: {products[product].name}"]
//! ```
//!
//! - **State** lives in the app's process: it starts from the declared values whenever the
//!   process starts (a launch after `am force-stop`, a crash, `pm clear`, a reboot) and lasts
//!   as long as the process does.
//! - **Expressions**: integers, `"strings"` or `'strings'`, variables (`order`), table fields
//!   (`products[product].price` is the row whose `id` equals `product`; a missing row's fields
//!   read as `0` / `""`), `item.field` (the row being repeated or summed, or the row a tapped
//!   node was repeated for), `field("login_email")` (what the text field with that resource id
//!   holds: a password field's real text, not the bullets the dump shows), `money(cents)`
//!   (`$1,234.50`), `sum(table, expr)` (with `item` bound to each row), `+ - *` on integers
//!   (`+` joins strings), comparisons `== != < <= > >=`, `&& || !`. Integers are true when not
//!   0, strings when not empty.
//! - **Transitions**: `when` (a condition; transitions are tried in file order and the first
//!   whose trigger matches and whose `when` holds fires), `set` (statements `target = expr`,
//!   `+=`, `-=`; targets are a variable, `table[key].field`, `item.field`, or
//!   `table[*].field` for every row; a value keeps the type it was declared with), `to` may
//!   be left out when there is a `set` (the app stays and its screens are re-rendered, keeping
//!   what the text fields hold). In a stateful app, `{expr}` in a transition's `logcat` lines
//!   is filled in after its `set` (`{{` `}}` for literal braces).
//! - **Template screens** (`template = true`): any attribute value may hold `{expr}`; a node
//!   with `sim-if="expr"` is shown only when it holds; a node with `sim-each="table"` is
//!   repeated once per row (with `sim-where="expr"` to keep only some rows, evaluated with
//!   `item` bound), each copy moved down by `sim-step` pixels (default: its own height) with
//!   its descendants, and copies that would end below their parent's bottom are left out, as
//!   a list shows what fits. `index` is renumbered among the siblings shown. The rendered dump
//!   carries no `sim-*` attribute. A screen is rendered when it is shown and again whenever
//!   its app's state changes.
//! - **Deep links**: with `deep_link_var`, `am start -d URI` on the screen's `deep_link`
//!   puts the rest of the URI (up to a `?` or `#`, without a trailing `/`) in that variable
//!   before the screen is shown, also when the screen's activity is already in front.
//! - A failed condition or statement at run time (a type error, `item` with no row) does not
//!   fire the transition and writes a `W SimScenario` line to logcat saying why.
//! - Every name is checked at load (unknown variable, table or field: refused with its
//!   position), and every template is rendered once from the initial state.
use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;
use std::path::Path;
use std::sync::Arc;

use serde::Deserialize;
use toml::Spanned;

use super::device::ui::UiTree;

pub mod expr;
mod raw;
mod stateful;
pub mod template;

use expr::{AppData, Expr, Stmt, Text};
use template::Template;

/// A scenario refused at load time.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ScenarioError {
    #[error("{file}:{line}:{column}: {message}")]
    At {
        file: String,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{file}: {message}")]
    File { file: String, message: String },
}

#[derive(Debug, Clone, PartialEq)]
/// The device's identity and screen. Defaults: a Pixel 7 on Android 14.
pub struct DeviceSpec {
    pub serial: Option<String>,
    pub model: String,
    pub manufacturer: String,
    pub device: String,
    pub sdk: u32,
    pub release: String,
    pub width: u32,
    pub height: u32,
    pub density: u32,
    /// Screen id of the home (launcher) screen; `None`: a launcher is generated from the apps.
    pub home: Option<String>,
    /// How long a change of screen animates (0: none). Until it ends, `screencap` shows the
    /// screen that was there before, and `uiautomator dump`, which waits for the app to go
    /// idle, answers only once it has ended.
    pub transition_ms: u64,
    /// How long `uiautomator dump` waits for a screen that never goes idle (an `animating`
    /// screen) before it gives up: AOSP `DumpCommand` calls `waitForIdle(1000, 10000)`.
    pub idle_timeout_ms: u64,
}

/// `uiautomator dump`'s own limit on waiting for idle (AOSP `DumpCommand`: `waitForIdle(1000,
/// 10000)`, 1 s without accessibility events within 10 s).
pub const IDLE_TIMEOUT_MS: u64 = 10_000;

impl Default for DeviceSpec {
    fn default() -> Self {
        DeviceSpec {
            serial: None,
            model: "Pixel 7".into(),
            manufacturer: "Google".into(),
            device: "panther".into(),
            sdk: 34,
            release: "14".into(),
            width: 1080,
            height: 2400,
            density: 420,
            home: None,
            transition_ms: 0,
            idle_timeout_ms: IDLE_TIMEOUT_MS,
        }
    }
}

/// An AppFunction an app exposes (`cmd app_function`); `result` is returned on execute.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AppFunctionSpec {
    pub id: String,
    #[serde(default)]
    pub description: String,
    /// Parameter name → JSON type name (`"string"`, `"integer"`, `"boolean"`).
    #[serde(default)]
    pub parameters: BTreeMap<String, String>,
    #[serde(default)]
    pub result: String,
    /// The AppFunctions schema it implements (`createNote`), its category (`notes`) and
    /// version: what `schemaName` / `schemaCategory` / `minSchemaVersion` filter on.
    #[serde(default)]
    pub schema_name: Option<String>,
    #[serde(default)]
    pub schema_category: Option<String>,
    #[serde(default)]
    pub schema_version: Option<u64>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct AppSpec {
    pub package: String,
    pub label: String,
    /// Fully qualified launcher activity, if the app has one.
    pub launcher: Option<String>,
    pub version_name: String,
    pub version_code: u64,
    pub debuggable: bool,
    pub system: bool,
    pub permissions: BTreeMap<String, bool>,
    pub first_screen: Option<String>,
    pub functions: Vec<AppFunctionSpec>,
    /// Its variables and tables as its process starts (empty: a stateless app).
    pub data: AppData,
}

#[derive(Debug, Clone)]
pub struct ScreenSpec {
    pub id: String,
    pub package: String,
    /// Fully qualified activity class.
    pub activity: String,
    pub fragments: Vec<String>,
    /// Where the dump came from (for messages).
    pub ui_file: String,
    /// The dump as shown; for a template, rendered from its app's initial state.
    pub ui: Arc<UiTree>,
    /// `template = true`: rendered from its app's state each time it is shown.
    pub template: Option<Arc<Template>>,
    /// URI prefix (`shop://product/`) that `am start -a VIEW -d` routes here.
    pub deep_link: Option<String>,
    /// The app variable that receives the rest of the URI after `deep_link`.
    pub deep_link_var: Option<String>,
    /// The screen never stays still (a video, a looping animation, a spinner): `uiautomator
    /// dump` never sees it idle and gives up with `ERROR: could not get idle state.`.
    pub animating: bool,
    /// The app forbids screenshots (`FLAG_SECURE`): `screencap` shows its window black, while
    /// `uiautomator dump` still reads it.
    pub secure: bool,
}

/// What a node matcher looks for; all given fields must match one node.
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Matcher {
    pub text: Option<String>,
    pub resource_id: Option<String>,
    pub content_desc: Option<String>,
    /// Swipes only: `up`, `down`, `left`, `right` (direction the finger moves).
    pub direction: Option<String>,
}

/// Pinch matcher: `direction = "in"|"out"`, optional.
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PinchMatcher {
    pub direction: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Trigger {
    Tap(Matcher),
    LongPress(Matcher),
    Swipe(Matcher),
    Pinch(PinchMatcher),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transition {
    pub from: String,
    pub trigger: Trigger,
    pub to: Option<String>,
    /// Lines appended to logcat when it fires (with `{expr}` filled in for a stateful app).
    pub logcat: Vec<Text>,
    pub crash: bool,
    /// It fires only when this holds.
    pub when: Option<Expr>,
    /// What it changes in the app's state before it moves.
    pub set: Vec<Stmt>,
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LogcatSpec {
    #[serde(default = "default_level")]
    pub level: String,
    pub tag: String,
    pub message: String,
}

fn default_level() -> String {
    "I".into()
}

#[derive(Debug, Clone)]
pub struct Scenario {
    pub device: DeviceSpec,
    pub apps: Vec<AppSpec>,
    pub screens: Vec<ScreenSpec>,
    pub transitions: Vec<Transition>,
    pub logcat: Vec<LogcatSpec>,
    /// Text of a real `getprop` capture to start from, if the scenario names one.
    pub getprop_base: Option<String>,
}

impl Scenario {
    /// No apps and no screens: a generated launcher on a default device.
    pub fn empty() -> Scenario {
        Scenario {
            device: DeviceSpec::default(),
            apps: Vec::new(),
            screens: Vec::new(),
            transitions: Vec::new(),
            logcat: Vec::new(),
            getprop_base: None,
        }
    }

    pub fn screen(&self, id: &str) -> Option<&ScreenSpec> {
        self.screens.iter().find(|s| s.id == id)
    }

    pub fn app(&self, package: &str) -> Option<&AppSpec> {
        self.apps.iter().find(|a| a.package == package)
    }

    /// Reads `path` and the files it names (relative to its directory).
    pub fn from_file(path: &Path) -> Result<Scenario, ScenarioError> {
        let name = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| ScenarioError::File {
            file: name.clone(),
            message: e.to_string(),
        })?;
        let base = path.parent().unwrap_or(Path::new(".")).to_path_buf();
        Scenario::parse(&text, &name, &|rel| std::fs::read(base.join(rel)))
    }

    /// Parses scenario text; `load` reads a file named in it (path as written).
    pub fn parse(
        text: &str,
        file_name: &str,
        load: &dyn Fn(&str) -> std::io::Result<Vec<u8>>,
    ) -> Result<Scenario, ScenarioError> {
        let at = |span: Range<usize>, message: String| {
            let (line, column) = line_col(text, span.start);
            ScenarioError::At {
                file: file_name.to_string(),
                line,
                column,
                message,
            }
        };
        let raw: raw::RawScenario = toml::from_str(text).map_err(|e| {
            let msg = e.message().trim_end().to_string();
            match e.span() {
                Some(span) => at(span, msg),
                None => ScenarioError::File {
                    file: file_name.to_string(),
                    message: msg,
                },
            }
        })?;
        let read_text = |s: &Spanned<String>| -> Result<String, ScenarioError> {
            let bytes = load(s.get_ref())
                .map_err(|e| at(s.span(), format!("cannot read \"{}\": {e}", s.get_ref())))?;
            String::from_utf8(bytes)
                .map_err(|_| at(s.span(), format!("\"{}\" is not UTF-8", s.get_ref())))
        };

        let d = raw.device.unwrap_or_default();
        let getprop_base = match &d.getprop {
            Some(p) => Some(read_text(p)?),
            None => None,
        };

        // Each app's state first: templates and transitions are checked against it.
        let mut data: BTreeMap<String, AppData> = BTreeMap::new();
        for a in &raw.app {
            data.insert(a.package.clone(), stateful::app_data(a, &at)?);
        }
        let no_data = AppData::default();
        let data_of = |pkg: &str| data.get(pkg).unwrap_or(&no_data);

        let mut screens = Vec::new();
        let mut ids = BTreeSet::new();
        for s in raw.screen {
            if !ids.insert(s.id.get_ref().clone()) {
                return Err(at(
                    s.id.span(),
                    format!("duplicate screen \"{}\"", s.id.get_ref()),
                ));
            }
            let xml = read_text(&s.ui)?;
            let in_file = |e: super::device::ui::UiError| ScenarioError::At {
                file: s.ui.get_ref().clone(),
                line: e.line as usize,
                column: e.column as usize,
                message: e.message,
            };
            let app = data_of(&s.package);
            let (ui, template) = if s.template {
                let (ui, t) = stateful::template(&xml, app).map_err(|e| match e {
                    stateful::TemplateError::At(e) => in_file(e),
                    stateful::TemplateError::Render(m) => ScenarioError::File {
                        file: s.ui.get_ref().clone(),
                        message: format!("does not render from the initial state: {m}"),
                    },
                })?;
                (ui, Some(t))
            } else {
                (UiTree::parse(&xml).map_err(in_file)?, None)
            };
            let deep_link_var = match &s.deep_link_var {
                Some(v) if s.deep_link.is_none() => {
                    return Err(at(v.span(), "deep_link_var needs a deep_link".into()));
                }
                Some(v) if !app.vars.contains_key(v.get_ref()) => {
                    return Err(at(v.span(), format!("unknown variable `{}`", v.get_ref())));
                }
                v => v.as_ref().map(|v| v.get_ref().clone()),
            };
            let activity = qualify(&s.package, &s.activity);
            screens.push(ScreenSpec {
                id: s.id.into_inner(),
                package: s.package,
                activity,
                fragments: s.fragments,
                ui_file: s.ui.into_inner(),
                ui: Arc::new(ui),
                template,
                deep_link: s.deep_link,
                deep_link_var,
                animating: s.animating,
                secure: s.secure,
            });
        }
        let check = |s: &Spanned<String>| -> Result<String, ScenarioError> {
            if ids.contains(s.get_ref()) {
                Ok(s.get_ref().clone())
            } else {
                Err(at(s.span(), format!("unknown screen \"{}\"", s.get_ref())))
            }
        };

        let mut apps = Vec::new();
        for a in raw.app {
            let first_screen = a.first_screen.as_ref().map(check).transpose()?;
            let label = a.label.unwrap_or_else(|| {
                a.package
                    .rsplit('.')
                    .next()
                    .unwrap_or(&a.package)
                    .to_string()
            });
            apps.push(AppSpec {
                launcher: a.launcher.as_deref().map(|l| qualify(&a.package, l)),
                data: data_of(&a.package).clone(),
                package: a.package,
                label,
                version_name: a.version_name.unwrap_or_else(|| "1.0".into()),
                version_code: a.version_code.unwrap_or(1),
                debuggable: a.debuggable,
                system: a.system,
                permissions: a.permissions,
                first_screen,
                functions: a.functions,
            });
        }

        let mut transitions = Vec::new();
        for t in raw.transition {
            let from = check(&t.from)?;
            let to = t.to.as_ref().map(check).transpose()?;
            let mut triggers = Vec::new();
            if let Some(m) = t.tap {
                triggers.push(Trigger::Tap(m));
            }
            if let Some(m) = t.long_press {
                triggers.push(Trigger::LongPress(m));
            }
            if let Some(m) = t.swipe {
                triggers.push(Trigger::Swipe(m));
            }
            if let Some(m) = t.pinch {
                triggers.push(Trigger::Pinch(m));
            }
            if triggers.len() != 1 {
                return Err(at(
                    t.from.span(),
                    "a transition needs exactly one of tap, long_press, swipe, pinch".into(),
                ));
            }
            if to.is_none() && !t.crash && t.set.is_empty() {
                return Err(at(
                    t.from.span(),
                    "a transition needs `to` unless it has `crash = true` or a `set`".into(),
                ));
            }
            // Its app is the one whose screen it starts from.
            let package = screens
                .iter()
                .find(|s| s.id == from)
                .map(|s| s.package.as_str())
                .unwrap_or_default();
            let app = data_of(package);
            let (when, set, logcat) =
                stateful::transition(t.when.as_ref(), &t.set, &t.logcat, app, &at)?;
            transitions.push(Transition {
                from,
                trigger: triggers.remove(0),
                to,
                logcat,
                crash: t.crash,
                when,
                set,
            });
        }

        let home = d.home.as_ref().map(check).transpose()?;
        let dflt = DeviceSpec::default();
        let device = DeviceSpec {
            serial: d.serial,
            model: d.model.unwrap_or(dflt.model),
            manufacturer: d.manufacturer.unwrap_or(dflt.manufacturer),
            device: d.device.unwrap_or(dflt.device),
            sdk: d.sdk.unwrap_or(dflt.sdk),
            release: d.release.unwrap_or(dflt.release),
            width: d.width.unwrap_or(dflt.width),
            height: d.height.unwrap_or(dflt.height),
            density: d.density.unwrap_or(dflt.density),
            home,
            transition_ms: d.transition_ms.unwrap_or(0).min(60_000),
            idle_timeout_ms: d.idle_timeout_ms.unwrap_or(IDLE_TIMEOUT_MS).min(60_000),
        };
        Ok(Scenario {
            device,
            apps,
            screens,
            transitions,
            logcat: raw.logcat,
            getprop_base,
        })
    }
}

/// `.LoginActivity` → `com.example.shop.LoginActivity`, as the manifest would resolve it.
pub fn qualify(package: &str, class: &str) -> String {
    if let Some(rest) = class.strip_prefix('.') {
        format!("{package}.{rest}")
    } else if class.contains('.') {
        class.to_string()
    } else {
        format!("{package}.{class}")
    }
}

fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = text.get(..offset).unwrap_or("");
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

#[cfg(test)]
mod tests;
