//! Parsers for what Android commands print, proven on the captures in tests/fixtures/.
//!
//! Each submodule owns one command family and is a set of pure functions from the text a
//! device printed to a typed, `Serialize` value (camelCase JSON, because tools hand these to
//! agents as-is). Device output is untrusted and varies by vendor and release, so nothing
//! here panics: a line that is missing becomes `None`, a line that is ambiguous is kept raw.
//! The helpers in this file are the shapes several dumps share (`pkg/.Class` components,
//! `ActivityRecord{...}` references, `key=value` runs).
use serde::Serialize;

pub mod activity;
pub mod am;
pub mod apk;
pub mod appfn;
pub mod battery;
pub mod getevent;
pub mod getprop;
pub mod input;
pub mod logcat;
pub mod net;
pub mod package;
pub mod packages;
pub mod ps;
pub mod window;
pub mod wm;

/// Why a parser could not make sense of its input at all (most parsers degrade to `None`
/// fields instead; this is for outputs with no usable structure).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    #[error("no JSON found in the output: {0}")]
    NoJson(String),
    #[error("malformed JSON: {0}")]
    BadJson(String),
}

/// An Android component name, as printed `com.pkg/.Cls` or `com.pkg/com.pkg.Cls`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Component {
    pub package: String,
    /// Fully qualified class name (a leading `.` is expanded with the package).
    pub class: String,
}

impl Component {
    pub fn parse(s: &str) -> Option<Component> {
        let s = s.trim();
        let (package, class) = s.split_once('/')?;
        if package.is_empty() || class.is_empty() || package.contains(char::is_whitespace) {
            return None;
        }
        let class = if let Some(rest) = class.strip_prefix('.') {
            format!("{package}.{rest}")
        } else {
            class.to_string()
        };
        Some(Component {
            package: package.to_string(),
            class,
        })
    }

    /// The short form Android prints and `am start -n` accepts.
    pub fn flat(&self) -> String {
        match self.class.strip_prefix(&self.package) {
            Some(rest) if rest.starts_with('.') => format!("{}/{}", self.package, rest),
            _ => format!("{}/{}", self.package, self.class),
        }
    }
}

/// A reference to an activity as printed `ActivityRecord{1f72345 u0 com.pkg/.Cls t12}`
/// (some vendors add ` d0`; older releases omit the task).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ActivityRef {
    pub package: String,
    pub class: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub user: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub task_id: Option<i64>,
}

impl ActivityRef {
    /// Finds the first `ActivityRecord{...}` in `line`.
    pub fn find(line: &str) -> Option<ActivityRef> {
        let start = line.find("ActivityRecord{")? + "ActivityRecord{".len();
        let rest = &line[start..];
        let (body, after) = rest.split_once('}').unwrap_or((rest, ""));
        // Android 12+ prints the task outside the first brace: `{1f72345 u0 a/.B} t12}`.
        let trailing = after.split_whitespace().next().filter(|t| t.ends_with('}'));
        let body = format!("{body} {}", trailing.unwrap_or("").trim_end_matches('}'));
        let mut user = None;
        let mut task_id = None;
        let mut component = None;
        for tok in body.split_whitespace().skip(1) {
            if let Some(u) = tok.strip_prefix('u').and_then(|n| n.parse().ok()) {
                user = Some(u);
            } else if let Some(t) = tok.strip_prefix('t').and_then(|n| n.parse().ok()) {
                task_id = Some(t);
            } else if component.is_none() && tok.contains('/') {
                component = Component::parse(tok);
            }
        }
        let c = component?;
        Some(ActivityRef {
            package: c.package,
            class: c.class,
            user,
            task_id,
        })
    }

    pub fn component(&self) -> Component {
        Component {
            package: self.package.clone(),
            class: self.class.clone(),
        }
    }
}

/// The value after `key` in a `key=value key2=value2` run, up to the next space.
pub(crate) fn kv<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let mut from = 0;
    while let Some(pos) = line[from..].find(key) {
        let at = from + pos;
        let boundary = at == 0 || line[..at].ends_with([' ', '{', ',', '\t', '(']);
        let rest = &line[at + key.len()..];
        if boundary && let Some(v) = rest.strip_prefix('=') {
            return Some(v.split([' ', ',', '}']).next().unwrap_or(v));
        }
        from = at + key.len();
    }
    None
}

/// Leading spaces of a line (tabs count as one), the nesting key of every dumpsys format.
pub(crate) fn indent(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

#[cfg(test)]
pub(crate) use crate::testdata::fixture;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn component_expands_short_class() {
        let c = Component::parse("com.mediatek.camera/.CameraLauncher").unwrap();
        assert_eq!(c.class, "com.mediatek.camera.CameraLauncher");
        assert_eq!(c.flat(), "com.mediatek.camera/.CameraLauncher");
        let c = Component::parse("com.android.launcher3/com.bbk.launcher2.Launcher").unwrap();
        assert_eq!(c.class, "com.bbk.launcher2.Launcher");
        assert_eq!(c.flat(), "com.android.launcher3/com.bbk.launcher2.Launcher");
        assert!(Component::parse("NotificationShade").is_none());
        assert!(Component::parse("/x").is_none());
    }

    #[test]
    fn activity_ref_reads_user_and_task() {
        let r = ActivityRef::find(
            "mActivityRecord=ActivityRecord{48427050 u0 com.kryptoloot.app/com.example.MainActivity t627 d0}",
        )
        .unwrap();
        assert_eq!(r.package, "com.kryptoloot.app");
        assert_eq!(r.class, "com.example.MainActivity");
        assert_eq!((r.user, r.task_id), (Some(0), Some(627)));
        assert!(ActivityRef::find("ActivityRecord{").is_none());
        let r =
            ActivityRef::find("ResumedActivity: ActivityRecord{1f72345 u0 com.a/.B} t12}").unwrap();
        assert_eq!((r.class.as_str(), r.task_id), ("com.a.B", Some(12)));
        let r = ActivityRef::find("x=ActivityRecord{1 u0 com.a/.B} other").unwrap();
        assert_eq!(r.task_id, None);
    }

    /// Every parser on every capture (and on truncations of it): wrong input must degrade,
    /// never panic.
    #[test]
    fn no_parser_panics_on_any_fixture() {
        let dirs = ["dumpsys", "getprop", "misc"];
        let mut seen = 0;
        for dir in dirs {
            for path in crate::testdata::fixture_files(dir) {
                let text = std::fs::read_to_string(&path).expect("capture");
                seen += 1;
                let cuts = [text.len() / 3, text.len() / 2, text.len().saturating_sub(7)];
                let mut inputs = vec![text.clone()];
                for c in cuts {
                    let c = (0..=c)
                        .rev()
                        .find(|&i| text.is_char_boundary(i))
                        .unwrap_or(0);
                    inputs.push(text[..c].to_string());
                }
                for t in &inputs {
                    let _ = getprop::DeviceProps::from_map(&getprop::parse(t));
                    let _ = (wm::parse_size(t), wm::parse_density(t), battery::parse(t));
                    let _ = (
                        activity::parse_activities(t),
                        activity::parse_all_fragments(t),
                    );
                    let _ = (activity::is_bad_command(t), window::parse_focus(t));
                    let _ = (
                        package::parse(t, "com.tekartik.package1"),
                        packages::parse_list(t),
                    );
                    let _ = (
                        net::parse_ip_addr(t),
                        net::parse_connectivity(t),
                        net::parse_wifi(t),
                    );
                    let lines = logcat::parse_threadtime(t);
                    let _ = (
                        logcat::crashes(&lines),
                        ps::parse(t),
                        getevent::parse_devices(t),
                    );
                    let _ = (appfn::parse_list(t), am::parse_start_w(t));
                }
            }
        }
        assert!(seen >= 16, "only {seen} fixtures found");
    }

    #[test]
    fn kv_respects_word_boundaries() {
        let line = "mResumed=true mStopped=false visibleRequested=false visible=true";
        assert_eq!(kv(line, "visible"), Some("true"));
        assert_eq!(kv(line, "mStopped"), Some("false"));
        assert_eq!(kv(line, "nothing"), None);
    }
}
