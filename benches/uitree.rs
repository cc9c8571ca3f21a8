//! Parsing cost of the largest real uiautomator capture, plus the work every `android_get_ui_tree`
//! and element-addressed tap does on top of it (compact render, plain query).

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use spock_tui::uitree::{TreeOptions, parse};

const LARGEST: &str = "rn-openweather-bare-ids.xml";

fn fixture(name: &str) -> String {
    spock_tui::testdata::fixture(&format!("uiautomator/{name}"))
}

fn bench(c: &mut Criterion) {
    let xml = fixture(LARGEST);
    c.bench_function("uitree/parse largest fixture", |b| {
        b.iter(|| parse(black_box(&xml)).expect("parses"))
    });
    let tree = parse(&xml).expect("parses");
    let compact = TreeOptions {
        compact: true,
        ..TreeOptions::default()
    };
    c.bench_function("uitree/compact render", |b| {
        b.iter(|| black_box(&tree).to_json(compact))
    });
    c.bench_function("uitree/resolve_query", |b| {
        b.iter(|| black_box(&tree).resolve_query(black_box("Humidity")))
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
