//! How a run ended, decided once. The runner calls [`decide`] when its loop is over and writes
//! the answer into the run's record; `android_batch_status` (`lastRun`), the history list and
//! get, the export's `run.json`, the run's closing audit record and the Batch screen all read
//! that record, so none of them can call a run with a denied, refused, failed or interrupted
//! step "succeeded".
use super::runlog::{RunState, StepLog, StepOutcome};

/// Why a run was stopped from outside its steps (first cause wins).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stop {
    /// `android_batch_cancel`; `by` is who asked (`name/version`, or the control centre).
    Cancelled { by: String },
    /// The run's time limit ran out.
    TimedOut { limit_secs: u64 },
}

/// What [`decide`] says about a run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    pub state: RunState,
    pub reason: Option<String>,
    pub stopped_at_step: Option<usize>,
    pub failed_steps: Vec<usize>,
}

/// The final state of a run whose `steps` are all recorded (unrun ones as `skipped`).
/// `stop`: a cancel or the time limit, if one came; `stopped_at`: where the runner left the
/// loop early (None when every step ran, so a cancel that lands after the last step changes
/// nothing); `aborted`: why no step could run at all (keepScreenOn could not be set).
pub fn decide(
    steps: &[StepLog],
    stop: Option<&Stop>,
    stopped_at: Option<usize>,
    aborted: Option<&str>,
) -> Verdict {
    let interrupted = stop.and(stopped_at);
    let failed_steps: Vec<usize> = steps
        .iter()
        .filter(|s| !matches!(s.outcome, StepOutcome::Ok | StepOutcome::Skipped))
        .filter(|s| Some(s.index) != interrupted)
        .map(|s| s.index)
        .collect();
    let first_failure = failed_steps
        .first()
        .and_then(|&i| steps.iter().find(|s| s.index == i))
        .map(|s| {
            let mut why = describe(s);
            if failed_steps.len() > 1 {
                why.push_str(&format!(
                    " (and {} more step{} did not end ok)",
                    failed_steps.len() - 1,
                    if failed_steps.len() == 2 { "" } else { "s" }
                ));
            }
            why
        });
    let at = |i: usize| match steps.iter().find(|s| s.index == i) {
        Some(s) => format!("step {} ({})", i + 1, s.tool),
        None => format!("step {}", i + 1),
    };
    let (state, reason) = if let Some(why) = aborted {
        (RunState::Failed, Some(why.to_string()))
    } else if let (Some(stop), Some(i)) = (stop, stopped_at) {
        let (state, what) = match stop {
            Stop::Cancelled { by } => (RunState::Cancelled, format!("cancelled by {by}")),
            Stop::TimedOut { limit_secs } => (
                RunState::TimedOut,
                format!("stopped by its time limit of {limit_secs} s"),
            ),
        };
        let mut why = format!("{what} at {}", at(i));
        if let Some(f) = &first_failure {
            why.push_str(&format!("; before that, {f}"));
        }
        (state, Some(why))
    } else if let Some(f) = first_failure {
        (RunState::Failed, Some(f))
    } else {
        (RunState::Succeeded, None)
    };
    Verdict {
        state,
        reason,
        stopped_at_step: stopped_at.filter(|_| state != RunState::Succeeded),
        failed_steps,
    }
}

/// `step 2 (android_uninstall_app) denied: <error>`.
fn describe(s: &StepLog) -> String {
    let outcome = serde_json::to_value(s.outcome)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default();
    match &s.error {
        Some(e) => format!("step {} ({}) {outcome}: {e}", s.index + 1, s.tool),
        None => format!("step {} ({}) {outcome}", s.index + 1, s.tool),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(index: usize, outcome: StepOutcome) -> StepLog {
        StepLog {
            index,
            tool: format!("tool_{index}"),
            arguments: serde_json::json!({}),
            outcome,
            result: None,
            error: (outcome != StepOutcome::Ok && outcome != StepOutcome::Skipped)
                .then(|| "why".into()),
            duration_ms: 0,
            started_at: String::new(),
            images: vec![],
            call_id: None,
        }
    }

    #[test]
    fn every_step_ok_is_the_only_success() {
        use StepOutcome::*;
        let ok = [step(0, Ok), step(1, Ok)];
        assert_eq!(decide(&ok, None, None, None).state, RunState::Succeeded);
        for bad in [Error, Denied, Refused, Cancelled, Timeout, AssertionFailed] {
            // stopOnError: false — the run went on, and still did not succeed.
            let steps = [step(0, Ok), step(1, bad), step(2, Ok)];
            let v = decide(&steps, None, None, None);
            assert_eq!(v.state, RunState::Failed, "{bad:?}");
            assert_eq!(v.failed_steps, [1]);
            assert_eq!(v.stopped_at_step, None);
            assert!(v.reason.unwrap().starts_with("step 2 (tool_1)"));
        }
    }

    #[test]
    fn a_stop_names_the_step_and_keeps_earlier_failures() {
        use StepOutcome::*;
        let steps = [step(0, Denied), step(1, Cancelled), step(2, Skipped)];
        let by = Stop::Cancelled {
            by: "agent/1".into(),
        };
        let v = decide(&steps, Some(&by), Some(1), None);
        assert_eq!(v.state, RunState::Cancelled);
        assert_eq!((v.stopped_at_step, v.failed_steps), (Some(1), vec![0]));
        let why = v.reason.unwrap();
        assert!(
            why.starts_with("cancelled by agent/1 at step 2 (tool_1)"),
            "{why}"
        );
        assert!(why.contains("step 1 (tool_0) denied"), "{why}");
        let limit = Stop::TimedOut { limit_secs: 5 };
        let v = decide(&steps, Some(&limit), Some(1), None);
        assert_eq!(v.state, RunState::TimedOut);
    }

    #[test]
    fn a_stop_after_the_last_step_changes_nothing() {
        let steps = [step(0, StepOutcome::Ok)];
        let by = Stop::Cancelled { by: "x".into() };
        let v = decide(&steps, Some(&by), None, None);
        assert_eq!((v.state, v.reason), (RunState::Succeeded, None));
    }

    #[test]
    fn aborted_before_any_step_is_failed() {
        let steps = [step(0, StepOutcome::Skipped)];
        let v = decide(&steps, None, Some(0), Some("keepScreenOn: off"));
        assert_eq!(v.state, RunState::Failed);
        assert_eq!(v.stopped_at_step, Some(0));
    }
}
