//! Property tests for the guard: random stacks of wrappers (child shells, `eval`, prefix
//! commands, `xargs`, `find -exec`, here-documents, pipes of base64/rev/tr output into `sh`,
//! variables, `$'…'` quoting, `IFS` splitting, aliases, functions, scripts written then run)
//! around catastrophic cores are always refused; around ordinary cores, never. Arbitrary
//! input never panics and is bounded.
use base64::Engine;
use proptest::prelude::*;
use spock_core::guard::{self, shell_quote as q};

const CATASTROPHIC: &[&str] = &[
    "rm -rf /sdcard",
    "rm -rf /",
    "rm -rf /system",
    "rm -rf /data/data",
    "rm -rf /storage/emulated/0/DCIM",
    "find /sdcard -delete",
    "dd if=/dev/zero of=/dev/block/by-name/userdata",
    "am broadcast -a android.intent.action.MASTER_CLEAR",
    "vdc cryptfs wipe",
    "cmd testharness enable",
    "mkfs.ext4 /dev/block/mmcblk0p1",
    "echo --wipe_data > /cache/recovery/command",
    "fastboot erase userdata",
    "sm format public:179,64",
];

const ORDINARY: &[&str] = &[
    "ls /sdcard",
    "pm clear com.example.app",
    "rm -f /sdcard/Download/a.apk",
    "settings put global stay_on_while_plugged_in 3",
    "rm -rf /data/local/tmp/build",
    "echo hi > /sdcard/x.txt",
    "am start -n com.example/.Main",
    "dumpsys battery",
    "logcat -d -t 100",
    "rm -rf /sdcard/Android/data/com.example/cache",
];

/// Whether `c` is one plain simple command (no quotes, operators or expansions).
fn plain(c: &str) -> bool {
    !c.contains([
        '\'', '"', ';', '|', '&', '<', '>', '$', '`', '\\', '(', ')', '\n',
    ])
}

fn rot13(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            'a'..='z' => (((c as u8 - b'a' + 13) % 26) + b'a') as char,
            'A'..='Z' => (((c as u8 - b'A' + 13) % 26) + b'A') as char,
            c => c,
        })
        .collect()
}

fn hex_escapes(s: &str) -> String {
    s.bytes().map(|b| format!("\\x{b:02x}")).collect()
}

const WRAPPERS: usize = 30;

/// Wraps `c` in wrapper number `k`; every wrapper runs `c` exactly as written.
fn wrap(k: usize, c: &str) -> String {
    let b64 = base64::engine::general_purpose::STANDARD.encode(c);
    let rev: String = c
        .lines()
        .map(|l| l.chars().rev().collect::<String>())
        .collect::<Vec<_>>()
        .join("\n");
    match k {
        0 => format!("sh -c {}", q(c)),
        1 => format!("eval {}", q(c)),
        2 => format!("env A=1 sh -c {}", q(c)),
        3 => format!("timeout 5 sh -c {}", q(c)),
        4 => format!("nohup sh -c {} &", q(c)),
        5 => format!("su -c {}", q(c)),
        6 => format!("su 0 sh -c {}", q(c)),
        7 => format!("printf '%s' {} | xargs -0 sh -c", q(c)),
        8 => format!("find /data/local/tmp -maxdepth 0 -exec sh -c {} \\;", q(c)),
        9 => format!("sh <<'EOF'\n{c}\nEOF"),
        10 => format!("sh <<< {}", q(c)),
        11 => format!("echo {b64} | base64 -d | sh"),
        // printf, not echo: Android's echo (mksh, toybox) reads backslash escapes, so
        // `echo '\02x'` prints a control character and would not hand `c` on as written.
        12 => format!("printf '%s\\n' {} | rev | sh", q(&rev)),
        13 => format!(
            "printf '%s\\n' {} | tr 'a-zA-Z' 'n-za-mN-ZA-M' | sh",
            q(&rot13(c))
        ),
        14 => format!("X={}; eval \"$X\"", q(c)),
        15 => format!("X={}; sh -c \"$X\"", q(c)),
        16 => format!("eval $'{}'", hex_escapes(c)),
        17 => format!("printf '{}' | sh", hex_escapes(c)),
        18 if plain(c) => {
            let sep = [',', '%', '@', '^']
                .into_iter()
                .find(|s| !c.contains(*s))
                .unwrap_or(',');
            format!("IFS={sep}; X={}; $X", c.replace(' ', &sep.to_string()))
        }
        19 => format!("alias z={}\nz", q(c)),
        20 => format!("f() {{\n{c}\n}}; f"),
        21 => format!("( {c}\n)"),
        22 => format!("if true; then\n{c}\nfi"),
        23 => format!("for i in 1 2; do\n{c}\ndone"),
        24 => format!("watch -n 1 {}", q(c)),
        25 => format!("flock /data/local/tmp/l -c {}", q(c)),
        26 => format!("busybox sh -c {}", q(c)),
        27 if !c.contains(['"', '\\', '\n', '\'']) => format!("awk 'BEGIN {{ system(\"{c}\") }}'"),
        28 => format!(
            "printf '%s\\n' {} > /data/local/tmp/s.sh; sh /data/local/tmp/s.sh",
            q(c)
        ),
        29 if plain(c) => format!("set -- {c}; \"$@\""),
        _ => format!("logwrapper sh -c {}", q(c)),
    }
}

fn stack(core: &str, ks: &[usize]) -> String {
    ks.iter().fold(core.to_string(), |c, k| wrap(*k, &c))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn wrapped_catastrophic_cores_are_refused(
        core in 0..CATASTROPHIC.len(),
        ks in proptest::collection::vec(0..WRAPPERS, 1..4),
    ) {
        let cmd = stack(CATASTROPHIC[core], &ks);
        prop_assume!(cmd.len() < 200 * 1024);
        prop_assert!(guard::catastrophic(&cmd).is_some(), "not refused: {cmd}");
    }

    #[test]
    fn wrapped_ordinary_cores_are_not_refused(
        core in 0..ORDINARY.len(),
        ks in proptest::collection::vec(0..WRAPPERS, 1..3),
    ) {
        let cmd = stack(ORDINARY[core], &ks);
        let r = guard::catastrophic(&cmd);
        prop_assert!(r.is_none(), "refused: {cmd}\n{r:?}");
    }

    #[test]
    fn arbitrary_text_never_panics(s in "\\PC{0,300}") {
        let _ = guard::catastrophic(&s);
    }

    #[test]
    fn shell_shaped_noise_never_panics(
        parts in proptest::collection::vec(
            prop_oneof![
                Just("rm"), Just("-rf"), Just("/"), Just("$X"), Just("${X:-/}"), Just("$("), Just(")"),
                Just("`"), Just("'"), Just("\""), Just("{"), Just("}"), Just(";"), Just("|"), Just("&&"),
                Just("if"), Just("then"), Just("fi"), Just("while"), Just("do"), Just("done"), Just("case"),
                Just("in"), Just("esac"), Just(";;"), Just("<<"), Just("EOF"), Just("\n"), Just("sh -c"),
                Just("eval"), Just("f()"), Just("f"), Just("alias"), Just("="), Just("*"), Just("{a,b}"),
                Just("read X"), Just("set --"), Just("shift"), Just("cd -"), Just("IFS=/"), Just("(("),
            ],
            0..60,
        )
    ) {
        let cmd = parts.join(" ");
        let _ = guard::catastrophic(&cmd);
    }
}

#[test]
fn every_wrapper_alone_keeps_every_core_refused() {
    for core in CATASTROPHIC {
        for k in 0..WRAPPERS {
            let cmd = wrap(k, core);
            assert!(guard::catastrophic(&cmd).is_some(), "wrapper {k}: {cmd}");
        }
    }
    for core in ORDINARY {
        for k in 0..WRAPPERS {
            let cmd = wrap(k, core);
            let r = guard::catastrophic(&cmd);
            assert!(r.is_none(), "wrapper {k}: {cmd}\n{r:?}");
        }
    }
}

#[test]
fn hostile_sizes_are_bounded() {
    let braces = "{a,b}".repeat(200);
    let _ = guard::catastrophic(&format!("echo {braces}"));
    let nest = "(".repeat(5000) + &")".repeat(5000);
    assert!(
        guard::catastrophic(&nest).is_some(),
        "deep nesting is refused"
    );
    let subst = "$(".repeat(3000) + &")".repeat(3000);
    let _ = guard::catastrophic(&subst);
    let ifs = "if true; then ".repeat(2000);
    let _ = guard::catastrophic(&ifs);
    let loops = "while :; do X=$X$X; ".repeat(50) + &"done; ".repeat(50) + "rm -rf $X";
    let _ = guard::catastrophic(&loops);
    let vars: String = (0..500)
        .map(|i| format!("X{i}=${{X{}}}a; ", i.max(1) - 1))
        .collect();
    let _ = guard::catastrophic(&vars);
}
