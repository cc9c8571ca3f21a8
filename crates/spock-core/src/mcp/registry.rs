//! Each tool declared once: name, title, level, description, input and output schema, and the
//! function that runs it. `tools/list`, the catalogue pane, the confirmation text and the
//! README table are all generated from these declarations.
use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

pub use crate::model::{HostGroup, Level};

use super::ctx::Ctx;
use super::result::{ToolError, ToolOutput};
use super::toolsets::Toolset;

pub type ToolFuture = Pin<Box<dyn Future<Output = Result<ToolOutput, ToolError>> + Send>>;
type Runner = Arc<dyn Fn(Ctx, Parsed) -> ToolFuture + Send + Sync>;
type Parser = Arc<dyn Fn(&Value) -> Result<Parsed, ToolError> + Send + Sync>;
/// Why one call of a safe tool is destructive (`Some`), or `None`; an error refuses the call.
pub type EscalationFuture = Pin<Box<dyn Future<Output = Result<Option<String>, ToolError>> + Send>>;
type Escalator = Arc<dyn Fn(Ctx, &Parsed) -> EscalationFuture + Send + Sync>;

/// A call's arguments parsed into its handler's own type, once: the declaration's checks,
/// its escalation and its handler all read this one value, so none of them can read the
/// arguments differently from the others (and the pipeline does not decode them four times).
pub struct Parsed(Box<dyn std::any::Any + Send + Sync>);

impl Parsed {
    /// The parsed arguments as the type a check of the declaration takes. A check declared
    /// with another type than the handler's is a mistake in the declaration: refused loudly.
    fn get<A: 'static>(&self, tool: &'static str) -> Result<&A, ToolError> {
        self.0.downcast_ref::<A>().ok_or_else(|| mismatch(tool))
    }

    fn take<A: 'static>(self, tool: &'static str) -> Result<A, ToolError> {
        self.0
            .downcast::<A>()
            .map(|a| *a)
            .map_err(|_| mismatch(tool))
    }
}

/// Which branch of the device tree ([`crate::model::DeviceAccess`]) a tool's calls take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Branch {
    /// Not about one device (host tools, batch tools, choosing or leasing a device).
    Host,
    /// Reads the device.
    Inspect,
    /// Acts on the device.
    Interact,
}

impl Branch {
    pub fn label(self) -> &'static str {
        match self {
            Branch::Host => "host",
            Branch::Inspect => "Inspect",
            Branch::Interact => "Interact",
        }
    }
}

/// Reads the app a call names from its parsed arguments.
pub type AppOf = Arc<dyn Fn(&Parsed) -> Option<String> + Send + Sync>;

/// How an acting tool names the app it acts on, for a device whose Interact is limited to
/// some apps.
#[derive(Clone)]
pub enum AppTarget {
    /// It cannot say (shell, raw coordinates, keys, typing without an element, pushes,
    /// installs, deep links without a package): refused while a list is set, unless allowed.
    Raw,
    /// The package of the node it acts on, read in the dump it acts on (the tool checks it).
    Node,
    /// The package its arguments name (`None`: they name none, and it counts as raw).
    Arg(AppOf),
}

impl std::fmt::Debug for AppTarget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            AppTarget::Raw => "Raw",
            AppTarget::Node => "Node",
            AppTarget::Arg(_) => "Arg",
        })
    }
}

fn mismatch(tool: &str) -> ToolError {
    ToolError::new(
        super::result::ErrorKind::Internal,
        format!("{tool}: a check of its declaration takes other arguments than its handler"),
    )
}

/// What a handler may return: any serialisable value with a schema, or a [`ToolOutput`]
/// built by hand (for image content).
pub trait ToolReturn: Send + 'static {
    fn output_schema() -> JsonObject;
    fn into_output(self) -> Result<ToolOutput, ToolError>;
}

impl<T: Serialize + JsonSchema + Send + 'static> ToolReturn for T {
    fn output_schema() -> JsonObject {
        compact_output(output_schema_of::<T>())
    }
    fn into_output(self) -> Result<ToolOutput, ToolError> {
        ToolOutput::json(&self)
    }
}

/// A result with images beside its JSON (screenshots). The schema is `T`'s.
pub struct WithImages<T> {
    pub value: T,
    pub images: Vec<super::result::Image>,
}

impl<T: Serialize + JsonSchema + Send + 'static> ToolReturn for WithImages<T> {
    fn output_schema() -> JsonObject {
        compact_output(output_schema_of::<T>())
    }
    fn into_output(self) -> Result<ToolOutput, ToolError> {
        let mut out = ToolOutput::json(&self.value)?;
        out.images = self.images;
        Ok(out)
    }
}

#[derive(Clone)]
pub struct ToolDef {
    pub name: &'static str,
    pub title: &'static str,
    pub level: Level,
    /// The toolset it is listed in (see [`crate::mcp::toolsets`]).
    pub toolset: Toolset,
    pub group: Option<HostGroup>,
    pub description: &'static str,
    /// Device-addressed: takes an optional `serial`, resolved against the selected device.
    pub device: bool,
    pub input_schema: Arc<JsonObject>,
    pub output_schema: Arc<JsonObject>,
    /// Which calls of this safe tool are destructive, in a few words for the catalogue
    /// ("`overwrite: true` onto an existing file"); `None`: its level never changes.
    pub escalates_when: Option<&'static str>,
    /// The tool types its `text` argument into a field on the device: the text is withheld
    /// from every view until the tool knows the field is no password field
    /// ([`crate::mcp::typed_text`]).
    pub types_text: bool,
    /// Which branch of the device tree its calls take (derived: a device tool that only
    /// reads is Inspect, one that acts is Interact; overridden where that is wrong).
    pub branch: Branch,
    /// How it names the app it acts on (see [`AppTarget`]).
    pub app_target: AppTarget,
    /// An acting tool whose answer also shows what is on the device (element actions find
    /// their element in a dump and say what they found; the shell prints anything; an app
    /// function returns the app's data): it needs Inspect besides Interact.
    pub reads_too: bool,
    /// What a call of it runs on the device, shown to the person beside its arguments when
    /// they are asked and kept in its record (own tools: the expanded command).
    pub shows: Option<AppOf>,
    runner: Runner,
    parser: Parser,
    escalator: Option<Escalator>,
}

impl std::fmt::Debug for ToolDef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolDef")
            .field("name", &self.name)
            .field("level", &self.level)
            .finish()
    }
}

/// The static part of a declaration; `def` adds the handler and derives both schemas.
#[derive(Debug, Clone, Copy)]
pub struct Meta {
    pub name: &'static str,
    pub title: &'static str,
    pub level: Level,
    /// Which toolset lists it: the one field that decides who sees the tool by default.
    pub toolset: Toolset,
    pub description: &'static str,
}

impl Meta {
    pub fn def<A, R, F, Fut>(self, handler: F) -> ToolDef
    where
        A: DeserializeOwned + JsonSchema + Send + Sync + 'static,
        R: ToolReturn,
        F: Fn(Ctx, A) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<R, ToolError>> + Send + 'static,
    {
        let handler = Arc::new(handler);
        let name = self.name;
        let runner: Runner = Arc::new(move |ctx: Ctx, args: Parsed| {
            let handler = handler.clone();
            Box::pin(async move {
                let args: A = args.take(name)?;
                handler(ctx, args).await?.into_output()
            })
        });
        let parser: Parser = Arc::new(|args: &Value| {
            A::deserialize(args)
                .map(|a| Parsed(Box::new(a)))
                .map_err(ToolError::invalid_args)
        });
        let input_schema = compact_input(schema_of::<A>());
        self.assemble(input_schema, R::output_schema(), runner, parser)
    }

    /// The tool, from its parts: device-addressed when its input has `serial`, its branch of
    /// the device tree from that and its level.
    fn assemble(
        self,
        input_schema: JsonObject,
        output_schema: JsonObject,
        runner: Runner,
        parser: Parser,
    ) -> ToolDef {
        let device = input_schema
            .get("properties")
            .and_then(Value::as_object)
            .is_some_and(|p| p.contains_key("serial"));
        ToolDef {
            name: self.name,
            title: self.title,
            level: self.level,
            toolset: self.toolset,
            group: None,
            description: self.description,
            device,
            input_schema: Arc::new(input_schema),
            output_schema: Arc::new(output_schema),
            escalates_when: None,
            types_text: false,
            branch: match (device, self.level) {
                (false, _) => Branch::Host,
                (true, Level::ReadOnly) => Branch::Inspect,
                (true, _) => Branch::Interact,
            },
            app_target: AppTarget::Raw,
            reads_too: false,
            shows: None,
            runner,
            parser,
            escalator: None,
        }
    }
}

impl ToolDef {
    /// A tool declared while running (own tools, `crate::own`): its schemas as given, its
    /// arguments parsed by `parse` into what `handler` takes. Names and texts are interned
    /// ([`intern`]), so reloading an unchanged declaration keeps no second copy.
    pub fn declared<A, F, Fut, P>(
        meta: Meta,
        input_schema: JsonObject,
        output_schema: JsonObject,
        parse: P,
        handler: F,
    ) -> ToolDef
    where
        A: Send + Sync + 'static,
        P: Fn(&Value) -> Result<A, ToolError> + Send + Sync + 'static,
        F: Fn(Ctx, A) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ToolOutput, ToolError>> + Send + 'static,
    {
        let handler = Arc::new(handler);
        let name = meta.name;
        let runner: Runner = Arc::new(move |ctx: Ctx, args: Parsed| {
            let handler = handler.clone();
            Box::pin(async move { handler(ctx, args.take::<A>(name)?).await })
        });
        let parser: Parser = Arc::new(move |v: &Value| parse(v).map(|a| Parsed(Box::new(a))));
        meta.assemble(input_schema, output_schema, runner, parser)
    }

    /// What a call of it runs, as [`ToolDef::shows`] says (`None` for most tools).
    pub fn shown_run(&self, args: &Parsed) -> Option<String> {
        self.shows.as_ref().and_then(|f| f(args))
    }

    /// [`ToolDef::acts_on_app`] for a closure (own tools read the app from their declaration).
    pub fn acts_on_app_with<A: 'static>(
        mut self,
        app: impl Fn(&A) -> Option<String> + Send + Sync + 'static,
    ) -> Self {
        let name = self.name;
        self.app_target = AppTarget::Arg(Arc::new(move |p: &Parsed| {
            p.get::<A>(name).ok().and_then(&app)
        }));
        self
    }

    /// Its calls show what they run ([`ToolDef::shows`]).
    pub fn showing<A: 'static>(
        mut self,
        run: impl Fn(&A) -> Option<String> + Send + Sync + 'static,
    ) -> Self {
        let name = self.name;
        self.shows = Some(Arc::new(move |p: &Parsed| {
            p.get::<A>(name).ok().and_then(&run)
        }));
        self
    }

    /// A check on the parsed arguments that runs before anyone is asked to approve the call
    /// (the catastrophic-command list, "no settings given").
    pub fn precheck<A: 'static>(mut self, check: fn(&A) -> Result<(), ToolError>) -> Self {
        let prev = self.parser.clone();
        let name = self.name;
        self.parser = Arc::new(move |v: &Value| {
            let parsed = prev(v)?;
            check(parsed.get::<A>(name)?)?;
            Ok(parsed)
        });
        self
    }

    /// "Safe" means undoable: a safe action whose call would destroy what no normal action
    /// brings back (a file it overwrites, a task it replaces, an intent that deletes) is
    /// destructive for that call. `check` looks at the call after its arguments are validated
    /// and before anyone is asked (at its arguments, and at the device or the store when it
    /// must) and says why this call is destructive, or `None`; an error refuses the call there.
    /// The pipeline then asks the person, showing that reason, exactly as for a destructive
    /// tool (headless: denied). `when` is the catalogue's one-line summary.
    pub fn escalates<A, F, Fut>(mut self, when: &'static str, check: F) -> Self
    where
        A: Clone + Send + 'static,
        F: Fn(Ctx, A) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Option<String>, ToolError>> + Send + 'static,
    {
        debug_assert_eq!(self.level, Level::SafeAction, "{} escalates", self.name);
        let check = Arc::new(check);
        self.escalates_when = Some(when);
        let name = self.name;
        self.escalator = Some(Arc::new(move |ctx: Ctx, args: &Parsed| {
            let check = check.clone();
            let args = args.get::<A>(name).cloned();
            Box::pin(async move { check(ctx, args?).await })
        }));
        self
    }

    /// [`ToolDef::escalates`] for a check that needs only the arguments.
    pub fn escalates_if<A>(mut self, when: &'static str, check: fn(&A) -> Option<String>) -> Self
    where
        A: Send + 'static,
    {
        debug_assert_eq!(self.level, Level::SafeAction, "{} escalates", self.name);
        let name = self.name;
        self.escalates_when = Some(when);
        self.escalator = Some(Arc::new(move |_ctx: Ctx, args: &Parsed| {
            let why = args.get::<A>(name).map(check);
            Box::pin(async move { why })
        }));
        self
    }

    /// A check on where the call would run, made before anyone is asked: an error refuses the
    /// call there (the demo's built-in adb server, which no restart can reach).
    pub fn refuses_before_asking(mut self, check: fn(&Ctx) -> Result<(), ToolError>) -> Self {
        self.escalator = Some(Arc::new(move |ctx: Ctx, _args: &Parsed| {
            Box::pin(async move { check(&ctx).map(|()| None) })
        }));
        self
    }

    /// Why this call is destructive although the tool is not (see [`ToolDef::escalates`]);
    /// for other tools only the refusal of [`ToolDef::refuses_before_asking`].
    pub async fn escalation(&self, ctx: &Ctx, args: &Parsed) -> Result<Option<String>, ToolError> {
        match &self.escalator {
            Some(check) if self.level == Level::SafeAction => check(ctx.clone(), args).await,
            Some(check) => check(ctx.clone(), args).await.map(|_| None),
            None => Ok(None),
        }
    }

    /// Leaves out of the output schema the properties of a shared result type this tool never
    /// sets (they cost context and say nothing; a schema without `additionalProperties: false`
    /// still accepts the result either way).
    pub fn output_without(mut self, never_set: &[&str]) -> Self {
        let mut schema = (*self.output_schema).clone();
        if let Some(Value::Object(props)) = schema.get_mut("properties") {
            for p in never_set {
                props.remove(*p);
            }
        }
        self.output_schema = Arc::new(schema);
        self
    }

    /// Its calls take `branch` of the device tree, whatever its level says.
    pub fn in_branch(mut self, branch: Branch) -> Self {
        self.branch = branch;
        self
    }

    /// It acts on a node of the dump it reads, and checks that node's app itself
    /// ([`crate::mcp::ctx::Ctx::may_act_on_app`]).
    pub fn acts_on_node(mut self) -> Self {
        self.app_target = AppTarget::Node;
        self.reads_too = true;
        self
    }

    /// Its answer shows what is on the device as well (see [`ToolDef::reads_too`]).
    pub fn reads_too(mut self) -> Self {
        self.reads_too = true;
        self
    }

    /// It acts on the app `app` finds in its arguments (`None`: they name none).
    pub fn acts_on_app<A: 'static>(mut self, app: fn(&A) -> Option<String>) -> Self {
        let name = self.name;
        self.app_target = AppTarget::Arg(Arc::new(move |p: &Parsed| {
            p.get::<A>(name).ok().and_then(app)
        }));
        self
    }

    /// The app a call of this tool acts on, as its arguments name it.
    pub fn app_of(&self, args: &Parsed) -> Option<String> {
        match &self.app_target {
            AppTarget::Arg(app) => app(args),
            _ => None,
        }
    }

    /// Declares that the tool types its `text` argument into a field (see [`Self::types_text`]).
    pub fn typing_text(mut self) -> Self {
        self.types_text = true;
        self
    }

    pub fn in_group(mut self, group: HostGroup) -> Self {
        self.group = Some(group);
        self
    }

    /// The arguments parsed into the handler's type and checked by the declaration's
    /// prechecks: what the escalation and the handler then read.
    pub fn parse(&self, args: &Value) -> Result<Parsed, ToolError> {
        (self.parser)(args)
    }

    /// Check the arguments without running (a batch step, before its run is approved).
    pub fn validate(&self, args: &Value) -> Result<(), ToolError> {
        self.parse(args).map(drop)
    }

    pub fn run(&self, ctx: Ctx, args: Parsed) -> ToolFuture {
        (self.runner)(ctx, args)
    }

    /// The MCP declaration, with annotations that agree with the level.
    pub fn to_mcp(&self) -> Tool {
        // The title is the tool's own; repeating it in the annotations only costs context, as
        // would `openWorldHint` (its default, true, is right: a tap can post to the internet).
        let mut annotations = ToolAnnotations::default();
        annotations.read_only_hint = Some(self.level == Level::ReadOnly);
        annotations.destructive_hint = Some(self.level == Level::Destructive);
        annotations.idempotent_hint = Some(self.level == Level::ReadOnly);
        let mut tool = Tool::new(self.name, self.description, self.input_schema.clone());
        tool.title = Some(self.title.to_string());
        tool.output_schema = Some(self.output_schema.clone());
        tool.annotations = Some(annotations);
        tool
    }
}

/// JSON Schema of a type, inlined (no `$ref`s), as an object schema MCP clients accept.
pub fn schema_of<T: JsonSchema>() -> JsonObject {
    let settings = schemars::generate::SchemaSettings::draft2020_12().with(|s| {
        s.inline_subschemas = true;
    });
    let schema = settings.into_generator().into_root_schema_for::<T>();
    let mut value = serde_json::to_value(schema).unwrap_or(Value::Null);
    drop_numeric_formats(&mut value);
    let mut obj = match value {
        Value::Object(o) => o,
        _ => JsonObject::new(),
    };
    obj.remove("$schema");
    obj.remove("title");
    obj.remove("$defs");
    if obj.get("type").is_none() {
        obj.insert("type".into(), Value::String("object".into()));
    }
    if obj.get("type") == Some(&Value::String("object".into())) && !obj.contains_key("properties") {
        obj.insert("properties".into(), Value::Object(JsonObject::new()));
    }
    obj
}

/// schemars marks integers with Rust-specific formats (`uint32`, `int64`, `double`…) that no JSON
/// Schema validator knows: clients warn about each, and they cost an agent's context for nothing.
fn drop_numeric_formats(v: &mut Value) {
    match v {
        Value::Object(o) => {
            let rusty = o.get("format").and_then(Value::as_str).is_some_and(|f| {
                matches!(
                    f,
                    "uint"
                        | "int"
                        | "uint8"
                        | "uint16"
                        | "uint32"
                        | "uint64"
                        | "int8"
                        | "int16"
                        | "int32"
                        | "int64"
                        | "float"
                        | "double"
                )
            });
            if rusty {
                o.remove("format");
            }
            o.values_mut().for_each(drop_numeric_formats);
        }
        Value::Array(a) => a.iter_mut().for_each(drop_numeric_formats),
        _ => {}
    }
}

/// An output schema: the type's schema with no property required, because results omit empty
/// optional fields and clients validate `structuredContent` against this.
pub fn output_schema_of<T: JsonSchema>() -> JsonObject {
    fn strip(v: &mut Value) {
        match v {
            Value::Object(o) => {
                o.remove("required");
                o.values_mut().for_each(strip);
            }
            Value::Array(a) => a.iter_mut().for_each(strip),
            _ => {}
        }
    }
    let mut v = Value::Object(schema_of::<T>());
    strip(&mut v);
    match v {
        Value::Object(o) => o,
        _ => JsonObject::new(),
    }
}

/// The whole `tools/list` is paid for in an agent's context on every session, so schemas say
/// what a caller needs and no more. Inputs keep each top-level argument's type, description,
/// enum and bounds (an optional argument is simply not required: no `null` type); a nested
/// object is described by its own doc comment rather than spelled out (the server validates
/// every field anyway, and names an unknown one). `serial` is explained once, in the server's
/// instructions, instead of in every device tool.
pub fn compact_input(mut schema: JsonObject) -> JsonObject {
    schema.remove("description");
    // Unknown arguments are refused by the server by name (`deny_unknown_fields`); saying so
    // in every schema costs each tool 27 characters for nothing a client acts on.
    schema.remove("additionalProperties");
    if let Some(Value::Object(props)) = schema.get_mut("properties") {
        for (name, p) in props.iter_mut() {
            let mut c = compact_property(p);
            match c.get("type") {
                Some(Value::Array(types)) => {
                    let non_null: Vec<Value> = types
                        .iter()
                        .filter(|t| t.as_str() != Some("null"))
                        .cloned()
                        .collect();
                    if non_null.len() == 1 {
                        c.insert("type".into(), non_null[0].clone());
                    } else {
                        // One branch per type (see [`typed`]); an enum names the strings.
                        c.remove("type");
                        let enums = c.remove("enum");
                        let alts = non_null
                            .into_iter()
                            .map(|t| {
                                let mut b = JsonObject::new();
                                if let (Some(e), Some("string")) = (&enums, t.as_str()) {
                                    b.insert("enum".into(), e.clone());
                                }
                                b.insert("type".into(), t);
                                Value::Object(b)
                            })
                            .collect();
                        c.insert("anyOf".into(), Value::Array(alts));
                    }
                }
                Some(Value::String(t)) if t == "null" => {
                    c.remove("type");
                }
                _ => {}
            }
            if name == "serial" {
                c.remove("description");
            }
            *p = Value::Object(c);
        }
    }
    schema
}

/// Outputs name and type the top-level fields a result has (an array also types its items):
/// a client can check `structuredContent` and an agent knows what comes back, without paying
/// for every nested field. A field that may be `null` says so.
pub fn compact_output(schema: JsonObject) -> JsonObject {
    let mut out = JsonObject::new();
    out.insert("type".into(), Value::String("object".into()));
    let props: JsonObject = schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|p| {
            p.iter()
                .map(|(k, v)| (k.clone(), Value::Object(output_property(v))))
                .collect()
        })
        .unwrap_or_default();
    out.insert("properties".into(), Value::Object(props));
    out
}

/// Every JSON type: what a field that may hold any value (`serde_json::Value`) is typed as.
const ANY_TYPE: [&str; 6] = ["object", "array", "string", "number", "boolean", "null"];

/// The JSON types a property schema admits (`["string", "null"]` for `Option<String>`).
fn types_of(p: &Value) -> Vec<String> {
    let Some(obj) = p.as_object() else {
        // `true`: anything.
        return ANY_TYPE.map(String::from).to_vec();
    };
    let mut types: Vec<String> = Vec::new();
    let mut add = |t: String| {
        if !types.contains(&t) {
            types.push(t);
        }
    };
    match obj.get("type") {
        Some(Value::String(t)) => add(t.clone()),
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .for_each(|t| add(t.to_string())),
        _ => {
            if let Some(alts) = obj
                .get("anyOf")
                .or_else(|| obj.get("oneOf"))
                .and_then(Value::as_array)
            {
                for a in alts {
                    types_of(a).into_iter().for_each(&mut add);
                }
            } else if let Some(c) = obj.get("const") {
                add(json_type(c).into());
            } else if let Some(e) = obj.get("enum").and_then(Value::as_array) {
                e.iter().for_each(|v| add(json_type(v).into()));
            } else if obj.contains_key("properties") || obj.contains_key("$ref") {
                // A recursive type (a UI node's children) stays a reference to a struct.
                add("object".into());
            } else {
                ANY_TYPE.iter().for_each(|t| add(t.to_string()));
            }
        }
    }
    types
}

fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// `{"type": t}` for one type, else one `anyOf` branch per type: a `type` array is legal JSON
/// Schema but not portable (clients that map schemas onto a single-type dialect reject it, and
/// the MCP Inspector warns).
fn typed(types: Vec<String>) -> JsonObject {
    let mut out = JsonObject::new();
    if types.len() == 1 {
        out.insert("type".into(), Value::String(types[0].clone()));
    } else {
        let alts = types
            .into_iter()
            .map(|t| serde_json::json!({ "type": t }))
            .collect();
        out.insert("anyOf".into(), Value::Array(alts));
    }
    out
}

/// A result never carries a top-level `null` ([`super::result::ToolOutput::json`] leaves the
/// field out), so `Option<T>` is typed as `T`.
fn output_property(p: &Value) -> JsonObject {
    let mut types = types_of(p);
    if types.len() > 1 {
        types.retain(|t| t != "null");
    }
    let is_array = types.iter().any(|t| t == "array");
    let mut out = typed(types);
    if is_array && out.contains_key("type") {
        // The items of `Vec<T>` (or `Option<Vec<T>>`, whose array alternative holds them).
        let items = p.get("items").cloned().or_else(|| {
            p.get("anyOf")
                .or_else(|| p.get("oneOf"))?
                .as_array()?
                .iter()
                .find_map(|a| a.get("items").cloned())
        });
        if let Some(items) = items {
            out.insert("items".into(), Value::Object(typed(types_of(&items))));
        }
    }
    out
}

fn compact_property(p: &Value) -> JsonObject {
    let mut out = JsonObject::new();
    let Some(obj) = p.as_object() else { return out };
    let mut enums: Vec<Value> = obj
        .get("enum")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let ty = obj.get("type").cloned().or_else(|| {
        // `Option<T>` and enums arrive as anyOf/oneOf alternatives.
        let alts = obj.get("anyOf").or_else(|| obj.get("oneOf"))?.as_array()?;
        let mut types: Vec<Value> = Vec::new();
        for a in alts {
            let t = if let Some(c) = a.get("const") {
                enums.push(c.clone());
                Some(Value::String("string".into()))
            } else if a.get("properties").is_some() {
                Some(Value::String("object".into()))
            } else {
                // An alternative may itself be an enum or a nested anyOf/oneOf.
                let sub = compact_property(a);
                if let Some(Value::Array(e)) = sub.get("enum") {
                    enums.extend(e.iter().cloned());
                }
                sub.get("type").cloned()
            };
            for t in match t {
                Some(Value::Array(ts)) => ts,
                Some(t) => vec![t],
                None => vec![],
            } {
                if !types.contains(&t) {
                    types.push(t);
                }
            }
        }
        match types.len() {
            0 => None,
            1 => types.pop(),
            _ => Some(Value::Array(types)),
        }
    });
    if let Some(t) = ty {
        out.insert("type".into(), t);
    }
    enums.retain(|e| !e.is_null());
    if !enums.is_empty() {
        out.insert("enum".into(), Value::Array(enums));
    }
    for key in ["description", "minimum", "maximum"] {
        if let Some(v) = obj.get(key) {
            out.insert(key.into(), v.clone());
        }
    }
    if let Some(items) = obj.get("items").and_then(Value::as_object) {
        let it: JsonObject = ["type", "enum"]
            .iter()
            .filter_map(|k| items.get(*k).map(|v| (k.to_string(), v.clone())))
            .collect();
        out.insert("items".into(), Value::Object(it));
    }
    out
}

/// Verbs that name an effect no normal action undoes. Escalation checks that read names an
/// agent chose (intent actions, deep-link paths, AppFunction ids) look for one of these as a
/// whole word.
pub const DESTROYING_VERBS: &[&str] = &[
    "delete",
    "remove",
    "clear",
    "wipe",
    "erase",
    "purge",
    "destroy",
    "uninstall",
    "reset",
    "format",
    "truncate",
];

/// The first word of `text` that is one of [`DESTROYING_VERBS`]. Words are split at anything
/// not a letter or digit and at lower-to-upper case changes, so `DELETE`, `UNINSTALL_PACKAGE`,
/// `deleteNote`, `NoteFunctions#removeAll` and `/notes/1/delete` all name their verb.
///
/// A URI is read as the app will read it: percent-escapes are decoded first (`%64elete` is
/// `delete` to `Uri.getPathSegments()`), a run of capitals ends before a capitalised word
/// (`ALLDelete`), and a verb with a common ending counts (`Uninstaller`, `deleted`, `removeAll`).
pub fn destroying_verb(text: &str) -> Option<&'static str> {
    let text = percent_decoded(text);
    let chars: Vec<char> = text.chars().collect();
    let mut words: Vec<String> = Vec::new();
    let mut cur = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_alphanumeric() {
            words.push(std::mem::take(&mut cur));
            continue;
        }
        let prev = i.checked_sub(1).map(|j| chars[j]);
        let next = chars.get(i + 1).copied();
        let lower_before = prev.is_some_and(|p| p.is_lowercase() || p.is_ascii_digit());
        let acronym_ends =
            prev.is_some_and(char::is_uppercase) && next.is_some_and(char::is_lowercase);
        if c.is_uppercase() && (lower_before || acronym_ends) {
            words.push(std::mem::take(&mut cur));
        }
        cur.extend(c.to_lowercase());
    }
    words.push(cur);
    const ENDINGS: &[&str] = &[
        "", "s", "es", "d", "ed", "ted", "er", "ers", "ing", "ting", "all",
    ];
    words.iter().find_map(|w| {
        DESTROYING_VERBS.iter().copied().find(|v| {
            w.strip_prefix(v)
                .is_some_and(|rest| ENDINGS.contains(&rest))
        })
    })
}

/// `%XX` escapes decoded, again while any are left (at most three rounds: `%2564` is `%64`).
fn percent_decoded(text: &str) -> String {
    let mut cur = text.to_string();
    for _ in 0..3 {
        if !cur.contains('%') {
            break;
        }
        let b = cur.as_bytes();
        let mut out = Vec::with_capacity(b.len());
        let mut i = 0;
        while i < b.len() {
            let hex = |j: usize| b.get(j).and_then(|c| (*c as char).to_digit(16));
            match (b[i], hex(i + 1), hex(i + 2)) {
                (b'%', Some(h), Some(l)) => {
                    out.push((h * 16 + l) as u8);
                    i += 3;
                }
                (c, _, _) => {
                    out.push(c);
                    i += 1;
                }
            }
        }
        let next = String::from_utf8_lossy(&out).into_owned();
        if next == cur {
            break;
        }
        cur = next;
    }
    cur
}

/// `text` as a `&'static str`, one copy per distinct text for the life of the process: the
/// names and texts of tools declared while running ([`ToolDef::declared`]).
pub fn intern(text: &str) -> &'static str {
    static SEEN: std::sync::Mutex<std::collections::BTreeSet<&'static str>> =
        std::sync::Mutex::new(std::collections::BTreeSet::new());
    let mut seen = SEEN.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(s) = seen.get(text) {
        return s;
    }
    let s: &'static str = Box::leak(text.to_string().into_boxed_str());
    seen.insert(s);
    s
}

/// Every tool, in catalogue order, looked up by name.
#[derive(Debug, Clone, Default)]
pub struct Registry {
    tools: Vec<ToolDef>,
    index: BTreeMap<&'static str, usize>,
}

impl Registry {
    pub fn new(tools: Vec<ToolDef>) -> Self {
        let mut reg = Registry::default();
        for tool in tools {
            // A duplicate name is a programming error caught by the registry test.
            reg.index.entry(tool.name).or_insert(reg.tools.len());
            reg.tools.push(tool);
        }
        reg
    }
    pub fn get(&self, name: &str) -> Option<&ToolDef> {
        self.index.get(name).map(|&i| &self.tools[i])
    }
    pub fn all(&self) -> &[ToolDef] {
        &self.tools
    }
    pub fn len(&self) -> usize {
        self.tools.len()
    }
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }
    /// The tools a toolset lists, in catalogue order.
    pub fn in_set(&self, set: Toolset) -> impl Iterator<Item = &ToolDef> {
        self.tools.iter().filter(move |t| t.toolset == set)
    }
    pub fn count(&self, level: Level) -> usize {
        self.tools.iter().filter(|t| t.level == level).count()
    }
}

#[cfg(test)]
mod tests {
    use super::destroying_verb;

    #[test]
    fn destroying_verbs_are_found_as_whole_words() {
        for (text, verb) in [
            ("android.intent.action.DELETE", "delete"),
            ("android.intent.action.UNINSTALL_PACKAGE", "uninstall"),
            ("android.intent.action.FACTORY_RESET", "reset"),
            ("deleteNote", "delete"),
            ("com.example.notes.NoteFunctions#removeAllNotes", "remove"),
            ("notes://notes/all/delete", "delete"),
            ("shop://cart?action=clear", "clear"),
            // The review's bypasses: escapes, a capital run, a verb with an ending.
            ("notes://notes/all/%64elete", "delete"),
            ("notes://notes/all/DEL%45TE", "delete"),
            ("notes://notes/all/%2564elete", "delete"),
            ("notes://notes/ALLDelete", "delete"),
            (
                "com.android.packageinstaller.UninstallerActivity",
                "uninstall",
            ),
            ("notes://notes/deleteAll", "delete"),
            ("removeall", "remove"),
        ] {
            assert_eq!(destroying_verb(text), Some(verb), "{text}");
        }
        for text in [
            "android.intent.action.VIEW",
            "shop://product/42",
            "createNote",
            "searchNotes",
            "https://example.com/undelete-guide", // one word: undelete
            "com.example.CLEARANCE_SALE",
            "shop://product/%ZZ42",
            "100%",
            "formatter",
        ] {
            assert_eq!(destroying_verb(text), None, "{text}");
        }
    }
}
