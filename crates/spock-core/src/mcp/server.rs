//! The one call pipeline (the rmcp `ServerHandler` every transport serves, `McpServer`, is in
//! `server/handler.rs` and hands each `tools/call` here as a [`CallRequest`]). Its stages, in
//! the order `lib.rs` lists: admit (registry → `CallStarted`: a call refused on the way is still
//! shown from its start) → check (access → arguments → lease → escalation) → consent (the
//! device pinned, a person asked) → record started → execute (the tool) → finish (record and
//! `CallFinished`). The same pipeline runs for batch steps (and a run's keepScreenOn) and
//! calls made from the control centre.
use std::sync::Arc;
use std::time::Instant;

use chrono::Utc;
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use super::confirm::Ask;
use super::core::Core;
use super::events::{CallImage, ClientId, DecidedBy, Decision, Outcome, ServerEvent, Transport};
use super::observe::FinishedCall;
use super::registry::{AppTarget, Level, Parsed, ToolDef};
use super::result::{ErrorKind, ToolError, ToolOutput};
use super::scrub::Scrub;
use super::typed_text::{TypedText, hide_text};
use crate::audit::AuditRecord;
use crate::redact::Audience;

mod device_checks;
mod handler;
use device_checks::{check_lease, leased_while_waiting, still_the_phone_shown};
pub use handler::{INSTRUCTIONS, McpServer};

pub use super::ctx::{CallOutcome, Ctx, Origin};
pub use super::typed_text::PASSWORD_PLACEHOLDER;

fn outcome_of(result: &Result<ToolOutput, ToolError>) -> Outcome {
    match result {
        Ok(_) => Outcome::Ok,
        Err(e) => match e.kind {
            ErrorKind::Refused | ErrorKind::Disabled => Outcome::Refused,
            ErrorKind::Denied => Outcome::Denied,
            ErrorKind::Cancelled => Outcome::Cancelled,
            ErrorKind::Timeout => Outcome::Timeout,
            _ => Outcome::Error,
        },
    }
}

fn denial(tool: &ToolDef, decision: Decision) -> ToolError {
    let why = match decision.by {
        DecidedBy::Key | DecidedBy::Attached => "the person at the terminal denied it",
        DecidedBy::Timeout => {
            "nobody answered before the confirmation timed out (the default is no)"
        }
        DecidedBy::NoResponder => {
            "nobody can approve it: no control centre is running or attached (`spock-tui` in a \
             terminal asks a person, and so does `spock-tui attach` to a running `serve`; with \
             nobody attached, `serve` denies destructive calls unless safety.wait_for_attach is on)"
        }
        DecidedBy::Dropped => "the confirmation was closed without an answer (the default is no)",
        DecidedBy::Client => {
            "it was declined through the MCP client that was asked (elicitation; the default is no)"
        }
    };
    ToolError::new(
        ErrorKind::Denied,
        format!("{} was not run: {why}.", tool.name),
    )
    .with_details(serde_json::json!({ "decision": decision }))
}

/// What the confirmation shows as the reason: why the call was escalated, then the reason
/// the agent stated (`android_run_adb_command`).
fn ask_reason(escalated: Option<&str>, stated: Option<&str>) -> Option<String> {
    match (escalated, stated) {
        (Some(e), Some(s)) => Some(format!("{e} (stated: {s})")),
        (Some(e), None) => Some(e.to_string()),
        (None, s) => s.map(str::to_string),
    }
}

/// How the person is shown a device: its full name `serial@host:port` when several adb servers
/// are combined (a bare serial could be another server's phone), else its serial.
fn device_label(core: &Core, e: &crate::device::DeviceEntry) -> String {
    if core.devices.servers().len() > 1 {
        e.id.clone()
    } else {
        e.raw_serial.clone()
    }
}

/// The device's model as the person knows it: the build's `ro.product.model` when it was read,
/// else the model word adb lists (underscores for spaces).
fn device_model(core: &Core, e: &crate::device::DeviceEntry) -> Option<String> {
    core.devices
        .facts(&e.id)
        .and_then(|f| f.props)
        .and_then(|p| p.model)
        .or_else(|| e.model.as_ref().map(|m| m.replace('_', " ")))
        .filter(|m| !m.trim().is_empty())
}

/// The most a destructive call's arguments may weigh (serialized JSON): a person reads all of
/// it before saying yes, so it must be readable.
pub const MAX_CONFIRM_ARGS: usize = 8 * 1024;

/// A destructive call is refused before anyone is asked when the person could not see all of
/// what they would approve: arguments over [`MAX_CONFIRM_ARGS`], or a value an `everywhere`
/// redaction rule would hide from the modal.
pub fn check_shown_in_full(core: &Core, args: &Value) -> Result<(), ToolError> {
    let size = serde_json::to_string(args).map(|s| s.len()).unwrap_or(0);
    if size > MAX_CONFIRM_ARGS {
        return Err(ToolError::refused(format!(
            "the arguments are {size} bytes of JSON; a destructive call's arguments may be at \
             most {MAX_CONFIRM_ARGS} bytes, so the person approving it can read all of them \
             (nobody was asked)"
        )));
    }
    let rules = core.redactor.hides_from_person(args);
    if !rules.is_empty() {
        return Err(ToolError::refused(format!(
            "the arguments contain a value the redaction rule{} {} hides from everyone, so the \
             person could not see all of what they would approve (nobody was asked); pass the \
             value another way or change the rule's scope to agent_only",
            if rules.len() == 1 { "" } else { "s" },
            rules
                .iter()
                .map(|r| format!("`{r}`"))
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    Ok(())
}

/// One tool call as its caller asks for it: the one way into the pipeline, for every caller
/// (an agent's `tools/call` on any transport, a resource template read, a batch step, a
/// person's own action in the control centre). Built with [`CallRequest::new`] or
/// [`CallRequest::person`], then what applies ([`cancel`](Self::cancel),
/// [`in_run`](Self::in_run), [`kept_passwords`](Self::kept_passwords)), and
/// [`run`](Self::run). Never panics; every path ends in a `CallFinished`.
#[derive(Debug)]
pub struct CallRequest {
    origin: Origin,
    tool: Which,
    args: Value,
    cancel: CancellationToken,
    batch_run: Option<String>,
    by_person: Option<DecidedBy>,
    kept: Vec<bool>,
}

/// The tool a request calls: the catalogue's, by name, or a declaration that is not in the
/// catalogue (work the program does on a caller's behalf: a batch run's keepScreenOn, the
/// control centre's new tasks), through exactly the same checks and audit.
#[derive(Debug)]
pub enum Which {
    Named(String),
    Def(ToolDef),
}

impl From<&str> for Which {
    fn from(name: &str) -> Which {
        Which::Named(name.to_string())
    }
}

impl From<&String> for Which {
    fn from(name: &String) -> Which {
        Which::Named(name.clone())
    }
}

impl From<ToolDef> for Which {
    fn from(tool: ToolDef) -> Which {
        Which::Def(tool)
    }
}

impl CallRequest {
    /// A call from `origin`.
    pub fn new(origin: Origin, tool: impl Into<Which>, args: Value) -> CallRequest {
        CallRequest {
            origin,
            tool: tool.into(),
            args,
            cancel: CancellationToken::new(),
            batch_run: None,
            by_person: None,
            kept: Vec::new(),
        }
    }

    /// A person's own action at the control centre `who` (deleting a task, saving an edited
    /// one), as a call through the same pipeline: origin `tui`, validated, audited and shown
    /// like any call. The person's keypress at the control centre's own prompt is the
    /// approval, so a destructive call is not asked again (its decision is on record as the
    /// key), and access switches, which govern agents, do not apply. Only this constructor
    /// makes such a request: no agent's origin can carry it.
    pub fn person(who: ClientId, tool: impl Into<Which>, args: Value) -> CallRequest {
        // The serving process's own control centre is the keyboard; any other is attached.
        let by = if who == control_centre() {
            DecidedBy::Key
        } else {
            DecidedBy::Attached
        };
        let origin = Origin {
            transport: Transport::Tui,
            client: Some(who),
            session: None,
        };
        CallRequest {
            by_person: Some(by),
            ..CallRequest::new(origin, tool, args)
        }
    }

    /// Stopped when `cancel` is (the client cancelled, or left; the batch run was stopped).
    pub fn cancel(mut self, cancel: CancellationToken) -> CallRequest {
        self.cancel = cancel;
        self
    }

    /// A step of batch run `run_id` (linked to it in the audit trail).
    pub fn in_run(mut self, run_id: impl Into<String>) -> CallRequest {
        self.batch_run = Some(run_id.into());
        self
    }

    /// A batch step some of whose typed texts are kept passwords (its private part; `kept`
    /// marks their slots, see [`super::typed_text`]): the tool types each into a password field or
    /// refuses, so an agent that runs the task cannot have a password typed where it can read
    /// it back.
    pub fn kept_passwords(mut self, kept: Vec<bool>) -> CallRequest {
        self.kept = kept;
        self
    }

    /// Run it through every check; `None` when the catalogue has no tool of that name.
    pub async fn run(self, core: &Arc<Core>) -> Option<CallOutcome> {
        let tool = match &self.tool {
            Which::Named(name) => core.tool(name)?,
            Which::Def(tool) => tool.clone(),
        };
        Some(pipeline(core, tool, self).await)
    }
}

/// Who acts when the person at the control centre does (a batch run started there, a task
/// deleted): named, so History and the run record do not say "unknown".
pub fn control_centre() -> ClientId {
    ClientId {
        name: "control centre".into(),
        version: env!("CARGO_PKG_VERSION").into(),
    }
}

/// The stages, in order: [`Call::admit`] (shown from its start), [`Call::check`] (access,
/// arguments, lease, escalation), [`Call::consent`] (the device pinned, a person asked),
/// [`Call::record_started`] (a destructive call's first record on disk), [`Call::execute`],
/// and [`Call::finish`] (hidden what must be, recorded, shown, told).
async fn pipeline(core: &Arc<Core>, tool: ToolDef, req: CallRequest) -> CallOutcome {
    let mut call = Call::admit(core, tool, req);
    let result = async {
        call.check().await?;
        call.consent().await?;
        call.record_started().await?;
        call.execute().await
    }
    .await;
    call.finish(result).await
}

/// Who stopped a call, as its audit record says, while running and while waiting for
/// approval: a batch step's token is its run's.
fn stop_words(in_run: bool) -> (&'static str, &'static str) {
    if in_run {
        (
            "cancelled: its batch run was stopped (cancelled or out of time)",
            "cancelled while waiting for approval: its batch run was stopped (cancelled or out \
             of time); the request was withdrawn",
        )
    } else {
        (
            "cancelled by the client",
            "cancelled by the client while waiting for approval",
        )
    }
}

/// One call on its way through the pipeline: what it was asked with, and what the stages
/// found so far.
struct Call {
    /// The call's id, origin, cancellation, batch run, typed text and resolved device (what
    /// the tool gets too).
    ctx: Ctx,
    tool: ToolDef,
    args: Value,
    /// How the person's own call was approved (their keypress before it began), if it is one.
    by_person: Option<DecidedBy>,
    /// The device the arguments name, if any.
    requested: Option<String>,
    /// The arguments as the person sees them (redacted, typed text withheld).
    shown_args: Value,
    /// One time for a call wherever it is shown: when it started.
    at: chrono::DateTime<Utc>,
    started: Instant,
    /// Who stopped it, as the audit record says (a batch step's token is its run's).
    stopped: &'static str,
    stopped_waiting: &'static str,
    /// A safe tool's call that would destroy data is destructive for this call.
    level: Level,
    escalated: Option<String>,
    decision: Option<Decision>,
    /// Which terminal answered (an attached control centre, or the serving process's own).
    decider: Option<String>,
    /// A destructive call's first record, once it is about to run (see `StartedRecord`).
    running: Option<StartedRecord>,
    /// The arguments parsed into the handler's type by the check stage, read by the escalation
    /// and taken by the handler: parsed once.
    parsed: Option<Parsed>,
}

impl Call {
    /// A call id, the arguments as the person sees them, and `CallStarted`: every call is shown
    /// from its start, the ones refused on the way included.
    fn admit(core: &Arc<Core>, tool: ToolDef, req: CallRequest) -> Call {
        let CallRequest {
            origin,
            args,
            cancel,
            batch_run,
            by_person,
            kept,
            ..
        } = req;
        let call_id = core.sessions.next_call_id();
        let args = match args {
            Value::Null => Value::Object(Map::new()),
            other => other,
        };
        let requested = args
            .get("serial")
            .and_then(Value::as_str)
            .map(str::to_string);
        core.sessions.count_call(origin.transport, &origin.client);
        let mut shown_args = args.clone();
        core.redactor.redact_json(&mut shown_args, Audience::Person);
        // Typed text is withheld from the first event on, until the field is known to be plain.
        let typed = Arc::new(TypedText::of(tool.types_text, &shown_args).kept_passwords(kept));
        if typed.withholds() {
            hide_text(&mut shown_args);
        }
        hide_task_texts(core, &tool, &mut shown_args);
        let at = Utc::now();
        core.emit(ServerEvent::CallStarted {
            call_id,
            at,
            tool: tool.name.to_string(),
            level: tool.level,
            transport: origin.transport,
            client: origin.client.clone(),
            device: requested.clone(),
            arguments: shown_args.clone(),
            person: origin.session.is_none(),
        });
        let (stopped, stopped_waiting) = stop_words(batch_run.is_some());
        let ctx = Ctx {
            core: core.clone(),
            call_id,
            tool: tool.name,
            origin,
            cancel,
            resolved_device: Arc::new(std::sync::Mutex::new(requested.clone())),
            pinned: None,
            batch_run,
            approved: false,
            typed,
            staged: Default::default(),
        };
        Call {
            level: tool.level,
            tool,
            args,
            by_person,
            requested,
            shown_args,
            at,
            started: Instant::now(),
            ctx,
            stopped,
            stopped_waiting,
            escalated: None,
            decision: None,
            decider: None,
            running: None,
            parsed: None,
        }
    }

    /// What is refused before anyone is asked: a retry whose `requestState` was not accepted
    /// (mcp::elicit), a tool switched off (agents only), arguments the declaration rejects, a
    /// device another client leased; and whether this call of a safe tool is destructive.
    async fn check(&mut self) -> Result<(), ToolError> {
        if let Some((e, d)) = super::elicit::refused(self.tool.name) {
            self.decision = d;
            return Err(e);
        }
        if self.by_person.is_none() {
            self.ctx.core.access.check(&self.tool)?;
        }
        let parsed = self.parsed.insert(self.tool.parse(&self.args)?);
        // What the call runs (an own tool's expanded command), shown when the person is asked
        // and kept in its record: the text the device gets, as parsed once here.
        if let (Some(run), Value::Object(shown)) =
            (self.tool.shown_run(parsed), &mut self.shown_args)
        {
            let run = self.ctx.core.redactor.redact_str(&run, Audience::Person);
            shown.insert("expandedCommand".into(), Value::String(run.into_owned()));
        }
        check_lease(&self.ctx, &self.tool, self.requested.as_deref()).await?;
        // With a device tree: the app the arguments name (a device whose Interact is limited
        // to some apps), and an action that sends the screen back, which reads the device too.
        let names_app = matches!(self.tool.app_target, AppTarget::Arg(_));
        let shows_screen = self.tool.branch == crate::mcp::registry::Branch::Interact
            && self.args.get("returnScreen").is_some_and(|v| !v.is_null());
        if (names_app || shows_screen) && self.ctx.core.access.has_device_rules() {
            let dev = self.ctx.device(self.requested.as_deref()).await?;
            if names_app {
                self.ctx
                    .may_act_on_app(&dev, self.tool.app_of(parsed).as_deref())?;
            }
            if shows_screen {
                self.ctx.may_inspect(&dev)?;
            }
        }
        if let Some(why) = tokio::select! {
            e = self.tool.escalation(&self.ctx, parsed) => e?,
            _ = self.ctx.cancel.cancelled() => {
                return Err(ToolError::new(ErrorKind::Cancelled, self.stopped));
            }
        } {
            self.level = Level::Destructive;
            self.escalated = Some(why);
        }
        Ok(())
    }

    /// A destructive call's consent. The device is resolved before anyone is asked (an
    /// ambiguous serial, a gone selected device, several devices and none named: refused
    /// here), shown to the person, and the call pinned to it: what runs after the yes is that
    /// connection or nothing. A person's own action was approved by its key; anything else
    /// asks a person (or the client, when elicitation is on) and checks again after the yes
    /// that the lease, the resolution and the phone are still the ones shown.
    async fn consent(&mut self) -> Result<(), ToolError> {
        if self.level != Level::Destructive {
            return Ok(());
        }
        let core = self.ctx.core.clone();
        let requested = self.requested.clone();
        let (mut pinned_id, mut pinned_identity) = (None, None);
        let (device_name, device_model) = if self.tool.device {
            let entry = self.ctx.pin_device(requested.as_deref()).await?;
            pinned_id = Some(entry.id.clone());
            // Pinned may be another name than the first check saw: check the device itself.
            check_lease(&self.ctx, &self.tool, requested.as_deref()).await?;
            // Asked now, through the pinned connection: the modal names the phone that is
            // there, not one that held the address before.
            let live = match &self.ctx.pinned {
                Some(dev) => crate::device::identity::read_live(dev, self.ctx.timeout())
                    .await
                    .ok(),
                None => None,
            };
            pinned_identity = live
                .as_ref()
                .and_then(|l| l.identity.clone())
                .or_else(|| core.devices.identity(&entry.id));
            let model = live
                .and_then(|l| l.model)
                .or_else(|| device_model(&core, &entry));
            (Some(device_label(&core, &entry)), model)
        } else {
            (requested.clone(), None)
        };
        if let Some(by) = self.by_person {
            // The person said yes at the control centre's own prompt before this call began.
            self.decision = Some(Decision { approved: true, by });
            self.ctx.approved = true;
            return Ok(());
        }
        // A serial several adb servers have is refused before anyone is asked.
        if let Some(Err(e @ crate::device::DeviceError::Ambiguous { .. })) =
            requested.as_deref().map(|s| core.devices.find_now(s))
        {
            return Err(e.into());
        }
        check_shown_in_full(&core, &self.args)?;
        let ask = self.ask(device_name, device_model);
        let d = tokio::select! {
            d = super::elicit::ask(&core, ask, &self.args) => d.map_err(|e| {
                ToolError::refused(format!("{} was not run: {e}.", self.tool.name))
            })?,
            e = leased_while_waiting(&self.ctx, &self.tool, pinned_identity.as_deref()) => return Err(e),
            _ = self.ctx.cancel.cancelled() => {
                return Err(ToolError::new(ErrorKind::Cancelled, self.stopped_waiting));
            }
        };
        self.decider = d.decider;
        let d = d.decision;
        self.decision = Some(d);
        if !d.approved {
            return Err(denial(&self.tool, d));
        }
        // A yes that lands as the client leaves is a yes for nobody: nothing runs.
        if self.ctx.cancel.is_cancelled() {
            return Err(ToolError::new(
                ErrorKind::Cancelled,
                "the client left while waiting for approval: nothing was run",
            ));
        }
        // A yes given on a later request (2026-07-28 rounds): the device the call resolves
        // to must still be the one the person was shown.
        if d.by == DecidedBy::Client
            && super::elicit::in_rounds()
            && let Some(shown) = &pinned_id
        {
            let now = self.ctx.resolution(requested.as_deref()).await;
            if now.as_ref().ok() != Some(shown) {
                let now = now.unwrap_or_else(|e| format!("nothing ({})", e.message));
                return Err(ToolError::refused(format!(
                    "{} was not run: it was approved for {shown}, but it resolves to {now} \
                     now (the selection or the attached devices changed while it waited)",
                    self.tool.name
                )));
            }
        }
        // A lease taken as the yes was given: the yes does not reach past it.
        check_lease(&self.ctx, &self.tool, requested.as_deref()).await?;
        // Another phone that took the address (and adb's transport) while the person
        // decided is not the phone they approved.
        still_the_phone_shown(&self.ctx, &self.tool, pinned_identity.as_deref()).await?;
        self.ctx.approved = true;
        Ok(())
    }

    /// What the person is asked: what was verified and what is claimed, the device pinned,
    /// the arguments as shown, and why.
    fn ask(&self, device: Option<String>, device_model: Option<String>) -> Ask {
        let origin = &self.ctx.origin;
        Ask {
            call_id: self.ctx.call_id,
            tool: self.tool.name,
            title: self.tool.title,
            level: self.level,
            client: origin.client.clone(),
            transport: origin.transport,
            via: origin
                .session
                .as_ref()
                .and_then(|s| s.via().map(str::to_string)),
            verified: super::who::verified(origin),
            device,
            device_model,
            arguments: self.shown_args.clone(),
            reason: ask_reason(
                self.escalated.as_deref(),
                self.args.get("reason").and_then(Value::as_str),
            ),
        }
    }

    /// Nothing in flight is lost: a destructive call about to run has its `started` record on
    /// disk (synced, and anchored by the writer) before it does anything, so a crash while it
    /// runs leaves the approved call on record. Denied and refused calls never get here: they
    /// never ran. Fail closed: a call whose record cannot reach the disk does not run (a full
    /// disk must not turn the record off while approved calls go on).
    async fn record_started(&mut self) -> Result<(), ToolError> {
        if self.level != Level::Destructive {
            return Ok(());
        }
        let mut r = call_record(
            &self.tool,
            self.level,
            &self.ctx.origin,
            self.shown_args.clone(),
            self.at,
        );
        r.outcome = Outcome::Started;
        r.escalated = self.escalated.clone();
        r.device = self.ctx.resolved_device.lock().ok().and_then(|d| d.clone());
        r.decision = self.decision;
        r.decider = self.decider.clone();
        r.batch_run = self.ctx.batch_run.clone();
        let (rec, on_disk) = StartedRecord::written(&self.ctx.core, r).await;
        self.running = Some(rec);
        on_disk.map_err(|e| {
            ToolError::new(
                ErrorKind::Refused,
                format!(
                    "the audit trail cannot be written ({e}): destructive calls are refused until it can"
                ),
            )
        })
    }

    /// The tool itself, until it ends or the call is cancelled.
    async fn execute(&mut self) -> Result<ToolOutput, ToolError> {
        let Some(args) = self.parsed.take() else {
            return Err(ToolError::internal(
                "the call ran before its arguments were checked",
            ));
        };
        tokio::select! {
            r = async {
                let _turn = self.screen_turn().await;
                self.tool.run(self.ctx.clone(), args).await
            } => r,
            _ = self.ctx.cancel.cancelled() => Err(ToolError::new(ErrorKind::Cancelled, self.stopped)),
        }
    }

    /// An agent's action on a device whose Interact is limited to some apps waits for the
    /// device's screen (mcp::claims): what its checks read of the screen is what it acts on,
    /// as far as agents' calls go (the phone itself can still change in between, as it can
    /// under any tap). A device the call cannot resolve takes no turn: the tool says why.
    async fn screen_turn(&self) -> Option<super::claims::Claim> {
        let access = &self.ctx.core.access;
        if self.by_person.is_some()
            || self.tool.branch != crate::mcp::registry::Branch::Interact
            || !access.has_device_rules()
        {
            return None;
        }
        let dev = self.ctx.device(self.requested.as_deref()).await.ok()?;
        let identity = self.ctx.core.devices.identity(dev.serial());
        if !access.limits_apps(identity.as_deref()) {
            return None;
        }
        let key = identity.unwrap_or_else(|| dev.serial().to_string());
        let claims = &self.ctx.core.sessions.claims;
        Some(claims.claim(&key, super::claims::Target::Screen).await)
    }

    /// The end of every call, whatever stopped it: what the arguments hide is hidden in the
    /// result too, the call is recorded (on disk before its answer goes back, for a
    /// destructive, denied or refused call), the observers (batch recording) and the control
    /// centre are told, and the caller gets its outcome.
    async fn finish(mut self, result: Result<ToolOutput, ToolError>) -> CallOutcome {
        let core = self.ctx.core.clone();
        // Whatever hides an argument hides it in every message of the call (mcp::scrub): from
        // here on the result is the person's view of it at least (the audit trail, the control
        // centre, a batch run's log); the answer to an agent hides what agents are not shown
        // on top.
        let mut result = result;
        let everyone = Scrub::of_call(
            &core.redactor,
            &self.args,
            &self.ctx.typed,
            Audience::Person,
        );
        match &mut result {
            Ok(out) => everyone.json(&mut out.json),
            Err(e) => {
                everyone.error(e);
                e.message = core
                    .redactor
                    .redact_str(&e.message, Audience::Person)
                    .into_owned();
                if let Some(d) = &mut e.details {
                    core.redactor.redact_json(d, Audience::Person);
                }
            }
        }
        let for_agent =
            Scrub::of_call(&core.redactor, &self.args, &self.ctx.typed, Audience::Agent);
        let outcome = outcome_of(&result);
        let duration = self.started.elapsed();
        let device = self.ctx.resolved_device.lock().ok().and_then(|d| d.clone());
        // The person's view: only `everywhere` rules apply.
        let mut shown = match &result {
            Ok(out) => out.json.clone(),
            Err(e) => e.to_json(),
        };
        core.redactor.redact_json(&mut shown, Audience::Person);
        hide_task_texts(&core, &self.tool, &mut shown);
        let record = self
            .record_finished(&result, &shown, outcome, duration, device.clone())
            .await;
        let images = match &result {
            Ok(out) => person_images(out),
            Err(_) => Vec::new(),
        };
        core.emit(ServerEvent::CallFinished {
            call_id: self.ctx.call_id,
            tool: self.tool.name.to_string(),
            outcome,
            duration,
            decision: self.decision,
            device,
            result: shown,
            images,
            record,
        });
        CallOutcome {
            call_id: self.ctx.call_id,
            outcome,
            decision: self.decision,
            result,
            typed_password: self.ctx.typed.withholds(),
            record,
            for_agent,
        }
    }

    /// The call's record, and the observers told of it. Withheld text is recorded as
    /// «password» everywhere; a recording keeps the value in the step's private part, and the
    /// typed-password store beside the record, so a task made from either still replays it.
    /// Text shown to be plain goes back into the record.
    async fn record_finished(
        &mut self,
        result: &Result<ToolOutput, ToolError>,
        shown: &Value,
        outcome: Outcome,
        duration: std::time::Duration,
        device: Option<String>,
    ) -> u64 {
        let core = self.ctx.core.clone();
        let (args, typed) = (&self.args, &self.ctx.typed);
        let mut recorded_args = args.clone();
        typed.hide_withheld(&mut recorded_args);
        let private = typed.private_part(args);
        let mut shown_args = self.shown_args.clone();
        if self.tool.types_text {
            shown_args = args.clone();
            core.redactor.redact_json(&mut shown_args, Audience::Person);
            typed.hide_withheld(&mut shown_args);
        }
        let mut record = call_record(
            &self.tool,
            self.level,
            &self.ctx.origin,
            shown_args,
            self.at,
        );
        record.escalated = self.escalated.take();
        record.device = device;
        record.outcome = outcome;
        record.duration_ms = duration.as_millis() as u64;
        record.decision = self.decision;
        record.decider = self.decider.take();
        record.batch_run = self.ctx.batch_run.clone();
        record.started = self.running.as_ref().map(|r| r.seq);
        match result {
            Ok(_) => record.result = Some(shown.clone()),
            Err(e) => record.error = Some(e.message.clone()),
        }
        // A destructive, denied or refused call's record is on disk before its answer goes back.
        let record = core.audit.append_answered(record).await;
        if let Some(r) = self.running.take() {
            r.completed();
        }
        let finished = FinishedCall {
            tool: self.tool.name,
            args: &recorded_args,
            private: private.as_ref(),
            transport: self.ctx.origin.transport,
            outcome,
            record,
            batch_run: self.ctx.batch_run.as_deref(),
        };
        for o in core.observers() {
            o.finished(&finished);
        }
        if let Some(private) = private {
            // Readable at once; written to its file off the call's path (an fsync per typed
            // text was most of what typing cost).
            let (c, window) = (core.clone(), core.config().history.size);
            for o in core.observers() {
                o.withheld_soon(record, &private, window);
            }
            drop(tokio::task::spawn_blocking(move || {
                for o in c.observers() {
                    o.withheld(record, &private, window);
                }
            }));
        }
        record
    }
}

/// A task's typing steps in what a batch tool's call shows the person (its arguments, its
/// answer): their texts are recorded by each step's own call. Only the batch tools carry tasks,
/// so no other call's answer is walked.
fn hide_task_texts(core: &Core, tool: &ToolDef, v: &mut Value) {
    if tool.toolset == crate::model::toolset::Toolset::Batch {
        super::typed_text::hide_step_texts(v, |t| core.tool(t).is_some_and(|d| d.types_text));
    }
}

/// What both of a call's records say (a destructive call's `started` record and its ending):
/// what, at which level, who asked, with which arguments, when it started.
fn call_record(
    tool: &ToolDef,
    level: Level,
    origin: &Origin,
    shown_args: Value,
    at: chrono::DateTime<Utc>,
) -> AuditRecord {
    let mut record = AuditRecord::new(tool.name, level, origin.transport, shown_args);
    record.time = at.to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
    record.client = origin
        .client
        .as_ref()
        .map(|c| format!("{}/{}", c.name, c.version))
        .unwrap_or_else(|| "unknown".into());
    record.verified = Some(super::who::verified(origin));
    record.claimed_via = origin
        .session
        .as_ref()
        .and_then(|s| s.via().map(str::to_string));
    record
}

/// A destructive call's `started` record ([`Outcome::Started`]), written and synced before the
/// call runs, while the call has no ending on record. The pipeline ends it with the call's
/// record ([`StartedRecord::completed`]); should the call's future be dropped before that (its
/// task stopped), the drop records an ending, `cancelled`, naming what is not known, so the
/// pair is never left open by a server that is still running. Meanwhile the core lists its seq
/// as running ([`Core::started_running`]): a History preloaded now leaves it out rather than
/// show a running call as interrupted.
struct StartedRecord {
    core: Arc<Core>,
    seq: u64,
    /// The started record, to make the ending from if the call is dropped; `None` once ended.
    open: Option<AuditRecord>,
}

impl StartedRecord {
    /// The record, and whether it is confirmed on disk.
    async fn written(
        core: &Arc<Core>,
        record: AuditRecord,
    ) -> (StartedRecord, Result<(), crate::audit::AuditError>) {
        let seq = core.append_started(record.clone());
        // Held across the sync: dropped there, it still ends the pair.
        let started = StartedRecord {
            core: core.clone(),
            seq,
            open: Some(record),
        };
        let on_disk = core.audit.flush().await;
        if let Err(e) = &on_disk {
            tracing::error!(seq, "a started audit record not confirmed on disk: {e}");
        }
        (started, on_disk)
    }

    /// The call's ending is on record.
    fn completed(mut self) {
        self.open = None;
    }
}

impl Drop for StartedRecord {
    fn drop(&mut self) {
        if let Some(mut r) = self.open.take() {
            r.outcome = Outcome::Cancelled;
            r.started = Some(self.seq);
            r.error = Some(
                "the call's task was stopped after its started record, before its ending: \
                 whether it took effect is not known"
                    .into(),
            );
            self.core.audit.append(r);
        }
        self.core.sessions.started_ended(self.seq);
    }
}

/// The images of a result as the control centre gets them, beside the JSON: each image's whole
/// copy where the agent's had parts blacked out, so the person sees and saves what the device
/// showed (the audit trail keeps only their size and hash, the agent the blacked-out copy).
fn person_images(out: &ToolOutput) -> Vec<CallImage> {
    out.images
        .iter()
        .map(|i| i.whole.as_deref().unwrap_or(i))
        .map(|i| CallImage {
            mime: i.mime.to_string(),
            data: i.data.as_slice().into(),
        })
        .collect()
}

#[cfg(test)]
mod tests;
