//! The guard's tables: disguised catastrophic commands refused, ordinary ones allowed,
//! hostile paths and names refused, and quoting that survives a real shell-words parse.
use std::path::PathBuf;

use spock_core::guard::{self, ExtraValue};

const CATASTROPHIC: &[&str] = &[
    // rm -rf / and its spellings
    "rm -rf /",
    "rm  -rf   /",
    "rm -r -f /",
    "rm -fr /",
    "rm -Rf /",
    "rm --recursive --force /",
    "rm --rec --force /",
    "rm -rf --no-preserve-root /",
    "rm / -rf",
    "rm -rf -- /",
    "'rm' \"-rf\" '/'",
    "r\"m\" -r'f' /",
    "\\rm -rf /",
    "rm${IFS}-rf${IFS}/",
    "rm$IFS-rf$IFS/",
    "X=/; rm -rf $X",
    "X=/;rm -rf \"$X\"",
    "export T=/system && rm -rf $T",
    "ls; rm -rf /",
    "true && rm -rf /",
    "false || rm -rf /",
    "echo hi | rm -rf /",
    "(rm -rf /)",
    "{ rm -rf /; }",
    "`echo rm` -rf /",
    "$(echo rm) -rf /",
    "rm -rf $(echo /)",
    "sh -c 'rm -rf /'",
    "sh -c \"rm -rf /\"",
    "su -c 'rm -rf /'",
    "su 0 rm -rf /",
    "su root sh -c 'rm -rf /'",
    "eval rm -rf /",
    "eval 'rm -rf /'",
    "busybox rm -rf /",
    "toybox rm -rf /",
    "/system/bin/rm -rf /",
    "echo cm0gLXJmIC8= | base64 -d | sh",
    "sh -c \"$(echo cm0gLXJmIC8= | base64 -d)\"",
    "echo 'rm -rf /' | sh",
    "printf 'rm -rf /' | su",
    "rm -rf /*",
    "rm -rf /system",
    "rm -rf /data",
    "rm -rf /data/",
    "rm -rf /vendor",
    "rm -rf /sdcard",
    "rm -rf /sdcard/*",
    "rm -rf /storage/emulated/0",
    "rm -rf /storage/emulated/0/..",
    "rm -rf /sdcard/../",
    "rm -rf //",
    "rm -rf ~",
    "rm -rf $EXTERNAL_STORAGE",
    "rm -rf $UNKNOWN_VAR/",
    "cd / && rm -rf *",
    "cd /sdcard; rm -rf ./*",
    "nice -n 10 rm -rf /data",
    "timeout 5 rm -rf /",
    "adb shell rm -rf /",
    "echo / | xargs rm -rf",
    "find / -delete",
    "find /sdcard -type f -delete",
    "rm -rf /system/app",
    "sh -c 'sh -c \"eval rm -rf /\"'",
    "IFS=,; X=rm,-rf,/; $X",
    "alias x='rm -rf /'",
    // factory reset
    "am broadcast -a android.intent.action.MASTER_CLEAR",
    "am broadcast -a android.intent.action.FACTORY_RESET -p android",
    "cmd activity broadcast -a android.intent.action.MASTER_CLEAR",
    "recovery --wipe_data",
    "wipe data",
    "echo --wipe_data > /cache/recovery/command",
    "echo '--wipe_data' | tee /cache/recovery/command",
    "setprop x wipe; reboot recovery",
    "cmd testharness enable",
    // formatting and raw block writes
    "mkfs.ext4 /dev/block/mmcblk0p1",
    "make_ext4fs /dev/block/by-name/userdata",
    "mke2fs -t ext4 /dev/block/sda1",
    "dd if=/dev/zero of=/dev/block/mmcblk0",
    "dd if=/dev/zero of=/dev/block/by-name/userdata bs=4096",
    "dd if=/dev/zero of=/dev/sda",
    "dd if=/dev/zero of=/dev//block/../block/sda1",
    "cat /dev/zero > /dev/block/mmcblk0",
    "fastboot erase userdata",
    "fastboot format:ext4 userdata",
    "fastboot -w",
    "fastboot flashing unlock",
];

const ORDINARY: &[&str] = &[
    "ls /sdcard",
    "dumpsys meminfo",
    "cmd package list packages",
    "rm /sdcard/tmp.txt",
    "rm -rf /sdcard/Download/x",
    "rm -rf /data/local/tmp/test",
    "am start -n com.example/.MainActivity",
    "logcat -d",
    "pm list packages",
    "input tap 1 2",
    "getprop",
    "df -h",
    // Issue 34 (tests/guard/HARM.md): all of a top-level storage folder's contents is
    // catastrophic; a named subfolder's stays ordinary.
    "rm -rf /sdcard/Download/old_builds/*",
    "cd /sdcard/Download && rm -rf build",
    "find /sdcard/Download -name '*.tmp' -delete",
    "dd if=/sdcard/a.img of=/sdcard/b.img",
    "logcat -d | grep MASTER_CLEAR",
    "reboot recovery",
    "echo hello > /sdcard/hello.txt",
    "sh -c 'ls /data/local/tmp'",
    "su 0 ls /data/data",
    "echo bHMgLWwgLw== | base64 -d | sh",
    "settings get global adb_enabled",
    "am force-stop com.example.app",
];

/// More spellings: here-strings and -documents, hex and reversed payloads, functions, loops,
/// `adb shell` inside the command, storage aliases.
const MORE_CATASTROPHIC: &[&str] = &[
    "rm -rf /system/",
    "rm -rf \"/\"",
    "rm -rf / &",
    "rm -rf / 2>/dev/null",
    "rm -rf /.",
    "rm -rf $HOME",
    "rm -rf ${HOME}",
    "rm -rf ${X:-/}",
    "r=rm; $r -rf /",
    "$'\\x72\\x6d' -rf /",
    "echo 'cm0gLXJmIC8=' | base64 --decode | sh",
    "base64 -d <<< cm0gLXJmIC8= | sh",
    "sh <<< 'rm -rf /'",
    "printf '\\x72\\x6d -rf /' | sh",
    "su -c \"rm -rf /\"",
    "su 0 sh -c \"rm -rf /data\"",
    "su root rm -rf /",
    "rm -rf /storage/self/primary",
    "rm -rf /data/media/0",
    "rm -rf /mnt/sdcard",
    "rm -rf /sdcard/.",
    "find / -exec rm -rf {} \\;",
    "am broadcast -a android.intent.action.MASTER_CLEAR -n android/com.android.server.MasterClearReceiver",
    "cmd activity broadcast --user 0 -a android.intent.action.FACTORY_RESET",
    "dd if=/dev/zero of=/dev/block/platform/soc/by-name/userdata",
    "echo x | dd of=/dev/block/sdc",
    "busybox dd if=/dev/zero of=/dev/block/mmcblk0",
    "/system/bin/make_ext4fs /dev/block/x",
    "mke2fs.static /dev/x",
    "svc power reboot recovery; echo wipe",
    "eval \"$(echo cm0gLXJmIC8= | base64 -d)\"",
    "sh -c \"$(printf 'rm -rf /')\"",
    "xargs -I{} rm -rf {} <<< /",
    "rm -rf /*/",
    "rm -rf /data/*",
    "rm -rf -- /sdcard",
    "rm -rf /storage/emulated/0/*",
    "rm -rf /sdcard/* /sdcard/.*",
    "env rm -rf /",
    "command rm -rf /",
    "exec rm -rf /",
    "nohup rm -rf / &",
    "if true; then rm -rf /; fi",
    "for d in /system /data; do rm -rf $d; done",
    "while true; do rm -rf /; done",
    "f(){ rm -rf /; }; f",
    "rm -rf /sdcard/../../",
    "A=r; B=m; $A$B -rf /",
    "adb -s emulator-5554 shell 'rm -rf /'",
    "adb shell \"su -c 'rm -rf /data'\"",
    "rm -rf ~/",
    "cd /; rm -rf system",
    "cd /sdcard && cd .. && rm -rf sdcard",
    "rm -rf ../../..",
    "cat <<EOF | sh\nrm -rf /\nEOF",
    "echo 726d202d7266202f | xxd -r -p | sh",
    "echo '/ fr- mr' | rev | sh",
    "sh -c 'rm -rf \"$0\"' /",
    "rm -rf /product",
    "rm -rf /data/user/0",
    // Descriptors followed through redirections, in order.
    "echo rm -rf /odm 2>/dev/null | sh",
    "{ echo ok; echo rm -rf /odm >&2; } 2>&1 >/dev/null | sh",
    "ls '/;rm -rf /vendor;' 2>&1 | sh",
    "( echo x; echo rm -rf /odm >&2 ) 3>&1 1>/dev/null 2>&3 | sh",
    // Bracket sets as POSIX reads them.
    "rm -rf /[!]]endor",
    "rm -rf /[[=v=]]endor",
    "rm -rf /[[.o.]]dm",
    "rm -rf /[^x]endor",
    "rm -rf /[\\v]endor",
    // busybox mount helpers and computed basenames.
    "busybox mount -t fuse/../../../../system/bin/cmd testharness enable",
    "busybox mount -a -T /data/local/tmp/tab",
    "basename -a /data/data/* | xargs -n1 pm clear",
    // What the shell reads differently from a forgiving parser.
    "if true; then :; fi >/system/framework/framework.jar",
    "case x in (x|esac) rm -rf /product;; esac",
    "for r in a b; do r=${r#*{}; rm -rf /vendor; done",
    // Recursive deletes in the OS image and system state, not only of protected folders.
    "rm -rf /data/app/~~r4nd0m==/com.example.app-1",
    "rm -f /data/system/packages.*",
    "rmdir /*",
    // Files named like options, and patterns that can expand to them.
    ": > ./-delete; find /sdcard/DCIM *",
    "cd /data/local/tmp && find /sdcard/DCIM *",
    "touch ./--checkpoint-action=exec=sh",
    "busybox nc -f /dev/block/by-name/misc -e echo boot-recovery",
    "read -N6 v <<<vendor_boot; rm -rf /$v/etc",
    "read a b <<'E'\n/tmp/x\\ /system_ext\nE\nrm -rf $a",
    "pm $(print 'remove\\055user') 10",
    "pm $(cat /data/local/tmp/x) 10",
    "cd /data/local/tmp && printf 'rm -rf /vendor\\n' > xzcat && chmod 755 xzcat && PATH=/data/local/tmp:$PATH tar -xJf a.txz",
    "cd / && printf -- '--- a/vendor/build.prop\\n+++ b/vendor/build.prop\\n' | patch -p1",
    "mv /data/local/tmp/a.txt /sdcard/*",
    "cd /system && ln -sf /data/local/tmp/stage/build.prop",
];

/// More everyday commands, including ones that mention the dangerous words harmlessly.
const MORE_ORDINARY: &[&str] = &[
    "rm -rf /sdcard/Android/data/com.example/cache",
    "rm -r /data/local/tmp/x",
    "pm clear com.example",
    "am broadcast -a com.example.ACTION",
    "echo \"rm -rf /\"",
    "grep -r \"rm -rf /\" /sdcard/scripts",
    "logcat -d | grep -i wipe",
    "screencap -p /sdcard/s.png",
    "cat /proc/cpuinfo",
    "ls -la /",
    "find /sdcard -name \"*.log\"",
    "dumpsys package com.example | grep -i permission",
    "wm size",
    "input keyevent 3",
    "am start -a android.intent.action.VIEW -d 'https://x.com/?a=1&b=2'",
    "sh -c 'cd /sdcard/Download && rm -rf tmp'",
    "run-as com.example rm -rf cache",
    "cd /data/local/tmp; rm -rf *",
    "df -h /data",
    "mount | grep data",
    "rm -rf /sdcard/DCIM/.thumbnails",
    "reboot",
    "reboot bootloader",
    "fastboot devices",
    "dd if=/dev/block/by-name/boot of=/sdcard/boot.img",
    "cat /dev/block/by-name/boot > /sdcard/boot.img",
    "tee /sdcard/log.txt",
    "cp /sdcard/a /sdcard/b",
    "ls /dev/block/",
    "echo $((1+2))",
    "for f in /sdcard/Download/*.tmp; do echo $f; done",
    "ps -A | grep com.example",
    "kill -9 1234",
    "am force-stop com.example && am start -n com.example/.Main",
    "pm grant com.example android.permission.CAMERA",
    "setprop debug.x 1",
    "logcat -c",
    "ls /sdcard/*",
    "settings put global stay_on_while_plugged_in 3",
    "echo hi 2>&1 >/dev/null",
    "cmd wifi status",
    "svc wifi enable",
    "logcat -d 2>&1 | grep -i error",
    "ls /sdcard >/dev/null 2>&1 && echo ok",
    "echo rm -rf /vendor >&2 | sh",
    "ls /sdcard/[a-z]* /sdcard/[!.]*",
    "mount -t ext4 /dev/block/by-name/cache /cache",
    "pm uninstall $(basename /data/app/com.example.app-1)",
    "case $x in a|b) echo ab;; (c) echo c;; *) echo other;; esac",
    "if [ -f /sdcard/a ]; then echo yes; else echo no; fi > /data/local/tmp/r.txt",
    "find /sdcard -name '*.jpg' -type f",
    "rmdir /sdcard/mydir",
    "read -r a b <<< 'x y'; echo $a",
    "print -r 'hello world'",
    "PATH=/data/local/tmp:$PATH; echo hi > /data/local/tmp/notes.txt",
    "mv /sdcard/a.txt /sdcard/Download/",
    "cd /data/local/tmp && ln -s /sdcard/Download",
];

#[test]
fn catastrophic_commands_are_refused_however_disguised() {
    assert!(CATASTROPHIC.len() >= 40);
    let missed: Vec<&str> = CATASTROPHIC
        .iter()
        .chain(MORE_CATASTROPHIC)
        .copied()
        .filter(|c| guard::catastrophic(c).is_none())
        .collect();
    assert!(missed.is_empty(), "not refused: {missed:#?}");
}

#[test]
fn ordinary_commands_are_not_refused() {
    assert!(ORDINARY.len() >= 10);
    let refused: Vec<(&str, String)> = ORDINARY
        .iter()
        .chain(MORE_ORDINARY)
        .filter_map(|c| guard::catastrophic(c).map(|r| (*c, r.to_string())))
        .collect();
    assert!(refused.is_empty(), "wrongly refused: {refused:#?}");
}

#[test]
fn refusals_name_the_rule_and_say_why() {
    let r = guard::catastrophic("rm -rf /").expect("refused");
    assert_eq!(r.rule, "rm-root");
    assert!(r.why.contains("`/`"), "{}", r.why);
    assert_eq!(
        guard::catastrophic("wipe data").map(|r| r.rule),
        Some("factory-reset")
    );
    assert_eq!(
        guard::catastrophic("mkfs.f2fs /dev/x").map(|r| r.rule),
        Some("mkfs")
    );
    assert_eq!(
        guard::catastrophic("dd if=/dev/zero of=/dev/block/sda").map(|r| r.rule),
        Some("raw-block-write")
    );
}

#[test]
fn pathological_input_is_refused_not_hung() {
    // Quoting grows each level about fourfold, so six levels is already a long line.
    let nested = (0..6).fold("rm -rf /".to_string(), |acc, _| {
        format!("sh -c {}", shell(&acc))
    });
    assert_eq!(
        guard::catastrophic(&nested).map(|r| r.rule),
        Some("rm-root")
    );
    let deep = "eval ".repeat(40) + "ls";
    assert_eq!(guard::catastrophic(&deep).map(|r| r.rule), Some("too-deep"));
    // The finding: 2,000 nested defaults (14 KB) overflowed the stack and aborted the server.
    // Read on a thread with a small stack, as the runtime's workers have.
    for n in [20, 2000, 20_000] {
        let nested = format!("echo {}y{}", "${x:-".repeat(n), "}".repeat(n));
        let verdict = std::thread::Builder::new()
            .stack_size(512 * 1024)
            .spawn(move || guard::catastrophic(&nested).map(|r| r.rule))
            .unwrap()
            .join();
        assert!(verdict.is_ok(), "{n} nested defaults crashed the guard");
    }
    // And a default that hides a wipe is still read at a depth people write.
    assert!(guard::catastrophic("${X:-${Y:-rm}} -rf /").is_some());
    assert!(guard::catastrophic(&"x".repeat(300 * 1024)).is_some());
    for junk in [
        "$(", "`", "'", "\"", "${", "((((", "))))", "<<", "|||", "&&&", "\\",
    ] {
        let _ = guard::catastrophic(junk);
    }
}

fn shell(s: &str) -> String {
    guard::shell_quote(s)
}

const HOSTILE_DEVICE_PATHS: &[&str] = &[
    "/sdcard/../data/data/x",
    "/storage/emulated/0/../../data",
    "/storage/../data",
    "/data/local/tmp/../../data/x",
    "/data/local/tmpx",
    "/data/local",
    "/sdcard/%2e%2e/data",
    "/sdcard/%2E%2E%2Fdata",
    "/sdcard/%252e%252e/%252e%252e/data",
    "/sdcard/..%2f..%2fdata",
    "//data//data",
    "/sdcard\\..\\data",
    "/sdcard/x\0/../../data",
    "/sdcard/a\n/etc",
    "sdcard/x",
    "../sdcard",
    "",
    "/",
    "/..",
    "/system/bin/sh",
    "/proc/self/environ",
    "/sdcardx/file",
];

#[test]
fn hostile_device_paths_are_refused() {
    let allowed: Vec<(&str, String)> = HOSTILE_DEVICE_PATHS
        .iter()
        .filter_map(|p| guard::device_path(p).ok().map(|n| (*p, n)))
        .collect();
    assert!(allowed.is_empty(), "allowed: {allowed:#?}");
}

#[test]
fn allowed_device_paths_are_normalised() {
    let cases = [
        ("/sdcard/Download/a.txt", "/sdcard/Download/a.txt"),
        ("/sdcard//Download/./a.txt", "/sdcard/Download/a.txt"),
        (
            "/storage/emulated/0/DCIM/../Pictures",
            "/storage/emulated/0/Pictures",
        ),
        ("/data/local/tmp/", "/data/local/tmp"),
        ("/sdcard/100%25.txt", "/sdcard/100%25.txt"),
    ];
    for (input, want) in cases {
        assert_eq!(
            guard::device_path(input).as_deref().ok(),
            Some(want),
            "{input}"
        );
    }
}

#[test]
fn local_sources_outside_the_roots_are_refused() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let project = tmp.path().join("project");
    let outside = tmp.path().join("outside");
    std::fs::create_dir_all(project.join("app")).expect("mkdir");
    std::fs::create_dir_all(&outside).expect("mkdir");
    std::fs::write(project.join("app/ok.apk"), b"apk").expect("write");
    std::fs::write(outside.join("secret.txt"), b"secret").expect("write");
    std::os::unix::fs::symlink(outside.join("secret.txt"), project.join("link.txt")).expect("ln");
    std::os::unix::fs::symlink(&outside, project.join("dirlink")).expect("ln");
    let roots = vec![project.clone()];

    let ok = guard::local_source(&project.join("app/ok.apk"), &roots).expect("inside");
    assert!(ok.ends_with("project/app/ok.apk"));
    assert!(guard::local_source(&PathBuf::from("app/ok.apk"), &roots).is_ok());

    let hostile = [
        project.join("../outside/secret.txt"),
        project.join("link.txt"),
        project.join("dirlink/secret.txt"),
        outside.join("secret.txt"),
        PathBuf::from("../outside/secret.txt"),
        PathBuf::from("/etc/passwd"),
        project.join("missing.apk"),
    ];
    for p in hostile {
        assert!(
            guard::local_source(&p, &roots).is_err(),
            "allowed {}",
            p.display()
        );
    }
    assert!(guard::local_source(&project.join("app/ok.apk"), &[]).is_err());
}

const HOSTILE_NAMES: &[&str] = &[
    "com.example;rm -rf /",
    "com.example$(reboot)",
    "com.example`reboot`",
    "com.example\nreboot",
    "com.example'",
    "com.example\"",
    "-f",
    "com..example",
    "com.example ",
    "1com.example",
    "",
];

#[test]
fn hostile_names_are_refused() {
    for n in HOSTILE_NAMES {
        assert!(guard::package_name(n).is_err(), "package {n:?}");
        assert!(guard::permission_name(n).is_err(), "permission {n:?}");
        assert!(guard::intent_action(n).is_err(), "action {n:?}");
        // Extra keys are free-form names; only the injection attempts must fail there.
        if !matches!(*n, "com..example" | "1com.example") {
            assert!(guard::intent_extra_key(n).is_err(), "extra key {n:?}");
        }
        assert!(
            guard::component(&format!("{n}/.Main")).is_err(),
            "component {n:?}"
        );
    }
    assert!(guard::component("com.example/.Main;reboot").is_err());
    assert!(guard::component("com.example").is_err());
    assert!(guard::uri("https://example.com/a b").is_err());
    assert!(guard::uri("https://example.com/'$(reboot)'").is_err());
    assert!(guard::uri("no-scheme").is_err());
    assert!(guard::uri("myapp://x\n").is_err());
    assert!(guard::keycode("HOME;reboot").is_err());
    assert!(guard::keycode("99999").is_err());
    let nul = ExtraValue::String("a\0b".into());
    assert!(guard::intent_extra_args("k", &nul).is_err());
    assert!(guard::intent_extra_args("k", &ExtraValue::Float(f32::NAN)).is_err());
}

#[test]
fn ordinary_names_are_accepted() {
    assert!(guard::package_name("com.example.app").is_ok());
    assert!(guard::package_name("android").is_ok());
    assert!(guard::permission_name("android.permission.CAMERA").is_ok());
    assert!(guard::component("com.example/.ui.MainActivity").is_ok());
    assert!(guard::component("com.example/com.example.Main$Inner").is_ok());
    assert!(guard::intent_action("android.intent.action.VIEW").is_ok());
    assert!(guard::intent_category("android.intent.category.BROWSABLE").is_ok());
    assert!(guard::uri("https://example.com/path?q=1&r=%20#frag").is_ok());
    assert!(guard::uri("myapp://open/item/42").is_ok());
    let label = |k: &str| guard::keycode(k).map(|k| k.label());
    assert_eq!(label("home"), Ok("KEYCODE_HOME".to_string()));
    assert_eq!(label("KEYCODE_ENTER"), Ok("KEYCODE_ENTER".to_string()));
    assert_eq!(guard::keycode("66").map(|k| k.code), Ok(66));
    let v = ExtraValue::String("it's \"a\" $HOME; ls `x`".into());
    let args = guard::intent_extra_args("com.example.NOTE", &v).expect("valid");
    assert_eq!(args[0], "--es");
    let line = guard::shell_join(&args);
    assert_eq!(shell_words::split(&line).expect("parses"), args.to_vec());
}

const NASTY: &[&str] = &[
    "",
    " ",
    "it's",
    "'",
    "''",
    "\"",
    "$HOME",
    "$(reboot)",
    "`reboot`",
    "a;b&&c||d|e",
    "back\\slash",
    "new\nline",
    "tab\there",
    "*?[]{}~#!",
    "--flag=value",
    "ünïcødé ✓",
    "'\\''",
    "%s %%s",
];

#[test]
fn shell_quote_round_trips_through_shell_words() {
    for s in NASTY {
        let quoted = guard::shell_quote(s);
        let back = shell_words::split(&quoted).expect("parses");
        assert_eq!(back, vec![s.to_string()], "quoted as {quoted}");
    }
    let joined = guard::shell_join(NASTY);
    let back = shell_words::split(&joined).expect("parses");
    assert_eq!(
        back,
        NASTY.iter().map(|s| s.to_string()).collect::<Vec<_>>()
    );
}

/// What `input text` does to its argument (InputShellCommand.sendText): `%s` becomes a space.
fn android_input_text(arg: &str) -> String {
    arg.replace("%s", " ")
}

#[test]
fn input_text_arrives_exactly() {
    for text in [
        "it's \"a\" $HOME; ls",
        "a  b",
        "100% sure",
        "x%y",
        "`id`",
        "\\n",
        "~/*",
    ] {
        let word = guard::input_text_escape(text).expect("typable");
        let args = shell_words::split(&format!("input text {word}")).expect("parses");
        assert_eq!(args.len(), 3, "{word}");
        assert_eq!(android_input_text(&args[2]), text);
    }
    let r = guard::input_text_escape("héllo").expect_err("non-ASCII");
    assert!(r.why.contains("ASCII"), "{}", r.why);
}
