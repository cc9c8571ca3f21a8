//! The person's keys belong to the person (issue 31, item 6). An agent's `spock_navigate` never
//! switches the screen under a text input, a question or keys typed in the last few seconds
//! (it is offered in the footer instead, one key to follow); keys read in the arming time after
//! an agent switched the screen do nothing; and widening access from Settings (Enable all, a
//! host group on) asks first, while narrowing does not.
use crate::support::tui_fixture;

use std::time::Duration;

use crossterm::event::KeyCode;
use spock_tui::batch::{Source, Step, Task};
use spock_tui::mcp::registry::HostGroup;
use spock_tui::protocol::{AccessChange, BatchData};
use spock_tui::tui::State;
use spock_tui::tui::event::Event;
use spock_tui::tui::screen::ScreenId;
use spock_tui::tui::settings::Row;
use spock_tui::tui::state::Layer;
use spock_tui::tui::update::Effect;
use tui_fixture::*;

fn typed(s: &mut State, text: &str) -> Vec<Effect> {
    text.chars().flat_map(|c| s.update(key(c))).collect()
}

fn later(s: &mut State, by: Duration) {
    s.now += by;
}

/// What a person's keys would ask of the core: a batch run, an access change, a setting.
fn acts(fx: &[Effect]) -> Vec<String> {
    fx.iter()
        .filter(|e| {
            matches!(
                e,
                Effect::Batch(_) | Effect::Access(_) | Effect::Setting(..)
            )
        })
        .map(|e| format!("{e:?}"))
        .collect()
}

/// An agent-saved task named to be found by a History search for "smoke".
fn agents_task() -> BatchData {
    let task = Task {
        id: "agent".into(),
        name: "smoke-cleanup".into(),
        description: None,
        steps: vec![Step::new(
            "android_tap",
            serde_json::json!({"x": 1, "y": 2}),
        )],
        created_at: "2026-03-14T09:26:53.000Z".into(),
        updated_at: "2026-03-14T09:26:53.000Z".into(),
        source: Source::Manual,
    };
    BatchData {
        tasks: vec![task],
        ..BatchData::default()
    }
}

/// The attack: the person types a History search; the agent navigates to Batch mid-word; the
/// rest of the word and Enter must stay in the search, and nothing runs.
#[tokio::test]
async fn navigation_while_typing_a_search_is_offered_not_done() {
    let mut s = state();
    s.update(Event::Batch(agents_task()));
    s.update(key('4'));
    s.update(key('/'));
    assert_eq!(s.layer(), Layer::Input);
    let mut fx = typed(&mut s, "smo");
    let r = nav(&mut s, "batch", None).await;
    assert!(r.is_err(), "the screen switched under a text input");
    let why = r.unwrap_err();
    assert!(why.contains("footer"), "{why}");
    fx.extend(typed(&mut s, "ke"));
    fx.extend(s.update(code(KeyCode::Enter)));
    assert_eq!(s.screen, ScreenId::HISTORY);
    assert_eq!(s.history_view.query, "smoke");
    assert!(acts(&fx).is_empty(), "{:?}", acts(&fx));
    // The footer offers it, with the key that follows.
    let screen = render(&mut s, 100, 24);
    assert!(
        screen.contains("Batch") && screen.contains("agent"),
        "{screen}"
    );
}

/// Typing with no input open counts too: a key in the last few seconds keeps the screen; a
/// quiet person's screen switches, and keys in the arming time after it do nothing.
#[tokio::test]
async fn recent_keys_keep_the_screen_and_a_switch_arms_the_keys() {
    let mut s = state();
    s.update(key('4'));
    s.update(key('j'));
    later(&mut s, Duration::from_secs(1));
    assert!(nav(&mut s, "settings", None).await.is_err());
    assert_eq!(s.screen, ScreenId::HISTORY, "a key 1 s ago still counts");

    later(&mut s, Duration::from_secs(5));
    assert_eq!(nav(&mut s, "settings", None).await, Ok(()));
    assert_eq!(s.screen, ScreenId::SETTINGS);
    // Keys the person meant for History, read just after the switch: nothing happens.
    let fx = typed(&mut s, "a r");
    assert!(acts(&fx).is_empty(), "{:?}", acts(&fx));
    assert!(s.prompt.is_none());
    assert_eq!(s.screen, ScreenId::SETTINGS);
    // Once the person paused, keys work again.
    later(&mut s, Duration::from_secs(2));
    let fx = s.update(key('r'));
    assert!(
        matches!(&fx[..], [Effect::Access(AccessChange::ReadOnlyOnly)]),
        "{fx:?}"
    );
}

/// A question or a confirmation on screen: no switch either; the offer is followed with one
/// key, which arms the keys like any agent-chosen switch.
#[tokio::test]
async fn an_open_question_keeps_the_screen_and_the_offer_is_one_key_away() {
    let mut s = state();
    s.update(key('5'));
    s.update(key('a'));
    assert_eq!(s.layer(), Layer::Prompt);
    later(&mut s, Duration::from_secs(10));
    assert!(nav(&mut s, "tools", Some("android_tap")).await.is_err());
    assert_eq!(s.layer(), Layer::Prompt, "the question stays up");
    assert_eq!(s.screen, ScreenId::SETTINGS);
    s.update(key('n'));
    assert_eq!(s.layer(), Layer::Screen(ScreenId::SETTINGS));
    // The offer's key is the one the keymap (and so help) names.
    let follow = s
        .keymap
        .help_entries(spock_tui::tui::keymap::Scope::Global)
        .into_iter()
        .find(|(_, what)| what.contains("agent"))
        .map(|(k, _)| k)
        .expect("a key follows an agent's offer");
    let c = follow.chars().next().unwrap();
    later(&mut s, Duration::from_secs(1));
    s.update(key(c));
    assert_eq!(s.screen, ScreenId::TOOLS);
    assert_eq!(s.selected_tool().map(|t| t.name), Some("android_tap"));
    // Following took the offer: the same key again does nothing more.
    later(&mut s, Duration::from_secs(2));
    s.update(key('1'));
    s.update(key(c));
    assert_eq!(s.screen, ScreenId::STATUS);
}

/// Review finding: the agent timed its switch to land just after the person's quiet window,
/// and the rest of a burst typed for History (`/error` and Enter) ran a task on Batch. A burst
/// is eaten whole, however long, until the person pauses.
#[tokio::test]
async fn a_burst_typed_across_an_agents_switch_is_eaten_until_the_person_pauses() {
    let mut s = state();
    s.update(Event::Batch(agents_task()));
    s.update(key('4'));
    later(&mut s, Duration::from_secs(4));
    assert_eq!(nav(&mut s, "batch", None).await, Ok(()));
    assert_eq!(s.screen, ScreenId::BATCH);
    // 300 ms later the person types a search for the old screen, a key every 250 ms.
    later(&mut s, Duration::from_millis(300));
    let mut fx = Vec::new();
    for c in "/error".chars() {
        fx.extend(s.update(key(c)));
        later(&mut s, Duration::from_millis(250));
    }
    fx.extend(s.update(code(KeyCode::Enter)));
    fx.extend(s.update(key('r')));
    assert!(acts(&fx).is_empty(), "{:?}", acts(&fx));
    assert_eq!(s.screen, ScreenId::BATCH);
    assert!(s.input.is_none() && s.prompt.is_none());
    // A pause, then the person's keys count.
    later(&mut s, Duration::from_secs(2));
    s.update(key('1'));
    assert_eq!(s.screen, ScreenId::STATUS);
}

/// Review finding: the person read an offer for Tools; the agent replaced it with Batch 100 ms
/// before their key, which then showed Batch. A changed offer must be on screen for the arming
/// time before its key follows it.
#[tokio::test]
async fn an_offer_swapped_under_the_persons_finger_is_not_followed() {
    let mut s = state();
    s.update(key('5'));
    s.update(key('a'));
    assert_eq!(s.layer(), Layer::Prompt);
    assert!(nav(&mut s, "tools", None).await.is_err());
    s.update(key('n'));
    later(&mut s, Duration::from_millis(1200));
    // The agent swaps the offer; the person's key arrives 100 ms later.
    s.update(key('5'));
    s.update(key('a'));
    assert!(nav(&mut s, "batch", None).await.is_err());
    s.update(key('n'));
    later(&mut s, Duration::from_millis(100));
    s.update(key('o'));
    assert_eq!(
        s.screen,
        ScreenId::SETTINGS,
        "followed an offer nobody read"
    );
    // Read, then followed.
    later(&mut s, Duration::from_secs(1));
    s.update(key('o'));
    assert_eq!(s.screen, ScreenId::BATCH);
}

/// Widening access from Settings asks; narrowing does not.
#[test]
fn widening_access_asks_first_narrowing_does_not() {
    let mut s = state();
    s.update(key('5'));
    // The first group that starts off (Settings & servers).
    while !matches!(s.settings_row(), Some(Row::Group(g)) if !g.starts_on()) {
        s.update(code(KeyCode::Down));
    }
    let Some(Row::Group(group)) = s.settings_row() else {
        unreachable!()
    };
    // A host group on: a question first, nothing changed yet.
    let fx = s.update(code(KeyCode::Enter));
    assert!(acts(&fx).is_empty(), "{fx:?}");
    assert_eq!(s.layer(), Layer::Prompt);
    assert!(
        s.prompt.as_ref().unwrap().question().contains(group.key()),
        "{}",
        s.prompt.as_ref().unwrap().question()
    );
    let fx = s.update(key('y'));
    assert!(
        matches!(&fx[..], [Effect::Access(AccessChange::SetGroup { group: g, on: true })] if *g == group),
        "{fx:?}"
    );
    // The group off again: at once.
    let mut v = view();
    v.access.allowed_groups.insert(group.key().into());
    s.update(Event::Sync(Box::new(v.clone())));
    let fx = s.update(code(KeyCode::Enter));
    assert!(
        matches!(
            &fx[..],
            [Effect::Access(AccessChange::SetGroup { on: false, .. })]
        ),
        "{fx:?}"
    );
    // Enable all asks even when every host group is already on: it turns tools on.
    for g in HostGroup::ALL {
        v.access.allowed_groups.insert(g.key().into());
    }
    s.update(Event::Sync(Box::new(v)));
    assert!(acts(&s.update(key('a'))).is_empty());
    assert_eq!(s.layer(), Layer::Prompt);
    assert!(matches!(
        &s.update(key('y'))[..],
        [Effect::Access(AccessChange::EnableAll)]
    ));
}
