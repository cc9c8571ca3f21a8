//! A run's record, as `run.json` holds it and `android_batch_history_get` returns it: what
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
}

/// How a run ended (or that it has not yet).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RunState {
    Processing,
    /// Every step ran; failures only in steps with `stopOnError: false`.
    Succeeded,
    /// A step with `stopOnError` failed, was refused or was denied.
    Failed,
    Cancelled,
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
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct StepRecord {
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
pub struct RunRecord {
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
    /// Why the run stopped early, in words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped_reason: Option<String>,
    /// What keepScreenOn could not do (the run goes on without it).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    pub steps: Vec<StepRecord>,
}

/// One line of `android_batch_history_list`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
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
}

impl RunRecord {
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
        }
    }
}
