//! Own tools: typed tools a team declares in TOML (`[[tool]]` in config.toml, or files in
//! `tools.d` beside it), as JetWhale's plugins contribute theirs. This module reads and checks
//! the declarations; `mcp::own` keeps the loaded set and `mcp::tools::own` runs them.
//!
//! A declaration names the tool (with a prefix of the team's, never `android_` or `spock_`),
//! its typed parameters, the device command as a template with `{param}` placeholders, its
//! level and toolset, and how its output is read. Each parameter reaches the device shell as
//! one inert word (single-quoted, [`crate::guard::shell_quote`]) whatever its value; a
//! placeholder inside the template's own quotes is refused, as it would not be one word. The
//! template is checked by the guard when the file is loaded, and the expanded command again
//! at each call.
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::model::Level;
use crate::model::toolset::Toolset;

mod template;
pub use template::{Piece, Template};

/// The directory of own-tool files beside config.toml.
pub fn tools_dir(config_dir: &Path) -> PathBuf {
    config_dir.join("tools.d")
}

/// One `tools.d` file's name, modification time and size.
pub type Stamp = (PathBuf, Option<std::time::SystemTime>, u64);

/// What tells a change of the own tools' directory: each `.toml` file's name, time and size.
pub fn stamp(dir: &Path) -> Vec<Stamp> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<_> = entries
        .filter_map(|e| e.ok())
        .filter(|e| e.path().extension().is_some_and(|x| x == "toml"))
        .map(|e| {
            let m = e.metadata().ok();
            (
                e.path(),
                m.as_ref().and_then(|m| m.modified().ok()),
                m.map_or(0, |m| m.len()),
            )
        })
        .collect();
    out.sort();
    out
}

/// One checked declaration, ready to become a tool.
#[derive(Debug, Clone, PartialEq)]
pub struct OwnTool {
    pub name: String,
    pub title: String,
    pub description: String,
    pub level: Level,
    pub toolset: Toolset,
    pub params: BTreeMap<String, Param>,
    pub template: Template,
    pub output: Output,
    /// The parameter naming the app the tool acts on (for a device whose Interact is limited
    /// to some apps); `None`: it cannot name its app.
    pub app: Option<String>,
    pub timeout_secs: Option<u64>,
    /// Where it was declared: the file and the line of its `[[tool]]`.
    pub file: PathBuf,
    pub line: usize,
}

/// A parameter's type and constraints.
#[derive(Debug, Clone, PartialEq)]
pub struct Param {
    pub kind: ParamKind,
    pub description: Option<String>,
    /// `None`: required.
    pub default: Option<Value>,
}

#[derive(Debug, Clone)]
pub enum ParamKind {
    /// A string, with a pattern (matched whole) or a list of allowed values, or neither.
    String {
        pattern: Option<(String, regex::Regex)>,
        choices: Option<Vec<String>>,
        /// `options = true`: a value may start with `-` (the author means it as an option).
        options: bool,
    },
    Integer {
        minimum: Option<i64>,
        maximum: Option<i64>,
        /// `options = true`: a negative value (read as an option by most commands) is meant.
        options: bool,
    },
    Boolean,
}

impl PartialEq for ParamKind {
    fn eq(&self, other: &Self) -> bool {
        self.schema() == other.schema()
    }
}

/// How the command's output is read into the answer.
#[derive(Debug, Clone, PartialEq)]
pub enum Output {
    /// `{ "output": "…" }`
    Text,
    /// `{ "lines": ["…"] }`: the non-empty lines.
    Lines,
    /// The output parsed as JSON: `{ "value": … }`.
    Json,
    /// `key=value` lines (or `key: value`), each key a property named in lowerCamelCase
    /// (`Total frames rendered` is `totalFramesRendered`); declared fields typed.
    KeyValue {
        separator: String,
        fields: BTreeMap<String, FieldType>,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldType {
    String,
    Integer,
    Number,
    Boolean,
}

/// Why a file was not loaded: its path, the line, and the reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileError {
    pub file: PathBuf,
    pub line: Option<usize>,
    pub reason: String,
}

impl std::fmt::Display for FileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            Some(l) => write!(f, "{}:{l}: {}", self.file.display(), self.reason),
            None => write!(f, "{}: {}", self.file.display(), self.reason),
        }
    }
}

/// What a load found: the tools, and each file that loaded nothing with why.
#[derive(Debug, Clone, Default)]
pub struct Loaded {
    pub tools: Vec<OwnTool>,
    pub errors: Vec<FileError>,
    /// Every file read, with how many tools it gave.
    pub files: Vec<(PathBuf, usize)>,
}

/// The program the probe values run if the template runs them as code.
const PROBE: &str = "spockownprobe";
/// Values a placeholder gets to find out whether the template runs it as code: as a program,
/// as a command substitution, after a separator, on a line of its own, as a script's path.
const PROBES: &[&str] = &[
    "spockownprobe",
    "$(spockownprobe)",
    "`spockownprobe`",
    "x;spockownprobe",
    "x\nspockownprobe",
    "/data/local/tmp/spockownprobe.sh",
];
/// The script the last probe names.
const PROBE_FILES: &[(&str, &str)] = &[("/data/local/tmp/spockownprobe.sh", "spockownprobe\n")];

/// The longest value a string parameter takes.
pub const MAX_VALUE_LEN: usize = 4096;

/// Reads every declaration: `[[tool]]` in config.toml, then each `tools.d/*.toml` in name
/// order. A file with any error loads nothing (and is named with its line); the others load.
/// A name declared twice is an error of the later file.
pub fn load(config_file: &Path, builtin: &dyn Fn(&str) -> bool) -> Loaded {
    let mut files: Vec<PathBuf> = Vec::new();
    if config_file.exists() {
        files.push(config_file.to_path_buf());
    }
    let dir = tools_dir(config_file.parent().unwrap_or(Path::new(".")));
    if let Ok(entries) = std::fs::read_dir(&dir) {
        let mut found: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "toml") && p.is_file())
            .collect();
        found.sort();
        files.extend(found);
    }
    let mut out = Loaded::default();
    for file in files {
        let in_config = file == config_file;
        // config.toml is read as the settings are; a tools.d file as it is (its mode is
        // `doctor`'s to report, not this read's to change).
        let read = if in_config {
            crate::config::private::read_to_string(&file)
        } else {
            std::fs::read_to_string(&file)
        };
        let text = match read {
            Ok(t) => t,
            Err(e) => {
                out.errors.push(FileError {
                    file,
                    line: None,
                    reason: format!("cannot be read: {e}"),
                });
                continue;
            }
        };
        let taken = |name: &str| builtin(name) || out.tools.iter().any(|t| t.name == name);
        match parse_file(&text, &file, in_config, &taken) {
            Ok(tools) => {
                out.files.push((file, tools.len()));
                out.tools.extend(tools);
            }
            Err(e) => out.errors.push(e),
        }
    }
    out
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ToolsFile {
    #[serde(default)]
    tool: Vec<toml::Spanned<ToolDecl>>,
}

#[derive(Deserialize)]
struct ConfigFile {
    #[serde(default)]
    tool: Vec<toml::Spanned<ToolDecl>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ToolDecl {
    name: String,
    #[serde(default)]
    title: Option<String>,
    description: String,
    command: toml::Spanned<String>,
    level: toml::Spanned<String>,
    #[serde(default)]
    toolset: Option<toml::Spanned<String>>,
    #[serde(default)]
    output: Option<toml::Spanned<String>>,
    #[serde(default)]
    separator: Option<String>,
    #[serde(default)]
    fields: BTreeMap<String, String>,
    #[serde(default)]
    app: Option<String>,
    #[serde(default)]
    timeout_secs: Option<u64>,
    #[serde(default)]
    params: BTreeMap<String, toml::Spanned<ParamDecl>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ParamDecl {
    #[serde(rename = "type")]
    ty: String,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    pattern: Option<String>,
    #[serde(default, rename = "enum")]
    choices: Option<Vec<String>>,
    #[serde(default)]
    minimum: Option<i64>,
    #[serde(default)]
    maximum: Option<i64>,
    #[serde(default)]
    default: Option<toml::Value>,
    #[serde(default)]
    options: bool,
}

/// The 1-based line of byte `offset` in `text`.
fn line_of(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// One file's declarations, checked; `taken` says a name is a built-in's or already declared.
pub fn parse_file(
    text: &str,
    file: &Path,
    in_config: bool,
    taken: &dyn Fn(&str) -> bool,
) -> Result<Vec<OwnTool>, FileError> {
    let err = |line: Option<usize>, reason: String| FileError {
        file: file.to_path_buf(),
        line,
        reason,
    };
    let decls = if in_config {
        toml::from_str::<ConfigFile>(text).map(|f| f.tool)
    } else {
        toml::from_str::<ToolsFile>(text).map(|f| f.tool)
    }
    .map_err(|e| {
        let line = e.span().map(|s| line_of(text, s.start));
        err(line, e.message().trim().to_string())
    })?;
    let mut tools: Vec<OwnTool> = Vec::new();
    for d in decls {
        let line = line_of(text, d.span().start);
        let decl = d.into_inner();
        let name = decl.name.clone();
        let at = |line: usize, why: String| err(Some(line), format!("tool `{name}`: {why}"));
        check_name(&decl.name).map_err(|why| at(line, why))?;
        if taken(&decl.name) || tools.iter().any(|t| t.name == decl.name) {
            return Err(at(
                line,
                "the name is taken (a built-in tool or one declared before)".into(),
            ));
        }
        let mut params = BTreeMap::new();
        for (pname, p) in decl.params {
            let pline = line_of(text, p.span().start);
            let param = check_param(&pname, p.into_inner())
                .map_err(|why| at(pline, format!("parameter `{pname}`: {why}")))?;
            params.insert(pname, param);
        }
        let cline = line_of(text, decl.command.span().start);
        let template = Template::parse(decl.command.get_ref())
            .map_err(|why| at(cline, format!("command: {why}")))?;
        for p in template.placeholders() {
            if !params.contains_key(p) {
                return Err(at(cline, format!("command: `{{{p}}}` is no parameter")));
            }
        }
        for p in params.keys() {
            if !template.placeholders().any(|q| q == p) {
                return Err(at(
                    line,
                    format!("parameter `{p}` is not used in the command"),
                ));
            }
        }
        // The guard reads the command as the device will, with each placeholder a plain word.
        if let Some(r) = crate::guard::catastrophic(&template.sample()) {
            return Err(at(
                cline,
                format!("command: the guard refuses it: {}", r.why),
            ));
        }
        // A placeholder the template hands to a shell as code (`sh -c {x}`, `eval {x}`, `{x}`
        // as the program, a here-document or a `$(…)` that reads it again, a script it
        // names) is no longer one word there: its value would run as commands. The guard
        // reads the template with values built to run a probe program, and says whether it
        // would run. (A value chosen from an enum is the author's own text.)
        for (pname, p) in &params {
            let free = matches!(&p.kind, ParamKind::String { choices: None, .. });
            let runs =
                |v: &str| crate::guard::runs_as_code(&template.probe(pname, v), PROBE, PROBE_FILES);
            if free && PROBES.iter().any(|v| runs(v)) {
                return Err(at(
                    cline,
                    format!(
                        "command: `{{{pname}}}` is run as shell code there (sh -c, eval, su -c, …): \
                         a value would be commands, not one word; pass it as an argument instead"
                    ),
                ));
            }
        }
        let level_line = line_of(text, decl.level.span().start);
        let level = match decl.level.get_ref().as_str() {
            "read-only" | "read_only" => Level::ReadOnly,
            "safe" => Level::SafeAction,
            "destructive" => Level::Destructive,
            other => {
                return Err(at(
                    level_line,
                    format!("level `{other}`: one of read-only, safe, destructive"),
                ));
            }
        };
        let toolset = match &decl.toolset {
            None => Toolset::Core,
            Some(k) => match Toolset::parse(k.get_ref()) {
                Some(Toolset::Host) | None => {
                    let k = k.get_ref();
                    return Err(at(
                        line,
                        format!(
                            "toolset `{k}`: one of {}",
                            Toolset::ALL
                                .iter()
                                .filter(|t| **t != Toolset::Host)
                                .map(|t| t.key())
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                    ));
                }
                Some(t) => t,
            },
        };
        let output_line = decl
            .output
            .as_ref()
            .map_or(line, |o| line_of(text, o.span().start));
        let output = check_output(
            decl.output.as_ref().map(|o| o.get_ref().as_str()),
            decl.separator,
            &decl.fields,
        )
        .map_err(|why| at(output_line, why))?;
        if let Some(a) = &decl.app {
            match params.get(a) {
                Some(Param {
                    kind: ParamKind::String { .. },
                    ..
                }) => {}
                _ => {
                    return Err(at(
                        line,
                        format!("app = `{a}` must name a string parameter"),
                    ));
                }
            }
        }
        if decl.description.trim().is_empty() {
            return Err(at(line, "the description is empty".into()));
        }
        if decl.timeout_secs.is_some_and(|t| t == 0 || t > 600) {
            return Err(at(line, "timeout_secs must be between 1 and 600".into()));
        }
        tools.push(OwnTool {
            title: decl.title.unwrap_or_else(|| decl.name.clone()),
            name: decl.name,
            description: decl.description,
            level,
            toolset,
            params,
            template,
            output,
            app: decl.app,
            timeout_secs: decl.timeout_secs,
            file: file.to_path_buf(),
            line,
        });
    }
    Ok(tools)
}

/// A prefix of the team's and a name, lowercase: `acme_frame_stats`. Never a built-in prefix.
fn check_name(name: &str) -> Result<(), String> {
    let ok = name.len() <= 64
        && name.starts_with(|c: char| c.is_ascii_lowercase())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    let Some((prefix, rest)) = name.split_once('_').filter(|_| ok) else {
        return Err(
            "a name is a prefix of yours and a name, lowercase letters, digits and `_` \
             (`acme_frame_stats`), at most 64 characters"
                .into(),
        );
    };
    if rest.is_empty() {
        return Err("the name after the prefix is empty".into());
    }
    if ["android", "spock", "mcp"].contains(&prefix) {
        return Err(format!(
            "the prefix `{prefix}_` is the built-in tools': choose one of your own"
        ));
    }
    Ok(())
}

fn check_param(name: &str, p: ParamDecl) -> Result<Param, String> {
    let ok = name.starts_with(|c: char| c.is_ascii_lowercase())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        && name.len() <= 40;
    if !ok {
        return Err("a parameter name is lowercase letters, digits and `_`".into());
    }
    if name == "serial" {
        return Err("`serial` is every device tool's own (the device to use)".into());
    }
    let kind = match p.ty.as_str() {
        "string" => {
            if p.minimum.is_some() || p.maximum.is_some() {
                return Err("minimum and maximum are for integers".into());
            }
            let pattern = match p.pattern {
                Some(pat) => {
                    let re = regex::Regex::new(&format!("^(?:{pat})$"))
                        .map_err(|e| format!("pattern: {e}"))?;
                    Some((pat, re))
                }
                None => None,
            };
            if p.choices.as_ref().is_some_and(Vec::is_empty) {
                return Err("enum is empty".into());
            }
            ParamKind::String {
                pattern,
                choices: p.choices,
                options: p.options,
            }
        }
        "integer" => {
            if p.pattern.is_some() || p.choices.is_some() {
                return Err("pattern and enum are for strings".into());
            }
            if let (Some(a), Some(b)) = (p.minimum, p.maximum)
                && a > b
            {
                return Err("minimum is above maximum".into());
            }
            ParamKind::Integer {
                minimum: p.minimum,
                maximum: p.maximum,
                options: p.options,
            }
        }
        "boolean" => {
            if p.pattern.is_some()
                || p.choices.is_some()
                || p.minimum.is_some()
                || p.maximum.is_some()
                || p.options
            {
                return Err("a boolean takes no pattern, enum, bounds or options".into());
            }
            ParamKind::Boolean
        }
        other => return Err(format!("type `{other}`: one of string, integer, boolean")),
    };
    let default = match p.default {
        None => None,
        Some(v) => {
            let v = serde_json::to_value(&v).map_err(|e| format!("default: {e}"))?;
            kind.word(&v).map_err(|e| format!("default: {e}"))?;
            Some(v)
        }
    };
    Ok(Param {
        kind,
        description: p.description,
        default,
    })
}

fn check_output(
    kind: Option<&str>,
    separator: Option<String>,
    fields: &BTreeMap<String, String>,
) -> Result<Output, String> {
    let kind = kind.unwrap_or("text");
    if kind != "kv" && (separator.is_some() || !fields.is_empty()) {
        return Err("separator and fields are for output = \"kv\"".into());
    }
    Ok(match kind {
        "text" => Output::Text,
        "lines" => Output::Lines,
        "json" => Output::Json,
        "kv" => {
            let mut typed = BTreeMap::new();
            for (k, t) in fields {
                if key_name(k) != *k {
                    return Err(format!(
                        "field `{k}`: name it as the answer does, `{}`",
                        key_name(k)
                    ));
                }
                let t = match t.as_str() {
                    "string" => FieldType::String,
                    "integer" => FieldType::Integer,
                    "number" => FieldType::Number,
                    "boolean" => FieldType::Boolean,
                    other => {
                        return Err(format!(
                            "field `{k}`: type `{other}`: one of string, integer, number, boolean"
                        ));
                    }
                };
                typed.insert(k.clone(), t);
            }
            let separator = separator.unwrap_or_else(|| "=".into());
            if separator.is_empty() {
                return Err("the separator is empty".into());
            }
            Output::KeyValue {
                separator,
                fields: typed,
            }
        }
        other => return Err(format!("output `{other}`: one of text, lines, json, kv")),
    })
}

/// A key of `key=value` output as a property name: its words in lowerCamelCase
/// (`Total frames rendered` → `totalFramesRendered`, `mWakefulness` stays).
pub fn key_name(raw: &str) -> String {
    let mut out = String::new();
    for (i, word) in raw
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .enumerate()
    {
        let mut chars = word.chars();
        if let Some(first) = chars.next() {
            if i == 0 {
                out.extend(first.to_lowercase());
            } else {
                out.extend(first.to_uppercase());
            }
            out.push_str(chars.as_str());
        }
    }
    out
}

impl ParamKind {
    /// The parameter's JSON Schema.
    pub fn schema(&self) -> Value {
        match self {
            ParamKind::String {
                pattern, choices, ..
            } => {
                let mut s = json!({ "type": "string" });
                if let Some((p, _)) = pattern {
                    s["pattern"] = json!(format!("^(?:{p})$"));
                }
                if let Some(c) = choices {
                    s["enum"] = json!(c);
                }
                s
            }
            ParamKind::Integer {
                minimum, maximum, ..
            } => {
                let mut s = json!({ "type": "integer" });
                if let Some(m) = minimum {
                    s["minimum"] = json!(m);
                }
                if let Some(m) = maximum {
                    s["maximum"] = json!(m);
                }
                s
            }
            ParamKind::Boolean => json!({ "type": "boolean" }),
        }
    }

    /// The value as the word it becomes on the command line (before quoting), or why it is
    /// refused.
    pub fn word(&self, v: &Value) -> Result<String, String> {
        match self {
            ParamKind::String {
                pattern,
                choices,
                options,
            } => {
                let s = v.as_str().ok_or("expected a string")?;
                if s.len() > MAX_VALUE_LEN {
                    return Err(format!("longer than {MAX_VALUE_LEN} bytes"));
                }
                if s.contains('\0') {
                    return Err("contains a NUL character".into());
                }
                if let Some(c) = choices {
                    // The author's own words: an option among them is meant.
                    if !c.iter().any(|c| c == s) {
                        return Err(format!("not one of {}", c.join(", ")));
                    }
                    return Ok(s.to_string());
                }
                if let Some((p, re)) = pattern
                    && !re.is_match(s)
                {
                    return Err(format!("does not match the pattern `{p}`"));
                }
                if s.starts_with('-') && !options {
                    // Read as an option by most commands: only `options = true` lets it
                    // through (a pattern such as `[a-z.-]+` allows it by accident).
                    return Err(
                        "starts with `-` (it would be read as an option); the parameter \
                         does not say `options = true`"
                            .into(),
                    );
                }
                Ok(s.to_string())
            }
            ParamKind::Integer {
                minimum,
                maximum,
                options,
            } => {
                let n = v.as_i64().ok_or("expected an integer")?;
                if minimum.is_some_and(|m| n < m) || maximum.is_some_and(|m| n > m) {
                    return Err(format!(
                        "out of bounds ({}..{})",
                        minimum.map(|m| m.to_string()).unwrap_or_default(),
                        maximum.map(|m| m.to_string()).unwrap_or_default()
                    ));
                }
                if n < 0 && !options && minimum.is_none_or(|m| m >= 0) {
                    // `kill -9 {pid}` with -1 is every process: a negative value is an option
                    // unless the declaration's bounds or `options = true` mean it.
                    return Err(
                        "is negative (it would be read as an option); the parameter declares \
                         no negative minimum and does not say `options = true`"
                            .into(),
                    );
                }
                Ok(n.to_string())
            }
            ParamKind::Boolean => Ok(v.as_bool().ok_or("expected true or false")?.to_string()),
        }
    }
}

impl OwnTool {
    /// The input schema an agent sees: each parameter typed, required unless it has a
    /// default, and `serial` as every device tool has it.
    pub fn input_schema(&self) -> Map<String, Value> {
        let mut props = Map::new();
        let mut required = Vec::new();
        for (name, p) in &self.params {
            let mut s = p.kind.schema();
            if let Some(d) = &p.description {
                s["description"] = json!(d);
            }
            match &p.default {
                Some(d) => s["default"] = d.clone(),
                None => required.push(json!(name)),
            }
            props.insert(name.clone(), s);
        }
        props.insert(
            "serial".into(),
            json!({ "type": "string", "description": "The device (default: the selected one, else the only one attached)." }),
        );
        let mut schema = Map::new();
        schema.insert("type".into(), json!("object"));
        schema.insert("properties".into(), Value::Object(props));
        if !required.is_empty() {
            schema.insert("required".into(), Value::Array(required));
        }
        schema.insert("additionalProperties".into(), json!(false));
        schema
    }

    /// The output schema of its structured answer.
    pub fn output_schema(&self) -> Map<String, Value> {
        let props = match &self.output {
            Output::Text => json!({ "output": { "type": "string" } }),
            Output::Lines => json!({ "lines": { "type": "array", "items": { "type": "string" } } }),
            Output::Json => json!({ "value": {} }),
            Output::KeyValue { fields, .. } => {
                let mut m = Map::new();
                for (k, t) in fields {
                    let ty = match t {
                        FieldType::String => "string",
                        FieldType::Integer => "integer",
                        FieldType::Number => "number",
                        FieldType::Boolean => "boolean",
                    };
                    m.insert(k.clone(), json!({ "type": ty }));
                }
                Value::Object(m)
            }
        };
        let mut schema = Map::new();
        schema.insert("type".into(), json!("object"));
        schema.insert("properties".into(), props);
        schema
    }

    /// The command a call runs: each argument checked against its parameter and put in as one
    /// single-quoted word. `args` holds the call's parameters (without `serial`).
    pub fn expand(&self, args: &Map<String, Value>) -> Result<String, String> {
        for k in args.keys() {
            if k != "serial" && !self.params.contains_key(k) {
                return Err(format!("unknown parameter `{k}`"));
            }
        }
        let mut words = BTreeMap::new();
        for (name, p) in &self.params {
            let v = match args.get(name).filter(|v| !v.is_null()) {
                Some(v) => v,
                None => match &p.default {
                    Some(d) => d,
                    None => return Err(format!("`{name}` is required")),
                },
            };
            let w = p.kind.word(v).map_err(|e| format!("`{name}`: {e}"))?;
            words.insert(name.as_str(), w);
        }
        Ok(self.template.expand(&words))
    }

    /// The command's output read as the declaration says.
    pub fn read_output(&self, stdout: &str) -> Result<Value, String> {
        Ok(match &self.output {
            Output::Text => json!({ "output": stdout }),
            Output::Lines => json!({
                "lines": stdout.lines().map(str::trim_end).filter(|l| !l.is_empty()).collect::<Vec<_>>()
            }),
            Output::Json => {
                let v: Value = serde_json::from_str(stdout.trim())
                    .map_err(|e| format!("the output is not JSON: {e}"))?;
                json!({ "value": v })
            }
            Output::KeyValue { separator, fields } => {
                let mut m = Map::new();
                for line in stdout.lines() {
                    let Some((k, v)) = line.split_once(separator.as_str()) else {
                        continue;
                    };
                    let (k, v) = (key_name(k), v.trim());
                    if k.is_empty() {
                        continue;
                    }
                    let k = k.as_str();
                    let value = match fields.get(k) {
                        Some(FieldType::Integer) => v
                            .parse::<i64>()
                            .map(Value::from)
                            .map_err(|_| format!("`{k}` is not an integer: {v:?}"))?,
                        Some(FieldType::Number) => v
                            .parse::<f64>()
                            .ok()
                            .and_then(|f| serde_json::Number::from_f64(f).map(Value::Number))
                            .ok_or_else(|| format!("`{k}` is not a number: {v:?}"))?,
                        Some(FieldType::Boolean) => match v {
                            "true" | "1" | "yes" => Value::Bool(true),
                            "false" | "0" | "no" => Value::Bool(false),
                            _ => return Err(format!("`{k}` is not a boolean: {v:?}")),
                        },
                        _ => Value::String(v.to_string()),
                    };
                    m.insert(k.to_string(), value);
                }
                Value::Object(m)
            }
        })
    }
}

#[cfg(test)]
mod tests;
