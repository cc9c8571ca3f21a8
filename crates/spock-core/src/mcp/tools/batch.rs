//! Batch tools (longarm's batch_*, 003_… "Herramientas de lotes"): tasks listed, read, saved,
//! deleted and run (by id or inline; both return `runId` at once, with a time limit), the run
//! cancelled, the runner's status, and the run history with a base64 ZIP export. The work lives in `crate::batch`; these adapt it
//! to tool arguments and results.
use std::sync::Arc;

use base64::Engine;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::batch::runner::{INLINE_PREFIX, time_limit};
use crate::batch::{
    BatchError, BatchStatus, RunOptions, RunState, RunSummary, Source, Step, Task, TaskDraft,
};
use crate::mcp::Core;
use crate::mcp::ctx::Ctx;
use crate::mcp::registry::{Level, Meta, ToolDef};
use crate::mcp::result::{ErrorKind, ToolError};
use crate::mcp::toolsets::Toolset;

impl From<BatchError> for ToolError {
    fn from(e: BatchError) -> Self {
        let kind = match &e {
            BatchError::NotFound(_) | BatchError::RunNotFound(_) => ErrorKind::NotFound,
            BatchError::InvalidId(_) | BatchError::Invalid { .. } => ErrorKind::InvalidArguments,
            BatchError::Busy(_)
            | BatchError::StillRunning(_)
            | BatchError::NotRunning { .. }
            | BatchError::Idle
            | BatchError::AlreadyRecording
            | BatchError::NotRecording
            | BatchError::NothingRecorded => ErrorKind::Refused,
            BatchError::NoRuntime | BatchError::Io(_) | BatchError::Unavailable => {
                ErrorKind::Internal
            }
        };
        ToolError::new(kind, e.to_string())
    }
}

/// Run store work off the async runtime.
async fn blocking<T: Send + 'static>(
    core: &Arc<Core>,
    f: impl FnOnce(&Core) -> Result<T, BatchError> + Send + 'static,
) -> Result<T, ToolError> {
    let core = core.clone();
    tokio::task::spawn_blocking(move || f(&core))
        .await
        .map_err(|e| ToolError::internal(format!("batch store task failed: {e}")))?
        .map_err(ToolError::from)
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoArgs {}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct IdArgs {
    /// Task id (`taskId`, as status and run history name it; `id` is accepted too).
    #[serde(rename = "taskId", alias = "id")]
    pub id: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct RunIdArgs {
    pub run_id: String,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct SaveArgs {
    /// Existing id to update, or a new one (generated when omitted). Save an edited copy
    /// under a new id to keep the original.
    pub id: Option<String>,
    pub name: String,
    pub description: Option<String>,
    pub steps: Vec<Step>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct RunArgs {
    /// Task id (`taskId`, as status and run history name it; `id` is accepted too).
    #[serde(rename = "taskId", alias = "id")]
    pub id: String,
    /// Keep the screen on until the run ends (default false).
    #[serde(default)]
    pub keep_screen_on: bool,
    /// Stop the run (state `timed_out`) after this many seconds; default and most is the
    /// configured `batch.max_run_secs` (600 unless changed).
    #[schemars(range(min = 1))]
    pub time_limit_secs: Option<u64>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct CancelArgs {
    /// The run to cancel (`runId` from android_batch_run / _run_inline); omitted: the run in
    /// progress (there is at most one).
    pub run_id: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct RunInlineArgs {
    pub name: Option<String>,
    pub steps: Vec<Step>,
    #[serde(default)]
    pub keep_screen_on: bool,
    /// As for android_batch_run.
    #[schemars(range(min = 1))]
    pub time_limit_secs: Option<u64>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HistoryArgs {
    /// Newest first; default 50.
    pub limit: Option<usize>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TaskSummary {
    pub id: String,
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    pub step_count: usize,
    pub source: Source,
    pub created_at: String,
    pub updated_at: String,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct TaskList {
    pub tasks: Vec<TaskSummary>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct Saved {
    pub task: Task,
    /// False when an existing task was updated.
    pub created: bool,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Started {
    pub run_id: String,
    /// Always "processing": poll android_batch_status / android_batch_history_get.
    pub status: String,
    /// The run stops after this many seconds (what was asked, at most `batch.max_run_secs`).
    pub time_limit_secs: u64,
    /// Set when the limit asked for was more than the configured maximum.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Cancelled {
    pub run_id: String,
    /// The run's state after the cancel: `cancelled` (or, when it ended on its own in the
    /// meantime, how it ended; `processing` if it had not finished within a few seconds).
    pub state: RunState,
    /// 0-based index of the step it stopped at.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped_at_step: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped_reason: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct History {
    pub runs: Vec<RunSummary>,
    pub total: usize,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Exported {
    pub run_id: String,
    /// ZIP: run.json plus every image the run's steps took.
    pub zip_base64: String,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct Deleted {
    pub deleted: String,
}

async fn started(
    ctx: &Ctx,
    task: Task,
    keep_screen_on: bool,
    time_limit_secs: Option<u64>,
) -> Result<Started, ToolError> {
    if keep_screen_on {
        // Which phone would stay awake? With several attached and none selected, no run starts
        // (the runner refuses too, for runs started another way).
        ctx.device(None).await.map_err(|e| {
            ToolError::refused(format!(
                "keepScreenOn needs the one device to keep awake, and it is not known: {} \
                 (android_batch_run takes no serial: select the device with \
                 android_select_device first, or run without keepScreenOn)",
                e.message
            ))
            .with_details(e.details.unwrap_or(serde_json::Value::Null))
        })?;
    }
    if time_limit_secs == Some(0) {
        return Err(ToolError::invalid_args("timeLimitSecs must be at least 1"));
    }
    let limit = time_limit(&ctx.core, time_limit_secs);
    let note = time_limit_secs.filter(|&s| s > limit).map(|s| {
        format!(
            "timeLimitSecs {s} is more than the configured maximum (batch.max_run_secs = \
             {limit}); the run stops after {limit} s"
        )
    });
    let run_id = ctx.core.batch()?.run(
        &ctx.core,
        task,
        ctx.origin.clone(),
        RunOptions {
            keep_screen_on,
            time_limit_secs: Some(limit),
        },
    )?;
    Ok(Started {
        run_id,
        status: "processing".into(),
        time_limit_secs: limit,
        note,
    })
}

/// How long android_batch_cancel waits for the run to wind down (the step in flight answers
/// its cancellation at once; keepScreenOn's restore is a device command).
const CANCEL_WAIT: std::time::Duration = std::time::Duration::from_secs(15);

/// Who cancelled, as the run's record says it.
fn canceller(ctx: &Ctx) -> String {
    if ctx.origin.transport == crate::mcp::events::Transport::Tui {
        return "the person at the control centre".into();
    }
    match &ctx.origin.client {
        Some(c) => format!(
            "{}/{} ({})",
            c.name,
            c.version,
            ctx.origin.transport.label()
        ),
        None => format!("an unnamed client ({})", ctx.origin.transport.label()),
    }
}

async fn cancel(ctx: Ctx, a: CancelArgs) -> Result<Cancelled, ToolError> {
    let by = canceller(&ctx);
    let asked = a.run_id.clone();
    let run_id = blocking(&ctx.core, move |core| {
        core.batch()?.cancel(asked.as_deref(), &by)
    })
    .await?;
    let rec = ctx.core.batch()?.finished(&run_id, CANCEL_WAIT).await?;
    Ok(Cancelled {
        run_id,
        state: rec.state,
        stopped_at_step: rec.stopped_at_step,
        stopped_reason: rec.stopped_reason,
    })
}

/// Saving over a saved task replaces it, and the old version is gone: that call is destructive
/// (deleting one is). A new id stays a safe action.
async fn replaces(ctx: Ctx, a: SaveArgs) -> Result<Option<String>, ToolError> {
    let Some(id) = a.id else { return Ok(None) };
    let old = blocking(&ctx.core, move |core| match core.batch()?.get(&id) {
        Ok(t) => Ok(Some(t)),
        // An id that cannot name a task is the save's own error to report.
        Err(_) => Ok(None),
    })
    .await?;
    Ok(old.map(|t| {
        format!(
            "replaces the saved batch task {} \"{}\" ({} steps, last saved {}); the version \
             saved now is lost (save under a new id to keep both)",
            t.id,
            t.name,
            t.steps.len(),
            t.updated_at
        )
    }))
}

async fn save(ctx: Ctx, a: SaveArgs) -> Result<Saved, ToolError> {
    let approved = ctx.approved;
    // An agent's task says so wherever the person sees it; the person's own saves are theirs.
    let by_agent = ctx.origin.session.is_some();
    let task = Task::from_draft(TaskDraft {
        id: a.id,
        name: a.name,
        description: a.description,
        steps: a.steps,
        created_at: None,
        updated_at: None,
        source: by_agent.then_some(Source::Agent),
    });
    let id = task.id.clone();
    let saved = blocking(&ctx.core, move |core| {
        // An id that cannot name a task is refused as such (not taken for one saved meanwhile).
        crate::batch::task::check_id(&task.id)?;
        let created = matches!(core.batch()?.get(&task.id), Err(BatchError::NotFound(_)));
        if !created && !approved {
            // Saved by someone else since this call was checked: not replaced unasked.
            return Ok(None);
        }
        core.batch()?
            .save(task)
            .map(|task| Some(Saved { task, created }))
    })
    .await?;
    saved.ok_or_else(|| {
        ToolError::refused(format!(
            "a batch task {id} was saved while this call was being checked; it was not \
             replaced. Call again to replace it (a person is asked) or use a new id."
        ))
    })
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StoreArgs {
    pub task: Task,
}

/// The control centre's own new tasks (a recording stopped, a task made from History's marked
/// calls): not in the catalogue, but stored through the call pipeline as the person's call, so
/// they are audited like any save. Only a new id is stored: nothing is replaced this way.
pub fn store_new_task_tool() -> ToolDef {
    store_new_task_tool_keeping(&[])
}

/// [`store_new_task_tool`] for a task whose steps have private parts (a password's real
/// text): the parts travel inside the tool, never in its arguments, so the call's record (and
/// everything that shows it) holds only what the task's record says. A part goes back onto
/// the step it came from only while that step's tool is the same.
pub fn store_new_task_tool_keeping(steps: &[Step]) -> ToolDef {
    let private: Arc<Vec<(String, Option<serde_json::Value>)>> = Arc::new(
        steps
            .iter()
            .map(|s| (s.tool.clone(), s.private.clone()))
            .collect(),
    );
    Meta {
        name: "android_batch_store",
        title: "Store a new batch task (control centre)",
        level: Level::SafeAction,
        toolset: Toolset::Batch,
        description: "Store a new batch task made in the control centre.",
    }
    .def(move |ctx: Ctx, a: StoreArgs| {
        let private = private.clone();
        async move {
            let mut task = a.task;
            for (step, (tool, part)) in task.steps.iter_mut().zip(private.iter()) {
                if step.tool == *tool {
                    step.private = part.clone();
                }
            }
            let stored = blocking(&ctx.core, move |core| {
                if !matches!(core.batch()?.get(&task.id), Err(BatchError::NotFound(_))) {
                    return Ok(None);
                }
                core.batch()?.save(task).map(Some)
            })
            .await?;
            let task =
                stored.ok_or_else(|| ToolError::refused("a task with that id exists already"))?;
            Ok(Saved {
                task,
                created: true,
            })
        }
    })
}

pub fn tools() -> Vec<ToolDef> {
    vec![
        Meta {
            name: "android_batch_list",
            title: "Batch tasks",
            level: Level::ReadOnly,
            toolset: Toolset::Batch,
            description: "Saved batch tasks (manual, recorded, from history): id, name, step count.",
        }
        .def(|ctx: Ctx, _: NoArgs| async move {
            let tasks = blocking(&ctx.core, |core| core.batch()?.list()).await?;
            Ok(TaskList {
                tasks: tasks
                    .into_iter()
                    .map(|t| TaskSummary {
                        step_count: t.steps.len(),
                        id: t.id,
                        name: t.name,
                        description: t.description,
                        source: t.source,
                        created_at: t.created_at,
                        updated_at: t.updated_at,
                    })
                    .collect(),
            })
        }),
        Meta {
            name: "android_batch_get",
            title: "Batch task",
            level: Level::ReadOnly,
            toolset: Toolset::Batch,
            description: "One batch task with its steps (tool, arguments, waitMs, stopOnError).",
        }
        .def(|ctx: Ctx, a: IdArgs| async move {
            blocking(&ctx.core, move |core| core.batch()?.get(&a.id)).await
        }),
        Meta {
            name: "android_batch_save",
            title: "Save batch task",
            level: Level::SafeAction,
            toolset: Toolset::Batch,
            description: "Create or update a task: {id?, name, description?, steps:[{tool, arguments, waitMs?, \
                          stopOnError? (default true)}]}. Each step is checked against its tool. Replacing a saved \
                          task asks the person; a new id keeps the original.",
        }
        .def(save)
        .escalates("onto an existing task id (replacing it)", replaces),
        Meta {
            name: "android_batch_delete",
            title: "Delete batch task",
            level: Level::Destructive,
            toolset: Toolset::Batch,
            description: "Delete a saved task. Cannot be undone.",
        }
        .def(|ctx: Ctx, a: IdArgs| async move {
            blocking(&ctx.core, move |core| core.batch()?.delete(&a.id).map(|()| Deleted { deleted: a.id })).await
        }),
        Meta {
            name: "android_batch_run",
            title: "Run batch task",
            level: Level::SafeAction,
            toolset: Toolset::Batch,
            description: "Run a saved task in the background; returns runId at once. Each step passes its own tool's \
                          access and confirmation checks. One run at a time. timeLimitSecs (default and most: \
                          batch.max_run_secs, 600) stops it as `timed_out`. The run ends `succeeded` only when every \
                          step ended ok; otherwise `failed`, `cancelled` or `timed_out`, with stoppedReason.",
        }
        .def(|ctx: Ctx, a: RunArgs| async move {
            let id = a.id.clone();
            let task = blocking(&ctx.core, move |core| core.batch()?.get(&id)).await?;
            started(&ctx, task, a.keep_screen_on, a.time_limit_secs).await
        }),
        Meta {
            name: "android_batch_run_inline",
            title: "Run steps",
            level: Level::SafeAction,
            toolset: Toolset::Batch,
            description: "Run steps given inline (same shape as a task's) in the background; returns runId at once. \
                          keepScreenOn and timeLimitSecs as for android_batch_run.",
        }
        .def(|ctx: Ctx, a: RunInlineArgs| async move {
            let id = crate::batch::task::new_id(INLINE_PREFIX.trim_end_matches('_'));
            let task = Task::new(Some(id), a.name.unwrap_or_else(|| "inline".into()), a.steps, Source::Manual);
            started(&ctx, task, a.keep_screen_on, a.time_limit_secs).await
        }),
        // Safe, not read-only: it changes what happens (the remaining steps do not run), but
        // it destroys nothing — the run's record stays, the task can be run again — and it can
        // only make a run do less. Not destructive, so nobody is asked: stopping a run must
        // never wait for the keyboard.
        Meta {
            name: "android_batch_cancel",
            title: "Cancel batch run",
            level: Level::SafeAction,
            toolset: Toolset::Batch,
            description: "Cancel a batch run: runId (default: the run in progress). The step in flight is \
                          interrupted (a wait ends; a confirmation waiting for the person is withdrawn), the \
                          remaining steps are skipped, and the run ends `cancelled`, naming the step it stopped at. \
                          Waits briefly for the run to wind down and returns its state.",
        }
        .def(cancel),
        Meta {
            name: "android_batch_status",
            title: "Batch status",
            level: Level::ReadOnly,
            toolset: Toolset::Batch,
            description: "The runner: state idle|running, currentTaskId, currentRunId, currentStepIndex (0-based), totalSteps, \
                          and lastRun (how the last run ended: state, stoppedReason, stoppedAtStep, failedSteps).",
        }
        .def(|ctx: Ctx, _: NoArgs| async move { Ok::<BatchStatus, ToolError>(ctx.core.batch()?.status()) }),
        Meta {
            name: "android_batch_history_list",
            title: "Batch runs",
            level: Level::ReadOnly,
            toolset: Toolset::Batch,
            description: "Past and current runs, newest first: runId, task, state, steps run. limit (default 50).",
        }
        .def(|ctx: Ctx, a: HistoryArgs| async move {
            let runs = blocking(&ctx.core, |core| core.batch()?.history()).await?;
            let total = runs.len();
            Ok(History {
                runs: runs.into_iter().take(a.limit.unwrap_or(50).max(1)).collect(),
                total,
            })
        }),
        Meta {
            name: "android_batch_history_get",
            title: "Batch run",
            level: Level::ReadOnly,
            toolset: Toolset::Batch,
            description: "One run: state, and per step the tool, arguments, outcome, result or error, duration, image files.",
        }
        .def(|ctx: Ctx, a: RunIdArgs| async move {
            blocking(&ctx.core, move |core| core.batch()?.history_get(&a.run_id)).await
        }),
        Meta {
            name: "android_batch_history_export",
            title: "Export batch run",
            level: Level::ReadOnly,
            toolset: Toolset::Batch,
            description: "A finished run as a base64 ZIP: run.json plus the screenshots its steps took.",
        }
        .def(|ctx: Ctx, a: RunIdArgs| async move {
            let id = a.run_id.clone();
            // The ZIP is opaque to the answer's redaction: run.json is redacted for its reader
            // before it is packed, as every other answer is.
            let audience = ctx.audience();
            let bytes = blocking(&ctx.core, move |core| {
                core.batch()?.export(&id, |v| {
                    core.redactor.redact_json(v, audience);
                })
            })
            .await?;
            Ok(Exported {
                run_id: a.run_id,
                zip_base64: base64::engine::general_purpose::STANDARD.encode(bytes),
            })
        }),
        Meta {
            name: "android_batch_history_delete",
            title: "Delete batch run",
            level: Level::Destructive,
            toolset: Toolset::Batch,
            description: "Delete a run's record and images. Cannot be undone.",
        }
        .def(|ctx: Ctx, a: RunIdArgs| async move {
            blocking(&ctx.core, move |core| core.batch()?.delete_run(&a.run_id).map(|()| Deleted { deleted: a.run_id })).await
        }),
    ]
}
