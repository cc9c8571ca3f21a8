//! A run's log ([`RunLog`], one [`StepLog`] a step), as `run.json` holds it and `android_batch_history_get` returns it: what
//! each step called, how it ended, what it returned or why it failed, how long it took and
//! which image files it left in the run's directory.
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Where the runner is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RunnerState {
    #[default]
    Idle,
    Running,
}

/// What `android_batch_status` reports and the control centre watches.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct BatchStatus {
    pub state: RunnerState,
    pub current_task_id: Option<String>,
    pub current_run_id: Option<String>,
    /// 0-based index of the step running (or being waited after).
    pub current_step_index: usize,
    pub total_steps: usize,
    /// The last run that ended since this program started: how it ended (its `state`, and
    /// for one that did not succeed, `stoppedReason` and `stoppedAtStep`), so a poller that
    /// sees `idle` learns the outcome without another call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_run: Option<RunSummary>,
}

/// How a run ended (or that it has not yet). Decided in one place,
/// [`super::verdict::decide`]; everything that reports a run reads it from the record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RunState {
    Processing,
    /// Every step ran and every step ended `ok`.
    Succeeded,
    /// A step errored, was denied, refused, timed out or failed its assertion (whether or not
    /// its `stopOnError` stopped the run), or keepScreenOn could not be set.
    Failed,
    /// Stopped by `android_batch_cancel` (an agent, or the person on the Batch screen).
    Cancelled,
    /// Stopped by its time limit (`timeLimitSecs`, at most `batch.max_run_secs`).
    TimedOut,
}

impl RunState {
    pub fn label(self) -> &'static str {
        match self {
            RunState::Processing => "processing",
            RunState::Succeeded => "succeeded",
            RunState::Failed => "failed",
            RunState::Cancelled => "cancelled",
            RunState::TimedOut => "timed_out",
        }
    }
}

/// How one step ended: the call's own outcome, or `skipped` when the run stopped before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum StepOutcome {
    Ok,
    Error,
    Denied,
    Refused,
    Cancelled,
    Timeout,
    /// An `android_assert_*` step ran and reported `passed: false`.
    AssertionFailed,
    Skipped,
}

impl From<crate::mcp::events::Outcome> for StepOutcome {
    fn from(o: crate::mcp::events::Outcome) -> Self {
        use crate::mcp::events::Outcome as O;
        match o {
            O::Ok => StepOutcome::Ok,
            O::Error => StepOutcome::Error,
            O::Denied => StepOutcome::Denied,
            O::Refused => StepOutcome::Refused,
            O::Cancelled => StepOutcome::Cancelled,
            O::Timeout => StepOutcome::Timeout,
            // Never how a call ends (only its first record says it); kept total.
            O::Started => StepOutcome::Error,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct StepLog {
    pub index: usize,
    pub tool: String,
    pub arguments: Value,
    pub outcome: StepOutcome,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    pub duration_ms: u64,
    pub started_at: String,
    /// Image files in the run's directory (as named inside the export ZIP).
    #[serde(default)]
    pub images: Vec<String>,
    /// The audit call id, to find the step in the history pane.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call_id: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RunLog {
    pub run_id: String,
    /// None for `android_batch_run_inline`.
    pub task_id: Option<String>,
    pub task_name: String,
    pub state: RunState,
    pub started_at: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finished_at: Option<String>,
    pub total_steps: usize,
    pub keep_screen_on: bool,
    /// `name/version` of whoever started the run, or `unknown`.
    pub client: String,
    pub transport: String,
    /// The run's limit in seconds (0 in records written before limits existed).
    #[serde(default)]
    pub time_limit_secs: u64,
    /// Why the run did not succeed, in words: who cancelled it, the time limit, or the first
    /// step that did not end `ok` (with its tool, outcome and error).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped_reason: Option<String>,
    /// 0-based index of the step the run stopped at, when steps were left unrun or one was
    /// interrupted: the step in flight, the failed step whose `stopOnError` stopped it, or the
    /// next one (a cancel during a wait).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped_at_step: Option<usize>,
    /// 0-based indexes of the steps that ran and did not end `ok` (the step a cancel or the
    /// time limit interrupted is `stoppedAtStep`, not here).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failed_steps: Vec<usize>,
    /// What keepScreenOn could not do (the run goes on without it).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    pub steps: Vec<StepLog>,
}

/// One line of `android_batch_history_list`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RunSummary {
    pub run_id: String,
    pub task_id: Option<String>,
    pub task_name: String,
    pub state: RunState,
    pub started_at: String,
    pub finished_at: Option<String>,
    pub total_steps: usize,
    pub steps_run: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped_reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped_at_step: Option<usize>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failed_steps: Vec<usize>,
}

impl RunLog {
    pub fn summary(&self) -> RunSummary {
        RunSummary {
            run_id: self.run_id.clone(),
            task_id: self.task_id.clone(),
            task_name: self.task_name.clone(),
            state: self.state,
            started_at: self.started_at.clone(),
            finished_at: self.finished_at.clone(),
            total_steps: self.total_steps,
            steps_run: self
                .steps
                .iter()
                .filter(|s| s.outcome != StepOutcome::Skipped)
                .count(),
            stopped_reason: self.stopped_reason.clone(),
            stopped_at_step: self.stopped_at_step,
            failed_steps: self.failed_steps.clone(),
        }
    }
}
