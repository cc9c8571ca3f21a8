//! The catastrophic argv patterns, applied to each command after [`super::command`] has
//! expanded it, and the path rules they share.
//!
//! Decisions, so they are not re-litigated per call site:
//! - A recursive delete (`rm -r`, `find … -delete`) is catastrophic when its target is `/`,
//!   any top-level directory, a storage root (`/sdcard`, `/storage/emulated/0`,
//!   `/data/media/0`, …), a second-level directory of `/data`, `/storage` or `/mnt`, or
//!   anything inside the OS image (`/system`, `/vendor`, `/product`, `/apex`, `/persist`,
//!   `/efs`, …); a glob or an unknown value counts as every name it could match, so `/*`
//!   and `/sdcard/$X` are refused while `/sdcard/Download/*` is not.
//! - A relative target is resolved against the working directory, which is `/` for
//!   `adb shell`; after a `cd` the guard cannot follow, relative targets count as unknown.
//! - Factory reset: `MASTER_CLEAR`/`FACTORY_RESET`/`--wipe_data` given to `am`, `cmd` and
//!   friends, `recovery --wipe_data`, `wipe data`, `cmd testharness enable`, anything written
//!   to the recovery command file, and a reboot to recovery in a command that mentions a wipe.
//! - Formatting (`mkfs*`, `mke2fs`, `make_ext4fs`, `sm format`, …), writing a block device
//!   (`dd of=`, redirection, `tee`, `cp`), and `fastboot erase`/`format`/`-w`/unlock.
use super::Refusal;
use super::command::{Env, Eval, UNKNOWN, basename};

/// Removes keywords and wrappers that run their arguments as a command
/// (`busybox rm …`, `nice -n 5 rm …`, `env X=1 rm …`, `timeout 5 rm …`, `then rm …`).
pub(super) fn strip_prefixes(mut argv: Vec<String>, env: &mut Env) -> Vec<String> {
    loop {
        let Some(first) = argv.first() else {
            return argv;
        };
        let skip = match basename(first) {
            "if" | "then" | "else" | "elif" | "while" | "until" | "do" | "!" | "{" | "}"
            | "exec" | "command" | "builtin" | "nohup" | "time" | "setsid" | "fi" | "done"
            | "esac" | "function" => 1,
            "busybox" | "toybox" | "toolbox" if argv.len() > 1 => 1,
            "nice" | "ionice" | "stdbuf" | "taskset" | "chrt" | "timeout" | "run-as" | "chroot"
            | "runcon" | "env" => wrapper_len(&argv, env),
            _ => 0,
        };
        if skip == 0 {
            return argv;
        }
        // `run-as PKG cmd` runs in the app's data directory.
        if basename(first) == "run-as"
            && let Some(pkg) = argv.get(skip - 1).filter(|p| !p.contains(UNKNOWN))
        {
            env.cwd = Some(format!("/data/data/{pkg}"));
        }
        argv.drain(..skip.min(argv.len()));
    }
}

/// How many words a wrapper and its own options take before the wrapped command.
fn wrapper_len(argv: &[String], env: &mut Env) -> usize {
    let name = basename(&argv[0]);
    let mut i = 1;
    // Options that take a separate value, per wrapper.
    let takes_value: &[&str] = match name {
        "nice" => &["-n", "--adjustment"],
        "ionice" => &["-c", "-n", "-p"],
        "timeout" => &["-s", "-k", "--signal", "--kill-after"],
        "run-as" => &["--user"],
        "env" => &["-u", "--unset", "-C", "--chdir"],
        _ => &[],
    };
    while let Some(a) = argv.get(i) {
        if takes_value.contains(&a.as_str()) {
            i += 2;
        } else if a.starts_with('-') {
            i += 1;
        } else if name == "env" && a.contains('=') {
            if let Some((k, v)) = a.split_once('=') {
                env.set(k, Some(v.to_string()));
            }
            i += 1;
        } else {
            break;
        }
    }
    // Wrappers with one positional before the command.
    if matches!(
        name,
        "timeout" | "run-as" | "chroot" | "runcon" | "taskset" | "chrt"
    ) {
        i += 1;
    }
    i
}

pub(super) fn check(name: &str, argv: &[String], env: &Env, ev: &mut Eval) -> Result<(), Refusal> {
    let args = &argv[1..];
    let cwd = env.cwd.as_deref();
    let lower: Vec<String> = args.iter().map(|a| a.to_ascii_lowercase()).collect();
    let any = |needles: &[&str]| lower.iter().any(|a| needles.iter().any(|n| a.contains(n)));
    match name {
        "rm" => rm(args, cwd)?,
        "find" => find(args, cwd)?,
        "dd" => {
            for a in args {
                if let Some(of) = a.strip_prefix("of=") {
                    written_path(of, cwd)?;
                }
            }
        }
        "tee" => {
            for a in args.iter().filter(|a| !a.starts_with('-')) {
                written_path(a, cwd)?;
            }
        }
        "cp" | "mv" | "install" | "ln" => {
            if let Some(dest) = args.iter().rev().find(|a| !a.starts_with('-')) {
                written_path(dest, cwd)?;
            }
        }
        "am" | "cmd" | "content" | "service" | "settings" | "setprop" | "svc" | "dpm"
            if any(&["master_clear", "factory_reset", "wipe_data", "--wipe_ab"]) =>
        {
            return Err(factory_reset(name));
        }
        "cmd"
            if lower.first().is_some_and(|a| a == "testharness")
                && lower.get(1).is_some_and(|a| a == "enable") =>
        {
            return Err(factory_reset("cmd testharness enable"));
        }
        "recovery" | "uncrypt" if any(&["wipe"]) => return Err(factory_reset(name)),
        "wipe" if any(&["data", "all", "system"]) => return Err(factory_reset("wipe")),
        "dpm" if any(&["wipe"]) => return Err(factory_reset("dpm wipe")),
        "reboot" | "svc" | "setprop" if any(&["recovery", "bootloader", "fastboot"]) => {
            ev.reboots_to_recovery = true;
        }
        "fastboot" => fastboot(&lower)?,
        "sm" if lower
            .first()
            .is_some_and(|a| a == "format" || a == "partition") =>
        {
            return Err(Refusal::new(
                "format",
                "`sm format`/`sm partition` erases a storage volume",
            ));
        }
        n if is_formatter(n) => {
            return Err(Refusal::new(
                "mkfs",
                format!("`{n}` formats or erases a filesystem or block device"),
            ));
        }
        // An unknown command name given rm's catastrophic arguments is rm in disguise
        // (`$(printf r)m -rf /`, `${X:0:0}rm -rf /`).
        n if n.contains(UNKNOWN) => {
            rm(args, cwd).map_err(|r| Refusal::new("rm-disguised", r.why))?;
        }
        _ => {}
    }
    Ok(())
}

fn factory_reset(via: &str) -> Refusal {
    Refusal::new(
        "factory-reset",
        format!("this is a factory reset (via `{via}`): it erases all user data on the device"),
    )
}

fn is_formatter(n: &str) -> bool {
    n.starts_with("mkfs")
        || n.starts_with("mke2fs")
        || n.starts_with("make_ext4fs")
        || n.starts_with("make_f2fs")
        || matches!(
            n,
            "newfs_msdos"
                | "mkdosfs"
                | "mkexfatfs"
                | "mkntfs"
                | "blkdiscard"
                | "flash_image"
                | "erase_image"
                | "mke2fs.static"
                | "sgdisk"
                | "sfdisk"
        )
}

fn fastboot(lower: &[String]) -> Result<(), Refusal> {
    let words: Vec<&str> = lower.iter().map(String::as_str).collect();
    let bad = words
        .iter()
        .any(|w| matches!(*w, "erase" | "format" | "-w" | "wipe-super"))
        || words.windows(2).any(|p| {
            matches!(
                p,
                ["flashing", "unlock" | "unlock_critical"] | ["oem", "unlock"]
            )
        })
        || words.iter().any(|w| w.starts_with("format:"));
    if bad {
        return Err(Refusal::new(
            "fastboot-erase",
            "`fastboot` erase, format, wipe or unlock destroys the data on a partition",
        ));
    }
    Ok(())
}

fn rm(args: &[String], cwd: Option<&str>) -> Result<(), Refusal> {
    let mut recursive = false;
    let mut no_preserve = false;
    let mut operands = Vec::new();
    let mut opts_done = false;
    for a in args {
        if opts_done || !a.starts_with('-') || a == "-" {
            operands.push(a);
        } else if a == "--" {
            opts_done = true;
        } else if let Some(long) = a.strip_prefix("--") {
            // GNU accepts any unambiguous prefix (`--rec`).
            if !long.is_empty() && "recursive".starts_with(long) {
                recursive = true;
            }
            if long.len() >= 3 && "no-preserve-root".starts_with(long) {
                no_preserve = true;
            }
        } else if a[1..].contains(['r', 'R']) {
            recursive = true;
        }
    }
    if no_preserve {
        return Err(Refusal::new(
            "rm-root",
            "`rm --no-preserve-root` exists only to delete `/`",
        ));
    }
    if !recursive {
        return Ok(());
    }
    for op in operands {
        if let Some(what) = protected_target(op, cwd) {
            return Err(Refusal::new(
                "rm-root",
                format!("a recursive delete of {what} would wipe the device"),
            ));
        }
    }
    Ok(())
}

fn find(args: &[String], cwd: Option<&str>) -> Result<(), Refusal> {
    let starts: Vec<&String> = args
        .iter()
        .take_while(|a| !a.starts_with('-') && *a != "(" && *a != "!")
        .collect();
    let rest = &args[starts.len()..];
    let deletes = rest.iter().enumerate().any(|(i, a)| {
        a == "-delete"
            || (matches!(a.as_str(), "-exec" | "-execdir" | "-ok")
                && rest.get(i + 1).is_some_and(|c| basename(c) == "rm"))
    });
    let filtered = rest.iter().any(|a| {
        matches!(
            a.as_str(),
            "-name" | "-iname" | "-path" | "-ipath" | "-wholename" | "-regex" | "-iregex"
        )
    });
    if !deletes || filtered {
        return Ok(());
    }
    let dot = ".".to_string();
    let starts = if starts.is_empty() {
        vec![&dot]
    } else {
        starts
    };
    for s in starts {
        if let Some(what) = protected_target(s, cwd) {
            return Err(Refusal::new(
                "find-delete",
                format!("`find … -delete` over {what} would wipe the device"),
            ));
        }
    }
    Ok(())
}

/// Refuses writes to block devices and to the recovery command file.
pub(super) fn written_path(p: &str, cwd: Option<&str>) -> Result<(), Refusal> {
    let abs = match cwd {
        Some(c) => join_path(c, p),
        None if p.starts_with('/') => join_path("/", p),
        None => return Ok(()),
    };
    let known = abs.split(UNKNOWN).next().unwrap_or("");
    let unknown = abs.contains(UNKNOWN);
    if abs.ends_with("/recovery/command") || (unknown && known.contains("/recovery/")) {
        return Err(Refusal::new(
            "recovery-command",
            "writing the recovery command file schedules a wipe or an update at the next boot",
        ));
    }
    let dev = known.strip_prefix("/dev/");
    let block = match dev {
        Some(d) if unknown => {
            // `/dev/$X` could be any device.
            [
                "block/", "sd", "mmcblk", "nvme", "mtd", "dm-", "vd", "hd", "mapper/",
            ]
            .iter()
            .any(|b| b.starts_with(d) || d.starts_with(b))
        }
        Some(d) => is_block_device(d),
        None => false,
    };
    if block {
        return Err(Refusal::new(
            "raw-block-write",
            format!(
                "writing to the block device `{}` destroys a partition",
                abs.replace(UNKNOWN, "*")
            ),
        ));
    }
    Ok(())
}

fn is_block_device(d: &str) -> bool {
    let starts_with_letter = |p: &str| {
        d.strip_prefix(p)
            .is_some_and(|r| r.chars().next().is_some_and(|c| c.is_ascii_alphanumeric()))
    };
    d.starts_with("block/")
        || d.starts_with("mapper/")
        || d.starts_with("dm-")
        || ["sd", "mmcblk", "nvme", "mtd", "vd", "hd", "ufs"]
            .iter()
            .any(|p| starts_with_letter(p))
}

/// Joins `p` onto `cwd` and normalises `.`, `..` and doubled slashes lexically.
pub(super) fn join_path(cwd: &str, p: &str) -> String {
    let full = if p.starts_with('/') {
        p.to_string()
    } else {
        format!("{cwd}/{p}")
    };
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

/// Describes the protected root that a recursive operation on `op` would hit, if any.
fn protected_target(op: &str, cwd: Option<&str>) -> Option<String> {
    let path = match cwd {
        _ if op.starts_with('/') => join_path("/", op),
        Some(c) => join_path(c, op),
        // After an unfollowable `cd`, a relative path could be anywhere.
        None => format!("/{UNKNOWN}/{op}"),
    };
    let shown = path.replace(UNKNOWN, "*");
    let comps: Vec<&str> = path.split('/').filter(|c| !c.is_empty()).collect();
    let glob_at = comps
        .iter()
        .position(|c| c.contains(['*', '?', '[', UNKNOWN]));
    let hit = match glob_at {
        None => is_protected(&comps),
        // A glob matches its siblings: it is as bad as deleting its parent directory.
        Some(i) => is_protected(&comps[..i]),
    };
    hit.then(|| format!("`{shown}`"))
}

fn is_protected(c: &[&str]) -> bool {
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
    ];
    match c {
        [] | [_] => true,
        [first, ..] if OS_IMAGE.contains(first) => true,
        ["data" | "storage" | "mnt", _] => true,
        [
            "data",
            "user" | "user_de" | "media" | "misc_ce" | "misc_de" | "system_ce" | "system_de"
            | "vendor_ce" | "vendor_de",
            _,
        ] => true,
        ["storage", "emulated", _] | ["storage", "self", "primary"] => true,
        ["mnt", "vendor", ..] => true,
        ["mnt", "user", _] | ["mnt", "user", _, "primary"] => true,
        ["mnt", "media_rw" | "expand" | "runtime", _] => true,
        _ => false,
    }
}
