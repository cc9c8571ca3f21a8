//! Apps and intents: launch / stop / restart, permissions, clear and uninstall, deep links and
//! explicit intents. Every argument is validated by `guard` before it reaches a device shell,
//! and every command line is built from `guard::shell_quote`d words.
use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::acted::{ReturnScreen, settle};
use super::inspect::{current_activity, refused};
use crate::device::Device;
use crate::device::parse::am;
use crate::guard::{self, ExtraValue, shell_quote};
use crate::mcp::ctx::Ctx;
use crate::mcp::registry::{Level, Meta, ToolDef, WithImages, destroying_verb};
use crate::mcp::result::{ErrorKind, ToolError};
use crate::mcp::toolsets::Toolset;

mod by_label;
mod install;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct AppArgs {
    pub serial: Option<String>,
    /// Application id, e.g. com.example.shop.
    pub package_name: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct LaunchArgs {
    pub serial: Option<String>,
    /// Application id, e.g. com.example.shop (to launch: or the label its home-screen icon
    /// shows, e.g. "Shop").
    pub package_name: String,
    pub return_screen: Option<ReturnScreen>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Started {
    pub package: Option<String>,
    /// The activity that opened (from `am start -W`, else the resumed activity).
    pub activity: Option<String>,
    pub total_time_ms: Option<u64>,
    pub launch_state: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warning: Option<String>,
    /// The screen once the app settled (with returnScreen), as the element actions send it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub screen: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub screen_error: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Done {
    pub package: String,
    pub result: String,
}

fn check_pkg(p: &str) -> Result<(), ToolError> {
    guard::package_name(p).map_err(refused)
}

/// Before a destructive app tool asks anyone: a name that can never run is refused, not put
/// to the person (a homoglyph `com.еxample` looks like the real package in any font).
fn check_app_args(a: &AppArgs) -> Result<(), ToolError> {
    check_pkg(&a.package_name)
}

fn check_permission_args(a: &PermissionArgs) -> Result<(), ToolError> {
    check_pkg(&a.package_name)?;
    guard::permission_name(&a.permission).map_err(refused)
}

/// Run `am start -W …` and report what opened; `am` errors become tool errors.
async fn am_start(ctx: &Ctx, dev: &Device, args: &[String]) -> Result<Started, ToolError> {
    let cmd = format!("am start -W {}", guard::shell_join(args));
    let out = ctx.sh(dev, &cmd).await?;
    let text = format!("{}\n{}", out.stdout_text(), out.stderr_text());
    let r = am::parse_start_w(&text);
    if let Some(e) = r.error.clone().filter(|_| !r.ok()) {
        let msg = format!("am start failed on {}: {e}", dev.serial());
        // `Activity not started, unable to resolve Intent { … }`: nothing handles it.
        return Err(if e.contains("unable to resolve") {
            ToolError::not_found(msg)
        } else {
            ToolError::device(msg)
        });
    }
    if !out.success() && !r.ok() {
        let first = text.trim().lines().next().unwrap_or("").to_string();
        return Err(ToolError::device(format!(
            "am start failed on {} (exit {}): {first}",
            dev.serial(),
            out.exit_code
        )));
    }
    let mut started = Started {
        package: r.activity.as_ref().map(|c| c.package.clone()),
        activity: r.activity.as_ref().map(|c| c.flat()),
        total_time_ms: r.total_time_ms,
        launch_state: r.launch_state,
        warning: r.warning,
        screen: None,
        screen_error: None,
    };
    if started.activity.is_none()
        && let Ok(now) = current_activity(ctx, Some(dev.serial())).await
    {
        started.package = now.package;
        started.activity = now.activity;
    }
    Ok(started)
}

/// Launch (after a force-stop for a restart), then send back what `returnScreen` asked for
/// once the app has settled.
async fn launch_and_show(
    ctx: Ctx,
    a: LaunchArgs,
    restart: bool,
) -> Result<WithImages<Started>, ToolError> {
    // An application id has a dot (Android refuses one without); a bare word is a label.
    let not_package = check_pkg(&a.package_name).err().or_else(|| {
        (!a.package_name.contains('.')).then(|| {
            ToolError::invalid_args(format!(
                "{:?} is not a package name (an application id has a dot: com.example.shop)",
                a.package_name
            ))
        })
    });
    if let Some(e) = not_package {
        // A plain word that is not a package name ("Shop"): the installed packages it is part
        // of, so an agent on the core toolset alone finds the one to launch. Anything else is
        // refused as it is, before any device is asked.
        let plain = |w: &str| {
            !w.starts_with('-')
                && w.len() <= 64
                && w.chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, ' ' | '.' | '_' | '-'))
        };
        if !plain(&a.package_name) {
            return Err(e);
        }
        // It may be the label a person knows the app by: its icon on the home screen.
        let dev = match ctx.device(a.serial.as_deref()).await {
            Ok(dev) => dev,
            Err(_) => return Err(e),
        };
        if restart {
            return Err(with_matches(&ctx, &dev, &a.package_name, e).await);
        }
        let mut started = by_label::launch(&ctx, &dev, &a.package_name, e).await?;
        let settled = settle(&ctx, &dev, a.return_screen).await?;
        started.screen = settled.screen;
        started.screen_error = settled.error;
        return Ok(WithImages {
            value: started,
            images: settled.images,
        });
    }
    let dev = ctx.device(a.serial.as_deref()).await?;
    if restart {
        simple_on(&ctx, &dev, &a.package_name, "am force-stop").await?;
    }
    let mut started = launch(&ctx, &dev, &a.package_name).await?;
    let settled = settle(&ctx, &dev, a.return_screen).await?;
    started.screen = settled.screen;
    started.screen_error = settled.error;
    Ok(WithImages {
        value: started,
        images: settled.images,
    })
}

/// Start `pkg`'s launcher activity; `pkg` was checked by the caller ([`launch_and_show`]).
///
/// `am start -W <package>` sends what a launcher icon sends (`Intent.parseCommandArgs`: a bare
/// package becomes action MAIN, category LAUNCHER, that package), resolved on the device the way
/// `cmd package resolve-activity` would resolve it, in one command instead of two.
async fn launch(ctx: &Ctx, dev: &Device, pkg: &str) -> Result<Started, ToolError> {
    match am_start(ctx, dev, &[pkg.to_string()]).await {
        Err(e) if e.kind == ErrorKind::NotFound => {
            // No launcher activity resolved: say so instead of guessing.
            let e = ToolError::not_found(format!(
                "{pkg} has no launcher activity on {} (is it installed? see android_list_packages)",
                dev.serial()
            ));
            Err(with_matches(ctx, dev, pkg, e).await)
        }
        r => r,
    }
}

/// `e`, naming the installed packages whose name holds `word` (case-insensitive; its last
/// dot-separated part for a package name), at most 8: "did you mean com.example.shop?".
async fn with_matches(ctx: &Ctx, dev: &Device, word: &str, mut e: ToolError) -> ToolError {
    let needle = word
        .rsplit('.')
        .next()
        .unwrap_or(word)
        .trim()
        .to_lowercase();
    if needle.len() < 2 {
        return e;
    }
    let Ok(text) = ctx.sh_ok(dev, "pm list packages").await else {
        return e;
    };
    let mut found: Vec<String> = super::inspect::packages_in(&text)
        .into_iter()
        .filter(|p| p.to_lowercase().contains(&needle) && p != word)
        .collect();
    found.sort();
    found.truncate(8);
    if !found.is_empty() {
        e.message = format!(
            "{}; installed packages with {needle:?} in their name: {} (launch one by its package \
             name)",
            e.message,
            found.join(", ")
        );
        e = e.with_details(serde_json::json!({ "matches": found }));
    }
    e
}

async fn simple(ctx: &Ctx, serial: Option<&str>, pkg: &str, cmd: &str) -> Result<Done, ToolError> {
    check_pkg(pkg)?;
    let dev = ctx.device(serial).await?;
    simple_on(ctx, &dev, pkg, cmd).await
}

async fn simple_on(ctx: &Ctx, dev: &Device, pkg: &str, cmd: &str) -> Result<Done, ToolError> {
    let out = ctx
        .sh_ok(dev, &format!("{cmd} {}", shell_quote(pkg)))
        .await?;
    let result = out.trim().to_string();
    if result.starts_with("Failure") || result.starts_with("Error") {
        return Err(ToolError::device(format!(
            "`{cmd} {pkg}` on {}: {result}",
            dev.serial()
        )));
    }
    Ok(Done {
        package: pkg.to_string(),
        result: if result.is_empty() {
            "ok".into()
        } else {
            result
        },
    })
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct PermissionArgs {
    pub serial: Option<String>,
    pub package_name: String,
    /// e.g. android.permission.CAMERA
    pub permission: String,
}

/// `pm grant` / `pm revoke`; `done` is the verb's past tense for the result ("revoked").
async fn permission(
    ctx: Ctx,
    a: PermissionArgs,
    verb: &'static str,
    done: &'static str,
) -> Result<Done, ToolError> {
    check_pkg(&a.package_name)?;
    guard::permission_name(&a.permission).map_err(refused)?;
    let dev = ctx.device(a.serial.as_deref()).await?;
    ctx.sh_ok(
        &dev,
        &format!(
            "pm {verb} {} {}",
            shell_quote(&a.package_name),
            shell_quote(&a.permission)
        ),
    )
    .await?;
    Ok(Done {
        package: a.package_name,
        result: format!("{done} {}", a.permission),
    })
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct DeepLinkArgs {
    pub serial: Option<String>,
    /// e.g. shop://product/42 or https://example.com/x
    pub uri: String,
    /// The app that should handle it (optional).
    pub package_name: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct IntentArgs {
    pub serial: Option<String>,
    /// e.g. android.intent.action.VIEW
    pub action: String,
    pub data: Option<String>,
    pub mime_type: Option<String>,
    pub package_name: Option<String>,
    /// Activity class: `.Main` or fully qualified (needs packageName).
    pub class_name: Option<String>,
    #[serde(default)]
    pub categories: Vec<String>,
    /// Typed extras: {"key": {"type": "string|int|long|float|bool|uri", "value": …}}.
    #[serde(default)]
    pub extras: BTreeMap<String, ExtraValue>,
}

fn intent_words(a: &IntentArgs) -> Result<Vec<String>, ToolError> {
    let r = |e| refused(e);
    guard::intent_action(&a.action).map_err(r)?;
    let mut w = vec!["-a".to_string(), a.action.clone()];
    if let Some(d) = &a.data {
        guard::uri(d).map_err(r)?;
        w.extend(["-d".into(), d.clone()]);
    }
    if let Some(t) = &a.mime_type {
        let ok = t.split_once('/').is_some_and(|(x, y)| {
            !x.is_empty()
                && !y.is_empty()
                && t.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "/.+-*".contains(c))
        });
        if !ok {
            return Err(ToolError::refused(format!(
                "mimeType {t:?} is not a MIME type like text/plain"
            )));
        }
        w.extend(["-t".into(), t.clone()]);
    }
    for c in &a.categories {
        guard::intent_category(c).map_err(r)?;
        w.extend(["-c".into(), c.clone()]);
    }
    for (k, v) in &a.extras {
        w.extend(guard::intent_extra_args(k, v).map_err(r)?);
    }
    match (&a.package_name, &a.class_name) {
        (Some(p), Some(c)) => {
            let comp = format!("{p}/{c}");
            guard::component(&comp).map_err(r)?;
            w.extend(["-n".into(), comp]);
        }
        (Some(p), None) => {
            check_pkg(p)?;
            w.push(p.clone());
        }
        (None, Some(_)) => return Err(ToolError::invalid_args("className needs packageName")),
        (None, None) => {}
    }
    Ok(w)
}

/// The words an agent chose for an intent, checked for a destroying verb: the action
/// (`android.intent.action.DELETE`, `UNINSTALL_PACKAGE`, an app's own `CLEAR_ALL`), the data URI
/// (`notes://notes/all/delete`) and the activity (`.DeleteAccountActivity`). What such an intent
/// starts may delete what no normal action brings back, so the call is destructive; opening an
/// ordinary screen is not. A heuristic on names: a deleting intent named otherwise is not
/// caught, which is why the person also sees every tap it would take to confirm a dialog.
fn intent_escalation(words: &[(&str, Option<&str>)]) -> Option<String> {
    words.iter().find_map(|(what, value)| {
        let value = (*value)?;
        destroying_verb(value).map(|verb| {
            format!(
                "the intent's {what} {value} says \"{verb}\": what it starts may delete data \
                 that no normal action brings back"
            )
        })
    })
}

fn intent_words_of(a: &IntentArgs) -> Option<String> {
    intent_escalation(&[
        ("action", Some(&a.action)),
        ("data", a.data.as_deref()),
        ("activity", a.class_name.as_deref()),
    ])
    .or_else(|| {
        // An extra can name the operation too (`{"op": "delete"}`).
        a.extras.iter().find_map(|(key, value)| {
            let text = match value {
                ExtraValue::String(s) | ExtraValue::Uri(s) => s.as_str(),
                _ => "",
            };
            intent_escalation(&[("extra", Some(&format!("{key}={text}")))])
        })
    })
}

/// The deep link's own words (its scheme aside): `notes://notes/all/delete` is destructive.
fn deep_link_words(a: &DeepLinkArgs) -> Option<String> {
    let rest = a.uri.split_once(':').map_or(a.uri.as_str(), |(_, r)| r);
    destroying_verb(rest).map(|verb| {
        format!(
            "the link {} says \"{verb}\": what it opens may delete data that no normal action \
             brings back",
            a.uri
        )
    })
}

pub fn tools() -> Vec<ToolDef> {
    vec![
        Meta {
            name: "android_launch_app",
            title: "Launch app",
            level: Level::SafeAction,
            toolset: Toolset::Core,
            description: "Start an app's launcher activity (by package name, or by the label its home-screen icon shows) and report which activity opened.",
        }
        .def(|ctx: Ctx, a: LaunchArgs| launch_and_show(ctx, a, false))
        .acts_on_app(|a: &LaunchArgs| Some(a.package_name.clone())),
        Meta {
            name: "android_install_app",
            title: "Install app",
            level: Level::SafeAction,
            toolset: Toolset::Apps,
            description: "Install an APK from the project's build outputs or the pull directory (as android_push_file reads \
                          them); reports the package and version now installed. Replacing an installed app asks the person; \
                          a downgrade needs allowDowngrade.",
        }
        .def(install::install)
        .escalates(
            "replacing or downgrading an app that is installed",
            install::install_escalation,
        ),
        Meta {
            name: "android_stop_app",
            title: "Stop app",
            level: Level::SafeAction,
            toolset: Toolset::Apps,
            description: "Force-stop an app (am force-stop).",
        }
        .def(|ctx: Ctx, a: AppArgs| async move { simple(&ctx, a.serial.as_deref(), &a.package_name, "am force-stop").await })
        .acts_on_app(|a: &AppArgs| Some(a.package_name.clone())),
        Meta {
            name: "android_restart_app",
            title: "Restart app",
            level: Level::SafeAction,
            toolset: Toolset::Apps,
            description: "Force-stop then launch an app; reports which activity opened.",
        }
        .def(|ctx: Ctx, a: LaunchArgs| launch_and_show(ctx, a, true))
        .acts_on_app(|a: &LaunchArgs| Some(a.package_name.clone())),
        Meta {
            name: "android_grant_permission",
            title: "Grant permission",
            level: Level::SafeAction,
            toolset: Toolset::Apps,
            description: "Grant a runtime permission to an app (pm grant).",
        }
        .def(|ctx: Ctx, a: PermissionArgs| permission(ctx, a, "grant", "granted"))
        .acts_on_app(|a: &PermissionArgs| Some(a.package_name.clone())),
        Meta {
            name: "android_open_deep_link",
            title: "Open deep link",
            level: Level::SafeAction,
            toolset: Toolset::Apps,
            description: "Open a URI with ACTION_VIEW (optionally in one package) and report which activity opened. \
                          A link that says delete, remove, clear… asks the person.",
        }
        .def(|ctx: Ctx, a: DeepLinkArgs| async move {
            let intent = IntentArgs {
                serial: None,
                action: "android.intent.action.VIEW".into(),
                data: Some(a.uri),
                mime_type: None,
                package_name: a.package_name,
                class_name: None,
                categories: vec![],
                extras: BTreeMap::new(),
            };
            let words = intent_words(&intent)?;
            let dev = ctx.device(a.serial.as_deref()).await?;
            am_start(&ctx, &dev, &words).await
        })
        .acts_on_app(|a: &DeepLinkArgs| a.package_name.clone())
        .escalates_if("a URI that says delete, remove, clear, wipe, uninstall, reset…", deep_link_words),
        Meta {
            name: "android_open_intent",
            title: "Open intent",
            level: Level::SafeAction,
            toolset: Toolset::Apps,
            description: "Start an activity from an intent (typed extras). An action, data or activity that says \
                          delete, uninstall, clear… asks the person.",
        }
        .def(|ctx: Ctx, a: IntentArgs| async move {
            let words = intent_words(&a)?;
            let dev = ctx.device(a.serial.as_deref()).await?;
            am_start(&ctx, &dev, &words).await
        })
        .acts_on_app(|a: &IntentArgs| a.package_name.clone())
        .escalates_if(
            "an action, data URI or activity that says delete, uninstall, clear, wipe, reset… (ACTION_DELETE, \
             UNINSTALL_PACKAGE)",
            intent_words_of,
        ),
        Meta {
            name: "android_revoke_permission",
            title: "Revoke permission",
            level: Level::Destructive,
            toolset: Toolset::Apps,
            description: "Revoke a runtime permission from an app (pm revoke). Asks the person first.",
        }
        .def(|ctx: Ctx, a: PermissionArgs| permission(ctx, a, "revoke", "revoked"))
        .acts_on_app(|a: &PermissionArgs| Some(a.package_name.clone()))
        .precheck(check_permission_args),
        Meta {
            name: "android_clear_app_data",
            title: "Clear app data",
            level: Level::Destructive,
            toolset: Toolset::Apps,
            description: "Delete all of an app's data (pm clear). Cannot be undone; asks the person first.",
        }
        .def(|ctx: Ctx, a: AppArgs| async move { simple(&ctx, a.serial.as_deref(), &a.package_name, "pm clear").await })
        .acts_on_app(|a: &AppArgs| Some(a.package_name.clone()))
        .precheck(check_app_args),
        Meta {
            name: "android_uninstall_app",
            title: "Uninstall app",
            level: Level::Destructive,
            toolset: Toolset::Apps,
            description: "Uninstall an app (pm uninstall). Cannot be undone; asks the person first.",
        }
        .def(|ctx: Ctx, a: AppArgs| async move { simple(&ctx, a.serial.as_deref(), &a.package_name, "pm uninstall").await })
        .acts_on_app(|a: &AppArgs| Some(a.package_name.clone()))
        .precheck(check_app_args),
    ]
}
