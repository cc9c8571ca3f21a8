//! The Batch screen's server side (each attach session has one): a watcher that re-reads
//! `core.batch()` (tasks, runs, the runner's position, the recording) whenever the runner's
//! status changes, a call finishes (a recording grew, an agent saved a task) or a command asks
//! for it, and sends the copy as [`ServerMsg::Batch`]; and the performer of [`BatchCmd`]s,
//! which answers with [`ServerMsg::BatchReply`]. The session sends both to its control centre. The
//! store's methods touch files, so they run on the blocking pool.
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{Notify, broadcast, mpsc, watch};

use crate::audit::AuditRecord;
use crate::batch::{BatchError, BatchStatus, RunOptions, RunState, RunnerState, StepOutcome};
use crate::mcp::ctx::Origin;
use crate::mcp::events::{ClientId, Transport};
use crate::mcp::{Core, ServerEvent};
use crate::protocol::{BatchCmd, BatchData, BatchReply, RunRow, ServerMsg};

/// Runs shown in the history; older ones stay on disk and in `android_batch_history_list`.
pub const MAX_RUNS: usize = 50;

/// Changes arriving this close together are read once.
const SETTLE: Duration = Duration::from_millis(50);

pub struct BatchLink {
    core: Arc<Core>,
    tx: mpsc::UnboundedSender<ServerMsg>,
    refresh: Arc<Notify>,
}

impl BatchLink {
    /// Start the watcher; it sends a first snapshot at once and stops when the loop is gone.
    pub fn spawn(core: &Arc<Core>, tx: &mpsc::UnboundedSender<ServerMsg>) -> BatchLink {
        let link = BatchLink {
            core: core.clone(),
            tx: tx.clone(),
            refresh: Arc::new(Notify::new()),
        };
        let (core, tx, refresh) = (core.clone(), tx.clone(), link.refresh.clone());
        // A server without batch tasks (a test's core) has nothing to watch: the screen stays
        // empty and its commands say why.
        let Ok(batch) = core.batch() else {
            return link;
        };
        let mut status = batch.subscribe_status();
        let mut events = core.subscribe();
        tokio::spawn(async move {
            let mut done = Outcomes::new();
            loop {
                let c = core.clone();
                let known = std::mem::take(&mut done);
                let Ok((data, known)) = tokio::task::spawn_blocking(move || read(&c, known)).await
                else {
                    break;
                };
                done = known;
                if tx.send(ServerMsg::Batch { data }).is_err() {
                    break;
                }
                if !changed(&mut status, &mut events, &refresh).await {
                    break;
                }
            }
        });
        link
    }

    /// Carry out `cmd` in the background; its reply and a fresh snapshot follow as events.
    /// Carry out `cmd` as the serving process's control centre (the in-process one).
    pub fn perform(&self, cmd: BatchCmd) {
        self.perform_as(cmd, control_centre());
    }

    /// `who` is the terminal the person acts from: the person's calls are audited as its.
    pub fn perform_as(&self, cmd: BatchCmd, who: ClientId) {
        let (core, tx, refresh) = (self.core.clone(), self.tx.clone(), self.refresh.clone());
        tokio::spawn(async move {
            let reply = execute(&core, cmd, &who).await;
            let _ = tx.send(ServerMsg::BatchReply { reply });
            refresh.notify_one();
        });
    }
}

/// Wait until something the Batch screen shows may have changed; false when the core is gone.
async fn changed(
    status: &mut watch::Receiver<BatchStatus>,
    events: &mut broadcast::Receiver<ServerEvent>,
    refresh: &Notify,
) -> bool {
    loop {
        tokio::select! {
            r = status.changed() => if r.is_err() { return false } else { break },
            r = events.recv() => match r {
                Ok(ServerEvent::CallFinished { .. }) | Err(broadcast::error::RecvError::Lagged(_)) => break,
                Ok(_) => continue,
                Err(broadcast::error::RecvError::Closed) => return false,
            },
            _ = refresh.notified() => break,
        }
    }
    // A run's step moves the status twice and finishes a call: read all of that once.
    tokio::time::sleep(SETTLE).await;
    status.borrow_and_update();
    while events.try_recv().is_ok() {}
    true
}

/// What a finished run's file says that its summary does not: steps ended `ok`, and why it
/// stopped early. Read once per run.
type Outcomes = HashMap<String, (usize, Option<String>)>;

/// One snapshot. `done` remembers what each finished run's file said, so it is read once.
pub fn read(core: &Core, mut done: Outcomes) -> (BatchData, Outcomes) {
    let b = match core.batch() {
        Ok(b) => b,
        Err(e) => {
            let data = BatchData {
                error: Some(e.to_string()),
                ..BatchData::default()
            };
            return (data, done);
        }
    };
    let mut errors = Vec::new();
    let tasks = b.list().unwrap_or_else(|e| {
        errors.push(e.to_string());
        Vec::new()
    });
    let summaries = b.history().unwrap_or_else(|e| {
        errors.push(e.to_string());
        Vec::new()
    });
    let status = b.status();
    let mut live_tool = None;
    let mut kept = HashMap::new();
    let runs: Vec<RunRow> = summaries
        .into_iter()
        .take(MAX_RUNS)
        .map(|summary| {
            let finished = summary.state != RunState::Processing;
            let (ok, stopped) = match done.remove(&summary.run_id) {
                Some(known) if finished => known,
                _ => match b.history_get(&summary.run_id) {
                    Ok(rec) => {
                        if status.current_run_id.as_deref() == Some(rec.run_id.as_str()) {
                            live_tool = rec.steps.last().map(|s| s.tool.clone());
                        }
                        let ok = rec
                            .steps
                            .iter()
                            .filter(|s| s.outcome == StepOutcome::Ok)
                            .count();
                        (ok, rec.stopped_reason)
                    }
                    Err(_) => (0, None),
                },
            };
            if finished {
                kept.insert(summary.run_id.clone(), (ok, stopped.clone()));
            }
            RunRow {
                summary,
                ok,
                stopped,
            }
        })
        .collect();
    // The step running now is the task's step at the runner's index; an inline run names no
    // stored task, so the last step it finished is the best there is.
    let current_tool = (status.state == RunnerState::Running)
        .then(|| {
            status
                .current_task_id
                .as_deref()
                .and_then(|id| tasks.iter().find(|t| t.id == id))
                .and_then(|t| t.steps.get(status.current_step_index))
                .map(|s| s.tool.clone())
                .or(live_tool)
        })
        .flatten();
    let data = BatchData {
        tasks,
        runs,
        status,
        current_tool,
        recording: b.recording(),
        error: (!errors.is_empty()).then(|| errors.join("; ")),
    };
    (data, kept)
}

use crate::mcp::server::CallRequest;
pub use crate::mcp::server::control_centre;

/// A person's action as a call through the pipeline ([`CallRequest::person`]):
/// its result, or its error as one sentence.
async fn as_person(
    core: &Arc<Core>,
    who: &ClientId,
    tool: &str,
    args: serde_json::Value,
) -> Result<serde_json::Value, String> {
    match CallRequest::person(who.clone(), tool, args).run(core).await {
        Some(done) => done.result.map(|out| out.json).map_err(|e| e.message),
        None => Err(format!("{tool} is not in the catalogue")),
    }
}

/// A new task the person made (a recording, History's marked calls), stored through the
/// pipeline as the person's call: audited like any save.
async fn store_as_person(
    core: &Arc<Core>,
    who: &ClientId,
    task: crate::batch::Task,
) -> Result<crate::batch::Task, String> {
    // A step's private part (a password's text) goes inside the tool, never in the record.
    let tool = crate::mcp::tools::batch::store_new_task_tool_keeping(&task.steps);
    let Some(done) = CallRequest::person(who.clone(), tool, serde_json::json!({ "task": task }))
        .run(core)
        .await
    else {
        return Err("the task could not be stored".into());
    };
    let json = done.result.map(|out| out.json).map_err(|e| e.message)?;
    serde_json::from_value(json["task"].clone())
        .map_err(|e| format!("the stored task could not be read back: {e}"))
}

async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, BatchError> + Send + 'static,
) -> Result<T, String> {
    match tokio::task::spawn_blocking(f).await {
        Ok(r) => r.map_err(|e| e.to_string()),
        Err(e) => Err(format!("the batch store did not answer: {e}")),
    }
}

/// What the footer says about steps whose password is no longer kept.
fn lost_note(lost: &[usize]) -> String {
    match lost {
        [] => String::new(),
        [i] => format!(
            "; step {}'s password is no longer kept: it will not run until its text is edited",
            i + 1
        ),
        _ => format!(
            "; steps {}: their passwords are no longer kept: they will not run until their text is edited",
            lost.iter()
                .map(|i| (i + 1).to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

fn failed(message: String) -> BatchReply {
    BatchReply::Failed {
        save: false,
        message,
    }
}

/// Carry out `cmd` as `who` (the in-process control centre, or an attached terminal): the
/// person's calls are audited with it as their client.
pub async fn execute(core: &Arc<Core>, cmd: BatchCmd, who: &ClientId) -> BatchReply {
    match cmd {
        BatchCmd::Run { task_id } => run_task(core, task_id, who).await,
        // The same tool an agent calls, as the person's call: audited, shown in Activity.
        BatchCmd::Cancel { run_id } => cancel(core, run_id, who).await,
        // One gate: the person's own deletes and edits are calls through the pipeline, origin
        // `tui`, audited like an agent's; the person's y at the prompt is the approval.
        BatchCmd::Delete { task_id } => {
            let args = serde_json::json!({ "id": task_id });
            match as_person(core, who, "android_batch_delete", args).await {
                Ok(_) => BatchReply::Done(format!("deleted task {task_id}")),
                Err(e) => failed(e),
            }
        }
        BatchCmd::Save { task } => save(core, task, who).await,
        BatchCmd::StartRecording { name } => {
            match core.batch().and_then(|b| b.start_recording(&name)) {
                Ok(()) => BatchReply::Done(format!(
                    "recording {name:?}: each successful call is a step until you press m again"
                )),
                Err(e) => failed(e.to_string()),
            }
        }
        BatchCmd::StopRecording => stop_recording(core, who).await,
        BatchCmd::FromCalls { name, calls } => from_calls(core, name, calls, who).await,
    }
}

async fn run_task(core: &Arc<Core>, task_id: String, who: &ClientId) -> BatchReply {
    let c = core.clone();
    let task = match blocking(move || c.batch()?.get(&task_id)).await {
        Ok(t) => t,
        Err(e) => return failed(e),
    };
    let name = task.name.clone();
    // The person at the terminal starts it: steps are audited as batch calls of a run started
    // from the control centre, and destructive ones still ask here.
    let origin = Origin {
        transport: Transport::Tui,
        client: Some(who.clone()),
        session: None,
    };
    match core
        .batch()
        .and_then(|b| b.run(core, task, origin, RunOptions::default()))
    {
        Ok(run_id) => BatchReply::Done(format!("started {name:?} as {run_id}")),
        Err(e) => failed(e.to_string()),
    }
}

async fn cancel(core: &Arc<Core>, run_id: String, who: &ClientId) -> BatchReply {
    let args = serde_json::json!({ "runId": run_id });
    match as_person(core, who, "android_batch_cancel", args).await {
        Ok(v) => BatchReply::Done(format!(
            "{run_id} {}",
            v["stoppedReason"]
                .as_str()
                .map(str::to_string)
                .unwrap_or_else(|| format!("is {}", v["state"].as_str().unwrap_or("cancelled")))
        )),
        Err(e) => failed(e),
    }
}

async fn save(core: &Arc<Core>, task: crate::batch::Task, who: &ClientId) -> BatchReply {
    let args = serde_json::json!({
        "id": task.id,
        "name": task.name,
        "description": task.description,
        "steps": task.steps,
    });
    let saved = as_person(core, who, "android_batch_save", args)
        .await
        .and_then(|json| {
            serde_json::from_value::<crate::batch::Task>(json["task"].clone())
                .map_err(|e| format!("the saved task could not be read back: {e}"))
        });
    match saved {
        Ok(task) => BatchReply::Saved {
            note: format!("saved task {:?} ({})", task.name, task.id),
            task,
        },
        Err(message) => BatchReply::Failed {
            save: true,
            message,
        },
    }
}

async fn stop_recording(core: &Arc<Core>, who: &ClientId) -> BatchReply {
    let c = core.clone();
    let task = match blocking(move || c.batch()?.finish_recording()).await {
        Ok(t) => t,
        Err(e) => return failed(e),
    };
    match store_as_person(core, who, task).await {
        Ok(task) => BatchReply::Saved {
            note: format!(
                "recording saved as task {:?} with {} steps",
                task.name,
                task.steps.len()
            ),
            task,
        },
        Err(e) => failed(e),
    }
}

async fn from_calls(
    core: &Arc<Core>,
    name: String,
    calls: Vec<crate::protocol::PickedCall>,
    who: &ClientId,
) -> BatchReply {
    let records: Vec<AuditRecord> = calls
        .into_iter()
        .map(|p| {
            let mut r = AuditRecord::new(p.tool, p.level, p.transport, p.arguments);
            r.seq = p.audit_seq.unwrap_or(0);
            r
        })
        .collect();
    let c = core.clone();
    let made = tokio::task::spawn_blocking(move || {
        c.batch().map(|b| b.task_from_history(&name, &records))
    })
    .await;
    let (task, lost) = match made {
        Ok(Ok(made)) => made,
        Ok(Err(e)) => return failed(e.to_string()),
        Err(_) => return failed("the batch store did not answer".into()),
    };
    match store_as_person(core, who, task).await {
        Ok(task) => BatchReply::Saved {
            note: format!(
                "made task {:?} from {} calls{}",
                task.name,
                task.steps.len(),
                lost_note(&lost)
            ),
            task,
        },
        Err(e) => failed(e),
    }
}
