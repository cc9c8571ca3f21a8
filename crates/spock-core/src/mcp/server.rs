//! The one call pipeline (the rmcp `ServerHandler` every transport serves, `McpServer`, is in
//! `server/handler.rs` and hands each `tools/call` here):
//! registry → `CallStarted` → access → arguments → lease → escalation → confirmation → the
//! tool → record and `CallFinished` (the order `lib.rs` lists; a call refused on the way is
//! still shown from its start).
//! The same pipeline runs for batch steps (and a run's keepScreenOn) and calls made from the
//! control centre.
use std::sync::Arc;
use std::time::Instant;

use chrono::Utc;
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use super::confirm::Ask;
use super::core::Core;
use super::events::{CallImage, ClientId, DecidedBy, Decision, Outcome, ServerEvent, Transport};
use super::lease::Session;
use super::observe::FinishedCall;
use super::registry::{Level, ToolDef};
use super::result::{ErrorKind, ToolError, ToolOutput};
use super::scrub::Scrub;
use super::typed::{TypedText, hide_text};
use crate::audit::AuditRecord;
use crate::redact::Audience;

mod device_checks;
mod handler;
use device_checks::{check_lease, leased_while_waiting, still_the_phone_shown};
pub use handler::{INSTRUCTIONS, McpServer};

/// Who is calling and how, for one call.
#[derive(Debug, Clone)]
pub struct Origin {
    pub transport: Transport,
    pub client: Option<ClientId>,
    /// The client's connection, which device leases tell holders apart by; `None` for the
    /// control centre's own calls (a person is not held back by a lease).
    pub session: Option<Session>,
}

/// What a tool's handler receives besides its arguments.
#[derive(Clone)]
pub struct Ctx {
    pub core: Arc<Core>,
    pub call_id: u64,
    pub tool: &'static str,
    pub origin: Origin,
    pub cancel: CancellationToken,
    /// The device the call resolved to, for the activity view and the audit trail.
    pub resolved_device: Arc<std::sync::Mutex<Option<String>>>,
    /// The device a destructive call was pinned to before the person was asked (see
    /// [`Ctx::pin_device`]); every device use of the call goes to exactly that connection.
    pub pinned: Option<crate::device::Device>,
    /// Set for batch steps: the run they belong to.
    pub batch_run: Option<String>,
    /// A person approved this very call (a destructive tool, or a safe one's call escalated).
    pub approved: bool,
    /// The text this call types, withheld from every view until the tool finds the field is
    /// no password field ([`Ctx::typing_into`]).
    pub typed: Arc<TypedText>,
    /// The local file this call sends, read once by its checks, so what runs after a yes is
    /// exactly what the person was shown ([`super::staged`]).
    pub staged: super::staged::Slot,
}

pub use super::typed::PASSWORD_PLACEHOLDER;

/// A finished call, as the pipeline reports it.
#[derive(Debug, Clone)]
pub struct CallOutcome {
    pub call_id: u64,
    pub outcome: Outcome,
    pub decision: Option<Decision>,
    pub result: Result<ToolOutput, ToolError>,
    /// The call's typed `text` is withheld (a password field, or one not known to be plain):
    /// records show it as «password».
    pub typed_password: bool,
    /// The call's audit record (its `seq`).
    pub record: u64,
    /// What the call's arguments hide from agents, to hide in the answer's messages too.
    pub for_agent: Scrub,
}

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
        DecidedBy::Key => "the person at the terminal denied it",
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

/// Run one tool call through every check. Never panics; every path ends in a `CallFinished`.
pub async fn call(
    core: &Arc<Core>,
    origin: Origin,
    name: &str,
    args: Value,
    cancel: CancellationToken,
) -> Option<CallOutcome> {
    call_in_run(core, origin, name, args, cancel, None).await
}

/// [`call`], linked to a batch run in the audit trail.
pub async fn call_in_run(
    core: &Arc<Core>,
    origin: Origin,
    name: &str,
    args: Value,
    cancel: CancellationToken,
    batch_run: Option<String>,
) -> Option<CallOutcome> {
    run_call(core, origin, name, args, cancel, batch_run, false).await
}

/// [`call_in_run`] for a batch step some of whose typed texts are kept passwords (its private
/// part; `kept` marks their slots, see [`super::typed`]): the tool types each into a password
/// field or refuses, so an agent that runs the task cannot have a password typed where it can
/// read it back.
pub async fn call_step_typing_kept_password(
    core: &Arc<Core>,
    origin: Origin,
    name: &str,
    args: Value,
    kept: Vec<bool>,
    cancel: CancellationToken,
    run_id: String,
) -> Option<CallOutcome> {
    let tool = core.registry.get(name)?.clone();
    let opts = Opts {
        batch_run: Some(run_id),
        by_person: false,
        kept,
    };
    Some(pipeline(core, origin, tool, args, cancel, opts).await)
}

/// A person's own action in the control centre (deleting a task, saving an edited one), as a
/// call through the same pipeline: origin `tui`, validated, audited and shown like any call.
/// The person's keypress at the control centre's own prompt is the approval, so a destructive
/// call is not asked again (its decision is on record as the key), and access switches, which
/// govern agents, do not apply.
pub async fn call_as_person(core: &Arc<Core>, name: &str, args: Value) -> Option<CallOutcome> {
    call_as_person_by(core, control_centre(), name, args).await
}

/// [`call_as_person`] naming the terminal the person acts from (an attached control centre).
pub async fn call_as_person_by(
    core: &Arc<Core>,
    who: ClientId,
    name: &str,
    args: Value,
) -> Option<CallOutcome> {
    let origin = Origin {
        transport: super::events::Transport::Tui,
        client: Some(who),
        session: None,
    };
    run_call(
        core,
        origin,
        name,
        args,
        CancellationToken::new(),
        None,
        true,
    )
    .await
}

/// [`call_as_person`] for a tool that is not in the catalogue (the control centre's own new
/// tasks).
pub async fn call_def_as_person(core: &Arc<Core>, tool: ToolDef, args: Value) -> CallOutcome {
    call_def_as_person_by(core, control_centre(), tool, args).await
}

/// [`call_def_as_person`] naming the terminal the person acts from.
pub async fn call_def_as_person_by(
    core: &Arc<Core>,
    who: ClientId,
    tool: ToolDef,
    args: Value,
) -> CallOutcome {
    let origin = Origin {
        transport: super::events::Transport::Tui,
        client: Some(who),
        session: None,
    };
    call_tool_def(
        core,
        origin,
        tool,
        args,
        CancellationToken::new(),
        None,
        true,
    )
    .await
}

/// Who acts when the person at the control centre does (a batch run started there, a task
/// deleted): named, so History and the run record do not say "unknown".
pub fn control_centre() -> ClientId {
    ClientId {
        name: "control centre".into(),
        version: env!("CARGO_PKG_VERSION").into(),
    }
}

async fn run_call(
    core: &Arc<Core>,
    origin: Origin,
    name: &str,
    args: Value,
    cancel: CancellationToken,
    batch_run: Option<String>,
    by_person: bool,
) -> Option<CallOutcome> {
    let tool = core.registry.get(name)?.clone();
    Some(call_tool_def(core, origin, tool, args, cancel, batch_run, by_person).await)
}

/// [`call_in_run`] for a tool that is not in the catalogue: work the program does on an agent's
/// behalf (a batch run's keepScreenOn), through exactly the same checks and audit.
pub async fn call_tool_def(
    core: &Arc<Core>,
    origin: Origin,
    tool: ToolDef,
    args: Value,
    cancel: CancellationToken,
    batch_run: Option<String>,
    by_person: bool,
) -> CallOutcome {
    let opts = Opts {
        batch_run,
        by_person,
        kept: Vec::new(),
    };
    pipeline(core, origin, tool, args, cancel, opts).await
}

/// How a call came to be, beyond who made it.
struct Opts {
    batch_run: Option<String>,
    by_person: bool,
    /// Which of the call's typed texts are kept passwords (see
    /// [`call_step_typing_kept_password`]); empty for none.
    kept: Vec<bool>,
}

async fn pipeline(
    core: &Arc<Core>,
    origin: Origin,
    tool: ToolDef,
    args: Value,
    cancel: CancellationToken,
    opts: Opts,
) -> CallOutcome {
    let Opts {
        batch_run,
        by_person,
        kept,
    } = opts;
    let call_id = core.next_call_id();
    let args = match args {
        Value::Null => Value::Object(Map::new()),
        other => other,
    };
    let requested = args
        .get("serial")
        .and_then(Value::as_str)
        .map(str::to_string);
    core.count_call(origin.transport, &origin.client);
    let mut shown_args = args.clone();
    core.redactor.redact_json(&mut shown_args, Audience::Person);
    // Typed text is withheld from the first event on, until the field is known to be plain.
    let typed = Arc::new(TypedText::of(tool.types_text, &shown_args).kept_passwords(kept));
    if typed.withholds() {
        hide_text(&mut shown_args);
    }
    // One time for a call wherever it is shown: when it started (live and in the audit trail).
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
    let started = Instant::now();
    let mut decision = None;
    // Which terminal answered (an attached control centre, or the serving process's own).
    let mut decider = None;
    // A destructive call's first record, once it is about to run (see `StartedRecord`).
    let mut running: Option<StartedRecord> = None;
    let resolved = Arc::new(std::sync::Mutex::new(requested.clone()));
    let mut ctx = Ctx {
        core: core.clone(),
        call_id,
        tool: tool.name,
        origin: origin.clone(),
        cancel: cancel.clone(),
        resolved_device: resolved.clone(),
        pinned: None,
        batch_run: batch_run.clone(),
        approved: false,
        typed: typed.clone(),
        staged: Default::default(),
    };
    // Who stopped it, as the audit record says: a batch step's token is its run's.
    let (stopped, stopped_waiting) = if batch_run.is_some() {
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
    };
    // A safe tool's call that would destroy data is destructive for this call.
    let mut level = tool.level;
    let mut escalated = None;
    let result = async {
        // A retry whose `requestState` was not accepted runs nothing (mcp::elicit).
        if let Some((e, d)) = super::elicit::refused(tool.name) {
            decision = d;
            return Err(e);
        }
        if !by_person {
            core.access.check(&tool)?;
        }
        tool.validate(&args)?;
        // The device is resolved before anyone is asked (an ambiguous serial, a gone selected
        // device, several devices and none named: refused here), shown to the person, and the
        // call pinned to it: what runs after the yes is that connection or nothing.
        check_lease(&ctx, &tool, requested.as_deref()).await?;
        if let Some(why) = tokio::select! {
            e = tool.escalation(&ctx, &args) => e?,
            _ = cancel.cancelled() => return Err(ToolError::new(ErrorKind::Cancelled, stopped)),
        } {
            level = Level::Destructive;
            escalated = Some(why);
        }
        // The device is resolved before anyone is asked (an ambiguous serial, a gone selected
        // device, several devices and none named: refused here), shown to the person, and the
        // call pinned to it: what runs after the yes is that connection or nothing.
        let mut pinned_id = None;
        // Who the pinned phone said it was when the person was asked (checked after the yes).
        let mut pinned_identity = None;
        let (device_name, device_model) = if level == Level::Destructive && tool.device {
            let entry = ctx.pin_device(requested.as_deref()).await?;
            pinned_id = Some(entry.id.clone());
            // Pinned may be another name than the first check saw: check the device itself.
            check_lease(&ctx, &tool, requested.as_deref()).await?;
            // Asked now, through the pinned connection: the modal names the phone that is
            // there, not one that held the address before.
            let live = match &ctx.pinned {
                Some(dev) => crate::device::identity::read_live(dev, ctx.timeout())
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
                .or_else(|| device_model(core, &entry));
            (Some(device_label(core, &entry)), model)
        } else {
            (requested.clone(), None)
        };
        if level == Level::Destructive && by_person {
            // The person said yes at the control centre's own prompt before this call began.
            decision = Some(Decision {
                approved: true,
                by: DecidedBy::Key,
            });
            ctx.approved = true;
        } else if level == Level::Destructive {
            // A serial several adb servers have is refused before anyone is asked.
            if let Some(Err(e @ crate::device::DeviceError::Ambiguous { .. })) =
                requested.as_deref().map(|s| core.devices.find_now(s))
            {
                return Err(e.into());
            }
            check_shown_in_full(core, &args)?;
            let ask = Ask {
                call_id,
                tool: tool.name,
                title: tool.title,
                level,
                client: origin.client.clone(),
                transport: origin.transport,
                via: origin
                    .session
                    .as_ref()
                    .and_then(|s| s.via().map(str::to_string)),
                verified: super::who::verified(&origin),
                device: device_name,
                device_model,
                arguments: shown_args.clone(),
                reason: ask_reason(
                    escalated.as_deref(),
                    args.get("reason").and_then(Value::as_str),
                ),
            };
            let d = tokio::select! {
                d = super::elicit::ask(core, ask, &args) => d.map_err(|e| {
                    ToolError::refused(format!("{} was not run: {e}.", tool.name))
                })?,
                e = leased_while_waiting(&ctx, &tool, pinned_identity.as_deref()) => return Err(e),
                _ = cancel.cancelled() => return Err(ToolError::new(ErrorKind::Cancelled, stopped_waiting)),
            };
            decider = d.decider;
            let d = d.decision;
            decision = Some(d);
            if !d.approved {
                return Err(denial(&tool, d));
            }
            // A yes that lands as the client leaves is a yes for nobody: nothing runs.
            if cancel.is_cancelled() {
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
                let now = ctx.resolution(requested.as_deref()).await;
                if now.as_ref().ok() != Some(shown) {
                    let now = now.unwrap_or_else(|e| format!("nothing ({})", e.message));
                    return Err(ToolError::refused(format!(
                        "{} was not run: it was approved for {shown}, but it resolves to {now} \
                         now (the selection or the attached devices changed while it waited)",
                        tool.name
                    )));
                }
            }
            // A lease taken as the yes was given: the yes does not reach past it.
            check_lease(&ctx, &tool, requested.as_deref()).await?;
            // Another phone that took the address (and adb's transport) while the person
            // decided is not the phone they approved.
            still_the_phone_shown(&ctx, &tool, pinned_identity.as_deref()).await?;
            ctx.approved = true;
        }
        // Nothing in flight is lost: a destructive call about to run has its `started` record
        // on disk (synced, and anchored by the writer) before it does anything, so a crash
        // while it runs leaves the approved call on record. Denied and refused calls never get
        // here: they never ran.
        if level == Level::Destructive {
            let mut r = call_record(&tool, level, &origin, shown_args.clone(), at);
            r.outcome = Outcome::Started;
            r.escalated = escalated.clone();
            r.device = resolved.lock().ok().and_then(|d| d.clone());
            r.decision = decision;
            r.decider = decider.clone();
            r.batch_run = batch_run.clone();
            let (rec, on_disk) = StartedRecord::written(core, r.clone()).await;
            running = Some(rec);
            // Fail closed: a call whose record cannot reach the disk does not run (a full
            // disk must not turn the record off while approved calls go on).
            if let Err(e) = on_disk {
                return Err(ToolError::new(
                    ErrorKind::Refused,
                    format!(
                        "the audit trail cannot be written ({e}): destructive calls are refused until it can"
                    ),
                ));
            }
        }
        tokio::select! {
            r = tool.run(ctx.clone(), args.clone()) => r,
            _ = cancel.cancelled() => Err(ToolError::new(ErrorKind::Cancelled, stopped)),
        }
    }
    .await;
    // Whatever hides an argument hides it in every message of the call (mcp::scrub): from
    // here on the result is the person's view of it at least (the audit trail, the control
    // centre, a batch run's log); the answer to an agent hides what agents are not shown on top.
    let mut result = result;
    let everyone = Scrub::of_call(&core.redactor, &args, &typed, Audience::Person);
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
    let for_agent = Scrub::of_call(&core.redactor, &args, &typed, Audience::Agent);
    let outcome = outcome_of(&result);
    let duration = started.elapsed();
    let device = resolved.lock().ok().and_then(|d| d.clone());
    // The person's view: only `everywhere` rules apply.
    let mut shown = match &result {
        Ok(out) => out.json.clone(),
        Err(e) => e.to_json(),
    };
    core.redactor.redact_json(&mut shown, Audience::Person);
    // Withheld text is recorded as «password» everywhere; a recording keeps the value in the
    // step's private part, and the typed-password store beside the record, so a task made
    // from either still replays it. Text shown to be plain goes back into the record.
    let typed_password = typed.withholds();
    let mut recorded_args = args.clone();
    typed.hide_withheld(&mut recorded_args);
    let private = typed.private_part(&args);
    if tool.types_text {
        shown_args = args.clone();
        core.redactor.redact_json(&mut shown_args, Audience::Person);
        typed.hide_withheld(&mut shown_args);
    }
    let mut record = call_record(&tool, level, &origin, shown_args, at);
    record.escalated = escalated;
    record.device = device.clone();
    record.outcome = outcome;
    record.duration_ms = duration.as_millis() as u64;
    record.decision = decision;
    record.decider = decider;
    record.batch_run = batch_run;
    record.started = running.as_ref().map(|r| r.seq);
    match &result {
        Ok(_) => record.result = Some(shown.clone()),
        Err(e) => record.error = Some(e.message.clone()),
    }
    let batch_run = record.batch_run.clone();
    // A destructive, denied or refused call's record is on disk before its answer goes back.
    let record = core.audit.append_answered(record).await;
    if let Some(r) = running.take() {
        r.completed();
    }
    let finished = FinishedCall {
        tool: tool.name,
        args: &recorded_args,
        private: private.as_ref(),
        transport: origin.transport,
        outcome,
        record,
        batch_run: batch_run.as_deref(),
    };
    for o in core.observers() {
        o.finished(&finished);
    }
    if let Some(private) = private.clone() {
        let (c, window) = (core.clone(), core.config().history.size);
        let _ = tokio::task::spawn_blocking(move || {
            for o in c.observers() {
                o.withheld(record, &private, window);
            }
        })
        .await;
    }
    let images = match &result {
        Ok(out) => person_images(out),
        Err(_) => Vec::new(),
    };
    core.emit(ServerEvent::CallFinished {
        call_id,
        tool: tool.name.to_string(),
        outcome,
        duration,
        decision,
        device,
        result: shown,
        images,
        record,
    });
    CallOutcome {
        call_id,
        outcome,
        decision,
        result,
        typed_password,
        record,
        for_agent,
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
        self.core.started_ended(self.seq);
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
mod image_tests {
    use super::*;
    use crate::mcp::result::Image;

    fn image(data: &[u8], whole: Option<Image>) -> Image {
        Image {
            mime: "image/png",
            data: data.to_vec(),
            width: 1,
            height: 1,
            whole: whole.map(Box::new),
        }
    }

    /// The person gets the whole copy of a blacked-out image and the agent's own otherwise; the
    /// JSON is left alone (no image inside it).
    #[test]
    fn the_person_gets_the_whole_image_beside_the_json() {
        let out = ToolOutput {
            json: serde_json::json!({"bytes": 3}),
            images: vec![
                image(b"black", Some(image(b"whole", None))),
                image(b"plain", None),
            ],
        };
        let shown = person_images(&out);
        let data: Vec<&[u8]> = shown.iter().map(|i| &*i.data).collect();
        assert_eq!(data, [&b"whole"[..], &b"plain"[..]]);
        assert!(shown.iter().all(|i| i.mime == "image/png"));
        assert_eq!(out.json, serde_json::json!({"bytes": 3}));
    }
}
