//! `dumpsys activity activities` (tasks and their activities, top first, and the resumed
//! one), `dumpsys activity top` (fragments, in [`fragments`]), and the error text
//! `dumpsys activity <name>` prints when nothing matches.
//!
//! Tasks come only from the `Display #N (activities from top to bottom):` sections: the same
//! `Task{...}` lines reappear later in the dump (`Application tokens in top down Z order`)
//! and must not be counted twice. Modern releases print `* Task{hash #id type=... A=uid:aff
//! ...}` (nested: a root task holding leaf tasks and TaskFragments); Android 9 and older
//! print `* TaskRecord{hash #id A=aff U=0 StackId=1 sz=1}`. Both are read here.
use serde::Serialize;

use super::{ActivityRef, Component, indent, kv};

mod fragments;

pub use fragments::{FragmentNode, TopFragments, parse_all_fragments, parse_top_fragments};

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ActivityStack {
    /// Tasks that hold activities, top first (empty container tasks are left out).
    pub tasks: Vec<Task>,
    /// The resumed (foreground) activity.
    pub resumed: Option<ActivityRef>,
    /// Window manager's focused app token (`mFocusedApp`), when printed.
    pub focused_app: Option<ActivityRef>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Task {
    pub id: i64,
    /// standard / home / recents / assistant / undefined.
    pub r#type: Option<String>,
    /// Task affinity (the `uid:` prefix modern releases add is dropped).
    pub affinity: Option<String>,
    /// The intent component that rooted the task (`I=`), when printed instead of an affinity.
    pub root: Option<Component>,
    /// The root task holding this one, for nested tasks.
    pub parent_id: Option<i64>,
    pub visible: Option<bool>,
    /// fullscreen / multi-window / pinned / freeform.
    pub mode: Option<String>,
    /// Top first.
    pub activities: Vec<Activity>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Activity {
    pub package: String,
    pub class: String,
    /// RESUMED / PAUSED / STOPPED / DESTROYED / ... as printed.
    pub state: Option<String>,
    pub visible: Option<bool>,
}

fn task_header(line: &str) -> Option<Task> {
    let t = line.trim_start().strip_prefix("* ")?;
    let body = t
        .strip_prefix("Task{")
        .or_else(|| t.strip_prefix("TaskRecord{"))?;
    let body = body.strip_suffix('}').unwrap_or(body);
    let id = body
        .split_whitespace()
        .find_map(|w| w.strip_prefix('#')?.parse().ok())?;
    let affinity = kv(body, "A").map(|a| match a.split_once(':') {
        Some((uid, rest)) if uid.chars().all(|c| c.is_ascii_digit()) => rest.to_string(),
        _ => a.to_string(),
    });
    Some(Task {
        id,
        r#type: kv(body, "type").map(str::to_string),
        affinity,
        root: kv(body, "I").and_then(Component::parse),
        parent_id: kv(body, "rootTaskId").and_then(|v| v.parse().ok()),
        visible: kv(body, "visible").and_then(|v| v.parse().ok()),
        mode: kv(body, "mode").map(str::to_string),
        activities: Vec::new(),
    })
}

pub fn parse_activities(text: &str) -> ActivityStack {
    let mut stack = ActivityStack::default();
    let mut tasks: Vec<Task> = Vec::new();
    // Open tasks by indentation: (indent, index into `tasks`).
    let mut open: Vec<(usize, usize)> = Vec::new();
    // The activity whose block we are in: (indent of its `* Hist` line, task index).
    let mut current: Option<(usize, usize)> = None;
    let mut in_display = false;
    let mut resumed: [Option<ActivityRef>; 4] = Default::default();

    for line in text.lines() {
        let trimmed = line.trim();
        // Several labels name the resumed activity across releases; the most specific wins.
        let slot = if trimmed.starts_with("topResumedActivity=") {
            Some(0)
        } else if trimmed.starts_with("ResumedActivity:") {
            Some(1)
        } else if trimmed.starts_with("mResumedActivity:") {
            Some(2)
        } else if trimmed.starts_with("Resumed:") {
            Some(3)
        } else {
            None
        };
        if let Some(i) = slot
            && resumed[i].is_none()
        {
            resumed[i] = ActivityRef::find(trimmed);
        }
        if trimmed.starts_with("mFocusedApp=") && stack.focused_app.is_none() {
            stack.focused_app = ActivityRef::find(trimmed);
        }

        let ind = indent(line);
        if ind == 0 && !trimmed.is_empty() {
            in_display = trimmed.starts_with("Display #");
            open.clear();
            current = None;
            continue;
        }
        if !in_display || trimmed.is_empty() {
            continue;
        }
        if let Some((hist_indent, _)) = current
            && ind <= hist_indent
        {
            current = None;
        }
        if let Some(task) = task_header(line) {
            open.retain(|&(i, _)| i < ind);
            tasks.push(task);
            open.push((ind, tasks.len() - 1));
            continue;
        }
        if trimmed.starts_with("* Hist") {
            open.retain(|&(i, _)| i < ind);
            let (Some(&(_, ti)), Some(r)) = (open.last(), ActivityRef::find(trimmed)) else {
                continue;
            };
            if let Some(task) = tasks.get_mut(ti) {
                task.activities.push(Activity {
                    package: r.package,
                    class: r.class,
                    state: None,
                    visible: None,
                });
                current = Some((ind, ti));
            }
            continue;
        }
        if let Some((_, ti)) = current
            && let Some(act) = tasks.get_mut(ti).and_then(|t| t.activities.last_mut())
        {
            if act.state.is_none()
                && let Some(s) = kv(trimmed, "state")
            {
                act.state = Some(s.to_string());
            }
            if act.visible.is_none()
                && let Some(v) = kv(trimmed, "mVisible").or_else(|| {
                    trimmed
                        .starts_with("visible=")
                        .then(|| kv(trimmed, "visible"))?
                })
            {
                act.visible = v.parse().ok();
            }
        }
    }
    stack.tasks = tasks
        .into_iter()
        .filter(|t| !t.activities.is_empty())
        .collect();
    stack.resumed = resumed.into_iter().flatten().next();
    stack
}

/// `dumpsys activity <name>` printed its "nothing matched" text instead of a dump.
pub fn is_bad_command(text: &str) -> bool {
    text.lines().any(|l| {
        let l = l.trim();
        l.starts_with("Bad activity command") || l.starts_with("No activities found")
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::parse::fixture;

    #[test]
    fn android13_mtk_stack() {
        let s = parse_activities(&fixture("dumpsys/activity-activities-android13-mtk.txt"));
        let ids: Vec<i64> = s.tasks.iter().map(|t| t.id).collect();
        assert_eq!(
            ids,
            vec![12, 9, 10, 11],
            "tasks with activities, top first, no duplicates"
        );

        let camera = &s.tasks[0];
        assert_eq!(camera.r#type.as_deref(), Some("standard"));
        assert_eq!(
            camera.affinity.as_deref(),
            Some("com.mediatek.camera.CameraActivity")
        );
        assert_eq!(camera.visible, Some(true));
        assert_eq!(camera.mode.as_deref(), Some("fullscreen"));
        assert_eq!(camera.activities.len(), 1);
        assert_eq!(
            camera.activities[0].class,
            "com.mediatek.camera.CameraLauncher"
        );
        assert_eq!(camera.activities[0].state.as_deref(), Some("STOPPED"));
        assert_eq!(camera.activities[0].visible, Some(false));

        let home = &s.tasks[1];
        assert_eq!(home.parent_id, Some(1));
        let root = home.root.as_ref().unwrap();
        assert_eq!(
            root.class,
            "com.android.launcher3.uioverrides.QuickstepLauncher"
        );
        assert_eq!(home.affinity, None);

        // Task #10 holds three activities across two TaskFragments, top first.
        let settings = &s.tasks[2];
        let classes: Vec<&str> = settings
            .activities
            .iter()
            .map(|a| a.class.as_str())
            .collect();
        assert_eq!(
            classes,
            vec![
                "com.android.settings.SubSettings",
                "com.android.settings.SubSettings",
                "com.android.settings.Settings"
            ]
        );
        assert!(
            settings
                .activities
                .iter()
                .all(|a| a.state.as_deref() == Some("STOPPED"))
        );

        let resumed = s.resumed.unwrap();
        assert_eq!(resumed.package, "com.mediatek.camera");
        assert_eq!(resumed.class, "com.mediatek.camera.CameraLauncher");
        assert_eq!(resumed.task_id, Some(12));
        assert_eq!(s.focused_app.unwrap().task_id, Some(12));
    }

    #[test]
    fn legacy_task_record_format() {
        // Android 9 ActivityStackSupervisor layout (TaskRecord, mResumedActivity).
        let text = "ACTIVITY MANAGER ACTIVITIES (dumpsys activity activities)
Display #0 (activities from top to bottom):
  Stack #1: type=standard mode=fullscreen
    Task id #23
    * TaskRecord{a1b2c3 #23 A=com.example.shop U=0 StackId=1 sz=2}
      * Hist #1: ActivityRecord{11aa u0 com.example.shop/.CartActivity t23}
          state=RESUMED stopped=false delayedResume=false finishing=false
          visible=true sleeping=false idle=true
      * Hist #0: ActivityRecord{22bb u0 com.example.shop/.MainActivity t23}
          state=STOPPED stopped=true delayedResume=false finishing=false
    Running activities (most recent first):
      TaskRecord{a1b2c3 #23 A=com.example.shop U=0 StackId=1 sz=2}
        Run #1: ActivityRecord{11aa u0 com.example.shop/.CartActivity t23}
    mResumedActivity: ActivityRecord{11aa u0 com.example.shop/.CartActivity t23}
";
        let s = parse_activities(text);
        assert_eq!(s.tasks.len(), 1);
        assert_eq!(s.tasks[0].affinity.as_deref(), Some("com.example.shop"));
        assert_eq!(s.tasks[0].activities[0].state.as_deref(), Some("RESUMED"));
        assert_eq!(s.tasks[0].activities[0].visible, Some(true));
        assert_eq!(
            s.tasks[0].activities[1].class,
            "com.example.shop.MainActivity"
        );
        assert_eq!(s.resumed.unwrap().class, "com.example.shop.CartActivity");
    }

    #[test]
    fn bad_command_fixture() {
        assert!(is_bad_command(&fixture("dumpsys/activity-bad-command.txt")));
        let good = fixture("dumpsys/activity-activities-android13-mtk.txt");
        assert!(!is_bad_command(&good));
        assert_eq!(
            parse_activities("Bad activity command"),
            ActivityStack::default()
        );
    }
}
