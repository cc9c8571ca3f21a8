//! The batch task document (longarm's shape): a named, editable list of tool calls. Owns id
//! rules (ids become file names, so they admit no path tricks) and the check that every step
//! names a catalogue tool whose own validation accepts its arguments.
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::BatchError;
use crate::mcp::registry::Registry;

/// Longest pause a step may ask for; a longer one is almost certainly a typo in milliseconds.
pub const MAX_WAIT_MS: u64 = 10 * 60 * 1000;
/// More steps than this is not a task a person can review.
pub const MAX_STEPS: usize = 500;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    #[default]
    Manual,
    Recorded,
    History,
    /// Saved by an MCP client (`android_batch_save`), not by the person: the Batch screen says
    /// so before the person runs it.
    Agent,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Step {
    /// A catalogue tool name, e.g. android_launch_app.
    pub tool: String,
    /// The tool's own arguments.
    #[serde(default = "empty_object")]
    pub arguments: Value,
    /// Pause after this step, before the next (milliseconds).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wait_ms: Option<u64>,
    /// Stop the run when this step fails or is denied (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_on_error: Option<bool>,
    /// Arguments kept out of the record: text typed into a password field while recording
    /// (the record says «password»). Stored in the task's private part (a 0600 file of its
    /// own, never serialized with the task, so never returned by `android_batch_get` or an
    /// export) and laid over `arguments` only when the step runs.
    #[serde(skip)]
    #[schemars(skip)]
    pub private: Option<Value>,
}

impl Step {
    pub fn new(tool: impl Into<String>, arguments: Value) -> Step {
        Step {
            tool: tool.into(),
            arguments,
            wait_ms: None,
            stop_on_error: None,
            private: None,
        }
    }

    /// The arguments the step runs with: the record's, with the private part laid over them.
    pub fn run_arguments(&self) -> Value {
        let mut args = self.arguments.clone();
        if let (Value::Object(to), Some(Value::Object(from))) = (&mut args, &self.private) {
            for (k, v) in from {
                to.insert(k.clone(), v.clone());
            }
        }
        args
    }
    pub fn stops_on_error(&self) -> bool {
        self.stop_on_error.unwrap_or(true)
    }
}

fn empty_object() -> Value {
    Value::Object(Map::new())
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Task {
    pub id: String,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    pub steps: Vec<Step>,
    /// RFC 3339.
    pub created_at: String,
    pub updated_at: String,
    #[serde(default)]
    pub source: Source,
}

/// A task as a person or agent writes it: everything the store fills in is optional.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TaskDraft {
    pub id: Option<String>,
    pub name: String,
    pub description: Option<String>,
    pub steps: Vec<Step>,
    pub created_at: Option<String>,
    pub updated_at: Option<String>,
    pub source: Option<Source>,
}

impl Task {
    /// A new task stamped now; the id is generated when none is given.
    pub fn new(
        id: Option<String>,
        name: impl Into<String>,
        steps: Vec<Step>,
        source: Source,
    ) -> Task {
        let now = now();
        Task {
            id: id.unwrap_or_else(|| new_id("task")),
            name: name.into(),
            description: None,
            steps,
            created_at: now.clone(),
            updated_at: now,
            source,
        }
    }

    pub fn from_draft(d: TaskDraft) -> Task {
        let mut t = Task::new(d.id, d.name, d.steps, d.source.unwrap_or_default());
        t.description = d.description;
        if let Some(c) = d.created_at {
            t.created_at = c;
        }
        if let Some(u) = d.updated_at {
            t.updated_at = u;
        }
        t
    }

    /// Everything a run or a save needs to be true: a usable id and name, and steps the
    /// catalogue accepts as written. Access and confirmation are checked per step at run time.
    pub fn validate(&self, registry: &Registry) -> Result<(), BatchError> {
        check_id(&self.id)?;
        if self.name.trim().is_empty() {
            return Err(BatchError::Invalid {
                step: None,
                message: "the task needs a name".into(),
            });
        }
        validate_steps(&self.steps, registry)
    }
}

pub fn validate_steps(steps: &[Step], registry: &Registry) -> Result<(), BatchError> {
    if steps.is_empty() {
        return Err(BatchError::Invalid {
            step: None,
            message: "the task has no steps".into(),
        });
    }
    if steps.len() > MAX_STEPS {
        return Err(BatchError::Invalid {
            step: None,
            message: format!("{} steps is more than the {MAX_STEPS} allowed", steps.len()),
        });
    }
    for (i, step) in steps.iter().enumerate() {
        let bad = |message: String| BatchError::Invalid {
            step: Some(i),
            message,
        };
        if is_batch_tool(&step.tool) {
            return Err(bad(format!(
                "{} cannot be a step: a batch cannot run or edit batches",
                step.tool
            )));
        }
        let Some(tool) = registry.get(&step.tool) else {
            return Err(bad(format!(
                "`{}` is not a tool (see tools/list)",
                step.tool
            )));
        };
        if !step.arguments.is_object() {
            return Err(bad("arguments must be a JSON object".into()));
        }
        tool.validate(&step.arguments)
            .map_err(|e| bad(format!("{}: {}", step.tool, e.message)))?;
        if step.wait_ms.is_some_and(|w| w > MAX_WAIT_MS) {
            return Err(bad(format!("waitMs is more than {MAX_WAIT_MS}")));
        }
    }
    Ok(())
}

pub fn is_batch_tool(name: &str) -> bool {
    name.starts_with("android_batch_")
}

/// Ids name files and directories: `[A-Za-z0-9_-]{1,64}`, nothing else.
pub fn check_id(id: &str) -> Result<(), BatchError> {
    let ok = (1..=64).contains(&id.len())
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    if ok {
        Ok(())
    } else {
        Err(BatchError::InvalidId(id.chars().take(80).collect()))
    }
}

pub fn now() -> String {
    crate::audit::now_rfc3339()
}

/// `prefix_YYYYmmddTHHMMSS_xxxxxxxx`: sorts by time, unique enough for one machine.
pub fn new_id(prefix: &str) -> String {
    let stamp = chrono::Utc::now().format("%Y%m%dT%H%M%S");
    let uuid = uuid::Uuid::new_v4().simple().to_string();
    format!("{prefix}_{stamp}_{}", &uuid[..8])
}

/// Parse and check a task typed into an editor. The error carries the 1-based line and column
/// to show: serde's for malformed JSON, the offending step's `"tool"` key for a bad step.
pub fn validate_json(text: &str, registry: &Registry) -> Result<Task, (usize, usize, String)> {
    let draft: TaskDraft =
        serde_json::from_str(text).map_err(|e| (e.line(), e.column(), e.to_string()))?;
    let task = Task::from_draft(draft);
    task.validate(registry).map_err(|e| {
        let (line, col) = match &e {
            BatchError::Invalid { step: Some(i), .. } => nth_key_position(text, "\"tool\"", *i),
            BatchError::InvalidId(_) => nth_key_position(text, "\"id\"", 0),
            _ => None,
        }
        .unwrap_or((1, 1));
        (line, col, e.to_string())
    })?;
    Ok(task)
}

/// Where the n-th occurrence of `needle` starts, as (line, column), both 1-based. Approximate
/// when a step's arguments themselves contain a `"tool"` key; good enough to point an editor.
fn nth_key_position(text: &str, needle: &str, n: usize) -> Option<(usize, usize)> {
    let (offset, _) = text.match_indices(needle).nth(n)?;
    let before = text.get(..offset)?;
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    Some((line, col))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn registry() -> Registry {
        crate::mcp::tools::catalogue()
    }

    #[test]
    fn ids_admit_no_path_tricks() {
        for bad in ["", "../x", "a/b", "a.json", "x y", &"a".repeat(65), "é"] {
            assert!(check_id(bad).is_err(), "{bad:?}");
        }
        for good in ["a", "task_1-2", &"Z".repeat(64)] {
            assert!(check_id(good).is_ok(), "{good:?}");
        }
        assert!(check_id(&new_id("run")).is_ok());
    }

    #[test]
    fn steps_are_checked_against_each_tools_own_validation() {
        let reg = registry();
        let ok = vec![Step::new(
            "android_launch_app",
            json!({"packageName": "com.example.shop"}),
        )];
        assert!(validate_steps(&ok, &reg).is_ok());
        let cases = [
            (Step::new("android_nope", json!({})), "not a tool"),
            (Step::new("android_launch_app", json!({})), "packageName"),
            (
                Step::new(
                    "android_launch_app",
                    json!({"packageName": "x", "bogus": 1}),
                ),
                "bogus",
            ),
            (
                Step::new("android_batch_run", json!({"id": "x"})),
                "cannot be a step",
            ),
            (Step::new("android_launch_app", json!([1])), "JSON object"),
        ];
        for (step, why) in cases {
            let e = validate_steps(&[ok[0].clone(), step], &reg)
                .unwrap_err()
                .to_string();
            assert!(e.contains(why) && e.contains("step 2"), "{e}");
        }
        assert!(validate_steps(&[], &reg).is_err());
        // The catastrophic-command precheck is part of the tool's validation, so it bites here.
        let rm = Step::new(
            "android_run_adb_command",
            json!({"command": "rm -rf /", "reason": "x"}),
        );
        assert!(validate_steps(&[rm], &reg).is_err());
    }

    #[test]
    fn editor_errors_point_at_the_problem() {
        let reg = registry();
        let (line, col, msg) =
            validate_json("{\n  \"name\": \"x\",\n  \"steps\": [,]\n}", &reg).unwrap_err();
        assert_eq!((line, col), (3, 13), "{msg}");
        let text = "{\n \"name\": \"x\",\n \"steps\": [\n  {\"tool\": \"android_launch_app\", \"arguments\": {\"packageName\": \"a.b\"}},\n  {\"tool\": \"android_nope\"}\n ]\n}";
        let (line, col, msg) = validate_json(text, &reg).unwrap_err();
        assert_eq!((line, col), (5, 4), "{msg}");
        assert!(msg.contains("android_nope"));
        let t = validate_json(
            r#"{"id":"shop","name":"Shop","steps":[{"tool":"android_launch_app","arguments":{"packageName":"com.example.shop"},"waitMs":10}]}"#,
            &reg,
        )
        .unwrap();
        assert_eq!((t.id.as_str(), t.source), ("shop", Source::Manual));
        assert_eq!(t.steps[0].wait_ms, Some(10));
        assert!(t.steps[0].stops_on_error());
        let (_, _, msg) =
            validate_json(r#"{"id":"../etc","name":"x","steps":[]}"#, &reg).unwrap_err();
        assert!(msg.contains("id"), "{msg}");
    }
}
