//! `am start -W`: whether the launch happened and how long it took.
//!
//! ActivityManagerShellCommand prints `Starting: Intent { ... }`, then after waiting
//! `Status: ok|timeout|...`, `LaunchState: COLD|WARM|HOT|RELAUNCH`, `Activity: pkg/.Cls`,
//! `TotalTime: ms`, `WaitTime: ms`, `Complete`. Failures print `Error: ...` (and
//! `Error type N`); a launch that only surfaced an existing task prints `Warning: ...`.
use serde::Serialize;

use super::Component;

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct StartResult {
    pub status: Option<String>,
    pub launch_state: Option<String>,
    pub activity: Option<Component>,
    pub total_time_ms: Option<u64>,
    pub wait_time_ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warning: Option<String>,
    /// The `Error:` text when the start failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl StartResult {
    pub fn ok(&self) -> bool {
        self.error.is_none() && self.status.as_deref().is_none_or(|s| s == "ok")
    }
}

pub fn parse_start_w(text: &str) -> StartResult {
    let mut r = StartResult::default();
    for line in text.lines() {
        let t = line.trim();
        let Some((key, value)) = t.split_once(':') else {
            continue;
        };
        let value = value.trim();
        match key {
            "Status" => r.status = Some(value.to_string()),
            "LaunchState" => r.launch_state = Some(value.to_string()),
            "Activity" => r.activity = Component::parse(value),
            "TotalTime" => r.total_time_ms = value.parse().ok(),
            "WaitTime" => r.wait_time_ms = value.parse().ok(),
            "Warning" if r.warning.is_none() => r.warning = Some(value.to_string()),
            "Error" if r.error.is_none() => r.error = Some(value.to_string()),
            _ => {}
        }
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cold_start() {
        let text = "Starting: Intent { cmp=com.example.shop/.MainActivity }\nStatus: ok\n\
                    LaunchState: COLD\nActivity: com.example.shop/.MainActivity\nTotalTime: 512\n\
                    WaitTime: 515\nComplete\n";
        let r = parse_start_w(text);
        assert!(r.ok());
        assert_eq!(r.launch_state.as_deref(), Some("COLD"));
        assert_eq!(r.activity.unwrap().class, "com.example.shop.MainActivity");
        assert_eq!((r.total_time_ms, r.wait_time_ms), (Some(512), Some(515)));
    }

    #[test]
    fn errors_and_warnings() {
        let text = "Starting: Intent { cmp=com.example.shop/.Nope }\nError type 3\n\
                    Error: Activity class {com.example.shop/com.example.shop.Nope} does not exist.\n";
        let r = parse_start_w(text);
        assert!(!r.ok());
        assert_eq!(
            r.error.as_deref(),
            Some("Activity class {com.example.shop/com.example.shop.Nope} does not exist.")
        );
        let w = parse_start_w(
            "Warning: Activity not started, its current task has been brought to the front\nStatus: ok\n",
        );
        assert!(w.ok() && w.warning.is_some());
        assert!(!parse_start_w("Status: timeout\n").ok());
    }
}
