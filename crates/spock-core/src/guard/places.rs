//! Which places on an Android device a command must never delete or overwrite, and every
//! other name that reaches them.
//!
//! A path is first made absolute (against each candidate working directory), then rewritten
//! through what the command did earlier (symlinks, moves, bind mounts: [`super::state::Fs`]),
//! then through the device's own aliases (`/proc/*/root`, `/mnt/user/*/emulated`,
//! `/mnt/pass_through`, `/storage/self/primary`, `/mnt/sdcard`, `/data/media`, `/sdcard`) to
//! one canonical spelling. A glob or unknown text is matched against the known top of the
//! Android tree, so `/s*` is `/sdcard`, `/storage`, `/system`, … and is refused, while
//! `/sdcard/Download/*.apk` matches nothing protected.
use super::state::{Env, UNKNOWN, Val};

mod pattern;

pub(super) use pattern::{glob_match, pattern_exact, protected_match};

/// The canonical root of the primary user's shared storage.
const PRIMARY: &str = "/storage/emulated/0";

/// Whether `name` is an entry of `/` on Android.
pub(super) fn root_entry(name: &str) -> bool {
    children("/").contains(&name)
}

/// Known names under a directory, so a glob can be matched against what is really there.
fn children(dir: &str) -> &'static [&'static str] {
    match dir {
        "/" => &[
            "acct",
            "apex",
            "bin",
            "bugreports",
            "cache",
            "config",
            "d",
            "data",
            "data_mirror",
            "debug_ramdisk",
            "dev",
            "efs",
            "etc",
            "init",
            "linkerconfig",
            "lost+found",
            "metadata",
            "mnt",
            "odm",
            "odm_dlkm",
            "oem",
            "persist",
            "postinstall",
            "proc",
            "product",
            "sbin",
            "sdcard",
            "storage",
            "sys",
            "system",
            "system_dlkm",
            "system_ext",
            "vendor",
            "vendor_dlkm",
            "firmware",
            "bt_firmware",
            "dsp",
        ],
        "/data" => &[
            "adb",
            "anr",
            "app",
            "app-private",
            "apex",
            "backup",
            "cache",
            "dalvik-cache",
            "data",
            "drm",
            "local",
            "media",
            "misc",
            "misc_ce",
            "misc_de",
            "nfc",
            "ota",
            "property",
            "resource-cache",
            "rollback",
            "ss",
            "system",
            "system_ce",
            "system_de",
            "tombstones",
            "user",
            "user_de",
            "vendor",
            "vendor_ce",
            "vendor_de",
        ],
        "/storage" => &["emulated", "self"],
        "/storage/emulated" => &["0"],
        PRIMARY => &[
            "Alarms",
            "Android",
            "Audiobooks",
            "DCIM",
            "Documents",
            "Download",
            "Movies",
            "Music",
            "Notifications",
            "Pictures",
            "Podcasts",
            "Recordings",
            "Ringtones",
        ],
        "/mnt" => &[
            "androidwritable",
            "asec",
            "expand",
            "installer",
            "media_rw",
            "obb",
            "pass_through",
            "runtime",
            "sdcard",
            "user",
            "vendor",
        ],
        _ => &[],
    }
}

/// Whether the folder `p` (absolute) exists on every Android device, so `cd p` cannot fail.
pub(super) fn always_there(p: &str) -> bool {
    let c = canonical(p);
    if matches!(
        c.as_str(),
        "/" | "/data/local/tmp" | "/data/local" | "/system/bin" | "/system/etc" | "/vendor/bin"
    ) {
        return true;
    }
    match c.rsplit_once('/') {
        Some((parent, last)) => {
            children(if parent.is_empty() { "/" } else { parent }).contains(&last)
        }
        None => false,
    }
}

/// Whether deleting `p` (canonical, absolute) would wipe the device or its user's data.
pub(super) fn protected(p: &str) -> bool {
    let c: Vec<&str> = p.split('/').filter(|c| !c.is_empty()).collect();
    const OS_IMAGE: &[&str] = &[
        "system",
        "vendor",
        "product",
        "system_ext",
        "odm",
        "oem",
        "apex",
        "boot",
        "metadata",
        "persist",
        "efs",
        "firmware",
        "bt_firmware",
        "dsp",
        "vendor_dlkm",
        "odm_dlkm",
        "system_dlkm",
        "bin",
        "etc",
        "sbin",
        "init",
        "linkerconfig",
    ];
    match c.as_slice() {
        [] | [_] => true,
        [first, ..] if OS_IMAGE.contains(first) => true,
        ["data" | "storage" | "mnt", _] => true,
        [
            "data",
            "user" | "user_de" | "media" | "misc_ce" | "misc_de" | "system_ce" | "system_de"
            | "vendor_ce" | "vendor_de" | "data",
            _,
        ] => true,
        ["data", "user" | "user_de", "0", _] => false,
        ["storage", "emulated", _] | ["storage", "self", "primary"] => true,
        // The user's own folders on shared storage: photos, downloads, documents, app data.
        ["storage", "emulated", _, dir] => children(PRIMARY).contains(dir),
        ["mnt", "vendor", ..] => true,
        ["mnt", "user", _] | ["mnt", "user", _, _] | ["mnt", "user", _, _, _] => true,
        ["mnt", "media_rw" | "expand" | "runtime" | "pass_through", _] => true,
        _ => false,
    }
}

/// Rewrites an absolute path through the device's aliases to one canonical spelling.
pub(super) fn canonical(p: &str) -> String {
    let mut p = normalise(p);
    for _ in 0..8 {
        let c: Vec<&str> = p.split('/').filter(|c| !c.is_empty()).collect();
        let (n, to): (usize, String) = match c.as_slice() {
            ["sdcard", ..] | ["mnt", "sdcard", ..] => (
                c.len().min(if c[0] == "mnt" { 2 } else { 1 }),
                PRIMARY.into(),
            ),
            ["storage", "self", "primary", ..] => (3, PRIMARY.into()),
            ["storage", "emulated", "legacy", ..] => (3, PRIMARY.into()),
            ["data", "media", u, ..] => (3, format!("/storage/emulated/{u}")),
            ["mnt", "user", _, "emulated", ..] | ["mnt", "pass_through", _, "emulated", ..] => {
                (4, "/storage/emulated".into())
            }
            ["mnt", "user", _, "primary", ..] => (4, PRIMARY.into()),
            [
                "mnt",
                "runtime" | "installer" | "androidwritable",
                _,
                "emulated",
                ..,
            ] => (4, "/storage/emulated".into()),
            [
                "mnt",
                "runtime" | "installer" | "androidwritable",
                _,
                "self",
                "primary",
                ..,
            ] => (5, PRIMARY.into()),
            ["proc", _, "root", ..] => (3, "/".into()),
            // Descriptors by name: what the command opened on them (`3<<EOF`).
            ["dev", "fd", ..] => (2, "/proc/self/fd".into()),
            ["dev", "stdin"] => (2, "/proc/self/fd/0".into()),
            ["proc", pid, "fd", ..] if *pid != "self" => (3, "/proc/self/fd".into()),
            ["proc", _, "task", _, "fd", ..] => (5, "/proc/self/fd".into()),
            ["data", "user", "0", ..] => (3, "/data/data".into()),
            _ => return p,
        };
        let rest = c[n..].join("/");
        p = normalise(&format!("{to}/{rest}"));
    }
    p
}

/// Joins `p` onto `cwd` and normalises `.`, `..` and doubled slashes lexically.
pub(super) fn join_path(cwd: &str, p: &str) -> String {
    if p.starts_with('/') {
        normalise(p)
    } else {
        normalise(&format!("{cwd}/{p}"))
    }
}

fn normalise(full: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for c in full.split('/') {
        match c {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            c => parts.push(c),
        }
    }
    format!("/{}", parts.join("/"))
}

/// Every absolute, canonical reading of `p`: per candidate working directory, and through
/// links and moves made earlier. `/proc/*/cwd/…` and a relative path after an unknown `cd`
/// could be anywhere.
pub(super) fn resolve(p: &str, env: &Env) -> Vec<String> {
    let mut out = Vec::new();
    // busybox sh lets a backslash that came from a variable escape in a pattern (`/\vendor*`
    // is `/vendor*`); mksh keeps it. Both.
    if p.contains('\\') && p.contains(['*', '?', '[']) {
        out.extend(resolve(&p.replace('\\', ""), env));
    }
    let bases: Vec<String> = if p.starts_with('/') {
        vec!["/".into()]
    } else {
        env.cwd.cands.clone()
    };
    for base in bases {
        let abs = if base.contains(UNKNOWN) {
            format!("/{UNKNOWN}/{p}")
        } else {
            join_path(&base, p)
        };
        let abs = proc_cwd(&abs);
        let mut todo = if base.contains(UNKNOWN) {
            Vec::new()
        } else if p.starts_with('/') {
            physical(p, env)
        } else {
            physical(&format!("{base}/{p}"), env)
        };
        todo.push(abs);
        let mut n = 0;
        while let Some(a) = todo.pop() {
            n += 1;
            let c = canonical(&a);
            if out.contains(&c) || n > 32 {
                continue;
            }
            for (alias, real) in &env.fs.links {
                let alias = canonical(alias);
                if let Some(rest) = c.strip_prefix(&alias)
                    && (rest.is_empty() || rest.starts_with('/'))
                {
                    todo.push(format!("{}{rest}", canonical(real)));
                }
            }
            out.push(c);
        }
    }
    out
}

/// Links Android has at these places on some devices, for `..` after them.
fn device_link(p: &str) -> Option<&'static str> {
    Some(match p {
        "/cache" => "/data/cache",
        "/etc" => "/system/etc",
        "/bin" => "/system/bin",
        "/d" => "/sys/kernel/debug",
        "/vendor" => "/system/vendor",
        "/product" => "/system/product",
        "/system_ext" => "/system/system_ext",
        "/odm" => "/vendor/odm",
        "/sdcard" | "/mnt/sdcard" | "/storage/self/primary" => "/storage/emulated/0",
        "/bugreports" => "/data/user_de/0/com.android.shell/files/bugreports",
        _ => return None,
    })
}

/// The readings of a path with `..` after other entries as the device resolves it: `..`
/// leaves where a link led (`/cache/../media` is `/data/media` where `/cache` links to
/// `/data/cache`), through the device's links and those the command made. Empty when the
/// path has no such `..`.
fn physical(abs: &str, env: &Env) -> Vec<String> {
    let parts: Vec<&str> = abs
        .split('/')
        .filter(|c| !c.is_empty() && *c != ".")
        .collect();
    if !parts.iter().skip(1).any(|c| *c == "..") {
        return Vec::new();
    }
    let mut readings: Vec<String> = vec![String::new()];
    for c in parts {
        let mut next = Vec::new();
        for r in &readings {
            if c != ".." {
                next.push(format!("{r}/{c}"));
                continue;
            }
            let here = if r.is_empty() {
                "/".to_string()
            } else {
                r.clone()
            };
            let mut bases = vec![here.clone(), canonical(&here)];
            bases.extend(device_link(&here).map(str::to_string));
            for (alias, real) in &env.fs.links {
                if canonical(alias) == canonical(&here) {
                    bases.push(real.clone());
                }
            }
            for b in bases {
                let up = match b.trim_end_matches('/').rsplit_once('/') {
                    Some((parent, _)) => parent.to_string(),
                    None => String::new(),
                };
                if !next.contains(&up) {
                    next.push(up);
                }
            }
        }
        next.truncate(8);
        readings = next;
    }
    readings
        .into_iter()
        .map(|r| if r.is_empty() { "/".into() } else { r })
        .collect()
}

/// `/proc/<pid>/cwd/x` is `x` in some process's directory: anywhere.
fn proc_cwd(p: &str) -> String {
    let c: Vec<&str> = p.split('/').filter(|c| !c.is_empty()).collect();
    match c.as_slice() {
        ["proc", _, "cwd", rest @ ..] => format!("/{UNKNOWN}/{}", rest.join("/")),
        _ => p.to_string(),
    }
}

/// What reading `path` gives: a file written earlier in the command, or unknown.
pub(super) fn file_contents(path: &Val, env: &Env) -> Val {
    if let Some(p) = path.single() {
        for r in resolve(p, env) {
            if let Some(v) = env.fs.files.get(&r) {
                return v.clone();
            }
        }
        return Val::unknown(format!("what `{p}` holds"));
    }
    Val::unknown("what a file the guard cannot name holds")
}
