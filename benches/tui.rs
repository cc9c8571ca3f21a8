//! Frame render time with 10,000 history entries (target: under 2 ms a frame). A benchmark,
//! not a timed test: `cargo bench --bench tui`.
#[path = "../tests/support/tui_fixture.rs"]
mod fixture;

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::json;
use spock_tui::mcp::events::Outcome;
use spock_tui::mcp::registry::Level;
use spock_tui::tui::State;

fn ten_thousand() -> State {
    let mut s = fixture::state();
    for id in 1..=10_000u64 {
        let (tool, level) = match id % 3 {
            0 => ("android_tap", Level::SafeAction),
            1 => ("android_take_screenshot", Level::ReadOnly),
            _ => ("android_uninstall_app", Level::Destructive),
        };
        s.update(fixture::started(
            id,
            id as i64,
            tool,
            level,
            Some("emulator-5554"),
            json!({"x": id, "note": "some argument text"}),
        ));
        s.update(fixture::finished(
            id,
            tool,
            Outcome::Ok,
            12,
            None,
            json!({"ok": true, "id": id}),
        ));
    }
    s
}

fn frames(c: &mut Criterion) {
    let mut s = ten_thousand();
    for (screen, key) in [
        ("history", '4'),
        ("activity", '3'),
        ("tools", '2'),
        ("status", '1'),
    ] {
        s.update(fixture::key(key));
        for (w, h) in [(200u16, 60u16), (80, 24)] {
            s.size = (w, h);
            let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
            c.bench_function(&format!("frame/{screen}/{w}x{h}/10k-history"), |b| {
                b.iter(|| {
                    terminal
                        .draw(|f| spock_tui::tui::frame::draw(f, black_box(&s)))
                        .map(drop)
                        .unwrap()
                })
            });
        }
    }
    // History narrowed by a search over all 10,000 records: the cost of a keystroke.
    s.update(fixture::key('4'));
    c.bench_function("update/history-search-keystroke/10k", |b| {
        b.iter(|| {
            s.history_view.query = "argument".into();
            s.refresh_matches();
            black_box(s.history_len())
        })
    });
}

criterion_group!(benches, frames);
criterion_main!(benches);
