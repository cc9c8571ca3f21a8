//! Device leases on the Status screen, without a terminal: shown with holder and time left,
//! `x` asks before anything, `n` keeps, `y` asks the loop to break exactly the lease shown,
//! `l` chooses among several.
use crate::support::tui_fixture;

use std::time::Duration;

use crossterm::event::KeyCode;
use spock_tui::protocol::LeaseRow;
use spock_tui::tui::event::Event;
use spock_tui::tui::screen::ScreenId;
use spock_tui::tui::state::Layer;
use spock_tui::tui::update::Effect;
use tui_fixture::*;

fn leased(s: &spock_tui::tui::State, devices: &[&str]) -> Event {
    let mut v = view();
    v.leases = devices
        .iter()
        .enumerate()
        .map(|(i, d)| LeaseRow {
            id: 7 + i as u64,
            device: d.to_string(),
            holder: format!("agent-{i}/1.0 (stdio#{})", 3 + i),
            expires_at: t0() + chrono::Duration::seconds(630),
            deadline: s.now + Duration::from_secs(598),
        })
        .collect();
    Event::Sync(Box::new(v))
}

#[test]
fn status_shows_leases_and_a_person_breaks_one_after_saying_yes() {
    let mut s = state();
    let screen = render(&mut s, 80, 24);
    assert!(!screen.contains("Leases"), "no block without a lease");
    assert!(!s.needs_tick());
    s.update(key('x'));
    assert_eq!(s.layer(), Layer::Screen(ScreenId::STATUS));
    assert!(s.notice().unwrap_or("").contains("nothing to break"));

    let ev = leased(&s, &["emulator-5554@127.0.0.1:5037"]);
    s.update(ev);
    // The countdown needs the once-a-second tick.
    assert!(s.needs_tick());
    let screen = render(&mut s, 80, 24);
    assert!(screen.contains("Leases — x break (asks)"), "{screen}");
    assert!(screen.contains("emulator-5554@127.0.0.1:5037"), "{screen}");
    assert!(screen.contains("agent-0/1.0 (stdio#3)"), "{screen}");
    let wide = render(&mut s, 200, 60);
    assert!(wide.contains("9m 58s left (until 09:37:23)"), "{wide}");

    // x asks; n keeps it, and nothing is asked of the loop.
    let fx = s.update(key('x'));
    assert!(fx.is_empty());
    assert_eq!(s.layer(), Layer::Prompt);
    let screen = render(&mut s, 80, 24);
    assert!(screen.contains("break the lease on"), "{screen}");
    let fx = s.update(key('n'));
    assert!(fx.is_empty());
    assert_eq!(s.layer(), Layer::Screen(ScreenId::STATUS));
    assert!(s.notice().unwrap_or("").contains("kept the lease"));
    // Esc keeps it too; y breaks exactly the lease that was shown.
    s.update(key('x'));
    assert!(s.update(code(KeyCode::Esc)).is_empty());
    s.update(key('x'));
    let fx = s.update(key('y'));
    match fx.as_slice() {
        [Effect::BreakLease { id, device }] => {
            assert_eq!(*id, 7);
            assert_eq!(device, "emulator-5554@127.0.0.1:5037");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn shift_l_chooses_which_lease_x_breaks() {
    let mut s = state();
    let ev = leased(&s, &["a@h:1", "b@h:1"]);
    s.update(ev);
    let screen = render(&mut s, 80, 24);
    assert!(screen.contains("L next"), "{screen}");
    assert!(screen.contains("▸ a@h:1"), "{screen}");
    s.update(key('L'));
    assert!(render(&mut s, 80, 24).contains("▸ b@h:1"));
    s.update(key('x'));
    match s.update(key('y')).as_slice() {
        [Effect::BreakLease { id: 8, device }] => assert_eq!(device, "b@h:1"),
        other => panic!("{other:?}"),
    }
    // Wraps around.
    s.update(key('L'));
    s.update(key('x'));
    match s.update(key('y')).as_slice() {
        [Effect::BreakLease { id: 7, .. }] => {}
        other => panic!("{other:?}"),
    }
}
