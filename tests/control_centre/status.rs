//! Status at 80×24: the client configuration wraps (a token is never cut at the border),
//! scrolls with the moving keys, says there is more and keeps its keys in sight; a token
//! rotated by `spock-tui token rotate` shows and copies at once, and the footer says so.
use crate::support::tui_fixture;

use crossterm::event::KeyCode;
use spock_tui::tui::State;
use spock_tui::tui::event::Event;
use spock_tui::tui::update::Effect;
use tui_fixture::*;

const TOKEN: &str = "5f0c1e2d3a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9a0b1c2d3e4f";

fn http_state() -> State {
    let mut s = state();
    let mut v = view();
    v.token = TOKEN.into();
    s.update(Event::Sync(Box::new(v)));
    // Not a rotation: the fixture's token is replaced by a long one before anything is shown.
    s.notices.clear();
    s.update(key('t'));
    s
}

#[test]
fn status_configuration_wraps_scrolls_and_says_there_is_more() {
    let mut s = http_state();
    let screen = render(&mut s, 80, 24);
    // The keys stay in sight, and so does the fact that there is more below.
    assert!(
        screen.contains("t stdio/HTTP · ←/→ client · y copy"),
        "{screen}"
    );
    assert!(screen.contains("more (j/↓)"), "{screen}");
    // Scrolling down shows the whole token on the way (wrapped, not cut at the border).
    let mut token_seen = false;
    for _ in 0..20 {
        s.update(key('j'));
        token_seen |= rows(&render(&mut s, 80, 24)).concat().contains(TOKEN);
    }
    assert!(token_seen);
    // At the end, nothing more below, and the way back up is named.
    let bottom = render(&mut s, 80, 24);
    assert!(!bottom.contains("more (j/↓)"), "{bottom}");
    assert!(
        bottom.contains("↑ k/↑") && bottom.contains("y copy"),
        "{bottom}"
    );
    // The first key back up moves at once, however often j was pressed.
    for _ in 0..50 {
        s.update(key('j'));
    }
    let end = s.status.scroll;
    assert!(end > 0);
    s.update(key('k'));
    assert_eq!(s.status.scroll, end - 1);
    // Another configuration starts at its top.
    s.update(code(KeyCode::Right));
    assert_eq!(s.status.scroll, 0);
    // A tall terminal shows it all, with nothing to scroll.
    s.update(key('t'));
    let tall = render(&mut s, 200, 60);
    assert!(!tall.contains("more (j/↓)"), "{tall}");
    s.update(key('j'));
    assert_eq!(s.status.scroll, 0);
}

#[test]
fn a_rotated_token_shows_and_copies_at_once() {
    let mut s = http_state();
    // What the loop reads after the server's event for a token rotated on disk.
    let mut v = view();
    v.token = "0123abcd".repeat(8);
    s.update(Event::Sync(Box::new(v)));
    let screen = render(&mut s, 200, 60);
    assert!(screen.contains(&"0123abcd".repeat(8)), "{screen}");
    assert!(!screen.contains(TOKEN), "{screen}");
    assert!(s.notice().unwrap_or("").contains("token was rotated"));
    let fx = s.update(key('y'));
    let [Effect::Copy { text, .. }] = &fx[..] else {
        panic!("{fx:?}")
    };
    assert!(text.contains(&"0123abcd".repeat(8)) && !text.contains(TOKEN));
}

#[test]
fn status_warns_when_the_audit_trail_nears_its_cap() {
    let mut s = state();
    let screen = render(&mut s, 200, 60);
    assert!(!screen.contains("of its 1024 MiB cap"), "{screen}");
    let mut v = view();
    v.audit_warning = Some(
        spock_tui::audit::Usage {
            bytes: 950 * 1024 * 1024,
            max_bytes: 1024 * 1024 * 1024,
        }
        .warning()
        .expect("a warning at 92%"),
    );
    s.update(Event::Sync(Box::new(v)));
    let screen = render(&mut s, 200, 60);
    assert!(
        screen.contains("the audit trail is at 92% of its 1024 MiB cap"),
        "{screen}"
    );
}

/// Status says where the audit trail is anchored, how long ago, what failed and what the last
/// verify found; History's title says it in a word. A tampered trail is not shown as fine.
#[test]
fn status_and_history_show_the_trail_state() {
    let mut s = state();
    let now = spock_core::audit::now_ms();
    let mut v = view();
    v.trail = spock_core::audit::TrailState {
        target: Some("tcp:127.0.0.1:6514".into()),
        last_anchor_ms: Some(now - 7_000),
        last_anchor_seq: Some(42),
        verified_ms: Some(now - 120_000),
        verified_ok: Some(true),
        verified: "intact: 42 records agree with 9 anchors".into(),
        ..Default::default()
    };
    s.update(Event::Sync(Box::new(v.clone())));
    let screen = render(&mut s, 120, 40);
    assert!(
        screen.contains("Trail") && screen.contains("anchored to tcp:127.0.0.1:6514"),
        "{screen}"
    );
    assert!(
        screen.contains("(seq 42)") && screen.contains(" s ago"),
        "{screen}"
    );
    assert!(screen.contains("· verified 2 min ago"), "{screen}");

    // The sink fails and the last verify found tampering.
    v.trail.failure = Some("tcp:127.0.0.1:6514: connection refused".into());
    v.trail.failure_ms = Some(now - 3_000);
    v.trail.verified_ok = Some(false);
    v.trail.verified = "tampered: seq 7 was rewritten".into();
    s.update(Event::Sync(Box::new(v.clone())));
    let screen = render(&mut s, 120, 40);
    assert!(screen.contains("anchoring failed"), "{screen}");
    assert!(screen.contains("connection refused"), "{screen}");
    assert!(screen.contains("tampered: seq 7 was rewritten"), "{screen}");
    s.update(key('4'));
    let history = render(&mut s, 160, 30);
    assert!(history.contains("trail TAMPERED"), "{history}");

    // Not anchored at all: said, not left blank.
    v.trail = Default::default();
    s.update(Event::Sync(Box::new(v)));
    s.update(key('1'));
    let screen = render(&mut s, 120, 40);
    assert!(screen.contains("not anchored"), "{screen}");
}
