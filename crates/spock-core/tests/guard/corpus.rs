//! The guard against the held-out corpora in `tests/guard/`: disguised catastrophic commands
//! (all refused before anyone is asked, since each has been used to fix the guard) and
//! ordinary maintenance commands (at most
//! 1% refused). Prints a table per family and lists every miss, so a regression names itself.
//!
//! Run `cargo test -p spock-core --test guard corpus:: -- --nocapture` to see the table.
use std::collections::BTreeMap;

use spock_core::guard;

#[derive(serde::Deserialize)]
struct Case {
    family: String,
    cmd: String,
    #[serde(default)]
    note: String,
}

fn load(name: &str) -> Vec<Case> {
    let path = spock_core::testdata::repo_root()
        .join("tests/guard")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .enumerate()
        .map(|(i, l)| {
            serde_json::from_str(l).unwrap_or_else(|e| panic!("{}:{}: {e}", path.display(), i + 1))
        })
        .collect()
}

struct Tally {
    refused: usize,
    total: usize,
    per_family: BTreeMap<String, (usize, usize)>,
    /// Catastrophic commands let through, or ordinary ones refused, with the reason.
    misses: Vec<String>,
}

fn tally(cases: &[Case], want_refused: bool) -> Tally {
    let mut t = Tally {
        refused: 0,
        total: cases.len(),
        per_family: BTreeMap::new(),
        misses: Vec::new(),
    };
    for c in cases {
        let r = guard::catastrophic(&c.cmd);
        let e = t.per_family.entry(c.family.clone()).or_default();
        e.1 += 1;
        if r.is_some() {
            t.refused += 1;
            e.0 += 1;
        }
        match (&r, want_refused) {
            (None, true) => t
                .misses
                .push(format!("[{}] {:?} ({})", c.family, c.cmd, c.note)),
            (Some(r), false) => t.misses.push(format!("[{}] {:?}: {r}", c.family, c.cmd)),
            _ => {}
        }
    }
    t
}

fn print(title: &str, t: &Tally) {
    println!(
        "\n{title}: {}/{} refused ({:.1}%)",
        t.refused,
        t.total,
        100.0 * t.refused as f64 / t.total.max(1) as f64
    );
    println!("| family | refused | total |");
    println!("|---|---|---|");
    for (f, (r, n)) in &t.per_family {
        println!("| {f} | {r} | {n} |");
    }
    for m in &t.misses {
        println!("  miss: {m}");
    }
}

/// Loads a corpus, prints its table and checks its rate: all of it refused for a catastrophic
/// one, at most 1% for an ordinary one.
fn check(name: &str, title: &str, min_cases: usize, want_refused: bool) {
    let cases = load(name);
    assert!(cases.len() >= min_cases, "{name} has {} cases", cases.len());
    let t = tally(&cases, want_refused);
    print(title, &t);
    // Every catastrophic corpus here has been used to fix the guard: all of it stays
    // refused. (The 95 % goal is for a fresh corpus, measured before it is used.)
    let ok = if want_refused {
        t.refused == t.total
    } else {
        t.refused * 100 <= t.total
    };
    assert!(
        ok,
        "{name}: {}/{} refused; misses:\n{}",
        t.refused,
        t.total,
        t.misses.join("\n")
    );
}

#[test]
fn disguised_catastrophic_commands_are_refused() {
    check("catastrophic.jsonl", "catastrophic", 200, true);
}

/// Issue 34's round 2: written blind, measured before any fix (73.7 %), then used to fix.
#[test]
fn round_two_corpus_is_refused() {
    check("round2/catastrophic-round2.jsonl", "round 2", 100, true);
}

/// Issue 34's round 3: written blind by two reviewers, measured before any fix (73.0 %), then
/// used to fix.
#[test]
fn round_three_shell_corpus_is_refused() {
    check("round3/shell.jsonl", "round 3, shell", 60, true);
}

#[test]
fn round_three_programs_corpus_is_refused() {
    check("round3/programs.jsonl", "round 3, programs", 60, true);
}

/// Issue 34's round 4: written blind by two reviewers, measured before any fix (74.6 %),
/// then used to fix.
#[test]
fn round_four_shell_corpus_is_refused() {
    check("round4/shell.jsonl", "round 4, shell", 60, true);
}

#[test]
fn round_four_programs_corpus_is_refused() {
    check("round4/programs.jsonl", "round 4, programs", 55, true);
}

/// Issue 34's round 5: written blind by three reviewers, measured before any fix (88.7 %),
/// then used to fix.
#[test]
fn round_five_corpora_are_refused() {
    check("round5/shell.jsonl", "round 5, shell", 55, true);
    check("round5/programs.jsonl", "round 5, programs", 50, true);
    check("round5/android.jsonl", "round 5, Android routes", 50, true);
}

/// Issue 34's round 6: written blind by three reviewers, measured before any fix (80.6 %),
/// then used to fix.
#[test]
fn round_six_corpora_are_refused() {
    check("round6/shell.jsonl", "round 6, shell", 55, true);
    check("round6/programs.jsonl", "round 6, programs", 50, true);
    check("round6/android.jsonl", "round 6, Android routes", 50, true);
}

/// Issue 34's round 7: written blind by three reviewers, measured before any fix (84.4 %),
/// then used to fix.
#[test]
fn round_seven_corpora_are_refused() {
    check("round7/shell.jsonl", "round 7, shell", 55, true);
    check("round7/programs.jsonl", "round 7, programs", 50, true);
    check("round7/android.jsonl", "round 7, Android routes", 50, true);
}

/// Issue 34's round 8: written blind by three reviewers, measured before any fix (92.4 %),
/// then used to fix.
#[test]
fn round_eight_corpora_are_refused() {
    check("round8/shell.jsonl", "round 8, shell", 55, true);
    check("round8/programs.jsonl", "round 8, programs", 50, true);
    check("round8/android.jsonl", "round 8, Android routes", 50, true);
}

/// Issue 34's round 9: written blind by three reviewers, measured before any fix (88.3 %),
/// then used to fix.
#[test]
fn round_nine_corpora_are_refused() {
    check("round9/shell.jsonl", "round 9, shell", 55, true);
    check("round9/programs.jsonl", "round 9, programs", 50, true);
    check("round9/android.jsonl", "round 9, Android routes", 50, true);
}

/// Round 10 (167 lines, 89.2 % before any fix): bracket sets read as POSIX (`[!]]`,
/// `[[=v=]]`), descriptors followed through redirections (`2>&1 >/dev/null | sh`), busybox
/// `mount.TYPE` helpers, `basename -a` package sets.
#[test]
fn round_ten_corpora_are_refused() {
    check("round10/shell.jsonl", "round 10, shell", 61, true);
    check("round10/programs.jsonl", "round 10, programs", 52, true);
    check(
        "round10/android.jsonl",
        "round 10, Android routes",
        54,
        true,
    );
}

#[test]
fn ordinary_commands_are_not_refused() {
    check("ordinary.jsonl", "ordinary", 100, false);
}

/// Issue 34: real one-liners from public documentation, answers and READMEs, each with its
/// source and shown harmless in the sandbox.
#[test]
fn real_ordinary_commands_are_not_refused() {
    check(
        "ordinary-real.jsonl",
        "ordinary (real, sourced)",
        300,
        false,
    );
}

#[test]
fn refusals_say_what_could_not_be_read() {
    let r =
        guard::catastrophic("X=/sdcard/Download/old; unset X; rm -rf /sdcard/$X").expect("refused");
    assert!(r.why.contains("`$X`") || r.rule != "cannot-tell", "{r}");
    let r = guard::catastrophic("read X; rm -rf \"$X\"").expect("refused");
    assert_eq!(r.rule, "cannot-tell");
    assert!(r.why.contains("`$X` holds after `read`"), "{r}");
    assert!(r.why.contains("write it as plain commands"), "{r}");
    let r = guard::catastrophic("unset D; rm -rf \"$D\"").expect("refused");
    assert!(
        r.why.contains("cannot tell what `$D` holds after `unset`"),
        "{r}"
    );
}

/// Issue 34: what the guard does not model is refused, and the refusal names it.
#[test]
fn what_the_guard_cannot_read_is_refused_by_name() {
    let cases: &[(&str, &str, &str)] = &[
        ("x='a[$(id)]'; echo $((x))", "cannot-read", "subscript"),
        ("echo ${!X}", "cannot-read", "`${!X}`"),
        ("true\r#; id", "cannot-read", "control character"),
        ("id |& print -p x", "cannot-read", "co-process"),
        (
            "frobnicate /system/build.prop",
            "cannot-read",
            "`frobnicate`",
        ),
        ("sed -i d /vendor/build.prop", "cannot-read", "`sed -i`"),
        ("echo id | sed e", "cannot-read", "`e`"),
        ("rm -rf ~alice/x", "cannot-read", "`~alice`"),
        (
            "> /system/framework/framework.jar",
            "system-write",
            "framework.jar",
        ),
        ("pm remove-user 10", "remove-user", "user"),
        (
            "for p in a.b c.d e.f g.h; do pm uninstall $p; done",
            "mass-uninstall",
            "4 packages",
        ),
        (
            "pm list packages | cut -d: -f2 | while read p; do pm clear $p; done",
            "mass-uninstall",
            "computed",
        ),
        (
            "am start -d 'intent:#Intent;action=android.intent.action.MASTER%5FCLEAR;end'",
            "factory-reset",
            "factory reset",
        ),
        // Round 9 (issue 34): POSIX classes, `read -u`, `PS4`, `set -s`, `rmdir -p`.
        (
            "rm -rf /sdcard/[[:upper:]]*",
            "rm-root",
            "/storage/emulated/0",
        ),
        (
            "read -u3 T 3<<'B'\n/odm\nB\nrm -rf \"$T\"",
            "cannot-tell",
            "read -u",
        ),
        ("PS4='rm -rf '; set -x", "cannot-read", "PS4"),
        (
            "set -s -- /x /data/app; rm -rf \"$1\"",
            "cannot-tell",
            "set -s",
        ),
        ("rmdir -p /oem/cache/tmp", "system-write", "/oem"),
        // Round 8 (issue 34): bytes or characters, traps inside `$( )`, busybox's pattern
        // escapes, `nsenter -w`, `diff | patch`.
        (
            "X='ü/system_ext'; rm -rf -- \"${X#??}\"",
            "cannot-tell",
            "beyond ASCII",
        ),
        (
            "T=$(trap 'echo /vendor' EXIT; echo /data/local/tmp/x); rm -rf $T",
            "rm-root",
            "/vendor",
        ),
        ("B='\\vendor'; rm -rf /$B*", "rm-root", "/vendor"),
        (
            "busybox nsenter -w/cache/recovery sh -c 'echo x > command'",
            "recovery-command",
            "recovery",
        ),
        (
            "diff -u /system/etc/hosts /dev/null | patch -p0",
            "cannot-read",
            "patch",
        ),
        // Round 7 (issue 34): patterns as program names and write targets, system scripts
        // run with `sh`, compressors that delete, values a builtin may leave unchanged.
        ("/bin/c[m]d testharness enable", "cannot-read", "pattern"),
        ("sh /system/bin/pm remove-user 10", "remove-user", "user"),
        (
            "for f in /*/etc/build.prop; do echo x >> $f; done",
            "system-write",
            "OS image",
        ),
        (
            "bzip2 /sdcard/DCIM/*",
            "rm-root",
            "/storage/emulated/0/DCIM",
        ),
        (
            "gunzip /cache/recovery/command.gz",
            "recovery-command",
            "recovery",
        ),
        (
            "dd if=/dev/zero of=\"$(find /dev -name 'm?sc')\"",
            "raw-block-write",
            "partition",
        ),
        (
            "T=/vendor; T=/data/local/tmp/x command :; rm -rf \"$T\"",
            "rm-root",
            "/vendor",
        ),
        // Round 6 (issue 34): a `cd` that may fail, prefix assignments, applets the guard
        // does not follow, daemons' fixed paths, awk's output variables.
        (
            "cd /data/local/tmp/old 2>/dev/null; rm -rf vendor",
            "rm-root",
            "/vendor",
        ),
        (
            "X=/vendor; X=/data/local/tmp/x rm -rf $X",
            "rm-root",
            "/vendor",
        ),
        ("busybox dpkg -r tidy", "cannot-read", "applet"),
        (
            "busybox time -o /cache/recovery/command true",
            "recovery-command",
            "recovery",
        ),
        (
            "ln -s /dev/block/by-name/misc /data/local/tmp/l",
            "raw-block-write",
            "link",
        ),
        (
            "awk '{print > f}' f=/vendor/build.prop /data/local/tmp/x",
            "cannot-read",
            "/vendor/build.prop",
        ),
        ("cd /sdcard && rm *", "rm-root", "/storage/emulated/0"),
        // Round 5 (issue 34): tar as tar reads its options, every app's data, busybox's
        // readings.
        ("tar xCf / /data/local/tmp/o.tar", "cannot-read", "`/`"),
        (
            "tar -C /data/local/tmp/o -C / -xf o.tar",
            "cannot-read",
            "more than one",
        ),
        ("tar -cf /dev/null -I sh x", "cannot-read", "tar -I"),
        (
            "truncate -s 0 /data/user_de/0/*/databases/*",
            "app-data",
            "every app",
        ),
        ("((cmd testharness enable))", "factory-reset", "testharness"),
        (
            "find /system/bin -name 'c?d' -exec {} x \\;",
            "cannot-read",
            "find -exec {}",
        ),
        // Round 4 (issue 34): both readings of a wrapped program, loops' redirections.
        ("alias rm='echo'; rm -rf /vendor", "rm-root", "/vendor"),
        ("alias x='echo \"'", "cannot-read", "not a whole command"),
        (
            "cp -t /system/framework /data/local/tmp/x.jar",
            "system-write",
            "/system/framework",
        ),
        (
            "echo 'rm -rf /vendor' | busybox unshare",
            "rm-root",
            "/vendor",
        ),
        (
            "cpio -idu < /data/local/tmp/p.cpio",
            "cannot-read",
            "cpio -i",
        ),
        (
            "while read -r l; do sh; done <<'EOF'\nrm -rf /vendor\nEOF",
            "rm-root",
            "/vendor",
        ),
        // Round 3 (issue 34): what mksh reads differently, and programs that fill folders.
        ("echo $((id) )", "cannot-read", "$((…) )"),
        ("cmd ${|REPLY=x;} enable", "cannot-read", "${|…;}"),
        ("T=<<EOF\n/x\nEOF\n", "cannot-read", "NAME=<<"),
        ("cd a b", "cannot-read", "cd OLD NEW"),
        ("sh -l -c :", "cannot-read", "login or interactive"),
        ("EXINIT=x vi /dev/null", "cannot-read", "EXINIT"),
        (
            "tar -xf a.tar -C /data/local/tmp/o && : > /data/local/tmp/o/l/f",
            "cannot-read",
            "filled",
        ),
        (
            "rm -rf /cache/../media/0/*",
            "rm-root",
            "/storage/emulated/0",
        ),
        (
            "printf 'all:\\n\\trm -rf /vendor\\n' > /data/local/tmp/Makefile; cd /data/local/tmp && mymake",
            "rm-root",
            "leaves `/data/local/tmp/Makefile`",
        ),
    ];
    for (cmd, rule, words) in cases {
        let r = guard::catastrophic(cmd).unwrap_or_else(|| panic!("not refused: {cmd:?}"));
        assert_eq!(r.rule, *rule, "{cmd:?}: {r}");
        assert!(r.why.contains(words), "{cmd:?}: {r}");
    }
    // The same constructs used harmlessly still pass.
    for cmd in [
        "i=0; while [ $i -lt 3 ]; do i=$((i+1)); done; echo $i",
        "x=ab; echo ${x/a/b}",
        "cat <<'EOF'\n$(id)\nEOF",
        "pm uninstall com.example.app; pm clear com.example.other",
        "sed -n 's/^ro.product.model=//p' /system/build.prop",
        "sort -o /data/local/tmp/s.txt /data/local/tmp/u.txt",
        // Round 3's forms used harmlessly.
        "printf -- '%s\\n' done",
        "cd /sdcard/Download && cd .. && ls",
        "rm -rf /data/local/tmp/build/../old",
        "tar -xf /data/local/tmp/a.tar -C /data/local/tmp/x && rm /data/local/tmp/x/a.txt",
        "cp -r /sdcard/DCIM/Camera /data/local/tmp/bak && ls /data/local/tmp/bak",
        "echo 'am broadcast -a android.intent.action.MASTER_CLEAR' > /data/local/tmp/notes.txt",
        "X=3; shift $X",
        "nc -l -p 5555 > /data/local/tmp/in.bin",
        // Round 4's forms used harmlessly.
        "alias ll='ls -l'\nll /sdcard",
        "rm() { echo \"$@\"; }; rm -f /data/local/tmp/x.log",
        "while read -r p; do echo $p; done <<'EOF'\ncom.example.app\nEOF",
        "read A <<'EOF'\nsome\\_text\nEOF\necho $A",
        "trap 'rm -f /data/local/tmp/lock' EXIT; touch /data/local/tmp/lock",
        "cp -t /data/local/tmp/bak /sdcard/Download/a.txt",
        "P=/data/local/tmp:~/bin; echo $P",
        // Round 5's forms used harmlessly.
        "tar -xf /data/local/tmp/a.tar -C /data/local/tmp/out",
        "tar cf /data/local/tmp/logs.tar -C /data/local/tmp logs",
        "echo com.a com.b | xargs -n1 pm clear",
        "rm -rf /data/data/com.example.app/cache/*",
        "find /data/local/tmp -name '*.log' -exec rm {} \\;",
        "i=0; ((i++)); echo $i",
        // Round 6's forms used harmlessly.
        "cd /data/local/tmp; rm -rf build",
        "X=1 sh -c 'echo $X'",
        "f() { local T=/data/local/tmp/x; rm -rf \"$T\"; }; f",
        "awk '{print > \"/data/local/tmp/out.txt\"}' /data/local/tmp/in.txt",
        "time ls /sdcard",
        "busybox ls -l /sdcard",
        "ln -s /sdcard/Download /data/local/tmp/dl",
        "rm /sdcard/Download/*.tmp",
        "V=a; V+=b; echo $V",
        // Round 7's forms used harmlessly.
        "gzip -c /data/local/tmp/log.txt > /data/local/tmp/log.gz",
        "gunzip /data/local/tmp/logs.tar.gz",
        "while read -r p; do pm clear $p; done <<'EOF'\ncom.a\ncom.b\ncom.c\nEOF",
        "sh /data/local/tmp/run.sh",
        "for f in /sdcard/Download/*.txt; do cat $f; done",
        "mkdir -p '/data/local/tmp/my dir' && ls '/data/local/tmp/my dir'",
        // Round 8's forms used harmlessly.
        "for f in /sdcard/Download/*.jpg; do echo \"${f%.jpg}\"; done",
        "X=café; echo ${#X}",
        "T=$(readlink -f /sdcard); echo $T",
        "patch -p1 -i /data/local/tmp/fix.diff --dry-run || true",
    ] {
        assert_eq!(guard::catastrophic(cmd), None, "{cmd:?}");
    }
}
