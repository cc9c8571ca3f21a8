//! Batch tasks (longarm's batch, our names): named, editable lists of tool calls, stored as
//! files, run in the background one run at a time, each step through the same call pipeline
//! (`mcp::server::CallRequest`, `in_run`) as the tool itself — access, confirmation, audit — and kept in
//! a run history (each run's log, `runlog`) with each step's result and images, exportable as a
//! ZIP. Also recording: a person opens a recording and the successful calls made until it
//! closes become a task ([`Batch::offer_call`] is the pipeline's hook). "Record" alone means an
//! audit record (see `audit`).
//!
//! [`Batch`] lives in `Core`; this is the API the MCP tools and the control centre share.
//! Methods touching files are blocking (small files); async callers use `spawn_blocking`.
pub mod export;
pub mod recorder;
pub mod runlog;
pub mod runner;
pub mod secrets;
pub mod stay_on;
pub mod store;
pub mod task;
pub mod verdict;

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use serde_json::Value;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

pub use recorder::Recording;
pub use runlog::{BatchStatus, RunLog, RunState, RunSummary, RunnerState, StepLog, StepOutcome};
pub use task::{Source, Step, Task, TaskDraft};
pub use verdict::Stop;

use crate::audit::AuditRecord;
use crate::mcp::Core;
use crate::mcp::ctx::Origin;
use crate::mcp::registry::Registry;
use crate::model::Transport;
use recorder::Recorder;
use store::Store;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BatchError {
    #[error("Batch task not found: {0}")]
    NotFound(String),
    #[error("batch tasks are not available in this server (no batch store was provided)")]
    Unavailable,
    #[error("Batch run not found: {0}")]
    RunNotFound(String),
    #[error("invalid id {0:?}: use 1 to 64 of A-Z a-z 0-9 _ -")]
    InvalidId(String),
    #[error("{}{message}", step.map(|i| format!("step {}: ", i + 1)).unwrap_or_default())]
    Invalid {
        /// 0-based; shown 1-based.
        step: Option<usize>,
        message: String,
    },
    #[error("a batch run is already running ({0}); wait for it or cancel it")]
    Busy(String),
    #[error("run {0} is still running; cancel it first")]
    StillRunning(String),
    #[error("run {run_id} is not running: it ended {state}")]
    NotRunning { run_id: String, state: &'static str },
    #[error("no batch run is running")]
    Idle,
    #[error("a recording is already open")]
    AlreadyRecording,
    #[error("no recording is open")]
    NotRecording,
    #[error("the recording captured no successful calls; nothing was saved")]
    NothingRecorded,
    #[error("no async runtime to run the batch on")]
    NoRuntime,
    #[error("{0}")]
    Io(String),
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RunOptions {
    /// `svc power stayon true` for the run, restoring the previous setting after.
    pub keep_screen_on: bool,
    /// Seconds the run may take, start to end; None (or more than `batch.max_run_secs`) is
    /// `batch.max_run_secs`.
    pub time_limit_secs: Option<u64>,
}

/// The run in progress: its live record (history readers see it before it reaches disk), the
/// token that stops it and why it was stopped (the first cause wins).
#[derive(Debug)]
pub(crate) struct Active {
    pub record: RunLog,
    pub cancel: CancellationToken,
    pub stop: Arc<Mutex<Option<Stop>>>,
}

pub struct Batch {
    store: Store,
    registry: Registry,
    recorder: Recorder,
    status: watch::Sender<BatchStatus>,
    active: Mutex<Option<Active>>,
    typed: secrets::TypedSecrets,
}

impl std::fmt::Debug for Batch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Batch")
            .field("status", &self.status())
            .finish()
    }
}

impl Batch {
    /// `root` is `paths.batch_dir()`; `registry` is the catalogue steps are checked against.
    pub fn new(root: PathBuf, registry: Registry) -> Batch {
        Batch {
            typed: secrets::TypedSecrets::new(root.join("history-private")),
            store: Store::new(root),
            registry,
            recorder: Recorder::default(),
            status: watch::channel(BatchStatus::default()).0,
            active: Mutex::new(None),
        }
    }

    pub fn store(&self) -> &Store {
        &self.store
    }

    /// Keeps what a call recorded with «password» (audit record `seq`) withheld, its private
    /// part (`{"text": …}`, and `{"fields": […]}` for a form), for a task made from History,
    /// as long as History can hold the record (`window`: `history.size`). Blocking file I/O.
    pub fn keep_typed(&self, seq: u64, private: &Value, window: usize) {
        if let Err(e) = self.typed.keep(seq, private, window) {
            tracing::warn!(seq, "a typed password was not kept for History: {e}");
        }
    }

    /// The private part the call recorded as `seq` withheld, while it is kept (see
    /// [`Self::keep_typed`]).
    pub fn typed_value(&self, seq: u64) -> Option<Value> {
        self.typed.get(seq)
    }

    // --- tasks ---

    pub fn list(&self) -> Result<Vec<Task>, BatchError> {
        self.store.list_tasks()
    }

    pub fn get(&self, id: &str) -> Result<Task, BatchError> {
        self.store.get_task(id)
    }

    /// Create or update. An update keeps the stored `createdAt` and `source`, and the private
    /// part of each «password» step it leaves unchanged; saving under a new id leaves the
    /// original untouched. Returns the task as stored.
    pub fn save(&self, mut task: Task) -> Result<Task, BatchError> {
        task.validate(&self.registry)?;
        match self.store.get_task(&task.id) {
            Ok(old) => {
                task.created_at = old.created_at;
                task.source = old.source;
                // An edit that leaves a «password» step as it was keeps the value it stands for
                // (no editor ever sees it, so none can send it back).
                for (new, old) in task.steps.iter_mut().zip(old.steps) {
                    if new.private.is_none()
                        && new.tool == old.tool
                        && new.arguments == old.arguments
                        && crate::mcp::typed_text::is_placeholder(&new.arguments)
                    {
                        new.private = old.private;
                    }
                }
            }
            Err(BatchError::NotFound(_)) => {}
            Err(e) => return Err(e),
        }
        task.updated_at = task::now();
        self.store.put_task(&task)?;
        Ok(task)
    }

    pub fn delete(&self, id: &str) -> Result<(), BatchError> {
        self.store.delete_task(id)
    }

    /// For the editor: parse and check; on failure the 1-based line, column and message.
    pub fn validate_json(&self, text: &str) -> Result<Task, (usize, usize, String)> {
        task::validate_json(text, &self.registry)
    }

    pub fn validate(&self, task: &Task) -> Result<(), BatchError> {
        task.validate(&self.registry)
    }

    // --- runs ---

    /// Start `task` in the background and return its run id at once. One run at a time
    /// (across devices): a second is refused with the running one's id.
    pub fn run(
        &self,
        core: &Arc<Core>,
        task: Task,
        origin: Origin,
        opts: RunOptions,
    ) -> Result<String, BatchError> {
        runner::start(core, task, origin, opts)
    }

    pub fn status(&self) -> BatchStatus {
        self.status.borrow().clone()
    }

    pub fn subscribe_status(&self) -> watch::Receiver<BatchStatus> {
        self.status.subscribe()
    }

    /// Cancel `run_id` (None: the run in progress, there is at most one) for `by`: the step in
    /// flight is interrupted (a wait ends, a confirmation on screen is withdrawn), no further
    /// step starts, and the run ends `cancelled`. Returns the run's id; an id that is not the
    /// running one is [`BatchError::NotRunning`] (or `RunNotFound`), nothing running `Idle`.
    pub fn cancel(&self, run_id: Option<&str>, by: &str) -> Result<String, BatchError> {
        let wanted = run_id.map(str::to_string).or_else(|| self.running_id());
        let Some(id) = wanted else {
            return Err(BatchError::Idle);
        };
        if self.stop(&id, Stop::Cancelled { by: by.into() }) {
            return Ok(id);
        }
        match self.store.get_run(&id) {
            Ok(rec) => Err(BatchError::NotRunning {
                run_id: id,
                state: rec.state.label(),
            }),
            Err(e) => Err(e),
        }
    }

    /// Stop `run_id` for `why` (a cancel, the time limit). False when it is not running.
    pub(crate) fn stop(&self, run_id: &str, why: Stop) -> bool {
        match self.active.lock().ok().as_deref() {
            Some(Some(a)) if a.record.run_id == run_id => {
                if let Ok(mut cause) = a.stop.lock() {
                    cause.get_or_insert(why);
                }
                a.cancel.cancel();
                true
            }
            _ => false,
        }
    }

    /// The id of the run in progress.
    pub fn running_id(&self) -> Option<String> {
        self.active
            .lock()
            .ok()
            .and_then(|a| a.as_ref().map(|a| a.record.run_id.clone()))
    }

    /// Wait (at most `bound`) until `run_id` is no longer running; then its record.
    pub async fn finished(
        &self,
        run_id: &str,
        bound: std::time::Duration,
    ) -> Result<RunLog, BatchError> {
        let mut rx = self.subscribe_status();
        let _ = tokio::time::timeout(bound, async {
            while self.running_id().as_deref() == Some(run_id) {
                if rx.changed().await.is_err() {
                    break;
                }
            }
        })
        .await;
        self.history_get(run_id)
    }

    /// Newest first; the run in progress included.
    pub fn history(&self) -> Result<Vec<RunSummary>, BatchError> {
        let mut runs = self.store.list_runs()?;
        if let Some(live) = self.live() {
            runs.retain(|r| r.run_id != live.run_id);
            runs.insert(0, live.summary());
        }
        Ok(runs)
    }

    pub fn history_get(&self, run_id: &str) -> Result<RunLog, BatchError> {
        match self.live() {
            Some(live) if live.run_id == run_id => Ok(live),
            _ => self.store.get_run(run_id),
        }
    }

    /// The ZIP of a finished run: `run.json` and its images.
    /// The run as a ZIP; `view` rewrites `run.json` for its reader (redaction).
    pub fn export(
        &self,
        run_id: &str,
        view: impl FnOnce(&mut serde_json::Value),
    ) -> Result<Vec<u8>, BatchError> {
        self.refuse_if_running(run_id)?;
        export::zip_run(&self.store, run_id, view)
    }

    pub fn delete_run(&self, run_id: &str) -> Result<(), BatchError> {
        self.refuse_if_running(run_id)?;
        self.store.delete_run(run_id)
    }

    fn refuse_if_running(&self, run_id: &str) -> Result<(), BatchError> {
        match self.live() {
            Some(live) if live.run_id == run_id => Err(BatchError::StillRunning(run_id.into())),
            _ => Ok(()),
        }
    }

    fn live(&self) -> Option<RunLog> {
        self.active
            .lock()
            .ok()
            .and_then(|a| a.as_ref().map(|a| a.record.clone()))
    }

    // --- recording ---

    pub fn start_recording(&self, name: &str) -> Result<(), BatchError> {
        if name.trim().is_empty() {
            return Err(BatchError::Invalid {
                step: None,
                message: "the recording needs a name".into(),
            });
        }
        if self.recorder.start(name) {
            Ok(())
        } else {
            Err(BatchError::AlreadyRecording)
        }
    }

    /// Close the recording and save it as a normal task (`source: recorded`).
    pub fn stop_recording(&self) -> Result<Task, BatchError> {
        let t = self.finish_recording()?;
        self.save(t)
    }

    /// Stops the recording and returns its task, not yet saved (the control centre saves it
    /// through the call pipeline).
    pub fn finish_recording(&self) -> Result<Task, BatchError> {
        let rec = self.recorder.stop().ok_or(BatchError::NotRecording)?;
        if rec.steps.is_empty() {
            return Err(BatchError::NothingRecorded);
        }
        let mut t = Task::new(None, rec.name, rec.steps, Source::Recorded);
        t.description = Some(format!("Recorded from {}", rec.started_at));
        Ok(t)
    }

    pub fn is_recording(&self) -> bool {
        self.recorder.is_recording()
    }

    /// The recording in progress (name and steps so far).
    pub fn recording(&self) -> Option<Recording> {
        self.recorder.current()
    }

    /// A task made from a selection in the history (`source: history`), in the order given.
    /// Batch tools are left out; the arguments are those the audit trail kept. A call recorded
    /// with «password» for its typed text gets the real value back from the typed-password
    /// store (by its record's `seq`, 0 for none) into the step's private part. Returns the task
    /// and the steps (0-based) whose value is no longer kept: they refuse to run rather than
    /// type the placeholder. Blocking file I/O.
    pub fn task_from_history(&self, name: &str, calls: &[AuditRecord]) -> (Task, Vec<usize>) {
        let mut lost = Vec::new();
        let steps: Vec<Step> = calls
            .iter()
            .filter(|c| !task::is_batch_tool(&c.tool))
            .enumerate()
            .map(|(i, c)| {
                let mut step = Step::new(c.tool.clone(), c.arguments.clone());
                let typed = self.registry.get(&c.tool).is_some_and(|t| t.types_text);
                if typed && crate::mcp::typed_text::is_placeholder(&c.arguments) {
                    match (c.seq > 0).then(|| self.typed_value(c.seq)).flatten() {
                        Some(private) => step.private = Some(private),
                        None => lost.push(i),
                    }
                }
                step
            })
            .collect();
        (Task::new(None, name, steps, Source::History), lost)
    }

    // --- for the runner ---

    pub(crate) fn claim(&self, active: Active) -> Result<(), BatchError> {
        let mut slot = self
            .active
            .lock()
            .map_err(|_| BatchError::Io("batch state poisoned".into()))?;
        if let Some(a) = slot.as_ref() {
            return Err(BatchError::Busy(a.record.run_id.clone()));
        }
        // Read first: a borrow held across send_replace would deadlock the watch.
        let last_run = self.status.borrow().last_run.clone();
        self.status.send_replace(BatchStatus {
            state: RunnerState::Running,
            current_task_id: active.record.task_id.clone(),
            current_run_id: Some(active.record.run_id.clone()),
            current_step_index: 0,
            total_steps: active.record.total_steps,
            last_run,
        });
        *slot = Some(active);
        Ok(())
    }

    pub(crate) fn update_live(&self, record: &RunLog, step: usize) {
        if let Ok(mut slot) = self.active.lock()
            && let Some(a) = slot.as_mut()
            && a.record.run_id == record.run_id
        {
            a.record = record.clone();
        }
        self.status.send_modify(|s| {
            if s.current_run_id.as_deref() == Some(record.run_id.as_str()) {
                s.current_step_index = step;
            }
        });
    }

    /// The run is over: free the runner, and say how it ended in the status (`lastRun`).
    pub(crate) fn release(&self, run_id: &str) {
        if let Ok(mut slot) = self.active.lock()
            && slot.as_ref().is_some_and(|a| a.record.run_id == run_id)
        {
            let last = slot.take().map(|a| a.record.summary());
            self.status.send_replace(BatchStatus {
                last_run: last,
                ..BatchStatus::default()
            });
        }
    }
}

/// The pipeline's hook (`mcp::observe`): every finished call that is not a batch step is offered
/// to the recording, and a typed password is kept for a task made from History.
impl crate::mcp::observe::CallObserver for Batch {
    fn finished(&self, call: &crate::mcp::observe::FinishedCall<'_>) {
        if call.batch_run.is_none() && call.transport != Transport::Batch {
            self.recorder
                .offer(call.tool, call.args, call.private, call.outcome);
        }
    }
    fn withheld(&self, record: u64, private: &Value, window: usize) {
        self.keep_typed(record, private, window);
    }
    fn withheld_soon(&self, record: u64, private: &Value, window: usize) {
        self.typed.keeping(record, private, window);
    }
}

impl crate::mcp::core::Core {
    /// The batch store and runner the wiring provided ([`Core::provide`]): the batch module
    /// reaches the core, never the other way round.
    ///
    /// [`Core::provide`]: crate::mcp::core::Core::provide
    pub fn batch(&self) -> Result<Arc<Batch>, BatchError> {
        self.provided::<Batch>().ok_or(BatchError::Unavailable)
    }
}
