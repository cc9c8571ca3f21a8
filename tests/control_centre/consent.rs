//! Issue 15, "the approval is bound to what the person saw", in the control centre's state:
//! nothing in the arguments is hidden (and approval waits for their last line), keys read
//! before the modal was drawn or within its arming time do not approve, a request withdrawn
//! under the person's finger is not replaced by the next one at once, and the focused button
//! is marked without colour.
use crate::support::tui_fixture;

use std::time::Duration;

use crossterm::event::KeyCode;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::style::{Color, Modifier};
use serde_json::json;
use spock_tui::mcp::events::{DecidedBy, Decision};
use spock_tui::tui::event::{AskEnded, Event, Pending};
use spock_tui::tui::screen::ScreenId;
use spock_tui::tui::state::{Blocked, Button, Layer};
use spock_tui::tui::update::Effect;
use tui_fixture::*;

fn key_at(c: char, at: tokio::time::Instant) -> Event {
    Event::KeyAt(
        crossterm::event::KeyEvent::new(KeyCode::Char(c), crossterm::event::KeyModifiers::NONE),
        at,
    )
}

/// The finding: a command padded with 2,100 spaces was approved as "echo hello".
#[tokio::test]
async fn padding_cannot_push_the_tail_of_a_command_out_of_sight() {
    let mut asker = Asker::new(Duration::from_secs(60));
    let mut s = Console::new(state());
    let command = format!(
        "shell echo hello{}; pm uninstall com.example.notes",
        " ".repeat(2100)
    );
    let (req, h) = asker
        .ask(ask(
            "android_run_adb_command",
            json!({"command": command, "reason": "say hello"}),
            Some("say hello"),
        ))
        .await;
    s.confirm(req);
    let screen = render(&mut s, 100, 30);
    assert!(
        screen.contains("echo hello␠×2100; pm uninstall com.example.notes"),
        "{screen}"
    );
    look(&mut s);
    s.update(key('n'));
    assert!(!h.await.unwrap().approved);
}

/// Arguments longer than the box: every character is on some row, and `y` does nothing until
/// the last row has been on screen; the modal says how far there is to go.
#[tokio::test]
async fn approval_waits_until_the_arguments_were_scrolled_to_the_end() {
    let mut asker = Asker::new(Duration::from_secs(60));
    let mut s = Console::new(state());
    let long = "A".repeat(4000);
    let command = format!("shell echo {long}; pm uninstall com.example.notes");
    let (req, h) = asker
        .ask(ask(
            "android_run_adb_command",
            json!({"command": command, "reason": "print a long line"}),
            Some("print a long line"),
        ))
        .await;
    s.confirm(req);
    let screen = render(&mut s, 80, 24);
    assert!(!screen.contains("pm uninstall"), "{screen}");
    let below = spock_tui::tui::ui::modal::lines_below(&s);
    assert!(below > 10, "{below}");
    assert!(
        screen.contains(&format!(
            "scroll to the end to approve: ↓ {below} more lines"
        )),
        "{screen}"
    );
    look(&mut s);
    assert_eq!(s.approve_blocked(s.now), Some(Blocked::Scroll(below)));
    s.update(key('y'));
    s.update(code(KeyCode::Tab));
    s.update(code(KeyCode::Enter));
    assert_eq!(
        s.confirms.len(),
        1,
        "neither y nor Enter approved unseen text"
    );

    // Every character is on some row: the rows, joined, are the whole command, and no row is
    // wider than the box.
    let text = spock_tui::tui::ui::modal::text_rows(&s);
    assert!(text.iter().all(|r| r.chars().count() <= 74), "{text:?}");
    let joined = text.concat();
    assert!(
        joined.contains(&format!("\"command\": \"{command}\"")),
        "{joined}"
    );
    // Page by page to the end, a frame after each key as the loop draws; the modal counts
    // down the rows left.
    let mut pages = 0;
    while spock_tui::tui::ui::modal::lines_below(&s) > 0 {
        s.update(code(KeyCode::PageDown));
        render(&mut s, 80, 24);
        pages += 1;
        assert!(pages < 100);
    }
    assert!(pages > 1, "{pages}");
    let screen = render(&mut s, 80, 24);
    assert!(
        screen.contains("; pm uninstall com.example.notes"),
        "{screen}"
    );
    assert!(!screen.contains("scroll to the end"), "{screen}");
    // Scrolling back up does not take the approval away again: the end was seen.
    s.update(code(KeyCode::Home));
    s.update(key('y'));
    assert_eq!(
        h.await.unwrap(),
        Decision {
            approved: true,
            by: DecidedBy::Key
        }
    );
}

/// The finding: End then `y` approved a request whose middle no frame had drawn; every row
/// must have been on screen, and the modal says how many were not.
#[tokio::test]
async fn jumping_to_the_end_skips_rows_so_approval_waits_for_them() {
    let mut asker = Asker::new(Duration::from_secs(60));
    let mut s = Console::new(state());
    let long = "B".repeat(4000);
    let command = format!("shell echo {long}; pm uninstall com.example.notes");
    let (req, h) = asker
        .ask(ask(
            "android_run_adb_command",
            json!({"command": command, "reason": "print a long line"}),
            Some("print a long line"),
        ))
        .await;
    s.confirm(req);
    render(&mut s, 80, 24);
    look(&mut s);
    s.update(code(KeyCode::End));
    let screen = render(&mut s, 80, 24);
    assert!(
        screen.contains("; pm uninstall com.example.notes"),
        "{screen}"
    );
    let Some(Blocked::Scroll(n)) = s.approve_blocked(s.now) else {
        panic!("{:?}", s.approve_blocked(s.now));
    };
    assert!(n > 10, "{n}");
    assert!(
        screen.contains(&format!(
            "scroll over every line to approve: {n} lines not shown yet"
        )),
        "{screen}"
    );
    s.update(key('y'));
    assert_eq!(s.confirms.len(), 1, "y approved rows never drawn");
    // Back up page by page, drawing each: then every row has been on screen.
    while s.confirm_scroll > 0 {
        s.update(code(KeyCode::PageUp));
        render(&mut s, 80, 24);
    }
    assert_eq!(s.approve_blocked(s.now), None);
    s.update(key('y'));
    assert!(h.await.unwrap().approved);
}

/// The finding: at 20×6 (or 120×7) the request had no rows to be drawn in, yet End then `y`
/// approved it. Below the least size nothing is approved, the modal says to enlarge the
/// terminal, and `n` still denies; enlarged, the rows count once drawn.
#[tokio::test]
async fn a_terminal_too_small_to_show_the_request_cannot_approve_it() {
    let mut asker = Asker::new(Duration::from_secs(60));
    for (w, h) in [(20, 6), (120, 7), (29, 40)] {
        let mut s = Console::new(state());
        let (req, answer) = asker.uninstall("com.example.notes").await;
        s.confirm(req);
        let screen = render(&mut s, w, h);
        look(&mut s);
        for k in [KeyCode::End, KeyCode::PageDown] {
            s.update(code(k));
            render(&mut s, w, h);
        }
        assert_eq!(s.approve_blocked(s.now), Some(Blocked::TooSmall), "{w}x{h}");
        s.update(key('y'));
        assert_eq!(
            s.confirms.len(),
            1,
            "{w}x{h}: y approved a request never drawn"
        );
        if h >= 7 {
            assert!(screen.contains("Enlarge"), "{screen}");
        }
        // Enlarged: drawn, and after its rows were on screen, approvable.
        render(&mut s, 100, 30);
        assert_eq!(s.approve_blocked(s.now), None, "{w}x{h}");
        s.update(key('y'));
        assert!(answer.await.unwrap().approved);
    }
}

/// The finding: Tab (or an arrow) typed as a request appeared moved the focus to Approve
/// during the arming time, and an Enter after it approved. Focus keys and Enter do nothing
/// until the request is armed; a click on Approve then leaves no focus behind either.
#[tokio::test]
async fn focus_keys_and_enter_typed_ahead_do_nothing_until_armed() {
    let mut asker = Asker::new(Duration::from_secs(60));
    let mut s = Console::new(state());
    let (req, h) = asker.uninstall("com.example.notes").await;
    s.confirm(req);
    render(&mut s, 100, 30);
    for k in [KeyCode::Tab, KeyCode::Right, KeyCode::Left, KeyCode::Tab] {
        s.update(code(k));
    }
    assert_eq!(s.focus, Button::Deny);
    // A click on Approve while it cannot count.
    let (x, y) = approve_button(&s);
    s.update(click(x, y));
    assert_eq!(s.focus, Button::Deny);
    s.update(code(KeyCode::Enter));
    assert_eq!(s.confirms.len(), 1, "Enter decided during the arming time");
    let step = s.gate.arming;
    s.now += step;
    s.update(code(KeyCode::Enter));
    assert!(
        !h.await.unwrap().approved,
        "Enter after arming presses Deny, which had focus"
    );
}

/// Where the Approve button is at the state's size.
fn approve_button(s: &spock_tui::tui::state::State) -> (u16, u16) {
    let (w, h) = s.size;
    (0..h)
        .flat_map(|y| (0..w).map(move |x| (x, y)))
        .find(|&(x, y)| spock_tui::tui::ui::modal::button_at((w, h), x, y) == Some(Button::Approve))
        .expect("an Approve button")
}

fn click(x: u16, y: u16) -> Event {
    Event::Mouse(crossterm::event::MouseEvent {
        kind: crossterm::event::MouseEventKind::Down(crossterm::event::MouseButton::Left),
        column: x,
        row: y,
        modifiers: crossterm::event::KeyModifiers::NONE,
    })
}

/// The finding: a `y` 80 ms after the modal opened (meant for "copy config") approved it.
#[tokio::test]
async fn keys_before_the_modal_was_drawn_or_within_its_arming_time_do_not_approve() {
    let mut asker = Asker::new(Duration::from_secs(60));
    let mut s = Console::new(state());
    assert!(s.gate.arming >= Duration::from_millis(600));
    let (req, h) = asker.uninstall("com.x").await;
    let typed = s.now;
    s.confirm(req);
    s.now += Duration::from_millis(10);
    // In the same batch as the request, before any frame: not seen, so not even a denial.
    s.update(key('y'));
    s.update(key('n'));
    assert_eq!(s.confirms.len(), 1);
    assert_eq!(s.tick_every(), Some(Duration::from_millis(100)));
    let screen = render(&mut s, 100, 30);
    assert!(screen.contains("y available in 0.6 s"), "{screen}");
    // Read before the frame was drawn, handled after it: still ignored.
    s.now += Duration::from_millis(80);
    s.update(key_at('y', typed));
    // 80 ms after the frame: ignored, and the countdown says when it will count.
    s.update(key('y'));
    s.update(code(KeyCode::Tab));
    s.update(code(KeyCode::Enter));
    assert_eq!(s.confirms.len(), 1);
    assert_eq!(
        s.approve_blocked(s.now),
        Some(Blocked::Arming(Duration::from_millis(520)))
    );
    let screen = render(&mut s, 100, 30);
    assert!(screen.contains("y available in 0.6 s"), "{screen}");
    s.now += Duration::from_millis(200);
    assert!(render(&mut s, 100, 30).contains("y available in 0.4 s"));
    // After the arming time the same key approves.
    s.now += Duration::from_millis(400);
    assert_eq!(s.approve_blocked(s.now), None);
    assert!(!render(&mut s, 100, 30).contains("y available"));
    s.update(key('y'));
    assert!(h.await.unwrap().approved);
}

/// The findings: a withdrawn request was replaced at once by a queued one under the person's
/// finger, and a double `y` over SSH approved a queued call nobody saw.
#[tokio::test]
async fn a_withdrawn_request_says_so_and_the_next_one_arms_afresh() {
    let mut asker = Asker::new(Duration::from_secs(60));
    let mut s = Console::new(state());
    let (a, ha) = asker.uninstall("com.shown").await;
    let (b, hb) = asker.uninstall("com.queued").await;
    s.confirm(a);
    s.confirm(b);
    render(&mut s, 100, 30);
    look(&mut s);
    // The client withdraws the request on screen (its call is cancelled).
    ha.abort();
    assert!(ha.await.is_err());
    // The person's double y arrives: neither answers anything.
    s.update(key('y'));
    s.update(key('y'));
    assert_eq!(s.layer(), Layer::Confirm);
    assert_eq!(s.confirms.len(), 1, "the queued request is still waiting");
    let screen = render(&mut s, 100, 30);
    assert!(screen.contains("withdrawn by the client"), "{screen}");
    assert!(!screen.contains("com.queued"), "{screen}");
    assert!(screen.contains("Keys do nothing"), "{screen}");
    // Still held just before the hold ends.
    let step = s.gate.hold - Duration::from_millis(1);
    s.now += step;
    s.update(Event::Tick);
    s.update(key('y'));
    assert!(s.gate.withdrawn.is_some());
    // Then the queued one shows, and arms afresh: a y right away is ignored.
    s.now += Duration::from_millis(1);
    s.update(Event::Tick);
    assert!(s.gate.withdrawn.is_none());
    let screen = render(&mut s, 100, 30);
    assert!(screen.contains("com.queued"), "{screen}");
    assert!(screen.contains("y available in"), "{screen}");
    s.update(key('y'));
    assert_eq!(s.confirms.len(), 1);
    let step = s.gate.arming;
    s.now += step;
    s.update(key('y'));
    assert!(hb.await.unwrap().approved);
    assert_eq!(s.layer(), Layer::Screen(ScreenId::STATUS));
}

/// Issue 31: another client leased the device while the request was on screen. The server
/// withdraws it saying why, and the person's `y` answers nothing.
#[tokio::test]
async fn a_request_the_server_withdraws_says_why_and_takes_no_key() {
    let mut asker = Asker::new(Duration::from_secs(60));
    let mut s = Console::new(state());
    let (a, ha) = asker.uninstall("com.shown").await;
    s.confirm(a);
    render(&mut s, 100, 30);
    look(&mut s);
    asker.confirmer.withdraw_because(
        41,
        "emulator-5554 is now leased by agent-a/1.0 (stdio#1): approving it would run nothing"
            .into(),
    );
    ha.abort();
    assert!(ha.await.is_err());
    s.update(key('y'));
    assert_eq!(s.layer(), Layer::Confirm);
    let screen = render(&mut s, 100, 30);
    assert!(screen.contains("withdrawn by the server"), "{screen}");
    assert!(
        screen.contains("leased by agent-a/1.0 (stdio#1)"),
        "{screen}"
    );
    assert!(screen.contains("Keys do nothing"), "{screen}");
}

/// Answering the front request puts the next one in front: a second `y` typed ahead does
/// not approve it.
#[tokio::test]
async fn a_typed_ahead_second_y_does_not_approve_the_next_request() {
    let mut asker = Asker::new(Duration::from_secs(60));
    let mut s = Console::new(state());
    let (a, ha) = asker.uninstall("a").await;
    let (b, hb) = asker.uninstall("b").await;
    s.confirm(a);
    s.confirm(b);
    render(&mut s, 100, 30);
    look(&mut s);
    s.update(key('y'));
    s.update(key('y'));
    assert!(ha.await.unwrap().approved);
    assert_eq!(s.confirms.len(), 1);
    render(&mut s, 100, 30);
    s.update(key('y'));
    assert_eq!(s.confirms.len(), 1, "within b's arming time");
    let step = s.gate.arming;
    s.now += step;
    s.update(key('n'));
    assert!(!hb.await.unwrap().approved);
}

/// The finding: with NO_COLOR the focused button had no styling, so Tab then Enter approved
/// blind. Focus is arrows and reverse video, neither of which is a colour.
#[tokio::test]
async fn the_focused_button_is_marked_without_colour() {
    let mut asker = Asker::new(Duration::from_secs(60));
    let mut s = Console::new(state());
    let (req, _h) = asker.uninstall("a").await;
    s.confirm(req);
    look(&mut s);
    let draw = |s: &mut spock_tui::tui::State| {
        s.size = (80, 24);
        let mut t = Terminal::new(TestBackend::new(80, 24)).unwrap();
        t.draw(|f| spock_tui::tui::frame::draw(f, s)).unwrap();
        t.backend().buffer().clone()
    };
    let marked = |buf: &ratatui::buffer::Buffer, label: &str| -> (bool, bool) {
        for y in 0..buf.area.height {
            let row: String = (0..buf.area.width)
                .map(|x| buf[(x, y)].symbol().to_string())
                .collect();
            if let Some(byte) = row.find(label) {
                let x = row[..byte].chars().count() as u16;
                let arrows = row.contains(&format!("[▸ {label} ◂]"));
                return (arrows, buf[(x, y)].modifier.contains(Modifier::REVERSED));
            }
        }
        panic!("{label} not drawn");
    };
    let buf = draw(&mut s);
    assert_eq!(s.focus, Button::Deny);
    assert_eq!(marked(&buf, "Deny (n)"), (true, true));
    assert_eq!(marked(&buf, "Approve (y)"), (false, false));
    s.update(code(KeyCode::Tab));
    let buf = draw(&mut s);
    assert_eq!(marked(&buf, "Deny (n)"), (false, false));
    assert_eq!(marked(&buf, "Approve (y)"), (true, true));
    // NO_COLOR: not a colour anywhere, and the focus is still marked.
    s.no_color = true;
    let buf = draw(&mut s);
    assert!(
        buf.content
            .iter()
            .all(|c| c.fg == Color::Reset && c.bg == Color::Reset)
    );
    assert_eq!(marked(&buf, "Approve (y)"), (true, true));
    assert_eq!(marked(&buf, "Deny (n)"), (false, false));
    // The buttons stay where clicks find them, whichever has focus.
    let screen = render(&mut s, 80, 24);
    let row = screen
        .lines()
        .position(|l| l.contains("Approve (y)"))
        .unwrap() as u16;
    let line = screen.lines().nth(row as usize).unwrap();
    let col = line.trim_matches('"')[..line.trim_matches('"').find("Approve").unwrap()]
        .chars()
        .count() as u16;
    assert_eq!(
        spock_tui::tui::ui::modal::button_at(s.size, col, row),
        Some(Button::Approve)
    );
}

/// Issue 18: a request on screen decided in another attached terminal closes here, saying
/// which terminal decided and how; keys meanwhile answer nothing.
#[tokio::test]
async fn a_request_decided_in_another_terminal_closes_naming_the_decider() {
    let mut s = state();
    s.update(Event::Confirm(pending(
        7,
        ask(
            "android_uninstall_app",
            json!({"packageName": "com.example.notes"}),
            None,
        ),
    )));
    render(&mut s, 100, 30);
    look(&mut s);
    s.update(decided_elsewhere(7));
    let screen = render(&mut s, 100, 30);
    assert!(screen.contains("Decided in another terminal"), "{screen}");
    assert!(
        screen.contains("approved by attach pid 2 on /dev/pts/2"),
        "{screen}"
    );
    assert_eq!(s.layer(), Layer::Confirm);
    let fx = s.update(key('y'));
    assert!(s.confirms.is_empty());
    assert!(
        !fx.iter().any(|e| matches!(e, Effect::Decide { .. })),
        "a key here answered it: {fx:?}"
    );
}

/// The modal says how this terminal's answer goes on record (its welcome's `you`: the uid, pid
/// and executable the server verified, and the terminal), as a row of the request, so it is
/// seen before anything is approved.
#[tokio::test]
async fn the_modal_says_how_this_terminals_answer_is_recorded() {
    let mut s = state();
    s.you = "attach pid 4242 uid 1000 (/usr/bin/spock-tui) on /dev/pts/3".into();
    s.update(Event::Confirm(pending(
        8,
        ask(
            "android_uninstall_app",
            json!({"packageName": "com.example.notes"}),
            None,
        ),
    )));
    let screen = render(&mut s, 100, 30);
    assert!(
        screen.contains("Record    your answer is recorded as attach pid 4242"),
        "{screen}"
    );
    let rows = spock_tui::tui::ui::modal::text_rows(&s).concat();
    assert!(
        rows.ends_with(
            "your answer is recorded as attach pid 4242 uid 1000 (/usr/bin/spock-tui) on /dev/pts/3"
        ),
        "{rows}"
    );
}

/// A request as the attach link hands it to the state.
fn pending(id: u64, ask: spock_tui::mcp::confirm::Ask) -> Pending {
    Pending {
        id,
        ask,
        deadline: tokio::time::Instant::now() + Duration::from_secs(60),
        timeout: Duration::from_secs(60),
        client_says: None,
        gone: None,
    }
}

/// The server says another terminal approved request `id`.
fn decided_elsewhere(id: u64) -> Event {
    Event::ConfirmGone {
        id,
        gone: AskEnded {
            decided: Some((true, "attach pid 2 on /dev/pts/2".into())),
            why: None,
        },
    }
}

/// The state as a control centre with a terminal keeps it: requests are shown when the
/// terminal answers a fence.
fn fenced() -> spock_tui::tui::state::State {
    let mut s = state();
    s.gate.fence = Some(Default::default());
    s
}

/// An uninstall asked and drawn (not yet answered by the terminal): its id and its decision.
async fn drawn_uninstall(
    asker: &mut Asker,
    s: &mut Console,
) -> (u64, tokio::task::JoinHandle<Decision>) {
    let (req, h) = asker.uninstall("com.example.notes").await;
    s.confirm(req);
    render(s, 100, 30);
    (s.confirms.front().unwrap().id, h)
}

/// Issue 44, item 1: with a terminal, a request counts as shown when the terminal answers
/// the fence written after the frame that drew it, not when the frame was written. Keys read
/// before that answer (typed before the person could see it) answer nothing, and the arming
/// time counts from the answer.
#[tokio::test]
async fn a_request_arms_from_the_terminals_answer_to_the_fence_after_its_frame() {
    let mut asker = Asker::new(Duration::from_secs(60));
    let mut s = Console::new(fenced());
    let (id, h) = drawn_uninstall(&mut asker, &mut s).await;
    assert_eq!(s.gate.fence.as_ref().unwrap().wanted, Some(id));
    assert_eq!(s.gate.shown, None, "written is not seen");
    let at = s.now;
    s.fence_sent(id, at);
    // A round trip later, long past the old arming time: keys typed before the person's
    // screen showed it still answer nothing, and neither does Tab Enter.
    s.now += Duration::from_millis(1200);
    render(&mut s, 100, 30);
    s.update(key('y'));
    s.update(code(KeyCode::Tab));
    s.update(code(KeyCode::Enter));
    assert_eq!(s.confirms.len(), 1);
    assert_eq!(s.focus, Button::Deny);
    assert_eq!(s.approve_blocked(s.now), Some(Blocked::NotShown));
    let screen = render(&mut s, 100, 30);
    assert!(
        screen.contains("from when your terminal shows this"),
        "{screen}"
    );
    // The terminal answers: shown from then, armed 0.6 s later.
    let answered = s.now;
    s.update(Event::Fence(answered));
    assert_eq!(s.gate.shown, Some((id, answered)));
    s.now += Duration::from_millis(10);
    s.update(key('y'));
    assert_eq!(
        s.confirms.len(),
        1,
        "y inside the arming time after the answer"
    );
    s.now = answered + s.gate.arming;
    s.update(key('y'));
    assert!(h.await.unwrap().approved);
}

/// The n-th answer belongs to the n-th fence: an answer to the fence written for an earlier
/// frame (the probe at start, a request that went) never arms the request in front.
#[tokio::test]
async fn an_answer_to_an_earlier_fence_does_not_arm_a_later_request() {
    let mut asker = Asker::new(Duration::from_secs(60));
    let mut s = Console::new(fenced());
    render(&mut s, 100, 30);
    let at = s.now;
    s.fence_sent(u64::MAX, at); // the probe at start, not answered yet
    let (req, h) = asker.uninstall("com.example.notes").await;
    s.confirm(req);
    render(&mut s, 100, 30);
    let id = s.confirms.front().unwrap().id;
    let at = s.now;
    s.fence_sent(id, at);
    s.now += Duration::from_secs(2);
    s.update(Event::Fence(s.now)); // the probe's answer
    assert_eq!(s.gate.shown, None);
    s.update(key('y'));
    assert_eq!(s.confirms.len(), 1);
    s.now += Duration::from_millis(300);
    s.update(Event::Fence(s.now)); // the request's
    assert_eq!(s.gate.shown, Some((id, s.now)));
    let step = s.gate.arming;
    s.now += step;
    s.update(key('n'));
    assert!(!h.await.unwrap().approved);
}

/// A resize redraws the request: it counts as shown (and arms) again only once the terminal
/// answers the fence after the new frame.
#[tokio::test]
async fn a_resize_during_a_request_fences_and_arms_again() {
    let mut asker = Asker::new(Duration::from_secs(60));
    let mut s = Console::new(fenced());
    let (id, h) = drawn_uninstall(&mut asker, &mut s).await;
    let at = s.now;
    s.fence_sent(id, at);
    s.update(Event::Fence(s.now));
    let step = s.gate.arming;
    s.now += step;
    assert_eq!(s.approve_blocked(s.now), None);
    s.update(Event::Resize(90, 28));
    assert_eq!(s.approve_blocked(s.now), Some(Blocked::NotShown));
    s.update(key('y'));
    assert_eq!(s.confirms.len(), 1);
    render(&mut s, 90, 28);
    assert_eq!(s.gate.fence.as_ref().unwrap().wanted, Some(id));
    let at = s.now;
    s.fence_sent(id, at);
    s.update(Event::Fence(s.now));
    let step = s.gate.arming;
    s.now += step;
    s.update(key('y'));
    assert!(h.await.unwrap().approved);
}

/// A terminal that never answers a fence: after a while requests arm from their frame, and
/// the person is told why.
#[tokio::test]
async fn a_terminal_that_never_answers_falls_back_to_the_frame_and_says_so() {
    let mut asker = Asker::new(Duration::from_secs(600));
    let mut s = Console::new(fenced());
    let (req, h) = asker.uninstall("com.example.notes").await;
    s.confirm(req);
    render(&mut s, 100, 30);
    let id = s.confirms.front().unwrap().id;
    let sent = s.now;
    s.fence_sent(id, sent);
    s.now += spock_tui::tui::state::FENCE_GIVE_UP - Duration::from_millis(1);
    s.update(Event::Tick);
    assert_eq!(s.gate.shown, None);
    s.now += Duration::from_millis(1);
    s.update(Event::Tick);
    assert_eq!(s.gate.shown, Some((id, sent)));
    assert!(
        s.notices
            .iter()
            .any(|n| n.text.contains("does not answer status queries")),
        "{:?}",
        s.notices
    );
    s.update(key('y'));
    assert!(h.await.unwrap().approved);
}

/// Issue 44, item 2: one click on `[ Approve (y) ]` after the arming time approves nothing;
/// it moves the focus, and Enter (or y) decides.
#[tokio::test]
async fn a_click_on_approve_only_moves_focus() {
    let mut asker = Asker::new(Duration::from_secs(60));
    let mut s = Console::new(state());
    let (req, h) = asker.uninstall("com.example.notes").await;
    s.confirm(req);
    render(&mut s, 100, 30);
    look(&mut s);
    let (x, y) = approve_button(&s);
    s.update(click(x, y));
    assert_eq!(s.confirms.len(), 1, "a click decided");
    assert_eq!(s.focus, Button::Approve);
    let screen = render(&mut s, 100, 30);
    assert!(screen.contains("a click only moves focus"), "{screen}");
    s.update(code(KeyCode::Enter));
    assert!(h.await.unwrap().approved);
}

/// Issue 44, items 8 and 9: the footer under a new request shows its keys, not the last
/// call's result; a request decided in another terminal says so in the footer (keys do
/// nothing, not "y approve") and stays in the message log.
#[tokio::test]
async fn the_footer_belongs_to_the_request_on_screen() {
    let mut s = state();
    s.notify("approved android_uninstall_app");
    s.update(Event::Confirm(pending(
        7,
        ask(
            "android_uninstall_app",
            json!({"packageName": "com.example.notes"}),
            None,
        ),
    )));
    let screen = render(&mut s, 80, 24);
    let footer = screen.lines().last().unwrap().to_string();
    assert!(
        !footer.contains("approved android_uninstall_app"),
        "{footer}"
    );
    assert!(
        footer.contains("approve") && footer.contains("deny"),
        "{footer}"
    );
    look(&mut s);
    s.update(decided_elsewhere(7));
    let screen = render(&mut s, 80, 24);
    let footer = screen.lines().last().unwrap().to_string();
    assert!(footer.contains("keys do nothing"), "{footer}");
    assert!(!footer.contains("approve"), "{footer}");
    assert!(screen.contains("approved by attach pid 2 on"), "{screen}");
    assert!(
        s.notices
            .iter()
            .any(|n| n.text.contains("decided in another terminal")
                && n.text.contains("approved by attach pid 2 on /dev/pts/2")),
        "{:?}",
        s.notices.iter().map(|n| &n.text).collect::<Vec<_>>()
    );
    // After the hold, the footer says it (until the notice expires).
    let step = s.gate.hold;
    s.now += step;
    s.update(Event::Tick);
    let screen = render(&mut s, 80, 24);
    let footer = screen.lines().last().unwrap().to_string();
    assert!(footer.contains("decided in another terminal"), "{footer}");
}

/// Issue 44, item 10: a wide character (⚡) just left of the request's box cannot cover its
/// left border.
#[tokio::test]
async fn a_wide_character_behind_the_modal_does_not_cover_its_border() {
    let mut asker = Asker::new(Duration::from_secs(60));
    let mut s = Console::new(state());
    let (req, _h) = asker.uninstall("com.example.notes").await;
    s.confirm(req);
    let mut terminal = Terminal::new(TestBackend::new(60, 20)).unwrap();
    terminal
        .draw(|f| {
            // The screen behind: two-column characters across the whole width, one of them
            // in the column just left of the box (which starts at column 2).
            for y in 0..20 {
                f.buffer_mut()
                    .set_string(1, y, "⚡".repeat(29), ratatui::style::Style::new());
            }
            spock_tui::tui::ui::modal::draw(f, f.area(), &s);
        })
        .unwrap();
    let buf = terminal.backend().buffer().clone();
    // The box's left border column: every row of it is a border glyph, and the cell left
    // of it is not a wide character.
    let (x0, rows): (u16, Vec<u16>) = {
        let y = (0..20)
            .find(|&y| (0..60).any(|x| buf[(x, y)].symbol() == "┌"))
            .expect("the box's top-left corner on screen (a wide character left of it covers it)");
        let x = (0..60).find(|&x| buf[(x, y)].symbol() == "┌").unwrap();
        let ys = (y..20)
            .take_while(|&yy| buf[(x, yy)].symbol() != " ")
            .collect();
        (x, ys)
    };
    assert_eq!(x0, 2);
    for y in rows {
        let left = buf[(x0 - 1, y)].symbol().to_string();
        assert!(
            unicode_width::UnicodeWidthStr::width(left.as_str()) <= 1,
            "row {y}: {left:?} left of the border"
        );
    }
}

/// The black-box review of issue 44 (A6): PgDn and End typed before a long request reached the
/// person's screen scrolled it to the end, so every row counted as read and one `y` approved
/// a middle nobody saw. Scroll keys read before the terminal's answer move nothing.
#[tokio::test]
async fn scroll_keys_typed_before_the_request_was_seen_move_nothing() {
    let mut asker = Asker::new(Duration::from_secs(60));
    let mut s = Console::new(fenced());
    let command = format!(
        "shell echo {}; pm uninstall com.example.notes",
        "A".repeat(4000)
    );
    let (req, h) = asker
        .ask(ask(
            "android_run_adb_command",
            json!({"command": command, "reason": "print a long line"}),
            Some("print a long line"),
        ))
        .await;
    s.confirm(req);
    render(&mut s, 80, 24);
    let id = s.confirms.front().unwrap().id;
    let at = s.now;
    s.fence_sent(id, at);
    for _ in 0..30 {
        s.update(code(KeyCode::PageDown));
        s.update(code(KeyCode::End));
        render(&mut s, 80, 24);
    }
    assert_eq!(
        s.confirm_scroll, 0,
        "scrolled by keys typed before it was seen"
    );
    s.update(Event::Fence(s.now));
    let step = s.gate.arming;
    s.now += step;
    s.update(key('y'));
    assert_eq!(s.confirms.len(), 1, "approved with rows never on screen");
    assert!(matches!(s.approve_blocked(s.now), Some(Blocked::Scroll(_))));
    // Seen, the same keys scroll.
    s.update(code(KeyCode::PageDown));
    assert!(s.confirm_scroll > 0);
    s.update(key('n'));
    assert!(!h.await.unwrap().approved);
}
