//! Cost of one catastrophic-command check (`guard::catastrophic`) on a 1 KB realistic
//! maintenance command and a 1 KB adversarial one (nested shells, loops, functions, base64,
//! globs, links), plus the worst inputs the property tests throw at it. Target: < 1 ms each.
use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use spock_tui::guard;

/// About 1 KB of what a developer runs on a test phone.
fn realistic() -> String {
    let mut s = String::new();
    let parts = [
        "cd /sdcard/Download && rm -f *.apk *.tmp",
        "pm clear com.example.app",
        "settings put global window_animation_scale 0",
        "am force-stop com.example.app && am start -n com.example.app/.MainActivity",
        "for f in /data/local/tmp/*.log; do [ -s \"$f\" ] && echo \"$f\"; done",
        "logcat -d -t 200 | grep -i -E 'crash|anr' | tail -n 20",
        "dumpsys meminfo com.example.app | head -n 40",
        "rm -rf /sdcard/Android/data/com.example.app/cache/*",
        "find /sdcard/Download -name '*.part' -mtime +2 -delete",
        "echo done > /data/local/tmp/marker.txt; ls -la /data/local/tmp",
        "if pm path com.example.app >/dev/null; then echo installed; else echo missing; fi",
        "getprop ro.build.version.sdk; wm size; wm density",
    ];
    while s.len() < 1000 {
        for p in parts {
            s.push_str(p);
            s.push_str("; ");
        }
    }
    s.truncate(1024);
    s
}

/// About 1 KB of disguise around a catastrophic core (refused at the very end).
fn adversarial() -> String {
    let mut s = String::from(
        "IFS=,; A=/data/local/tmp; B=$A/x; f() { for d in \"$@\"; do X=${d%/*}; done; echo $X; }; \
         alias l='ls -la'; set -- a b c; shift; read R <<< /data/local/tmp/r; \
         case $R in /data*) C=$R;; *) C=$A;; esac; cd $A && cd - ; ",
    );
    while s.len() < 900 {
        s.push_str("while read q; do Y=$(echo $q | rev | tr a-z a-z); B=${B}y; done <<< abc; ");
        s.push_str("sh -c 'echo $(printf \"%s\" x)' _ $(f /a/b /c/d); ");
    }
    s.push_str("echo cm0gLXJmIC9zZGNhcmQ= | base64 -d | sh");
    s
}

fn bench(c: &mut Criterion) {
    let real = realistic();
    let adv = adversarial();
    assert!(guard::catastrophic(&real).is_none(), "realistic passes");
    assert!(
        guard::catastrophic(&adv).is_some(),
        "adversarial is refused"
    );
    c.bench_function("guard/realistic 1KB", |b| {
        b.iter(|| guard::catastrophic(black_box(&real)))
    });
    c.bench_function("guard/adversarial 1KB", |b| {
        b.iter(|| guard::catastrophic(black_box(&adv)))
    });
    let nested_loops = "while :; do X=$X$X; ".repeat(20) + &"done; ".repeat(20) + "rm -rf $X";
    c.bench_function("guard/20 nested loops", |b| {
        b.iter(|| guard::catastrophic(black_box(&nested_loops)))
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30).measurement_time(std::time::Duration::from_secs(3));
    targets = bench
}
criterion_main!(benches);
