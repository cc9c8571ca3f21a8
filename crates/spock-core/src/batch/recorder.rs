//! Recording: while a person has a recording open, every successful tool call (from an agent
//! or the control centre) becomes a step. What is captured is decided here, in one place:
//! actions, asserts, screenshots and every other successful catalogue call; never batch tools
//! (a task cannot run batches) nor `spock_*` host tools (they change this program, not the
//! device), nor calls made by a batch run (replaying a task while recording would double it),
//! nor failed, refused, denied or cancelled calls.
use std::sync::Mutex;

use serde_json::Value;

use super::task::{Step, is_batch_tool};
use crate::model::Outcome;

/// What a recording in progress has captured so far.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Recording {
    pub name: String,
    pub started_at: String,
    pub steps: Vec<Step>,
}

#[derive(Debug, Default)]
pub struct Recorder {
    slot: Mutex<Option<Recording>>,
}

/// Whether a finished call belongs in a recording.
pub fn records(tool: &str, outcome: Outcome) -> bool {
    outcome == Outcome::Ok && !is_batch_tool(tool) && !tool.starts_with("spock_")
}

impl Recorder {
    /// False when a recording is already open (it is left as it is).
    pub fn start(&self, name: &str) -> bool {
        let Ok(mut slot) = self.slot.lock() else {
            return false;
        };
        if slot.is_some() {
            return false;
        }
        *slot = Some(Recording {
            name: name.to_string(),
            started_at: super::task::now(),
            steps: Vec::new(),
        });
        true
    }

    pub fn stop(&self) -> Option<Recording> {
        self.slot.lock().ok().and_then(|mut s| s.take())
    }

    pub fn is_recording(&self) -> bool {
        self.slot.lock().map(|s| s.is_some()).unwrap_or(false)
    }

    /// The recording in progress, for the control centre to show.
    pub fn current(&self) -> Option<Recording> {
        self.slot.lock().ok().and_then(|s| s.clone())
    }

    /// Offered every finished call that is not itself a batch step.
    /// `private`: arguments kept out of the step's record (see [`Step::private`]).
    pub fn offer(&self, tool: &str, args: &Value, private: Option<&Value>, outcome: Outcome) {
        if !records(tool, outcome) {
            return;
        }
        if let Ok(mut slot) = self.slot.lock()
            && let Some(rec) = slot.as_mut()
        {
            let mut step = Step::new(tool, args.clone());
            step.private = private.cloned();
            rec.steps.push(step);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn captures_successful_device_calls_only_while_open() {
        let r = Recorder::default();
        r.offer(
            "android_launch_app",
            &json!({"packageName": "a.b"}),
            None,
            Outcome::Ok,
        );
        assert!(r.start("demo"));
        assert!(!r.start("again"), "one recording at a time");
        r.offer(
            "android_launch_app",
            &json!({"packageName": "a.b"}),
            None,
            Outcome::Ok,
        );
        r.offer(
            "android_tap",
            &json!({"x": 1, "y": 2}),
            None,
            Outcome::Error,
        );
        r.offer(
            "android_uninstall_app",
            &json!({"packageName": "a.b"}),
            None,
            Outcome::Denied,
        );
        // A destructive call's started record is no call of its own: its ending is the step.
        r.offer(
            "android_uninstall_app",
            &json!({"packageName": "a.b"}),
            None,
            Outcome::Started,
        );
        r.offer("android_batch_list", &json!({}), None, Outcome::Ok);
        r.offer("spock_get_status", &json!({}), None, Outcome::Ok);
        r.offer("android_take_screenshot", &json!({}), None, Outcome::Ok);
        assert_eq!(r.current().map(|c| c.steps.len()), Some(2));
        let rec = r.stop().unwrap();
        assert_eq!(rec.name, "demo");
        let tools: Vec<&str> = rec.steps.iter().map(|s| s.tool.as_str()).collect();
        assert_eq!(tools, ["android_launch_app", "android_take_screenshot"]);
        assert!(!r.is_recording());
        assert!(r.stop().is_none());
    }
}
