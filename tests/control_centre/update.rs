//! `State::update` without a terminal: keys → actions → state, modal precedence, the
//! confirmation keys and queue, navigation answers, and the effects asked of the loop.
use crate::support::tui_fixture;

use std::time::Duration;

use crossterm::event::KeyCode;
use serde_json::json;
use spock_tui::mcp::events::{DecidedBy, Decision, Outcome};
use spock_tui::mcp::registry::Level;
use spock_tui::protocol::{AccessChange, ServerCtl, ServerStatus, SettingField};
use spock_tui::tui::action::Action;
use spock_tui::tui::event::Event;
use spock_tui::tui::keymap::{Keymap, Scope};
use spock_tui::tui::screen::ScreenId;
use spock_tui::tui::state::{Button, Layer};
use spock_tui::tui::update::Effect;
use tui_fixture::*;

#[test]
fn number_keys_and_tab_switch_screens() {
    let mut s = state();
    s.update(key('3'));
    assert_eq!(s.screen, ScreenId::ACTIVITY);
    s.update(code(KeyCode::Tab));
    assert_eq!(s.screen, ScreenId::HISTORY);
    s.update(code(KeyCode::BackTab));
    assert_eq!(s.screen, ScreenId::ACTIVITY);
    s.update(key('6'));
    assert_eq!(s.screen.name(), "batch");
    s.update(key('q'));
    assert!(s.quit);
}

#[test]
fn help_is_generated_from_the_keymap() {
    let keymap = Keymap::default();
    let confirm = keymap.help_entries(Scope::Confirm);
    assert!(
        confirm.contains(&("n Esc".to_string(), "deny")),
        "{confirm:?}"
    );
    assert!(confirm.contains(&("y".to_string(), "approve")));
    // Every binding's action shows up in its scope's help, so help cannot drift from the keys.
    // (A screen's repeat of a key that works everywhere is listed there, once.)
    for b in keymap.bindings() {
        let repeat = keymap.bindings().iter().any(|g| {
            g.scope == Scope::Global && g.code == b.code && g.mods == b.mods && g.action == b.action
        });
        let entries = keymap.help_entries(if repeat { Scope::Global } else { b.scope });
        assert!(
            entries.iter().any(|(_, what)| *what == b.action.describe()),
            "{:?} missing",
            b.action
        );
    }
    let mut s = state();
    s.update(key('?'));
    assert_eq!(s.layer(), Layer::Help);
    s.update(key('3'));
    assert_eq!(s.screen, ScreenId::STATUS, "help has the keyboard");
    s.update(code(KeyCode::Esc));
    assert_eq!(s.layer(), Layer::Screen(ScreenId::STATUS));
}

#[tokio::test]
async fn confirmation_takes_the_keyboard_from_everything() {
    let mut asker = Asker::new(Duration::from_secs(60));
    let mut s = Console::new(state());
    s.update(key('?'));
    s.update(key('2'));
    s.update(key('/'));
    let (req, _h) = asker
        .ask(ask(
            "android_uninstall_app",
            json!({"package_name": "com.x"}),
            None,
        ))
        .await;
    let fx = s.confirm(req);
    assert!(
        matches!(&fx[..], [Effect::Alert { body, .. }] if body.contains("android_uninstall_app"))
    );
    assert_eq!(s.layer(), Layer::Confirm);
    // Neither quit, nor help, nor typing into the search box reaches anything.
    s.update(key('q'));
    s.update(key('?'));
    s.update(key('x'));
    assert!(!s.quit);
    assert_eq!(s.confirms.len(), 1);
    assert_eq!(s.focus, Button::Deny);
}

#[tokio::test]
async fn y_approves_n_and_esc_deny() {
    let mut asker = Asker::new(Duration::from_secs(60));
    for (k, approved) in [
        (key('y'), true),
        (key('n'), false),
        (code(KeyCode::Esc), false),
    ] {
        let mut s = Console::new(state());
        let (req, h) = asker
            .ask(ask("android_uninstall_app", json!({}), None))
            .await;
        s.confirm(req);
        look(&mut s);
        s.update(k);
        assert!(s.confirms.is_empty());
        assert_eq!(
            h.await.unwrap(),
            Decision {
                approved,
                by: DecidedBy::Key
            }
        );
    }
}

#[tokio::test]
async fn enter_presses_the_focused_button_which_starts_on_deny() {
    let mut asker = Asker::new(Duration::from_secs(60));
    let mut s = Console::new(state());
    let (req, h) = asker
        .ask(ask("android_uninstall_app", json!({}), None))
        .await;
    s.confirm(req);
    look(&mut s);
    s.update(code(KeyCode::Enter));
    assert!(
        !h.await.unwrap().approved,
        "Enter on the default focus denies"
    );

    let (req, h) = asker
        .ask(ask("android_uninstall_app", json!({}), None))
        .await;
    s.confirm(req);
    look(&mut s);
    s.update(code(KeyCode::Tab));
    assert_eq!(s.focus, Button::Approve);
    s.update(code(KeyCode::Enter));
    assert!(h.await.unwrap().approved);
    assert_eq!(
        s.focus,
        Button::Deny,
        "the next request starts on Deny again"
    );
}

#[tokio::test]
async fn requests_queue_and_the_count_shows() {
    let mut asker = Asker::new(Duration::from_secs(60));
    let mut s = Console::new(state());
    let mut handles = Vec::new();
    for pkg in ["a", "b", "c"] {
        let (req, h) = asker
            .ask(ask(
                "android_uninstall_app",
                json!({"package_name": pkg}),
                None,
            ))
            .await;
        s.confirm(req);
        handles.push(h);
    }
    assert_eq!(s.confirms.len(), 3);
    assert!(render(&mut s, 100, 30).contains("1 of 3 waiting"));
    look(&mut s);
    s.update(key('y'));
    assert_eq!(s.confirms.len(), 2);
    assert!(render(&mut s, 100, 30).contains("\"package_name\": \"b\""));
    s.update(key('n'));
    s.update(key('n'));
    assert_eq!(s.confirms.len(), 1, "c was never drawn: its n is ignored");
    look(&mut s);
    s.update(key('n'));
    let got: Vec<bool> = futures::future::join_all(handles)
        .await
        .into_iter()
        .map(|d| d.unwrap().approved)
        .collect();
    assert_eq!(got, vec![true, false, false]);
}

#[tokio::test]
async fn abandoned_requests_leave_the_queue() {
    let mut asker = Asker::new(Duration::from_millis(50));
    let mut s = Console::new(state());
    let (req, h) = asker
        .ask(ask("android_uninstall_app", json!({}), None))
        .await;
    s.confirm(req);
    assert!(s.needs_tick());
    assert_eq!(h.await.unwrap(), Decision::deny(DecidedBy::Timeout));
    s.update(Event::Tick);
    assert!(s.confirms.is_empty());
    assert_eq!(s.layer(), Layer::Screen(ScreenId::STATUS));
}

#[tokio::test]
async fn navigate_is_applied_or_refused_with_a_reason() {
    let mut s = state();
    assert_eq!(nav(&mut s, "tools", Some("android_tap")).await, Ok(()));
    assert_eq!(s.screen, ScreenId::TOOLS);
    assert_eq!(s.selected_tool().map(|t| t.name), Some("android_tap"));

    let e = nav(&mut s, "tools", Some("android_nope"))
        .await
        .unwrap_err();
    assert!(e.contains("android_nope"), "{e}");
    let e = nav(&mut s, "status", Some("emulator-5554"))
        .await
        .unwrap_err();
    assert!(e.contains("no device layer yet"), "{e}");
    assert_eq!(
        s.screen,
        ScreenId::TOOLS,
        "a refusal leaves the screen alone"
    );

    s.update(started(
        7,
        0,
        "android_tap",
        Level::SafeAction,
        None,
        json!({}),
    ));
    assert_eq!(nav(&mut s, "activity", Some("7")).await, Ok(()));
    assert_eq!(s.activity.selected, s.history.by_call_id(7).map(|r| r.seq));
    assert!(
        nav(&mut s, "history", Some("99"))
            .await
            .unwrap_err()
            .contains("99")
    );
    assert_eq!(nav(&mut s, "batch", None).await, Ok(()));
    assert_eq!(s.screen, ScreenId::BATCH);
    assert!(
        nav(&mut s, "nowhere", None)
            .await
            .unwrap_err()
            .contains("unknown screen")
    );
}

#[test]
fn calls_flow_into_activity_stats_and_ticking() {
    let mut s = state();
    assert!(!s.needs_tick(), "idle: no tick, no redraw");
    s.update(started(
        1,
        0,
        "android_tap",
        Level::SafeAction,
        Some("emulator-5554"),
        json!({"x": 1}),
    ));
    assert_eq!(s.stat("android_tap").running, 1);
    assert!(s.needs_tick(), "a running call shows elapsed time");
    s.update(finished(
        1,
        "android_tap",
        Outcome::Ok,
        12,
        None,
        json!({"ok": true}),
    ));
    assert_eq!(s.stat("android_tap").calls, 1);
    assert_eq!(s.stat("android_tap").running, 0);
    assert!(!s.needs_tick());
    assert_eq!(s.history.live_len(), 1);
}

fn busy_state() -> spock_tui::tui::State {
    let mut s = state();
    let calls = [
        (
            1,
            "android_tap",
            Level::SafeAction,
            "emulator-5554",
            Outcome::Ok,
            json!({"x": 10}),
        ),
        (
            2,
            "android_uninstall_app",
            Level::Destructive,
            "emulator-5554",
            Outcome::Denied,
            json!({"package_name": "com.needle.app"}),
        ),
        (
            3,
            "android_take_screenshot",
            Level::ReadOnly,
            "R58M123",
            Outcome::Ok,
            json!({}),
        ),
        (
            4,
            "android_tap",
            Level::SafeAction,
            "R58M123",
            Outcome::Error,
            json!({"x": 99}),
        ),
    ];
    for (id, tool, level, dev, outcome, args) in calls {
        s.update(started(id, id as i64, tool, level, Some(dev), args));
        let decision = (level == Level::Destructive).then_some(Decision {
            approved: false,
            by: DecidedBy::Key,
        });
        s.update(finished(
            id,
            tool,
            outcome,
            5,
            decision,
            json!({"done": id}),
        ));
    }
    s
}

#[test]
fn history_search_and_multi_select_filters() {
    let mut s = busy_state();
    s.update(key('4'));
    s.update(key('/'));
    for c in "NEEDLE".chars() {
        s.update(key(c));
    }
    assert_eq!(
        s.history_len(),
        1,
        "search matches arguments, case-insensitively"
    );
    s.update(code(KeyCode::Enter));
    assert_eq!(s.layer(), Layer::Screen(ScreenId::HISTORY));
    s.update(key('x'));
    assert_eq!(s.history_len(), 4);

    // Filter picker: choose two tools (multi-select), then an outcome.
    s.update(key('f'));
    assert_eq!(s.layer(), Layer::Picker);
    let opts = s.picker.as_ref().unwrap().options.clone();
    let pos = |v: &str| opts.iter().position(|(_, o)| o == v).unwrap();
    for target in [pos("android_tap"), pos("android_take_screenshot")] {
        s.picker.as_mut().unwrap().cursor = target;
        s.update(key(' '));
    }
    assert_eq!(s.history_len(), 3);
    s.picker.as_mut().unwrap().cursor = pos("error");
    s.update(key(' '));
    assert_eq!(s.history_len(), 1);
    assert_eq!(
        s.history_seq_at(0)
            .and_then(|q| s.history.get(q))
            .and_then(|r| r.call_id),
        Some(4)
    );
    s.update(code(KeyCode::Esc));
    assert!(render(&mut s, 120, 30).contains("[outcome: error]"));
}

#[test]
fn history_is_bounded_by_the_setting() {
    let mut s = busy_state();
    let mut v = view();
    v.history_size = 2;
    s.update(Event::Sync(Box::new(v)));
    assert_eq!(s.history.len(), 2);
    assert_eq!(s.history.capacity(), 2);
}

#[test]
fn settings_rows_become_access_and_setting_effects() {
    let mut s = state();
    s.update(key('5'));
    // Enable all would allow the host groups too: it asks first, and y goes ahead.
    assert!(s.update(key('a')).is_empty());
    assert!(matches!(
        &s.update(key('y'))[..],
        [Effect::Access(AccessChange::EnableAll)]
    ));
    assert!(matches!(
        &s.update(key('r'))[..],
        [Effect::Access(AccessChange::ReadOnlyOnly)]
    ));
    // Walk down to the first tool row (destructive first) and toggle it off.
    let fx = loop {
        s.update(code(KeyCode::Down));
        if let Some(spock_tui::tui::settings::Row::Tool(_)) = s.settings_row() {
            break s.update(key(' '));
        }
    };
    assert!(
        matches!(&fx[..], [Effect::Access(AccessChange::SetEnabled { tool, on: false })] if tool == "android_uninstall_app"),
        "{fx:?}"
    );

    // Edit the history size: Enter opens the input, Enter applies.
    s.update(code(KeyCode::Home));
    while s.settings_row()
        != Some(spock_tui::tui::settings::Row::Field(
            SettingField::HistorySize,
        ))
    {
        s.update(code(KeyCode::Down));
    }
    s.update(code(KeyCode::Enter));
    assert_eq!(s.layer(), Layer::Input);
    s.update(Event::Key(crossterm::event::KeyEvent::new(
        KeyCode::Char('u'),
        crossterm::event::KeyModifiers::CONTROL,
    )));
    for c in "250".chars() {
        s.update(key(c));
    }
    assert!(matches!(
        &s.update(code(KeyCode::Enter))[..],
        [Effect::Setting(SettingField::HistorySize, 250)]
    ));
    s.update(code(KeyCode::Enter));
    s.update(key('x'));
    assert!(s.update(code(KeyCode::Enter)).is_empty());
    assert!(s.notice().unwrap_or("").contains("not a number"));
}

#[test]
fn server_keys_follow_its_state() {
    let mut s = state();
    assert!(matches!(
        &s.update(key('s'))[..],
        [Effect::Server(ServerCtl::Stop)]
    ));
    s.update(Event::ServerStatus(ServerStatus::Stopped));
    assert!(matches!(
        &s.update(key('s'))[..],
        [Effect::Server(ServerCtl::Start)]
    ));
    assert!(matches!(
        &s.update(key('R'))[..],
        [Effect::Server(ServerCtl::Restart)]
    ));
    s.update(Event::ServerStatus(ServerStatus::Starting));
    assert!(s.update(key('s')).is_empty());
}

#[test]
fn copy_config_stdio_has_no_token_http_does() {
    let mut s = state();
    let fx = s.update(key('y'));
    let [Effect::Copy { text, .. }] = &fx[..] else {
        panic!("{fx:?}")
    };
    assert!(
        text.contains("relay") && !text.contains("tok-for-tests"),
        "{text}"
    );
    s.update(key('t'));
    let fx = s.update(key('y'));
    let [Effect::Copy { text, what }] = &fx[..] else {
        panic!("{fx:?}")
    };
    assert!(
        text.contains("Bearer tok-for-tests") && what.starts_with("HTTP"),
        "{text}"
    );
    s.update(Event::ServerStatus(ServerStatus::Stopped));
    assert!(
        s.update(key('y')).is_empty(),
        "no HTTP config while nothing listens"
    );
}

#[test]
fn details_copy_request_response_and_save_images() {
    use base64::Engine as _;
    let mut s = state();
    let mut png = Vec::new();
    image::RgbImage::new(30, 20)
        .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
        .unwrap();
    let data = base64::engine::general_purpose::STANDARD.encode(&png);
    s.update(started(
        9,
        0,
        "android_take_screenshot",
        Level::ReadOnly,
        None,
        json!({"serial": "emulator-5554"}),
    ));
    s.update(finished(
        9,
        "android_take_screenshot",
        Outcome::Ok,
        80,
        None,
        json!({"content": [{"type": "image", "mimeType": "image/png", "data": data}]}),
    ));
    s.update(key('3'));
    s.update(code(KeyCode::Enter));
    assert_eq!(s.layer(), Layer::Details);
    let screen = render(&mut s, 120, 40);
    assert!(
        screen.contains("<image/png") && screen.contains("30×20>"),
        "{screen}"
    );
    assert!(!screen.contains(&data[..20]));
    let fx = s.update(key('c'));
    assert!(matches!(&fx[..], [Effect::Copy { text, .. }] if text.contains("emulator-5554")));
    let fx = s.update(key('C'));
    assert!(matches!(&fx[..], [Effect::Copy { text, .. }] if text.contains("image/png")));
    let fx = s.update(key('w'));
    let [Effect::SaveImages { images, stem }] = &fx[..] else {
        panic!("{fx:?}")
    };
    assert_eq!(images[0].dimensions, Some((30, 20)));
    assert!(stem.contains("android_take_screenshot"));
    s.update(code(KeyCode::Esc));
    assert_eq!(s.layer(), Layer::Screen(ScreenId::ACTIVITY));
}

#[test]
fn tools_search_and_destructive_filter() {
    let mut s = state();
    s.update(key('2'));
    assert_eq!(
        s.visible_tools()[0].level,
        Level::Destructive,
        "destructive first"
    );
    s.update(key('d'));
    assert!(
        s.visible_tools()
            .iter()
            .all(|t| t.level == Level::Destructive)
    );
    s.update(key('d'));
    s.update(key('/'));
    for c in "pixels".chars() {
        s.update(key(c));
    }
    assert_eq!(
        s.visible_tools().iter().map(|t| t.name).collect::<Vec<_>>(),
        ["android_tap"],
        "description searched"
    );
    s.update(code(KeyCode::Esc));
    assert_eq!(s.visible_tools().len(), s.tools.len());
}

#[test]
fn untrusted_text_is_escaped_before_drawing() {
    let mut s = state();
    s.update(started(
        1,
        0,
        "android_tap",
        Level::SafeAction,
        Some("evil\x1b[2J\x1b]52;c;eA==\x07"),
        json!({"t": "\x1b[31mred\u{0}"}),
    ));
    s.update(key('3'));
    let screen = render(&mut s, 120, 30);
    assert!(!screen.contains('\x1b') && !screen.contains('\x07'));
    assert!(screen.contains("evil^[[2J"), "{screen}");
    s.update(code(KeyCode::Enter));
    let screen = render(&mut s, 120, 30);
    // serde_json escapes controls in JSON text itself; device strings come through the escaper.
    assert!(!screen.contains('\x1b'));
    assert!(screen.contains("evil^[[2J^[]52;c;eA==^G"), "{screen}");
}

#[test]
fn mouse_clicks_tabs_and_rows() {
    use crossterm::event::{KeyModifiers, MouseButton, MouseEvent, MouseEventKind};
    let mut s = busy_state();
    s.size = (120, 30);
    let click = |col, row| {
        Event::Mouse(MouseEvent {
            kind: MouseEventKind::Down(MouseButton::Left),
            column: col,
            row,
            modifiers: KeyModifiers::NONE,
        })
    };
    let screen = render(&mut s, 120, 30);
    let first = screen.lines().next().unwrap();
    let col = first.find("3 Activity").unwrap() as u16;
    s.update(click(col + 1, 0));
    assert_eq!(s.screen, ScreenId::ACTIVITY);
    // Rows start below the tab bar, the border and the header: row 3 is the newest, 4 the next.
    s.update(click(10, 4));
    assert_eq!(s.activity_cursor(), 1);
    s.update(Event::Mouse(MouseEvent {
        kind: MouseEventKind::ScrollDown,
        column: 0,
        row: 5,
        modifiers: KeyModifiers::NONE,
    }));
    assert_eq!(s.activity_cursor(), 2);
}

#[test]
fn the_screen_name_is_what_status_reports() {
    for sc in ScreenId::ALL {
        assert_eq!(ScreenId::from_name(sc.name()), Some(*sc));
        assert!(spock_tui::mcp::navigation::SCREENS.contains(&sc.name()));
    }
    assert!(
        Keymap::default().lookup(
            Layer::Screen(ScreenId::STATUS),
            &crossterm::event::KeyEvent::new(
                KeyCode::Char('y'),
                crossterm::event::KeyModifiers::NONE
            )
        ) == Some(Action::CopyConfig)
    );
}

#[test]
fn history_search_finds_a_string_only_in_a_result() {
    let mut s = state();
    s.update(started(
        1,
        0,
        "android_get_logcat",
        Level::ReadOnly,
        Some("sim-1"),
        json!({"lines": 5}),
    ));
    s.update(finished(
        1,
        "android_get_logcat",
        Outcome::Ok,
        12,
        None,
        json!({"lines": [{"message": "boom Xq7ZebraTrace"}]}),
    ));
    s.update(started(
        2,
        1,
        "android_get_battery_info",
        Level::ReadOnly,
        Some("sim-1"),
        json!({}),
    ));
    s.update(finished(
        2,
        "android_get_battery_info",
        Outcome::Ok,
        3,
        None,
        json!({"level": 80}),
    ));
    s.update(key('4'));
    s.update(key('/'));
    for c in "xq7zebra".chars() {
        s.update(key(c));
    }
    assert_eq!(
        s.history_len(),
        1,
        "the search string appears only in call 1's result"
    );
    assert_eq!(
        s.history_seq_at(0)
            .and_then(|q| s.history.get(q))
            .map(|r| r.tool.as_str()),
        Some("android_get_logcat")
    );
}

#[test]
fn enable_all_asks_a_second_key_before_allowing_the_host_groups() {
    let mut s = state();
    s.update(key('5'));
    // Both groups are off: a alone changes nothing and asks, naming them.
    assert!(s.update(key('a')).is_empty());
    assert_eq!(s.layer(), Layer::Prompt);
    let screen = render(&mut s, 80, 24);
    assert!(
        screen.contains("settings") && screen.contains("adb_server") && screen.contains("y/n"),
        "{screen}"
    );
    // Other keys do not get past the question; n keeps everything as it was.
    assert!(s.update(key('a')).is_empty());
    assert!(s.update(key('q')).is_empty());
    assert!(!s.quit);
    assert!(s.update(key('n')).is_empty());
    assert_eq!(s.layer(), Layer::Screen(ScreenId::SETTINGS));
    assert!(s.notice().unwrap_or("").contains("nothing changed"));
    // Enter on the Enable all row asks the same question; y goes ahead.
    while s.settings_row() != Some(spock_tui::tui::settings::Row::EnableAll) {
        s.update(code(KeyCode::Down));
    }
    assert!(s.update(code(KeyCode::Enter)).is_empty());
    assert_eq!(s.layer(), Layer::Prompt);
    assert!(matches!(
        &s.update(key('y'))[..],
        [Effect::Access(AccessChange::EnableAll)]
    ));
    // With only one group still off, the question names just that one.
    let mut v = view();
    v.access.allowed_groups.insert("settings".into());
    s.update(Event::Sync(Box::new(v.clone())));
    s.update(key('a'));
    let q = s.prompt.as_ref().unwrap().question();
    assert!(q.contains("adb_server") && !q.contains("settings "), "{q}");
    s.update(code(KeyCode::Esc));
    // Every group already allowed: Enable all still widens (a tool is off), so it still
    // asks, naming the tools; with everything on there is nothing to do.
    v.access.allowed_groups.insert("adb_server".into());
    s.update(Event::Sync(Box::new(v.clone())));
    assert!(s.update(key('a')).is_empty());
    let q = s.prompt.as_ref().unwrap().question();
    assert!(
        q.contains("1 tool that is off") && !q.contains("host group"),
        "{q}"
    );
    assert!(matches!(
        &s.update(key('y'))[..],
        [Effect::Access(AccessChange::EnableAll)]
    ));
    v.enabled.insert("spock_update_settings".into());
    s.update(Event::Sync(Box::new(v)));
    assert!(s.update(key('a')).is_empty());
    assert!(s.prompt.is_none());
    assert!(s.notice().unwrap_or("").contains("already on"));
}

#[test]
fn the_timeout_filter_and_search_find_confirmations_that_timed_out() {
    let mut s = busy_state();
    // A confirmation nobody answered: denied at the timeout.
    s.update(started(
        5,
        5,
        "android_uninstall_app",
        Level::Destructive,
        Some("R58M123"),
        json!({"package_name": "com.quiet"}),
    ));
    s.update(finished(
        5,
        "android_uninstall_app",
        Outcome::Denied,
        60_000,
        Some(Decision {
            approved: false,
            by: DecidedBy::Timeout,
        }),
        json!({"error": "not run"}),
    ));
    // And a tool that timed out on its own.
    s.update(started(
        6,
        6,
        "android_tap",
        Level::SafeAction,
        None,
        json!({}),
    ));
    s.update(finished(
        6,
        "android_tap",
        Outcome::Timeout,
        20_000,
        None,
        json!({}),
    ));
    let call_ids = |s: &spock_tui::tui::State| -> Vec<u64> {
        s.history_view
            .matches
            .as_ref()
            .unwrap()
            .iter()
            .filter_map(|seq| s.history.get(*seq)?.call_id)
            .collect()
    };
    s.update(key('4'));
    // The outcome filter "timeout": both kinds of timeout.
    s.update(key('f'));
    let at = s
        .picker
        .as_ref()
        .unwrap()
        .options
        .iter()
        .position(|(_, v)| v == "timeout")
        .unwrap();
    for _ in 0..at {
        s.update(code(KeyCode::Down));
    }
    s.update(key(' '));
    s.update(code(KeyCode::Esc));
    assert_eq!(call_ids(&s), [6, 5]);
    // The search "timeout" finds what the row says: "denied (timeout)", "timeout".
    s.update(key('x'));
    s.update(key('/'));
    for c in "timeout".chars() {
        s.update(key(c));
    }
    s.update(code(KeyCode::Enter));
    assert_eq!(call_ids(&s), [6, 5]);
}

/// The footer's last line, as drawn.
fn footer(s: &mut spock_tui::tui::State) -> String {
    let screen = render(s, 100, 24);
    screen.lines().last().unwrap_or("").to_string()
}

/// The footer's hints come from the live keymap: a rebound key shows its new key, a removed
/// binding leaves the footer, and an overlay shows its own keys only.
#[test]
fn the_footer_follows_the_live_keymap() {
    use crossterm::event::KeyModifiers;
    let mut s = state();
    let before = footer(&mut s);
    assert!(
        before.contains(" y  copy config") && before.contains(" t  stdio/http"),
        "{before}"
    );
    assert!(
        before.contains(" ?  help") && before.contains(" q  quit"),
        "{before}"
    );
    let status = Scope::Screen(ScreenId::STATUS);
    s.keymap.rebind(
        status,
        Action::CopyConfig,
        KeyCode::Char('Y'),
        KeyModifiers::NONE,
    );
    let rebound = footer(&mut s);
    assert!(rebound.contains(" Y  copy config"), "{rebound}");
    assert!(!rebound.contains(" y  copy config"), "{rebound}");
    // The key does what the footer says, and the old one no longer does.
    assert!(s.update(key('y')).is_empty());
    assert!(matches!(&s.update(key('Y'))[..], [Effect::Copy { .. }]));
    s.keymap.unbind(status, Action::ToggleConfigKind);
    s.keymap.unbind(Scope::Global, Action::Quit);
    let removed = footer(&mut s);
    assert!(!removed.contains("stdio/http"), "{removed}");
    assert!(!removed.contains("quit"), "{removed}");
    assert!(removed.contains(" Y  copy config"), "{removed}");
    // Help lists what the keymap holds now.
    let help = s.keymap.help_entries(status);
    assert!(
        help.contains(&("Y".to_string(), Action::CopyConfig.describe())),
        "{help:?}"
    );
    assert!(
        !help
            .iter()
            .any(|(_, w)| *w == Action::ToggleConfigKind.describe())
    );
}

/// Each screen's footer, from the keymap, as it was drawn from a hand-kept table before.
#[test]
fn every_screen_footer_offers_its_hinted_keys() {
    let mut s = state();
    let expect = [
        (
            "1",
            vec![" s  start/stop", " y  copy config", " t  stdio/http"],
        ),
        ("2", vec![" /  search", " d  destructive"]),
        ("3", vec![" Enter  details"]),
        (
            "4",
            vec![
                " Enter  details",
                " /  search",
                " f  filter",
                " Space  mark",
            ],
        ),
        (
            "5",
            vec![" Space  toggle", " a  enable all", " r  read-only only"],
        ),
        (
            "6",
            vec![" Enter  run", " m  record", " e  edit", " d  delete"],
        ),
    ];
    for (k, hints) in expect {
        s.update(key(k.chars().next().unwrap()));
        let line = footer(&mut s);
        let mut at = 0;
        for h in hints.iter().chain(&[" ?  help", " q  quit"]) {
            let pos = line[at..].find(h).map(|p| p + at);
            assert!(
                pos.is_some(),
                "screen {k}: {h:?} missing or out of order in {line:?}"
            );
            at = pos.unwrap_or(at);
        }
        // A screen's hint never shows on another: `start/stop` is Status's.
        assert_eq!(line.contains("start/stop"), k == "1", "{line}");
    }
}

/// Images that arrive typed beside the JSON (`CallFinished::images`, as a screenshot's do) show
/// in details as size and dimensions, are saved with `w`, and stay out of the copied response.
#[test]
fn typed_images_show_save_and_stay_out_of_the_response() {
    use spock_tui::mcp::ServerEvent;
    use spock_tui::mcp::events::CallImage;
    let mut s = state();
    let mut png = Vec::new();
    image::RgbImage::new(40, 10)
        .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
        .unwrap();
    s.update(started(
        5,
        0,
        "android_take_screenshot",
        Level::ReadOnly,
        None,
        json!({}),
    ));
    s.update(Event::Server(ServerEvent::CallFinished {
        call_id: 5,
        tool: "android_take_screenshot".into(),
        outcome: Outcome::Ok,
        duration: Duration::from_millis(40),
        decision: None,
        device: None,
        result: json!({"width": 40, "height": 10}),
        images: vec![CallImage {
            mime: "image/png".into(),
            data: png.as_slice().into(),
        }],
        record: 5,
    }));
    s.update(key('3'));
    s.update(code(KeyCode::Enter));
    let screen = render(&mut s, 120, 40);
    assert!(
        screen.contains("Images (1)") && screen.contains("40×10>"),
        "{screen}"
    );
    let fx = s.update(key('C'));
    assert!(
        matches!(&fx[..], [Effect::Copy { text, .. }] if text.contains("\"width\"") && !text.contains("image/png")),
        "{fx:?}"
    );
    let fx = s.update(key('w'));
    let [Effect::SaveImages { images, .. }] = &fx[..] else {
        panic!("{fx:?}")
    };
    assert_eq!(images.len(), 1);
    assert_eq!(&*images[0].bytes, png.as_slice());
    assert_eq!(images[0].dimensions, Some((40, 10)));
}

/// Issue 31 review: an MCP client that named itself "control centre" (version and all) looked
/// exactly like the person's own batch steps in Activity and History. The server says which
/// calls are the person's; a client's lookalike name is shown as its claim.
#[test]
fn a_client_named_like_the_control_centre_is_marked_as_its_claim() {
    use spock_tui::mcp::events::{ClientId, ServerEvent, Transport};
    let mut s = state();
    let as_cc = || {
        Some(ClientId {
            name: "control centre".into(),
            version: env!("CARGO_PKG_VERSION").into(),
        })
    };
    for (id, person) in [(1, true), (2, false)] {
        s.update(spock_tui::tui::event::Event::Server(
            ServerEvent::CallStarted {
                call_id: id,
                at: t0(),
                tool: "android_press_key".into(),
                level: Level::SafeAction,
                transport: Transport::Batch,
                client: as_cc(),
                device: None,
                arguments: json!({"key": "HOME"}),
                person,
            },
        ));
    }
    let labels: Vec<(bool, String)> = s
        .history
        .newest_first()
        .map(|e| (e.person, e.client_label()))
        .collect();
    assert_eq!(labels.len(), 2, "{labels:?}");
    for (person, label) in labels {
        assert_eq!(
            label.starts_with("claims \"control centre"),
            !person,
            "{label}"
        );
    }
    s.update(key('3'));
    let screen = render(&mut s, 160, 30);
    assert!(screen.contains("claims \"control centre"), "{screen}");
}

/// Settings shows the device tree (the default, each entry, each attached device without one),
/// Inspect and Interact per device; Space turns one switch, as the person's act for the server
/// to apply, save and record; `--allow-all` is shown as lifting it.
#[test]
fn the_device_tree_is_switched_per_device_on_settings() {
    use spock_tui::mcp::access::DeviceAccess;
    use spock_tui::tui::settings::Row;
    let mut s = state();
    let mut v = view();
    v.seen_devices = vec![
        ("fp serial A".into(), "emulator-5554 (Pixel 7)".into()),
        ("fp serial B".into(), "emulator-5556 (Pixel 8)".into()),
    ];
    v.access.devices.insert(
        "fp serial A".into(),
        DeviceAccess {
            inspect: false,
            ..Default::default()
        },
    );
    s.update(Event::Sync(Box::new(v.clone())));
    s.update(key('5'));
    let heads = |s: &spock_tui::tui::State| -> Vec<String> {
        spock_tui::tui::settings::rows(s)
            .into_iter()
            .filter_map(|r| match r {
                Row::DeviceHead { key, .. } => Some(key),
                _ => None,
            })
            .collect()
    };
    assert_eq!(heads(&s), ["default", "fp serial A", "fp serial B"]);
    // Closed, a device is one row; its switches are not rows yet.
    assert!(
        !spock_tui::tui::settings::rows(&s)
            .iter()
            .any(|r| matches!(r, Row::Device { .. }))
    );
    // Walk to device A, open it, and turn its Inspect (off) on.
    for _ in 0..200 {
        if let Some(Row::DeviceHead { key: device, .. }) = s.settings_row()
            && device == "fp serial A"
        {
            break;
        }
        s.update(code(KeyCode::Down));
    }
    assert!(
        s.update(code(KeyCode::Enter)).is_empty(),
        "opening changes nothing"
    );
    s.update(code(KeyCode::Down));
    assert!(matches!(
        s.settings_row(),
        Some(Row::Device {
            interact: false,
            ..
        })
    ));
    let fx = s.update(key(' '));
    assert!(
        matches!(&fx[..], [Effect::Access(AccessChange::SetDevice { device, interact: false, on: true, label: Some(l) })]
            if device == "fp serial A" && l.contains("emulator-5554")),
        "{fx:?}"
    );
    // Its Interact (on, from the default) turns off.
    s.update(code(KeyCode::Down));
    let fx = s.update(key(' '));
    assert!(
        matches!(
            &fx[..],
            [Effect::Access(AccessChange::SetDevice {
                interact: true,
                on: false,
                ..
            })]
        ),
        "{fx:?}"
    );
    let full = render(&mut s, 200, 60);
    assert!(
        full.contains("[ ] Inspect  emulator-5554 (Pixel 7)"),
        "{full}"
    );
    assert!(
        full.contains("emulator-5556 (Pixel 8)  Inspect ✓  Interact ✓  (any app)"),
        "{full}"
    );
    assert!(render(&mut s, 80, 24).contains("emulator-5554"));
    // `/` filters devices (and tools) by name; Esc clears.
    s.update(key('/'));
    for c in "pixel 8".chars() {
        s.update(key(c));
    }
    s.update(code(KeyCode::Enter));
    assert_eq!(heads(&s), ["fp serial B"]);
    s.update(code(KeyCode::Esc));
    assert_eq!(heads(&s).len(), 3);
    // --allow-all: shown as lifting the tree.
    v.allow_all = true;
    s.update(Event::Sync(Box::new(v)));
    assert!(render(&mut s, 200, 60).contains("lifted by --allow-all"));
}

/// A device's Interact is limited to some apps from Settings: Enter edits the list, Enter
/// applies it (the person's act, for the server to apply, save and record); a word that is no
/// package name changes nothing; an empty list means any app.
#[test]
fn a_devices_apps_are_edited_on_settings() {
    let mut s = state();
    let mut v = view();
    v.seen_devices = vec![("fp serial A".into(), "emulator-5554 (Pixel 7)".into())];
    s.update(Event::Sync(Box::new(v)));
    s.update(key('5'));
    to_device_apps(&mut s, "fp serial A");
    assert!(render(&mut s, 200, 60).contains("Interact with: any app"));
    assert!(s.update(code(KeyCode::Enter)).is_empty());
    for c in "com.example.shop, com.example.notes".chars() {
        s.update(key(c));
    }
    let fx = s.update(code(KeyCode::Enter));
    assert!(
        matches!(&fx[..], [Effect::Access(AccessChange::SetDeviceApps { device, apps: Some(a), label: Some(l) })]
            if device == "fp serial A" && a == &["com.example.shop", "com.example.notes"] && l.contains("emulator-5554")),
        "{fx:?}"
    );
    // Not a package name: nothing is sent.
    s.update(code(KeyCode::Enter));
    for c in "; rm -rf".chars() {
        s.update(key(c));
    }
    assert!(s.update(code(KeyCode::Enter)).is_empty());
    // Emptied: any app.
    s.update(code(KeyCode::Enter));
    s.update(Event::Key(crossterm::event::KeyEvent::new(
        KeyCode::Char('u'),
        crossterm::event::KeyModifiers::CONTROL,
    )));
    let fx = s.update(code(KeyCode::Enter));
    assert!(
        matches!(
            &fx[..],
            [Effect::Access(AccessChange::SetDeviceApps {
                apps: None,
                ..
            })]
        ),
        "{fx:?}"
    );
}

/// Settings offers the apps seen on a device's screens: its apps row names them, and Tab while
/// editing adds the next one not in the list yet (each once), so the person picks rather than
/// types package names.
#[test]
fn a_devices_apps_list_offers_the_apps_seen_on_it() {
    let mut s = state();
    let mut v = view();
    v.seen_devices = vec![("fp serial A".into(), "emulator-5554 (Pixel 7)".into())];
    v.apps_seen.insert(
        "fp serial A".into(),
        vec!["com.example.notes".into(), "com.example.shop".into()],
    );
    s.update(Event::Sync(Box::new(v)));
    s.update(key('5'));
    to_device_apps(&mut s, "fp serial A");
    let screen = render(&mut s, 200, 60);
    assert!(
        screen.contains("Seen on it: com.example.notes, com.example.shop"),
        "{screen}"
    );
    s.update(code(KeyCode::Enter));
    for c in "com.example.shop".chars() {
        s.update(key(c));
    }
    // The shop is typed already: Tab adds the notes app, then nothing more.
    s.update(code(KeyCode::Tab));
    s.update(code(KeyCode::Tab));
    let fx = s.update(code(KeyCode::Enter));
    assert!(
        matches!(&fx[..], [Effect::Access(AccessChange::SetDeviceApps { apps: Some(a), .. })]
            if a == &["com.example.shop", "com.example.notes"]),
        "{fx:?}"
    );
}

/// Settings' cursor down to device `key`'s apps row, opening the device on the way.
fn to_device_apps(s: &mut spock_tui::tui::State, key: &str) {
    use spock_tui::tui::settings::Row;
    for _ in 0..200 {
        match s.settings_row() {
            Some(Row::DeviceHead { key: d, .. })
                if d == key && !s.settings_expanded.contains(&d) =>
            {
                s.update(code(KeyCode::Enter));
            }
            Some(Row::DeviceApps { key: d, .. }) if d == key => return,
            _ => {}
        }
        s.update(code(KeyCode::Down));
    }
    panic!("no apps row for {key}");
}

/// Own tools the server loaded are in the catalogue the screens show (Tools) and are leaves
/// on Settings: switching one off is the person's change of that tool, by its name. A reload
/// that drops it takes it off both.
#[test]
fn own_tools_are_listed_and_switched_like_built_ins() {
    use spock_tui::protocol::OwnToolView;
    use spock_tui::tui::settings::Row;
    let mut s = state();
    let mut v = view();
    v.own_tools = vec![OwnToolView {
        name: "team_dark_mode".into(),
        title: "Dark mode".into(),
        level: spock_tui::mcp::Level::SafeAction,
        toolset: spock_tui::mcp::toolsets::Toolset::Core,
        description: "Turn dark mode on or off (own tool, team.toml:40)".into(),
        input_schema: serde_json::json!({"type": "object", "properties": {"mode": {"type": "string", "enum": ["yes", "no"]}}}),
    }];
    v.enabled.insert("team_dark_mode".into());
    s.update(Event::Sync(Box::new(v.clone())));
    let i = s
        .tools
        .iter()
        .position(|t| t.name == "team_dark_mode")
        .expect("in the catalogue");
    assert_eq!(s.tools[i].params[0].name, "mode");
    s.update(key('2'));
    s.update(key('/'));
    for c in "dark".chars() {
        s.update(key(c));
    }
    s.update(code(KeyCode::Enter));
    assert!(render(&mut s, 200, 60).contains("team_dark_mode"));
    s.update(code(KeyCode::Esc));
    s.update(key('5'));
    for _ in 0..300 {
        if matches!(s.settings_row(), Some(Row::Tool(j)) if j == i) {
            break;
        }
        s.update(code(KeyCode::Down));
    }
    assert!(matches!(s.settings_row(), Some(Row::Tool(j)) if j == i));
    let fx = s.update(key(' '));
    assert!(
        matches!(&fx[..], [Effect::Access(AccessChange::SetEnabled { tool, on: false })] if tool == "team_dark_mode"),
        "{fx:?}"
    );
    v.own_tools.clear();
    s.update(Event::Sync(Box::new(v)));
    assert!(!s.tools.iter().any(|t| t.name == "team_dark_mode"));
}

#[test]
fn settings_k_rotates_the_control_credential_only_after_a_yes() {
    let mut s = state();
    s.update(key('5'));
    assert!(s.update(key('K')).is_empty());
    assert_eq!(s.layer(), Layer::Prompt);
    let screen = render(&mut s, 80, 24);
    assert!(
        screen.contains("rotate the control credential?"),
        "{screen}"
    );
    assert!(s.update(key('n')).is_empty());
    assert!(s.notice().unwrap_or("").contains("stays as it was"));
    s.update(key('K'));
    assert!(matches!(
        &s.update(key('y'))[..],
        [Effect::RotateCredential]
    ));
    assert_eq!(s.layer(), Layer::Screen(ScreenId::SETTINGS));
}

#[test]
fn q_with_clients_connected_asks_before_stopping_the_server() {
    let mut s = state();
    let mut v = view();
    v.connected = vec![
        "1 over stdio".into(),
        "2 over HTTP (a request in the last minute)".into(),
    ];
    s.update(Event::Sync(Box::new(v.clone())));
    s.update(key('q'));
    assert!(!s.quit, "quit with clients connected, without asking");
    assert_eq!(s.layer(), Layer::Prompt);
    let q = s.prompt.as_ref().unwrap().question();
    assert!(
        q.contains("3 connected") && q.contains("1 over stdio"),
        "{q}"
    );
    s.update(key('n'));
    assert!(!s.quit);
    assert!(s.notice().unwrap_or("").contains("still serving"));
    s.update(key('q'));
    s.update(key('y'));
    assert!(s.quit);
    // Nobody connected: at once. Attached: `q` detaches, the server keeps serving: at once.
    let mut s = state();
    s.update(key('q'));
    assert!(s.quit);
    let mut s = state();
    s.attached = true;
    s.update(Event::Sync(Box::new(v)));
    s.update(key('q'));
    assert!(s.quit);
}

#[test]
fn a_quit_question_whose_clients_all_left_quits() {
    let mut s = state();
    let mut v = view();
    v.connected = vec!["1 over stdio".into()];
    s.update(Event::Sync(Box::new(v.clone())));
    s.update(key('q'));
    assert!(!s.quit && s.layer() == Layer::Prompt);
    v.connected.clear();
    s.update(Event::Sync(Box::new(v)));
    assert!(s.quit, "the last client left while the question was up");
}

/// The view follows the server by a short settle: a `q` pressed just after a client's first
/// request finds the view without it. The serving process asks its core once more before it
/// quits (`State::quit_unless`), and then asks the person.
#[test]
fn a_q_before_the_view_has_the_client_asks_once_the_core_says_it_is_there() {
    let mut s = state();
    s.update(key('q'));
    assert!(s.quit && s.quit_unasked);
    s.quit_unless(vec!["1 over stdio".into()]);
    assert!(!s.quit, "quit under a client the view had not shown yet");
    assert_eq!(s.layer(), Layer::Prompt);
    assert!(
        s.prompt
            .as_ref()
            .unwrap()
            .question()
            .contains("1 over stdio")
    );
    s.update(key('y'));
    assert!(s.quit);
    // Asked once: the answer stands, whatever the core says after.
    s.quit_unless(vec!["1 over stdio".into()]);
    assert!(s.quit);
    // Nobody there by the core either: it quits.
    let mut s = state();
    s.update(key('q'));
    s.quit_unless(Vec::new());
    assert!(s.quit);
    // An attached control centre's `q` detaches: nothing to ask.
    let mut s = state();
    s.attached = true;
    s.update(key('q'));
    s.quit_unless(vec!["1 over stdio".into()]);
    assert!(s.quit);
}
