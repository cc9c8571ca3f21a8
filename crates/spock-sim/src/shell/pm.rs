//! Package manager: `pm list packages` (`-3`, `-s`, `-f`, `--show-versioncode`, `-U`, filter;
//! lines as in `fixtures/misc/pm-list-packages-f-pixel-excerpt.txt`), `pm path`,
//! `pm grant|revoke`, `pm clear`, `pm uninstall`, `pm install` (`install`), `pm trim-caches`,
//! and `cmd` (package, activity, app_function, uimode).
use super::{Ctx, am, appfn, uimode};

mod apk;
mod install;
use crate::device::state::{InstalledApp, short_component};

/// Where an app's APK lives: `/data/app/~~…==/pkg-…==/base.apk`, or a system partition.
pub fn apk_path(app: &InstalledApp) -> String {
    let file = if app.spec.system {
        system_name(app)
    } else {
        "base".to_string()
    };
    format!("{}/{file}.apk", code_path(app))
}

pub fn code_path(app: &InstalledApp) -> String {
    if app.spec.system {
        format!("/product/priv-app/{}", system_name(app))
    } else {
        format!(
            "/data/app/~~{}/{}-{}",
            app.code_hash.0, app.spec.package, app.code_hash.1
        )
    }
}

/// A system app's directory and APK name: its label, letters and digits only.
fn system_name(app: &InstalledApp) -> String {
    app.spec
        .label
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .collect()
}

fn exception(ctx: &mut Ctx, cmd: &str, msg: &str) -> i32 {
    ctx.errln(&format!("Exception occurred while executing '{cmd}':"));
    ctx.errln(msg);
    255
}

fn list_packages(ctx: &mut Ctx, args: &[String]) -> i32 {
    let (mut third, mut system, mut paths, mut versions, mut uids) =
        (false, false, false, false, false);
    let mut filter: Option<String> = None;
    for a in args {
        match a.as_str() {
            "-3" => third = true,
            "-s" => system = true,
            "-f" => paths = true,
            "-U" => uids = true,
            "--show-versioncode" => versions = true,
            "-e" | "-d" | "-i" | "-l" | "-u" | "--user" | "0" => {}
            s if s.starts_with('-') => {}
            s => filter = Some(s.to_string()),
        }
    }
    let apps: Vec<InstalledApp> = ctx.st.installed.values().cloned().collect();
    for app in apps {
        let s = &app.spec;
        if (third && s.system) || (system && !s.system) {
            continue;
        }
        if filter
            .as_ref()
            .is_some_and(|f| !s.package.contains(f.as_str()))
        {
            continue;
        }
        let mut line = String::from("package:");
        if paths {
            line.push_str(&apk_path(&app));
            line.push('=');
        }
        line.push_str(&s.package);
        if versions {
            line.push_str(&format!(" versionCode:{}", s.version_code));
        }
        if uids {
            line.push_str(&format!(" uid:{}", app.uid));
        }
        ctx.outln(&line);
    }
    0
}

fn grant(ctx: &mut Ctx, cmd: &str, args: &[String], value: bool) -> i32 {
    let rest: Vec<&String> = args
        .iter()
        .filter(|a| !a.starts_with("--") && *a != "0")
        .collect();
    let [pkg, perm, ..] = rest.as_slice() else {
        return exception(
            ctx,
            cmd,
            "java.lang.IllegalArgumentException: no package specified",
        );
    };
    let Some(app) = ctx.st.installed.get_mut(*pkg) else {
        return exception(
            ctx,
            cmd,
            &format!("java.lang.IllegalArgumentException: Unknown package: {pkg}"),
        );
    };
    if !app.permissions.contains_key(*perm) {
        let msg = format!(
            "java.lang.SecurityException: Package {pkg} has not requested permission {perm}"
        );
        return exception(ctx, cmd, &msg);
    }
    if !super::dumpsys::package::is_runtime(perm) {
        let msg = format!(
            "java.lang.SecurityException: Permission {perm} requested by {pkg} is not a changeable permission type"
        );
        return exception(ctx, cmd, &msg);
    }
    app.permissions.insert((*perm).clone(), value);
    0
}

pub fn pm(ctx: &mut Ctx, args: &[String]) -> i32 {
    let sub = args.get(1).map(String::as_str).unwrap_or("");
    let rest = &args[2.min(args.len())..];
    let first_pkg = || {
        rest.iter()
            .find(|a| !a.starts_with('-') && *a != "0")
            .cloned()
    };
    match sub {
        "list" if rest.first().map(String::as_str) == Some("packages") => {
            list_packages(ctx, &rest[1..])
        }
        "path" => match first_pkg().and_then(|p| ctx.st.installed.get(&p).cloned()) {
            Some(app) => {
                ctx.outln(&format!("package:{}", apk_path(&app)));
                0
            }
            None => 1,
        },
        "grant" => grant(ctx, "grant", rest, true),
        "revoke" => grant(ctx, "revoke", rest, false),
        "clear" => match first_pkg() {
            Some(p) if ctx.st.clear_data(&p) => {
                ctx.outln("Success");
                0
            }
            _ => {
                ctx.outln("Failed");
                1
            }
        },
        "uninstall" => match first_pkg() {
            Some(p) if ctx.st.uninstall(&p) => {
                ctx.outln("Success");
                0
            }
            _ => {
                ctx.outln("Failure [DELETE_FAILED_INTERNAL_ERROR]");
                1
            }
        },
        "install" => {
            let words: Vec<&str> = rest.iter().map(String::as_str).collect();
            install::install(ctx, &words)
        }
        "install-create" => {
            ctx.outln("Failure [INSTALL_FAILED_INVALID_APK: the virtual device installs from a file path only]");
            1
        }
        "resolve-activity" => resolve_activity(ctx, rest),
        "trim-caches" => trim_caches(ctx, rest),
        "" => {
            ctx.outln("Package manager (package) commands:\n  help\n    Print this help text.\n  path [--user USER_ID] PACKAGE\n    Print the path to the .apk of the given PACKAGE.\n  list packages [-f] [-d] [-e] [-s] [-3] [-i] [-l] [-u] [-U]\n      [--show-versioncode] [--apex-only] [--uid UID] [--user USER_ID] [FILTER]\n    Prints all packages; optionally only those whose name contains\n    the text in FILTER.");
            0
        }
        other => {
            ctx.errln(&format!("Unknown command: {other}"));
            255
        }
    }
}

/// `pm trim-caches DESIRED_FREE_SPACE [internal|UUID]`, as `runTrimCaches` in
/// aosp-mirror/platform_frameworks_base `services/core/java/com/android/server/pm/
/// PackageManagerShellCommand.java`: a size in bytes with an optional K, M or G (either case)
/// read by `Long.parseLong`; then `freeStorageAndNotify`, whose outcome the command does not
/// print, so it prints nothing and exits 0 (whatever the volume). The sim keeps no app caches:
/// there is nothing to free.
fn trim_caches(ctx: &mut Ctx, args: &[String]) -> i32 {
    let Some(size) = args.first() else {
        ctx.errln("Error: no size specified");
        return 1;
    };
    let Some(last) = size.chars().last() else {
        // `size.charAt(len - 1)` on an empty argument.
        return exception(
            ctx,
            "trim-caches",
            "java.lang.StringIndexOutOfBoundsException: length=0; index=-1",
        );
    };
    let digits = match last {
        '0'..='9' => size.as_str(),
        'K' | 'k' | 'M' | 'm' | 'G' | 'g' => &size[..size.len() - 1],
        c => {
            ctx.errln(&format!("Invalid suffix: {c}"));
            return 1;
        }
    };
    if parse_long(digits).is_none() {
        ctx.errln(&format!("Error: expected number at: {digits}"));
        return 1;
    }
    0
}

/// `Long.parseLong`: an optional sign, then ASCII digits, within 64 bits.
fn parse_long(s: &str) -> Option<i64> {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

fn resolve_activity(ctx: &mut Ctx, args: &[String]) -> i32 {
    let brief = args.iter().any(|a| a == "--brief");
    let mut pkg: Option<String> = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "-a" | "-c" | "-d" | "-t" | "--user" | "--components" => {
                it.next();
            }
            "-p" => pkg = it.next().cloned(),
            s if s.starts_with('-') => {}
            s => pkg = Some(s.to_string()),
        }
    }
    let found = pkg
        .and_then(|p| ctx.st.installed.get(&p).cloned())
        .and_then(|a| a.spec.launcher.clone().map(|l| (a.spec.package.clone(), l)));
    match found {
        Some((p, l)) => {
            ctx.outln("priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=true");
            if brief {
                ctx.outln(&short_component(&p, &l));
            } else {
                ctx.outln(&format!("  ActivityInfo:\n    name={l}\n    packageName={p}\n    enabled=true exported=true directBootAware=false"));
            }
            0
        }
        None => {
            ctx.outln("No activity found");
            0
        }
    }
}

/// `cmd SERVICE …`: the package, activity, app_function and uimode services.
pub fn cmd(ctx: &mut Ctx, args: &[String]) -> i32 {
    let service = args.get(1).map(String::as_str).unwrap_or("");
    let mut shifted: Vec<String> = vec![service.to_string()];
    shifted.extend(args.iter().skip(2).cloned());
    match service {
        "package" => pm(ctx, &shifted),
        "activity" => am::am(ctx, &shifted),
        "app_function" => appfn::app_function(ctx, &shifted),
        "uimode" => uimode::uimode(ctx, &shifted),
        "-l" => {
            ctx.outln(
                "Currently running services:\n  activity\n  app_function\n  package\n  uimode",
            );
            0
        }
        "" => {
            ctx.errln("cmd: No service specified; use -l to list all running services. Use -w to start and wait for a service.");
            20
        }
        s => {
            ctx.errln(&format!("cmd: Can't find service: {s}"));
            20
        }
    }
}
