//! Status says when HTTP is not on the port asked for, and how to pin one, legibly at 80×24.
use crate::support::tui_fixture;

use spock_tui::tui::event::Event;
use tui_fixture::*;

#[test]
fn status_shows_that_the_port_was_taken_and_how_to_pin_one() {
    let mut s = state();
    let mut v = view();
    v.endpoints.http = Some("http://127.0.0.1:41234/mcp".into());
    v.endpoints.http_note = Some(
        "port 8765 was taken; serving on 41234; pin one with --port or server.port in config.toml"
            .into(),
    );
    s.update(Event::Sync(Box::new(v)));
    let screen = render(&mut s, 80, 24);
    for part in [
        "Note        port 8765 was taken",
        "serving on 41234",
        "pin one with --port or server.port in config.toml",
        "HTTP (127.0.0.1:41234)",
    ] {
        assert!(screen.contains(part), "{part:?} not on Status:\n{screen}");
    }
}
