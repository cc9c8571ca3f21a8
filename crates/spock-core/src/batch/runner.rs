//! Running a task in the background. Each step goes through the pipeline (a `CallRequest` `in_run`) with
//! `Transport::Batch`, the starting client and the run id, so it meets exactly the checks the
//! tool would meet on its own: a disabled tool refuses, a destructive one asks the person
//! (per step), and each is audited as its own call linked to the run. Between steps the
//! runner publishes its position, persists the record and honours cancellation and the run's
//! time limit (both interrupt the step in flight: a wait ends, a confirmation is withdrawn);
//! when the loop is over [`verdict::decide`] says how the run ended and one audit record
//! closes it ([`RUN_END_TOOL`]). keepScreenOn
//! is a call too (`android_keep_screen_on`, through the same pipeline, audited as the run's):
//! when it cannot be made (the device is ambiguous, the switch is off, the device refuses) no
//! step runs.
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use super::runlog::{RunLog, RunState, StepLog, StepOutcome};
use super::stay_on::keep_screen_on_tool;
use super::task::{Task, new_id, now};
use super::verdict::{self, Stop};
use super::{Active, BatchError, RunOptions};
use crate::audit::scrub_binary;
use crate::mcp::Core;
use crate::mcp::ctx::Origin;
use crate::mcp::events::{ClientId, Outcome, Transport};
use crate::mcp::result::ToolOutput;
use crate::mcp::server::CallRequest;
use crate::mcp::typed_text::{hide_text, is_placeholder, kept_slots};
use crate::redact::Audience;

/// Why a step that stands for a password no longer kept does not run.
pub const LOST_PASSWORD: &str = "this step typed a password field's text, which is no longer \
     kept (the task holds only «password»): nothing was typed; edit the step's text or record \
     it again";

pub fn start(
    core: &Arc<Core>,
    task: Task,
    origin: Origin,
    opts: RunOptions,
) -> Result<String, BatchError> {
    let batch = core.batch()?;
    batch.validate(&task)?;
    let handle = tokio::runtime::Handle::try_current().map_err(|_| BatchError::NoRuntime)?;
    let run_id = new_id("run");
    let cancel = CancellationToken::new();
    let stop = Arc::new(Mutex::new(None));
    let task_id = (!task.id.starts_with(INLINE_PREFIX)).then(|| task.id.clone());
    let record = RunLog {
        run_id: run_id.clone(),
        task_id,
        task_name: task.name.clone(),
        state: RunState::Processing,
        started_at: now(),
        finished_at: None,
        total_steps: task.steps.len(),
        keep_screen_on: opts.keep_screen_on,
        client: client_label(&origin.client),
        transport: origin.transport.label().to_string(),
        time_limit_secs: time_limit(core, opts.time_limit_secs),
        stopped_reason: None,
        stopped_at_step: None,
        failed_steps: Vec::new(),
        warnings: Vec::new(),
        steps: Vec::new(),
    };
    batch.claim(Active {
        record: record.clone(),
        cancel: cancel.clone(),
        stop: stop.clone(),
    })?;
    let guard = Release {
        core: core.clone(),
        run_id: run_id.clone(),
    };
    let core = core.clone();
    let id = run_id.clone();
    handle.spawn(async move {
        let _guard = guard;
        // The time limit stops the run as a cancel does, naming itself as the cause.
        let limit = record.time_limit_secs;
        let timer = {
            let (core, run_id) = (core.clone(), id);
            tokio::spawn(async move {
                tokio::time::sleep(Duration::from_secs(limit)).await;
                if let Ok(b) = core.batch() {
                    b.stop(&run_id, Stop::TimedOut { limit_secs: limit });
                }
            })
        };
        execute(&core, task, origin, opts, record, cancel, stop).await;
        timer.abort();
    });
    Ok(run_id)
}

/// The run's limit: what it asked for, at most `batch.max_run_secs`.
pub fn time_limit(core: &Core, asked: Option<u64>) -> u64 {
    let max = core.config().batch.max_run_secs.max(1);
    asked.map_or(max, |s| s.clamp(1, max))
}

/// Inline tasks carry a generated id with this prefix, naming no stored task: their runs say
/// `taskId: null`.
pub const INLINE_PREFIX: &str = "inline_";

fn client_label(client: &Option<ClientId>) -> String {
    client
        .as_ref()
        .map(|c| format!("{}/{}", c.name, c.version))
        .unwrap_or_else(|| "unknown".into())
}

/// Frees the runner even if the run's task panics or is dropped.
struct Release {
    core: Arc<Core>,
    run_id: String,
}

impl Drop for Release {
    fn drop(&mut self) {
        if let Ok(b) = self.core.batch() {
            b.release(&self.run_id);
        }
    }
}

async fn persist(core: &Arc<Core>, record: &RunLog) {
    let c = core.clone();
    let r = record.clone();
    match tokio::task::spawn_blocking(move || c.batch()?.store().put_run(&r)).await {
        Ok(Ok(())) => {}
        Ok(Err(e)) => tracing::warn!(error = %e, "could not write the batch run record"),
        Err(e) => tracing::warn!(error = %e, "batch run record writer failed"),
    }
}

async fn execute(
    core: &Arc<Core>,
    task: Task,
    origin: Origin,
    opts: RunOptions,
    mut rec: RunLog,
    cancel: CancellationToken,
    stop: Arc<Mutex<Option<Stop>>>,
) {
    let t_run = Instant::now();
    persist(core, &rec).await;
    let step_origin = Origin {
        transport: Transport::Batch,
        client: origin.client.clone(),
        // Steps act as the client that started the run: its leases, not another's.
        session: origin.session.clone(),
    };
    let mut aborted = None;
    // Where the loop left early (None: every step ran).
    let mut stopped_at = None;
    let mut stay_on = None;
    if opts.keep_screen_on {
        match StayOn::begin(core, &step_origin, &rec.run_id).await {
            Ok(s) => stay_on = Some(s),
            Err(e) => {
                aborted = Some(format!("keepScreenOn: {e}; no step was run"));
                stopped_at = Some(0);
            }
        }
    }
    let last = task.steps.len().saturating_sub(1);
    for (i, step) in task.steps.iter().enumerate() {
        if aborted.is_some() {
            break;
        }
        if cancel.is_cancelled() {
            stopped_at = Some(i);
            break;
        }
        if let Ok(b) = core.batch() {
            b.update_live(&rec, i);
        }
        let started_at = now();
        let t0 = Instant::now();
        let args = step.run_arguments();
        // A step that would type «password» itself: the value it stands for is gone.
        let lost =
            core.registry.get(&step.tool).is_some_and(|t| t.types_text) && is_placeholder(&args);
        // A kept password goes into a password field or nowhere: every text the step's
        // private part supplies is one.
        let kept = match &step.private {
            Some(_) => kept_slots(&step.arguments, &args),
            None => Vec::new(),
        };
        let kept = if kept.contains(&true) {
            kept
        } else {
            Vec::new()
        };
        let done = if lost {
            None
        } else {
            CallRequest::new(step_origin.clone(), &step.tool, args)
                .cancel(cancel.child_token())
                .in_run(rec.run_id.clone())
                .kept_passwords(kept)
                .run(core)
                .await
        };
        let mut sr = StepLog {
            index: i,
            tool: step.tool.clone(),
            arguments: shown(core, step.arguments.clone()),
            outcome: StepOutcome::Error,
            result: None,
            error: None,
            duration_ms: t0.elapsed().as_millis() as u64,
            started_at,
            images: Vec::new(),
            call_id: None,
        };
        match done {
            None if lost => {
                sr.outcome = StepOutcome::Refused;
                sr.error = Some(LOST_PASSWORD.into());
            }
            // The task was checked at start; a tool gone since then is still a step error.
            None => sr.error = Some(format!("`{}` is not a tool", step.tool)),
            Some(d) => {
                sr.call_id = Some(d.call_id);
                if d.typed_password {
                    hide_text(&mut sr.arguments);
                }
                sr.outcome = d.outcome.into();
                match d.result {
                    Ok(out) => {
                        if let Some(why) = failed_assertion(&step.tool, &out.json) {
                            sr.outcome = StepOutcome::AssertionFailed;
                            sr.error = Some(why);
                        }
                        sr.images = save_images(core, &rec.run_id, i, &out).await;
                        sr.result = Some(shown(core, out.json));
                    }
                    Err(e) => sr.error = Some(e.message),
                }
            }
        }
        let interrupted = cancel.is_cancelled() && sr.outcome == StepOutcome::Cancelled;
        if interrupted && let Some(why) = stop_words(&stop) {
            // The pipeline says the run was stopped; the run's record says by whom or what.
            sr.error = Some(format!("interrupted: the run was {why}"));
        }
        let failed = sr.outcome != StepOutcome::Ok;
        rec.steps.push(sr);
        if let Ok(b) = core.batch() {
            b.update_live(&rec, i);
        }
        persist(core, &rec).await;
        if interrupted {
            stopped_at = Some(i);
            break;
        }
        if cancel.is_cancelled() {
            stopped_at = (i < last).then_some(i + 1);
            break;
        }
        if failed && step.stops_on_error() {
            stopped_at = (i < last).then_some(i);
            break;
        }
        if let Some(ms) = step.wait_ms.filter(|&ms| ms > 0 && i < last) {
            tokio::select! {
                _ = tokio::time::sleep(Duration::from_millis(ms)) => {}
                _ = cancel.cancelled() => {
                    stopped_at = Some(i + 1);
                    break;
                }
            }
        }
    }
    for (i, step) in task.steps.iter().enumerate().skip(rec.steps.len()) {
        rec.steps.push(StepLog {
            index: i,
            tool: step.tool.clone(),
            arguments: shown(core, step.arguments.clone()),
            outcome: StepOutcome::Skipped,
            result: None,
            error: None,
            duration_ms: 0,
            started_at: now(),
            images: Vec::new(),
            call_id: None,
        });
    }
    if let Some(s) = stay_on
        && let Err(e) = s.end(core, &step_origin, &rec.run_id).await
    {
        rec.warnings
            .push(format!("keepScreenOn: could not restore: {e}"));
    }
    let cause = stop.lock().ok().and_then(|c| c.clone());
    let v = verdict::decide(&rec.steps, cause.as_ref(), stopped_at, aborted.as_deref());
    rec.state = v.state;
    rec.stopped_reason = v.reason;
    rec.stopped_at_step = v.stopped_at_step;
    rec.failed_steps = v.failed_steps;
    rec.finished_at = Some(now());
    persist(core, &rec).await;
    audit_end(core, &rec, t_run.elapsed()).await;
    if let Ok(b) = core.batch() {
        b.update_live(&rec, rec.total_steps.saturating_sub(1));
    }
}

/// "cancelled by agent/1.0" / "stopped by its time limit of 600 s", once a cause is set.
fn stop_words(stop: &Mutex<Option<Stop>>) -> Option<String> {
    match stop.lock().ok()?.as_ref()? {
        Stop::Cancelled { by } => Some(format!("cancelled by {by}")),
        Stop::TimedOut { limit_secs } => {
            Some(format!("stopped by its time limit of {limit_secs} s"))
        }
    }
}

/// The tool name of a run's closing audit record.
pub use crate::audit::acts::RUN_END_TOOL;

/// One audit record closes each run, linked to it (`batchRun`), from the client that started
/// it: its final state as the outcome (`ok` only for `succeeded`; `error` for failed,
/// `cancelled`, `timeout`), the summary as the result and the reason as the error. The audit
/// trail then says how the run ended, not only how each step did.
async fn audit_end(core: &Arc<Core>, rec: &RunLog, took: Duration) {
    let outcome = match rec.state {
        RunState::Succeeded | RunState::Processing => Outcome::Ok,
        RunState::Failed => Outcome::Error,
        RunState::Cancelled => Outcome::Cancelled,
        RunState::TimedOut => Outcome::Timeout,
    };
    let a = crate::audit::acts::run_ended(
        &rec.run_id,
        rec.client.clone(),
        outcome,
        took.as_millis() as u64,
        serde_json::to_value(rec.summary()).ok(),
        rec.stopped_reason.clone(),
    );
    core.audit.append_answered(a).await;
}

/// Assert tools succeed as calls and report `passed: false`; in a batch that is the step
/// failing, so `stopOnError` applies to it.
fn failed_assertion(tool: &str, json: &Value) -> Option<String> {
    if !tool.starts_with("android_assert_") || json.get("passed") != Some(&Value::Bool(false)) {
        return None;
    }
    let what = json
        .get("assertion")
        .and_then(Value::as_str)
        .unwrap_or(tool);
    Some(format!("assertion failed: {what}"))
}

/// What the run history keeps: the person's view (only `everywhere` redaction rules), with
/// any inline binary replaced by its digest.
fn shown(core: &Core, mut v: Value) -> Value {
    core.redactor.redact_json(&mut v, Audience::Person);
    scrub_binary(&mut v);
    v
}

async fn save_images(core: &Arc<Core>, run_id: &str, step: usize, out: &ToolOutput) -> Vec<String> {
    let mut names = Vec::new();
    for (k, img) in out.images.iter().enumerate() {
        let ext = match img.mime {
            "image/png" => "png",
            "image/jpeg" => "jpg",
            "image/webp" => "webp",
            _ => "bin",
        };
        let name = format!("step-{:02}-{}.{ext}", step + 1, k + 1);
        let (c, id, n, data) = (
            core.clone(),
            run_id.to_string(),
            name.clone(),
            img.data.clone(),
        );
        match tokio::task::spawn_blocking(move || c.batch()?.store().put_image(&id, &n, &data))
            .await
        {
            Ok(Ok(())) => names.push(name),
            Ok(Err(e)) => tracing::warn!(error = %e, "could not save a batch step image"),
            Err(e) => tracing::warn!(error = %e, "batch image writer failed"),
        }
    }
    names
}

/// `keepScreenOn`: the device's previous `stay_on_while_plugged_in`, restored when the run
/// ends however it ends. Uses the selected (or only) device, as steps without `serial` do, and
/// restores that same device. Both changes are `android_keep_screen_on` calls through the
/// pipeline, from the run's origin, linked to the run.
struct StayOn {
    serial: String,
    previous: String,
}

impl StayOn {
    async fn call(
        core: &Arc<Core>,
        origin: &Origin,
        run_id: &str,
        args: Value,
    ) -> Result<Value, String> {
        // Not the run's token: restoring must still work after a cancel.
        let Some(done) = CallRequest::new(origin.clone(), keep_screen_on_tool(), args)
            .in_run(run_id)
            .run(core)
            .await
        else {
            return Err("keepScreenOn could not be run".into());
        };
        done.result.map(|o| o.json).map_err(|e| e.message)
    }

    async fn begin(core: &Arc<Core>, origin: &Origin, run_id: &str) -> Result<StayOn, String> {
        let out = Self::call(core, origin, run_id, json!({ "on": true })).await?;
        let text = |k: &str| out.get(k).and_then(Value::as_str).unwrap_or("").to_string();
        Ok(StayOn {
            serial: text("serial"),
            previous: text("previous"),
        })
    }

    async fn end(self, core: &Arc<Core>, origin: &Origin, run_id: &str) -> Result<(), String> {
        let args = json!({ "on": false, "serial": self.serial, "restore": self.previous });
        Self::call(core, origin, run_id, args).await.map(drop)
    }
}
