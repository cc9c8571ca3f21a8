//! The scenario TOML exactly as written, before screen references are checked. Names that
//! other entries refer to stay `Spanned`, so an unknown one can be reported at its position.
use std::collections::BTreeMap;

use serde::Deserialize;
use toml::Spanned;

use super::{AppFunctionSpec, LogcatSpec, Matcher, PinchMatcher};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawScenario {
    pub device: Option<RawDevice>,
    #[serde(default)]
    pub app: Vec<RawApp>,
    #[serde(default)]
    pub screen: Vec<RawScreen>,
    #[serde(default)]
    pub transition: Vec<RawTransition>,
    #[serde(default)]
    pub logcat: Vec<LogcatSpec>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawDevice {
    pub serial: Option<String>,
    pub model: Option<String>,
    pub manufacturer: Option<String>,
    pub device: Option<String>,
    pub sdk: Option<u32>,
    pub release: Option<String>,
    pub width: Option<u32>,
    pub height: Option<u32>,
    pub density: Option<u32>,
    pub getprop: Option<Spanned<String>>,
    pub home: Option<Spanned<String>>,
    pub transition_ms: Option<u64>,
    pub idle_timeout_ms: Option<u64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawApp {
    pub package: String,
    pub label: Option<String>,
    pub launcher: Option<String>,
    pub version_name: Option<String>,
    pub version_code: Option<u64>,
    #[serde(default)]
    pub debuggable: bool,
    #[serde(default)]
    pub system: bool,
    #[serde(default)]
    pub permissions: BTreeMap<String, bool>,
    pub first_screen: Option<Spanned<String>>,
    #[serde(default, rename = "function")]
    pub functions: Vec<AppFunctionSpec>,
    /// The app's variables and their values when its process starts.
    #[serde(default)]
    pub vars: BTreeMap<String, Spanned<toml::Value>>,
    #[serde(default, rename = "table")]
    pub tables: Vec<RawTable>,
}

/// `[[app.table]]`: a named list of rows, each with a string `id` and the same fields.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawTable {
    pub name: Spanned<String>,
    pub rows: Vec<BTreeMap<String, toml::Value>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawScreen {
    pub id: Spanned<String>,
    pub package: String,
    pub activity: String,
    #[serde(default)]
    pub fragments: Vec<String>,
    pub ui: Spanned<String>,
    pub deep_link: Option<String>,
    pub deep_link_var: Option<Spanned<String>>,
    #[serde(default)]
    pub template: bool,
    #[serde(default)]
    pub animating: bool,
    #[serde(default)]
    pub secure: bool,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawTransition {
    pub from: Spanned<String>,
    pub tap: Option<Matcher>,
    pub long_press: Option<Matcher>,
    pub swipe: Option<Matcher>,
    pub pinch: Option<PinchMatcher>,
    pub to: Option<Spanned<String>>,
    pub when: Option<Spanned<String>>,
    #[serde(default)]
    pub set: Vec<Spanned<String>>,
    #[serde(default)]
    pub logcat: Vec<Spanned<String>>,
    #[serde(default)]
    pub crash: bool,
}
