//! Every screen, the request details, the confirmation modal and the help overlay, drawn to a
//! `TestBackend` at 80×24 (the smallest supported terminal) and 200×60, and compared with the
//! stored snapshots under `tests/snapshots/`.
use crate::support::tui_fixture;

use std::time::Duration;

use crossterm::event::KeyCode;
use serde_json::json;
use spock_tui::mcp::events::{DecidedBy, Decision, Outcome, Transport};
use spock_tui::mcp::registry::Level;
use spock_tui::tui::State;
use spock_tui::tui::event::Event;
use tui_fixture::*;

const SIZES: [(u16, u16); 2] = [(80, 24), (200, 60)];

/// A session with a client, finished calls of every outcome and one still running.
fn session() -> State {
    let mut s = state();
    let mut v = view();
    v.clients = vec![
        seen("claude-code", Transport::Stdio),
        seen("cursor", Transport::Http),
    ];
    s.update(Event::Sync(Box::new(v)));
    let calls = [
        (
            1,
            "android_take_screenshot",
            Level::ReadOnly,
            Outcome::Ok,
            None,
            json!({"serial": "emulator-5554"}),
        ),
        (
            2,
            "android_tap",
            Level::SafeAction,
            Outcome::Ok,
            None,
            json!({"x": 540, "y": 1200, "serial": "emulator-5554"}),
        ),
        (
            3,
            "android_uninstall_app",
            Level::Destructive,
            Outcome::Ok,
            Some(Decision {
                approved: true,
                by: DecidedBy::Key,
            }),
            json!({"packageName": "com.example.todo", "serial": "emulator-5554"}),
        ),
        (
            4,
            "android_uninstall_app",
            Level::Destructive,
            Outcome::Denied,
            Some(Decision {
                approved: false,
                by: DecidedBy::Timeout,
            }),
            json!({"packageName": "com.android.chrome", "serial": "R58M123"}),
        ),
        (
            5,
            "spock_update_settings",
            Level::Destructive,
            Outcome::Refused,
            None,
            json!({"historySize": 5}),
        ),
        (
            6,
            "android_tap",
            Level::SafeAction,
            Outcome::Error,
            None,
            json!({"x": 5000, "y": 1, "serial": "R58M123"}),
        ),
    ];
    for (id, tool, level, outcome, decision, args) in calls {
        let dev = args
            .get("serial")
            .and_then(|v| v.as_str())
            .map(str::to_string);
        s.update(started(
            id,
            id as i64 * 3,
            tool,
            level,
            dev.as_deref(),
            args,
        ));
        s.update(finished(
            id,
            tool,
            outcome,
            40 + id * 17,
            decision,
            json!({"result": format!("call {id}")}),
        ));
    }
    s.update(started(
        7,
        25,
        "android_tap",
        Level::SafeAction,
        Some("emulator-5554"),
        json!({"x": 1, "y": 2}),
    ));
    // Leave out the footer message call 4's timeout left: the snapshots show the screens.
    s.notices.clear();
    s
}

fn snap(name: &str, s: &mut State) {
    for (w, h) in SIZES {
        let text = render(s, w, h);
        insta::assert_snapshot!(format!("{name}_{w}x{h}"), text);
    }
}

#[test]
fn status_screen() {
    snap("status_no_client", &mut state());
    snap("status_clients", &mut session());
}

#[test]
fn tools_screen() {
    let mut s = session();
    s.update(key('2'));
    snap("tools", &mut s);
}

#[test]
fn activity_screen() {
    let mut s = session();
    s.update(key('3'));
    snap("activity", &mut s);
}

#[test]
fn details_screen() {
    let mut s = session();
    s.update(key('3'));
    for _ in 0..4 {
        s.update(code(KeyCode::Down));
    }
    s.update(code(KeyCode::Enter));
    snap("details_destructive", &mut s);
}

#[test]
fn history_screen() {
    let mut s = session();
    s.update(key('4'));
    snap("history", &mut s);
    s.update(key('/'));
    for c in "uninstall".chars() {
        s.update(key(c));
    }
    s.update(code(KeyCode::Enter));
    snap("history_search", &mut s);
}

#[test]
fn settings_screen() {
    let mut s = session();
    s.update(key('5'));
    snap("settings", &mut s);
}

#[test]
fn batch_screen() {
    let mut s = state();
    s.update(key('6'));
    snap("batch", &mut s);
}

#[test]
fn help_overlay() {
    let mut s = state();
    s.update(key('?'));
    snap("help", &mut s);
}

#[tokio::test]
async fn confirmation_modal() {
    let mut asker = Asker::new(Duration::from_secs(60));
    let mut s = Console::new(session());
    let args = json!({"command": "shell pm clear com.example.todo", "reason": "reset the app between test runs; no typed tool clears only the cache", "serial": "emulator-5554"});
    let (req, _h1) = asker
        .ask(ask(
            "android_run_adb_command",
            args,
            Some("reset the app between test runs; no typed tool clears only the cache"),
        ))
        .await;
    // A fixed countdown: the snapshot's clock stands 60 s before the deadline.
    s.now = req.deadline - Duration::from_secs(60);
    s.confirm(req);
    let (req2, _h2) = asker
        .ask(ask(
            "android_uninstall_app",
            json!({"package_name": "com.b"}),
            None,
        ))
        .await;
    s.confirm(req2);
    snap("confirm_modal", &mut s);
}

/// At 80 columns the right of the tab bar (calls running, the demo mark, the server's state)
/// never covers a tab: what does not fit is left out, the server's state last.
#[test]
fn the_tab_bar_is_never_covered_at_80_columns() {
    let mut s = session();
    s.demo = true;
    for w in [80, 90] {
        let screen = render(&mut s, w, 24);
        let top = screen.lines().next().unwrap();
        assert!(top.contains("6 Batch"), "{top}");
        assert!(top.contains("[running]"), "{top}");
    }
    let top = render(&mut s, 80, 24).lines().next().unwrap().to_string();
    assert!(
        top.contains("exec 1"),
        "the running call has room at 80: {top}"
    );
    // Where there is room, all of it, the long way.
    let top = render(&mut s, 200, 24).lines().next().unwrap().to_string();
    assert!(top.contains("executing 1") && top.contains("demo"), "{top}");
}
