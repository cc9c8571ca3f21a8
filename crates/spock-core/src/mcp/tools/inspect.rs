//! Read-only looks at apps and the system: packages, activities and fragments, logcat,
//! processes, battery, network. Each is a real command, parsed by `device::parse`.
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::common::SerialOnly;
use crate::device::parse::{activity, battery, logcat, net, package, packages, ps, window};
use crate::guard;
use crate::mcp::ctx::Ctx;
use crate::mcp::registry::{Level, Meta, ToolDef};
use crate::mcp::result::ToolError;
use crate::mcp::toolsets::Toolset;
use crate::redact::LogRef;

pub fn refused(r: guard::Refusal) -> ToolError {
    ToolError::refused(r.to_string())
}

/// Longest tag a filter is built from (a tag is conventionally at most 23 characters; longer
/// ones exist, none near this).
const MAX_TAG: usize = 256;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ListPackagesArgs {
    pub serial: Option<String>,
    /// Case-insensitive substring of the package name.
    pub filter: Option<String>,
    /// Only apps the user installed (`pm list packages -3`).
    #[serde(default)]
    pub third_party_only: bool,
    /// Include version codes and APK paths.
    #[serde(default)]
    pub versions: bool,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PackageList {
    pub count: usize,
    pub packages: Vec<packages::PackageLine>,
}

/// The package names a `pm list packages` answer lists.
pub(super) fn packages_in(text: &str) -> Vec<String> {
    packages::parse_list(text)
        .into_iter()
        .map(|p| p.package)
        .collect()
}

async fn list_packages(ctx: Ctx, a: ListPackagesArgs) -> Result<PackageList, ToolError> {
    let dev = ctx.device(a.serial.as_deref()).await?;
    let mut cmd = String::from("pm list packages");
    if a.third_party_only {
        cmd.push_str(" -3");
    }
    if a.versions {
        cmd.push_str(" -f --show-versioncode");
    }
    let text = ctx.sh_ok(&dev, &cmd).await?;
    let needle = a.filter.map(|f| f.to_lowercase());
    let mut list: Vec<_> = packages::parse_list(&text)
        .into_iter()
        .filter(|p| {
            needle
                .as_ref()
                .is_none_or(|n| p.package.to_lowercase().contains(n))
        })
        .collect();
    list.sort_by(|x, y| x.package.cmp(&y.package));
    Ok(PackageList {
        count: list.len(),
        packages: list,
    })
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct PackageArgs {
    pub serial: Option<String>,
    /// Application id, e.g. com.example.shop.
    pub package_name: String,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PackageDetails {
    #[serde(flatten)]
    pub info: package::PackageInfo,
    /// Requested (declared) permissions that are not granted.
    pub not_granted: Vec<String>,
}

pub async fn package_info(
    ctx: &Ctx,
    serial: Option<&str>,
    pkg: &str,
) -> Result<package::PackageInfo, ToolError> {
    guard::package_name(pkg).map_err(refused)?;
    let dev = ctx.device(serial).await?;
    let text = ctx
        .sh_ok(
            &dev,
            &format!("dumpsys package {}", guard::shell_quote(pkg)),
        )
        .await?;
    package::parse(&text, pkg).ok_or_else(|| {
        ToolError::not_found(format!(
            "package {pkg} is not installed on {} (see android_list_packages)",
            dev.serial()
        ))
    })
}

async fn get_package_info(ctx: Ctx, a: PackageArgs) -> Result<PackageDetails, ToolError> {
    let info = package_info(&ctx, a.serial.as_deref(), &a.package_name).await?;
    let granted = |name: &str| {
        info.install_permissions
            .iter()
            .chain(&info.runtime_permissions)
            .any(|g| g.name == name && g.granted == Some(true))
    };
    let not_granted = info
        .requested_permissions
        .iter()
        .filter(|p| !granted(p))
        .cloned()
        .collect();
    Ok(PackageDetails { info, not_granted })
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CurrentActivity {
    pub package: Option<String>,
    pub activity: Option<String>,
    /// Which dump it came from; this is best effort (the focus can be a system window).
    pub source: String,
    pub best_effort: bool,
}

pub async fn current_activity(
    ctx: &Ctx,
    serial: Option<&str>,
) -> Result<CurrentActivity, ToolError> {
    let dev = ctx.device(serial).await?;
    let (acts, win) = tokio::join!(
        ctx.sh(&dev, "dumpsys activity activities"),
        ctx.sh(&dev, "dumpsys window")
    );
    if let Ok(out) = acts
        && out.success()
        && let Some(r) = activity::parse_activities(&out.stdout_text()).resumed
    {
        let c = r.component();
        return Ok(CurrentActivity {
            package: Some(c.package.clone()),
            activity: Some(c.flat()),
            source: "dumpsys activity activities (resumed activity)".into(),
            best_effort: true,
        });
    }
    let win = win?;
    let focus = window::parse_focus(&win.stdout_text());
    Ok(CurrentActivity {
        package: focus.package,
        activity: focus.activity,
        source: format!(
            "dumpsys window ({})",
            focus.source.unwrap_or_else(|| "focus".into())
        ),
        best_effort: true,
    })
}

async fn activity_stack(ctx: Ctx, a: SerialOnly) -> Result<activity::ActivityStack, ToolError> {
    let dev = ctx.device(a.serial.as_deref()).await?;
    let text = ctx.sh_ok(&dev, "dumpsys activity activities").await?;
    if activity::is_bad_command(&text) {
        return Err(ToolError::device(
            "this device does not support `dumpsys activity activities`",
        ));
    }
    Ok(activity::parse_activities(&text))
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Fragments {
    pub top: Option<activity::TopFragments>,
    pub note: String,
}

async fn fragments(ctx: Ctx, a: SerialOnly) -> Result<Fragments, ToolError> {
    let dev = ctx.device(a.serial.as_deref()).await?;
    let text = ctx.sh_ok(&dev, "dumpsys activity top").await?;
    let top = activity::parse_top_fragments(&text);
    let note = match &top {
        Some(t) if !t.fragments.is_empty() => "Navigation Fragment destinations are the `current` entries.".into(),
        _ => "No fragments on the top activity. A Compose Navigation route is not observable over ADB \
              (it lives in memory); put the route in a test tag on the NavHost to see it."
            .into(),
    };
    Ok(Fragments { top, note })
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct LogcatArgs {
    pub serial: Option<String>,
    /// Most recent lines to return (default 200, max 5000).
    pub lines: Option<usize>,
    /// Minimum level: V, D, I, W, E or F.
    pub min_level: Option<String>,
    /// Only this tag.
    pub tag: Option<String>,
    /// Only lines from this app's running process.
    pub package_name: Option<String>,
    /// Only lines at or after this time, `MM-DD HH:MM:SS.mmm` as logcat prints it.
    pub since: Option<String>,
    /// Case-insensitive substring of the message or tag.
    pub contains: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Logcat {
    pub lines: Vec<logcat::LogLine>,
    pub crashes: Vec<logcat::Crash>,
    pub truncated: bool,
    /// The filter these lines passed, where the caller chose it (the debug context's default
    /// is warnings and worse): an empty list then says "nothing at this level", not "no log".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub filter: Option<String>,
}

/// Lines fetched beyond those asked for, so that a message group cut by `-t` is read whole.
const GROUP_MARGIN: usize = 100;

pub async fn get_logcat(ctx: &Ctx, a: LogcatArgs) -> Result<Logcat, ToolError> {
    let want = a.lines.unwrap_or(200);
    if want == 0 || want > 5000 {
        return Err(ToolError::invalid_args("lines must be between 1 and 5000"));
    }
    let level = match a.min_level.as_deref().map(str::to_ascii_uppercase) {
        None => None,
        Some(l) if l.len() == 1 && "VDIWEF".contains(&l) => l.chars().next(),
        Some(l) => {
            return Err(ToolError::invalid_args(format!(
                "minLevel {l:?}: use V, D, I, W, E or F"
            )));
        }
    };
    if let Some(t) = &a.tag
        && (t.is_empty()
            || !t
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "_.-$".contains(c)))
    {
        return Err(ToolError::invalid_args(format!(
            "tag {:?} has characters a logcat tag filter cannot hold",
            t.chars().take(80).collect::<String>()
        )));
    }
    if let Some(t) = &a.tag
        && t.len() > MAX_TAG
    {
        return Err(ToolError::invalid_args(format!(
            "tag is {} characters; a logcat tag filter holds at most {MAX_TAG}",
            t.len()
        )));
    }
    let since = match &a.since {
        None => None,
        Some(s) => Some(logcat::LogTime::parse(s).ok_or_else(|| {
            ToolError::invalid_args(format!(
                "since {s:?}: use MM-DD HH:MM:SS.mmm, as logcat prints it"
            ))
        })?),
    };
    let dev = ctx.device(a.serial.as_deref()).await?;
    let mut pid = None;
    if let Some(pkg) = &a.package_name {
        guard::package_name(pkg).map_err(refused)?;
        let out = ctx
            .sh(&dev, &format!("pidof {}", guard::shell_quote(pkg)))
            .await?;
        pid = out
            .stdout_text()
            .split_whitespace()
            .next()
            .and_then(|p| p.parse::<u32>().ok());
        if pid.is_none() {
            return Err(ToolError::not_found(format!(
                "{pkg} is not running, so it has no log lines to filter by pid; launch it or drop packageName"
            )));
        }
    }
    let host_filtered = a.contains.is_some() || since.is_some();
    // More than asked for, so that a message of many lines cut by `-t` (a key whose BEGIN
    // line falls before the window) is read whole and redacted as one.
    let fetch = if host_filtered {
        (want * 10).min(50_000)
    } else {
        want
    } + GROUP_MARGIN;
    let mut cmd = format!("logcat -d -v threadtime -t {fetch}");
    if let Some(p) = pid {
        cmd.push_str(&format!(" --pid={p}"));
    }
    match (&a.tag, level) {
        (Some(t), l) => cmd.push_str(&format!(" {}:{} *:S", t, l.unwrap_or('V'))),
        (None, Some(l)) => cmd.push_str(&format!(" *:{l}")),
        (None, None) => {}
    }
    let text = ctx.sh_ok(&dev, &cmd).await?;
    let filter = logcat::Filter {
        min_level: level,
        tag: a.tag.clone(),
        pid,
        since,
        contains: a.contains.clone(),
    };
    // Every filter runs on the lines as the caller is shown them: `contains` must not match
    // text that redaction hides, or it reads a secret back one character at a time. Lines
    // are redacted a message group at a time (same pid, tid, tag and time: one message
    // logcat printed a line per entry) before any filter, so no filter returns the body
    // lines of a private key alone. A line goes on whole when redacting it alone hides as
    // much (the answer is redacted for the agent, the person's record keeps it); one that
    // only its group hides goes on as shown, in the record too.
    let audience = ctx.audience();
    let redactor = &ctx.core.redactor;
    let parsed = logcat::parse_threadtime(&text);
    let refs: Vec<LogRef<'_>> = parsed.iter().map(LogRef::from).collect();
    let grouped: Vec<Option<String>> = redactor
        .redact_log(&refs, audience)
        .into_iter()
        .zip(&parsed)
        .map(|(g, l)| (g != redactor.redact_str(&l.message, audience)).then(|| g.into_owned()))
        .collect();
    let all: Vec<_> = parsed
        .iter()
        .zip(grouped)
        .filter_map(|(l, g)| {
            let mut out = l.clone();
            if let Some(g) = g {
                out.message = g;
            }
            let mut shown = out.clone();
            shown.message = redactor.redact_str(&out.message, audience).into_owned();
            shown.tag = redactor.redact_str(&l.tag, audience).into_owned();
            filter.matches(&shown).then_some(out)
        })
        .collect();
    let crashes = logcat::crashes(&all);
    let truncated = all.len() > want;
    let lines = all
        .into_iter()
        .rev()
        .take(want)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    Ok(Logcat {
        lines,
        crashes,
        truncated,
        filter: None,
    })
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProcessArgs {
    pub serial: Option<String>,
    /// Case-insensitive substring of the process name.
    pub filter: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Processes {
    pub count: usize,
    pub processes: Vec<ps::Process>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Network {
    pub interfaces: Option<Vec<net::Interface>>,
    pub connectivity: Option<net::Connectivity>,
    pub wifi: Option<net::WifiState>,
    /// A section that could not be read, with why; the others still come back.
    pub errors: Vec<String>,
}

async fn network(ctx: Ctx, a: SerialOnly) -> Result<Network, ToolError> {
    let dev = ctx.device(a.serial.as_deref()).await?;
    let (ip, conn, wifi) = tokio::join!(
        ctx.sh_ok(&dev, "ip addr"),
        ctx.sh_ok(&dev, "dumpsys connectivity"),
        ctx.sh_ok(&dev, "dumpsys wifi")
    );
    let mut errors = Vec::new();
    let mut keep = |name: &str, r: Result<String, ToolError>| match r {
        Ok(t) => Some(t),
        Err(e) => {
            errors.push(format!("{name}: {e}"));
            None
        }
    };
    let interfaces = keep("interfaces", ip).map(|t| net::parse_ip_addr(&t));
    let connectivity = keep("connectivity", conn).map(|t| net::parse_connectivity(&t));
    let wifi = keep("wifi", wifi).map(|t| net::parse_wifi(&t));
    Ok(Network {
        interfaces,
        connectivity,
        wifi,
        errors,
    })
}

pub fn tools() -> Vec<ToolDef> {
    vec![
        Meta {
            name: "android_list_packages",
            title: "List packages",
            level: Level::ReadOnly,
            toolset: Toolset::Apps,
            description: "Installed packages; filter by substring, third-party only, with versions and paths.",
        }
        .def(list_packages),
        Meta {
            name: "android_get_package_info",
            title: "Package info",
            level: Level::ReadOnly,
            toolset: Toolset::Apps,
            description: "Version, requested vs granted permissions, activities, debuggable, paths of one package.",
        }
        .def(get_package_info),
        Meta {
            name: "android_get_current_activity",
            title: "Current activity",
            level: Level::ReadOnly,
            toolset: Toolset::Debug,
            description: "Foreground package and activity (best effort; says which dump it came from).",
        }
        .def(|ctx: Ctx, a: SerialOnly| async move { current_activity(&ctx, a.serial.as_deref()).await }),
        Meta {
            name: "android_get_activity_stack",
            title: "Activity stack",
            level: Level::ReadOnly,
            toolset: Toolset::Debug,
            description: "Tasks and their activities, top first, and the resumed activity.",
        }
        .def(activity_stack),
        Meta {
            name: "android_get_current_fragments",
            title: "Current fragments",
            level: Level::ReadOnly,
            toolset: Toolset::Debug,
            description: "Fragments of the top activity from `dumpsys activity top` (Navigation Fragment destinations).",
        }
        .def(fragments),
        Meta {
            name: "android_get_logcat",
            title: "Logcat",
            level: Level::ReadOnly,
            toolset: Toolset::Debug,
            description: "Recent device log lines, filtered; FATAL EXCEPTIONs summarised.",
        }
        .def(|ctx: Ctx, a: LogcatArgs| async move { get_logcat(&ctx, a).await }),
        Meta {
            name: "android_get_processes",
            title: "Processes",
            level: Level::ReadOnly,
            toolset: Toolset::Debug,
            description: "Running processes (pid, user, name, rss kB), optionally filtered by name.",
        }
        .def(|ctx: Ctx, a: ProcessArgs| async move {
            let dev = ctx.device(a.serial.as_deref()).await?;
            let text = ctx.sh_ok(&dev, "ps -A").await?;
            let needle = a.filter.map(|f| f.to_lowercase());
            let processes: Vec<_> = ps::parse(&text)
                .into_iter()
                .filter(|p| needle.as_ref().is_none_or(|n| p.name.to_lowercase().contains(n)))
                .collect();
            Ok(Processes { count: processes.len(), processes })
        }),
        Meta {
            name: "android_get_battery_info",
            title: "Battery",
            level: Level::ReadOnly,
            toolset: Toolset::Debug,
            description: "Battery level, status, plugged, temperature, health.",
        }
        .def(|ctx: Ctx, a: SerialOnly| async move {
            let dev = ctx.device(a.serial.as_deref()).await?;
            Ok(battery::parse(&ctx.sh_ok(&dev, "dumpsys battery").await?))
        }),
        Meta {
            name: "android_get_network_info",
            title: "Network",
            level: Level::ReadOnly,
            toolset: Toolset::Debug,
            description: "Interfaces and addresses, active network, Wi-Fi state; a section it cannot read is reported in place.",
        }
        .def(network),
    ]
}
