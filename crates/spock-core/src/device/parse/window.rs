//! `dumpsys window` (and `dumpsys window windows` / `displays`): which window has focus and
//! which app it belongs to, best effort.
//!
//! `mCurrentFocus` / `mFocusedApp` are printed by `dumpsys window` and `dumpsys window
//! displays` (and `dumpsys activity activities`), but not by `dumpsys window windows`; there
//! the top visible application window (`type=1`, listed top of Z order first) and the IME
//! target stand in, and `source` says which line decided.
use serde::Serialize;

use super::{ActivityRef, Component, kv};

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WindowFocus {
    /// The focused window (`mCurrentFocus`); may be a system window such as NotificationShade.
    pub current_focus: Option<WindowRef>,
    /// The app window manager considers focused (`mFocusedApp`).
    pub focused_app: Option<ActivityRef>,
    /// Foreground app package and activity, from the most specific line available.
    pub package: Option<String>,
    pub activity: Option<String>,
    /// mCurrentFocus / mFocusedApp / topVisibleAppWindow / imeInputTarget.
    pub source: Option<String>,
}

/// A `Window{hash u0 title}` reference.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WindowRef {
    pub title: String,
    /// Set when the title is an activity component (`pkg/.Cls`).
    pub package: Option<String>,
    pub activity: Option<String>,
    pub user: Option<u32>,
}

impl WindowRef {
    /// Finds the first `Window{...}` in `line`. Vivo prefixes the hash with the owner
    /// (`Window{com.android.systemui:6d67f78 u0 StatusBar type=2000 }`).
    pub fn find(line: &str) -> Option<WindowRef> {
        let start = line.find("Window{")? + "Window{".len();
        let body = line[start..].split('}').next()?;
        let mut words = body.split_whitespace();
        words.next()?;
        let mut user = None;
        let mut title: Vec<&str> = Vec::new();
        for (i, w) in words.enumerate() {
            if i == 0
                && let Some(u) = w.strip_prefix('u').and_then(|n| n.parse().ok())
            {
                user = Some(u);
                continue;
            }
            if w.starts_with("type=") || w == "EXITING" {
                continue;
            }
            title.push(w);
        }
        if title.is_empty() {
            return None;
        }
        let component = title.first().and_then(|t| Component::parse(t));
        Some(WindowRef {
            title: title.join(" "),
            package: component.as_ref().map(|c| c.package.clone()),
            activity: component.map(|c| c.class),
            user,
        })
    }
}

/// The first `Window #N` block that is an application window (type=1) and visible.
fn top_visible_app_window(text: &str) -> Option<WindowRef> {
    let mut candidate: Option<WindowRef> = None;
    for line in text.lines() {
        let t = line.trim();
        if t.starts_with("Window #") {
            candidate = WindowRef::find(t).filter(|_| kv(t, "type") == Some("1"));
        } else if let Some(c) = &candidate
            && (t == "isVisible=true" || t == "isOnScreen=true")
            && c.package.is_some()
        {
            return candidate;
        }
    }
    None
}

pub fn parse_focus(text: &str) -> WindowFocus {
    let mut f = WindowFocus::default();
    let mut ime: Option<WindowRef> = None;
    for line in text.lines() {
        let t = line.trim();
        if f.current_focus.is_none() && t.starts_with("mCurrentFocus=") {
            f.current_focus = WindowRef::find(t);
        } else if f.focused_app.is_none() && t.starts_with("mFocusedApp=") {
            f.focused_app = ActivityRef::find(t);
        } else if ime.is_none() && t.starts_with("imeInputTarget") {
            ime = WindowRef::find(t).filter(|w| w.package.is_some());
        }
    }
    let pick = |pkg: Option<String>, act: Option<String>, src: &str, f: &mut WindowFocus| {
        if f.package.is_none() && pkg.is_some() {
            f.package = pkg;
            f.activity = act;
            f.source = Some(src.to_string());
        }
    };
    if let Some(w) = f.current_focus.clone() {
        pick(w.package, w.activity, "mCurrentFocus", &mut f);
    }
    if let Some(a) = f.focused_app.clone() {
        pick(Some(a.package), Some(a.class), "mFocusedApp", &mut f);
    }
    if f.package.is_none()
        && let Some(w) = top_visible_app_window(text)
    {
        pick(w.package, w.activity, "topVisibleAppWindow", &mut f);
    }
    if let Some(w) = ime {
        pick(w.package, w.activity, "imeInputTarget", &mut f);
    }
    f
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::parse::fixture;

    #[test]
    fn vivo_windows_without_current_focus() {
        let f = parse_focus(&fixture("dumpsys/window-windows-vivo.txt"));
        assert_eq!(f.current_focus, None);
        assert_eq!(f.focused_app, None);
        assert_eq!(f.package.as_deref(), Some("com.kryptoloot.app"));
        assert_eq!(f.activity.as_deref(), Some("com.example.MainActivity"));
        assert_eq!(f.source.as_deref(), Some("topVisibleAppWindow"));
    }

    #[test]
    fn activity_dump_focus_is_system_window_so_app_comes_from_focused_app() {
        let f = parse_focus(&fixture("dumpsys/activity-activities-android13-mtk.txt"));
        let cur = f.current_focus.unwrap();
        assert_eq!(cur.title, "NotificationShade");
        assert_eq!((cur.package, cur.user), (None, Some(0)));
        assert_eq!(f.package.as_deref(), Some("com.mediatek.camera"));
        assert_eq!(
            f.activity.as_deref(),
            Some("com.mediatek.camera.CameraLauncher")
        );
        assert_eq!(f.source.as_deref(), Some("mFocusedApp"));
    }

    #[test]
    fn current_focus_line_and_null() {
        let text = "  mCurrentFocus=Window{5ad2a1f u0 com.example.shop/com.example.shop.LoginActivity}\n  \
                    mFocusedApp=ActivityRecord{8f1 u0 com.example.shop/.LoginActivity t31}\n";
        let f = parse_focus(text);
        assert_eq!(f.source.as_deref(), Some("mCurrentFocus"));
        assert_eq!(
            f.activity.as_deref(),
            Some("com.example.shop.LoginActivity")
        );
        let f = parse_focus("  mCurrentFocus=null\n  mFocusedApp=null\n");
        assert_eq!(f, WindowFocus::default());
        let w = WindowRef::find("Window{77227e7 u0 Splash Screen dev.app EXITING}").unwrap();
        assert_eq!(w.title, "Splash Screen dev.app");
    }
}
