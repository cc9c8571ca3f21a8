//! Android's own ways to erase a device, by the argv that asks for them: the factory-reset
//! broadcasts (`MASTER_CLEAR`, `FACTORY_RESET`) and activity, `recovery --wipe_data` and the
//! recovery command file, `vdc cryptfs wipe`, `cmd testharness enable`, `sm format` and
//! `sm partition`, resets through `content call` and device policy, formatters (`mkfs*`,
//! `make_ext4fs`, `blkdiscard`, …) and `fastboot erase`/`format`/`-w`/unlock.
//!
//! An intent, component or subcommand the guard cannot read (unknown text where the action
//! goes) is refused as "cannot tell" for the verbs that can wipe (`am broadcast`, `am start`,
//! `cmd`, `content call`, `vdc`, `sm`).
use super::Refusal;
use super::eval::{Eval, R};
use super::rules::cannot_tell;
use super::state::UNKNOWN;

fn factory_reset(via: &str) -> Refusal {
    Refusal::new(
        "factory-reset",
        format!("this is a factory reset (via `{via}`): it erases all user data on the device"),
    )
}

const RESET_WORDS: &[&str] = &[
    "master_clear",
    "factory_reset",
    "factoryreset",
    "masterclear",
    "mainclear",
    "main_clear",
    "wipe_data",
    "wipedata",
    "--wipe_ab",
    "wipe-data",
    "wipe_ab",
];

fn has_reset_word(a: &str) -> bool {
    RESET_WORDS.iter().any(|w| a.contains(w))
}

/// The commands this module has anything to say about.
fn relevant(name: &str) -> bool {
    matches!(
        name,
        "am" | "cmd"
            | "content"
            | "service"
            | "settings"
            | "setprop"
            | "svc"
            | "dpm"
            | "device_policy"
            | "monkey"
            | "input"
            | "recovery"
            | "uncrypt"
            | "update_engine"
            | "wipe"
            | "vdc"
            | "reboot"
            | "bcb"
            | "fastboot"
            | "sm"
            | "pm"
    ) || is_formatter(name)
}

/// Percent-decodes (`MASTER%5FCLEAR`), as Android does for intent URIs and data.
fn percent_decoded(a: &str) -> String {
    let b = a.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%'
            && i + 2 < b.len()
            && let Ok(v) =
                u8::from_str_radix(std::str::from_utf8(&b[i + 1..i + 3]).unwrap_or("zz"), 16)
        {
            out.push(v);
            i += 3;
            continue;
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Uninstalling or clearing packages: more than [`MAX_PACKAGES`] in one command, or a set
/// computed on the device, is refused; removing a user always is.
pub(super) const MAX_PACKAGES: usize = 3;

fn packages(name: &str, args: &[String], ev: &mut Eval) -> R<()> {
    let words: Vec<&str> = args.iter().map(String::as_str).collect();
    let (verb_at, removes_user) = match (name, words.as_slice()) {
        ("pm", [v, ..]) if matches!(*v, "uninstall" | "clear") => (Some(0), false),
        ("cmd", ["package", v, ..]) if matches!(*v, "uninstall" | "clear") => (Some(1), false),
        ("pm", ["remove-user", ..]) | ("cmd", ["user" | "package", "remove-user", ..]) => {
            (None, true)
        }
        _ => (None, false),
    };
    if removes_user {
        return Err(Refusal::new(
            "remove-user",
            "removing a user deletes all of that user's apps and data",
        ));
    }
    let Some(at) = verb_at else {
        return Ok(());
    };
    // The package is the first operand after the options (`-k`, `--user N`, `--versionCode N`).
    let mut i = at + 1;
    while let Some(w) = words.get(i) {
        if matches!(
            *w,
            "--user" | "--versionCode" | "--cache" | "--all-users-except"
        ) {
            i += 2;
        } else if w.starts_with('-') {
            i += 1;
        } else {
            break;
        }
    }
    let Some(pkg) = words.get(i).filter(|p| !p.is_empty()) else {
        return Ok(());
    };
    // A pattern (`/data/user/0/*/` cut down to `*`) is a set the device computes.
    if pkg.contains(UNKNOWN) || pkg.contains(['*', '?', '[']) {
        return Err(Refusal::new(
            "mass-uninstall",
            format!(
                "`{name} {}` over packages computed on the device can remove or wipe every app; name the packages (at most {MAX_PACKAGES}) or run it yourself",
                words[at]
            ),
        ));
    }
    if !ev.packages.iter().any(|p| p == pkg) {
        ev.packages.push(pkg.to_string());
    }
    if ev.packages.len() > MAX_PACKAGES {
        return Err(Refusal::new(
            "mass-uninstall",
            format!(
                "the command uninstalls or clears {} packages ({}); more than {MAX_PACKAGES} in one command is refused: run it yourself",
                ev.packages.len(),
                ev.packages.join(", ")
            ),
        ));
    }
    Ok(())
}

pub(super) fn check(name: &str, args: &[String], ev: &mut Eval) -> R<()> {
    let decoded: Vec<String> = args.iter().map(|a| percent_decoded(a)).collect();
    let args = &decoded[..];
    packages(name, args, ev)?;
    // `app_process DIR com.android.commands.am.Am …` is `am …`.
    if name.starts_with("app_process") {
        let lower: Vec<String> = args.iter().map(|a| a.to_ascii_lowercase()).collect();
        if lower.iter().any(|a| has_reset_word(a)) {
            return Err(factory_reset(name));
        }
        if let Some(p) = args
            .iter()
            .position(|a| a.starts_with("com.android.commands."))
        {
            let tool = args[p]
                .rsplit('.')
                .next()
                .unwrap_or("")
                .to_ascii_lowercase();
            return check(&tool, &args[p + 1..], ev);
        }
        return Ok(());
    }
    if args.iter().any(|a| {
        a.as_bytes()
            .windows(4)
            .any(|w| w.eq_ignore_ascii_case(b"wipe"))
    }) {
        ev.mentions_wipe = true;
    }
    if !relevant(name) {
        return Ok(());
    }
    let lower: Vec<String> = args.iter().map(|a| a.to_ascii_lowercase()).collect();
    let words: Vec<&str> = lower.iter().map(String::as_str).collect();
    let any = |f: &dyn Fn(&str) -> bool| words.iter().any(|w| f(w));
    let first = words.first().copied().unwrap_or("");
    match name {
        "am" | "cmd" | "content" | "service" | "settings" | "setprop" | "svc" | "dpm"
        | "device_policy" | "monkey" | "input"
            if any(&has_reset_word) =>
        {
            return Err(factory_reset(name));
        }
        "cmd" if first == "testharness" && words.get(1).is_some_and(|w| *w == "enable") => {
            return Err(factory_reset("cmd testharness enable"));
        }
        "cmd" if first == "device_policy" && any(&|w| w.contains("wipe")) => {
            return Err(factory_reset("cmd device_policy wipe"));
        }
        "recovery" | "uncrypt" | "update_engine" if any(&|w| w.contains("wipe")) => {
            return Err(factory_reset(name));
        }
        "wipe" if any(&|w| matches!(w, "data" | "all" | "system" | "cache" | "userdata")) => {
            return Err(factory_reset("wipe"));
        }
        "dpm" if any(&|w| w.contains("wipe")) => return Err(factory_reset("dpm wipe")),
        "vdc" if any(&|w| matches!(w, "wipe" | "format" | "partition" | "wipe_userdata")) => {
            return Err(factory_reset("vdc"));
        }
        "reboot" | "svc" | "setprop" | "bcb"
            if any(&|w| {
                w.contains("recovery") || w.contains("bootloader") || w.contains("fastboot")
            }) =>
        {
            ev.reboots_to_recovery = true;
        }
        "fastboot" => fastboot(&words)?,
        "sm" if matches!(first, "format" | "partition" | "forget") => {
            return Err(Refusal::new(
                "format",
                "`sm format`/`sm partition`/`sm forget` erases a storage volume",
            ));
        }

        n if is_formatter(n) => {
            return Err(Refusal::new(
                "mkfs",
                format!("`{n}` formats or erases a filesystem or block device"),
            ));
        }
        _ => {}
    }
    // A wiping verb whose intent, component or subcommand is unknown text.
    let can_wipe = match name {
        // A computed verb may be a wiping one (`pm` too: `uninstall`, `clear`, `remove-user`).
        "am" => {
            matches!(
                first,
                "broadcast"
                    | "start"
                    | "start-activity"
                    | "startservice"
                    | "start-service"
                    | "start-foreground-service"
            ) || first.contains(UNKNOWN)
        }
        "cmd" => {
            matches!(
                first,
                "activity" | "testharness" | "device_policy" | "storage" | "user" | "recovery"
            ) || first.contains(UNKNOWN)
        }
        "content" => first == "call",
        // A computed verb may be `uninstall`, `clear`, `remove-user` or a wiping intent.
        "pm" => first.contains(UNKNOWN),
        "vdc" | "sm" | "recovery" | "wipe" | "fastboot" => true,
        _ => false,
    };
    if can_wipe && any(&|w| w.contains(UNKNOWN)) {
        return Err(cannot_tell(
            ev,
            &format!("`{name} {first}` asks for a wipe"),
        ));
    }
    Ok(())
}

fn is_formatter(n: &str) -> bool {
    n.starts_with("mkfs")
        || n.starts_with("mke2fs")
        || n.starts_with("make_ext4fs")
        || n.starts_with("make_f2fs")
        || n.starts_with("mkdosfs")
        || n.starts_with("mkexfat")
        || matches!(
            n,
            "newfs_msdos"
                | "mkntfs"
                | "mkswap"
                | "blkdiscard"
                | "flash_image"
                | "erase_image"
                | "flash_erase"
                | "sgdisk"
                | "sfdisk"
                | "fdisk"
                | "parted"
                | "sload_f2fs"
                | "mkuserimg"
        )
}

fn fastboot(words: &[&str]) -> R<()> {
    let bad = words
        .iter()
        .any(|w| matches!(*w, "erase" | "format" | "-w" | "wipe-super" | "--wipe"))
        || words.windows(2).any(|p| {
            matches!(
                p,
                ["flashing", "unlock" | "unlock_critical"]
                    | ["oem", "unlock" | "unlock-go" | "unlock_critical"]
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
