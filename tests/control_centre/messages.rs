//! The footer's messages: they expire (the expiry is the state's, so no test sleeps), the
//! message log keeps them whole, and a confirmation that timed out says so.
use crate::support::tui_fixture;

use std::time::Duration;

use serde_json::json;
use spock_tui::mcp::events::{DecidedBy, Decision, Outcome};
use spock_tui::mcp::registry::Level;
use spock_tui::tui::event::Event;
use spock_tui::tui::screen::ScreenId;
use spock_tui::tui::state::Layer;
use tui_fixture::*;

#[test]
fn footer_messages_expire_and_the_log_keeps_them_whole() {
    let mut s = state();
    s.notice_ttl = Duration::from_secs(2);
    let long = "could not write images/call-41-android_take_screenshot-1.jpg under the data \
                directory: No space left on device (os error 28)";
    s.update(Event::Notice(long.into()));
    assert!(s.needs_tick(), "a message on screen is a reason to tick");
    let screen = render(&mut s, 80, 24);
    let footer = screen.lines().last().unwrap().to_string();
    // Too long for the footer: cut, and it says where to read it whole.
    assert!(
        footer.contains("could not write") && footer.contains("(l: all)"),
        "{footer}"
    );
    // Expired: gone from the footer, and the loop may sleep again.
    s.now += Duration::from_secs(3);
    assert_eq!(s.notice(), None);
    assert!(!s.needs_tick());
    let screen = render(&mut s, 80, 24);
    assert!(!screen.contains("could not write"), "{screen}");
    // The log has it in full (wrapped), and closes with l or Esc.
    s.update(key('l'));
    assert_eq!(s.layer(), Layer::Messages);
    let log = render(&mut s, 80, 24);
    let text = rows(&log).join(" ");
    assert!(text.contains("Messages (1"), "{log}");
    assert!(
        text.contains("No space left on") && text.contains("(os error 28)"),
        "{log}"
    );
    s.update(key('l'));
    assert_eq!(s.layer(), Layer::Screen(ScreenId::STATUS));
}

#[test]
fn a_confirmation_that_timed_out_says_so_in_the_footer() {
    let mut s = state();
    s.update(started(
        9,
        0,
        "android_uninstall_app",
        Level::Destructive,
        Some("emulator-5554"),
        json!({"package_name": "com.x"}),
    ));
    s.update(finished(
        9,
        "android_uninstall_app",
        Outcome::Denied,
        60_000,
        Some(Decision {
            approved: false,
            by: DecidedBy::Timeout,
        }),
        json!({}),
    ));
    assert_eq!(
        s.notice(),
        Some("confirmation for android_uninstall_app timed out: denied")
    );
    // A denial by key is the person's own doing: nothing to report.
    let mut s = state();
    s.update(finished(
        9,
        "android_uninstall_app",
        Outcome::Denied,
        10,
        Some(Decision {
            approved: false,
            by: DecidedBy::Key,
        }),
        json!({}),
    ));
    assert_eq!(s.notice(), None);
}
