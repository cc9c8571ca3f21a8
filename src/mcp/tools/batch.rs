//! Batch tools (longarm's batch_*, 003_… "Herramientas de lotes"): tasks listed, read, saved,
//! deleted and run (by id or inline; both return `runId` at once), the runner's status, and
//! the run history with a base64 ZIP export. The work lives in `crate::batch`; these adapt it
//! to tool arguments and results.
use std::sync::Arc;

use base64::Engine;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::batch::runner::INLINE_PREFIX;
use crate::batch::{
    BatchError, BatchStatus, RunOptions, RunSummary, Source, Step, Task, TaskDraft,
};
use crate::mcp::Core;
use crate::mcp::registry::{Level, Meta, ToolDef};
use crate::mcp::result::{ErrorKind, ToolError};
use crate::mcp::server::Ctx;

impl From<BatchError> for ToolError {
    fn from(e: BatchError) -> Self {
        let kind = match &e {
            BatchError::NotFound(_) | BatchError::RunNotFound(_) => ErrorKind::NotFound,
            BatchError::InvalidId(_) | BatchError::Invalid { .. } => ErrorKind::InvalidArguments,
            BatchError::Busy(_)
            | BatchError::StillRunning(_)
            | BatchError::AlreadyRecording
            | BatchError::NotRecording
            | BatchError::NothingRecorded => ErrorKind::Refused,
            BatchError::NoRuntime | BatchError::Io(_) => ErrorKind::Internal,
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
    /// Task id.
    pub id: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct RunIdArgs {
    pub run_id: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
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
    pub id: String,
    /// Keep the screen on until the run ends (default false).
    #[serde(default)]
    pub keep_screen_on: bool,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct RunInlineArgs {
    pub name: Option<String>,
    pub steps: Vec<Step>,
    #[serde(default)]
    pub keep_screen_on: bool,
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

fn started(ctx: &Ctx, task: Task, keep_screen_on: bool) -> Result<Started, ToolError> {
    let run_id = ctx.core.batch.run(
        &ctx.core,
        task,
        ctx.origin.clone(),
        RunOptions { keep_screen_on },
    )?;
    Ok(Started {
        run_id,
        status: "processing".into(),
    })
}

async fn save(ctx: Ctx, a: SaveArgs) -> Result<Saved, ToolError> {
    let task = Task::from_draft(TaskDraft {
        id: a.id,
        name: a.name,
        description: a.description,
        steps: a.steps,
        created_at: None,
        updated_at: None,
        source: None,
    });
    blocking(&ctx.core, move |core| {
        let created = matches!(core.batch.get(&task.id), Err(BatchError::NotFound(_)));
        core.batch.save(task).map(|task| Saved { task, created })
    })
    .await
}

pub fn tools() -> Vec<ToolDef> {
    vec![
        Meta {
            name: "android_batch_list",
            title: "Batch tasks",
            level: Level::ReadOnly,
            description: "Saved batch tasks (manual, recorded, from history): id, name, step count.",
        }
        .def(|ctx: Ctx, _: NoArgs| async move {
            let tasks = blocking(&ctx.core, |core| core.batch.list()).await?;
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
            description: "One batch task with its steps (tool, arguments, waitMs, stopOnError).",
        }
        .def(|ctx: Ctx, a: IdArgs| async move {
            blocking(&ctx.core, move |core| core.batch.get(&a.id)).await
        }),
        Meta {
            name: "android_batch_save",
            title: "Save batch task",
            level: Level::SafeAction,
            description: "Create or update a task: {id?, name, description?, steps:[{tool, arguments, waitMs?, \
                          stopOnError? (default true)}]}. Each step is checked against its tool. A new id keeps the original.",
        }
        .def(save),
        Meta {
            name: "android_batch_delete",
            title: "Delete batch task",
            level: Level::Destructive,
            description: "Delete a saved task. Cannot be undone.",
        }
        .def(|ctx: Ctx, a: IdArgs| async move {
            blocking(&ctx.core, move |core| core.batch.delete(&a.id).map(|()| Deleted { deleted: a.id })).await
        }),
        Meta {
            name: "android_batch_run",
            title: "Run batch task",
            level: Level::SafeAction,
            description: "Run a saved task in the background; returns runId at once. Each step passes its own tool's \
                          access and confirmation checks. One run at a time.",
        }
        .def(|ctx: Ctx, a: RunArgs| async move {
            let id = a.id.clone();
            let task = blocking(&ctx.core, move |core| core.batch.get(&id)).await?;
            started(&ctx, task, a.keep_screen_on)
        }),
        Meta {
            name: "android_batch_run_inline",
            title: "Run steps",
            level: Level::SafeAction,
            description: "Run steps given inline (same shape as a task's) in the background; returns runId at once.",
        }
        .def(|ctx: Ctx, a: RunInlineArgs| async move {
            let id = crate::batch::task::new_id(INLINE_PREFIX.trim_end_matches('_'));
            let task = Task::new(Some(id), a.name.unwrap_or_else(|| "inline".into()), a.steps, Source::Manual);
            started(&ctx, task, a.keep_screen_on)
        }),
        Meta {
            name: "android_batch_status",
            title: "Batch status",
            level: Level::ReadOnly,
            description: "The runner: state idle|running, currentTaskId, currentRunId, currentStepIndex (0-based), totalSteps.",
        }
        .def(|ctx: Ctx, _: NoArgs| async move { Ok::<BatchStatus, ToolError>(ctx.core.batch.status()) }),
        Meta {
            name: "android_batch_history_list",
            title: "Batch runs",
            level: Level::ReadOnly,
            description: "Past and current runs, newest first: runId, task, state, steps run. limit (default 50).",
        }
        .def(|ctx: Ctx, a: HistoryArgs| async move {
            let runs = blocking(&ctx.core, |core| core.batch.history()).await?;
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
            description: "One run: state, and per step the tool, arguments, outcome, result or error, duration, image files.",
        }
        .def(|ctx: Ctx, a: RunIdArgs| async move {
            blocking(&ctx.core, move |core| core.batch.history_get(&a.run_id)).await
        }),
        Meta {
            name: "android_batch_history_export",
            title: "Export batch run",
            level: Level::ReadOnly,
            description: "A finished run as a base64 ZIP: run.json plus the screenshots its steps took.",
        }
        .def(|ctx: Ctx, a: RunIdArgs| async move {
            let id = a.run_id.clone();
            let bytes = blocking(&ctx.core, move |core| core.batch.export(&id)).await?;
            Ok(Exported {
                run_id: a.run_id,
                zip_base64: base64::engine::general_purpose::STANDARD.encode(bytes),
            })
        }),
        Meta {
            name: "android_batch_history_delete",
            title: "Delete batch run",
            level: Level::Destructive,
            description: "Delete a run's record and images. Cannot be undone.",
        }
        .def(|ctx: Ctx, a: RunIdArgs| async move {
            blocking(&ctx.core, move |core| core.batch.delete_run(&a.run_id).map(|()| Deleted { deleted: a.run_id })).await
        }),
    ]
}
